//! Multi round-trip requests (2026-07-28 `basic/patterns/mrtr.mdx`): a tool's `ask` steps
//! answer `input_required` in modern requests, and the retry with `inputResponses` and the
//! echoed `requestState` continues the script. One test per conformance scenario
//! `input-required-result-*` (spec README, section 8), driven with raw HTTP, then an rmcp
//! client in Discover mode that answers the rounds with its handlers, and the same tools in
//! a legacy session, where they still send server-to-client requests.

#![allow(
    deprecated,
    reason = "rmcp marks sampling and roots deprecated (SEP-2577); 2026-07-28 MRTR still has them"
)]

use crate::common;

use std::sync::{Arc, Mutex};

use mcp_decoy::spec::{AskMethod, LogLevel};
use mcp_decoy::{MockMcpServer, Tool};
use rmcp::model::{
    ClientCapabilities, ClientConfig, CreateMessageRequestParams, CreateMessageResult,
    ElicitRequestParams, ElicitResult, ElicitationAction, Implementation, ListRootsResult,
    ProtocolVersion, Root, SamplingMessage,
};
use rmcp::service::RequestContext;
use rmcp::transport::StreamableHttpClientTransport;
use rmcp::{ClientHandler, ClientLifecycleMode, ClientServiceExt, ErrorData, RoleClient};
use serde_json::{Value, json};

const VERSION: &str = common::peer::MODERN;

/// Every kind of input a client can declare.
fn all_capabilities() -> Value {
    json!({ "elicitation": {}, "sampling": {}, "roots": { "listChanged": true } })
}

/// What one POST answered: the HTTP status, the JSON-RPC response, and every message of an
/// event stream before it (notifications about the request).
type Reply = common::peer::Answer;

/// What a multi round-trip test reads of a reply.
trait Rounds {
    /// The text of a complete `CallToolResult`.
    fn text(&self) -> String;
    /// The `inputRequests` of an `input_required` result.
    fn input_requests(&self) -> &serde_json::Map<String, Value>;
    fn state(&self) -> String;
}

impl Rounds for Reply {
    fn text(&self) -> String {
        let result = self.result();
        assert_eq!(result["resultType"], "complete", "{result}");
        assert_ne!(result["isError"], true, "the call failed: {result}");
        result["content"][0]["text"]
            .as_str()
            .unwrap_or_else(|| panic!("no text content in {result}"))
            .to_string()
    }

    fn input_requests(&self) -> &serde_json::Map<String, Value> {
        let result = self.result();
        assert_eq!(result["resultType"], "input_required", "{result}");
        result["inputRequests"]
            .as_object()
            .unwrap_or_else(|| panic!("no inputRequests in {result}"))
    }

    fn state(&self) -> String {
        self.result()["requestState"]
            .as_str()
            .unwrap_or_else(|| panic!("no requestState in {}", self.result()))
            .to_string()
    }
}

/// POSTs a 2026-07-28 request with the headers and `_meta` a conforming client sends;
/// `params._meta`, when given, replaces the default one.
async fn send(url: &str, id: i64, method: &str, params: Value, capabilities: Value) -> Reply {
    send_as(None, url, id, method, params, capabilities).await
}

/// [`send`] with `Authorization: Bearer KEY` when `key` is given.
async fn send_as(
    key: Option<&str>,
    url: &str,
    id: i64,
    method: &str,
    params: Value,
    capabilities: Value,
) -> Reply {
    let peer = common::peer::Peer::modern(url, capabilities);
    let bearer = key.map(|key| format!("Bearer {key}"));
    let headers: Vec<(&str, &str)> = bearer
        .iter()
        .map(|value| ("authorization", value.as_str()))
        .collect();
    peer.send_with(id, method, params, &headers).await
}

/// `tools/call` of `tool` with no arguments plus `extra` params.
async fn call(url: &str, id: i64, tool: &str, extra: Value) -> Reply {
    let mut params = json!({ "name": tool, "arguments": {} });
    if let (Some(params), Value::Object(extra)) = (params.as_object_mut(), extra) {
        params.extend(extra);
    }
    send(url, id, "tools/call", params, all_capabilities()).await
}

