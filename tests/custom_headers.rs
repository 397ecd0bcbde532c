//! `x-mcp-header` tool parameters (2026-07-28 `server/tools.mdx`, "x-mcp-header";
//! `basic/transports/streamable-http.mdx`, "Custom Headers from Tool Parameters"): the
//! builder refuses annotations that break the rules unless told to publish them, and a
//! modern `tools/call` must mirror each annotated argument as an `Mcp-Param-{Name}` header
//! (400 + -32020 otherwise). The conformance scenario `http-custom-header-server-validation`
//! is covered case by case.

mod common;

use mcp_decoy::{Error, MockMcpServer, Tool};
use rmcp::model::{ClientConfig, Implementation, ProtocolVersion};
use rmcp::transport::StreamableHttpClientTransport;
use rmcp::{ClientLifecycleMode, ClientServiceExt};
use serde_json::{Value, json};

const VERSION: &str = "2026-07-28";

/// A tool whose `region`, `priority` and `verbose` arguments travel as headers too.
fn headered() -> Tool {
    Tool::new("route")
        .input_schema(json!({
            "type": "object",
            "properties": {
                "region": { "type": "string", "x-mcp-header": "Region" },
                "priority": { "type": "integer", "x-mcp-header": "Priority" },
                "verbose": { "type": "boolean", "x-mcp-header": "Verbose" },
                "target": { "type": "object", "properties": {
                    "zone": { "type": "string", "x-mcp-header": "Zone" }
                } },
                "query": { "type": "string" }
            }
        }))
        .respond_with(json!({ "content": [{ "type": "text", "text": "routed" }] }))
}

async fn server() -> MockMcpServer {
    MockMcpServer::builder().tool(headered()).start().await
}

/// A modern `tools/call` of `route` with `arguments` and extra `headers`: the status and the
/// JSON-RPC response.
async fn call(url: &str, arguments: Value, headers: &[(&str, &str)]) -> (u16, Value) {
    let mut request = reqwest::Client::new()
        .post(url)
        .header("content-type", "application/json")
        .header("accept", "application/json")
        .header("mcp-protocol-version", VERSION)
        .header("mcp-method", "tools/call")
        .header("mcp-name", "route");
    for (name, value) in headers {
        request = request.header(*name, *value);
    }
    let body = json!({ "jsonrpc": "2.0", "id": 1, "method": "tools/call", "params": {
        "_meta": {
            "io.modelcontextprotocol/protocolVersion": VERSION,
            "io.modelcontextprotocol/clientCapabilities": {}
        },
        "name": "route",
        "arguments": arguments
    } });
    let response = request
        .json(&body)
        .send()
        .await
        .expect("the tools/call POST could not be sent");
    let status = response.status().as_u16();
    let body: Value = response.json().await.expect("a JSON-RPC response");
    (status, body)
}

fn assert_accepted((status, body): &(u16, Value)) {
    assert_eq!(*status, 200, "{body}");
    assert_eq!(body["result"]["content"][0]["text"], "routed", "{body}");
}

/// Asserts 400 + -32020 and returns the message.
fn assert_mismatch((status, body): &(u16, Value)) -> String {
    assert_eq!(*status, 400, "{body}");
    assert_eq!(body["error"]["code"], -32020, "{body}");
    body["error"]["message"]
        .as_str()
        .unwrap_or_default()
        .to_string()
}

// ---------------------------------------------------------------------------------------
// http-custom-header-server-validation

#[tokio::test]
async fn a_valid_base64_header_value_is_decoded_before_it_is_compared() {
    let server = server().await;
    let reply = call(
        &server.url(),
        json!({ "region": "Hello" }),
        &[("Mcp-Param-Region", "=?base64?SGVsbG8=?=")],
    )
    .await;
    assert_accepted(&reply);

    let non_ascii = call(
        &server.url(),
        json!({ "region": "Hello, 世界" }),
        &[("Mcp-Param-Region", "=?base64?SGVsbG8sIOS4lueVjA==?=")],
    )
    .await;
    assert_accepted(&non_ascii);
}

