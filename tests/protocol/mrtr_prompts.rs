//! Input requests beyond tools: the `ask` steps of a prompt and of a resource template. In
//! 2026-07-28 `prompts/get` and `resources/read` answer `input_required` and the retry
//! renders the result (`basic/patterns/mrtr.mdx` names both among the methods that may; the
//! conformance suite's `input-required-result-non-tool-request`); in a legacy session the
//! request goes to the client on the call's event stream, as a tool's does.

use crate::common;

use common::peer::Peer;
use mcp_decoy::spec::AskMethod;
use mcp_decoy::{MockMcpServer, Prompt};
use serde_json::{Value, json};

fn context_prompt() -> Prompt {
    Prompt::new("with_context")
        .ask(
            "user_context",
            AskMethod::Elicitation,
            json!({
                "message": "What context should the prompt use?",
                "requestedSchema": { "type": "object",
                    "properties": { "context": { "type": "string" } }, "required": ["context"] }
            }),
        )
        .respond_with(json!([{ "role": "user", "content": { "type": "text",
            "text": "Context: ${answers.user_context.content.context}" } }]))
}

async fn server() -> MockMcpServer {
    MockMcpServer::builder()
        .prompt(context_prompt())
        .start()
        .await
}

fn answer(context: &str) -> Value {
    json!({ "action": "accept", "content": { "context": context } })
}

#[tokio::test]
async fn a_prompt_that_asks_answers_input_required_and_the_retry_renders_its_messages() {
    let server = server().await;
    let peer = Peer::modern(&server.url(), json!({ "elicitation": {} }));

    let first = peer
        .result(1, "prompts/get", json!({ "name": "with_context" }))
        .await;
    let retry = peer
        .result(
            2,
            "prompts/get",
            json!({ "name": "with_context",
            "inputResponses": { "user_context": answer("release notes") },
            "requestState": first["requestState"] }),
        )
        .await;
    let tampered = peer
        .send(
            3,
            "prompts/get",
            json!({ "name": "with_context",
            "inputResponses": { "user_context": answer("x") }, "requestState": "forged" }),
        )
        .await;

    assert_eq!(first["resultType"], "input_required");
    assert_eq!(
        first["inputRequests"]["user_context"]["method"],
        "elicitation/create"
    );
    assert!(first.get("messages").is_none());
    assert_eq!(retry["resultType"], "complete");
    assert_eq!(
        retry["messages"][0]["content"]["text"],
        "Context: release notes"
    );
    assert_eq!(tampered.error().0, -32602);
    assert!(
        tampered.error().1.contains("requestState"),
        "{:?}",
        tampered.error()
    );
    common::schema::assert_server_messages_valid(&server.log());
}

#[tokio::test]
async fn a_prompt_whose_ask_the_request_cannot_answer_is_refused_up_front_with_32021() {
    let server = server().await;
    let peer = Peer::modern(&server.url(), json!({}));

    let refused = peer
        .send(1, "prompts/get", json!({ "name": "with_context" }))
        .await;

    // basic/index.mdx: a request that needs a capability the client did not declare in
    // this request is 400 + -32021 with `data.requiredCapabilities`.
    assert_eq!((refused.status, refused.error().0), (400, -32021));
    assert_eq!(
        refused.response["error"]["data"]["requiredCapabilities"],
        json!({ "elicitation": {} })
    );
    assert!(
        refused.error().1.contains("prompt `with_context`"),
        "{:?}",
        refused.error()
    );
    common::schema::assert_server_messages_valid(&server.log());
}

#[tokio::test]
async fn in_a_legacy_session_the_prompt_asks_the_client_on_its_stream() {
    let server = server().await;
    let peer = Peer::legacy(&server.url(), json!({ "elicitation": {} })).await;

    let mut stream = peer
        .stream(1, "prompts/get", json!({ "name": "with_context" }))
        .await;
    let request = loop {
        let message = stream.next("the elicitation").await.expect("a request");
        if message["method"] == "elicitation/create" {
            break message;
        }
    };
    peer.respond(&request["id"], answer("a legacy answer"))
        .await;
    let response = loop {
        let message = stream.next("the prompt").await.expect("the response");
        if message.get("id") == Some(&json!(1)) {
            break message;
        }
    };

    assert_eq!(
        response["result"]["messages"][0]["content"]["text"],
        "Context: a legacy answer"
    );
    common::schema::assert_server_messages_valid(&server.log());
}

#[tokio::test]
async fn a_legacy_client_without_the_capability_gets_an_internal_error_naming_it() {
    let server = server().await;
    let peer = Peer::legacy(&server.url(), json!({})).await;

    let refused = peer
        .send(1, "prompts/get", json!({ "name": "with_context" }))
        .await;

    let (code, message) = refused.error();
    assert_eq!(code, -32603);
    assert!(message.contains("elicitation"), "{message}");
    common::schema::assert_server_messages_valid(&server.log());
}

// ---------------------------------------------------------------------------------------
// resources/read, the third method mrtr.mdx names

fn vault() -> mcp_decoy::ResourceTemplate {
    mcp_decoy::ResourceTemplate::new("vault://{name}", "secret")
        .ask("unlock", AskMethod::Elicitation, json!({
            "message": "Unlock ${vars.name}?",
            "requestedSchema": { "type": "object", "properties": { "ok": { "type": "boolean" } } }
        }))
        .respond_with(json!({ "text": "${vars.name}: ${answers.unlock.action}" }))
}

#[tokio::test]
async fn a_resource_template_that_asks_answers_input_required_and_the_retry_reads_it() {
    let server = MockMcpServer::builder()
        .resource_template(vault())
        .start()
        .await;
    let peer = Peer::modern(&server.url(), json!({ "elicitation": {} }));
    let plain = Peer::modern(&server.url(), json!({}));

    let first = peer
        .result(1, "resources/read", json!({ "uri": "vault://db" }))
        .await;
    let retry = peer
        .result(
            2,
            "resources/read",
            json!({ "uri": "vault://db",
            "inputResponses": { "unlock": { "action": "accept", "content": { "ok": true } } },
            "requestState": first["requestState"] }),
        )
        .await;
    let refused = plain
        .send(3, "resources/read", json!({ "uri": "vault://db" }))
        .await;

    assert_eq!(first["resultType"], "input_required");
    assert_eq!(
        first["inputRequests"]["unlock"]["params"]["message"],
        "Unlock db?"
    );
    assert!(
        first.get("ttlMs").is_none(),
        "no caching hints on input_required"
    );
    assert_eq!(retry["contents"][0]["text"], "db: accept");
    assert_eq!((refused.status, refused.error().0), (400, -32021));
    common::schema::assert_server_messages_valid(&server.log());
}

#[tokio::test]
async fn in_a_legacy_session_the_resource_template_asks_the_client_on_its_stream() {
    let server = MockMcpServer::builder()
        .resource_template(vault())
        .start()
        .await;
    let peer = Peer::legacy(&server.url(), json!({ "elicitation": {} })).await;

    let mut stream = peer
        .stream(1, "resources/read", json!({ "uri": "vault://db" }))
        .await;
    let request = loop {
        let message = stream.next("the elicitation").await.expect("a request");
        if message["method"] == "elicitation/create" {
            break message;
        }
    };
    peer.respond(&request["id"], json!({ "action": "decline" }))
        .await;
    let response = loop {
        let message = stream.next("the contents").await.expect("the response");
        if message.get("id") == Some(&json!(1)) {
            break message;
        }
    };

    assert_eq!(response["result"]["contents"][0]["text"], "db: decline");
    common::schema::assert_server_messages_valid(&server.log());
}
