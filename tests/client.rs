//! The decoy as the official Rust SDK's client (rmcp) sees it: the handshake, listing and
//! calling tools, templates, live catalog edits, sessions, expectations, `wait_for`, and
//! the errors `try_start` returns.

mod common;

use std::panic::AssertUnwindSafe;
use std::time::Duration;

use mcp_decoy::log::Entry;
use mcp_decoy::spec::ResponseMode;
use mcp_decoy::{Error, MockMcpServer, ProtocolVersion, Tool};
use rmcp::ServiceError;
use rmcp::model::{ClientConfig, ErrorCode, ProtocolVersion as RmcpVersion};
use serde_json::{Value, json};

use common::{
    PATIENCE, call, call_ok, connect, connect_watching, connect_with, list_tools, only_session,
    raw_tools_list, text, tool_names,
};

/// The first line of every render-failure result (product guide, "Write a response
/// template").
const RENDER_FAILURE: &str = "MCP Decoy: the response template of this tool failed to render.";

fn forecast_schema() -> Value {
    json!({
        "type": "object",
        "properties": { "city": { "type": "string" } },
        "required": ["city"]
    })
}

/// The product guide's first template example.
fn forecast_tool() -> Tool {
    Tool::new("get_forecast")
        .input_schema(forecast_schema())
        .respond_with(json!({
            "content": [{ "type": "text", "text": "Forecast for ${args.city}: 14°C, light rain" }]
        }))
}

// ---------------------------------------------------------------------------------------
// Handshake
// ---------------------------------------------------------------------------------------

#[tokio::test]
async fn initialize_result_reflects_the_builder_configuration() {
    // Arrange
    let server = MockMcpServer::builder()
        .name("weather")
        .version("2.3.4")
        .title("Weather Service")
        .instructions("Ask for a city's forecast.")
        .tool(forecast_tool())
        .start()
        .await;

    // Act
    let client = connect(&server.url()).await;

    // Assert
    let info = client.peer_info().expect("rmcp kept no initialize result");
    let server_info = info.server_info.as_ref().expect("no serverInfo");
    assert_eq!(server_info.name, "weather");
    assert_eq!(server_info.version, "2.3.4");
    assert_eq!(server_info.title.as_deref(), Some("Weather Service"));
    assert_eq!(
        info.instructions.as_deref(),
        Some("Ask for a city's forecast.")
    );
    // 2025-11-25 basic/lifecycle.mdx "Version Negotiation": "If the server supports the
    // requested protocol version, it MUST respond with the same version."
    assert_eq!(info.protocol_version, RmcpVersion::V_2025_11_25);
    // 2025-11-25 server/tools.mdx "Capabilities": servers that support tools MUST declare
    // `tools`; the decoy emits list_changed, so it says so.
    let tools = info
        .capabilities
        .tools
        .as_ref()
        .expect("no tools capability");
    assert_eq!(tools.list_changed, Some(true));
    let session = server.sessions();
    assert_eq!(session.len(), 1, "one session per initialize: {session:?}");
    assert_eq!(session[0].client_name.as_deref(), Some(common::CLIENT_NAME));
    assert!(
        session[0].initialized,
        "rmcp sent notifications/initialized"
    );

    common::schema::assert_server_messages_valid(&server.log());
}

#[tokio::test]
async fn a_server_without_a_version_reports_a_fixed_one_not_the_crates() {
    // Arrange
    let server = MockMcpServer::builder().name("weather").start().await;

    // Act
    let client = connect(&server.url()).await;

    // Assert: fixed, so upgrading mcp-decoy changes no snapshot of a user's traffic.
    let info = client.peer_info().expect("rmcp kept no initialize result");
    let server_info = info.server_info.as_ref().expect("no serverInfo");
    assert_eq!(server_info.version, "0.0.0-mock");
    assert_eq!(mcp_decoy::spec::DEFAULT_SERVER_VERSION, "0.0.0-mock");
    client.cancel().await.expect("closing the client");

    common::schema::assert_server_messages_valid(&server.log());
}

#[tokio::test]
async fn an_initialize_asking_for_the_stateless_revision_gets_the_newest_legacy_one() {
    // Arrange: rmcp's default config asks `initialize` for its newest revision (2026-07-28
    // in rmcp 3.11), which has no `initialize`.
    let server = MockMcpServer::builder().tool(Tool::echo()).start().await;

    // Act
    let (client, _changes) = connect_with(&server.url(), ClientConfig::default()).await;
    let answer = call_ok(&client, "echo", json!({ "message": "still works" })).await;

    // Assert: the premise holds ...
    let log = server.log();
    let initialize = log
        .mcp()
        .method("initialize")
        .first()
        .expect("no initialize");
    let requested = initialize.params()["protocolVersion"]
        .as_str()
        .expect("no protocolVersion asked");
    assert!(
        ProtocolVersion::parse(requested).is_some_and(ProtocolVersion::is_modern),
        "{requested} is not the stateless revision"
    );
    // ... and 2025-11-25 basic/lifecycle.mdx "Version Negotiation": "Otherwise, the server
    // MUST respond with another protocol version it supports. This SHOULD be the latest".
    let info = client.peer_info().expect("rmcp kept no initialize result");
    assert_eq!(info.protocol_version, RmcpVersion::V_2025_11_25);
    assert_eq!(text(&answer), "still works");

    common::schema::assert_server_messages_valid(&server.log());
}

