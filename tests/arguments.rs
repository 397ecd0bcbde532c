//! Call arguments checked against the tool's `inputSchema` (issue 12, "Opt-in argument
//! validation"), seen by a real rmcp client, which sends whatever arguments it is given:
//! with `validate_arguments(true)` a call that breaks the schema gets `-32602` naming each
//! JSON pointer and its record lists the violations; without it the call is answered as
//! usual, and `assert_valid_arguments()` still finds it in the log.
//!
//! Why `-32602` and not an `isError` result: server/tools "Error Handling" (2025-11-25)
//! lists malformed requests as protocol errors, and a test that opts in wants the client to
//! see the refusal unmistakably; the default (off) leaves tool results as the test wrote them.

mod common;

use std::panic::AssertUnwindSafe;

use common::{PATIENCE, call, call_ok, connect, text};
use mcp_decoy::{MockMcpServer, Response, Tool};
use rmcp::ServiceError;
use serde_json::{Value, json};

fn search() -> Tool {
    Tool::new("search").input_schema(json!({
        "type": "object",
        "properties": {
            "query": { "type": "string" },
            "limit": { "type": "integer", "minimum": 1 }
        },
        "required": ["query"]
    }))
}

/// Calls `tool` expecting a JSON-RPC error; returns its code, message and data.
async fn call_err(client: &common::Client, tool: &str, arguments: Value) -> (i32, String, Value) {
    let outcome = tokio::time::timeout(PATIENCE, client.call_tool(call(tool, arguments)))
        .await
        .unwrap_or_else(|_| panic!("tools/call {tool} took longer than {PATIENCE:?}"));
    match outcome {
        Err(ServiceError::McpError(error)) => (
            error.code.0,
            error.message.to_string(),
            error.data.unwrap_or(Value::Null),
        ),
        other => panic!("tools/call {tool}: expected a JSON-RPC error, got {other:?}"),
    }
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

#[tokio::test]
async fn with_validation_on_a_call_that_breaks_the_schema_gets_32602_naming_each_pointer() {
    // Arrange: the first response answers once; a refused call must not use it up.
    let server = MockMcpServer::builder()
        .validate_arguments(true)
        .tool(
            search()
                .respond(
                    Response::ok(json!({ "content": [{ "type": "text", "text": "first" }] }))
                        .times(1),
                )
                .respond_with(json!({ "content": [{ "type": "text", "text": "later" }] })),
        )
        .start()
        .await;
    let client = connect(&server.url()).await;

    // Act
    let (code, message, data) = call_err(&client, "search", json!({ "limit": "5" })).await;
    let valid = call_ok(&client, "search", json!({ "query": "rust", "limit": 5 })).await;

    // Assert: the client is told where, once per violation.
    assert_eq!(code, -32602);
    assert_eq!(
        message,
        "Invalid arguments for tool `search`: they do not match its inputSchema\n  \
         at /: \"query\" is a required property\n  \
         at /limit: \"5\" is not of type \"integer\""
    );
    assert_eq!(
        data,
        json!({ "argumentErrors": [
            { "pointer": "/", "reason": "\"query\" is a required property" },
            { "pointer": "/limit", "reason": "\"5\" is not of type \"integer\"" }
        ] })
    );
    assert_eq!(
        text(&valid),
        "first",
        "the refused call used up no response"
    );

    // The capture records the violations on the call's mcp record, and the transcript too.
    let log = server.log();
    let calls = log.mcp().method("tools/call").all();
    assert_eq!(calls.len(), 2);
    let pointers: Vec<&str> = calls[0]
        .argument_errors
        .iter()
        .map(|e| e.pointer.as_str())
        .collect();
    assert_eq!(pointers, ["/", "/limit"], "in pointer order");
    assert!(calls[1].argument_errors.is_empty());
    let transcript = serde_json::to_value(log.transcript()).expect("JSON");
    let recorded: Vec<&Value> = transcript
        .as_array()
        .expect("a transcript is an array")
        .iter()
        .filter(|e| e.get("argumentErrors").is_some())
        .collect();
    assert_eq!(recorded.len(), 1, "{transcript}");
    assert_eq!(recorded[0]["argumentErrors"][1]["pointer"], "/limit");

    // The refused call is in the log, so the after-the-fact check finds it too.
    let report = panic_text(|| server.assert_valid_arguments());
    assert!(report.contains("1 of 2 tools/call request(s)"), "{report}");
    client.cancel().await.expect("closing the client");
    common::schema::assert_server_messages_valid(&server.log());
}

#[tokio::test]
async fn without_validation_invalid_arguments_are_answered_and_assert_valid_arguments_lists_them() {
    // Arrange: the default server, which answers whatever arrives.
    let server = MockMcpServer::builder()
        .name("shop")
        .tool(search())
        .tool(Tool::echo())
        .start()
        .await;
    let client = connect(&server.url()).await;

    // Act
    let answered = call_ok(&client, "search", json!({ "query": 7, "limit": 0 })).await;
    call_ok(&client, "search", json!({ "query": "ok" })).await;
    call_ok(&client, "echo", json!({ "message": "hi" })).await;
    // A call of no tool is the drop report's business, not an argument problem.
    let _ = call_err(&client, "serch", json!({ "limit": "x" })).await;
    client.cancel().await.expect("closing the client");

    // Assert: the client got the template's answer; the capture holds no violation.
    assert!(!answered.is_error.unwrap_or(false));
    let log = server.log();
    assert!(log.mcp().all().iter().all(|m| m.argument_errors.is_empty()));
    let report = panic_text(|| server.assert_valid_arguments());
    let id = log.tool_calls("search")[0].record;
    assert_eq!(
        report,
        format!(
            "mcp-decoy server `shop`: 1 of 4 tools/call request(s) sent arguments that break their tool's inputSchema:\n  \
             #{id} search {{\"query\":7,\"limit\":0}}\n    \
             at /limit: 0 is less than the minimum of 1\n    \
             at /query: 7 is not of type \"string\"\n"
        )
    );
}

#[tokio::test]
async fn assert_valid_arguments_passes_when_every_call_conforms() {
    // Arrange
    let server = MockMcpServer::builder().tool(search()).start().await;
    let client = connect(&server.url()).await;

    // Act
    call_ok(&client, "search", json!({ "query": "a" })).await;
    call_ok(&client, "search", json!({ "query": "b", "limit": 3 })).await;
    client.cancel().await.expect("closing the client");

    // Assert: no panic, and the check did look at the calls.
    assert_eq!(server.log().tool_calls("search").len(), 2);
    server.assert_valid_arguments();
}

#[tokio::test]
async fn the_invalid_arguments_report_is_bounded() {
    // Arrange: more invalid calls than a report lists, one violation each.
    let server = MockMcpServer::builder().tool(search()).start().await;
    let client = connect(&server.url()).await;

    // Act
    for n in 0..25 {
        call_ok(&client, "search", json!({ "query": n })).await;
    }
    client.cancel().await.expect("closing the client");

    // Assert: 20 calls with their violation each, then a count of the rest.
    let report = panic_text(|| server.assert_valid_arguments());
    let lines: Vec<&str> = report.lines().collect();
    assert_eq!(lines.len(), 1 + 20 * 2 + 1, "{report}");
    assert!(
        lines[0].contains("25 of 25 tools/call request(s)"),
        "{report}"
    );
    assert_eq!(lines[41], "  ... and 5 more call(s) (see `server.log()`)");
}

#[tokio::test]
async fn arguments_that_are_not_an_object_are_refused_by_one_rule_and_use_up_no_response() {
    // Arrange: no validation asked for; the first response answers once and would match
    // the `{}` a lenient reader makes of `"a string"`. server/tools: `arguments` is an object.
    let server = MockMcpServer::builder()
        .tool(
            search()
                .respond(
                    Response::ok(json!({ "content": [{ "type": "text", "text": "first" }] }))
                        .times(1),
                )
                .respond_with(json!({ "content": [{ "type": "text", "text": "later" }] })),
        )
        .start()
        .await;
    let peer = common::peer::Peer::legacy(&server.url(), json!({})).await;

    // Act
    let (code, message) = peer
        .send(
            2,
            "tools/call",
            json!({ "name": "search", "arguments": "a string" }),
        )
        .await
        .error();
    let (unknown_code, unknown) = peer
        .send(3, "tools/call", json!({ "name": "serch", "arguments": {} }))
        .await
        .error();
    let first = peer
        .result(
            4,
            "tools/call",
            json!({ "name": "search", "arguments": { "query": "q" } }),
        )
        .await;

    // Assert: refused with the field named; the one-time response still answers next.
    assert_eq!(code, -32602);
    assert_eq!(
        message,
        "tools/call: `params.arguments` must be an object, got a string"
    );
    assert_eq!(unknown_code, -32602);
    assert!(unknown.starts_with("Unknown tool: serch"), "{unknown}");
    assert_eq!(first["content"][0]["text"], "first");
}
