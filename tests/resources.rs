//! Resources as the official Rust SDK's client (rmcp) sees them: listing resources and
//! templates, reading text, blobs and template matches, the not-found and render-failure
//! errors, subscriptions and `notifications/resources/updated`, live edits, pagination, and a
//! server without resources.
//!
//! Spec references are to `/work/shared/spec/2025-11-25/server/resources.mdx` unless named.

#![allow(
    deprecated,
    reason = "rmcp marks resources/subscribe legacy-only (2026-07-28); 2025-11-25 has it"
)]

mod common;

use mcp_decoy::{Error, ItemKind, MockMcpServer, Resource, ResourceTemplate, Tool};
use rmcp::model::{
    ClientConfig, ErrorCode, PaginatedRequestParams, ReadResourceRequestParams, ReadResourceResult,
    ResourceContents, ResourceUpdatedNotificationParam, SubscribeRequestParams,
    UnsubscribeRequestParams,
};
use rmcp::service::{NotificationContext, RunningService};
use rmcp::transport::StreamableHttpClientTransport;
use rmcp::{ClientHandler, RoleClient, ServiceError, ServiceExt};
use serde_json::{Value, json};
use tokio::sync::mpsc;

use common::schema::assert_server_messages_valid;
use common::{PATIENCE, QUIET, client_config, connect, only_session};

/// The conformance suite's fixtures (spec pack README, section 8: resources-read-text,
/// resources-read-binary, resources-templates-read, resources-subscribe).
const STATIC_TEXT: &str = "This is the content of the static text resource.";
/// A 1x1 transparent PNG.
const PNG_BASE64: &str = "iVBORw0KGgoAAAANSUhEUgAAAAEAAAABCAYAAAAfFcSJAAAADUlEQVR42mNkYPhfDwAChwGA60e6kgAAAABJRU5ErkJggg==";

fn static_text() -> Resource {
    Resource::text("test://static-text", STATIC_TEXT)
        .name("static-text")
        .description("A static text resource for testing")
        .mime_type("text/plain")
}

fn static_binary() -> Resource {
    Resource::blob("test://static-binary", PNG_BASE64)
        .name("static-binary")
        .description("A static binary resource (PNG) for testing")
        .mime_type("image/png")
}

fn template_data() -> ResourceTemplate {
    ResourceTemplate::new("test://template/{id}/data", "template-data")
        .description("Data for the resource with the given id")
        .mime_type("application/json")
        .respond_with(json!({
            "text": { "$json": { "id": "${vars.id}", "templateTest": true, "data": "Data for ID: ${vars.id}" } }
        }))
}

/// A server with the conformance suite's resource fixtures.
async fn conformance_server() -> MockMcpServer {
    MockMcpServer::builder()
        .resource(static_text())
        .resource(static_binary())
        .resource(Resource::text("test://watched-resource", "v1").mime_type("text/plain"))
        .resource_template(template_data())
        .start()
        .await
}

// ---------------------------------------------------------------------------------------
// A client that hears resource notifications
// ---------------------------------------------------------------------------------------

/// A resource notification the client heard.
#[derive(Debug, Clone, PartialEq)]
enum Heard {
    /// `notifications/resources/updated`, with its `uri`.
    Updated(String),
    /// `notifications/resources/list_changed`.
    ListChanged,
}

#[derive(Debug)]
struct Watcher {
    config: ClientConfig,
    heard: mpsc::UnboundedSender<Heard>,
}

impl ClientHandler for Watcher {
    fn get_info(&self) -> ClientConfig {
        self.config.clone()
    }

    async fn on_resource_updated(
        &self,
        params: ResourceUpdatedNotificationParam,
        _context: NotificationContext<RoleClient>,
    ) {
        // The receiver is gone only when the test already ended.
        let _ = self.heard.send(Heard::Updated(params.uri));
    }

    async fn on_resource_list_changed(&self, _context: NotificationContext<RoleClient>) {
        let _ = self.heard.send(Heard::ListChanged);
    }
}

type WatchingClient = RunningService<RoleClient, Watcher>;

/// What a [`Watcher`] heard, in arrival order.
struct Hearing(mpsc::UnboundedReceiver<Heard>);

impl Hearing {
    async fn next(&mut self, after: &str) -> Heard {
        match tokio::time::timeout(PATIENCE, self.0.recv()).await {
            Ok(Some(heard)) => heard,
            Ok(None) => panic!("the client stopped before it heard anything after {after}"),
            Err(_) => panic!("the client heard nothing within {PATIENCE:?} after {after}"),
        }
    }