#[tokio::test]
async fn base64_with_bad_padding_is_rejected_with_400_and_header_mismatch() {
    let server = server().await;
    let reply = call(
        &server.url(),
        json!({ "region": "Hello" }),
        &[("Mcp-Param-Region", "=?base64?SGVsbG8?=")],
    )
    .await;
    let message = assert_mismatch(&reply);
    assert!(
        message.contains("Mcp-Param-Region") && message.contains("base64"),
        "{message}"
    );
}

#[tokio::test]
async fn base64_with_characters_outside_the_alphabet_is_rejected() {
    let server = server().await;
    let reply = call(
        &server.url(),
        json!({ "region": "Hello" }),
        &[("Mcp-Param-Region", "=?base64?SGVs!!!bG8=?=")],
    )
    .await;
    assert!(assert_mismatch(&reply).contains("Mcp-Param-Region"));
}

#[tokio::test]
async fn a_value_without_the_whole_base64_wrapper_is_literal() {
    let server = server().await;
    for literal in ["SGVsbG8=", "=?base64?SGVsbG8=", "SGVsbG8=?="] {
        let reply = call(
            &server.url(),
            json!({ "region": literal }),
            &[("Mcp-Param-Region", literal)],
        )
        .await;
        assert_accepted(&reply);
    }
    // Read as literal, the missing-suffix form is not "Hello".
    let reply = call(
        &server.url(),
        json!({ "region": "Hello" }),
        &[("Mcp-Param-Region", "=?base64?SGVsbG8=")],
    )
    .await;
    assert_mismatch(&reply);
}

#[tokio::test]
async fn an_argument_in_the_body_without_its_header_is_rejected_naming_the_header() {
    let server = server().await;
    let reply = call(&server.url(), json!({ "region": "test-value" }), &[]).await;
    let message = assert_mismatch(&reply);
    assert!(
        message.contains("Mcp-Param-Region")
            && message.contains("params.arguments.region")
            && message.contains("test-value"),
        "{message}"
    );
}

#[tokio::test]
async fn a_different_value_names_the_header_and_both_values() {
    let server = server().await;
    let reply = call(
        &server.url(),
        json!({ "region": "us-west1" }),
        &[("Mcp-Param-Region", "eu-north1")],
    )
    .await;
    let message = assert_mismatch(&reply);
    assert!(
        message.contains("Mcp-Param-Region")
            && message.contains("eu-north1")
            && message.contains("us-west1"),
        "{message}"
    );
    // The refusal is a 2026-07-28 HeaderMismatchError.
    common::schema::assert_server_messages_valid(&server.log());
}

// ---------------------------------------------------------------------------------------
// Types, absent values, names, nesting

#[tokio::test]
async fn integers_compare_numerically_and_booleans_as_true_or_false() {
    let server = server().await;
    for sent in ["42", "42.0", "4.2e1", "+42"] {
        let reply = call(
            &server.url(),
            json!({ "priority": 42 }),
            &[("Mcp-Param-Priority", sent)],
        )
        .await;
        assert_accepted(&reply);
    }
    for sent in ["43", "forty-two", "0x2A", ""] {
        let reply = call(
            &server.url(),
            json!({ "priority": 42 }),
            &[("Mcp-Param-Priority", sent)],
        )
        .await;
        let message = assert_mismatch(&reply);
        assert!(message.contains("Mcp-Param-Priority"), "{sent}: {message}");
    }
    assert_accepted(
        &call(
            &server.url(),
            json!({ "verbose": false }),
            &[("Mcp-Param-Verbose", "false")],
        )
        .await,
    );
    for sent in ["False", "0", "no"] {
        let reply = call(
            &server.url(),
            json!({ "verbose": false }),
            &[("Mcp-Param-Verbose", sent)],
        )
        .await;
        assert_mismatch(&reply);
    }
}

#[tokio::test]
async fn a_null_or_absent_argument_needs_no_header() {
    let server = server().await;
    assert_accepted(&call(&server.url(), json!({ "query": "SELECT 1" }), &[]).await);
    assert_accepted(
        &call(
            &server.url(),
            json!({ "region": null, "priority": null }),
            &[],
        )
        .await,
    );
    // An empty string is a value: its header is there, and empty.
    assert_accepted(
        &call(
            &server.url(),
            json!({ "region": "" }),
            &[("Mcp-Param-Region", "")],
        )
        .await,
    );
}

