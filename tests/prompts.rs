//! Prompts and completion as the official Rust SDK's client (rmcp) sees them: the
//! conformance suite's prompt fixtures, `prompts/list` and `prompts/get` with their errors,
//! prompt edits at run time, `completion/complete` for prompt arguments and resource-template
//! variables, and paging of `prompts/list`.

mod common;

use std::collections::BTreeMap;

use mcp_decoy::spec::{ResourceTemplateSpec, ServerSpec};
use mcp_decoy::{MockMcpServer, MockMcpServerBuilder, Prompt, PromptArgument};
use rmcp::model::{
    ErrorCode, GetPromptRequestParams, GetPromptResult, ListPromptsResult, PaginatedRequestParams,
};
use rmcp::service::{NotificationContext, RunningService};
use rmcp::transport::StreamableHttpClientTransport;
use rmcp::{ClientHandler, RoleClient, ServiceError, ServiceExt};
use serde_json::{Value, json};
use tokio::sync::mpsc;

use common::schema::assert_server_messages_valid;
use common::{Client, PATIENCE, QUIET, client_config, connect};

/// A 1x1 PNG, the image of `test_prompt_with_image`.
const PIXEL_PNG: &str = "iVBORw0KGgoAAAANSUhEUgAAAAEAAAABCAYAAAAfFcSJAAAADUlEQVR42mP8z8DwHwAFBQIAX8jx0gAAAABJRU5ErkJggg==";

/// The prompts the conformance suite's server scenarios call (spec pack README, section 8:
/// prompts-list, prompts-get-simple, prompts-get-with-args, prompts-get-embedded-resource,
/// prompts-get-with-image, completion-complete).
fn conformance_prompts() -> Vec<Prompt> {
    vec![
        Prompt::new("test_simple_prompt")
            .title("Simple prompt")
            .description("A simple prompt without arguments")
            .respond_with(json!([
                { "role": "user", "content": { "type": "text", "text": "This is a simple prompt for testing." } }
            ])),
        Prompt::new("test_prompt_with_arguments")
            .description("A prompt with two required arguments")
            .argument(
                PromptArgument::new("arg1")
                    .description("First test argument")
                    .required(true)
                    .complete(["paris", "park", "party", "test", "testing"]),
            )
            .argument(
                PromptArgument::new("arg2")
                    .description("Second test argument")
                    .required(true),
            )
            .respond_with(json!([
                { "role": "user", "content": { "type": "text",
                  "text": "Prompt with arguments: arg1='${args.arg1}', arg2='${args.arg2}'" } }
            ])),
        Prompt::new("test_prompt_with_embedded_resource")
            .description("A prompt that embeds a resource")
            .argument(
                PromptArgument::new("resourceUri")
                    .description("URI of the resource to embed")
                    .required(true),
            )
            .respond_with(json!([
                { "role": "user", "content": { "type": "resource", "resource": {
                    "uri": "${args.resourceUri}", "mimeType": "text/plain",
                    "text": "Embedded resource content for testing." } } },
                { "role": "user", "content": { "type": "text",
                  "text": "Please process the embedded resource above." } }
            ])),
        Prompt::new("test_prompt_with_image")
            .description("A prompt with an image")
            .respond_with(json!([
                { "role": "user", "content": { "type": "image", "data": PIXEL_PNG, "mimeType": "image/png" } },
                { "role": "user", "content": { "type": "text", "text": "Please analyze the image above." } }
            ])),
    ]
}

fn with_prompts(prompts: Vec<Prompt>) -> MockMcpServerBuilder {
    prompts
        .into_iter()
        .fold(MockMcpServer::builder(), |builder, prompt| {
            builder.prompt(prompt)
        })
}

async fn conformance_server() -> MockMcpServer {
    with_prompts(conformance_prompts()).start().await
}

fn arguments(value: Value) -> serde_json::Map<String, Value> {
    match value {
        Value::Object(object) => object,
        other => panic!("prompt arguments must be a JSON object, got {other}"),
    }
}

