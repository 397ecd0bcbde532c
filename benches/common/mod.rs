//! What the benches share: the client runtime, a legacy session, and one `tools/call` over
//! real loopback HTTP with reqwest. Each bench uses what it needs.
#![allow(dead_code, reason = "each bench uses its own part of the helpers")]

use std::hint::black_box;

use reqwest::header::{ACCEPT, CONTENT_TYPE};
use serde_json::{Value, json};

/// `initialize` at 2025-11-25, as a client with no capabilities sends it.
pub const INITIALIZE: &str = r#"{"jsonrpc":"2.0","id":0,"method":"initialize","params":{"protocolVersion":"2025-11-25","capabilities":{},"clientInfo":{"name":"bench","version":"1.0.0"}}}"#;

/// The client side on a current-thread runtime, as under a default `#[tokio::test]`.
pub fn runtime() -> tokio::runtime::Runtime {
    tokio::runtime::Builder::new_current_thread()
        .enable_all()
        .build()
        .expect("a client runtime")
}

/// Opens a legacy session on `url` and returns its id; the body is read in full.
pub async fn session(client: &reqwest::Client, url: &str) -> String {
    let response = client
        .post(url)
        .header(CONTENT_TYPE, "application/json")
        .header(ACCEPT, "application/json, text/event-stream")
        .body(INITIALIZE)
        .send()
        .await
        .expect("initialize");
    let session = response.headers()["mcp-session-id"]
        .to_str()
        .expect("an ASCII session id")
        .to_string();
    black_box(response.bytes().await.expect("the initialize body"));
    session
}

/// One `tools/call` of `tool` with `arguments` in `session`; returns the whole body.
pub async fn call(
    client: &reqwest::Client,
    url: &str,
    session: &str,
    tool: &str,
    arguments: Value,
) -> bytes::Bytes {
    call_with(
        client,
        url,
        session,
        json!({"name": tool, "arguments": arguments}),
    )
    .await
}

/// One `tools/call` with these `params` (`_meta` included) in `session`; returns the whole
/// body.
pub async fn call_with(
    client: &reqwest::Client,
    url: &str,
    session: &str,
    params: Value,
) -> bytes::Bytes {
    let body = json!({"jsonrpc": "2.0", "id": 1, "method": "tools/call", "params": params});
    client
        .post(url)
        .header(CONTENT_TYPE, "application/json")
        .header(ACCEPT, "application/json, text/event-stream")
        .header("mcp-session-id", session)
        .header("mcp-protocol-version", "2025-11-25")
        .body(body.to_string())
        .send()
        .await
        .expect("tools/call")
        .bytes()
        .await
        .expect("the whole body")
}

/// A POST of `body` as a 2025-11-25 client sends it (both `Accept` types), in `session`
/// when given; the response unread.
pub async fn post(
    client: &reqwest::Client,
    url: &str,
    session: Option<&str>,
    body: &Value,
) -> reqwest::Response {
    let mut request = client
        .post(url)
        .header(CONTENT_TYPE, "application/json")
        .header(ACCEPT, "application/json, text/event-stream")
        .header("mcp-protocol-version", "2025-11-25")
        .body(body.to_string());
    if let Some(session) = session {
        request = request.header("mcp-session-id", session);
    }
    request.send().await.expect("the server answers")
}

/// Opens a 2025-11-25 session on `url` (`initialize`, then `notifications/initialized`) and
/// returns its id.
pub async fn open_session(client: &reqwest::Client, url: &str) -> String {
    let reply = post(
        client,
        url,
        None,
        &serde_json::from_str(INITIALIZE).expect("JSON"),
    )
    .await;
    assert_eq!(reply.status(), 200, "initialize");
    let session = reply
        .headers()
        .get("mcp-session-id")
        .and_then(|v| v.to_str().ok())
        .expect("a session id")
        .to_owned();
    reply.bytes().await.expect("the initialize body");
    let done = post(
        client,
        url,
        Some(&session),
        &json!({ "jsonrpc": "2.0", "method": "notifications/initialized" }),
    )
    .await;
    assert_eq!(done.status(), 202, "notifications/initialized");
    session
}