fn accept(content: Value) -> Value {
    json!({ "action": "accept", "content": content })
}

fn sampled(text: &str) -> Value {
    json!({ "role": "assistant", "content": { "type": "text", "text": text }, "model": "test-model", "stopReason": "endTurn" })
}

fn roots() -> Value {
    json!({ "roots": [{ "uri": "file:///test/root", "name": "Test Root" }] })
}

async fn conformance() -> MockMcpServer {
    mcp_decoy::presets::conformance().start().await
}

// ---------------------------------------------------------------------------------------
// input-required-result-basic-elicitation / -basic-sampling / -basic-list-roots

#[tokio::test]
async fn an_elicitation_ask_answers_input_required_and_the_retry_says_hello_name() {
    let server = conformance().await;
    let tool = "test_input_required_result_elicitation";

    let first = call(&server.url(), 1, tool, json!({})).await;
    assert_eq!(first.status, 200);
    let requests = first.input_requests();
    assert_eq!(requests.len(), 1, "{requests:?}");
    assert_eq!(requests["user_name"]["method"], "elicitation/create");
    assert_eq!(
        requests["user_name"]["params"]["message"],
        "What is your name?"
    );
    assert_eq!(
        requests["user_name"]["params"]["requestedSchema"]["required"],
        json!(["name"])
    );

    let retry = call(
        &server.url(),
        2,
        tool,
        json!({ "inputResponses": { "user_name": accept(json!({ "name": "Alice" })) }, "requestState": first.state() }),
    )
    .await;
    assert_eq!(retry.text(), "Hello, Alice!");
}

#[tokio::test]
async fn a_sampling_ask_becomes_a_sampling_input_request_and_the_answer_reaches_the_template() {
    let server = conformance().await;
    let tool = "test_input_required_result_sampling";

    let first = call(&server.url(), 1, tool, json!({})).await;
    let request = &first.input_requests()["capital_question"];
    assert_eq!(request["method"], "sampling/createMessage");
    assert_eq!(request["params"]["maxTokens"], 100);
    assert_eq!(
        request["params"]["messages"][0]["content"]["text"],
        "What is the capital of France?"
    );

    let retry = call(
        &server.url(),
        2,
        tool,
        json!({ "inputResponses": { "capital_question": sampled("Paris.") }, "requestState": first.state() }),
    )
    .await;
    assert_eq!(retry.text(), "Sampling result: Paris.");
}

#[tokio::test]
async fn a_roots_ask_becomes_a_roots_list_input_request_with_empty_params() {
    let server = conformance().await;
    let tool = "test_input_required_result_list_roots";

    let first = call(&server.url(), 1, tool, json!({})).await;
    assert_eq!(
        first.input_requests()["client_roots"],
        json!({ "method": "roots/list", "params": {} })
    );

    let retry = call(
        &server.url(),
        2,
        tool,
        json!({ "inputResponses": { "client_roots": roots() }, "requestState": first.state() }),
    )
    .await;
    assert_eq!(retry.text(), "Found 1 root(s)");
}

// ---------------------------------------------------------------------------------------
// input-required-result-request-state / -multiple-input-requests / -multi-round

#[tokio::test]
async fn the_request_state_round_trips_and_the_retry_completes_with_state_ok() {
    let server = conformance().await;
    let tool = "test_input_required_result_request_state";

    let first = call(&server.url(), 1, tool, json!({})).await;
    assert!(first.input_requests().contains_key("confirm"));
    let state = first.state();
    assert!(!state.is_empty());

    let retry = call(
        &server.url(),
        2,
        tool,
        json!({ "inputResponses": { "confirm": accept(json!({ "ok": true })) }, "requestState": state }),
    )
    .await;
    assert!(retry.text().contains("state-ok"), "{}", retry.text());
}

