//! The relay (`relay_to`) with real clients and real upstreams: the rmcp client talks to an
//! rmcp server through the decoy, in both of the server's response modes, and the capture
//! holds both layers (the `http` exchanges with the upstream's status and timing, the `mcp`
//! messages as for a mock). Then what a relay adds on the way: Origin rewriting, faults,
//! and upstream failures explained as 502 with a named cause.

use crate::common;

use common::upstream::{Mode, failure_of, rmcp_upstream};
use common::{Answers, Heard, call, connect_answering};
use mcp_decoy::log::{Direction, Era, FailureCause, RequestEnd};
use mcp_decoy::{Fault, FaultRule, MockMcpServer, Tool};
use rmcp::model::{NumberOrString, ProgressToken, RequestMetaObject};
use serde_json::json;

async fn relay_to(url: &str) -> MockMcpServer {
    MockMcpServer::builder().relay_to(url).start().await
}

/// A session of the rmcp client through the relay: tools/list, two calls, one with
/// progress over the call's event stream; the checks common to both response modes.
async fn session_through(relay: &MockMcpServer) {
    let (client, mut hearing) = connect_answering(&relay.url(), Answers::default()).await;
    let tools = common::list_tools_with(&client).await;
    assert_eq!(tools, ["echo", "work"]);
    let echoed = common::call_with(&client, "echo", json!({ "message": "through" })).await;
    assert_eq!(common::text(&echoed), "through");
    let token = ProgressToken(NumberOrString::String("p-1".into()));
    let mut work = call("work", json!({}));
    work.meta = Some(RequestMetaObject::with_progress_token(token));
    let done = client.call_tool(work).await.expect("work answers");
    assert_eq!(common::text(&done), "done");
    // The progress notification reached the client through the relay.
    match hearing.next("the progress notification").await {
        Heard::Progress(params) => assert_eq!(params["progress"], 50.0),
        other => panic!("expected progress, got {other:?}"),
    }
    client.cancel().await.expect("the client closes");

    let log = relay.log();
    // The mcp layer: each request once, with the upstream's response.
    for method in ["initialize", "tools/list", "tools/call"] {
        let records = log.mcp().method(method).all();
        assert!(!records.is_empty(), "no {method} record");
        for record in records {
            assert_eq!(record.direction, Direction::ClientToServer);
            assert!(record.response.is_some(), "{method} has no response");
            assert!(record.duration_ms.is_some());
        }
    }
    let call = log.mcp().method("tools/call").name("echo").last().cloned();
    let call = call.expect("the echo call");
    assert_eq!(
        call.result().expect("a result")["content"][0]["text"],
        "through"
    );
    assert_eq!(call.era, Some(Era::Legacy));
    assert_eq!(call.protocol_version.as_deref(), Some("2025-11-25"));
    // The server's notification is recorded as server-to-client, like a mock's.
    let progress = log.mcp().method("notifications/progress").all();
    assert_eq!(progress.len(), 1, "{progress:?}");
    assert_eq!(progress[0].direction, Direction::ServerToClient);
    // The http layer: every POST carries the upstream's status and timing.
    let posts: Vec<_> = log
        .http()
        .all()
        .into_iter()
        .filter(|h| h.method == "POST")
        .cloned()
        .collect();
    assert!(posts.len() >= 4, "{posts:?}");
    for post in &posts {
        let upstream = post.upstream.as_ref().expect("a relayed exchange");
        assert_eq!(upstream.url, relay_target(relay));
        assert_eq!(
            upstream.status, post.status,
            "the client got the upstream's status"
        );
        assert!(upstream.duration_ms.is_some());
        assert!(upstream.failure.is_none());
    }
}

fn relay_target(relay: &MockMcpServer) -> String {
    relay
        .log()
        .http()
        .all()
        .into_iter()
        .find_map(|h| h.upstream.as_ref().map(|u| u.url.clone()))
        .expect("some relayed exchange")
}