#[tokio::test]
async fn a_server_limited_to_2025_06_18_negotiates_that_revision_with_rmcp() {
    // Arrange
    let server = MockMcpServer::builder()
        .protocol_versions([ProtocolVersion::V2025_06_18])
        .tool(Tool::echo())
        .start()
        .await;

    // Act: the client asks for 2025-11-25.
    let client = connect(&server.url()).await;
    let names = tool_names(&client).await;

    // Assert: 2025-11-25 basic/lifecycle.mdx "Version Negotiation": the server MUST answer
    // another version it supports.
    let info = client.peer_info().expect("rmcp kept no initialize result");
    assert_eq!(info.protocol_version, RmcpVersion::V_2025_06_18);
    let session = &server.sessions()[0];
    assert_eq!(session.protocol_version, ProtocolVersion::V2025_06_18);
    let log = server.log();
    let initialize = log
        .mcp()
        .method("initialize")
        .first()
        .expect("no initialize");
    assert_eq!(initialize.params()["protocolVersion"], "2025-11-25");
    assert_eq!(
        initialize.result().expect("initialize failed")["protocolVersion"],
        "2025-06-18"
    );
    // The session keeps working at the negotiated revision; rmcp says so in its header
    // (2025-11-25 basic/transports.mdx "Protocol Version Header").
    assert_eq!(names, ["echo"]);
    let list_post = log
        .http()
        .method("POST")
        .filter(|h| {
            h.request_body
                .as_ref()
                .is_some_and(|b| b["method"] == "tools/list")
        })
        .last()
        .expect("no tools/list POST");
    assert_eq!(
        list_post.request_header("mcp-protocol-version"),
        Some("2025-06-18")
    );
    assert_eq!(list_post.status, Some(200));

    common::schema::assert_server_messages_valid(&server.log());
}

// ---------------------------------------------------------------------------------------
// Listing and calling tools
// ---------------------------------------------------------------------------------------

#[tokio::test]
async fn list_tools_shows_published_tools_with_their_metadata_and_hides_drafts() {
    // Arrange
    let output_schema = json!({
        "type": "object",
        "properties": { "celsius": { "type": "number" } }
    });
    let server = MockMcpServer::builder()
        .tool(
            forecast_tool()
                .title("Forecast")
                .description("Get the forecast for a city")
                .output_schema(output_schema.clone())
                .read_only(true)
                .open_world(false),
        )
        .tool(Tool::new("half_done").description("not ready").draft())
        .tool(Tool::echo())
        .start()
        .await;
    let client = connect(&server.url()).await;

    // Act
    let tools = list_tools(&client).await;

    // Assert
    let names: Vec<&str> = tools.iter().map(|t| t.name.as_ref()).collect();
    assert_eq!(
        names,
        ["get_forecast", "echo"],
        "in builder order, no draft"
    );
    let forecast = &tools[0];
    assert_eq!(forecast.title.as_deref(), Some("Forecast"));
    assert_eq!(
        forecast.description.as_deref(),
        Some("Get the forecast for a city")
    );
    assert_eq!(
        Value::Object((*forecast.input_schema).clone()),
        forecast_schema()
    );
    let published_output = forecast.output_schema.as_ref().expect("no outputSchema");
    assert_eq!(Value::Object((**published_output).clone()), output_schema);
    let annotations = forecast.annotations.as_ref().expect("no annotations");
    assert_eq!(annotations.read_only_hint, Some(true));
    assert_eq!(annotations.open_world_hint, Some(false));
    assert_eq!(annotations.destructive_hint, None, "unset hints stay unset");
    assert!(tools[1].annotations.is_none(), "echo has no annotations");
    // The server still knows the draft; only clients do not see it.
    assert!(server.tools().iter().any(|t| t.name == "half_done"));

    common::schema::assert_server_messages_valid(&server.log());
}

#[tokio::test]
async fn calling_a_draft_tool_is_a_json_rpc_error() {
    // Arrange
    let server = MockMcpServer::builder()
        .tool(forecast_tool().draft())
        .start()
        .await;
    let client = connect(&server.url()).await;

    // Act
    let outcome = client
        .call_tool(call("get_forecast", json!({ "city": "Oslo" })))
        .await;

    // Assert: 2025-11-25 server/tools.mdx "Error Handling": an unknown tool is a protocol
    // error, -32602 in the spec's example.
    let Err(ServiceError::McpError(error)) = outcome else {
        panic!("calling a draft must fail with a JSON-RPC error, got {outcome:?}");
    };
    assert_eq!(error.code, ErrorCode::INVALID_PARAMS);
    assert!(error.message.contains("get_forecast"), "{error:?}");
    assert!(
        error
            .message
            .contains("exists on this server as a draft and is not published"),
        "the error says the tool is a draft: {error:?}"
    );
    assert_eq!(
        server.call_count("get_forecast"),
        0,
        "a draft is never called"
    );
    let calls = server.log().tool_calls("get_forecast");
    assert_eq!(calls.len(), 1, "the attempt is still logged");
    assert!(calls[0].result.is_none() && calls[0].error.is_some());

    common::schema::assert_server_messages_valid(&server.log());
}

#[tokio::test]
async fn a_call_renders_the_template_with_its_arguments_and_is_logged() {
    // Arrange
    let server = MockMcpServer::builder().tool(forecast_tool()).start().await;
    let client = connect(&server.url()).await;

    // Act
    let result = call_ok(&client, "get_forecast", json!({ "city": "Oslo" })).await;

    // Assert: what the client sees
    assert_eq!(text(&result), "Forecast for Oslo: 14°C, light rain");
    assert_ne!(result.is_error, Some(true));
    // and what the server recorded
    let calls = server.log().tool_calls("get_forecast");
    assert_eq!(calls.len(), 1, "{calls:?}");
    assert_eq!(calls[0].arguments, json!({ "city": "Oslo" }));
    assert_eq!(calls[0].text(), Some("Forecast for Oslo: 14°C, light rain"));
    assert!(!calls[0].is_error());
    assert_eq!(
        calls[0].session.as_deref(),
        Some(only_session(&server).as_str())
    );
    assert_eq!(server.call_count("get_forecast"), 1);

    common::schema::assert_server_messages_valid(&server.log());
}