    async fn stays_quiet(&mut self) -> Option<Heard> {
        tokio::time::timeout(QUIET, self.0.recv())
            .await
            .ok()
            .flatten()
    }
}

async fn connect_watching(url: &str) -> (WatchingClient, Hearing) {
    let (tx, rx) = mpsc::unbounded_channel();
    let watcher = Watcher {
        config: client_config(),
        heard: tx,
    };
    let transport = StreamableHttpClientTransport::from_uri(url.to_string());
    let client = match tokio::time::timeout(PATIENCE, watcher.serve(transport)).await {
        Ok(Ok(client)) => client,
        Ok(Err(error)) => panic!("the rmcp client failed to initialize with {url}: {error}"),
        Err(_) => panic!("initialize with {url} took longer than {PATIENCE:?}"),
    };
    (client, Hearing(rx))
}

// ---------------------------------------------------------------------------------------
// Helpers
// ---------------------------------------------------------------------------------------

async fn read<H: ClientHandler>(
    client: &RunningService<RoleClient, H>,
    uri: &str,
) -> Result<ReadResourceResult, ServiceError> {
    tokio::time::timeout(
        PATIENCE,
        client.read_resource(ReadResourceRequestParams::new(uri)),
    )
    .await
    .unwrap_or_else(|_| panic!("resources/read {uri} took longer than {PATIENCE:?}"))
}

async fn read_ok<H: ClientHandler>(
    client: &RunningService<RoleClient, H>,
    uri: &str,
) -> ReadResourceResult {
    read(client, uri)
        .await
        .unwrap_or_else(|e| panic!("resources/read {uri} failed: {e}"))
}

/// The JSON-RPC error of a failed request; panics if it succeeded or failed otherwise.
fn rpc_error<T: std::fmt::Debug>(outcome: Result<T, ServiceError>, what: &str) -> rmcp::ErrorData {
    match outcome {
        Err(ServiceError::McpError(error)) => error,
        other => panic!("{what}: expected a JSON-RPC error, got {other:?}"),
    }
}

/// The only contents of a read, as JSON (rmcp's enum serialized back), so a test compares
/// every field at once.
fn only_contents(result: &ReadResourceResult) -> Value {
    assert_eq!(
        result.contents.len(),
        1,
        "expected one contents item: {:?}",
        result.contents
    );
    serde_json::to_value(&result.contents[0]).expect("ResourceContents serializes")
}

/// POSTs a raw JSON-RPC request in `session`, for what rmcp cannot send; returns the
/// response body.
async fn raw_request(url: &str, session: &str, method: &str, params: Value) -> Value {
    let body = json!({ "jsonrpc": "2.0", "id": 7, "method": method, "params": params });
    reqwest::Client::new()
        .post(url)
        .header("content-type", "application/json")
        .header("accept", "application/json, text/event-stream")
        .header("mcp-session-id", session)
        .header("mcp-protocol-version", "2025-11-25")
        .json(&body)
        .send()
        .await
        .unwrap_or_else(|e| panic!("the raw {method} POST could not be sent: {e}"))
        .json()
        .await
        .unwrap_or_else(|e| panic!("the raw {method} response is not JSON: {e}"))
}

// ---------------------------------------------------------------------------------------
// Listing
// ---------------------------------------------------------------------------------------

#[tokio::test]
async fn a_server_with_resources_declares_subscribe_and_list_changed() {
    // Arrange
    let server = conformance_server().await;

    // Act
    let client = connect(&server.url()).await;

    // Assert: "Capabilities": servers that support resources MUST declare `resources`; the
    // decoy serves both optional features.
    let info = client.peer_info().expect("rmcp kept no initialize result");
    let resources = info
        .capabilities
        .resources
        .as_ref()
        .expect("no resources capability");
    assert_eq!(resources.subscribe, Some(true));
    assert_eq!(resources.list_changed, Some(true));
    assert_server_messages_valid(&server.log());
}

