//! Connection hygiene on the fixture's listener, over raw sockets: a client that stalls in
//! its headers or its body, or idles between requests, loses its connection after the
//! configured timeout, an event stream outlives the idle timeout, and past `max_connections` a new
//! connection is refused with `503` while the server keeps serving the others. Bounds are
//! generous and only from below (the server never closes early); nothing here times speed.

use std::time::Duration;

use mcp_decoy::log::{Entry, HttpKind};
use mcp_decoy::{MockMcpServer, Tool};
use tokio::time::Instant;

#[path = "common/wire.rs"]
mod wire;

use wire::{PING, Wire, authority, initialize, ping};

/// Waits until the server closes `wire`, and checks that it did so unanswered and not before
/// half of `timeout` had passed since `started` (timers may fire a little early, never half).
async fn closed_unanswered(wire: &mut Wire, started: Instant, timeout: Duration, what: &str) {
    let (rest, closed_at) = wire.closed().await;
    assert!(
        closed_at - started >= timeout / 2,
        "{what}: closed after {:?}, before the timeout",
        closed_at - started
    );
    assert!(!rest.contains("HTTP/1.1 200"), "{what}: {rest}");
}

#[tokio::test]
async fn a_connection_that_sends_half_a_header_and_stalls_is_closed_after_the_header_timeout() {
    // Arrange
    let timeout = Duration::from_millis(500);
    let server = MockMcpServer::builder()
        .header_read_timeout(timeout)
        .start()
        .await;
    let at = authority(&server.url());

    // Act: one connection sends half a request head, another sends nothing at all.
    let started = Instant::now();
    let mut half = Wire::connect(&at).await;
    let mut silent = Wire::connect(&at).await;
    half.send(b"POST /mcp HTTP/1.1\r\nhost: 127.0.0.1\r\ncontent-ty")
        .await;

    // Assert: both are closed, not before the timeout, without an answer.
    for (name, wire) in [("half a header", &mut half), ("nothing", &mut silent)] {
        closed_unanswered(wire, started, timeout, name).await;
    }
    // The server keeps serving well-behaved clients.
    let mut fine = Wire::connect(&at).await;
    initialize(&mut fine).await;
}

#[tokio::test]
async fn a_kept_alive_connection_outlives_the_header_timeout_between_requests_then_idles_out() {
    // Arrange
    let idle = Duration::from_secs(4);
    let server = MockMcpServer::builder()
        .header_read_timeout(Duration::from_millis(300))
        .idle_timeout(idle)
        .start()
        .await;
    let mut wire = Wire::connect(&authority(&server.url())).await;
    let session = initialize(&mut wire).await;

    // Act: wait past the header timeout (not the idle one), then reuse the connection.
    tokio::time::sleep(Duration::from_secs(1)).await;
    assert_eq!(
        ping(&mut wire, &session).await,
        200,
        "the same connection answers"
    );
    let answered = Instant::now();

    // Assert: left idle, the connection is closed, not before the idle timeout.
    let (rest, closed_at) = wire.closed().await;
    assert!(rest.is_empty(), "nothing is sent on an idle close: {rest}");
    assert!(
        closed_at - answered >= idle / 2,
        "closed {:?} after the last answer, before the idle timeout",
        closed_at - answered
    );
    assert_eq!(server.sessions().len(), 1, "an idle close ends no session");
}

#[tokio::test]
async fn a_kept_alive_connection_that_stalls_in_its_next_request_head_is_closed_after_the_header_timeout()
 {
    // Arrange: a header timeout far shorter than the idle timeout, so only the header
    // timeout can close the connection within the wire's patience.
    let header = Duration::from_millis(300);
    let server = MockMcpServer::builder()
        .header_read_timeout(header)
        .idle_timeout(Duration::from_secs(600))
        .start()
        .await;
    let mut wire = Wire::connect(&authority(&server.url())).await;
    let session = initialize(&mut wire).await;
    assert_eq!(ping(&mut wire, &session).await, 200);

    // Act: between requests (the idle clock running), half of the next request's head.
    tokio::time::sleep(header * 2).await;
    let started = Instant::now();
    wire.send(b"POST /mcp HTTP/1.1\r\nhost: 127.0.0.1\r\ncontent-ty")
        .await;

    // Assert: the header timeout, restarted by those bytes, closes it without an answer.
    closed_unanswered(&mut wire, started, header, "half of the next head").await;
}