#[tokio::test]
async fn an_if_template_answers_atlantis_with_a_tool_error() {
    // Arrange: the product guide's `$if` example.
    let server = MockMcpServer::builder()
        .tool(
            Tool::new("get_forecast")
                .input_schema(forecast_schema())
                .respond_with(json!({
                    "content": [{
                        "type": "text",
                        "text": {
                            "$if": "args.city == 'Atlantis'",
                            "then": "City not found: ${args.city}",
                            "else": "Forecast for ${args.city}: 14°C, light rain"
                        }
                    }],
                    "isError": { "$eval": "args.city == 'Atlantis'" }
                })),
        )
        .start()
        .await;
    let client = connect(&server.url()).await;

    // Act
    let atlantis = call_ok(&client, "get_forecast", json!({ "city": "Atlantis" })).await;
    let oslo = call_ok(&client, "get_forecast", json!({ "city": "Oslo" })).await;

    // Assert
    assert_eq!(atlantis.is_error, Some(true));
    assert_eq!(text(&atlantis), "City not found: Atlantis");
    assert_eq!(oslo.is_error, Some(false));
    assert_eq!(text(&oslo), "Forecast for Oslo: 14°C, light rain");
    let calls = server.log().tool_calls("get_forecast");
    let outcomes: Vec<bool> = calls.iter().map(|c| c.is_error()).collect();
    assert_eq!(outcomes, [true, false]);

    common::schema::assert_server_messages_valid(&server.log());
}

/// Splits a render-failure text into its headline and detail lines, checking the format the
/// product guide promises.
fn render_failure_details(result: &rmcp::model::CallToolResult) -> Vec<String> {
    assert_eq!(
        result.is_error,
        Some(true),
        "a render failure is a tool error"
    );
    let text = text(result);
    assert!(
        text.starts_with(RENDER_FAILURE),
        "the text must start with the headline: {text:?}"
    );
    let mut lines = text.lines();
    assert_eq!(lines.next(), Some(RENDER_FAILURE), "the headline is a line");
    let details: Vec<String> = lines.map(str::to_string).collect();
    assert!(!details.is_empty(), "no detail lines: {text:?}");
    assert!(details.iter().all(|d| !d.trim().is_empty()), "{details:?}");
    details
}

#[tokio::test]
async fn a_template_that_fails_at_call_time_answers_a_render_failure() {
    // Arrange: the template parses, but `args.missing` does not exist at call time.
    let server = MockMcpServer::builder()
        .tool(Tool::new("lookup").respond_with(json!({
            "content": [{ "type": "text", "text": { "$eval": "args.missing.deep" } }]
        })))
        .start()
        .await;
    let client = connect(&server.url()).await;

    // Act
    let result = call_ok(&client, "lookup", json!({ "city": "Oslo" })).await;

    // Assert
    let details = render_failure_details(&result);
    assert!(
        details.iter().any(|d| d.contains("missing")),
        "the detail names what failed: {details:?}"
    );
    assert!(server.log().tool_calls("lookup")[0].is_error());

    common::schema::assert_server_messages_valid(&server.log());
}

#[tokio::test]
async fn a_template_that_renders_an_invalid_call_tool_result_answers_a_render_failure() {
    // Arrange: renders fine, but `txt` is not a content type.
    let server = MockMcpServer::builder()
        .tool(Tool::new("lookup").respond_with(json!({
            "content": [{ "type": "txt", "text": "${args.city}" }]
        })))
        .start()
        .await;
    let client = connect(&server.url()).await;

    // Act
    let result = call_ok(&client, "lookup", json!({ "city": "Oslo" })).await;

    // Assert
    let details = render_failure_details(&result);
    assert!(
        details
            .iter()
            .all(|d| d.starts_with("the output is not a valid CallToolResult")),
        "{details:?}"
    );
    assert!(
        details.iter().any(|d| d.contains("/content/0")),
        "a detail points at the bad block: {details:?}"
    );

    common::schema::assert_server_messages_valid(&server.log());
}

#[tokio::test]
async fn a_tool_without_a_template_returns_its_arguments_as_json_text() {
    // Arrange
    let server = MockMcpServer::builder()
        .tool(Tool::new("record"))
        .start()
        .await;
    let client = connect(&server.url()).await;
    let arguments = json!({ "city": "Oslo", "days": 3, "units": ["C", "F"] });

    // Act
    let result = call_ok(&client, "record", arguments.clone()).await;

    // Assert
    let echoed: Value = serde_json::from_str(text(&result)).expect("the text is not JSON");
    assert_eq!(echoed, arguments);
    assert_ne!(result.is_error, Some(true));

    common::schema::assert_server_messages_valid(&server.log());
}

// ---------------------------------------------------------------------------------------
// Live catalog edits and notifications/tools/list_changed
// ---------------------------------------------------------------------------------------

#[tokio::test]
async fn publishing_a_draft_notifies_the_client_and_a_relist_shows_the_tool() {
    // Arrange
    let server = MockMcpServer::builder()
        .tool(Tool::echo())
        .tool(forecast_tool().draft())
        .start()
        .await;
    let (client, mut changes) = connect_watching(&server.url()).await;
    assert_eq!(tool_names(&client).await, ["echo"]);

    // Act
    server
        .publish_tool("get_forecast")
        .expect("publishing the draft");

    // Assert: 2025-11-25 server/tools.mdx "List Changed Notification".
    changes.expect_one("publish_tool").await;
    assert_eq!(tool_names(&client).await, ["echo", "get_forecast"]);
    let answer = call_ok(&client, "get_forecast", json!({ "city": "Oslo" })).await;
    assert_eq!(text(&answer), "Forecast for Oslo: 14°C, light rain");

    common::schema::assert_server_messages_valid(&server.log());
}

#[tokio::test(flavor = "multi_thread")]
async fn adding_a_tool_at_run_time_notifies_the_client_and_a_relist_shows_it() {
    // Arrange
    let server = MockMcpServer::builder().tool(Tool::echo()).start().await;
    let (client, mut changes) = connect_watching(&server.url()).await;
    assert_eq!(tool_names(&client).await, ["echo"]);

    // Act
    server.add_tool(forecast_tool()).expect("adding a tool");

    // Assert
    changes.expect_one("add_tool").await;
    assert_eq!(tool_names(&client).await, ["echo", "get_forecast"]);

    common::schema::assert_server_messages_valid(&server.log());
}

