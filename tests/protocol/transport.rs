//! Raw-HTTP tests of the Streamable HTTP transport: every path a client can take, seen the way
//! a client sees it (status, headers, bodies, JSON-RPC codes), against a real fixture on
//! loopback.
//!
//! Spec references are to `/work/shared/spec/<revision>/basic/<page>.mdx`, section in quotes.

use std::time::Duration;

use mcp_decoy::log::{Entry, HttpKind, RpcKind};
use mcp_decoy::spec::{Listing, ResponseMode};
use mcp_decoy::{MockMcpServer, ProtocolVersion, Tool};
use reqwest::StatusCode;
use reqwest::header::HeaderValue;
use serde_json::{Value, json};

use crate::common::raw::{self, Peer, init_request, notification, request, rpc_body};
use crate::common::sse::{self, events_after_priming as event_stream};
use crate::common::{schema, wire};

/// The `error` member of a JSON-RPC response, asserting its code.
fn expect_error(body: &Value, code: i64) -> String {
    let error = body
        .get("error")
        .unwrap_or_else(|| panic!("expected a JSON-RPC error, got {body}"));
    assert_eq!(error["code"], json!(code), "error code in {body}");
    error["message"]
        .as_str()
        .expect("error.message is a string")
        .to_string()
}

fn assert_mentions(message: &str, needles: &[&str]) {
    for needle in needles {
        assert!(
            message.contains(needle),
            "message `{message}` does not mention `{needle}`"
        );
    }
}

async fn json_of(response: reqwest::Response) -> Value {
    response.json().await.expect("body is JSON")
}

async fn echo_server() -> MockMcpServer {
    MockMcpServer::builder().tool(Tool::echo()).start().await
}

// ---------------------------------------------------------------------------------------------
// initialize
// ---------------------------------------------------------------------------------------------

// 2025-11-25/basic/transports.mdx, "Session Management" 1: the id comes on the response that
// carries the InitializeResult and contains only visible ASCII (0x21-0x7E).
#[tokio::test]
async fn initialize_answers_200_with_a_visible_ascii_session_id() {
    let server = echo_server().await;
    let peer = Peer::new(&server);
    let response = peer.post(&init_request("2025-11-25")).await;

    assert_eq!(response.status(), StatusCode::OK);
    assert!(raw::content_type(response.headers()).starts_with("application/json"));
    let session = response
        .headers()
        .get("mcp-session-id")
        .expect("Mcp-Session-Id header on the initialize response")
        .to_str()
        .expect("session id is ASCII")
        .to_string();
    assert!(!session.is_empty(), "session id is empty");
    assert!(
        session.bytes().all(|b| (0x21..=0x7e).contains(&b)),
        "session id `{session}` has a byte outside 0x21-0x7E"
    );
    let body = rpc_body(response).await;
    assert_eq!(body["id"], json!(0));
    assert_eq!(body["result"]["protocolVersion"], json!("2025-11-25"));
    assert!(body["result"]["serverInfo"]["name"].is_string(), "{body}");
    assert!(body["result"]["capabilities"].is_object(), "{body}");
    assert_eq!(
        server.sessions().first().map(|s| s.id.clone()),
        Some(session)
    );

    schema::assert_server_messages_valid(&server.log());
}

// 2025-11-25/basic/transports.mdx, "Session Management" 1: ids SHOULD be globally unique.
#[tokio::test]
async fn each_initialize_gets_a_different_session_id() {
    let server = echo_server().await;
    let (a, _) = Peer::initialized(&server, "2025-11-25").await;
    let (b, _) = Peer::initialized(&server, "2025-11-25").await;
    assert_ne!(a.session(), b.session());
    assert_eq!(server.sessions().len(), 2);

    schema::assert_server_messages_valid(&server.log());
}

// 2025-11-25/basic/lifecycle.mdx, "Version Negotiation": a supported version is answered
// with the same version.
#[tokio::test]
async fn initialize_echoes_each_supported_protocol_version() {
    let server = echo_server().await;
    for version in ["2025-03-26", "2025-06-18", "2025-11-25"] {
        let response = Peer::new(&server).post(&init_request(version)).await;
        assert_eq!(response.status(), StatusCode::OK, "{version}");
        let body = rpc_body(response).await;
        assert_eq!(body["result"]["protocolVersion"], json!(version), "{body}");
    }

    schema::assert_server_messages_valid(&server.log());
}

// 2025-11-25/basic/lifecycle.mdx, "Version Negotiation": otherwise the server MUST answer
// another version it supports, which SHOULD be the latest.
#[tokio::test]
async fn initialize_with_an_unknown_version_gets_the_newest_served() {
    let all = echo_server().await;
    let (_, result) = Peer::initialized(&all, "2024-01-01").await;
    assert_eq!(result["protocolVersion"], json!("2025-11-25"));

    let older = MockMcpServer::builder()
        .protocol_versions([ProtocolVersion::V2025_03_26, ProtocolVersion::V2025_06_18])
        .start()
        .await;
    let (_, result) = Peer::initialized(&older, "2024-01-01").await;
    assert_eq!(result["protocolVersion"], json!("2025-06-18"));
    // A version that exists but is not served falls back too.
    let (_, result) = Peer::initialized(&older, "2025-11-25").await;
    assert_eq!(result["protocolVersion"], json!("2025-06-18"));

    schema::assert_server_messages_valid(&all.log());
    schema::assert_server_messages_valid(&older.log());
}

// 2025-11-25/basic/lifecycle.mdx, "Initialization" (the request carries protocolVersion,
// capabilities and clientInfo) and "Error Handling" (-32602 for invalid params).
#[tokio::test]
async fn initialize_without_a_required_field_gets_invalid_params_naming_it() {
    let server = echo_server().await;
    let peer = Peer::new(&server);
    let cases = [
        (
            "protocolVersion",
            "/protocolVersion",
            "params.protocolVersion",
        ),
        ("capabilities", "/capabilities", "params.capabilities"),
        (
            "clientInfo.name",
            "/clientInfo/name",
            "params.clientInfo.name",
        ),
    ];
    for (label, pointer, needle) in cases {
        let mut params = raw::init_params("2025-11-25");
        let (parent, field) = pointer.rsplit_once('/').expect("pointer has a slash");
        params
            .pointer_mut(if parent.is_empty() { "" } else { parent })
            .and_then(Value::as_object_mut)
            .expect("parent object")
            .remove(field);
        let response = peer.post(&request(7, "initialize", params)).await;
        assert_eq!(response.status(), StatusCode::OK, "{label}: status");
        assert!(
            response.headers().get("mcp-session-id").is_none(),
            "{label}: a failed initialize must not open a session"
        );
        let body = rpc_body(response).await;
        assert_eq!(body["id"], json!(7), "{label}: {body}");
        let message = expect_error(&body, -32602);
        assert_mentions(&message, &[needle]);
    }
    assert!(server.sessions().is_empty(), "no session was opened");

    schema::assert_server_messages_valid(&server.log());
}

// Same sections: a field of the wrong type is named too, and the session keeps what the client
// sent, whether the params follow `method` (the server reads them from their text) or come
// before it (it reads them as a value).
#[tokio::test]
async fn initialize_params_read_the_same_before_or_after_the_method() {
    let server = echo_server().await;
    let peer = Peer::new(&server);
    let in_order = |params: &Value, params_first: bool| {
        if params_first {
            json!({ "params": params, "jsonrpc": "2.0", "id": 7, "method": "initialize" })
        } else {
            request(7, "initialize", params.clone())
        }
    };
    let cases = [
        ("/protocolVersion", json!(2025), "params.protocolVersion"),
        ("/capabilities", json!([]), "params.capabilities"),
        ("/clientInfo", json!("me"), "params.clientInfo"),
        ("/clientInfo/version", json!(1), "params.clientInfo.version"),
    ];
    let failing = cases.len();
    for (pointer, wrong, needle) in cases {
        let mut params = raw::init_params("2025-11-25");
        *params.pointer_mut(pointer).expect("a field") = wrong;
        for params_first in [false, true] {
            let response = peer.post(&in_order(&params, params_first)).await;
            let body = rpc_body(response).await;
            let message = expect_error(&body, -32602);
            assert_mentions(&message, &[needle]);
        }
    }
    assert!(server.sessions().is_empty(), "no session was opened");

    let capabilities = json!({ "roots": { "listChanged": true }, "x-\u{e9}": [1, {}] });
    for params_first in [false, true] {
        let params = json!({
            "protocolVersion": "2025-11-25",
            "capabilities": capabilities,
            "clientInfo": { "name": "quoted \"name\" \u{e9}", "version": "1.0", "title": "T" },
        });
        let response = peer.post(&in_order(&params, params_first)).await;
        assert_eq!(response.status(), StatusCode::OK);
        let session = server.sessions().pop().expect("a session");
        assert_eq!(
            session.client_name.as_deref(),
            Some("quoted \"name\" \u{e9}")
        );
        assert_eq!(session.client_version.as_deref(), Some("1.0"));
        assert_eq!(session.client_capabilities, capabilities);
    }
    let logged = server.log().mcp().method("initialize").count();
    assert_eq!(logged, 2 * failing + 2, "every request is logged");

    schema::assert_server_messages_valid(&server.log());
}