#[tokio::test]
async fn a_nested_property_is_mirrored_from_its_path() {
    let server = server().await;
    assert_mismatch(&call(&server.url(), json!({ "target": { "zone": "b" } }), &[]).await);
    assert_accepted(
        &call(
            &server.url(),
            json!({ "target": { "zone": "b" } }),
            &[("mcp-param-zone", "b")],
        )
        .await,
    );
}

#[tokio::test]
async fn legacy_sessions_do_not_check_param_headers() {
    let server = server().await;
    let client = common::connect(&server.url()).await;
    let result = common::call_ok(&client, "route", json!({ "region": "us-west1" })).await;
    assert_eq!(common::text(&result), "routed");
    client.cancel().await.expect("the client stops");
}

#[tokio::test]
async fn an_rmcp_client_in_discover_mode_mirrors_the_headers_the_server_checks() {
    let server = server().await;
    let transport = StreamableHttpClientTransport::from_uri(server.url());
    let client = ClientConfig::new(
        Default::default(),
        Implementation::new(common::CLIENT_NAME, "1.0.0"),
    )
    .serve_with_lifecycle(
        transport,
        ClientLifecycleMode::Discover {
            preferred_versions: vec![ProtocolVersion::V_2026_07_28],
        },
    )
    .await
    .expect("the rmcp client discovers the decoy");
    // rmcp learns which arguments to mirror from tools/list.
    let tools = tokio::time::timeout(common::PATIENCE, client.list_all_tools())
        .await
        .expect("tools/list took too long")
        .expect("tools/list");
    assert_eq!(tools.len(), 1);
    let result = common::call_with(
        &client,
        "route",
        json!({ "region": " Hello, 世界 ", "priority": 7, "verbose": true, "target": { "zone": "=?base64?x?=" } }),
    )
    .await;
    // The server checked every header against the body, so all four were mirrored right.
    assert_eq!(common::text(&result), "routed");
    client.cancel().await.expect("the client stops");
}

// ---------------------------------------------------------------------------------------
// The builder

/// The error of starting a server with one tool of `schema`.
async fn refusal(schema: Value) -> String {
    let outcome = MockMcpServer::builder()
        .tool(Tool::new("bad_headers").input_schema(schema))
        .try_start()
        .await;
    match outcome {
        Err(error @ Error::Invalid { .. }) => error.to_string(),
        Err(other) => panic!("expected Error::Invalid, got {other}"),
        Ok(_) => panic!("the server started with an invalid x-mcp-header"),
    }
}

fn property(schema: Value) -> Value {
    json!({ "type": "object", "properties": { "value": schema } })
}

#[tokio::test]
async fn the_builder_refuses_header_names_that_are_empty_or_not_tokens() {
    for (name, expected) in [
        ("", "must not be empty"),
        ("My Region", "' '"),
        ("Region:Primary", "':'"),
        ("Région", "'é'"),
        ("Region\t1", "'\\t'"),
    ] {
        let message = refusal(property(json!({ "type": "string", "x-mcp-header": name }))).await;
        assert!(
            message.contains("tool `bad_headers`")
                && message.contains("inputSchema")
                && message.contains("property `value`")
                && message.contains(expected),
            "{name:?}: {message}"
        );
    }
    let message = refusal(property(json!({ "type": "string", "x-mcp-header": 7 }))).await;
    assert!(message.contains("must be a string"), "{message}");
}

#[tokio::test]
async fn the_builder_refuses_header_names_repeated_in_any_case() {
    for second in ["Region", "region"] {
        let message = refusal(json!({ "type": "object", "properties": {
            "a": { "type": "string", "x-mcp-header": "Region" },
            "b": { "type": "string", "x-mcp-header": second }
        } }))
        .await;
        assert!(
            message.contains("property `b`") && message.contains("property `a`"),
            "{message}"
        );
    }
}

