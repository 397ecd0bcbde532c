//! The server scenarios of the MCP conformance suite (`modelcontextprotocol/conformance`,
//! listed in `/work/shared/spec/README.md` section 8) replayed against
//! [`mcp_decoy::presets::conformance`], one test per scenario, each in every era the scenario
//! applies to: a legacy 2025-11-25 session (`initialize`) and stateless 2026-07-28 requests.
//! `tests/CONFORMANCE.md` maps every scenario to its test here or elsewhere.
//!
//! The suite itself can be run against `cargo run --example everything`; these tests pin what
//! it checks so a regression fails `cargo test`.

use crate::common;

use std::time::Duration;

use common::peer::{Era, LEGACY, MODERN, Peer};
use common::{Answers, Heard, call_with, connect_answering};
use mcp_decoy::log::{Direction, Entry};
use mcp_decoy::presets::{self, PNG_BASE64, WAV_BASE64};
use mcp_decoy::{MockMcpServer, log::Log};
use reqwest::StatusCode;
use serde_json::{Value, json};

const BOTH: [Era; 2] = [Era::Legacy, Era::Modern];

async fn server() -> MockMcpServer {
    presets::conformance().start().await
}

fn check(log: &Log) {
    common::schema::assert_server_messages_valid(log);
}

// ---------------------------------------------------------------------------------------------
// Legacy-only scenarios
// ---------------------------------------------------------------------------------------------

// server-initialize (06-18–11-25).
#[tokio::test]
async fn server_initialize() {
    let server = server().await;
    let peer = Peer::legacy_unopened(&server.url());
    let init = json!({ "jsonrpc": "2.0", "id": 1, "method": "initialize", "params": {
        "protocolVersion": LEGACY, "capabilities": {},
        "clientInfo": { "name": "conformance-replay", "version": "1.0.0" } } });

    let response = peer.post(&init, &[]).await;

    let session = response
        .headers()
        .get("mcp-session-id")
        .expect("a session id")
        .to_str()
        .expect("ASCII")
        .to_string();
    assert!(
        session.bytes().all(|b| (0x21..=0x7e).contains(&b)),
        "{session}"
    );
    let answer: Value = response.json().await.expect("a JSON answer");
    let result = &answer["result"];
    assert_eq!(result["protocolVersion"], json!(LEGACY));
    assert_eq!(result["serverInfo"]["name"], json!("mcp-decoy-conformance"));
    assert!(result["capabilities"].is_object(), "{answer}");
    let peer = Peer {
        session: Some(session),
        ..peer
    };
    let initialized = peer
        .post(
            &json!({ "jsonrpc": "2.0", "method": "notifications/initialized" }),
            &[],
        )
        .await;
    assert!(initialized.status().is_success());
    check(&server.log());
}

// server-session-lifecycle (03-26–11-25).
#[tokio::test]
async fn server_session_lifecycle() {
    let server = server().await;
    let peer = Peer::open(&server.url(), Era::Legacy).await;
    let session = peer.session.clone().expect("a session");

    let deleted = peer
        .http
        .delete(server.url())
        .header("mcp-session-id", &session)
        .send()
        .await
        .expect("send DELETE");
    let after = peer
        .post(
            &json!({ "jsonrpc": "2.0", "id": 2, "method": "tools/list" }),
            &[],
        )
        .await;

    assert!(deleted.status().is_success(), "{}", deleted.status());
    assert_eq!(after.status(), StatusCode::NOT_FOUND);
    check(&server.log());
}

// ping (06-18–11-25).
#[tokio::test]
async fn ping() {
    let server = server().await;
    let peer = Peer::open(&server.url(), Era::Legacy).await;

    let result = peer.result(1, "ping", Value::Null).await;

    assert_eq!(result, json!({}));
    check(&server.log());
}

// logging-set-level (06-18–11-25).
#[tokio::test]
async fn logging_set_level() {
    let server = server().await;
    let peer = Peer::open(&server.url(), Era::Legacy).await;

    let result = peer
        .result(1, "logging/setLevel", json!({ "level": "info" }))
        .await;

    assert_eq!(result, json!({}));
    check(&server.log());
}