// ---------------------------------------------------------------------------------------------
// notifications and client responses
// ---------------------------------------------------------------------------------------------

// 2025-11-25/basic/transports.mdx, "Sending Messages to the Server" 4: an accepted
// notification or response gets 202 Accepted with no body.
#[tokio::test]
async fn a_notification_is_accepted_with_202_and_an_empty_body() {
    let server = echo_server().await;
    let (mut peer, _) = Peer::initialized(&server, "2025-11-25").await;
    peer.version = None;
    let response = peer.post(&notification("notifications/initialized")).await;
    assert_eq!(response.status(), StatusCode::ACCEPTED);
    let body = response.bytes().await.expect("read the body");
    assert!(body.is_empty(), "202 body must be empty, got {body:?}");
    assert!(
        server.sessions()[0].initialized,
        "the session is initialized"
    );
    assert_eq!(
        server
            .log()
            .mcp()
            .method("notifications/initialized")
            .kind(RpcKind::Notification)
            .count(),
        2
    );

    schema::assert_server_messages_valid(&server.log());
}

// 2025-11-25/basic/transports.mdx, "Sending Messages to the Server" 4.
#[tokio::test]
async fn a_client_response_is_accepted_with_202_and_an_empty_body() {
    let server = echo_server().await;
    let (peer, _) = Peer::initialized(&server, "2025-11-25").await;
    for message in [
        json!({ "jsonrpc": "2.0", "id": "s-1", "result": {} }),
        json!({ "jsonrpc": "2.0", "id": 5, "error": { "code": -1, "message": "no" } }),
    ] {
        let response = peer.post(&message).await;
        assert_eq!(response.status(), StatusCode::ACCEPTED, "{message}");
        let body = response.bytes().await.expect("read the body");
        assert!(body.is_empty(), "202 body must be empty, got {body:?}");
    }
    assert_eq!(server.log().mcp().kind(RpcKind::Response).count(), 2);

    schema::assert_server_messages_valid(&server.log());
}

// ---------------------------------------------------------------------------------------------
// response modes
// ---------------------------------------------------------------------------------------------

// 2025-11-25/basic/transports.mdx, "Sending Messages to the Server" 5: a request is answered
// with `application/json` (one object) or `text/event-stream`.
#[tokio::test]
async fn a_request_is_answered_with_application_json_by_default() {
    let server = MockMcpServer::builder()
        .tool(Tool::new("weather").respond_with(
            json!({ "content": [{ "type": "text", "text": "Rain in ${args.city}" }] }),
        ))
        .start()
        .await;
    let (peer, _) = Peer::initialized(&server, "2025-11-25").await;
    let response = peer
        .post(&request(
            3,
            "tools/call",
            json!({ "name": "weather", "arguments": { "city": "Oslo" } }),
        ))
        .await;
    assert_eq!(response.status(), StatusCode::OK);
    assert!(
        raw::content_type(response.headers()).starts_with("application/json"),
        "{:?}",
        response.headers()
    );
    let body = json_of(response).await;
    assert_eq!(body["jsonrpc"], json!("2.0"));
    assert_eq!(body["id"], json!(3));
    assert_eq!(body["result"]["content"][0]["text"], json!("Rain in Oslo"));

    schema::assert_server_messages_valid(&server.log());
}

// 2025-11-25/basic/transports.mdx, "Sending Messages to the Server" 6: the server SHOULD
// start an SSE stream with an event id and an empty data field (priming); 2025-06-18 has no
// such event.
#[tokio::test]
async fn sse_answers_start_with_a_priming_event_only_in_2025_11_25_sessions() {
    let server = MockMcpServer::builder()
        .tool(Tool::echo())
        .response_mode(ResponseMode::Sse)
        .start()
        .await;
    for (version, primed) in [("2025-11-25", true), ("2025-06-18", false)] {
        let (peer, _) = Peer::initialized(&server, version).await;

        let response = peer.post(&request(1, "ping", Value::Null)).await;

        let mut events = sse::events(response);
        let first = events.next(raw::WAIT).await.expect("a first event");
        assert_eq!(first.is_priming(), primed, "{version}: {first:?}");
        if primed {
            let id = first.id.as_deref().expect("the priming event has an id");
            assert!(id.contains('-'), "ids name their stream: {id}");
            let answer = events.next(raw::WAIT).await.expect("the response");
            assert_eq!(answer.json()["result"], json!({}));
        }
    }
    schema::assert_server_messages_valid(&server.log());
}

// 2025-11-25/basic/transports.mdx, "Sending Messages to the Server" 5-6: an SSE answer
// carries the JSON-RPC response for the request, then ends.
#[tokio::test]
async fn sse_mode_answers_a_request_with_one_message_event() {
    let server = MockMcpServer::builder()
        .tool(Tool::echo())
        .response_mode(ResponseMode::Sse)
        .start()
        .await;
    let (peer, result) = Peer::initialized(&server, "2025-11-25").await;
    assert_eq!(result["protocolVersion"], json!("2025-11-25"));

    let response = peer
        .post(&request(
            "call-1",
            "tools/call",
            json!({ "name": "echo", "arguments": { "message": "hi" } }),
        ))
        .await;
    assert_eq!(response.status(), StatusCode::OK);
    assert!(
        raw::content_type(response.headers()).starts_with("text/event-stream"),
        "{:?}",
        response.headers()
    );
    let mut events = event_stream(response);
    let event = events
        .next(raw::WAIT)
        .await
        .expect("one event before the end");
    assert_eq!(event.event.as_deref(), Some("message"));
    let message = event.json();
    assert_eq!(message["jsonrpc"], json!("2.0"));
    assert_eq!(message["id"], json!("call-1"));
    assert_eq!(message["result"]["content"][0]["text"], json!("hi"));
    assert!(
        events.next(raw::WAIT).await.is_none(),
        "the stream ends after the response"
    );

    // Notifications are still 202, not streams.
    let note = peer.post(&notification("notifications/initialized")).await;
    assert_eq!(note.status(), StatusCode::ACCEPTED);

    schema::assert_server_messages_valid(&server.log());
}

// ---------------------------------------------------------------------------------------------
// sessions
// ---------------------------------------------------------------------------------------------

// 2025-11-25/basic/transports.mdx, "Session Management" 2: a request without the session
// header (other than initialize) gets 400.
#[tokio::test]
async fn a_request_without_a_session_id_gets_400() {
    let server = echo_server().await;
    let (mut peer, _) = Peer::initialized(&server, "2025-11-25").await;
    peer.session = None;
    for message in [
        request(1, "ping", Value::Null),
        notification("notifications/initialized"),
    ] {
        let response = peer.post(&message).await;
        assert_eq!(response.status(), StatusCode::BAD_REQUEST, "{message}");
        let message = expect_error(&json_of(response).await, -32600);
        assert_mentions(&message, &["Mcp-Session-Id"]);
    }

    schema::assert_server_messages_valid(&server.log());
}

// 2025-11-25/basic/transports.mdx, "Session Management" 3: an unknown or ended session id
// gets 404.
#[tokio::test]
async fn an_unknown_session_id_gets_404() {
    let server = echo_server().await;
    let (mut peer, _) = Peer::initialized(&server, "2025-11-25").await;
    peer.session = Some("no-such-session".into());
    let response = peer.post(&request(1, "ping", Value::Null)).await;
    assert_eq!(response.status(), StatusCode::NOT_FOUND);
    let body = json_of(response).await;
    assert_eq!(body["id"], json!(1));
    let message = expect_error(&body, -32001);
    assert_mentions(&message, &["no-such-session"]);

    let note = peer.post(&notification("notifications/initialized")).await;
    assert_eq!(note.status(), StatusCode::NOT_FOUND);

    schema::assert_server_messages_valid(&server.log());
}

// 2025-11-25/basic/transports.mdx, "Session Management" 3 and 5: DELETE ends the session,
// after which its id gets 404.
#[tokio::test]
async fn delete_ends_the_session_and_later_requests_get_404() {
    let server = echo_server().await;
    let (peer, _) = Peer::initialized(&server, "2025-11-25").await;
    let (other, _) = Peer::initialized(&server, "2025-11-25").await;

    let deleted = peer.delete().await;
    assert!(
        deleted.status().is_success(),
        "DELETE status {}",
        deleted.status()
    );
    let after = peer.post(&request(2, "ping", Value::Null)).await;
    assert_eq!(after.status(), StatusCode::NOT_FOUND);
    let again = peer.delete().await;
    assert_eq!(again.status(), StatusCode::NOT_FOUND, "a second DELETE");
    // Other sessions are untouched.
    other.call(3, "ping", Value::Null).await;
    assert_eq!(server.sessions().len(), 1);

    schema::assert_server_messages_valid(&server.log());
}