// mrtr.mdx: `requestState` is optional; with none, the client's retry carries only its
// `inputResponses`.
#[tokio::test]
async fn a_tool_without_request_state_answers_none_and_completes_from_the_responses() {
    let server = MockMcpServer::builder()
        .tool(
            Tool::new("confirm")
                .ask("ok", AskMethod::Elicitation, json!({
                    "message": "Continue?",
                    "requestedSchema": { "type": "object", "properties": { "ok": { "type": "boolean" } } }
                }))
                .without_request_state()
                .respond_with(json!({ "content": [{ "type": "text", "text": "ok=${answers.ok.content.ok}" }] })),
        )
        .start()
        .await;

    let first = call(&server.url(), 1, "confirm", json!({})).await;
    assert!(first.input_requests().contains_key("ok"));
    assert!(
        first.result().get("requestState").is_none(),
        "{}",
        first.result()
    );
    let retry = call(
        &server.url(),
        2,
        "confirm",
        json!({ "inputResponses": { "ok": accept(json!({ "ok": true })) } }),
    )
    .await;

    assert_eq!(retry.text(), "ok=true");
}

#[tokio::test]
async fn without_request_state_refuses_an_ask_after_another_step() {
    let outcome = MockMcpServer::builder()
        .tool(
            Tool::new("late")
                .log(LogLevel::Info, json!("first"))
                .ask("ok", AskMethod::Roots, Value::Null)
                .without_request_state(),
        )
        .try_start()
        .await;

    let error = outcome.expect_err("refused").to_string();
    assert!(error.contains("omitRequestState"), "{error}");
    assert!(error.contains("step 1 asks after step 0"), "{error}");
}

#[tokio::test]
async fn consecutive_asks_form_one_round_with_elicitation_sampling_and_roots() {
    let server = conformance().await;
    let tool = "test_input_required_result_multiple_inputs";

    let first = call(&server.url(), 1, tool, json!({})).await;
    let requests = first.input_requests();
    let methods: Vec<&str> = requests
        .values()
        .filter_map(|r| r["method"].as_str())
        .collect();
    assert_eq!(
        methods,
        ["elicitation/create", "sampling/createMessage", "roots/list"]
    );

    let retry = call(
        &server.url(),
        2,
        tool,
        json!({
            "inputResponses": {
                "user_name": accept(json!({ "name": "Alice" })),
                "greeting": sampled("Hello there!"),
                "client_roots": roots()
            },
            "requestState": first.state()
        }),
    )
    .await;
    assert_eq!(
        retry.text(),
        "Name: Alice; Greeting: Hello there!; Roots: 1"
    );
}

#[tokio::test]
async fn an_ask_that_reads_an_earlier_answer_waits_for_the_next_round_with_a_new_state() {
    let server = conformance().await;
    let tool = "test_input_required_result_multi_round";

    let first = call(&server.url(), 1, tool, json!({})).await;
    let keys: Vec<&String> = first.input_requests().keys().collect();
    assert_eq!(keys, ["step1"]);

    let second = call(
        &server.url(),
        2,
        tool,
        json!({ "inputResponses": { "step1": accept(json!({ "name": "Alice" })) }, "requestState": first.state() }),
    )
    .await;
    let requests = second.input_requests();
    assert_eq!(requests.keys().collect::<Vec<_>>(), ["step2"]);
    assert_eq!(
        requests["step2"]["params"]["message"],
        "Step 2: What is your favorite color, Alice?"
    );
    assert_ne!(second.state(), first.state(), "each round has a new state");

    // The third round sends only step 2's answer: step 1's travels in the state.
    let third = call(
        &server.url(),
        3,
        tool,
        json!({ "inputResponses": { "step2": accept(json!({ "color": "blue" })) }, "requestState": second.state() }),
    )
    .await;
    assert_eq!(
        third.text(),
        "Multi-round complete for Alice who likes blue"
    );
}

// ---------------------------------------------------------------------------------------
// input-required-result-missing-input-response / -result-type / -unsupported-methods