async fn get<H: ClientHandler>(
    client: &RunningService<RoleClient, H>,
    name: &str,
    args: Value,
) -> Result<GetPromptResult, ServiceError> {
    let params = GetPromptRequestParams::new(name).with_arguments(arguments(args));
    tokio::time::timeout(PATIENCE, client.get_prompt(params))
        .await
        .unwrap_or_else(|_| panic!("prompts/get {name} took longer than {PATIENCE:?}"))
}

/// The messages of a successful `prompts/get`, as JSON for plain comparisons.
async fn messages(client: &Client, name: &str, args: Value) -> Vec<Value> {
    let result = get(client, name, args)
        .await
        .unwrap_or_else(|e| panic!("prompts/get {name} failed: {e}"));
    result
        .messages
        .iter()
        .map(|m| serde_json::to_value(m).expect("a PromptMessage serializes"))
        .collect()
}

/// The JSON-RPC error of a failed request.
fn rpc_error<T: std::fmt::Debug>(outcome: Result<T, ServiceError>) -> rmcp::ErrorData {
    match outcome {
        Err(ServiceError::McpError(error)) => error,
        other => panic!("expected a JSON-RPC error, got {other:?}"),
    }
}

async fn list_prompt_names<H: ClientHandler>(
    client: &RunningService<RoleClient, H>,
) -> Vec<String> {
    tokio::time::timeout(PATIENCE, client.list_all_prompts())
        .await
        .expect("prompts/list took too long")
        .expect("prompts/list failed")
        .into_iter()
        .map(|p| p.name)
        .collect()
}

// ---------------------------------------------------------------------------------------
// prompts/list
// ---------------------------------------------------------------------------------------

#[tokio::test]
async fn prompts_are_listed_with_name_title_description_and_required_flags() {
    // Arrange
    let server = conformance_server().await;
    let client = connect(&server.url()).await;

    // Act
    let prompts = tokio::time::timeout(PATIENCE, client.list_all_prompts())
        .await
        .expect("prompts/list took too long")
        .expect("prompts/list failed");

    // Assert: 2025-11-25 server/prompts.mdx "Capabilities": a server with prompts MUST
    // declare `prompts`; the decoy sends list_changed, so it says so.
    let info = client.peer_info().expect("rmcp kept no initialize result");
    let capability = info
        .capabilities
        .prompts
        .as_ref()
        .expect("no prompts capability");
    assert_eq!(capability.list_changed, Some(true));
    // server/prompts.mdx "Listing Prompts" and "Data Types: Prompt".
    let names: Vec<&str> = prompts.iter().map(|p| p.name.as_str()).collect();
    assert_eq!(
        names,
        [
            "test_simple_prompt",
            "test_prompt_with_arguments",
            "test_prompt_with_embedded_resource",
            "test_prompt_with_image"
        ]
    );
    assert_eq!(prompts[0].title.as_deref(), Some("Simple prompt"));
    assert_eq!(
        prompts[0].description.as_deref(),
        Some("A simple prompt without arguments")
    );
    assert!(prompts[0].arguments.is_none(), "no arguments, none listed");
    let args = prompts[1]
        .arguments
        .as_ref()
        .expect("test_prompt_with_arguments lists its arguments");
    let listed: Vec<(&str, Option<&str>, Option<bool>)> = args
        .iter()
        .map(|a| (a.name.as_str(), a.description.as_deref(), a.required))
        .collect();
    assert_eq!(
        listed,
        [
            ("arg1", Some("First test argument"), Some(true)),
            ("arg2", Some("Second test argument"), Some(true)),
        ]
    );
    assert_server_messages_valid(&server.log());
}

#[tokio::test]
async fn icons_meta_and_optional_arguments_pass_through_to_the_listing() {
    // Arrange
    let icons = json!([{ "src": "https://example.com/review.svg", "mimeType": "image/svg+xml", "sizes": ["any"] }]);
    let server = MockMcpServer::builder()
        .prompt(
            Prompt::new("code_review")
                .icons(icons.clone())
                .meta(json!({ "example.com/team": "core" }))
                .argument(PromptArgument::new("style").title("Style")),
        )
        .start()
        .await;
    let client = connect(&server.url()).await;

    // Act
    let page = tokio::time::timeout(PATIENCE, client.list_prompts(None))
        .await
        .expect("prompts/list took too long")
        .expect("prompts/list failed");

    // Assert: 2025-11-25 server/prompts.mdx "Listing Prompts" shows `icons`.
    let listed = serde_json::to_value(&page.prompts[0]).expect("a Prompt serializes");
    assert_eq!(listed["icons"], icons);
    assert_eq!(listed["_meta"], json!({ "example.com/team": "core" }));
    assert_eq!(
        listed["arguments"],
        json!([{ "name": "style", "title": "Style", "required": false }])
    );
    assert_server_messages_valid(&server.log());
}