// tools-call-with-logging (06-18–11-25): three info messages about 50 ms apart, then the
// result. In 2026-07-28 the same tool logs when the request sets `_meta` logLevel.
#[tokio::test]
async fn tools_call_with_logging() {
    let server = server().await;
    for era in BOTH {
        let peer = Peer::open(&server.url(), era).await;
        let meta = match era {
            Era::Legacy => Value::Null,
            Era::Modern => json!({ "io.modelcontextprotocol/logLevel": "info" }),
        };

        let answer = peer
            .send_with_meta(
                1,
                "tools/call",
                json!({ "name": "test_tool_with_logging", "arguments": {} }),
                meta,
            )
            .await;

        let levels: Vec<&Value> = answer
            .before
            .iter()
            .filter(|n| n["method"] == "notifications/message")
            .map(|n| &n["params"]["level"])
            .collect();
        assert_eq!(levels, [&json!("info"); 3], "{era:?}");
        assert!(answer.response["result"]["content"].is_array(), "{era:?}");
    }
    let log = server.log();
    let times: Vec<_> = log
        .records()
        .iter()
        .filter_map(|r| match &r.entry {
            Entry::Mcp(m) if m.direction == Direction::ServerToClient => Some(r.at),
            _ => None,
        })
        .collect();
    assert_eq!(times.len(), 6);
    for pair in times[..3].windows(2) {
        let gap = (pair[1] - pair[0]).to_std().unwrap_or_default();
        assert!(
            gap >= Duration::from_millis(40),
            "{gap:?} between log lines"
        );
    }
    check(&log);
}

/// A legacy rmcp client that answers sampling and elicitation as the suite does.
async fn answering(
    server: &MockMcpServer,
    elicitation: Value,
) -> (common::AnsweringClient, common::Hearing) {
    connect_answering(
        &server.url(),
        Answers {
            capabilities: json!({ "sampling": {}, "elicitation": {} }),
            sampling: Some(json!({
                "role": "assistant",
                "content": { "type": "text", "text": "This is a test response from the client" },
                "model": "test-model",
                "stopReason": "endTurn"
            })),
            elicitation: Some(elicitation),
            ..Answers::default()
        },
    )
    .await
}

// tools-call-sampling (06-18–11-25): `sampling/createMessage` with maxTokens 100.
#[tokio::test]
async fn tools_call_sampling() {
    let server = server().await;
    let (client, mut heard) = answering(&server, json!({ "action": "decline" })).await;

    let result = call_with(&client, "test_sampling", json!({ "prompt": "Test prompt" })).await;

    let Heard::Asked { method, params } = heard.next("sampling/createMessage").await else {
        panic!("expected a request");
    };
    assert_eq!(method, "sampling/createMessage");
    assert_eq!(params["maxTokens"], json!(100));
    assert_eq!(
        common::text(&result),
        "LLM response: This is a test response from the client"
    );
    client.cancel().await.expect("stop the client");
    check(&server.log());
}

// tools-call-elicitation (06-18–11-25): `elicitation/create`, then action and content.
#[tokio::test]
async fn tools_call_elicitation() {
    let server = server().await;
    let answer =
        json!({ "action": "accept", "content": { "username": "ada", "email": "ada@example.com" } });
    let (client, mut heard) = answering(&server, answer).await;

    let result = call_with(
        &client,
        "test_elicitation",
        json!({ "message": "Who are you?" }),
    )
    .await;

    let Heard::Asked { method, params } = heard.next("elicitation/create").await else {
        panic!("expected a request");
    };
    assert_eq!(method, "elicitation/create");
    assert_eq!(params["message"], json!("Who are you?"));
    let texts: Vec<&str> = result
        .content
        .iter()
        .filter_map(|c| c.as_text().map(|t| t.text.as_str()))
        .collect();
    assert_eq!(texts[0], "User response: action=accept");
    let echoed: Value = serde_json::from_str(texts[1]).expect("the answer as JSON text");
    assert_eq!(echoed["content"]["email"], json!("ada@example.com"));
    assert_eq!(result.is_error, None, "{result:?}");
    client.cancel().await.expect("stop the client");
    check(&server.log());
}