#[tokio::test]
async fn resources_list_shows_each_resource_with_every_metadata_field() {
    // Arrange: "Data Types" > "Resource" and "Annotations".
    let server = MockMcpServer::builder()
        .resource(
            Resource::text("file:///project/src/main.rs", "fn main() {}")
                .title("Rust Software Application Main File")
                .description("Primary application entry point")
                .mime_type("text/x-rust")
                .size(12)
                // 0.5, not 0.8: rmcp keeps `priority` as an f32, and 0.5 survives the round trip.
                .annotations(json!({
                    "audience": ["user", "assistant"],
                    "priority": 0.5,
                    "lastModified": "2025-01-12T15:00:58Z"
                }))
                .icons(json!([{
                    "src": "https://example.com/rust-file-icon.png",
                    "mimeType": "image/png",
                    "sizes": ["48x48"]
                }]))
                .meta(json!({ "example.com/owner": "ann" })),
        )
        .resource(static_text())
        .start()
        .await;
    let client = connect(&server.url()).await;

    // Act
    let resources = tokio::time::timeout(PATIENCE, client.list_all_resources())
        .await
        .expect("resources/list took too long")
        .expect("resources/list failed");

    // Assert: what rmcp parsed, serialized back, is everything the builder said.
    let listed: Vec<Value> = resources
        .iter()
        .map(|r| serde_json::to_value(r).expect("Resource serializes"))
        .collect();
    assert_eq!(
        listed,
        vec![
            json!({
                "uri": "file:///project/src/main.rs",
                "name": "main.rs",
                "title": "Rust Software Application Main File",
                "description": "Primary application entry point",
                "mimeType": "text/x-rust",
                "size": 12,
                "icons": [{
                    "src": "https://example.com/rust-file-icon.png",
                    "mimeType": "image/png",
                    "sizes": ["48x48"]
                }],
                "annotations": {
                    "audience": ["user", "assistant"],
                    "priority": 0.5,
                    "lastModified": "2025-01-12T15:00:58Z"
                },
                "_meta": { "example.com/owner": "ann" }
            }),
            json!({
                "uri": "test://static-text",
                "name": "static-text",
                "description": "A static text resource for testing",
                "mimeType": "text/plain"
            }),
        ]
    );
    assert_server_messages_valid(&server.log());
}

#[tokio::test]
async fn resource_templates_list_shows_each_template() {
    // Arrange
    let server = MockMcpServer::builder()
        .resource_template(template_data().title("Template data"))
        .resource_template(
            ResourceTemplate::new("file:///{+path}", "Project Files")
                .title("📁 Project Files")
                .mime_type("application/octet-stream")
                .icons(json!([{ "src": "https://example.com/folder-icon.png" }])),
        )
        .start()
        .await;
    let client = connect(&server.url()).await;

    // Act
    let templates = tokio::time::timeout(PATIENCE, client.list_all_resource_templates())
        .await
        .expect("resources/templates/list took too long")
        .expect("resources/templates/list failed");

    // Assert: "Resource Templates".
    let listed: Vec<Value> = templates
        .iter()
        .map(|t| serde_json::to_value(t).expect("ResourceTemplate serializes"))
        .collect();
    assert_eq!(
        listed,
        vec![
            json!({
                "uriTemplate": "test://template/{id}/data",
                "name": "template-data",
                "title": "Template data",
                "description": "Data for the resource with the given id",
                "mimeType": "application/json"
            }),
            json!({
                "uriTemplate": "file:///{+path}",
                "name": "Project Files",
                "title": "📁 Project Files",
                "mimeType": "application/octet-stream",
                "icons": [{ "src": "https://example.com/folder-icon.png" }]
            }),
        ]
    );
    assert_server_messages_valid(&server.log());
}

// ---------------------------------------------------------------------------------------
// Reading
// ---------------------------------------------------------------------------------------

#[tokio::test]
async fn reading_the_static_text_resource_returns_its_text() {
    // Arrange
    let server = conformance_server().await;
    let client = connect(&server.url()).await;

    // Act
    let result = read_ok(&client, "test://static-text").await;

    // Assert: "Resource Contents" > "Text Content"; conformance resources-read-text.
    assert_eq!(
        only_contents(&result),
        json!({ "uri": "test://static-text", "mimeType": "text/plain", "text": STATIC_TEXT })
    );
    assert_server_messages_valid(&server.log());
}

#[tokio::test]
async fn reading_the_static_binary_resource_returns_its_png_blob() {
    // Arrange
    let server = conformance_server().await;
    let client = connect(&server.url()).await;

    // Act
    let result = read_ok(&client, "test://static-binary").await;

    // Assert: "Resource Contents" > "Binary Content"; conformance resources-read-binary.
    let ResourceContents::BlobResourceContents {
        uri,
        mime_type,
        blob,
        ..
    } = &result.contents[0]
    else {
        panic!("expected blob contents, got {:?}", result.contents);
    };
    assert_eq!(uri, "test://static-binary");
    assert_eq!(mime_type.as_deref(), Some("image/png"));
    assert_eq!(blob, PNG_BASE64);
    assert_server_messages_valid(&server.log());
}