#[tokio::test]
async fn prompts_list_pages_are_followed_through_next_cursor() {
    // Arrange
    let server = with_prompts(conformance_prompts())
        .page_size(1)
        .start()
        .await;
    let client = connect(&server.url()).await;

    // Act: follow nextCursor by hand, page after page.
    let mut pages: Vec<ListPromptsResult> = Vec::new();
    let mut cursor = None;
    loop {
        let params = PaginatedRequestParams::default().with_cursor(cursor.take());
        let page = tokio::time::timeout(PATIENCE, client.list_prompts(Some(params)))
            .await
            .expect("prompts/list took too long")
            .expect("prompts/list failed");
        cursor = page.next_cursor.clone();
        pages.push(page);
        if cursor.is_none() || pages.len() > 10 {
            break;
        }
    }

    // Assert: 2025-11-25 server/utilities/pagination.mdx "Response Format": nextCursor while
    // more results exist; the last page has none.
    let per_page: Vec<Vec<String>> = pages
        .iter()
        .map(|p| p.prompts.iter().map(|p| p.name.clone()).collect())
        .collect();
    assert_eq!(
        per_page,
        [
            vec!["test_simple_prompt".to_string()],
            vec!["test_prompt_with_arguments".to_string()],
            vec!["test_prompt_with_embedded_resource".to_string()],
            vec!["test_prompt_with_image".to_string()],
        ]
    );
    assert_eq!(list_prompt_names(&client).await.len(), 4, "rmcp pages too");
    assert_server_messages_valid(&server.log());
}

#[tokio::test]
async fn a_server_without_prompts_declares_no_prompts_capability_and_answers_method_not_found() {
    // Arrange
    let server = MockMcpServer::builder().start().await;
    let client = connect(&server.url()).await;

    // Act
    let listed = tokio::time::timeout(PATIENCE, client.list_prompts(None))
        .await
        .expect("prompts/list took too long");
    let got = get(&client, "test_simple_prompt", json!({})).await;

    // Assert: 2025-11-25 server/prompts.mdx "Capabilities" (servers that support prompts
    // MUST declare them) and server/utilities/completion.mdx "Error Handling" (-32601 for a
    // capability not supported).
    let info = client.peer_info().expect("rmcp kept no initialize result");
    assert!(
        info.capabilities.prompts.is_none(),
        "{:?}",
        info.capabilities
    );
    let error = rpc_error(listed);
    assert_eq!(error.code, ErrorCode::METHOD_NOT_FOUND);
    assert!(error.message.contains("prompts/list"), "{error:?}");
    assert_eq!(rpc_error(got).code, ErrorCode::METHOD_NOT_FOUND);
    assert_server_messages_valid(&server.log());
}

// ---------------------------------------------------------------------------------------
// prompts/get: the conformance fixtures
// ---------------------------------------------------------------------------------------

#[tokio::test]
async fn simple_prompt_returns_one_user_text_message() {
    // Arrange
    let server = conformance_server().await;
    let client = connect(&server.url()).await;

    // Act
    let result = get(&client, "test_simple_prompt", json!({}))
        .await
        .expect("prompts/get failed");

    // Assert: conformance prompts-get-simple.
    let messages: Vec<Value> = result
        .messages
        .iter()
        .map(|m| serde_json::to_value(m).expect("a PromptMessage serializes"))
        .collect();
    assert_eq!(
        messages,
        [
            json!({ "role": "user", "content": { "type": "text", "text": "This is a simple prompt for testing." } })
        ]
    );
    assert_eq!(
        result.description.as_deref(),
        Some("A simple prompt without arguments"),
        "the prompt's description goes with the messages"
    );
    assert_server_messages_valid(&server.log());
}