#[tokio::test]
async fn missing_or_wrong_input_responses_get_a_new_input_required_not_an_error() {
    let server = conformance().await;

    let wrong_key = call(
        &server.url(),
        1,
        "test_input_required_result_elicitation",
        json!({ "inputResponses": { "wrong_key": accept(json!({ "data": "wrong" })) } }),
    )
    .await;
    assert!(wrong_key.input_requests().contains_key("user_name"));

    // Half the answers: the rest is asked again, the given one is kept in the new state.
    let tool = "test_input_required_result_multiple_inputs";
    let first = call(&server.url(), 2, tool, json!({})).await;
    let partial = call(
        &server.url(),
        3,
        tool,
        json!({ "inputResponses": { "user_name": accept(json!({ "name": "Alice" })) }, "requestState": first.state() }),
    )
    .await;
    let still: Vec<&String> = partial.input_requests().keys().collect();
    assert_eq!(still, ["greeting", "client_roots"]);
    let done = call(
        &server.url(),
        4,
        tool,
        json!({
            "inputResponses": { "greeting": sampled("Hi!"), "client_roots": roots() },
            "requestState": partial.state()
        }),
    )
    .await;
    assert_eq!(done.text(), "Name: Alice; Greeting: Hi!; Roots: 1");
}

#[tokio::test]
async fn the_result_type_is_explicitly_input_required_with_server_info_and_no_cache_hints() {
    let server = conformance().await;
    let first = call(
        &server.url(),
        1,
        "test_input_required_result_elicitation",
        json!({}),
    )
    .await;
    let result = first.result();
    assert_eq!(result["resultType"], "input_required");
    assert_eq!(
        result["_meta"]["io.modelcontextprotocol/serverInfo"]["name"],
        "mcp-decoy-conformance"
    );
    assert!(result.get("ttlMs").is_none() && result.get("cacheScope").is_none());
    assert!(result.get("content").is_none(), "{result}");
}

#[tokio::test]
async fn tools_list_and_prompts_list_never_answer_input_required() {
    let server = conformance().await;
    for (id, method) in [(1, "tools/list"), (2, "prompts/list")] {
        let reply = send(&server.url(), id, method, json!({}), all_capabilities()).await;
        assert_eq!(reply.result()["resultType"], "complete", "{method}");
    }
}

// ---------------------------------------------------------------------------------------
// input-required-result-tampered-state

#[tokio::test]
async fn a_tampered_request_state_is_refused_with_invalid_params_naming_request_state() {
    let server = conformance().await;
    let tool = "test_input_required_result_tampered_state";
    let first = call(&server.url(), 1, tool, json!({})).await;
    let answer = json!({ "confirm": accept(json!({ "ok": true })) });

    let tampered = call(
        &server.url(),
        2,
        tool,
        json!({ "inputResponses": answer, "requestState": format!("{}-TAMPERED", first.state()) }),
    )
    .await;
    let (code, message) = tampered.error();
    assert_eq!(code, -32602);
    assert!(
        message.contains("requestState") && message.contains("integrity"),
        "{message}"
    );
    assert_eq!(tampered.response["error"]["data"]["field"], "requestState");

    // The untouched state still works.
    let retry = call(
        &server.url(),
        3,
        tool,
        json!({ "inputResponses": answer, "requestState": first.state() }),
    )
    .await;
    assert_eq!(retry.text(), "integrity-ok: state verified");
}

/// 2026-07-28 MRTR, "Server Requirements (Basic Workflow)": the state binds the
/// authenticated principal, "rejecting state presented by a different principal". Here the
/// principals are two API keys; with OAuth they are the token's client.
#[tokio::test]
async fn a_request_state_is_refused_when_other_credentials_present_it() {
    let server = MockMcpServer::builder()
        .api_keys(["alice-key", "bob-key"])
        .tool(
            Tool::new("confirm")
                .ask(
                    "confirm",
                    AskMethod::Elicitation,
                    json!({ "message": "Sure?", "requestedSchema": { "type": "object", "properties": {} } }),
                )
                .respond_with(json!({ "content": [{ "type": "text", "text": "confirmed" }] })),
        )
        .start()
        .await;
    let url = server.url();
    let params = |extra: Value| {
        let mut params = json!({ "name": "confirm", "arguments": {} });
        if let (Some(params), Value::Object(extra)) = (params.as_object_mut(), extra) {
            params.extend(extra);
        }
        params
    };
    let first = send_as(
        Some("alice-key"),
        &url,
        1,
        "tools/call",
        params(json!({})),
        all_capabilities(),
    )
    .await;
    let answer = json!({ "inputResponses": { "confirm": accept(json!({})) }, "requestState": first.state() });

    let stolen = send_as(
        Some("bob-key"),
        &url,
        2,
        "tools/call",
        params(answer.clone()),
        all_capabilities(),
    )
    .await;
    let (code, message) = stolen.error();
    assert_eq!(code, -32602);
    assert!(message.contains("another principal"), "{message}");
    assert_eq!(stolen.response["error"]["data"]["field"], "requestState");

    let own = send_as(
        Some("alice-key"),
        &url,
        3,
        "tools/call",
        params(answer),
        all_capabilities(),
    )
    .await;
    assert_eq!(own.text(), "confirmed");
}