#[tokio::test]
async fn reading_a_uri_of_a_template_renders_its_variables() {
    // Arrange
    let server = conformance_server().await;
    let client = connect(&server.url()).await;

    // Act
    let result = read_ok(&client, "test://template/123/data").await;

    // Assert: conformance resources-templates-read; `uri` and `mimeType` come from the read
    // and the template.
    let contents = only_contents(&result);
    assert_eq!(contents["uri"], "test://template/123/data");
    assert_eq!(contents["mimeType"], "application/json");
    let text = contents["text"].as_str().expect("text contents");
    let data: Value = serde_json::from_str(text).expect("the text is JSON");
    assert_eq!(data["id"], "123");
    assert_eq!(data["data"], "Data for ID: 123");
    assert_server_messages_valid(&server.log());
}

#[tokio::test]
async fn a_reserved_path_template_matches_nested_and_percent_encoded_paths() {
    // Arrange
    let server = MockMcpServer::builder()
        .resource_template(
            ResourceTemplate::new("file:///{+path}", "files")
                .mime_type("text/plain")
                .respond_with(json!({ "text": "contents of ${vars.path} (read as ${uri})" })),
        )
        .start()
        .await;
    let client = connect(&server.url()).await;

    // Act
    let nested = read_ok(&client, "file:///project/src/main.rs").await;
    let encoded = read_ok(&client, "file:///my%20notes/to%20do.txt").await;

    // Assert: variables are percent-decoded; `uri` is the URI as read.
    assert_eq!(
        only_contents(&nested),
        json!({
            "uri": "file:///project/src/main.rs",
            "mimeType": "text/plain",
            "text": "contents of project/src/main.rs (read as file:///project/src/main.rs)"
        })
    );
    assert_eq!(
        only_contents(&encoded)["text"],
        "contents of my notes/to do.txt (read as file:///my%20notes/to%20do.txt)"
    );
    assert_server_messages_valid(&server.log());
}

#[tokio::test]
async fn a_template_can_answer_several_contents_and_a_static_uri_wins_over_a_template() {
    // Arrange
    let server = MockMcpServer::builder()
        .resource(Resource::text("test://docs/readme", "the static one"))
        .resource_template(ResourceTemplate::new("test://docs/{name}", "docs").respond_with(
            json!([
                { "text": "part 1 of ${vars.name}" },
                { "blob": "aGk=", "mimeType": "application/octet-stream", "uri": "test://docs/${vars.name}/part2" }
            ]),
        ))
        .start()
        .await;
    let client = connect(&server.url()).await;

    // Act
    let templated = read_ok(&client, "test://docs/guide").await;
    let fixed = read_ok(&client, "test://docs/readme").await;

    // Assert
    let contents: Vec<Value> = templated
        .contents
        .iter()
        .map(|c| serde_json::to_value(c).expect("ResourceContents serializes"))
        .collect();
    assert_eq!(
        contents,
        vec![
            json!({ "uri": "test://docs/guide", "text": "part 1 of guide" }),
            json!({ "uri": "test://docs/guide/part2", "mimeType": "application/octet-stream", "blob": "aGk=" }),
        ]
    );
    assert_eq!(only_contents(&fixed)["text"], "the static one");
    assert_server_messages_valid(&server.log());
}

#[tokio::test]
async fn reading_an_unknown_uri_is_resource_not_found_naming_the_uri() {
    // Arrange
    let server = conformance_server().await;
    let client = connect(&server.url()).await;

    // Act
    let unknown = read(&client, "test://nonexistent").await;
    let no_match = read(&client, "test://template/1/2/data").await;

    // Assert: "Error Handling": resource not found is -32002 with `data.uri`, never an empty
    // `contents`.
    for (outcome, uri) in [
        (unknown, "test://nonexistent"),
        (no_match, "test://template/1/2/data"),
    ] {
        let error = rpc_error(outcome, uri);
        assert_eq!(error.code, ErrorCode(-32002), "{uri}");
        assert_eq!(error.message, "Resource not found");
        assert_eq!(error.data, Some(json!({ "uri": uri })));
    }
    assert_server_messages_valid(&server.log());
}