/// Stateful upstream (legacy sessions, event streams): the session id the upstream issued
/// reaches the client and comes back on every request (transports, "Session Management":
/// the client MUST include it on all subsequent requests), and both layers show it.
#[tokio::test]
async fn rmcp_through_a_relay_to_a_stateful_sse_upstream() {
    let upstream = rmcp_upstream(Mode::StatefulSse).await;
    let relay = relay_to(&upstream.url).await;

    session_through(&relay).await;

    let log = relay.log();
    let initialize = log
        .mcp()
        .method("initialize")
        .last()
        .cloned()
        .expect("initialize");
    let session = initialize
        .session
        .clone()
        .expect("the upstream's session on the record");
    let call = log
        .mcp()
        .method("tools/call")
        .last()
        .cloned()
        .expect("a call");
    assert_eq!(call.session.as_deref(), Some(session.as_str()));
    let answered_as_stream = log.http().all().into_iter().any(|h| {
        h.method == "POST" && h.response_header("content-type") == Some("text/event-stream")
    });
    assert!(
        answered_as_stream,
        "a stateful rmcp server answers on event streams"
    );
    let header_seen = log
        .http()
        .all()
        .into_iter()
        .any(|h| h.request_header("mcp-session-id") == Some(session.as_str()));
    assert!(
        header_seen,
        "the client sent the upstream's session id through the relay"
    );
}

/// Stateless upstream answering JSON: calls come back as `application/json`, and the call
/// that reports progress falls back to an event stream.
#[tokio::test]
async fn rmcp_through_a_relay_to_a_stateless_json_upstream() {
    let upstream = rmcp_upstream(Mode::StatelessJson).await;
    let relay = relay_to(&upstream.url).await;

    session_through(&relay).await;

    let log = relay.log();
    let json_bodies = log
        .http()
        .all()
        .into_iter()
        .filter(|h| h.response_header("content-type") == Some("application/json"))
        .filter(|h| h.response_body.is_some())
        .count();
    assert!(
        json_bodies >= 2,
        "JSON answers are captured with their body"
    );
}

/// 2026-07-28 (stateless, `_meta` carries the version, transports "Protocol Version
/// Header"): the relay passes the request on as it came and records the modern era. The
/// upstream is a decoy serving both eras.
#[tokio::test]
async fn a_modern_request_through_a_relay_is_recorded_as_modern() {
    let upstream = MockMcpServer::builder().tool(Tool::echo()).start().await;
    let relay = relay_to(&upstream.url()).await;
    let peer = common::peer::Peer::modern(&relay.url(), json!({}));
    let result = peer
        .result(
            1,
            "tools/call",
            json!({ "name": "echo", "arguments": { "message": "now" } }),
        )
        .await;
    assert_eq!(result["content"][0]["text"], "now");

    let log = relay.log();
    let call = log
        .mcp()
        .method("tools/call")
        .last()
        .cloned()
        .expect("the call");
    assert_eq!(call.era, Some(Era::Modern));
    assert_eq!(call.protocol_version.as_deref(), Some("2026-07-28"));
    assert!(call.session.is_none());
    assert_eq!(call.result(), Some(&result));
    assert_eq!(upstream.call_count("echo"), 1);
}

/// The caller's `Origin`, `Referer` and `Sec-Fetch-*` stay with the relay, which checked
/// them: lent to the upstream, a page the relay let through would pass for the upstream's
/// own (issue 41: the upstream's DNS-rebinding defence was defeated by the rewrite). The
/// upstream here is a decoy, whose log shows what it received.
#[tokio::test]
async fn the_callers_origin_referer_and_fetch_metadata_are_not_forwarded() {
    // Arrange
    let upstream = MockMcpServer::builder().tool(Tool::echo()).start().await;
    let relay = relay_to(&upstream.url()).await;

    // Act: a loopback page's request, which the relay's own Origin check lets through.
    let answer = reqwest::Client::new()
        .post(relay.url())
        .header("accept", "application/json, text/event-stream")
        .header("origin", "http://localhost:5173")
        .header("referer", "http://localhost:5173/app")
        .header("sec-fetch-site", "same-site")
        .header("sec-fetch-mode", "cors")
        .json(&common::initialize_body())
        .send()
        .await
        .expect("the relay answers");

    // Assert
    assert_eq!(answer.status(), 200);
    let log = upstream.log();
    let seen = log.http().method("POST").all();
    assert_eq!(seen.len(), 1);
    for name in ["origin", "referer", "sec-fetch-site", "sec-fetch-mode"] {
        assert_eq!(
            seen[0].request_header(name),
            None,
            "{name} reached the upstream"
        );
    }
    assert_eq!(
        relay.log().http().all()[0].request_header("origin"),
        Some("http://localhost:5173"),
        "the relay's own capture keeps what the client sent"
    );
}