#[tokio::test]
async fn a_request_state_is_refused_on_another_call_or_by_another_server() {
    let server = conformance().await;
    let other_server = conformance().await;
    let state = call(
        &server.url(),
        1,
        "test_input_required_result_request_state",
        json!({}),
    )
    .await
    .state();

    let other_tool = call(
        &server.url(),
        2,
        "test_input_required_result_tampered_state",
        json!({ "requestState": state }),
    )
    .await;
    let (code, message) = other_tool.error();
    assert_eq!(code, -32602);
    assert!(message.contains("different request"), "{message}");

    let other_arguments = call(
        &server.url(),
        3,
        "test_input_required_result_request_state",
        json!({ "arguments": { "extra": 1 }, "requestState": state }),
    )
    .await;
    assert!(other_arguments.error().1.contains("different request"));

    let elsewhere = call(
        &other_server.url(),
        4,
        "test_input_required_result_request_state",
        json!({ "requestState": state }),
    )
    .await;
    assert!(elsewhere.error().1.contains("integrity"));

    let not_a_string = call(
        &server.url(),
        5,
        "test_input_required_result_request_state",
        json!({ "requestState": 7 }),
    )
    .await;
    assert_eq!(not_a_string.error().0, -32602);
}

#[tokio::test]
async fn editing_the_tool_between_rounds_invalidates_its_states() {
    let tool = || {
        Tool::new("ask")
            .ask("name", AskMethod::Elicitation, json!({ "message": "Name?", "requestedSchema": { "type": "object", "properties": {} } }))
    };
    let server = MockMcpServer::builder().tool(tool()).start().await;
    let first = call(&server.url(), 1, "ask", json!({})).await;
    server
        .replace_tool(tool().ask("again", AskMethod::Roots, json!({})))
        .expect("replace the tool");
    let retry = call(
        &server.url(),
        2,
        "ask",
        json!({ "inputResponses": { "name": accept(json!({})) }, "requestState": first.state() }),
    )
    .await;
    assert!(
        retry.error().1.contains("the tool changed"),
        "{:?}",
        retry.error()
    );
}

// ---------------------------------------------------------------------------------------
// input-required-result-capability-check

#[tokio::test]
async fn only_the_kinds_the_request_declares_are_asked_for() {
    let server = conformance().await;
    let tool = json!({ "name": "test_input_required_result_capabilities", "arguments": {} });

    let sampling_only = send(
        &server.url(),
        1,
        "tools/call",
        tool.clone(),
        json!({ "sampling": {} }),
    )
    .await;
    let keys: Vec<&String> = sampling_only.input_requests().keys().collect();
    assert_eq!(keys, ["sample_input"]);

    let both = send(
        &server.url(),
        2,
        "tools/call",
        tool.clone(),
        all_capabilities(),
    )
    .await;
    assert_eq!(both.input_requests().len(), 2);

    let neither = send(&server.url(), 3, "tools/call", tool, json!({})).await;
    assert_eq!(neither.text(), "No supported capabilities declared");
}

#[tokio::test]
async fn a_required_ask_without_its_capability_is_refused_up_front_with_32021() {
    let server = conformance().await;
    let reply = send(
        &server.url(),
        1,
        "tools/call",
        json!({ "name": "test_input_required_result_elicitation", "arguments": {} }),
        json!({ "sampling": {} }),
    )
    .await;
    assert_eq!(reply.status, 400);
    assert_eq!(reply.error().0, -32021);
    assert_eq!(
        reply.response["error"]["data"]["requiredCapabilities"],
        json!({ "elicitation": {} })
    );
}