// 2025-11-25/basic/transports.mdx, "Session Management" 2 and 5.
#[tokio::test]
async fn delete_without_a_session_id_gets_400() {
    let server = echo_server().await;
    let (peer, _) = Peer::initialized(&server, "2025-11-25").await;
    let response = raw::client()
        .delete(server.url())
        .send()
        .await
        .expect("send DELETE");
    assert_eq!(response.status(), StatusCode::BAD_REQUEST);
    let message = expect_error(&json_of(response).await, -32600);
    assert_mentions(&message, &["Mcp-Session-Id"]);
    peer.call(1, "ping", Value::Null).await;

    schema::assert_server_messages_valid(&server.log());
}

// 2025-11-25/basic/transports.mdx, "Session Management" 3: "The server MAY terminate the
// session at any time, after which it MUST respond ... with HTTP 404".
#[tokio::test]
async fn close_session_from_the_handle_makes_the_next_request_404() {
    let server = echo_server().await;
    let (peer, _) = Peer::initialized(&server, "2025-11-25").await;
    peer.call(1, "ping", Value::Null).await;

    assert!(server.close_session(peer.session()), "the session was live");
    let response = peer.post(&request(2, "ping", Value::Null)).await;
    assert_eq!(response.status(), StatusCode::NOT_FOUND);
    expect_error(&json_of(response).await, -32001);
    assert!(!server.close_session(peer.session()), "already closed");

    // The client recovers by initializing again (same section, item 4).
    let (fresh, _) = Peer::initialized(&server, "2025-11-25").await;
    fresh.call(3, "ping", Value::Null).await;

    schema::assert_server_messages_valid(&server.log());
}

#[tokio::test]
async fn a_request_on_an_ended_session_is_logged_under_the_session_it_named() {
    let server = echo_server().await;
    let (peer, _) = Peer::initialized(&server, "2025-11-25").await;
    assert!(server.close_session(peer.session()));

    let response = peer.post(&request(7, "tools/list", Value::Null)).await;

    assert_eq!(response.status(), StatusCode::NOT_FOUND);
    let log = server.log();
    let refused = log
        .mcp()
        .method("tools/list")
        .last()
        .expect("the refused request is captured");
    assert_eq!(refused.session.as_deref(), Some(peer.session()));
    assert_eq!(
        refused.error().and_then(|e| e.get("code")),
        Some(&serde_json::json!(-32001))
    );

    schema::assert_server_messages_valid(&server.log());
}

// 2025-11-25/basic/transports.mdx, "Session Management" 3: an ended (evicted) session's id
// gets 404.
#[tokio::test]
async fn a_third_initialize_ends_the_oldest_session_when_max_sessions_is_two() {
    let server = MockMcpServer::builder().max_sessions(2).start().await;
    let (first, _) = Peer::initialized(&server, "2025-11-25").await;
    let (second, _) = Peer::initialized(&server, "2025-11-25").await;
    first.call(1, "ping", Value::Null).await;
    let (third, _) = Peer::initialized(&server, "2025-11-25").await;

    let evicted = first.post(&request(2, "ping", Value::Null)).await;
    assert_eq!(evicted.status(), StatusCode::NOT_FOUND);
    second.call(3, "ping", Value::Null).await;
    third.call(4, "ping", Value::Null).await;
    let live: Vec<String> = server.sessions().into_iter().map(|s| s.id).collect();
    assert_eq!(
        live,
        vec![second.session().to_string(), third.session().to_string()]
    );

    schema::assert_server_messages_valid(&server.log());
}

// Sessions keep what their clients sent in `initialize` (`clientInfo`, `capabilities`): past
// `max_session_bytes` of it the oldest sessions end, as past `max_sessions`, so a client that
// sends megabytes of capabilities again and again cannot grow the server without bound.
#[tokio::test]
async fn past_max_session_bytes_of_handshakes_the_oldest_session_ends() {
    let server = MockMcpServer::builder()
        .max_session_bytes(10_000)
        .start()
        .await;
    let capabilities = json!({ "experimental": { "pad": { "text": "x".repeat(4_000) } } });
    let mut peers = Vec::new();
    for _ in 0..3 {
        let mut peer = Peer::new(&server);
        let mut init = init_request("2025-11-25");
        init["params"]["capabilities"] = capabilities.clone();
        let response = peer.post(&init).await;
        assert_eq!(response.status(), StatusCode::OK, "initialize");
        let session = response
            .headers()
            .get("mcp-session-id")
            .expect("a session id");
        peer.session = Some(session.to_str().expect("ASCII").to_string());
        peer.version = Some("2025-11-25".into());
        let initialized = peer.post(&notification("notifications/initialized")).await;
        assert_eq!(initialized.status(), StatusCode::ACCEPTED);
        peers.push(peer);
    }

    // Three handshakes of 4 KB pass 10,000 bytes: the first session ended.
    let evicted = peers[0].post(&request(1, "ping", Value::Null)).await;
    assert_eq!(evicted.status(), StatusCode::NOT_FOUND);
    peers[1].call(2, "ping", Value::Null).await;
    peers[2].call(3, "ping", Value::Null).await;
    let live = server.sessions();
    assert_eq!(
        live.iter().map(|s| s.id.as_str()).collect::<Vec<_>>(),
        vec![peers[1].session(), peers[2].session()]
    );
    assert!(
        live.iter().all(|s| s.client_capabilities == capabilities),
        "the live sessions keep their capabilities whole"
    );

    // A deleted session stops counting: with the second gone, a fourth fits beside the third.
    assert!(peers[1].delete().await.status().is_success());
    let mut fourth = init_request("2025-11-25");
    fourth["params"]["capabilities"] = capabilities.clone();
    assert_eq!(
        Peer::new(&server).post(&fourth).await.status(),
        StatusCode::OK
    );
    peers[2].call(4, "ping", Value::Null).await;
    assert_eq!(server.sessions().len(), 2);
}

#[tokio::test]
async fn zero_session_limits_are_refused_naming_the_builder_method() {
    for (builder, field) in [
        (MockMcpServer::builder().max_sessions(0), "max_sessions"),
        (
            MockMcpServer::builder().max_session_bytes(0),
            "max_session_bytes",
        ),
    ] {
        let error = builder.try_start().await.expect_err("zero is refused");
        assert!(error.to_string().contains(field), "{error}");
    }
}

// ---------------------------------------------------------------------------------------------
// MCP-Protocol-Version header
// ---------------------------------------------------------------------------------------------

// 2025-11-25/basic/transports.mdx, "Protocol Version Header": an invalid or unsupported
// version MUST get 400 Bad Request.
#[tokio::test]
async fn an_unsupported_protocol_version_header_gets_400_naming_the_value() {
    let server = MockMcpServer::builder()
        .protocol_versions([ProtocolVersion::V2025_06_18, ProtocolVersion::V2025_11_25])
        .start()
        .await;
    let (mut peer, _) = Peer::initialized(&server, "2025-11-25").await;
    for bad in ["1999-01-01", "2025-03-26", "banana"] {
        peer.version = Some(bad.into());
        let response = peer.post(&request(1, "ping", Value::Null)).await;
        assert_eq!(response.status(), StatusCode::BAD_REQUEST, "{bad}");
        let message = expect_error(&json_of(response).await, -32600);
        assert_mentions(&message, &[bad, "unsupported"]);

        let stream = peer.get_stream().await;
        assert_eq!(stream.status(), StatusCode::BAD_REQUEST, "GET with {bad}");
    }

    // On initialize too: the header names a version the server does not serve.
    let init = Peer::new(&server)
        .post_with(
            raw::VERSION,
            HeaderValue::from_static("1999-01-01"),
            &init_request("2025-11-25"),
        )
        .await;
    assert_eq!(init.status(), StatusCode::BAD_REQUEST);
    assert!(init.headers().get("mcp-session-id").is_none());
    let message = expect_error(&json_of(init).await, -32600);
    assert_mentions(&message, &["1999-01-01"]);
    assert_eq!(server.sessions().len(), 1, "no session for the refused one");

    schema::assert_server_messages_valid(&server.log());
}

// 2025-11-25/basic/transports.mdx, "Protocol Version Header": the header SHOULD be the
// negotiated version; this server refuses a served version that differs from it (400).
#[tokio::test]
async fn a_protocol_version_header_that_differs_from_the_negotiated_one_gets_400() {
    let server = echo_server().await;
    let (mut peer, result) = Peer::initialized(&server, "2025-06-18").await;
    assert_eq!(result["protocolVersion"], json!("2025-06-18"));
    peer.version = Some("2025-11-25".into());
    let response = peer.post(&request(1, "ping", Value::Null)).await;
    assert_eq!(response.status(), StatusCode::BAD_REQUEST);
    let message = expect_error(&json_of(response).await, -32600);
    assert_mentions(&message, &["2025-11-25", "2025-06-18", "does not match"]);

    peer.version = Some("2025-06-18".into());
    peer.call(2, "ping", Value::Null).await;

    schema::assert_server_messages_valid(&server.log());
}