#[tokio::test]
async fn a_template_that_renders_invalid_contents_answers_an_internal_error_listing_the_problems() {
    // Arrange
    let server = MockMcpServer::builder()
        .resource_template(
            ResourceTemplate::new("test://broken/{id}", "broken")
                .respond_with(json!({ "txt": "${vars.id}" })),
        )
        .start()
        .await;
    let client = connect(&server.url()).await;

    // Act
    let outcome = read(&client, "test://broken/1").await;

    // Assert: "Error Handling": internal errors are -32603; the message says what is wrong.
    let error = rpc_error(outcome, "the broken template");
    assert_eq!(error.code, ErrorCode::INTERNAL_ERROR);
    assert!(
        error.message.starts_with(
            "MCP Decoy: the response template of this resource template failed to render."
        ),
        "{}",
        error.message
    );
    assert!(
        error
            .message
            .contains("contents[0] is not a valid TextResourceContents"),
        "{}",
        error.message
    );
    let data = error.data.expect("the error names the URI and template");
    assert_eq!(data["uri"], "test://broken/1");
    assert_eq!(data["uriTemplate"], "test://broken/{id}");
    assert_server_messages_valid(&server.log());
}

#[tokio::test]
async fn resources_read_without_a_string_uri_is_invalid_params_naming_it() {
    // Arrange
    let server = conformance_server().await;
    let _client = connect(&server.url()).await;
    let session = only_session(&server);

    // Act: rmcp always sends a uri, so a raw request.
    let response = raw_request(
        &server.url(),
        &session,
        "resources/read",
        json!({ "uri": 5 }),
    )
    .await;

    // Assert
    assert_eq!(response["error"]["code"], -32602, "{response}");
    let message = response["error"]["message"].as_str().unwrap_or_default();
    assert!(message.contains("`params.uri`"), "{message}");
    assert_server_messages_valid(&server.log());
}

// ---------------------------------------------------------------------------------------
// Subscriptions and notifications
// ---------------------------------------------------------------------------------------

#[tokio::test]
async fn a_subscribed_client_hears_resource_updated_until_it_unsubscribes() {
    // Arrange
    let server = conformance_server().await;
    let (client, mut hearing) = connect_watching(&server.url()).await;
    for uri in ["test://watched-resource", "test://static-text"] {
        let subscribed = client.subscribe(SubscribeRequestParams::new(uri)).await;
        assert!(subscribed.is_ok(), "subscribe {uri}: {subscribed:?}");
    }

    // Act 1: "Subscriptions": the update notification names the URI.
    server.resource_updated("test://watched-resource");

    // Assert 1
    assert_eq!(
        hearing.next("resource_updated").await,
        Heard::Updated("test://watched-resource".into())
    );

    // Act 2: conformance resources-unsubscribe: updates stop after unsubscribe.
    client
        .unsubscribe(UnsubscribeRequestParams::new("test://watched-resource"))
        .await
        .expect("unsubscribe");
    server.resource_updated("test://watched-resource");
    server.resource_updated("test://static-text");

    // Assert 2: both go on the one GET stream in order, so the next one heard is the update
    // of the resource still subscribed.
    assert_eq!(
        hearing.next("the second round of updates").await,
        Heard::Updated("test://static-text".into())
    );
    assert_eq!(hearing.stays_quiet().await, None);
    let subscribe = server
        .log()
        .mcp()
        .method("resources/subscribe")
        .first()
        .and_then(|m| m.response.clone())
        .expect("subscribe was answered");
    assert_eq!(subscribe["result"], json!({}));
    assert_server_messages_valid(&server.log());
}

#[tokio::test]
async fn only_subscribed_sessions_hear_about_a_uri() {
    // Arrange
    let server = conformance_server().await;
    let (subscriber, mut heard_by_subscriber) = connect_watching(&server.url()).await;
    let (_bystander, mut heard_by_bystander) = connect_watching(&server.url()).await;
    subscriber
        .subscribe(SubscribeRequestParams::new("test://watched-resource"))
        .await
        .expect("subscribe");

    // Act
    server.resource_updated("test://watched-resource");

    // Assert
    assert_eq!(
        heard_by_subscriber.next("resource_updated").await,
        Heard::Updated("test://watched-resource".into())
    );
    assert_eq!(heard_by_bystander.stays_quiet().await, None);
    assert_server_messages_valid(&server.log());
}

#[tokio::test]
async fn a_uri_a_template_matches_can_be_subscribed_and_an_unknown_one_cannot() {
    // Arrange
    let server = conformance_server().await;
    let (client, mut hearing) = connect_watching(&server.url()).await;

    // Act
    let templated = client
        .subscribe(SubscribeRequestParams::new("test://template/7/data"))
        .await;
    let unknown = client
        .subscribe(SubscribeRequestParams::new("test://nonexistent"))
        .await;
    server.resource_updated("test://template/7/data");

    // Assert
    assert!(templated.is_ok(), "{templated:?}");
    let error = rpc_error(unknown, "subscribe to an unknown URI");
    assert_eq!(error.code, ErrorCode(-32002));
    assert_eq!(error.data, Some(json!({ "uri": "test://nonexistent" })));
    assert_eq!(
        hearing.next("resource_updated").await,
        Heard::Updated("test://template/7/data".into())
    );
    assert_server_messages_valid(&server.log());
}