// ---------------------------------------------------------------------------------------
// input-required-result-ignore-extra-params / -validate-input

#[tokio::test]
async fn extra_input_response_keys_are_ignored_and_the_call_completes() {
    let server = conformance().await;
    let reply = call(
        &server.url(),
        1,
        "test_input_required_result_elicitation",
        json!({ "inputResponses": {
            "user_name": accept(json!({ "name": "Alice" })),
            "unknown_extra_key": { "action": "accept", "content": { "foo": "bar" } },
            "another_unexpected": 12345
        } }),
    )
    .await;
    assert_eq!(reply.text(), "Hello, Alice!");
}

#[tokio::test]
async fn malformed_input_responses_are_refused_with_invalid_params_naming_the_field() {
    let server = conformance().await;
    let tool = "test_input_required_result_elicitation";

    let number = call(
        &server.url(),
        1,
        tool,
        json!({ "inputResponses": { "user_name": 12345 } }),
    )
    .await;
    let (code, message) = number.error();
    assert_eq!(code, -32602);
    assert!(
        message.contains("inputResponses.user_name") && message.contains("ElicitResult"),
        "{message}"
    );

    let null = call(&server.url(), 2, tool, json!({ "inputResponses": null })).await;
    let (code, message) = null.error();
    assert_eq!(code, -32602);
    assert!(message.contains("`params.inputResponses`"), "{message}");

    let wrong_kind = call(
        &server.url(),
        3,
        tool,
        json!({ "inputResponses": { "user_name": roots() } }),
    )
    .await;
    assert_eq!(wrong_kind.error().0, -32602);
}

// ---------------------------------------------------------------------------------------
// Rounds and the rest of the script

#[tokio::test]
async fn steps_of_earlier_rounds_are_not_sent_again() {
    let ask = |key: &str| json!({ "message": format!("{key}?"), "requestedSchema": { "type": "object", "properties": {} } });
    let server = MockMcpServer::builder()
        .tool(
            Tool::new("steps")
                .log(LogLevel::Info, "before")
                .ask("a", AskMethod::Elicitation, ask("a"))
                .log(LogLevel::Info, "between")
                .ask("b", AskMethod::Elicitation, ask("b"))
                .log(LogLevel::Info, "after")
                .respond_with(json!({ "content": [{ "type": "text", "text": "${answers.a.action} ${answers.b.action}" }] })),
        )
        .start()
        .await;
    let with_log_level = |extra: Value| {
        let mut params = json!({ "name": "steps", "arguments": {}, "_meta": {
            "io.modelcontextprotocol/protocolVersion": VERSION,
            "io.modelcontextprotocol/clientCapabilities": { "elicitation": {} },
            "io.modelcontextprotocol/logLevel": "info"
        } });
        if let (Some(params), Value::Object(extra)) = (params.as_object_mut(), extra) {
            params.extend(extra);
        }
        params
    };
    let logs = |reply: &Reply| -> Vec<String> {
        reply
            .before
            .iter()
            .filter(|m| m["method"] == "notifications/message")
            .map(|m| m["params"]["data"].as_str().unwrap_or_default().to_string())
            .collect()
    };
    let caps = json!({});

    let first = send(
        &server.url(),
        1,
        "tools/call",
        with_log_level(json!({})),
        caps.clone(),
    )
    .await;
    assert_eq!(logs(&first), ["before"]);
    assert_eq!(first.input_requests().keys().collect::<Vec<_>>(), ["a"]);

    let second = send(
        &server.url(),
        2,
        "tools/call",
        with_log_level(json!({ "inputResponses": { "a": { "action": "decline" } }, "requestState": first.state() })),
        caps.clone(),
    )
    .await;
    assert_eq!(logs(&second), ["between"]);
    assert_eq!(second.input_requests().keys().collect::<Vec<_>>(), ["b"]);

    let third = send(
        &server.url(),
        3,
        "tools/call",
        with_log_level(json!({ "inputResponses": { "b": { "action": "cancel" } }, "requestState": second.state() })),
        caps,
    )
    .await;
    assert_eq!(logs(&third), ["after"]);
    assert_eq!(third.text(), "decline cancel");
}