#[tokio::test]
async fn prompt_with_arguments_renders_them_into_its_text() {
    // Arrange
    let server = conformance_server().await;
    let client = connect(&server.url()).await;

    // Act
    let messages = messages(
        &client,
        "test_prompt_with_arguments",
        json!({ "arg1": "hello", "arg2": "world" }),
    )
    .await;

    // Assert: conformance prompts-get-with-args.
    assert_eq!(messages.len(), 1, "{messages:?}");
    assert_eq!(messages[0]["role"], "user");
    assert_eq!(
        messages[0]["content"]["text"],
        "Prompt with arguments: arg1='hello', arg2='world'"
    );
    assert_server_messages_valid(&server.log());
}

#[tokio::test]
async fn prompt_with_embedded_resource_returns_the_resource_then_an_instruction() {
    // Arrange
    let server = conformance_server().await;
    let client = connect(&server.url()).await;

    // Act
    let messages = messages(
        &client,
        "test_prompt_with_embedded_resource",
        json!({ "resourceUri": "test://example-resource" }),
    )
    .await;

    // Assert: conformance prompts-get-embedded-resource; server/prompts.mdx "Embedded
    // Resources": a URI, a MIME type and text or blob.
    assert_eq!(messages.len(), 2, "{messages:?}");
    assert_eq!(
        messages[0]["content"],
        json!({ "type": "resource", "resource": {
            "uri": "test://example-resource", "mimeType": "text/plain",
            "text": "Embedded resource content for testing." } })
    );
    assert_eq!(messages[1]["content"]["type"], "text");
    assert_eq!(
        messages[1]["content"]["text"],
        "Please process the embedded resource above."
    );
    assert_server_messages_valid(&server.log());
}

#[tokio::test]
async fn prompt_with_image_returns_the_image_then_an_instruction() {
    // Arrange
    let server = conformance_server().await;
    let client = connect(&server.url()).await;

    // Act
    let messages = messages(&client, "test_prompt_with_image", json!({})).await;

    // Assert: conformance prompts-get-with-image; server/prompts.mdx "Image Content".
    assert_eq!(messages.len(), 2, "{messages:?}");
    assert_eq!(
        messages[0]["content"],
        json!({ "type": "image", "data": PIXEL_PNG, "mimeType": "image/png" })
    );
    assert_eq!(
        messages[1]["content"]["text"],
        "Please analyze the image above."
    );
    assert_server_messages_valid(&server.log());
}

#[tokio::test]
async fn a_prompt_without_a_template_answers_its_arguments_as_json_text() {
    // Arrange
    let server = MockMcpServer::builder()
        .prompt(Prompt::new("plain").argument(PromptArgument::new("topic")))
        .start()
        .await;
    let client = connect(&server.url()).await;

    // Act
    let messages = messages(&client, "plain", json!({ "topic": "rust" })).await;

    // Assert
    assert_eq!(
        messages,
        [json!({ "role": "user", "content": { "type": "text", "text": "{\"topic\":\"rust\"}" } })]
    );
}

#[tokio::test]
async fn a_template_can_render_a_whole_get_prompt_result() {
    // Arrange
    let server = MockMcpServer::builder()
        .prompt(
            Prompt::new("whole")
                .description("listed only")
                .argument(PromptArgument::new("who").required(true))
                .respond_with(json!({
                    "description": "Greeting for ${args.who}",
                    "messages": [
                        { "role": "assistant", "content": { "type": "audio", "data": "UklGRg==", "mimeType": "audio/wav" } }
                    ],
                    "_meta": { "example.com/who": "${args.who}" }
                })),
        )
        .start()
        .await;
    let client = connect(&server.url()).await;

    // Act
    let result = get(&client, "whole", json!({ "who": "Ada" }))
        .await
        .expect("prompts/get failed");

    // Assert: server/prompts.mdx "Audio Content"; the rendered object goes out as is.
    assert_eq!(result.description.as_deref(), Some("Greeting for Ada"));
    let message = serde_json::to_value(&result.messages[0]).expect("a PromptMessage serializes");
    assert_eq!(message["role"], "assistant");
    assert_eq!(message["content"]["type"], "audio");
    let meta = serde_json::to_value(&result.meta).expect("_meta serializes");
    assert_eq!(meta["example.com/who"], "Ada");
    assert_server_messages_valid(&server.log());
}