// 2025-11-25/basic/transports.mdx, "Protocol Version Header": without the header the
// server relies on the version negotiated during initialization.
#[tokio::test]
async fn a_request_without_a_protocol_version_header_is_accepted() {
    let server = echo_server().await;
    let (mut peer, _) = Peer::initialized(&server, "2025-06-18").await;
    peer.version = None;
    let body = peer.call(1, "tools/list", Value::Null).await;
    assert_eq!(body["result"]["tools"][0]["name"], json!("echo"));

    schema::assert_server_messages_valid(&server.log());
}

// 2025-11-25/basic/transports.mdx, "Protocol Version Header" and "Session Management": a
// header value that is not text (bytes past ASCII) names no version this server speaks (400)
// and no live session (404).
#[tokio::test]
async fn header_values_that_are_not_text_get_400_for_a_version_and_404_for_a_session() {
    let server = echo_server().await;
    let (mut peer, _) = Peer::initialized(&server, "2025-11-25").await;
    let not_text = HeaderValue::from_bytes(b"2025-11-25\xff")
        .expect("bytes past ASCII make a valid header value");

    peer.version = None;
    let response = peer
        .post_with(
            raw::VERSION,
            not_text.clone(),
            &request(1, "ping", Value::Null),
        )
        .await;
    assert_eq!(response.status(), StatusCode::BAD_REQUEST);
    let message = expect_error(&json_of(response).await, -32600);
    assert_mentions(&message, &["(not ASCII)", "unsupported"]);

    let response = Peer::new(&server)
        .post_with(raw::SESSION, not_text, &request(2, "ping", Value::Null))
        .await;
    assert_eq!(response.status(), StatusCode::NOT_FOUND);
    expect_error(&json_of(response).await, -32001);

    // The session itself is untouched.
    peer.version = Some("2025-11-25".into());
    peer.call(3, "ping", Value::Null).await;
    schema::assert_server_messages_valid(&server.log());
}

// ---------------------------------------------------------------------------------------------
// Origin
// ---------------------------------------------------------------------------------------------

// 2025-11-25/basic/transports.mdx, "Security Warning" 1: a present and invalid Origin MUST
// get 403; the body MAY be a JSON-RPC error without id.
#[tokio::test]
async fn a_foreign_origin_gets_403() {
    let server = echo_server().await;
    let (peer, _) = Peer::initialized(&server, "2025-11-25").await;

    let init = Peer::new(&server)
        .post_with(
            "Origin",
            HeaderValue::from_static("https://evil.example"),
            &init_request("2025-11-25"),
        )
        .await;
    assert_eq!(init.status(), StatusCode::FORBIDDEN);
    assert!(init.headers().get("mcp-session-id").is_none());
    let body = json_of(init).await;
    assert_eq!(body["id"], Value::Null);
    let message = expect_error(&body, -32600);
    assert_mentions(&message, &["https://evil.example"]);

    let rebinding = [
        "http://localhost.evil.example",
        "http://10.0.0.1:8080",
        "null",
    ];
    for origin in rebinding {
        let post = peer
            .post_with(
                "Origin",
                HeaderValue::from_str(origin).expect("a header value"),
                &request(1, "ping", Value::Null),
            )
            .await;
        assert_eq!(post.status(), StatusCode::FORBIDDEN, "POST from {origin}");
    }
    let get = peer
        .build(reqwest::Method::GET)
        .header("Accept", "text/event-stream")
        .header("Origin", "https://evil.example")
        .send()
        .await
        .expect("send GET");
    assert_eq!(get.status(), StatusCode::FORBIDDEN, "GET");
    let delete = peer
        .build(reqwest::Method::DELETE)
        .header("Origin", "https://evil.example")
        .send()
        .await
        .expect("send DELETE");
    assert_eq!(delete.status(), StatusCode::FORBIDDEN, "DELETE");
    // The refused DELETE did not end the session.
    peer.call(2, "ping", Value::Null).await;
    assert_eq!(server.sessions().len(), 1);

    schema::assert_server_messages_valid(&server.log());
}

// 2025-11-25/basic/transports.mdx, "Security Warning" 1-2: a local server serves loopback
// origins.
#[tokio::test]
async fn loopback_origins_are_accepted() {
    let server = echo_server().await;
    for origin in [
        "http://localhost:1234",
        "http://127.0.0.1",
        "http://[::1]:3000",
    ] {
        let response = Peer::new(&server)
            .post_with(
                "Origin",
                HeaderValue::from_str(origin).expect("a header value"),
                &init_request("2025-11-25"),
            )
            .await;
        assert_eq!(response.status(), StatusCode::OK, "{origin}");
        assert!(response.headers().get("mcp-session-id").is_some());
    }

    schema::assert_server_messages_valid(&server.log());
}

// 2025-11-25/basic/transports.mdx, "Security Warning" 1: validation is the server's choice;
// an allow-listed origin is valid, others still get 403.
#[tokio::test]
async fn an_allow_listed_origin_is_accepted() {
    let server = MockMcpServer::builder()
        .allow_origins(["https://app.example"])
        .start()
        .await;
    let send = |origin: &'static str| {
        Peer::new(&server)
            .post_builder()
            .header("Origin", origin)
            .body(init_request("2025-11-25").to_string())
            .send()
    };
    let allowed = send("https://app.example").await.expect("send");
    assert_eq!(allowed.status(), StatusCode::OK);
    let other = send("https://other.example").await.expect("send");
    assert_eq!(other.status(), StatusCode::FORBIDDEN);
    let prefix = send("https://app.example.evil").await.expect("send");
    assert_eq!(prefix.status(), StatusCode::FORBIDDEN, "exact match only");

    schema::assert_server_messages_valid(&server.log());
}

// ---------------------------------------------------------------------------------------------
// body limit and content type
// ---------------------------------------------------------------------------------------------

fn padded_ping(size: usize) -> String {
    let overhead = request(1, "ping", json!({ "pad": "" })).to_string().len();
    let pad = "x".repeat(size.saturating_sub(overhead));
    request(1, "ping", json!({ "pad": pad })).to_string()
}

/// The server stops reading a too-large body, so the connection cannot carry another request;
/// without `Connection: close` a client reuses it and its next request fails
/// (RFC 9112, "Tear-down": a server that closes after a response sends `close`).
fn assert_connection_close(response: &reqwest::Response) {
    assert_eq!(
        response
            .headers()
            .get("connection")
            .map(|v| v.to_str().expect("ASCII")),
        Some("close"),
        "{:?}",
        response.headers()
    );
}

#[tokio::test]
async fn a_body_over_max_body_bytes_gets_413_and_the_server_keeps_working() {
    let server = MockMcpServer::builder().max_body_bytes(1024).start().await;
    let (peer, _) = Peer::initialized(&server, "2025-11-25").await;

    let fits = padded_ping(1024);
    assert_eq!(fits.len(), 1024);
    let response = peer.post_raw(fits).await;
    assert_eq!(
        response.status(),
        StatusCode::OK,
        "exactly the limit is fine"
    );

    let body = padded_ping(4096);
    let response = peer.post_raw(body).await;
    assert_eq!(response.status(), StatusCode::PAYLOAD_TOO_LARGE);
    assert_connection_close(&response);
    let message = expect_error(&json_of(response).await, -32600);
    assert_mentions(&message, &["1024"]);
    assert_eq!(server.log().http().status(413).count(), 1);

    // The server keeps serving this session and new clients.
    peer.call(2, "ping", Value::Null).await;
    let (fresh, _) = Peer::initialized(&server, "2025-11-25").await;
    fresh.call(3, "ping", Value::Null).await;

    schema::assert_server_messages_valid(&server.log());
}

#[tokio::test]
async fn a_chunked_body_over_max_body_bytes_gets_413() {
    let server = MockMcpServer::builder().max_body_bytes(1024).start().await;
    let (peer, _) = Peer::initialized(&server, "2025-11-25").await;
    let body = padded_ping(4096).into_bytes();
    let chunks: Vec<Result<Vec<u8>, std::io::Error>> =
        body.chunks(512).map(|c| Ok(c.to_vec())).collect();
    let streamed = reqwest::Body::wrap_stream(futures::stream::iter(chunks));

    let response = peer.post_raw(streamed).await;
    assert_eq!(response.status(), StatusCode::PAYLOAD_TOO_LARGE);
    assert_connection_close(&response);
    let message = expect_error(&json_of(response).await, -32600);
    assert_mentions(&message, &["1024"]);
    let exchange = server.log();
    let record = exchange
        .http()
        .status(413)
        .first()
        .expect("the 413 is logged");
    assert!(
        record.request_header("content-length").is_none(),
        "the body was really chunked: {:?}",
        record.request_headers
    );

    // A small chunked body is fine, and the server keeps working.
    let small = request(2, "ping", Value::Null).to_string().into_bytes();
    let chunks: Vec<Result<Vec<u8>, std::io::Error>> =
        small.chunks(8).map(|c| Ok(c.to_vec())).collect();
    let response = peer
        .post_raw(reqwest::Body::wrap_stream(futures::stream::iter(chunks)))
        .await;
    assert_eq!(response.status(), StatusCode::OK);
    assert_eq!(json_of(response).await["result"], json!({}));
    peer.call(3, "ping", Value::Null).await;

    schema::assert_server_messages_valid(&server.log());
}