#[tokio::test]
async fn removing_a_tool_notifies_the_client_and_a_relist_no_longer_shows_it() {
    // Arrange
    let server = MockMcpServer::builder()
        .tool(Tool::echo())
        .tool(forecast_tool())
        .start()
        .await;
    let (client, mut changes) = connect_watching(&server.url()).await;
    assert_eq!(tool_names(&client).await, ["echo", "get_forecast"]);

    // Act
    server.remove_tool("get_forecast").expect("removing a tool");

    // Assert
    changes.expect_one("remove_tool").await;
    assert_eq!(tool_names(&client).await, ["echo"]);
    let outcome = client
        .call_tool(call("get_forecast", json!({ "city": "Oslo" })))
        .await;
    assert!(
        matches!(outcome, Err(ServiceError::McpError(_))),
        "a removed tool is unknown: {outcome:?}"
    );

    common::schema::assert_server_messages_valid(&server.log());
}

#[tokio::test]
async fn renaming_a_tool_notifies_the_client_and_a_relist_shows_the_new_name() {
    // Arrange
    let server = MockMcpServer::builder().tool(forecast_tool()).start().await;
    let (client, mut changes) = connect_watching(&server.url()).await;
    assert_eq!(tool_names(&client).await, ["get_forecast"]);

    // Act
    server
        .rename_tool("get_forecast", "forecast_v2")
        .expect("renaming a tool");

    // Assert
    changes.expect_one("rename_tool").await;
    assert_eq!(tool_names(&client).await, ["forecast_v2"]);
    let answer = call_ok(&client, "forecast_v2", json!({ "city": "Bergen" })).await;
    assert_eq!(
        text(&answer),
        "Forecast for Bergen: 14°C, light rain",
        "the renamed tool keeps its template"
    );

    common::schema::assert_server_messages_valid(&server.log());
}

#[tokio::test]
async fn editing_drafts_sends_no_list_changed() {
    // Arrange
    let server = MockMcpServer::builder()
        .tool(Tool::echo())
        .tool(Tool::new("wip").draft())
        .start()
        .await;
    let (client, mut changes) = connect_watching(&server.url()).await;

    // Act: every kind of edit a draft can get ...
    server
        .add_tool(Tool::new("wip_2").draft())
        .expect("adding a draft");
    server
        .replace_tool(Tool::new("wip").description("second try").draft())
        .expect("editing a draft");
    server
        .rename_tool("wip_2", "wip_3")
        .expect("renaming a draft");
    server.remove_tool("wip_3").expect("removing a draft");
    // ... then a positive control: a change clients can see.
    server.add_tool(forecast_tool()).expect("adding a tool");

    // Assert: the control's notification arrives. Notifications travel in order on the
    // session's one GET stream, so one sent for a draft edit would have come first and
    // would show as a second notification here.
    changes.expect_one("the positive control").await;
    assert!(
        changes.stays_quiet().await,
        "a draft edit sent notifications/tools/list_changed"
    );
    let sent = server
        .log()
        .mcp()
        .method("notifications/tools/list_changed")
        .count();
    assert_eq!(sent, 1, "only the control was notified");
    assert_eq!(tool_names(&client).await, ["echo", "get_forecast"]);

    common::schema::assert_server_messages_valid(&server.log());
}

// ---------------------------------------------------------------------------------------
// Sessions
// ---------------------------------------------------------------------------------------

#[tokio::test]
async fn closing_the_rmcp_client_deletes_its_session_and_the_id_then_gets_404() {
    // Arrange
    let server = MockMcpServer::builder().tool(Tool::echo()).start().await;
    let client = connect(&server.url()).await;
    let session = only_session(&server);

    // Act
    client.cancel().await.expect("closing the rmcp client");

    // Assert: rmcp sent DELETE with its session id, and the session is gone.
    // 2025-11-25 basic/transports.mdx "Session Management" 5: clients SHOULD send DELETE.
    let log = server
        .wait_for(|log| log.http().method("DELETE").count() > 0, PATIENCE)
        .await
        .expect("the client sent no DELETE");
    let delete = log.http().method("DELETE").first().expect("no DELETE");
    assert_eq!(
        delete.request_header("mcp-session-id"),
        Some(session.as_str())
    );
    assert_eq!(delete.status, Some(200));
    assert!(server.sessions().is_empty(), "{:?}", server.sessions());
    // 2025-11-25 basic/transports.mdx "Session Management" 3: once the session is
    // terminated the server MUST respond to requests with that id with 404 Not Found.
    let response = raw_tools_list(&server.url(), &session).await;
    assert_eq!(response.status(), reqwest::StatusCode::NOT_FOUND);

    common::schema::assert_server_messages_valid(&server.log());
}

#[tokio::test]
async fn a_session_the_server_closes_answers_404_and_rmcp_starts_a_new_one() {
    // Arrange
    let server = MockMcpServer::builder().tool(Tool::echo()).start().await;
    let client = connect(&server.url()).await;
    let session = only_session(&server);

    // Act
    assert!(server.close_session(&session), "the session was live");

    // Assert: 2025-11-25 basic/transports.mdx "Session Management" 3: the server MAY
    // terminate the session at any time, after which it MUST respond 404 to that id.
    let response = raw_tools_list(&server.url(), &session).await;
    assert_eq!(response.status(), reqwest::StatusCode::NOT_FOUND);
    let body: Value = response.json().await.expect("the 404 body is not JSON");
    assert!(body["error"]["message"].is_string(), "{body}");
    assert!(
        server
            .log()
            .http()
            .status(404)
            .filter(|h| h.request_header("mcp-session-id") == Some(session.as_str()))
            .count()
            >= 1,
        "the log shows no 404 for the closed session"
    );
    // ... and rmcp, per "Session Management" 4, re-initializes and carries on.
    let answer = call_ok(&client, "echo", json!({ "message": "again" })).await;
    assert_eq!(text(&answer), "again");
    let log = server.log();
    assert_eq!(log.mcp().method("initialize").count(), 2);
    let new_session = only_session(&server);
    assert_ne!(new_session, session);
    // rmcp may first send the call on the dead session (404) and retry it after the new
    // `initialize`; only the last attempt succeeds.
    let calls = log.tool_calls("echo");
    let (last, retried) = calls.split_last().expect("no echo call");
    assert_eq!(last.session.as_deref(), Some(new_session.as_str()));
    assert!(retried.iter().all(|c| c.error.is_some()), "{calls:?}");

    common::schema::assert_server_messages_valid(&server.log());
}

// ---------------------------------------------------------------------------------------
// Isolation and runtimes
// ---------------------------------------------------------------------------------------