#[tokio::test]
async fn a_request_whose_body_stalls_is_closed_after_the_header_timeout() {
    // Arrange: an idle timeout far longer than the wire's patience, so only the body's
    // clock can close the connection in time.
    let header = Duration::from_millis(400);
    let server = MockMcpServer::builder()
        .header_read_timeout(header)
        .idle_timeout(Duration::from_secs(600))
        .start()
        .await;
    let mut wire = Wire::connect(&authority(&server.url())).await;

    // Act: a whole head announcing 1,000 bytes of body, then one byte of it, then nothing.
    let started = Instant::now();
    wire.send(
        b"POST /mcp HTTP/1.1\r\nhost: 127.0.0.1\r\ncontent-type: application/json\r\n\
          accept: application/json, text/event-stream\r\ncontent-length: 1000\r\n\r\n{",
    )
    .await;

    // Assert: closed without an answer, not before the header timeout; the request the
    // server read is in the log, saying so.
    closed_unanswered(&mut wire, started, header, "a stalled body").await;
    let log = server
        .wait_for(|log| log.http().unanswered().count() == 1, wire::PATIENCE)
        .await
        .expect("the stalled request is recorded as unanswered");
    let post = &log.http().method("POST").all()[0];
    assert!(post.unanswered && post.status.is_none(), "{post:?}");
}

/// Issue 40: a GET whose connection closed right after its head reached the server left no
/// record. Head and end come in one segment here, the way the race with a client that drops
/// its stream as it closes its session ended in 1 run of 100.
#[cfg(target_os = "linux")]
#[tokio::test]
async fn a_get_whose_client_hangs_up_as_it_sends_is_still_captured() {
    // Arrange: a session.
    let server = MockMcpServer::builder().start().await;
    let at = authority(&server.url());
    let mut posts = Wire::connect(&at).await;
    let session = initialize(&mut posts).await;

    // Act: the GET's head and the connection's end, read by the server at once.
    let mut stream = Wire::connect(&at).await;
    let get = stream.session_get_text(&session);
    stream.send_and_hang_up(get.as_bytes()).await;

    // Assert: the GET is recorded and settled: answered with a stream that has ended, or
    // unanswered; never left out, never left waiting.
    let log = server
        .wait_for(
            |log| {
                let gets = log.http().method("GET").all();
                gets.first().is_some_and(|get| {
                    get.unanswered
                        || log.records().iter().any(
                            |r| matches!(&r.entry, Entry::Http(h) if h.kind == HttpKind::StreamEnd),
                        )
                })
            },
            wire::PATIENCE,
        )
        .await
        .unwrap_or_else(|e| panic!("the GET is not recorded as settled: {e}"));
    let gets = log.http().method("GET").all();
    assert_eq!(gets.len(), 1, "{gets:?}");
    assert_eq!(
        gets[0].request_header("mcp-session-id"),
        Some(session.as_str())
    );
}

#[tokio::test]
async fn a_call_whose_client_hangs_up_before_the_answer_is_recorded_unanswered() {
    // Arrange: a tool that takes its time, and a session.
    let server = MockMcpServer::builder()
        .tool(Tool::new("slow").delay(Duration::from_secs(30)))
        .start()
        .await;
    let at = authority(&server.url());
    let mut wire = Wire::connect(&at).await;
    let session = initialize(&mut wire).await;

    // Act: call it, then hang up once the server has the call.
    let headers = [
        ("mcp-session-id", session.as_str()),
        ("mcp-protocol-version", "2025-11-25"),
    ];
    wire.post_json(
        "/mcp",
        &headers,
        r#"{"jsonrpc":"2.0","id":7,"method":"tools/call","params":{"name":"slow","arguments":{}}}"#,
    )
    .await;
    server
        .wait_for(
            |log| log.mcp().method("tools/call").count() == 1,
            wire::PATIENCE,
        )
        .await
        .expect("the call arrives");
    drop(wire);

    // Assert: its exchange says the connection closed before the answer.
    let log = server
        .wait_for(|log| log.http().unanswered().count() == 1, wire::PATIENCE)
        .await
        .expect("the call's exchange is recorded as unanswered");
    let call = &log.http().unanswered().all()[0];
    assert_eq!(call.method, "POST");
    assert_eq!(call.status, None);
    assert!(call.duration_ms.is_some(), "{call:?}");
}