// elicitation-sep1034-defaults (11-25): string, integer, number, enum and boolean fields
// with defaults.
#[tokio::test]
async fn elicitation_sep1034_defaults() {
    let server = server().await;
    let (client, mut heard) =
        answering(&server, json!({ "action": "accept", "content": {} })).await;

    let result = call_with(&client, "test_elicitation_sep1034_defaults", json!({})).await;

    let Heard::Asked { params, .. } = heard.next("elicitation/create").await else {
        panic!("expected a request");
    };
    let properties = &params["requestedSchema"]["properties"];
    assert_eq!(properties["name"]["default"], json!("John Doe"));
    assert_eq!(properties["age"]["default"], json!(30));
    assert_eq!(properties["score"]["default"], json!(95.5));
    assert_eq!(properties["status"]["default"], json!("active"));
    assert_eq!(properties["verified"]["default"], json!(true));
    assert_eq!(
        result.content[0].as_text().map(|t| t.text.as_str()),
        Some("Elicitation completed: action=accept")
    );
    client.cancel().await.expect("stop the client");
    check(&server.log());
}

// elicitation-sep1330-enums (11-25): five enum shapes.
#[tokio::test]
async fn elicitation_sep1330_enums() {
    let server = server().await;
    let (client, mut heard) =
        answering(&server, json!({ "action": "accept", "content": {} })).await;

    let result = call_with(&client, "test_elicitation_sep1330_enums", json!({})).await;

    let Heard::Asked { params, .. } = heard.next("elicitation/create").await else {
        panic!("expected a request");
    };
    let properties = &params["requestedSchema"]["properties"];
    assert!(properties["untitledSingle"]["enum"].is_array());
    assert!(properties["titledSingle"]["oneOf"].is_array());
    assert!(properties["legacyEnum"]["enumNames"].is_array());
    assert!(properties["untitledMulti"]["items"]["enum"].is_array());
    assert!(properties["titledMulti"]["items"]["anyOf"].is_array());
    assert_eq!(result.is_error, None, "{result:?}");
    client.cancel().await.expect("stop the client");
    check(&server.log());
}

// resources-subscribe / resources-unsubscribe (06-18–11-25): both answer `{}` for
// `test://watched-resource`; that updates stop is `tests/fixture/resources.rs`
// `a_subscribed_client_hears_resource_updated_until_it_unsubscribes`.
#[tokio::test]
async fn resources_subscribe_and_unsubscribe() {
    let server = server().await;
    let peer = Peer::open(&server.url(), Era::Legacy).await;
    let uri = json!({ "uri": "test://watched-resource" });

    let subscribed = peer.result(1, "resources/subscribe", uri.clone()).await;
    let unsubscribed = peer.result(2, "resources/unsubscribe", uri).await;

    assert_eq!(subscribed, json!({}));
    assert_eq!(unsubscribed, json!({}));
    check(&server.log());
}

// ---------------------------------------------------------------------------------------------
// Scenarios of every era (06-18 onwards, draft included)
// ---------------------------------------------------------------------------------------------

// completion-complete (06-18–).
#[tokio::test]
async fn completion_complete() {
    let server = server().await;
    for era in BOTH {
        let peer = Peer::open(&server.url(), era).await;
        let result = peer
            .result(
                1,
                "completion/complete",
                json!({ "ref": { "type": "ref/prompt", "name": "test_prompt_with_arguments" },
                        "argument": { "name": "arg1", "value": "pa" } }),
            )
            .await;
        assert_eq!(
            result["completion"]["values"],
            json!(["paris", "park", "party"]),
            "{era:?}"
        );
    }
    check(&server.log());
}

// tools-list (06-18–): every tool has a name, a description and an input schema.
#[tokio::test]
async fn tools_list() {
    let server = server().await;
    for era in BOTH {
        let peer = Peer::open(&server.url(), era).await;
        let result = peer.result(1, "tools/list", Value::Null).await;
        let tools = result["tools"].as_array().expect("tools is an array");
        assert!(!tools.is_empty());
        for tool in tools {
            assert!(tool["name"].is_string(), "{era:?}: {tool}");
            assert!(tool["description"].is_string(), "{era:?}: {tool}");
            assert_eq!(
                tool["inputSchema"]["type"],
                json!("object"),
                "{era:?}: {tool}"
            );
        }
    }
    check(&server.log());
}