#[tokio::test]
async fn the_builder_refuses_headers_on_properties_that_are_not_integer_string_or_boolean() {
    for kind in [
        json!("object"),
        json!("array"),
        json!("null"),
        json!("number"),
        json!(["string", "null"]),
    ] {
        let message = refusal(property(json!({ "type": kind, "x-mcp-header": "Value" }))).await;
        assert!(
            message.contains("property `value`") && message.contains("integer, string and boolean"),
            "{kind}: {message}"
        );
    }
    let message = refusal(property(json!({ "x-mcp-header": "Value" }))).await;
    assert!(message.contains("without `type`"), "{message}");
}

#[tokio::test]
async fn the_builder_refuses_headers_that_are_not_statically_reachable() {
    for (schema, at) in [
        (
            json!({ "type": "object", "properties": { "list": { "type": "array",
                "items": { "type": "string", "x-mcp-header": "Item" } } } }),
            "/properties/list/items/x-mcp-header",
        ),
        (
            json!({ "type": "object", "anyOf": [
                { "properties": { "a": { "type": "string", "x-mcp-header": "A" } } } ] }),
            "/anyOf/0/properties/a/x-mcp-header",
        ),
        (
            json!({ "type": "object", "$defs": { "r": { "type": "string", "x-mcp-header": "R" } },
                "properties": { "r": { "$ref": "#/$defs/r" } } }),
            "/$defs/r/x-mcp-header",
        ),
    ] {
        let message = refusal(schema).await;
        assert!(
            message.contains(at) && message.contains("chain of `properties`"),
            "{message}"
        );
    }
    let message = refusal(json!({ "type": "object", "x-mcp-header": "Root" })).await;
    assert!(message.contains("schema root"), "{message}");
}

#[tokio::test]
async fn a_property_named_x_mcp_header_is_just_a_property() {
    let server = MockMcpServer::builder()
        .tool(
            Tool::new("odd").input_schema(json!({ "type": "object", "properties": {
            "x-mcp-header": { "type": "object" }
        } })),
        )
        .try_start()
        .await;
    assert!(server.is_ok(), "{:?}", server.err());
}

#[tokio::test]
async fn allow_invalid_headers_publishes_the_annotation_and_rmcp_drops_the_tool() {
    let server = MockMcpServer::builder()
        .tool(
            Tool::new("invalid_space_in_name")
                .input_schema(property(
                    json!({ "type": "string", "x-mcp-header": "My Region" }),
                ))
                .allow_invalid_headers(),
        )
        .tool(headered())
        .start()
        .await;
    let published = server
        .tools()
        .into_iter()
        .find(|t| t.name == "invalid_space_in_name")
        .expect("the tool is published");
    assert_eq!(
        published.input_schema["properties"]["value"]["x-mcp-header"],
        "My Region"
    );

    let transport = StreamableHttpClientTransport::from_uri(server.url());
    let client = ClientConfig::new(
        Default::default(),
        Implementation::new(common::CLIENT_NAME, "1.0.0"),
    )
    .serve_with_lifecycle(
        transport,
        ClientLifecycleMode::Discover {
            preferred_versions: vec![ProtocolVersion::V_2026_07_28],
        },
    )
    .await
    .expect("the rmcp client discovers the decoy");
    let names: Vec<String> = client
        .list_all_tools()
        .await
        .expect("tools/list")
        .into_iter()
        .map(|t| t.name.to_string())
        .collect();
    assert_eq!(
        names,
        ["route"],
        "rmcp drops the tool with the invalid header"
    );
    // The wire carried both.
    let listed = server.log();
    let response = listed
        .mcp()
        .method("tools/list")
        .last()
        .and_then(|m| m.response.clone())
        .expect("tools/list was answered");
    assert_eq!(
        response["result"]["tools"].as_array().map(Vec::len),
        Some(2)
    );
    client.cancel().await.expect("the client stops");
}

#[tokio::test]
async fn the_conformance_preset_has_a_string_header_tool_for_the_server_validation_scenario() {
    let server = mcp_decoy::presets::conformance().start().await;
    let tool = server
        .tools()
        .into_iter()
        .find(|t| {
            t.input_schema["properties"]
                .as_object()
                .is_some_and(|p| p.values().any(|p| p.get("x-mcp-header").is_some()))
        })
        .expect("a tool with x-mcp-header");
    assert_eq!(tool.name, "test_custom_headers");
    assert_eq!(tool.input_schema["properties"]["region"]["type"], "string");
}