#[tokio::test(flavor = "multi_thread", worker_threads = 4)]
async fn fifty_servers_started_at_once_each_see_only_their_own_traffic() {
    // Arrange + Act: 50 servers, each with its own tool, each called by its own client.
    let runs = futures::future::join_all((0..50).map(|n| async move {
        let tool = format!("tool_{n}");
        let server = MockMcpServer::builder()
            .name(format!("server-{n}"))
            .tool(Tool::new(tool.clone()))
            .start()
            .await;
        let client = connect(&server.url()).await;
        let result = call_ok(&client, &tool, json!({ "n": n })).await;
        (n, server, client, result)
    }))
    .await;

    // Assert
    let mut urls: Vec<String> = runs.iter().map(|(_, s, _, _)| s.url()).collect();
    urls.sort();
    urls.dedup();
    assert_eq!(urls.len(), 50, "every server has its own port");
    for (n, server, client, result) in &runs {
        let tool = format!("tool_{n}");
        let echoed: Value = serde_json::from_str(text(result)).expect("the text is not JSON");
        assert_eq!(echoed, json!({ "n": n }));
        let info = client.peer_info().expect("no initialize result");
        let name = &info.server_info.as_ref().expect("no serverInfo").name;
        assert_eq!(
            name,
            &format!("server-{n}"),
            "client {n} reached its own server"
        );
        let log = server.log();
        assert_eq!(log.mcp().method("initialize").count(), 1, "server {n}");
        let calls = log.mcp().method("tools/call").all();
        assert_eq!(calls.len(), 1, "server {n} saw another server's call");
        assert_eq!(calls[0].name.as_deref(), Some(tool.as_str()));
        assert_eq!(log.tool_calls(&tool)[0].arguments, json!({ "n": n }));
        assert_eq!(server.sessions().len(), 1, "server {n}");
        common::schema::assert_server_messages_valid(&log);
    }
    futures::future::join_all(runs.into_iter().map(|(_, _, client, _)| client.cancel())).await;
}

#[test]
fn a_server_dropped_outside_any_runtime_stops_without_panicking_or_hanging() {
    // Arrange: a server with a connected client (its GET stream open), on a runtime this
    // test owns and then drops.
    let runtime = tokio::runtime::Builder::new_current_thread()
        .enable_all()
        .build()
        .expect("building the test's runtime");
    let (server, client) = runtime.block_on(async {
        let server = MockMcpServer::builder().tool(Tool::echo()).start().await;
        let client = connect(&server.url()).await;
        call_ok(&client, "echo", json!({ "message": "hi" })).await;
        server
            .wait_for(|log| log.http().method("GET").count() > 0, PATIENCE)
            .await
            .expect("rmcp opened no GET stream");
        (server, client)
    });
    // Ending the runtime aborts the client's tasks without a goodbye (no DELETE).
    drop(runtime);
    drop(client);
    let address = server.address();
    common::schema::assert_server_messages_valid(&server.log());

    // Act: drop on a thread that has no runtime at all, and time it.
    let (done_tx, done_rx) = std::sync::mpsc::channel();
    let dropper = std::thread::spawn(move || {
        assert!(
            tokio::runtime::Handle::try_current().is_err(),
            "the dropping thread must have no runtime"
        );
        drop(server);
        let _ = done_tx.send(());
    });

    // Assert
    done_rx
        .recv_timeout(Duration::from_secs(5))
        .expect("dropping the server hung or panicked");
    dropper.join().expect("dropping the server panicked");
    let deadline = std::time::Instant::now() + PATIENCE;
    while std::net::TcpStream::connect(address).is_ok() {
        assert!(
            std::time::Instant::now() < deadline,
            "the server still accepts connections at {address} after drop"
        );
        std::thread::sleep(Duration::from_millis(20));
    }
}

// ---------------------------------------------------------------------------------------
// Expectations
// ---------------------------------------------------------------------------------------

#[tokio::test]
#[should_panic(expected = "tool `get_forecast`: expected exactly 2 call(s), received 1")]
async fn an_unmet_expectation_panics_on_drop_naming_the_tool() {
    // Arrange
    let server = MockMcpServer::builder()
        .tool(forecast_tool().expect(2))
        .start()
        .await;
    let client = connect(&server.url()).await;

    // Act
    call_ok(&client, "get_forecast", json!({ "city": "Oslo" })).await;
    client.cancel().await.expect("closing the client");
    // A schema failure here would panic with another message and fail the test.
    common::schema::assert_server_messages_valid(&server.log());

    // Assert: the drop at the end of the test panics.
}

/// The panic text of `f`, which must panic.
fn panic_text(f: impl FnOnce()) -> String {
    let payload = std::panic::catch_unwind(AssertUnwindSafe(f)).expect_err("it did not panic");
    payload
        .downcast_ref::<String>()
        .cloned()
        .or_else(|| payload.downcast_ref::<&str>().map(|s| s.to_string()))
        .expect("the panic payload is not text")
}