// tools-call-simple-text (06-18–).
#[tokio::test]
async fn tools_call_simple_text() {
    let server = server().await;
    for era in BOTH {
        let result = Peer::open(&server.url(), era)
            .await
            .call(1, "test_simple_text")
            .await;
        assert_eq!(
            result["content"],
            json!([{ "type": "text", "text": "This is a simple text response for testing." }]),
            "{era:?}"
        );
    }
    check(&server.log());
}

// tools-call-image (06-18–): an image block with a base64 PNG.
#[tokio::test]
async fn tools_call_image() {
    let server = server().await;
    for era in BOTH {
        let result = Peer::open(&server.url(), era)
            .await
            .call(1, "test_image_content")
            .await;
        assert_eq!(
            result["content"],
            json!([{ "type": "image", "data": PNG_BASE64, "mimeType": "image/png" }]),
            "{era:?}"
        );
    }
    check(&server.log());
}

// tools-call-audio (06-18–): an audio block with a base64 WAV.
#[tokio::test]
async fn tools_call_audio() {
    let server = server().await;
    for era in BOTH {
        let result = Peer::open(&server.url(), era)
            .await
            .call(1, "test_audio_content")
            .await;
        assert_eq!(
            result["content"],
            json!([{ "type": "audio", "data": WAV_BASE64, "mimeType": "audio/wav" }]),
            "{era:?}"
        );
    }
    check(&server.log());
}

// tools-call-embedded-resource (06-18–): resource `test://embedded-resource`, text/plain.
#[tokio::test]
async fn tools_call_embedded_resource() {
    let server = server().await;
    for era in BOTH {
        let result = Peer::open(&server.url(), era)
            .await
            .call(1, "test_embedded_resource")
            .await;
        let resource = &result["content"][0]["resource"];
        assert_eq!(result["content"][0]["type"], json!("resource"), "{era:?}");
        assert_eq!(
            resource["uri"],
            json!("test://embedded-resource"),
            "{era:?}"
        );
        assert_eq!(resource["mimeType"], json!("text/plain"), "{era:?}");
        assert!(resource["text"].is_string(), "{era:?}");
    }
    check(&server.log());
}

// tools-call-mixed-content (06-18–): text, image and a JSON resource.
#[tokio::test]
async fn tools_call_mixed_content() {
    let server = server().await;
    for era in BOTH {
        let result = Peer::open(&server.url(), era)
            .await
            .call(1, "test_multiple_content_types")
            .await;
        let kinds: Vec<&Value> = result["content"]
            .as_array()
            .expect("content is an array")
            .iter()
            .map(|c| &c["type"])
            .collect();
        assert_eq!(
            kinds,
            [&json!("text"), &json!("image"), &json!("resource")],
            "{era:?}"
        );
        assert_eq!(
            result["content"][2]["resource"]["mimeType"],
            json!("application/json")
        );
    }
    check(&server.log());
}

// tools-call-error (06-18–): a result with isError true and text, not a JSON-RPC error.
#[tokio::test]
async fn tools_call_error() {
    let server = server().await;
    for era in BOTH {
        let result = Peer::open(&server.url(), era)
            .await
            .call(1, "test_error_handling")
            .await;
        assert_eq!(result["isError"], json!(true), "{era:?}");
        assert!(result["content"][0]["text"].is_string(), "{era:?}");
    }
    check(&server.log());
}

// tools-call-with-progress (06-18–): progress 0, 50, 100 of 100 for the request's token.
#[tokio::test]
async fn tools_call_with_progress() {
    let server = server().await;
    for era in BOTH {
        let peer = Peer::open(&server.url(), era).await;
        let answer = peer
            .send_with_meta(
                1,
                "tools/call",
                json!({ "name": "test_tool_with_progress", "arguments": {} }),
                json!({ "progressToken": "progress-test" }),
            )
            .await;
        let progress: Vec<(Value, Value, Value)> = answer
            .before
            .iter()
            .map(|n| {
                assert_eq!(n["method"], json!("notifications/progress"), "{era:?}");
                let p = &n["params"];
                (
                    p["progressToken"].clone(),
                    p["progress"].clone(),
                    p["total"].clone(),
                )
            })
            .collect();
        let token = json!("progress-test");
        assert_eq!(
            progress,
            [
                (token.clone(), json!(0.0), json!(100.0)),
                (token.clone(), json!(50.0), json!(100.0)),
                (token, json!(100.0), json!(100.0)),
            ],
            "{era:?}"
        );
        assert!(answer.response["result"].is_object(), "{era:?}");
    }
    check(&server.log());
}