// ---------------------------------------------------------------------------------------
// prompts/get: errors
// ---------------------------------------------------------------------------------------

#[tokio::test]
async fn a_missing_required_argument_is_invalid_params_naming_it() {
    // Arrange
    let server = conformance_server().await;
    let client = connect(&server.url()).await;

    // Act
    let outcome = get(
        &client,
        "test_prompt_with_arguments",
        json!({ "arg1": "hello" }),
    )
    .await;

    // Assert: 2025-11-25 server/prompts.mdx "Error Handling": "Missing required arguments:
    // `-32602` (Invalid params)".
    let error = rpc_error(outcome);
    assert_eq!(error.code, ErrorCode::INVALID_PARAMS);
    assert!(error.message.contains("`arg2`"), "{error:?}");
    assert!(!error.message.contains("`arg1`"), "{error:?}");
    assert_eq!(
        error.data,
        Some(json!({ "name": "test_prompt_with_arguments", "missing": ["arg2"] }))
    );
    assert_server_messages_valid(&server.log());
}

#[tokio::test]
async fn an_unknown_prompt_is_invalid_params_naming_it() {
    // Arrange
    let server = conformance_server().await;
    let client = connect(&server.url()).await;

    // Act
    let outcome = get(&client, "no_such_prompt", json!({})).await;

    // Assert: 2025-11-25 server/prompts.mdx "Error Handling": "Invalid prompt name: `-32602`".
    let error = rpc_error(outcome);
    assert_eq!(error.code, ErrorCode::INVALID_PARAMS);
    assert_eq!(error.message, "Unknown prompt: no_such_prompt");
    assert_server_messages_valid(&server.log());
}

#[tokio::test]
async fn a_non_string_argument_is_invalid_params_naming_it() {
    // Arrange
    let server = conformance_server().await;
    let client = connect(&server.url()).await;

    // Act
    let outcome = get(
        &client,
        "test_prompt_with_arguments",
        json!({ "arg1": "hello", "arg2": 2 }),
    )
    .await;

    // Assert: the schema's GetPromptRequest has `arguments: { [key: string]: string }`.
    let error = rpc_error(outcome);
    assert_eq!(error.code, ErrorCode::INVALID_PARAMS);
    assert!(
        error.message.contains("`params.arguments.arg2`"),
        "{error:?}"
    );
    assert_server_messages_valid(&server.log());
}

#[tokio::test]
async fn a_template_that_renders_no_valid_result_is_an_internal_error_naming_the_problem() {
    // Arrange
    let server = MockMcpServer::builder()
        .prompt(Prompt::new("broken").respond_with(json!([
            { "role": "narrator", "content": { "type": "text", "text": "hi" } }
        ])))
        .prompt(Prompt::new("needs_arg").respond_with(
            json!([{ "role": "user", "content": { "type": "text", "text": "${args.missing}" } }]),
        ))
        .start()
        .await;
    let client = connect(&server.url()).await;

    // Act
    let invalid = get(&client, "broken", json!({})).await;
    let failed = get(&client, "needs_arg", json!({})).await;

    // Assert: 2025-11-25 server/prompts.mdx "Error Handling": "Internal errors: `-32603`";
    // a prompt has no isError result, so the problem goes in the error.
    let error = rpc_error(invalid);
    assert_eq!(error.code, ErrorCode::INTERNAL_ERROR);
    assert!(
        error
            .message
            .starts_with("MCP Decoy: the template of prompt `broken`"),
        "{error:?}"
    );
    assert!(error.message.contains("/messages/0/role"), "{error:?}");
    let error = rpc_error(failed);
    assert_eq!(error.code, ErrorCode::INTERNAL_ERROR);
    assert!(error.message.contains("missing"), "{error:?}");
    assert_server_messages_valid(&server.log());
}

// ---------------------------------------------------------------------------------------
// Edits at run time
// ---------------------------------------------------------------------------------------