#[tokio::test]
async fn replacing_a_resource_sends_list_changed_and_updated_to_its_subscribers() {
    // Arrange
    let server = conformance_server().await;
    let (client, mut hearing) = connect_watching(&server.url()).await;
    client
        .subscribe(SubscribeRequestParams::new("test://watched-resource"))
        .await
        .expect("subscribe");

    // Act
    server
        .replace_resource(Resource::text("test://watched-resource", "v2").mime_type("text/plain"))
        .expect("the resource exists");

    // Assert: list_changed goes to every session, then updated to the subscriber.
    assert_eq!(hearing.next("replace_resource").await, Heard::ListChanged);
    assert_eq!(
        hearing.next("replace_resource").await,
        Heard::Updated("test://watched-resource".into())
    );
    let contents = only_contents(&read_ok(&client, "test://watched-resource").await);
    assert_eq!(contents["text"], "v2");
    assert_server_messages_valid(&server.log());
}

#[tokio::test]
async fn live_edits_send_list_changed_and_change_what_is_listed() {
    // Arrange
    let server = conformance_server().await;
    let (client, mut hearing) = connect_watching(&server.url()).await;

    // Act + Assert: "List Changed Notification" after each edit clients can see.
    server
        .add_resource(Resource::text("test://late", "added live"))
        .expect("a new URI");
    assert_eq!(hearing.next("add_resource").await, Heard::ListChanged);
    assert_eq!(
        only_contents(&read_ok(&client, "test://late").await)["text"],
        "added live"
    );

    server
        .remove_resource("test://static-binary")
        .expect("the resource exists");
    assert_eq!(hearing.next("remove_resource").await, Heard::ListChanged);

    server
        .add_resource_template(ResourceTemplate::new("test://late/{n}", "late"))
        .expect("a new URI template");
    assert_eq!(
        hearing.next("add_resource_template").await,
        Heard::ListChanged
    );
    server
        .remove_resource_template("test://template/{id}/data")
        .expect("the template exists");
    assert_eq!(
        hearing.next("remove_resource_template").await,
        Heard::ListChanged
    );

    let uris: Vec<String> = client
        .list_all_resources()
        .await
        .expect("resources/list")
        .into_iter()
        .map(|r| r.uri)
        .collect();
    assert_eq!(
        uris,
        [
            "test://static-text",
            "test://watched-resource",
            "test://late"
        ]
    );
    let templates: Vec<String> = client
        .list_all_resource_templates()
        .await
        .expect("resources/templates/list")
        .into_iter()
        .map(|t| t.uri_template)
        .collect();
    assert_eq!(templates, ["test://late/{n}"]);
    // The default contents of a template: its variables as JSON text.
    assert_eq!(
        only_contents(&read_ok(&client, "test://late/9").await)["text"],
        r#"{"n":"9"}"#
    );
    let unknown = rpc_error(read(&client, "test://template/1/data").await, "removed");
    assert_eq!(unknown.code, ErrorCode(-32002));
    assert_eq!(server.resources().len(), 3);
    assert_server_messages_valid(&server.log());
}

#[tokio::test]
async fn live_edits_name_the_item_at_fault() {
    // Arrange
    let server = conformance_server().await;

    // Act
    let duplicate = server.add_resource(Resource::text("test://static-text", "again"));
    let unknown = server.replace_resource(Resource::text("test://nope", "x"));
    let bad_blob = server.add_resource(Resource::blob("test://bad", "not base64!"));
    let bad_template = server.add_resource_template(ResourceTemplate::new("test://{id", "t"));

    // Assert
    assert!(
        matches!(duplicate, Err(Error::Duplicate { kind: ItemKind::Resource, ref name }) if name == "test://static-text"),
        "{duplicate:?}"
    );
    assert!(
        matches!(
            unknown,
            Err(Error::Unknown {
                kind: ItemKind::Resource,
                ..
            })
        ),
        "{unknown:?}"
    );
    assert!(
        matches!(bad_blob, Err(Error::Invalid { field: "blob", .. })),
        "{bad_blob:?}"
    );
    assert!(
        matches!(
            bad_template,
            Err(Error::Invalid {
                kind: ItemKind::ResourceTemplate,
                field: "uriTemplate",
                ..
            })
        ),
        "{bad_template:?}"
    );
}

