//! The schema check every integration test ends with can fail: a real `CallToolResult` from a
//! decoy passes, and the same result broken in the ways a template could break it is
//! reported with the place it broke.
//!
//! Schema references are to `/work/shared/spec/schema/2025-11-25/schema.json` (shipped as
//! `schema/mcp-2025-11-25.json`).

mod common;

use mcp_decoy::{MockMcpServer, Tool};
use serde_json::{Value, json};

use common::schema::{assert_server_messages_valid, validate_message};
use common::{call_ok, connect, text};

/// The `result` the decoy sent for its only `tools/call`, as captured.
async fn a_real_call_tool_result() -> (MockMcpServer, Value) {
    let server = MockMcpServer::builder()
        .tool(Tool::new("get_forecast").respond_with(json!({
            "content": [{ "type": "text", "text": "Forecast for ${args.city}: 14°C" }]
        })))
        .start()
        .await;
    let client = connect(&server.url()).await;
    let answer = call_ok(&client, "get_forecast", json!({ "city": "Oslo" })).await;
    assert_eq!(text(&answer), "Forecast for Oslo: 14°C");
    client.cancel().await.expect("closing the client");
    let result = server
        .log()
        .tool_calls("get_forecast")
        .first()
        .and_then(|call| call.result.clone())
        .expect("the call has no captured result");
    (server, result)
}

#[tokio::test]
async fn a_real_result_passes_and_the_same_result_broken_is_reported_where_it_broke() {
    // Arrange
    let (server, valid) = a_real_call_tool_result().await;
    let mut without_content = valid.clone();
    without_content
        .as_object_mut()
        .expect("a result is an object")
        .remove("content");
    let mut unknown_block = valid.clone();
    unknown_block["content"][0] = json!({ "type": "hologram", "text": "hi" });
    let mut string_flag = valid.clone();
    string_flag["isError"] = json!("yes");

    // Act
    let of_valid = validate_message("CallToolResult", &valid);
    let of_without_content = validate_message("CallToolResult", &without_content);
    let of_unknown_block = validate_message("CallToolResult", &unknown_block);
    let of_string_flag = validate_message("CallToolResult", &string_flag);

    // Assert: schema `CallToolResult`: `content` is required, each item a `ContentBlock`,
    // `isError` a boolean.
    assert!(of_valid.is_empty(), "{of_valid:?}");
    assert!(
        of_without_content
            .iter()
            .any(|p| p.starts_with("at /:") && p.contains("content")),
        "{of_without_content:?}"
    );
    assert!(
        of_unknown_block
            .iter()
            .any(|p| p.starts_with("at /content/0:")),
        "{of_unknown_block:?}"
    );
    assert!(
        of_string_flag.iter().any(|p| p.starts_with("at /isError:")),
        "{of_string_flag:?}"
    );
    // The whole log of the real exchange passes the check the other tests end with.
    assert_server_messages_valid(&server.log());
}

#[test]
fn a_result_that_is_a_valid_result_but_not_a_call_tool_result_is_reported() {
    // Arrange: any object is a `Result`, so only the method's own type catches this.
    let loose = json!({ "content": "Forecast for Oslo" });

    // Act
    let as_result = validate_message("Result", &loose);
    let as_call_tool_result = validate_message("CallToolResult", &loose);

    // Assert
    assert!(as_result.is_empty(), "{as_result:?}");
    assert!(
        as_call_tool_result
            .iter()
            .any(|p| p.starts_with("at /content:")),
        "{as_call_tool_result:?}"
    );
}

#[test]
fn an_error_response_may_omit_its_id_but_not_set_it_to_null() {
    // Arrange: 2025-11-25 basic/index.mdx "Error Responses": `id?: string | number`, left
    // out "where the ID could not be read"; schema `JSONRPCErrorResponse`, `RequestId`.
    let error = json!({ "code": -32700, "message": "Parse error" });
    let without_id = json!({ "jsonrpc": "2.0", "error": error });
    let null_id = json!({ "jsonrpc": "2.0", "id": null, "error": error });

    // Act
    let of_without_id = validate_message("JSONRPCErrorResponse", &without_id);
    let of_null_id = validate_message("JSONRPCErrorResponse", &null_id);

    // Assert
    assert!(of_without_id.is_empty(), "{of_without_id:?}");
    assert!(
        of_null_id.iter().any(|p| p.starts_with("at /id:")),
        "{of_null_id:?}"
    );
}

#[test]
#[should_panic(expected = "the MCP schema has no definition named CallToolResults")]
fn a_definition_the_schema_lacks_is_a_panic_not_a_pass() {
    validate_message("CallToolResults", &json!({}));
}