// json-schema-2020-12 (11-25–, pending): the listing keeps `$schema`, `$defs` with
// `$anchor`, `additionalProperties`, `allOf` > `anyOf` and `if`/`then`/`else` verbatim.
#[tokio::test]
async fn json_schema_2020_12() {
    let server = server().await;
    for era in BOTH {
        let result = Peer::open(&server.url(), era)
            .await
            .result(1, "tools/list", Value::Null)
            .await;
        let tool = result["tools"]
            .as_array()
            .expect("tools is an array")
            .iter()
            .find(|t| t["name"] == "json_schema_2020_12_tool")
            .expect("the tool is listed")
            .clone();
        let schema = &tool["inputSchema"];
        assert_eq!(
            schema["$schema"],
            json!("https://json-schema.org/draft/2020-12/schema"),
            "{era:?}"
        );
        assert!(schema["$defs"]["address"]["$anchor"].is_string(), "{era:?}");
        assert_eq!(schema["additionalProperties"], json!(false), "{era:?}");
        assert!(schema["allOf"][0]["anyOf"].is_array(), "{era:?}");
        for keyword in ["if", "then", "else"] {
            assert!(schema[keyword].is_object(), "{era:?}: {keyword}");
        }
    }
    check(&server.log());
}

// server-sse-multiple-streams (11-25–): concurrent POSTs each get a working answer.
#[tokio::test]
async fn server_sse_multiple_streams() {
    let server = server().await;
    for era in BOTH {
        let peer = Peer::open(&server.url(), era).await;
        let mut meta = json!({ "progressToken": "a" });
        let first = peer.send_with_meta(
            1,
            "tools/call",
            json!({ "name": "test_tool_with_progress", "arguments": {} }),
            meta.clone(),
        );
        meta["progressToken"] = json!("b");
        let second = peer.send_with_meta(
            2,
            "tools/call",
            json!({ "name": "test_tool_with_progress", "arguments": {} }),
            meta,
        );
        let third = peer.send(
            3,
            "tools/call",
            json!({ "name": "test_simple_text", "arguments": {} }),
        );

        let (first, second, third) = tokio::join!(first, second, third);

        for (answer, token) in [(&first, "a"), (&second, "b")] {
            assert!(answer.response["result"].is_object(), "{era:?}");
            assert!(
                answer
                    .before
                    .iter()
                    .all(|n| n["params"]["progressToken"] == json!(token)),
                "{era:?}: each stream carries only its own progress"
            );
        }
        assert!(third.response["result"].is_object(), "{era:?}");
    }
    check(&server.log());
}

// resources-list (06-18–): direct resources (not templates) with uri, name, description.
#[tokio::test]
async fn resources_list() {
    let server = server().await;
    for era in BOTH {
        let result = Peer::open(&server.url(), era)
            .await
            .result(1, "resources/list", Value::Null)
            .await;
        let resources = result["resources"]
            .as_array()
            .expect("resources is an array");
        assert!(!resources.is_empty(), "{era:?}");
        for resource in resources {
            assert!(resource["uri"].is_string(), "{era:?}: {resource}");
            assert!(resource["name"].is_string(), "{era:?}: {resource}");
            assert!(resource["description"].is_string(), "{era:?}: {resource}");
            assert!(!resource["uri"].as_str().unwrap_or_default().contains('{'));
        }
    }
    check(&server.log());
}