/// A `ClientHandler` that forwards every `notifications/prompts/list_changed` to a channel.
#[derive(Debug)]
struct PromptWatcher {
    changed: mpsc::UnboundedSender<()>,
}

impl ClientHandler for PromptWatcher {
    fn get_info(&self) -> rmcp::model::ClientConfig {
        client_config()
    }

    async fn on_prompt_list_changed(&self, _context: NotificationContext<RoleClient>) {
        // The receiver may be gone when the test is over; that is fine.
        let _ = self.changed.send(());
    }
}

async fn connect_watching_prompts(
    url: &str,
) -> (
    RunningService<RoleClient, PromptWatcher>,
    mpsc::UnboundedReceiver<()>,
) {
    let (tx, rx) = mpsc::unbounded_channel();
    let transport = StreamableHttpClientTransport::from_uri(url.to_string());
    let handler = PromptWatcher { changed: tx };
    let client = match tokio::time::timeout(PATIENCE, handler.serve(transport)).await {
        Ok(Ok(client)) => client,
        Ok(Err(error)) => panic!("the rmcp client failed to initialize with {url}: {error}"),
        Err(_) => panic!("initialize with {url} took longer than {PATIENCE:?}"),
    };
    (client, rx)
}

async fn expect_list_changed(rx: &mut mpsc::UnboundedReceiver<()>, after: &str) {
    match tokio::time::timeout(PATIENCE, rx.recv()).await {
        Ok(Some(())) => {}
        Ok(None) => panic!("the client stopped before list_changed arrived after {after}"),
        Err(_) => panic!("no notifications/prompts/list_changed within {PATIENCE:?} after {after}"),
    }
}

#[tokio::test]
async fn prompt_edits_at_run_time_notify_the_client_and_show_in_the_list() {
    // Arrange
    let server = conformance_server().await;
    let (client, mut changed) = connect_watching_prompts(&server.url()).await;
    // rmcp opens its GET stream after initialize; list once so the stream is surely open.
    assert_eq!(list_prompt_names(&client).await.len(), 4);

    // Act + Assert: 2025-11-25 server/prompts.mdx "List Changed Notification".
    server
        .add_prompt(Prompt::new("summarize").description("Summarize a text"))
        .expect("summarize is a new name");
    expect_list_changed(&mut changed, "add_prompt").await;
    assert!(
        list_prompt_names(&client)
            .await
            .contains(&"summarize".to_string())
    );

    server
        .replace_prompt(Prompt::new("summarize").description("Summarize briefly"))
        .expect("summarize exists");
    expect_list_changed(&mut changed, "replace_prompt").await;
    let prompts = tokio::time::timeout(PATIENCE, client.list_all_prompts())
        .await
        .expect("prompts/list took too long")
        .expect("prompts/list failed");
    let summarize = prompts
        .iter()
        .find(|p| p.name == "summarize")
        .expect("summarize is listed");
    assert_eq!(summarize.description.as_deref(), Some("Summarize briefly"));

    server.remove_prompt("summarize").expect("summarize exists");
    expect_list_changed(&mut changed, "remove_prompt").await;
    assert_eq!(list_prompt_names(&client).await.len(), 4);
    assert!(
        tokio::time::timeout(QUIET, changed.recv()).await.is_err(),
        "one notification per edit"
    );
    assert_eq!(server.prompts().len(), 4);
    assert!(
        server
            .add_prompt(Prompt::new("test_simple_prompt"))
            .is_err(),
        "names stay unique"
    );
    assert!(server.remove_prompt("summarize").is_err(), "already gone");
}

#[tokio::test]
async fn the_first_prompt_of_a_server_declares_the_capability_and_ends_live_sessions() {
    // Arrange: a server that told its client it has no prompts (2025-11-25 server/prompts.mdx
    // "Capabilities": a server with prompts MUST declare them).
    let server = MockMcpServer::builder().start().await;
    let before = connect(&server.url()).await;
    let told = before.peer_info().expect("rmcp kept no initialize result");
    assert!(told.capabilities.prompts.is_none());
    assert_eq!(server.sessions().len(), 1);

    // Act
    server
        .add_prompt(Prompt::new("late"))
        .expect("the first prompt is accepted");

    // Assert: the session that was told otherwise has ended; a client that connects now
    // sees the capability and the prompt.
    assert!(server.sessions().is_empty(), "the live session ended");
    let after = connect(&server.url()).await;
    let info = after.peer_info().expect("rmcp kept no initialize result");
    assert!(info.capabilities.prompts.is_some(), "{info:?}");
    let prompts = tokio::time::timeout(PATIENCE, after.list_all_prompts())
        .await
        .expect("prompts/list took too long")
        .expect("prompts/list failed");
    let names: Vec<&str> = prompts.iter().map(|p| p.name.as_str()).collect();
    assert_eq!(names, ["late"]);
    assert_eq!(server.prompts().len(), 1);
}