#[test]
fn the_drop_report_lists_the_calls_that_did_arrive() {
    // Arrange
    let runtime = tokio::runtime::Builder::new_current_thread()
        .enable_all()
        .build()
        .expect("building the test's runtime");
    let server = runtime.block_on(async {
        let server = MockMcpServer::builder()
            .name("weather")
            .tool(forecast_tool().expect(2))
            .tool(Tool::echo().expect(1..))
            .start()
            .await;
        let client = connect(&server.url()).await;
        call_ok(&client, "get_forecast", json!({ "city": "Oslo" })).await;
        client.cancel().await.expect("closing the client");
        server
    });
    common::schema::assert_server_messages_valid(&server.log());

    // Act
    let report = panic_text(move || drop(server));

    // Assert
    assert!(
        report.contains("mcp-decoy server `weather` (started at tests/client.rs:")
            && report.contains("): verification failed:"),
        "{report}"
    );
    assert!(
        report.contains("tool `get_forecast`: expected exactly 2 call(s), received 1"),
        "{report}"
    );
    assert!(
        report.contains(r#"tools/call get_forecast {"city":"Oslo"} -> ok"#),
        "the report lists the call: {report}"
    );
    assert!(
        report.contains("tool `echo`: expected at least 1 call(s), received 0"),
        "{report}"
    );
}

/// Runs `scenario` against a server started by `start` on a runtime of its own, closes
/// nothing, and returns the server for the test to drop outside any runtime.
fn served<F>(start: impl FnOnce() -> F, scenario: impl AsyncFnOnce(&MockMcpServer)) -> MockMcpServer
where
    F: Future<Output = MockMcpServer>,
{
    let runtime = tokio::runtime::Builder::new_current_thread()
        .enable_all()
        .build()
        .expect("building the test's runtime");
    runtime.block_on(async {
        let server = start().await;
        scenario(&server).await;
        server
    })
}

#[test]
fn a_typo_in_a_tool_name_shows_in_the_drop_report_with_the_name_meant() {
    // Arrange: the test expects `get_weather`; the client calls `get_forecast`.
    let server = served(
        || {
            MockMcpServer::builder()
                .name("weather")
                .tool(Tool::new("get_weather").expect(1))
                .start()
        },
        async |server| {
            let client = connect(&server.url()).await;
            let outcome = client
                .call_tool(call("get_forecast", json!({ "city": "Oslo" })))
                .await;
            assert!(outcome.is_err(), "no tool `get_forecast`: {outcome:?}");
            client.cancel().await.expect("closing the client");
        },
    );

    // Act
    let report = panic_text(move || drop(server));

    // Assert: the expectation, and the call that did arrive, with the name meant.
    assert!(
        report.contains("- tool `get_weather`: expected exactly 1 call(s), received 0\n  calls received:\n  (none)\n"),
        "{report}"
    );
    let call = r#" request tools/call get_forecast {"city":"Oslo"} -> error -32602 (no tool has this name; did you mean `get_weather`?)"#;
    assert!(
        report.contains("calls of other tools (1):\n  #") && report.contains(call),
        "{report}"
    );
}

#[test]
fn calls_of_a_draft_and_of_a_misspelt_tool_say_which_in_the_drop_report() {
    // Arrange
    let server = served(
        || {
            MockMcpServer::builder()
                .tool(forecast_tool().expect(1))
                .tool(Tool::new("get_alerts").draft())
                .start()
        },
        async |server| {
            let client = connect(&server.url()).await;
            for tool in ["get_forcast", "get_alerts"] {
                let outcome = client
                    .call_tool(call(tool, json!({ "city": "Oslo" })))
                    .await;
                let Err(ServiceError::McpError(error)) = outcome else {
                    panic!("calling `{tool}` must fail with a JSON-RPC error, got {outcome:?}");
                };
                assert_eq!(error.code, ErrorCode::INVALID_PARAMS, "{error:?}");
            }
            client.cancel().await.expect("closing the client");
        },
    );

    // Act
    let report = panic_text(move || drop(server));

    // Assert
    assert!(report.contains("calls of other tools (2):"), "{report}");
    assert!(
        report.contains(
            "tools/call get_forcast {\"city\":\"Oslo\"} -> error -32602 (no tool has this name; did you mean `get_forecast`?)"
        ),
        "{report}"
    );
    assert!(
        report.contains(
            "tools/call get_alerts {\"city\":\"Oslo\"} -> error -32602 (it exists on this server as a draft and is not published, so clients can neither list nor call it)"
        ),
        "{report}"
    );
}

#[test]
fn a_request_for_a_method_the_server_lacks_shows_in_the_drop_report() {
    // Arrange: a raw client asks for `tools/lst` (rmcp sends no method it does not know).
    let server = served(
        || {
            MockMcpServer::builder()
                .tool(Tool::echo().expect(1))
                .start()
        },
        async |server| {
            let client = connect(&server.url()).await;
            let answer = reqwest::Client::new()
                .post(server.url())
                .header("content-type", "application/json")
                .header("accept", "application/json, text/event-stream")
                .header("mcp-session-id", only_session(server))
                .header("mcp-protocol-version", "2025-11-25")
                .body(r#"{"jsonrpc":"2.0","id":7,"method":"tools/lst","params":{}}"#)
                .send()
                .await
                .expect("the raw POST could not be sent");
            let body: Value = answer.json().await.expect("a JSON answer");
            let message = body["error"]["message"].as_str().unwrap_or_default();
            assert!(message.contains("did you mean `tools/list`?"), "{body}");
            client.cancel().await.expect("closing the client");
        },
    );

    // Act
    let report = panic_text(move || drop(server));

    // Assert
    assert!(
        report.contains("requests for methods this server does not offer (1):"),
        "{report}"
    );
    assert!(
        report.contains("request tools/lst -> error -32601 (did you mean `tools/list`?)"),
        "{report}"
    );
}

#[test]
fn the_drop_report_names_where_the_test_started_the_server() {
    // Arrange: the line of the `start()` call is the one the report must name.
    let mut line = 0;
    let server = served(
        || {
            let builder = MockMcpServer::builder().tool(Tool::echo().expect(1));
            line = line!() + 1;
            builder.start()
        },
        async |_| {},
    );

    // Act
    let report = panic_text(move || drop(server));

    // Assert: the test's file and line, not this crate's `Drop`.
    let at = format!("(started at tests/client.rs:{line}:");
    assert!(report.contains(&at), "expected {at} in: {report}");
}

#[tokio::test(flavor = "multi_thread")]
async fn met_expectations_let_the_server_drop_quietly() {
    // Arrange
    let server = MockMcpServer::builder()
        .tool(forecast_tool().expect(1))
        .tool(Tool::echo().expect(..=2))
        .tool(Tool::new("sometimes").expect(0..))
        .start()
        .await;
    let client = connect(&server.url()).await;

    // Act
    call_ok(&client, "get_forecast", json!({ "city": "Oslo" })).await;
    call_ok(&client, "echo", json!({ "message": "once" })).await;
    client.cancel().await.expect("closing the client");

    // Assert: neither verify nor drop panics.
    server.verify();
    common::schema::assert_server_messages_valid(&server.log());
    drop(server);
}

#[tokio::test]
async fn verify_checks_expectations_while_the_server_runs() {
    // Arrange
    let server = MockMcpServer::builder()
        .tool(forecast_tool().expect(2))
        .start()
        .await;
    let client = connect(&server.url()).await;
    call_ok(&client, "get_forecast", json!({ "city": "Oslo" })).await;

    // Act + Assert: one call of two is not enough ...
    let report = panic_text(|| server.verify());
    assert!(
        report.contains("tool `get_forecast`: expected exactly 2 call(s), received 1"),
        "{report}"
    );
    assert!(report.contains(r#"{"city":"Oslo"}"#), "{report}");

    // ... and the second call satisfies it (and the drop at the end).
    call_ok(&client, "get_forecast", json!({ "city": "Bergen" })).await;
    server.verify();
    client.cancel().await.expect("closing the client");

    common::schema::assert_server_messages_valid(&server.log());
}

#[tokio::test]
async fn a_replaced_tool_takes_the_new_expectation_and_keeps_its_calls() {
    // Arrange
    let server = MockMcpServer::builder()
        .tool(forecast_tool().expect(1))
        .start()
        .await;
    let client = connect(&server.url()).await;
    call_ok(&client, "get_forecast", json!({ "city": "Oslo" })).await;

    // Act: the new version expects two calls in all; one more arrives.
    server
        .replace_tool(forecast_tool().description("edited").expect(2))
        .expect("replacing the tool");
    call_ok(&client, "get_forecast", json!({ "city": "Bergen" })).await;

    // Assert: only the new expectation is checked, against both calls.
    server.verify();
    assert_eq!(server.call_count("get_forecast"), 2);
    client.cancel().await.expect("closing the client");

    common::schema::assert_server_messages_valid(&server.log());
}

#[tokio::test]
async fn a_renamed_tool_keeps_its_call_count_and_expectation() {
    // Arrange
    let server = MockMcpServer::builder()
        .tool(forecast_tool().expect(2))
        .start()
        .await;
    let client = connect(&server.url()).await;
    call_ok(&client, "get_forecast", json!({ "city": "Oslo" })).await;

    // Act
    server
        .rename_tool("get_forecast", "forecast")
        .expect("renaming the tool");
    call_ok(&client, "forecast", json!({ "city": "Bergen" })).await;

    // Assert
    assert_eq!(server.call_count("forecast"), 2);
    assert_eq!(server.call_count("get_forecast"), 0);
    server.verify();
    client.cancel().await.expect("closing the client");

    common::schema::assert_server_messages_valid(&server.log());
}

// ---------------------------------------------------------------------------------------
// wait_for
// ---------------------------------------------------------------------------------------

#[tokio::test]
async fn wait_for_returns_once_a_spawned_clients_call_lands() {
    // Arrange
    let server = MockMcpServer::builder().tool(forecast_tool()).start().await;
    let url = server.url();

    // Act: the client runs on the same current-thread runtime as the wait.
    let client_run = tokio::spawn(async move {
        let client = connect(&url).await;
        let result = call_ok(&client, "get_forecast", json!({ "city": "Oslo" })).await;
        client.cancel().await.expect("closing the client");
        result
    });
    let log = server
        .wait_for(
            |log| {
                log.tool_calls("get_forecast")
                    .iter()
                    .any(|c| c.result.is_some())
            },
            PATIENCE,
        )
        .await
        .expect("the call never landed");

    // Assert
    let calls = log.tool_calls("get_forecast");
    assert_eq!(calls[0].arguments, json!({ "city": "Oslo" }));
    assert_eq!(calls[0].text(), Some("Forecast for Oslo: 14°C, light rain"));
    let result = client_run.await.expect("the client task failed");
    assert_eq!(text(&result), "Forecast for Oslo: 14°C, light rain");

    common::schema::assert_server_messages_valid(&server.log());
}

#[tokio::test]
async fn wait_for_times_out_with_an_error_listing_what_arrived() {
    // Arrange
    let server = MockMcpServer::builder()
        .tool(Tool::echo())
        .tool(forecast_tool())
        .start()
        .await;
    let client = connect(&server.url()).await;
    call_ok(&client, "echo", json!({ "message": "hi" })).await;
    let patience = Duration::from_millis(200);

    // Act
    let started = std::time::Instant::now();
    let outcome = server
        .wait_for(|log| !log.tool_calls("get_forecast").is_empty(), patience)
        .await;

    // Assert
    assert!(started.elapsed() >= patience, "it gave up early");
    let Err(Error::Timeout { waited, received }) = &outcome else {
        panic!("expected a timeout, got {outcome:?}");
    };
    assert_eq!(*waited, patience);
    assert!(received.contains("request initialize -> ok"), "{received}");
    assert!(
        received.contains(r#"request tools/call echo {"message":"hi"} -> ok"#),
        "{received}"
    );
    let message = outcome.expect_err("a timeout").to_string();
    assert!(
        message.starts_with("waited 200ms for the expected traffic"),
        "{message}"
    );
    assert!(message.contains("tools/call echo"), "{message}");

    common::schema::assert_server_messages_valid(&server.log());
}

// ---------------------------------------------------------------------------------------
// Response modes
// ---------------------------------------------------------------------------------------

/// The `Content-Type` of the HTTP response that carried the `tools/call` answer.
fn call_response_type(server: &MockMcpServer) -> String {
    let log = server.log();
    let call = log
        .mcp()
        .method("tools/call")
        .first()
        .expect("no tools/call");
    let carrier = call.carried_by.expect("the call names no HTTP exchange");
    match &log.get(carrier).expect("the carrier was dropped").entry {
        Entry::Http(h) => h
            .response_header("content-type")
            .expect("no content-type")
            .to_string(),
        other => panic!("the carrier is not an http record: {other:?}"),
    }
}

#[tokio::test(flavor = "multi_thread")]
async fn sse_response_mode_gives_rmcp_the_same_result_as_json() {
    // Arrange
    let json_server = MockMcpServer::builder()
        .response_mode(ResponseMode::Json)
        .tool(forecast_tool())
        .start()
        .await;
    let sse_server = MockMcpServer::builder()
        .response_mode(ResponseMode::Sse)
        .tool(forecast_tool())
        .start()
        .await;
    let json_client = connect(&json_server.url()).await;
    let sse_client = connect(&sse_server.url()).await;

    // Act
    let over_json = call_ok(&json_client, "get_forecast", json!({ "city": "Oslo" })).await;
    let over_sse = call_ok(&sse_client, "get_forecast", json!({ "city": "Oslo" })).await;

    // Assert
    assert_eq!(over_sse, over_json);
    assert_eq!(text(&over_sse), "Forecast for Oslo: 14°C, light rain");
    assert_eq!(
        list_tools(&sse_client).await,
        list_tools(&json_client).await
    );
    // 2025-11-25 basic/transports.mdx "Sending Messages to the Server" 5: a request is
    // answered with `application/json` or `text/event-stream`; each mode used its own.
    assert!(call_response_type(&json_server).starts_with("application/json"));
    assert!(call_response_type(&sse_server).starts_with("text/event-stream"));

    common::schema::assert_server_messages_valid(&json_server.log());
    common::schema::assert_server_messages_valid(&sse_server.log());
}

// ---------------------------------------------------------------------------------------
// try_start and start
// ---------------------------------------------------------------------------------------

async fn start_error(tool: Tool) -> Error {
    MockMcpServer::builder()
        .tool(tool)
        .try_start()
        .await
        .expect_err("the server must refuse this tool")
}

#[tokio::test]
async fn try_start_rejects_an_invalid_tool_name() {
    let error = start_error(Tool::new("get forecast")).await;

    let Error::InvalidToolName { name, reason } = &error else {
        panic!("expected InvalidToolName, got {error:?}");
    };
    assert_eq!(name, "get forecast");
    assert!(reason.contains("' '"), "{reason}");
    assert!(
        error
            .to_string()
            .starts_with("tool `get forecast`: invalid name"),
        "{error}"
    );
}

#[tokio::test]
async fn try_start_rejects_two_tools_with_one_name() {
    let error = MockMcpServer::builder()
        .tool(Tool::echo())
        .tool(Tool::new("echo").description("another echo"))
        .try_start()
        .await
        .expect_err("the server must refuse a duplicate tool");

    let Error::Duplicate { name, .. } = &error else {
        panic!("expected Duplicate, got {error:?}");
    };
    assert_eq!(name, "echo");
    assert!(error.to_string().contains("tool `echo`"), "{error}");
}

#[tokio::test]
async fn try_start_rejects_an_input_schema_that_is_not_an_object_schema() {
    let error = start_error(Tool::new("lookup").input_schema(json!({ "type": "string" }))).await;

    let Error::InvalidSchema {
        tool,
        field,
        reason,
    } = &error
    else {
        panic!("expected InvalidSchema, got {error:?}");
    };
    assert_eq!((tool.as_str(), *field), ("lookup", "inputSchema"));
    assert!(reason.contains(r#""type": "object""#), "{reason}");
    assert!(
        error
            .to_string()
            .starts_with("tool `lookup`: `inputSchema`"),
        "{error}"
    );
}

#[tokio::test]
async fn try_start_rejects_an_invalid_json_schema() {
    let error = start_error(Tool::new("lookup").input_schema(json!({
        "type": "object",
        "properties": { "city": { "type": "nonsense" } }
    })))
    .await;

    let Error::InvalidSchema {
        tool,
        field,
        reason,
    } = &error
    else {
        panic!("expected InvalidSchema, got {error:?}");
    };
    assert_eq!((tool.as_str(), *field), ("lookup", "inputSchema"));
    assert!(reason.contains("/properties/city/type"), "{reason}");
}

#[tokio::test]
async fn try_start_rejects_an_invalid_output_schema() {
    let error = start_error(
        Tool::new("lookup").output_schema(json!({ "type": "object", "required": "city" })),
    )
    .await;

    let Error::InvalidSchema { tool, field, .. } = &error else {
        panic!("expected InvalidSchema, got {error:?}");
    };
    assert_eq!((tool.as_str(), *field), ("lookup", "outputSchema"));
}

#[tokio::test]
async fn try_start_rejects_a_template_that_does_not_parse() {
    let error = start_error(Tool::new("get_forecast").respond_with(json!({
        "content": [{ "type": "text", "text": "${args.city" }]
    })))
    .await;

    let Error::Template { tool, reason } = &error else {
        panic!("expected Template, got {error:?}");
    };
    assert_eq!(tool, "get_forecast");
    assert!(!reason.is_empty());
    assert!(
        error
            .to_string()
            .starts_with("tool `get_forecast`: the response template is refused: SyntaxError"),
        "{error}"
    );
}

#[tokio::test]
async fn live_edits_return_errors_naming_the_tool() {
    // Arrange
    let server = MockMcpServer::builder()
        .tool(Tool::echo())
        .tool(forecast_tool())
        .start()
        .await;

    // Act + Assert
    let duplicate = server.add_tool(Tool::new("echo"));
    assert!(
        matches!(&duplicate, Err(Error::Duplicate { name, .. }) if name == "echo"),
        "{duplicate:?}"
    );
    let clash = server.rename_tool("get_forecast", "echo");
    assert!(
        matches!(&clash, Err(Error::Duplicate { name, .. }) if name == "echo"),
        "{clash:?}"
    );
    let unknown = server.remove_tool("nope");
    assert!(
        matches!(&unknown, Err(Error::Unknown { name, .. }) if name == "nope"),
        "{unknown:?}"
    );
    let bad = server.replace_tool(Tool::new("echo").input_schema(json!({ "type": "array" })));
    assert!(
        matches!(&bad, Err(Error::InvalidSchema { tool, .. }) if tool == "echo"),
        "{bad:?}"
    );
    let names: Vec<String> = server.tools().into_iter().map(|t| t.name).collect();
    assert_eq!(
        names,
        ["echo", "get_forecast"],
        "failed edits change nothing"
    );

    common::schema::assert_server_messages_valid(&server.log());
}

#[tokio::test]
#[should_panic(
    expected = "mcp-decoy: failed to start the server: tool `get forecast`: invalid name"
)]
async fn start_panics_with_the_error_message() {
    let _server = MockMcpServer::builder()
        .tool(Tool::new("get forecast"))
        .start()
        .await;
}