/// Issue 41: the `/_up` legs apply the MCP endpoint's Origin rule and take only what an
/// OAuth leg is asked with; each probe is refused and never reaches the upstream.
#[tokio::test]
async fn the_up_legs_refuse_a_foreign_origin_and_requests_no_oauth_leg_makes() {
    // Arrange: the upstream's own authority is a leg the relay may reach.
    let upstream = MockMcpServer::builder().tool(Tool::echo()).start().await;
    let relay = relay_to(&upstream.url()).await;
    let authority = upstream
        .base_url()
        .trim_start_matches("http://")
        .to_string();
    let leg = format!("{}/_up/{authority}/mcp", relay.base_url());
    let http = reqwest::Client::new();
    let initialize = common::initialize_body().to_string();

    // Act
    let foreign = http
        .post(&leg)
        .header("origin", "http://evil.example")
        .header("content-type", "application/json")
        .body(initialize.clone())
        .send()
        .await
        .expect("an answer");
    let plain = http
        .post(&leg)
        .header("content-type", "text/plain")
        .body(initialize)
        .send()
        .await
        .expect("an answer");
    let delete = http
        .delete(format!("{}/_up/{authority}/admin/reset", relay.base_url()))
        .send()
        .await
        .expect("an answer");

    // Assert
    assert_eq!(foreign.status(), 403);
    let text = foreign.text().await.expect("a body");
    assert!(text.contains("evil.example"), "{text}");
    assert_eq!(plain.status(), 415);
    let text = plain.text().await.expect("a body");
    assert!(text.contains("text/plain"), "{text}");
    assert_eq!(delete.status(), 405);
    assert_eq!(
        upstream.log().http().count(),
        0,
        "nothing reached the upstream"
    );
}

/// Server-level faults still apply on the way: the first call gets the rule's error and
/// never reaches the upstream; the second is relayed.
#[tokio::test]
async fn a_fault_rule_answers_instead_of_the_upstream() {
    let upstream = MockMcpServer::builder().tool(Tool::echo()).start().await;
    let relay = MockMcpServer::builder()
        .relay_to(upstream.url())
        .fault(
            FaultRule::on_method("tools/call")
                .times(1)
                .fault(Fault::error(-32001, "busy")),
        )
        .start()
        .await;
    let client = common::connect(&relay.url()).await;
    let first = client
        .call_tool(call("echo", json!({ "message": "a" })))
        .await;
    assert!(format!("{first:?}").contains("busy"), "{first:?}");
    let second = common::call_ok(&client, "echo", json!({ "message": "b" })).await;
    assert_eq!(common::text(&second), "b");
    assert_eq!(
        upstream.call_count("echo"),
        1,
        "the faulted call was not forwarded"
    );
    let log = relay.log();
    let faulted = log.mcp().method("tools/call").all();
    assert_eq!(faulted[0].fault.as_deref(), Some("error -32001"));
    assert_eq!(
        faulted[0].error().expect("the fault's error")["code"],
        -32001
    );
}

#[tokio::test]
async fn an_upstream_that_refuses_the_connection_is_a_502_naming_it() {
    let port = portpicker::pick_unused_port().expect("a free port");
    let relay = relay_to(&format!("http://127.0.0.1:{port}/mcp")).await;
    let (body, cause) = failure_of(&relay).await;
    assert_eq!(cause, FailureCause::ConnectRefused);
    let message = body["error"]["message"].as_str().unwrap_or_default();
    assert!(message.contains("connect_refused"), "{message}");
    // The request's record closes without a response rather than staying open.
    let log = relay.log();
    let initialize = log
        .mcp()
        .method("initialize")
        .last()
        .cloned()
        .expect("recorded");
    assert!(initialize.response.is_none(), "{initialize:?}");
    assert_eq!(initialize.end, Some(RequestEnd::EndedByServer));
}