#[tokio::test]
async fn each_round_is_its_own_tools_call_record_in_the_log() {
    let server = conformance().await;
    let tool = "test_input_required_result_elicitation";
    let first = call(&server.url(), 1, tool, json!({})).await;
    call(
        &server.url(),
        2,
        tool,
        json!({ "inputResponses": { "user_name": accept(json!({ "name": "Bo" })) }, "requestState": first.state() }),
    )
    .await;

    let log = server.log();
    let calls = log.mcp().method("tools/call").name(tool).all();
    assert_eq!(calls.len(), 2, "{calls:#?}");
    let result_types: Vec<&Value> = calls
        .iter()
        .map(|c| &c.response.as_ref().expect("each round is answered")["result"]["resultType"])
        .collect();
    assert_eq!(result_types, [&json!("input_required"), &json!("complete")]);
    assert!(
        calls
            .iter()
            .all(|c| c.protocol_version.as_deref() == Some(VERSION))
    );
    // A modern server sends no requests of its own.
    assert_eq!(
        log.mcp()
            .from_server()
            .kind(mcp_decoy::log::RpcKind::Request)
            .count(),
        0
    );
}

// ---------------------------------------------------------------------------------------
// An rmcp client in Discover mode answers the rounds; a legacy one gets requests.

/// An rmcp client handler that answers every kind of input and remembers what it was asked.
#[derive(Clone)]
struct Answerer {
    config: ClientConfig,
    asked: Arc<Mutex<Vec<String>>>,
}

impl Answerer {
    fn new() -> Self {
        let capabilities: ClientCapabilities = serde_json::from_value(all_capabilities())
            .expect("all_capabilities() is a ClientCapabilities");
        Answerer {
            config: ClientConfig::new(
                capabilities,
                Implementation::new(common::CLIENT_NAME, "1.0.0"),
            ),
            asked: Arc::default(),
        }
    }

    fn heard(&self, method: &str) {
        self.asked
            .lock()
            .expect("the asked list is not poisoned")
            .push(method.to_string());
    }
}

impl ClientHandler for Answerer {
    fn get_info(&self) -> ClientConfig {
        self.config.clone()
    }

    async fn create_elicitation(
        &self,
        _request: ElicitRequestParams,
        _context: RequestContext<RoleClient>,
    ) -> Result<ElicitResult, ErrorData> {
        self.heard("elicitation/create");
        Ok(ElicitResult::new(ElicitationAction::Accept)
            .with_content(json!({ "name": "Ferris", "color": "orange", "ok": true })))
    }

    async fn create_message(
        &self,
        _request: CreateMessageRequestParams,
        _context: RequestContext<RoleClient>,
    ) -> Result<CreateMessageResult, ErrorData> {
        self.heard("sampling/createMessage");
        Ok(CreateMessageResult::new(
            SamplingMessage::assistant_text("Ahoy!"),
            "test-model".into(),
        )
        .with_stop_reason(CreateMessageResult::STOP_REASON_END_TURN))
    }

    async fn list_roots(
        &self,
        _context: RequestContext<RoleClient>,
    ) -> Result<ListRootsResult, ErrorData> {
        self.heard("roots/list");
        Ok(ListRootsResult::new(vec![Root::new("file:///workspace")]))
    }
}