// resources-read-text (06-18–).
#[tokio::test]
async fn resources_read_text() {
    let server = server().await;
    for era in BOTH {
        let result = Peer::open(&server.url(), era)
            .await
            .result(1, "resources/read", json!({ "uri": "test://static-text" }))
            .await;
        assert_eq!(
            result["contents"][0]["mimeType"],
            json!("text/plain"),
            "{era:?}"
        );
        assert_eq!(
            result["contents"][0]["text"],
            json!("This is the content of the static text resource."),
            "{era:?}"
        );
    }
    check(&server.log());
}

// resources-read-binary (06-18–): a PNG `blob`.
#[tokio::test]
async fn resources_read_binary() {
    let server = server().await;
    for era in BOTH {
        let result = Peer::open(&server.url(), era)
            .await
            .result(
                1,
                "resources/read",
                json!({ "uri": "test://static-binary" }),
            )
            .await;
        assert_eq!(result["contents"][0]["blob"], json!(PNG_BASE64), "{era:?}");
        assert_eq!(
            result["contents"][0]["mimeType"],
            json!("image/png"),
            "{era:?}"
        );
    }
    check(&server.log());
}

// resources-templates-read (06-18–): `test://template/{id}/data`; id 123 renders JSON text.
#[tokio::test]
async fn resources_templates_read() {
    let server = server().await;
    for era in BOTH {
        let peer = Peer::open(&server.url(), era).await;
        let templates = peer
            .result(1, "resources/templates/list", Value::Null)
            .await;
        assert_eq!(
            templates["resourceTemplates"][0]["uriTemplate"],
            json!("test://template/{id}/data"),
            "{era:?}"
        );
        let result = peer
            .result(
                2,
                "resources/read",
                json!({ "uri": "test://template/123/data" }),
            )
            .await;
        let text = result["contents"][0]["text"]
            .as_str()
            .expect("text contents");
        let data: Value = serde_json::from_str(text).expect("JSON text");
        assert_eq!(data["id"], json!("123"), "{era:?}");
    }
    check(&server.log());
}

// sep-2164-resource-not-found (draft): never an empty `contents`; an error naming the URI
// (-32602 in 2026-07-28, where -32002 no longer exists; -32002 in 2025-11-25).
#[tokio::test]
async fn sep_2164_resource_not_found() {
    let server = server().await;
    for (era, code) in [(Era::Legacy, -32002), (Era::Modern, -32602)] {
        let answer = Peer::open(&server.url(), era)
            .await
            .send(
                1,
                "resources/read",
                json!({ "uri": "test://does-not-exist" }),
            )
            .await;
        assert!(
            answer.response.get("result").is_none(),
            "{era:?}: {}",
            answer.response
        );
        assert_eq!(answer.response["error"]["code"], json!(code), "{era:?}");
        assert_eq!(
            answer.response["error"]["data"]["uri"],
            json!("test://does-not-exist"),
            "{era:?}"
        );
    }
    check(&server.log());
}

// prompts-list (06-18–).
#[tokio::test]
async fn prompts_list() {
    let server = server().await;
    for era in BOTH {
        let result = Peer::open(&server.url(), era)
            .await
            .result(1, "prompts/list", Value::Null)
            .await;
        let prompts = result["prompts"].as_array().expect("prompts is an array");
        let with_args = prompts
            .iter()
            .find(|p| p["name"] == "test_prompt_with_arguments")
            .expect("test_prompt_with_arguments is listed");
        assert!(with_args["description"].is_string(), "{era:?}");
        assert_eq!(with_args["arguments"][0]["name"], json!("arg1"), "{era:?}");
    }
    check(&server.log());
}

// prompts-get-simple (06-18–): one user text message.
#[tokio::test]
async fn prompts_get_simple() {
    let server = server().await;
    for era in BOTH {
        let result = Peer::open(&server.url(), era)
            .await
            .result(1, "prompts/get", json!({ "name": "test_simple_prompt" }))
            .await;
        let messages = result["messages"].as_array().expect("messages");
        assert_eq!(messages.len(), 1, "{era:?}");
        assert_eq!(messages[0]["role"], json!("user"));
        assert_eq!(messages[0]["content"]["type"], json!("text"));
    }
    check(&server.log());
}