#[tokio::test]
async fn an_upstream_that_never_answers_is_a_timeout() {
    let silent = tokio::net::TcpListener::bind("127.0.0.1:0")
        .await
        .expect("a port");
    let addr = silent.local_addr().expect("its address");
    let _held = tokio::spawn(async move {
        let mut open = Vec::new();
        while let Ok((socket, _)) = silent.accept().await {
            open.push(socket);
        }
    });
    let relay = MockMcpServer::builder()
        .relay_to(format!("http://{addr}/mcp"))
        .relay_timeout(std::time::Duration::from_millis(300))
        .start()
        .await;
    let (_, cause) = failure_of(&relay).await;
    assert_eq!(cause, FailureCause::Timeout);
}

#[tokio::test]
async fn an_upstream_that_breaks_http_is_a_protocol_error() {
    use tokio::io::AsyncWriteExt;
    let broken = tokio::net::TcpListener::bind("127.0.0.1:0")
        .await
        .expect("a port");
    let addr = broken.local_addr().expect("its address");
    tokio::spawn(async move {
        while let Ok((mut socket, _)) = broken.accept().await {
            let _ = socket.write_all(b"NOT HTTP AT ALL\r\n\r\n").await;
        }
    });
    let relay = relay_to(&format!("http://{addr}/mcp")).await;
    let (_, cause) = failure_of(&relay).await;
    assert_eq!(cause, FailureCause::Protocol);
}

/// A relay's settings are checked like any other: no catalog of its own, a real URL.
#[tokio::test]
async fn a_relay_with_tools_or_a_bad_url_is_refused_naming_the_field() {
    let with_tools = MockMcpServer::builder()
        .relay_to("http://127.0.0.1:9/mcp")
        .tool(Tool::echo())
        .try_start()
        .await
        .expect_err("a relay has no tools");
    assert!(with_tools.to_string().contains("upstream"), "{with_tools}");
    let bad = MockMcpServer::builder()
        .relay_to("ftp://example.com/mcp")
        .try_start()
        .await
        .expect_err("not http");
    assert!(bad.to_string().contains("http:// or https://"), "{bad}");
}

/// GET opens the session's stream at the upstream and DELETE ends the session there
/// (transports, "Listening for Messages from the Server" and "Session Management"): both
/// pass through the relay with the session id, and both are captured with the upstream's
/// status.
#[tokio::test]
async fn get_streams_and_delete_reach_the_upstream_with_the_session() {
    let upstream = MockMcpServer::builder().tool(Tool::echo()).start().await;
    let relay = relay_to(&upstream.url()).await;
    let http = reqwest::Client::new();
    let opened = http
        .post(relay.url())
        .header("accept", "application/json, text/event-stream")
        .json(&common::initialize_body())
        .send()
        .await
        .expect("initialize through the relay");
    let session = opened.headers()["mcp-session-id"]
        .to_str()
        .expect("text")
        .to_string();
    let stream = http
        .get(relay.url())
        .header("accept", "text/event-stream")
        .header("mcp-session-id", &session)
        .header("mcp-protocol-version", "2025-06-18")
        .send()
        .await
        .expect("the GET stream opens");
    assert_eq!(stream.status(), 200);
    assert_eq!(stream.headers()["content-type"], "text/event-stream");
    drop(stream);
    let ended = http
        .delete(relay.url())
        .header("mcp-session-id", &session)
        .header("mcp-protocol-version", "2025-06-18")
        .send()
        .await
        .expect("DELETE through the relay");
    assert_eq!(ended.status(), 200);
    assert!(
        upstream.sessions().is_empty(),
        "the upstream's session ended"
    );

    let upstream_log = upstream.log();
    for method in ["GET", "DELETE"] {
        let at_upstream = upstream_log
            .http()
            .method(method)
            .last()
            .cloned()
            .expect("reached");
        assert_eq!(
            at_upstream.request_header("mcp-session-id"),
            Some(session.as_str())
        );
    }
    let log = relay.log();
    for (method, status) in [("GET", 200), ("DELETE", 200)] {
        let relayed = log.http().method(method).all();
        let leg = relayed
            .iter()
            .find_map(|h| h.upstream.clone())
            .expect("captured");
        assert_eq!(leg.status, Some(status), "{method}");
    }
}