#[tokio::test]
async fn an_rmcp_client_in_discover_mode_answers_the_rounds_with_its_handlers() {
    let server = conformance().await;
    let handler = Answerer::new();
    let asked = handler.asked.clone();
    let transport = StreamableHttpClientTransport::from_uri(server.url());
    let client = tokio::time::timeout(
        common::PATIENCE,
        handler.serve_with_lifecycle(
            transport,
            ClientLifecycleMode::Discover {
                preferred_versions: vec![ProtocolVersion::V_2026_07_28],
            },
        ),
    )
    .await
    .expect("server/discover took too long")
    .expect("the rmcp client discovers the decoy");

    let several = common::call_with(
        &client,
        "test_input_required_result_multiple_inputs",
        json!({}),
    )
    .await;
    assert_eq!(
        common::text(&several),
        "Name: Ferris; Greeting: Ahoy!; Roots: 1"
    );
    let rounds =
        common::call_with(&client, "test_input_required_result_multi_round", json!({})).await;
    assert_eq!(
        common::text(&rounds),
        "Multi-round complete for Ferris who likes orange"
    );

    let mut asked = asked
        .lock()
        .expect("the asked list is not poisoned")
        .clone();
    asked.sort();
    assert_eq!(
        asked,
        [
            "elicitation/create",
            "elicitation/create",
            "elicitation/create",
            "roots/list",
            "sampling/createMessage"
        ]
    );
    // Two calls: two rounds for the first, three for the second.
    let log = server.log();
    assert_eq!(log.mcp().method("tools/call").count(), 5);
    assert_eq!(log.mcp().method("initialize").count(), 0);
    client.cancel().await.expect("the client stops");
}

#[tokio::test]
async fn a_legacy_rmcp_client_still_gets_server_initiated_requests_from_the_same_tool() {
    let server = conformance().await;
    let (client, mut hearing) = common::connect_answering(
        &server.url(),
        common::Answers {
            capabilities: json!({ "elicitation": {} }),
            elicitation: Some(json!({ "action": "accept", "content": { "name": "Ferris" } })),
            ..Default::default()
        },
    )
    .await;

    let result =
        common::call_with(&client, "test_input_required_result_elicitation", json!({})).await;
    assert_eq!(common::text(&result), "Hello, Ferris!");
    match hearing.next("the elicitation request").await {
        common::Heard::Asked { method, params } => {
            assert_eq!(method, "elicitation/create");
            assert_eq!(params["message"], "What is your name?");
        }
        other => panic!("expected an elicitation request, heard {other:?}"),
    }
    let log = server.log();
    assert_eq!(log.mcp().method("tools/call").count(), 1);
    assert_eq!(
        log.mcp().method("elicitation/create").from_server().count(),
        1
    );
    client.cancel().await.expect("the client stops");
}

#[tokio::test]
async fn a_legacy_client_without_the_capabilities_skips_the_optional_asks() {
    let server = conformance().await;
    let (client, mut hearing) =
        common::connect_answering(&server.url(), common::Answers::default()).await;

    let result = common::call_with(
        &client,
        "test_input_required_result_capabilities",
        json!({}),
    )
    .await;
    assert_eq!(common::text(&result), "No supported capabilities declared");
    assert!(hearing.rest().await.is_empty(), "no request was sent");
    client.cancel().await.expect("the client stops");
}

#[tokio::test]
async fn every_round_and_refusal_validates_against_the_2026_07_28_schema() {
    let server = conformance().await;
    let url = server.url();
    let tool = "test_input_required_result_multiple_inputs";
    let first = call(&url, 1, tool, json!({})).await;
    let answers = json!({
        "user_name": accept(json!({ "name": "Alice" })),
        "greeting": sampled("Hi"),
        "client_roots": roots()
    });
    call(
        &url,
        2,
        tool,
        json!({ "inputResponses": answers, "requestState": first.state() }),
    )
    .await;
    call(&url, 3, tool, json!({ "requestState": "forged" })).await;
    call(
        &url,
        4,
        tool,
        json!({ "inputResponses": { "user_name": 1 } }),
    )
    .await;
    let rounds = "test_input_required_result_multi_round";
    let r1 = call(&url, 5, rounds, json!({})).await;
    call(
        &url,
        6,
        rounds,
        json!({ "inputResponses": { "step1": accept(json!({ "name": "A" })) }, "requestState": r1.state() }),
    )
    .await;
    send(
        &url,
        7,
        "tools/call",
        json!({ "name": "test_input_required_result_elicitation", "arguments": {} }),
        json!({}),
    )
    .await;
    common::schema::assert_server_messages_valid(&server.log());
}