// 2025-11-25/basic/transports.mdx, "Sending Messages to the Server": the body is a JSON-RPC
// message; anything not sent as `application/json` is refused (415).
#[tokio::test]
async fn a_text_plain_body_gets_415() {
    let server = echo_server().await;
    let (peer, _) = Peer::initialized(&server, "2025-11-25").await;
    let response = peer
        .build(reqwest::Method::POST)
        .header("Content-Type", "text/plain")
        .header("Accept", raw::ACCEPT_BOTH)
        .body(request(1, "ping", Value::Null).to_string())
        .send()
        .await
        .expect("send POST");
    assert_eq!(response.status(), StatusCode::UNSUPPORTED_MEDIA_TYPE);
    let message = expect_error(&json_of(response).await, -32600);
    assert_mentions(&message, &["application/json"]);
    assert_eq!(server.log().mcp().method("ping").count(), 0);

    schema::assert_server_messages_valid(&server.log());
}

#[tokio::test]
async fn a_body_without_content_type_gets_415() {
    let server = echo_server().await;
    let (peer, _) = Peer::initialized(&server, "2025-11-25").await;
    let response = peer
        .build(reqwest::Method::POST)
        .header("Accept", raw::ACCEPT_BOTH)
        .body(request(1, "ping", Value::Null).to_string())
        .send()
        .await
        .expect("send POST");
    assert_eq!(response.status(), StatusCode::UNSUPPORTED_MEDIA_TYPE);
    expect_error(&json_of(response).await, -32600);

    schema::assert_server_messages_valid(&server.log());
}

#[tokio::test]
async fn a_json_content_type_with_parameters_is_accepted() {
    let server = echo_server().await;
    let (peer, _) = Peer::initialized(&server, "2025-11-25").await;
    let response = peer
        .build(reqwest::Method::POST)
        .header("Content-Type", "Application/JSON; charset=utf-8")
        .header("Accept", raw::ACCEPT_BOTH)
        .body(request(1, "ping", Value::Null).to_string())
        .send()
        .await
        .expect("send POST");
    assert_eq!(response.status(), StatusCode::OK);

    schema::assert_server_messages_valid(&server.log());
}

// ---------------------------------------------------------------------------------------------
// malformed and invalid messages
// ---------------------------------------------------------------------------------------------

// 2025-11-25/basic/transports.mdx, "Sending Messages to the Server" 4 (an unacceptable input
// gets an HTTP error, body a JSON-RPC error without id; basic/index.mdx "Error Responses":
// `id?: string | number`, so not JSON-RPC 2.0's `null`); JSON-RPC 2.0: parse error -32700.
#[tokio::test]
async fn malformed_json_gets_400_parse_error_without_an_id_and_is_captured_as_invalid() {
    let server = echo_server().await;
    let (peer, _) = Peer::initialized(&server, "2025-11-25").await;
    let text = r#"{"jsonrpc": "2.0", "id": 1, "method": "ping""#;
    let response = peer.post_raw(text).await;
    assert_eq!(response.status(), StatusCode::BAD_REQUEST);
    let body = json_of(response).await;
    assert!(
        !body.as_object().expect("object").contains_key("id"),
        "{body}"
    );
    let message = expect_error(&body, -32700);
    assert_mentions(&message, &["Parse error"]);

    let log = server.log();
    let invalid = log.mcp().kind(RpcKind::Invalid).records();
    assert_eq!(invalid.len(), 1, "{invalid:?}");
    let (_, record) = invalid[0];
    assert_eq!(record.message, json!(text));
    let carrier = record.carried_by.expect("carried by an http record");
    match &log.get(carrier).expect("carrier kept").entry {
        Entry::Http(h) => {
            assert_eq!(h.status, Some(400));
            assert_eq!(h.request_body.as_deref(), Some(&json!(text)));
        }
        other => panic!("carried_by points at {other:?}"),
    }

    schema::assert_server_messages_valid(&server.log());
}

// 2025-11-25/basic/index.mdx, "Requests" (`jsonrpc: "2.0"`, a string or integer id that MUST
// NOT be null, object params) and JSON-RPC 2.0 "Request object": invalid shapes get -32600
// naming the member at fault; "Error Responses": the id is echoed when it could be read.
#[tokio::test]
async fn invalid_json_rpc_shapes_get_400_invalid_request_naming_the_member() {
    let server = echo_server().await;
    let (peer, _) = Peer::initialized(&server, "2025-11-25").await;
    let cases = [
        (json!({ "id": 1, "method": "ping" }), "`jsonrpc`", json!(1)),
        (
            json!({ "jsonrpc": "1.0", "id": 1, "method": "ping" }),
            "`jsonrpc`",
            json!(1),
        ),
        (
            json!({ "jsonrpc": "2.0", "id": null, "method": "ping" }),
            "`id`",
            Value::Null,
        ),
        (
            json!({ "jsonrpc": "2.0", "id": 2, "method": "ping", "params": [1, 2] }),
            "`params`",
            json!(2),
        ),
        (
            json!({ "jsonrpc": "2.0", "id": 3, "method": 7 }),
            "`method`",
            json!(3),
        ),
        (json!({ "jsonrpc": "2.0" }), "`method`", Value::Null),
        (json!("ping"), "JSON object", Value::Null),
    ];
    for (message, needle, id) in &cases {
        let response = peer.post(message).await;
        assert_eq!(response.status(), StatusCode::BAD_REQUEST, "{message}");
        let body = json_of(response).await;
        assert_eq!(&body["id"], id, "{message}: {body}");
        let text = expect_error(&body, -32600);
        assert_mentions(&text, &[needle]);
    }
    assert_eq!(
        server.log().mcp().kind(RpcKind::Invalid).count(),
        cases.len()
    );

    schema::assert_server_messages_valid(&server.log());
}

// ---------------------------------------------------------------------------------------------
// methods
// ---------------------------------------------------------------------------------------------

// JSON-RPC 2.0 "Error object" (-32601 Method not found) and 2025-11-25/basic/index.mdx,
// "Error Responses" (same id as the request); legacy HTTP prescribes no status, this server
// answers 200 with the error.
#[tokio::test]
async fn an_unknown_method_gets_method_not_found_in_a_200_response() {
    let server = echo_server().await;
    let (peer, _) = Peer::initialized(&server, "2025-11-25").await;
    let body = peer.call(1, "resources/teleport", json!({})).await;
    let message = expect_error(&body, -32601);
    assert_mentions(&message, &["resources/teleport"]);
    assert!(
        !message.contains("did you mean"),
        "no method is near: {message}"
    );
    // A likely typo gets the method meant.
    let body = peer.call(2, "resources/lst", json!({})).await;
    let message = expect_error(&body, -32601);
    assert_mentions(&message, &["did you mean `resources/list`?"]);

    schema::assert_server_messages_valid(&server.log());
}

// 2025-11-25/server/tools.mdx, "Error Handling": an unknown tool is -32602.
#[tokio::test]
async fn calling_an_unknown_tool_gets_invalid_params() {
    let server = MockMcpServer::builder()
        .tool(Tool::echo())
        .tool(Tool::new("hidden").draft())
        .start()
        .await;
    let (peer, _) = Peer::initialized(&server, "2025-11-25").await;
    // The message says why: the nearest published name, or that the tool is a draft.
    let why = [
        (1, "nope", "did you mean `echo`?"),
        (
            2,
            "hidden",
            "exists on this server as a draft and is not published",
        ),
    ];
    for (id, name, hint) in why {
        let body = peer
            .call(id, "tools/call", json!({ "name": name, "arguments": {} }))
            .await;
        let message = expect_error(&body, -32602);
        assert_mentions(&message, &[name, hint]);
        assert_eq!(body["error"]["data"]["name"], name, "{body}");
    }

    schema::assert_server_messages_valid(&server.log());
}

// 2025-11-25/server/tools.mdx, "Calling Tools" (`arguments` is an object) and "Error
// Handling" (a malformed request is a protocol error, -32602).
#[tokio::test]
async fn tools_call_with_arguments_that_are_not_an_object_gets_invalid_params() {
    let server = echo_server().await;
    let (peer, _) = Peer::initialized(&server, "2025-11-25").await;
    for (id, arguments) in [(1, json!(["hi"])), (2, json!("hi")), (3, json!(4))] {
        let body = peer
            .call(
                id,
                "tools/call",
                json!({ "name": "echo", "arguments": arguments }),
            )
            .await;
        let message = expect_error(&body, -32602);
        assert_mentions(&message, &["arguments", "object"]);
    }
    assert_eq!(server.call_count("echo"), 0);

    schema::assert_server_messages_valid(&server.log());
}