// ---------------------------------------------------------------------------------------
// completion/complete
// ---------------------------------------------------------------------------------------

#[tokio::test]
async fn completion_of_a_prompt_argument_filters_the_values_by_prefix() {
    // Arrange
    let server = conformance_server().await;
    let client = connect(&server.url()).await;

    // Act
    let completion = tokio::time::timeout(
        PATIENCE,
        client.complete_prompt_argument("test_prompt_with_arguments", "arg1", "PAR", None),
    )
    .await
    .expect("completion/complete took too long")
    .expect("completion/complete failed");
    let none = client
        .complete_prompt_argument("test_prompt_with_arguments", "arg2", "", None)
        .await
        .expect("completion/complete of an argument without values");

    // Assert: conformance completion-complete; 2025-11-25 server/utilities/completion.mdx
    // "Completion Results": values, total, hasMore. Matching ignores case.
    assert_eq!(completion.values, ["paris", "park", "party"]);
    assert_eq!(completion.total, Some(3));
    assert_eq!(completion.has_more, Some(false));
    assert!(none.values.is_empty(), "{none:?}");
    assert_eq!(none.total, Some(0));
    // 2025-11-25 server/utilities/completion.mdx "Capabilities": servers that support
    // completions MUST declare `completions`.
    let info = client.peer_info().expect("rmcp kept no initialize result");
    assert!(info.capabilities.completions.is_some());
    assert_server_messages_valid(&server.log());
}

#[tokio::test]
async fn completion_with_more_than_a_hundred_matches_sends_a_hundred_and_says_has_more() {
    // Arrange
    let values: Vec<String> = (0..150).map(|n| format!("city-{n:03}")).collect();
    let server = MockMcpServer::builder()
        .prompt(
            Prompt::new("travel")
                .argument(PromptArgument::new("city").complete(values.clone()))
                .argument(PromptArgument::new("mode").complete(["car", "train"])),
        )
        .start()
        .await;
    let client = connect(&server.url()).await;

    // Act
    let all = client
        .complete_prompt_argument("travel", "city", "city-", None)
        .await
        .expect("completion/complete failed");
    let few = client
        .complete_prompt_argument("travel", "city", "city-14", None)
        .await
        .expect("completion/complete failed");

    // Assert: 2025-11-25 server/utilities/completion.mdx "Completion Results": "Maximum 100
    // items per response", total of all matches, hasMore when more exist.
    assert_eq!(all.values, values[..100]);
    assert_eq!(all.total, Some(150));
    assert_eq!(all.has_more, Some(true));
    assert_eq!(few.values.len(), 10);
    assert_eq!(few.total, Some(10));
    assert_eq!(few.has_more, Some(false));
    assert_server_messages_valid(&server.log());
}

/// A server with the conformance prompts and the conformance resource template
/// `test://template/{id}/data`, whose `id` completes from a list.
async fn server_with_template() -> MockMcpServer {
    let mut spec = ServerSpec::new("completion");
    spec.resource_templates.push(ResourceTemplateSpec {
        uri_template: "test://template/{id}/data".into(),
        name: "template".into(),
        title: None,
        description: Some("A resource template".into()),
        mime_type: Some("application/json".into()),
        annotations: None,
        icons: None,
        meta: None,
        template: json!({ "text": { "$json": { "id": "${vars.id}" } } }),
        completions: BTreeMap::from([(
            "id".to_string(),
            vec![
                "1".to_string(),
                "12".to_string(),
                "123".to_string(),
                "2".to_string(),
            ],
        )]),
        script: Vec::new(),
        published: true,
    });
    spec.resource_templates.push(ResourceTemplateSpec {
        uri_template: "file:///{+path}".into(),
        name: "files".into(),
        title: None,
        description: None,
        mime_type: None,
        annotations: None,
        icons: None,
        meta: None,
        template: json!({ "text": "File ${vars.path}" }),
        completions: BTreeMap::new(),
        script: Vec::new(),
        published: true,
    });
    conformance_prompts()
        .into_iter()
        .fold(MockMcpServerBuilder::from_spec(spec), |b, p| b.prompt(p))
        .start()
        .await
}