// prompts-get-with-args (06-18–).
#[tokio::test]
async fn prompts_get_with_args() {
    let server = server().await;
    for era in BOTH {
        let result = Peer::open(&server.url(), era)
            .await
            .result(
                1,
                "prompts/get",
                json!({ "name": "test_prompt_with_arguments",
                        "arguments": { "arg1": "hello", "arg2": "world" } }),
            )
            .await;
        assert_eq!(
            result["messages"][0]["content"]["text"],
            json!("Prompt with arguments: arg1='hello', arg2='world'"),
            "{era:?}"
        );
    }
    check(&server.log());
}

// prompts-get-embedded-resource (06-18–): a resource message, then a text message.
#[tokio::test]
async fn prompts_get_embedded_resource() {
    let server = server().await;
    for era in BOTH {
        let result = Peer::open(&server.url(), era)
            .await
            .result(
                1,
                "prompts/get",
                json!({ "name": "test_prompt_with_embedded_resource",
                        "arguments": { "resourceUri": "test://example-resource" } }),
            )
            .await;
        let messages = &result["messages"];
        assert_eq!(messages[0]["content"]["type"], json!("resource"), "{era:?}");
        assert_eq!(
            messages[0]["content"]["resource"]["uri"],
            json!("test://example-resource"),
            "{era:?}"
        );
        assert_eq!(messages[1]["content"]["type"], json!("text"), "{era:?}");
    }
    check(&server.log());
}

// prompts-get-with-image (06-18–): an image message, then a text message.
#[tokio::test]
async fn prompts_get_with_image() {
    let server = server().await;
    for era in BOTH {
        let result = Peer::open(&server.url(), era)
            .await
            .result(
                1,
                "prompts/get",
                json!({ "name": "test_prompt_with_image" }),
            )
            .await;
        let messages = &result["messages"];
        assert_eq!(messages[0]["content"]["type"], json!("image"), "{era:?}");
        assert_eq!(
            messages[0]["content"]["mimeType"],
            json!("image/png"),
            "{era:?}"
        );
        assert_eq!(messages[1]["content"]["type"], json!("text"), "{era:?}");
    }
    check(&server.log());
}

// dns-rebinding-protection (11-25–): a foreign Host or Origin gets 4xx, loopback ones are
// served.
#[tokio::test]
async fn dns_rebinding_protection() {
    let server = server().await;
    let http = reqwest::Client::new();
    let discover = json!({ "jsonrpc": "2.0", "id": 1, "method": "server/discover", "params": { "_meta": {
        "io.modelcontextprotocol/protocolVersion": MODERN,
        "io.modelcontextprotocol/clientCapabilities": {} } } });
    let init = json!({ "jsonrpc": "2.0", "id": 1, "method": "initialize", "params": {
        "protocolVersion": LEGACY, "capabilities": {},
        "clientInfo": { "name": "conformance-replay", "version": "1.0.0" } } });
    for (body, modern) in [(init, false), (discover, true)] {
        let port = server.address().port();
        let hosts = [
            ("evil.example.com".to_string(), false),
            (format!("localhost:{port}"), true),
            (format!("127.0.0.1:{port}"), true),
            (format!("[::1]:{port}"), true),
        ];
        let origins = [
            ("http://evil.example.com", false),
            ("http://localhost", true),
            ("http://127.0.0.1", true),
        ];
        let cases = hosts
            .into_iter()
            .map(|(host, allowed)| (reqwest::header::HOST, host, allowed))
            .chain(
                origins
                    .into_iter()
                    .map(|(o, allowed)| (reqwest::header::ORIGIN, o.to_string(), allowed)),
            );
        for (header, origin, allowed) in cases {
            let mut builder = http
                .post(server.url())
                .header("content-type", "application/json")
                .header("accept", "application/json, text/event-stream")
                .header(header, &origin);
            if modern {
                builder = builder
                    .header("mcp-protocol-version", MODERN)
                    .header("mcp-method", "server/discover");
            }
            let status = builder
                .body(body.to_string())
                .send()
                .await
                .expect("send the POST")
                .status();
            if allowed {
                assert!(status.is_success(), "{origin} (modern: {modern}): {status}");
            } else {
                assert!(
                    status.is_client_error(),
                    "{origin} (modern: {modern}): {status}"
                );
            }
        }
    }
    check(&server.log());
}