// 2025-11-25/server/utilities/pagination.mdx, "Error Handling": an invalid cursor is -32602.
#[tokio::test]
async fn tools_list_with_a_cursor_gets_invalid_params() {
    let server = echo_server().await;
    let (peer, _) = Peer::initialized(&server, "2025-11-25").await;
    let body = peer
        .call(1, "tools/list", json!({ "cursor": "page-2" }))
        .await;
    let message = expect_error(&body, -32602);
    assert_mentions(&message, &["cursor", "page-2"]);

    schema::assert_server_messages_valid(&server.log());
}

// 2025-11-25/basic/utilities/ping.mdx, "Behavior Requirements": ping gets an empty result.
#[tokio::test]
async fn ping_returns_an_empty_result() {
    let server = echo_server().await;
    let (peer, _) = Peer::initialized(&server, "2025-11-25").await;
    let body = peer.call(41, "ping", Value::Null).await;
    assert_eq!(body, json!({ "jsonrpc": "2.0", "id": 41, "result": {} }));
    let body = peer.call(42, "ping", json!({})).await;
    assert_eq!(body["result"], json!({}));

    schema::assert_server_messages_valid(&server.log());
}

// ---------------------------------------------------------------------------------------------
// batches
// ---------------------------------------------------------------------------------------------

// 2025-06-18/basic/transports.mdx and 2025-11-25/basic/transports.mdx, "Sending Messages to
// the Server" 3: the body MUST be a single message (batching was removed in 2025-06-18).
#[tokio::test]
async fn a_batch_in_a_2025_06_18_or_2025_11_25_session_gets_400_batches_not_supported() {
    let server = echo_server().await;
    for version in ["2025-06-18", "2025-11-25"] {
        let (peer, _) = Peer::initialized(&server, version).await;
        let batch = json!([
            request(1, "ping", Value::Null),
            request(2, "tools/list", Value::Null)
        ]);
        let response = peer.post(&batch).await;
        assert_eq!(response.status(), StatusCode::BAD_REQUEST, "{version}");
        let body = json_of(response).await;
        assert!(body.is_object(), "one error, not a batch: {body}");
        assert_eq!(body["id"], Value::Null);
        let message = expect_error(&body, -32600);
        assert_mentions(&message, &["batches are not supported", version]);
    }
    // Nothing in the refused batches ran.
    assert!(
        server
            .log()
            .mcp()
            .method("tools/list")
            .all()
            .iter()
            .all(|m| m.result().is_none())
    );

    schema::assert_server_messages_valid(&server.log());
}

fn served_2025_03_26() -> mcp_decoy::MockMcpServerBuilder {
    MockMcpServer::builder()
        .tool(Tool::echo())
        .protocol_versions([ProtocolVersion::V2025_03_26])
}

// 2025-03-26/basic/transports.mdx, "Sending Messages to the Server" 3 and 5: a batch of
// requests and notifications is allowed; JSON-RPC 2.0 "Batch": one response per request,
// none for notifications, matched by id.
#[tokio::test]
async fn a_batch_in_a_2025_03_26_session_gets_one_response_per_request() {
    let server = served_2025_03_26().start().await;
    let (peer, result) = Peer::initialized(&server, "2025-03-26").await;
    assert_eq!(result["protocolVersion"], json!("2025-03-26"));
    assert!(
        peer.version.is_none(),
        "a 2025-03-26 client sends no header"
    );

    let batch = json!([
        request(1, "ping", Value::Null),
        notification("notifications/initialized"),
        request("b", "tools/list", Value::Null),
    ]);
    let response = peer.post(&batch).await;
    assert_eq!(response.status(), StatusCode::OK);
    assert!(raw::content_type(response.headers()).starts_with("application/json"));
    let body = json_of(response).await;
    let responses = body.as_array().expect("a JSON array of responses");
    assert_eq!(responses.len(), 2, "{body}");
    let by_id = |id: Value| {
        responses
            .iter()
            .find(|r| r["id"] == id)
            .unwrap_or_else(|| panic!("no response with id {id} in {body}"))
    };
    assert_eq!(by_id(json!(1))["result"], json!({}));
    assert_eq!(
        by_id(json!("b"))["result"]["tools"][0]["name"],
        json!("echo")
    );
    assert_eq!(server.log().mcp().method("ping").count(), 1);

    schema::assert_server_messages_valid(&server.log());
}

// 2025-03-26/basic/transports.mdx, "Sending Messages to the Server" 4: input made only of
// notifications/responses gets 202 with no body.
#[tokio::test]
async fn a_batch_of_notifications_in_a_2025_03_26_session_gets_202() {
    let server = served_2025_03_26().start().await;
    let (peer, _) = Peer::initialized(&server, "2025-03-26").await;
    let batch = json!([
        notification("notifications/initialized"),
        { "jsonrpc": "2.0", "id": "server-1", "result": {} }
    ]);
    let response = peer.post(&batch).await;
    assert_eq!(response.status(), StatusCode::ACCEPTED);
    assert!(response.bytes().await.expect("body").is_empty());

    schema::assert_server_messages_valid(&server.log());
}

// 2025-03-26/basic/lifecycle.mdx, "Initialization": the initialize request MUST NOT be part
// of a JSON-RPC batch.
#[tokio::test]
async fn initialize_inside_a_batch_gets_an_error_for_that_entry() {
    let server = served_2025_03_26().start().await;
    let (peer, _) = Peer::initialized(&server, "2025-03-26").await;
    let batch = json!([init_request("2025-03-26"), request(10, "ping", Value::Null)]);
    let response = peer.post(&batch).await;
    assert_eq!(response.status(), StatusCode::OK);
    assert!(response.headers().get("mcp-session-id").is_none());
    let body = json_of(response).await;
    let responses = body.as_array().expect("a JSON array of responses");
    assert_eq!(responses.len(), 2, "{body}");
    let init = responses
        .iter()
        .find(|r| r["id"] == json!(0))
        .expect("an entry for initialize");
    let message = expect_error(init, -32600);
    assert_mentions(&message, &["initialize", "batch"]);
    let ping = responses
        .iter()
        .find(|r| r["id"] == json!(10))
        .expect("an entry for ping");
    assert_eq!(ping["result"], json!({}));
    assert_eq!(server.sessions().len(), 1, "no session opened by the batch");

    // Without a session a batch cannot initialize either.
    let sessionless = Peer::new(&server)
        .post(&json!([init_request("2025-03-26")]))
        .await;
    assert_eq!(sessionless.status(), StatusCode::BAD_REQUEST);
    let message = expect_error(&json_of(sessionless).await, -32600);
    assert_mentions(&message, &["initialize"]);

    schema::assert_server_messages_valid(&server.log());
}

// JSON-RPC 2.0 "Batch": an empty array is an invalid request.
#[tokio::test]
async fn an_empty_batch_gets_400() {
    let server = served_2025_03_26().start().await;
    let (peer, _) = Peer::initialized(&server, "2025-03-26").await;
    let response = peer.post_raw("[]").await;
    assert_eq!(response.status(), StatusCode::BAD_REQUEST);
    let body = json_of(response).await;
    assert_eq!(body["id"], Value::Null);
    let message = expect_error(&body, -32600);
    assert_mentions(&message, &["empty"]);

    schema::assert_server_messages_valid(&server.log());
}

// 2025-03-26/basic/transports.mdx, "Session Management" 3: an ended session's id gets 404,
// for a batch as for a single message.
#[tokio::test]
async fn a_batch_naming_an_ended_session_gets_404() {
    let server = served_2025_03_26().start().await;
    let (peer, _) = Peer::initialized(&server, "2025-03-26").await;
    assert!(server.close_session(peer.session()));
    let batch = json!([request(1, "ping", Value::Null)]);
    let response = peer.post(&batch).await;
    assert_eq!(response.status(), StatusCode::NOT_FOUND);
    let message = expect_error(&json_of(response).await, -32001);
    assert_mentions(&message, &[peer.session()]);

    schema::assert_server_messages_valid(&server.log());
}

// ---------------------------------------------------------------------------------------------
// GET stream
// ---------------------------------------------------------------------------------------------

async fn open_stream(peer: &Peer) -> sse::Events {
    let response = peer.get_stream().await;
    assert_eq!(response.status(), StatusCode::OK, "GET status");
    assert!(
        raw::content_type(response.headers()).starts_with("text/event-stream"),
        "{:?}",
        response.headers()
    );
    event_stream(response)
}

async fn expect_list_changed(events: &mut sse::Events) {
    let event = events
        .next(raw::WAIT)
        .await
        .expect("an event before the stream ends");
    assert_eq!(event.event.as_deref(), Some("message"));
    let message = event.json();
    assert_eq!(
        message,
        json!({ "jsonrpc": "2.0", "method": "notifications/tools/list_changed" })
    );
}