#[tokio::test]
async fn completion_of_a_resource_template_variable_uses_its_values() {
    // Arrange
    let server = server_with_template().await;
    let client = connect(&server.url()).await;

    // Act
    let completion = client
        .complete_resource_argument("test://template/{id}/data", "id", "1", None)
        .await
        .expect("completion/complete failed");
    let without_values = client
        .complete_resource_argument("file:///{+path}", "path", "src/", None)
        .await
        .expect("completion/complete of a variable without values");

    // Assert: 2025-11-25 server/utilities/completion.mdx "Reference Types": `ref/resource`
    // names the template by its URI template.
    assert_eq!(completion.values, ["1", "12", "123"]);
    assert_eq!(completion.total, Some(3));
    assert_eq!(completion.has_more, Some(false));
    assert!(without_values.values.is_empty(), "{without_values:?}");
    assert_server_messages_valid(&server.log());
}

#[tokio::test]
async fn completion_of_an_unknown_prompt_template_or_argument_is_invalid_params_naming_it() {
    // Arrange
    let server = server_with_template().await;
    let client = connect(&server.url()).await;

    // Act
    let unknown_argument = client
        .complete_prompt_argument("test_prompt_with_arguments", "arg9", "", None)
        .await;
    let unknown_prompt = client
        .complete_prompt_argument("no_such_prompt", "arg1", "", None)
        .await;
    let unknown_variable = client
        .complete_resource_argument("test://template/{id}/data", "name", "", None)
        .await;
    let unknown_template = client
        .complete_resource_argument("test://other/{id}", "id", "", None)
        .await;

    // Assert: 2025-11-25 server/utilities/completion.mdx "Error Handling": "Invalid prompt
    // name: `-32602`"; the decoy treats an unknown argument or template the same way.
    for (what, outcome, named) in [
        ("an unknown argument", unknown_argument, "arg9"),
        ("an unknown prompt", unknown_prompt, "no_such_prompt"),
        ("an unknown variable", unknown_variable, "name"),
        ("an unknown template", unknown_template, "test://other/{id}"),
    ] {
        let error = rpc_error(outcome);
        assert_eq!(error.code, ErrorCode::INVALID_PARAMS, "{what}: {error:?}");
        assert!(error.message.contains(named), "{what}: {error:?}");
    }
    assert_server_messages_valid(&server.log());
}

/// A draft prompt is neither listed nor gettable until published, and adding it sends no
/// `notifications/prompts/list_changed`.
#[tokio::test]
async fn a_draft_prompt_is_hidden_until_it_is_published() {
    // Arrange
    let server = conformance_server().await;
    let (client, mut changed) = connect_watching_prompts(&server.url()).await;
    assert_eq!(list_prompt_names(&client).await.len(), 4);

    // Act
    server
        .add_prompt(Prompt::new("summarize").draft())
        .expect("a new name");

    // Assert
    assert!(
        tokio::time::timeout(QUIET, changed.recv()).await.is_err(),
        "a draft sends no list_changed"
    );
    assert_eq!(list_prompt_names(&client).await.len(), 4, "not listed");
    let hidden = client
        .get_prompt(rmcp::model::GetPromptRequestParams::new("summarize"))
        .await;
    assert!(hidden.is_err(), "a draft cannot be got: {hidden:?}");

    server
        .replace_prompt(Prompt::new("summarize"))
        .expect("the draft exists");
    expect_list_changed(&mut changed, "publishing").await;
    assert!(
        list_prompt_names(&client)
            .await
            .contains(&"summarize".to_string())
    );
}