#[tokio::test]
async fn a_body_that_arrives_in_parts_within_the_header_timeout_is_answered() {
    // Arrange
    let header = Duration::from_millis(1500);
    let server = MockMcpServer::builder()
        .header_read_timeout(header)
        .start()
        .await;
    let mut wire = Wire::connect(&authority(&server.url())).await;
    let body = wire::INITIALIZE.as_bytes();
    let (first, second) = body.split_at(body.len() / 2);

    // Act: the head and half the body, a pause, then the rest.
    let head = format!(
        "POST /mcp HTTP/1.1\r\nhost: 127.0.0.1\r\ncontent-type: application/json\r\n\
         accept: application/json, text/event-stream\r\ncontent-length: {}\r\n\r\n",
        body.len()
    );
    wire.send(head.as_bytes()).await;
    wire.send(first).await;
    tokio::time::sleep(Duration::from_millis(200)).await;
    wire.send(second).await;

    // Assert: the body's clock let it finish; the request is answered.
    let answer = wire.head().await;
    assert_eq!(answer.status, 200, "{answer:?}");
    assert!(answer.header("mcp-session-id").is_some(), "{answer:?}");
}

#[tokio::test]
async fn an_open_event_stream_outlives_the_idle_timeout_and_still_delivers_a_notification() {
    // Arrange: a session and its GET stream, on a server with a short idle timeout.
    let idle = Duration::from_millis(500);
    let server = MockMcpServer::builder()
        .header_read_timeout(Duration::from_millis(500))
        .idle_timeout(idle)
        .start()
        .await;
    let at = authority(&server.url());
    let mut posts = Wire::connect(&at).await;
    let session = initialize(&mut posts).await;
    let mut stream = Wire::connect(&at).await;
    let get = stream.session_get_text(&session);
    stream.send(get.as_bytes()).await;
    let head = stream.head().await;
    assert_eq!(head.status, 200, "{head:?}");
    assert_eq!(head.header("content-type"), Some("text/event-stream"));

    // Act: stay quiet for four idle timeouts, then change the catalog.
    tokio::time::sleep(idle * 4).await;
    server.add_tool(Tool::new("late")).expect("a new tool");

    // Assert: the stream was not cut and carries the notification.
    let events = stream.read_until("notifications/tools/list_changed").await;
    assert!(events.contains("data:"), "{events}");
    assert!(server.sessions()[0].stream_open);
}

#[tokio::test]
async fn past_max_connections_a_new_connection_gets_503_until_one_closes() {
    // Arrange: two connections hold both places.
    let server = MockMcpServer::builder().max_connections(2).start().await;
    let at = authority(&server.url());
    let mut first = Wire::connect(&at).await;
    let session = initialize(&mut first).await;
    let mut second = Wire::connect(&at).await;
    assert_eq!(ping(&mut second, &session).await, 200);

    // Act: a third connects and sends nothing.
    let mut third = Wire::connect(&at).await;
    let (refusal, _) = third.closed().await;

    // Assert: refused at once, with a response naming the limit, and closed.
    assert!(
        refusal.starts_with("HTTP/1.1 503 Service Unavailable\r\n"),
        "{refusal}"
    );
    assert!(refusal.contains("connection: close"), "{refusal}");
    assert!(
        refusal.contains("2 open connections") && refusal.contains("max_connections"),
        "{refusal}"
    );
    // The connections inside the cap keep working.
    assert_eq!(ping(&mut second, &session).await, 200);

    // Once one closes (the server notices shortly after), a new connection is served.
    drop(first);
    let deadline = Instant::now() + wire::PATIENCE;
    loop {
        let mut next = Wire::connect(&at).await;
        next.post_json(
            "/mcp",
            &[
                ("mcp-session-id", &session),
                ("mcp-protocol-version", "2025-11-25"),
            ],
            PING,
        )
        .await;
        let answer = next.head().await;
        if answer.status == 200 {
            break;
        }
        assert_eq!(answer.status, 503, "{answer:?}");
        assert!(
            Instant::now() < deadline,
            "no place freed within {:?} after a connection closed",
            wire::PATIENCE
        );
        tokio::time::sleep(Duration::from_millis(50)).await;
    }
}

#[tokio::test]
async fn a_zero_connection_limit_is_refused_naming_the_builder_method() {
    for (builder, field) in [
        (
            MockMcpServer::builder().header_read_timeout(Duration::ZERO),
            "header_read_timeout",
        ),
        (
            MockMcpServer::builder().idle_timeout(Duration::ZERO),
            "idle_timeout",
        ),
        (
            MockMcpServer::builder().max_connections(0),
            "max_connections",
        ),
    ] {
        let error = builder.try_start().await.expect_err("zero is refused");
        assert!(error.to_string().contains(field), "{error}");
    }
}

#[test]
#[should_panic(expected = "`max_connections`: must be more than zero")]
fn start_panics_naming_a_zero_max_connections() {
    tokio::runtime::Builder::new_current_thread()
        .enable_all()
        .build()
        .expect("a runtime")
        .block_on(async {
            let _server = MockMcpServer::builder().max_connections(0).start().await;
        });
}