// 2025-11-25/basic/transports.mdx, "Listening for Messages from the Server" 1-4: GET opens
// an SSE stream that carries server notifications.
#[tokio::test]
async fn get_opens_the_session_stream_and_list_changed_arrives_on_it() {
    let server = echo_server().await;
    let (peer, _) = Peer::initialized(&server, "2025-11-25").await;
    let mut events = open_stream(&peer).await;
    assert!(server.sessions()[0].stream_open);

    server.notify_list_changed(Listing::Tools);
    expect_list_changed(&mut events).await;
    let log = server
        .wait_for(
            |log| {
                log.mcp()
                    .method("notifications/tools/list_changed")
                    .from_server()
                    .count()
                    == 1
            },
            raw::WAIT,
        )
        .await
        .expect("the sent notification is captured");
    let sent = log
        .mcp()
        .method("notifications/tools/list_changed")
        .first()
        .expect("captured");
    assert_eq!(sent.session.as_deref(), Some(peer.session()));

    schema::assert_server_messages_valid(&server.log());
}

// 2025-11-25/server/tools.mdx, "List Changed Notification".
#[tokio::test]
async fn publishing_a_draft_sends_list_changed_on_the_stream() {
    let server = MockMcpServer::builder()
        .tool(Tool::new("later").draft())
        .start()
        .await;
    let (peer, _) = Peer::initialized(&server, "2025-11-25").await;
    let listed = peer.call(1, "tools/list", Value::Null).await;
    assert_eq!(listed["result"]["tools"], json!([]));
    let mut events = open_stream(&peer).await;

    server.publish_tool("later").expect("publish the draft");
    expect_list_changed(&mut events).await;
    let listed = peer.call(2, "tools/list", Value::Null).await;
    assert_eq!(listed["result"]["tools"][0]["name"], json!("later"));

    schema::assert_server_messages_valid(&server.log());
}

// 2025-11-25/basic/transports.mdx, "Listening for Messages from the Server" 4: the server
// MAY send notifications on the stream; one queued while no stream was open is not lost.
#[tokio::test]
async fn a_notification_queued_before_the_get_is_delivered_once_it_opens() {
    let server = echo_server().await;
    let (peer, _) = Peer::initialized(&server, "2025-11-25").await;
    server.notify_list_changed(Listing::Tools);
    let mut events = open_stream(&peer).await;
    expect_list_changed(&mut events).await;
    assert!(
        events.try_next(Duration::from_millis(200)).await.is_err(),
        "exactly one notification was queued"
    );

    schema::assert_server_messages_valid(&server.log());
}

// 2025-11-25/basic/transports.mdx, "Session Management" 2.
#[tokio::test]
async fn get_without_a_session_id_gets_400() {
    let server = echo_server().await;
    let response = Peer::new(&server).get_stream().await;
    assert_eq!(response.status(), StatusCode::BAD_REQUEST);
    let message = expect_error(&json_of(response).await, -32600);
    assert_mentions(&message, &["Mcp-Session-Id"]);

    let mut unknown = Peer::new(&server);
    unknown.session = Some("gone".into());
    assert_eq!(unknown.get_stream().await.status(), StatusCode::NOT_FOUND);

    schema::assert_server_messages_valid(&server.log());
}

// 2025-11-25/basic/transports.mdx, "Listening for Messages from the Server" 2: the client
// MUST accept `text/event-stream`; this server refuses with 406 otherwise.
#[tokio::test]
async fn get_accepting_only_json_gets_406() {
    let server = echo_server().await;
    let (peer, _) = Peer::initialized(&server, "2025-11-25").await;
    let response = peer
        .build(reqwest::Method::GET)
        .header("Accept", "application/json")
        .send()
        .await
        .expect("send GET");
    assert_eq!(response.status(), StatusCode::NOT_ACCEPTABLE);
    let message = expect_error(&json_of(response).await, -32600);
    assert_mentions(&message, &["text/event-stream"]);
    assert!(!server.sessions()[0].stream_open);

    for accept in ["text/*", "*/*", "application/json, text/event-stream;q=0.5"] {
        let response = peer
            .build(reqwest::Method::GET)
            .header("Accept", accept)
            .send()
            .await
            .expect("send GET");
        assert_eq!(response.status(), StatusCode::OK, "Accept: {accept}");
    }

    schema::assert_server_messages_valid(&server.log());
}

// 2025-11-25/basic/transports.mdx, "Listening for Messages from the Server" 2: the client
// MUST include an `Accept` header listing `text/event-stream`. A GET with none (reqwest
// always sends `*/*`, so this one is written by hand) is no stream request: 406.
#[tokio::test]
async fn get_without_an_accept_header_gets_406_and_opens_no_stream() {
    let server = echo_server().await;
    let (peer, _) = Peer::initialized(&server, "2025-11-25").await;
    let session = peer.session.clone().expect("a session id");
    let mut get = wire::Wire::connect(&wire::authority(&peer.url)).await;
    get.request(
        "GET",
        "/mcp",
        &[
            ("mcp-session-id", &session),
            ("mcp-protocol-version", "2025-11-25"),
        ],
        "",
    )
    .await;
    let answer = get.response().await;
    assert_eq!(answer.status, 406, "{answer:?}");
    let body: Value = serde_json::from_str(&answer.body).expect("a JSON error body");
    let message = expect_error(&body, -32600);
    assert_mentions(&message, &["Accept", "text/event-stream"]);
    assert!(!server.sessions()[0].stream_open);
}

// 2025-11-25/basic/transports.mdx, "Multiple Connections" 2: a message goes on one stream
// only, so a second GET takes over and the first one ends.
#[tokio::test]
async fn a_second_get_takes_over_and_the_first_stream_ends() {
    let server = echo_server().await;
    let (peer, _) = Peer::initialized(&server, "2025-11-25").await;
    let mut first = open_stream(&peer).await;
    let mut second = open_stream(&peer).await;
    assert!(
        first.next(raw::WAIT).await.is_none(),
        "the first stream ends when the second opens"
    );
    server.notify_list_changed(Listing::Tools);
    expect_list_changed(&mut second).await;

    schema::assert_server_messages_valid(&server.log());
}

// 2025-11-25/basic/transports.mdx, "Session Management" 3 and "Sending Messages to the
// Server" 6 (the server MAY terminate the stream when the session ends).
#[tokio::test]
async fn delete_ends_the_open_get_stream() {
    let server = echo_server().await;
    let (peer, _) = Peer::initialized(&server, "2025-11-25").await;
    let mut events = open_stream(&peer).await;
    let deleted = peer.delete().await;
    assert!(deleted.status().is_success(), "{}", deleted.status());
    assert!(
        events.next(raw::WAIT).await.is_none(),
        "the stream ends with its session"
    );
    let log = server
        .wait_for(
            |log| {
                log.records()
                    .iter()
                    .any(|r| matches!(&r.entry, Entry::Http(h) if h.kind == HttpKind::StreamEnd))
            },
            raw::WAIT,
        )
        .await
        .expect("a stream_end record");
    let get = log.http().method("GET").first().expect("the GET exchange");
    assert_eq!(get.status, Some(200));

    schema::assert_server_messages_valid(&server.log());
}

#[tokio::test]
async fn close_session_from_the_handle_ends_the_open_get_stream() {
    let server = echo_server().await;
    let (peer, _) = Peer::initialized(&server, "2025-11-25").await;
    let mut events = open_stream(&peer).await;
    server.close_session(peer.session());
    assert!(events.next(raw::WAIT).await.is_none());

    schema::assert_server_messages_valid(&server.log());
}

// ---------------------------------------------------------------------------------------------
// capture
// ---------------------------------------------------------------------------------------------

#[tokio::test]
async fn each_exchange_is_one_http_record_with_method_path_status_headers_and_bodies() {
    let server = echo_server().await;
    let (peer, _) = Peer::initialized(&server, "2025-11-25").await;
    let ping = request(9, "ping", Value::Null);
    let answer = json_of(peer.post(&ping).await).await;
    let deleted = peer.delete().await;
    assert!(deleted.status().is_success());

    let log = server.log();
    let http = log.http();
    http.assert_count(4);
    let methods: Vec<&str> = http.all().iter().map(|h| h.method.as_str()).collect();
    assert_eq!(methods, ["POST", "POST", "POST", "DELETE"]);
    assert!(http.all().iter().all(|h| h.path == "/mcp"));

    let init = http.all()[0];
    assert_eq!(init.status, Some(200));
    assert_eq!(
        init.response_header("Mcp-Session-Id"),
        Some(peer.session()),
        "response headers are captured"
    );
    assert_eq!(
        init.request_body.as_ref().map(|b| b["method"].clone()),
        Some(json!("initialize"))
    );

    let initialized = http.all()[1];
    assert_eq!(initialized.status, Some(202));
    assert_eq!(initialized.response_body, None);

    let exchange = http.all()[2];
    assert_eq!(exchange.status, Some(200));
    assert_eq!(
        exchange.request_header("mcp-session-id"),
        Some(peer.session())
    );
    assert_eq!(
        exchange.request_header("MCP-Protocol-Version"),
        Some("2025-11-25")
    );
    assert_eq!(
        exchange.request_header("content-type"),
        Some("application/json")
    );
    assert!(
        exchange
            .response_header("content-type")
            .is_some_and(|v| v.starts_with("application/json"))
    );
    assert_eq!(exchange.request_body.as_deref(), Some(&ping));
    assert_eq!(exchange.response_body.as_deref(), Some(&answer));
    assert!(exchange.duration_ms.is_some());

    let delete = http.all()[3];
    assert_eq!(delete.status, Some(deleted.status().as_u16()));
    assert_eq!(delete.request_body, None);

    schema::assert_server_messages_valid(&server.log());
}