// ---------------------------------------------------------------------------------------
// Pagination
// ---------------------------------------------------------------------------------------

#[tokio::test]
async fn with_page_size_one_the_client_follows_next_cursor_through_every_page() {
    // Arrange: server/utilities/pagination.mdx: the server picks the page size, the client
    // follows `nextCursor` until it is absent.
    let server = MockMcpServer::builder()
        .page_size(1)
        .resource(Resource::text("test://a", "a"))
        .resource(Resource::text("test://b", "b"))
        .resource(Resource::text("test://c", "c"))
        .resource_template(ResourceTemplate::new("test://t1/{x}", "t1"))
        .resource_template(ResourceTemplate::new("test://t2/{x}", "t2"))
        .start()
        .await;
    let client = connect(&server.url()).await;

    // Act
    let mut pages = Vec::new();
    let mut cursor = None;
    loop {
        let page = client
            .list_resources(Some(PaginatedRequestParams::default().with_cursor(cursor)))
            .await
            .expect("resources/list");
        pages.push(
            page.resources
                .iter()
                .map(|r| r.uri.clone())
                .collect::<Vec<_>>(),
        );
        cursor = page.next_cursor;
        if cursor.is_none() || pages.len() > 5 {
            break;
        }
    }
    let templates = client
        .list_all_resource_templates()
        .await
        .expect("resources/templates/list");

    // Assert
    assert_eq!(pages, [["test://a"], ["test://b"], ["test://c"]]);
    assert_eq!(templates.len(), 2);
    assert_eq!(
        server
            .log()
            .mcp()
            .method("resources/templates/list")
            .count(),
        2,
        "two pages, two requests"
    );
    assert_server_messages_valid(&server.log());
}

#[tokio::test]
async fn an_invalid_cursor_is_invalid_params() {
    // Arrange
    let server = MockMcpServer::builder()
        .page_size(1)
        .resource(Resource::text("test://a", "a"))
        .resource(Resource::text("test://b", "b"))
        .start()
        .await;
    let client = connect(&server.url()).await;

    // Act
    let outcome = client
        .list_resources(Some(
            PaginatedRequestParams::default().with_cursor(Some("not-a-cursor".into())),
        ))
        .await;

    // Assert: server/utilities/pagination.mdx "Error Handling": invalid cursors SHOULD be
    // -32602.
    let error = rpc_error(outcome, "an invalid cursor");
    assert_eq!(error.code, ErrorCode::INVALID_PARAMS);
    assert_server_messages_valid(&server.log());
}

// ---------------------------------------------------------------------------------------
// A server without resources, and invalid configuration
// ---------------------------------------------------------------------------------------

#[tokio::test]
async fn a_server_without_resources_does_not_declare_them_and_answers_method_not_found() {
    // Arrange
    let server = MockMcpServer::builder().tool(Tool::echo()).start().await;
    let client = connect(&server.url()).await;

    // Act
    let listed = client.list_resources(None).await;

    // Assert: capabilities must match what is served (spec pack README, server-stateless
    // "caps match handlers"; "Capabilities": servers that support resources MUST declare it).
    let info = client.peer_info().expect("rmcp kept no initialize result");
    assert!(
        info.capabilities.resources.is_none(),
        "{:?}",
        info.capabilities
    );
    let error = rpc_error(listed, "resources/list without resources");
    assert_eq!(error.code, ErrorCode::METHOD_NOT_FOUND);
    assert!(server.resources().is_empty());
    assert_server_messages_valid(&server.log());
}

#[tokio::test]
async fn the_first_resource_of_a_server_declares_the_capability_and_ends_live_sessions() {
    // Arrange: a client told the server has no resources.
    let server = MockMcpServer::builder().tool(Tool::echo()).start().await;
    let before = connect(&server.url()).await;
    assert_eq!(server.sessions().len(), 1);

    // Act
    server
        .add_resource(Resource::text("test://late", "x"))
        .expect("the first resource is accepted");

    // Assert: "servers that support resources MUST declare it" (server/resources.mdx,
    // "Capabilities"): the session told otherwise ended, and a new one sees it.
    assert!(server.sessions().is_empty(), "the live session ended");
    drop(before);
    let after = connect(&server.url()).await;
    let info = after.peer_info().expect("rmcp kept no initialize result");
    assert!(info.capabilities.resources.is_some(), "{info:?}");
    let listed = after.list_resources(None).await.expect("resources/list");
    assert_eq!(listed.resources.len(), 1);
    assert_eq!(listed.resources[0].uri, "test://late");
    assert_server_messages_valid(&server.log());
}

#[tokio::test]
async fn start_rejects_invalid_resources_naming_the_field() {
    // Arrange
    let cases = [
        (
            MockMcpServer::builder().resource(Resource::blob("test://b", "***")),
            "blob",
        ),
        (
            MockMcpServer::builder().resource(Resource::text("no scheme", "x")),
            "uri",
        ),
        (
            MockMcpServer::builder()
                .resource_template(ResourceTemplate::new("test://template/{id/data", "t")),
            "uriTemplate",
        ),
    ];
    for (builder, expected_field) in cases {
        // Act
        let outcome = builder.try_start().await;

        // Assert
        match outcome {
            Err(Error::Invalid { field, reason, .. }) => {
                assert_eq!(field, expected_field, "{reason}");
            }
            other => panic!("expected an invalid {expected_field}, got {other:?}"),
        }
    }
    let duplicate = MockMcpServer::builder()
        .resource(static_text())
        .resource(static_text())
        .try_start()
        .await;
    assert!(
        matches!(
            duplicate,
            Err(Error::Duplicate {
                kind: ItemKind::Resource,
                ..
            })
        ),
        "{duplicate:?}"
    );
}

/// A draft resource or template is neither listed nor readable, and adding or editing it
/// sends no `list_changed`; replacing it with a published copy publishes it, and clients
/// hear of that (2025-11-25 server/resources, "List Changed Notification").
#[tokio::test]
async fn a_draft_resource_is_hidden_until_it_is_published() {
    // Arrange
    let server = conformance_server().await;
    let (client, mut hearing) = connect_watching(&server.url()).await;

    // Act: add drafts.
    server
        .add_resource(Resource::text("test://wip", "not yet").draft())
        .expect("a new URI");
    server
        .add_resource_template(ResourceTemplate::new("test://wip/{n}", "wip").draft())
        .expect("a new URI template");

    // Assert: nothing to hear, list or read.
    assert_eq!(
        hearing.stays_quiet().await,
        None,
        "drafts send no list_changed"
    );
    let uris: Vec<String> = client
        .list_all_resources()
        .await
        .expect("resources/list")
        .into_iter()
        .map(|r| r.uri)
        .collect();
    assert!(!uris.contains(&"test://wip".to_string()), "{uris:?}");
    let unknown = rpc_error(read(&client, "test://wip").await, "a draft");
    assert_eq!(unknown.code, ErrorCode(-32002));
    let unmatched = rpc_error(read(&client, "test://wip/1").await, "a draft template");
    assert_eq!(unmatched.code, ErrorCode(-32002));

    // Publishing is a replace with `published: true`; clients hear of it and can read it.
    server
        .replace_resource(Resource::text("test://wip", "ready"))
        .expect("the draft exists");
    assert_eq!(hearing.next("publishing").await, Heard::ListChanged);
    assert_eq!(
        only_contents(&read_ok(&client, "test://wip").await)["text"],
        "ready"
    );
    assert_server_messages_valid(&server.log());
}

/// A template matches endless URIs, so each session holds at most 1,000 subscriptions: the
/// next is refused naming the limit, and unsubscribing makes room (issue 49: what a session
/// keeps is bounded).
#[tokio::test]
async fn a_session_holds_at_most_1000_subscriptions() {
    // Arrange
    let server = MockMcpServer::builder()
        .resource_template(ResourceTemplate::new("file:///{+path}", "files"))
        .start()
        .await;
    let (client, _heard) = connect_watching(&server.url()).await;
    let subscribe =
        |n: usize| client.subscribe(SubscribeRequestParams::new(format!("file:///{n}")));

    // Act
    for n in 0..1_000 {
        subscribe(n).await.expect("within the limit");
    }
    let refused = subscribe(1_000).await;
    let again = subscribe(999).await;
    client
        .unsubscribe(UnsubscribeRequestParams::new("file:///0"))
        .await
        .expect("unsubscribe");
    let room = subscribe(1_000).await;

    // Assert
    let Err(ServiceError::McpError(error)) = refused else {
        panic!("the 1,001st subscription must be refused: {refused:?}");
    };
    assert_eq!(error.code.0, -32602);
    assert!(
        error.message.contains("1000 URIs, the limit"),
        "{}",
        error.message
    );
    assert!(again.is_ok(), "a URI already subscribed is no new one");
    assert!(room.is_ok(), "unsubscribing made room");
}