#[tokio::test]
async fn an_mcp_record_is_carried_by_the_http_record_of_its_exchange() {
    let server = echo_server().await;
    let (peer, _) = Peer::initialized(&server, "2025-11-25").await;
    peer.call(5, "tools/list", Value::Null).await;

    let log = server.log();
    let http_ids: Vec<u64> = log
        .records()
        .iter()
        .filter(|r| matches!(&r.entry, Entry::Http(h) if h.kind == HttpKind::Exchange))
        .map(|r| r.id)
        .collect();
    assert_eq!(http_ids.len(), 3);
    let messages = log.mcp().from_client().records();
    let methods: Vec<_> = messages
        .iter()
        .map(|(_, m)| m.method.as_deref().unwrap_or("-"))
        .collect();
    assert_eq!(
        methods,
        ["initialize", "notifications/initialized", "tools/list"]
    );
    for ((record, message), carrier) in messages.iter().zip(&http_ids) {
        assert_eq!(message.carried_by, Some(*carrier), "{message:?}");
        assert!(record.id > *carrier, "the exchange is recorded first");
    }
    let list = log.mcp().method("tools/list").first().expect("tools/list");
    assert_eq!(list.session.as_deref(), Some(peer.session()));
    assert_eq!(list.protocol_version.as_deref(), Some("2025-11-25"));
    assert_eq!(list.rpc_id(), Some(&json!(5)));
    assert!(list.result().is_some());

    schema::assert_server_messages_valid(&server.log());
}

#[tokio::test]
async fn a_finished_sse_response_produces_a_stream_end_record_for_its_exchange() {
    let server = MockMcpServer::builder()
        .response_mode(ResponseMode::Sse)
        .start()
        .await;
    let (peer, _) = Peer::initialized(&server, "2025-11-25").await;
    let response = peer.post(&request(1, "ping", Value::Null)).await;
    assert!(raw::content_type(response.headers()).starts_with("text/event-stream"));
    let mut events = event_stream(response);
    assert_eq!(
        events.next(raw::WAIT).await.expect("the response").json()["result"],
        json!({})
    );
    assert!(events.next(raw::WAIT).await.is_none(), "the stream ends");

    let is_ping_exchange = |log: &mcp_decoy::log::Log| {
        let carrier = log.mcp().method("ping").first()?.carried_by?;
        log.records().iter().find_map(|r| match &r.entry {
            Entry::Http(h) if h.kind == HttpKind::StreamEnd && h.stream_of == Some(carrier) => {
                Some((carrier, r.id, h.clone()))
            }
            _ => None,
        })
    };
    let log = server
        .wait_for(|log| is_ping_exchange(log).is_some(), raw::WAIT)
        .await
        .expect("a stream_end record for the ping exchange");
    let (carrier, end_id, end) = is_ping_exchange(&log).expect("found above");
    assert!(end_id > carrier);
    assert_eq!(end.method, "POST");
    assert_eq!(end.path, "/mcp");
    assert!(end.duration_ms.is_some());
    match &log.get(carrier).expect("exchange kept").entry {
        Entry::Http(h) => {
            assert_eq!(h.kind, HttpKind::Exchange);
            assert_eq!(h.status, Some(200));
            assert!(
                h.response_header("content-type")
                    .is_some_and(|v| v.starts_with("text/event-stream"))
            );
        }
        other => panic!("stream_of points at {other:?}"),
    }
    // Stream ends are not exchanges.
    assert_eq!(log.http().count(), 3);

    schema::assert_server_messages_valid(&server.log());
}

#[tokio::test]
async fn options_requests_are_not_logged() {
    let server = echo_server().await;
    let response = raw::client()
        .request(reqwest::Method::OPTIONS, server.url())
        .header("Origin", "http://localhost:3000")
        .header("Access-Control-Request-Method", "POST")
        .send()
        .await
        .expect("send OPTIONS");
    assert_ne!(response.status(), StatusCode::INTERNAL_SERVER_ERROR);
    let (_peer, _) = Peer::initialized(&server, "2025-11-25").await;

    let log = server.log();
    assert_eq!(log.http().method("OPTIONS").count(), 0);
    assert_eq!(log.http().count(), 2, "the POSTs after it are logged");

    schema::assert_server_messages_valid(&server.log());
}

#[tokio::test]
async fn log_limit_keeps_only_the_newest_records() {
    let server = MockMcpServer::builder().log_limit(5).start().await;
    let (peer, _) = Peer::initialized(&server, "2025-11-25").await;
    for id in 1..=4 {
        peer.call(id, "ping", Value::Null).await;
    }
    let log = server.log();
    let records = log.records();
    assert_eq!(records.len(), 5);
    assert_eq!(log.mcp().method("initialize").count(), 0, "oldest dropped");
    let ids: Vec<u64> = records.iter().map(|r| r.id).collect();
    assert!(
        ids.windows(2).all(|w| w[1] == w[0] + 1),
        "the newest, contiguous: {ids:?}"
    );
    let last = log.mcp().last().expect("an mcp record");
    assert_eq!(last.rpc_id(), Some(&json!(4)));
    assert_eq!(
        records.last().map(|r| r.id),
        log.mcp().records().last().map(|(r, _)| r.id)
    );

    schema::assert_server_messages_valid(&server.log());
}

// ---------------------------------------------------------------------------------------------
// routing
// ---------------------------------------------------------------------------------------------

// 2025-11-25/basic/transports.mdx, "Streamable HTTP": one endpoint for POST and GET (DELETE
// optional); other methods are not served.
#[tokio::test]
async fn methods_other_than_get_post_and_delete_get_405() {
    let server = echo_server().await;
    let (peer, _) = Peer::initialized(&server, "2025-11-25").await;
    for method in [reqwest::Method::PUT, reqwest::Method::PATCH] {
        let response = peer
            .build(method.clone())
            .header("Content-Type", "application/json")
            .body(request(1, "ping", Value::Null).to_string())
            .send()
            .await
            .expect("send request");
        assert_eq!(
            response.status(),
            StatusCode::METHOD_NOT_ALLOWED,
            "{method}"
        );
        let allow = response
            .headers()
            .get("allow")
            .map(|v| v.to_str().expect("ASCII").to_string())
            .unwrap_or_default();
        for served in ["GET", "POST", "DELETE"] {
            assert!(allow.contains(served), "{method}: Allow `{allow}`");
        }
    }

    schema::assert_server_messages_valid(&server.log());
}

#[tokio::test]
async fn an_unknown_path_gets_404() {
    let server = echo_server().await;
    let client = raw::client();
    for path in ["/", "/mcp/extra", "/sse", "/messages"] {
        let response = client
            .post(format!("{}{path}", server.base_url()))
            .header("Content-Type", "application/json")
            .body(init_request("2025-11-25").to_string())
            .send()
            .await
            .expect("send POST");
        assert_eq!(response.status(), StatusCode::NOT_FOUND, "{path}");
        assert!(response.headers().get("mcp-session-id").is_none());
    }
    assert!(server.sessions().is_empty());

    schema::assert_server_messages_valid(&server.log());
}

// 2025-11-25/basic/transports.mdx, "Streamable HTTP" (POST and GET, DELETE optional) and
// "Multiple Connections": HEAD is not served, and in particular must not open a stream that
// takes over (and so ends) the client's real GET stream.
#[tokio::test]
async fn head_gets_405_and_leaves_the_open_stream_alone() {
    let server = echo_server().await;
    let (peer, _) = Peer::initialized(&server, "2025-11-25").await;
    let mut events = open_stream(&peer).await;
    let head = peer
        .build(reqwest::Method::HEAD)
        .header("Accept", "text/event-stream")
        .send()
        .await
        .expect("send HEAD");
    assert_eq!(head.status(), StatusCode::METHOD_NOT_ALLOWED);
    assert!(
        events.try_next(Duration::from_millis(200)).await.is_err(),
        "the GET stream is still open"
    );
    server.notify_list_changed(Listing::Tools);
    expect_list_changed(&mut events).await;

    schema::assert_server_messages_valid(&server.log());
}
