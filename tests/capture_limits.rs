//! The capture's bounds against large input (issue 13 item 6, issue 16): a message larger than
//! 8 KiB reaches the client whole but is kept cut in both layers with `truncated: true`, the
//! checks that read the log still judge the whole message, and `log_bytes` bounds the memory
//! the log's records take, dropping the oldest first. Sessions' retained events are bounded
//! the same way by `max_retained_event_bytes` (issue 49; tasks' budget is in `tests/tasks.rs`).

mod common;

use common::peer::Peer;
use mcp_decoy::log::Entry;
use mcp_decoy::spec::LogLevel;
use mcp_decoy::{Error, MockMcpServer, Tool};
use serde_json::{Value, json};

/// A 1 MiB `message`.
const MIB: usize = 1024 * 1024;

/// The JSON text length of a captured value.
fn len(value: &Value) -> usize {
    value.to_string().len()
}

async fn echo_of_a_1_mib_message_reaches_the_client_whole_and_is_kept_truncated() {
    // Arrange
    let server = MockMcpServer::builder().tool(Tool::echo()).start().await;
    let client = common::connect(&server.url()).await;
    let message = "m".repeat(MIB);

    // Act
    let result = common::call_ok(&client, "echo", json!({ "message": message })).await;

    // Assert: the client got the whole echo.
    assert_eq!(common::text(&result).len(), MIB);
    assert_eq!(common::text(&result), message);

    // The mcp record keeps the envelope and the start of the message, flagged.
    let log = server.log();
    let call = log
        .mcp()
        .method("tools/call")
        .first()
        .expect("the call is captured")
        .clone();
    assert!(call.truncated, "the mcp record is flagged");
    assert_eq!(call.name.as_deref(), Some("echo"));
    assert_eq!(call.message["jsonrpc"], "2.0");
    assert_eq!(call.message["method"], "tools/call");
    assert!(call.rpc_id().is_some());
    assert!(len(&call.message) <= 8 * 1024, "{}", len(&call.message));
    let kept = call.params()["arguments"]["message"]
        .as_str()
        .expect("the message is kept as a string");
    assert!(kept.starts_with("mmmm"), "{}", &kept[..20]);
    assert!(
        kept.ends_with("... (1048576 bytes)"),
        "{}",
        &kept[kept.len() - 30..]
    );
    let response = call.response.as_ref().expect("the response is captured");
    assert!(len(response) <= 8 * 1024, "{}", len(response));
    let text = call.result().expect("a result")["content"][0]["text"]
        .as_str()
        .expect("the text is kept as a string");
    assert!(text.starts_with("mmmm") && text.ends_with("(1048576 bytes)"));

    // The typed read says so too.
    let calls = log.tool_calls("echo");
    assert_eq!(calls.len(), 1);
    assert!(calls[0].truncated);
    assert!(
        calls[0]
            .text()
            .is_some_and(|t| t.ends_with("(1048576 bytes)"))
    );

    // The http record that carried it keeps the start of both bodies as text, flagged.
    let carrier = call.carried_by.expect("carried by an http record");
    let Some(Entry::Http(exchange)) = log.get(carrier).map(|r| &r.entry) else {
        panic!("record {carrier} is not an http record");
    };
    assert!(exchange.truncated, "the http record is flagged");
    for body in [&exchange.request_body, &exchange.response_body] {
        let body = body
            .as_ref()
            .expect("a body")
            .as_str()
            .expect("kept as text");
        assert!(body.len() <= 8 * 1024, "{}", body.len());
        assert!(body.ends_with(" bytes)"), "{}", &body[body.len() - 30..]);
    }
    let request = exchange.request_body.as_deref().and_then(Value::as_str);
    assert!(
        request.is_some_and(|b| b.starts_with(r#"{"jsonrpc":"2.0""#) || b.contains("tools/call"))
    );

    // Small messages are not flagged.
    let initialize = log.mcp().method("initialize").first().expect("initialize");
    assert!(!initialize.truncated);
    let snapshot = serde_json::to_value(initialize).expect("a record serializes");
    assert!(snapshot.get("truncated").is_none(), "left out when false");
    client.cancel().await.expect("the client closes");
}

#[tokio::test]
async fn a_1_mib_echo_reaches_the_client_whole_and_is_kept_truncated() {
    echo_of_a_1_mib_message_reaches_the_client_whole_and_is_kept_truncated().await;
}

#[tokio::test(flavor = "multi_thread")]
async fn a_1_mib_echo_reaches_the_client_whole_and_is_kept_truncated_multi_thread() {
    echo_of_a_1_mib_message_reaches_the_client_whole_and_is_kept_truncated().await;
}

#[tokio::test]
async fn assert_valid_arguments_judges_a_truncated_call_by_its_whole_arguments() {
    // Arrange: `message` must be all `m`s. The log's cut copy ends with `... (N bytes)`,
    // which would break the pattern; the whole arguments do not.
    let server = MockMcpServer::builder()
        .tool(Tool::echo().input_schema(json!({
            "type": "object",
            "properties": { "message": { "type": "string", "pattern": "^m+$" } },
        })))
        .start()
        .await;
    let client = common::connect(&server.url()).await;

    // Act
    common::call_ok(&client, "echo", json!({ "message": "m".repeat(MIB) })).await;

    // Assert
    assert!(server.log().tool_calls("echo")[0].truncated);
    server.assert_valid_arguments();

    // A large call that does break it is still reported.
    let broken = format!("{}x", "m".repeat(MIB));
    common::call_ok(&client, "echo", json!({ "message": broken })).await;
    let report = std::panic::catch_unwind(std::panic::AssertUnwindSafe(|| {
        server.assert_valid_arguments();
    }))
    .expect_err("the broken call is reported");
    let report = report
        .downcast_ref::<String>()
        .expect("a formatted panic message");
    assert!(
        report.contains("1 of 2 tools/call request(s)") && report.contains("at /message"),
        "{report}"
    );
    client.cancel().await.expect("the client closes");
}

#[tokio::test]
async fn a_small_log_bytes_budget_drops_the_oldest_records_first() {
    // Arrange: a 1 MiB budget, and calls whose records keep about 16 KiB each.
    let server = MockMcpServer::builder()
        .tool(Tool::echo())
        .log_bytes(MIB)
        .start()
        .await;
    let client = common::connect(&server.url()).await;

    // Act
    for n in 0..100 {
        let message = format!("call-{n:03}-{}", "m".repeat(20_000));
        common::call_ok(&client, "echo", json!({ "message": message })).await;
    }

    // Assert: every call was answered and counted, but only the newest are kept.
    assert_eq!(server.call_count("echo"), 100);
    let log = server.log();
    let calls = log.tool_calls("echo");
    assert!(
        (20..100).contains(&calls.len()),
        "{} calls kept of 100",
        calls.len()
    );
    assert_eq!(log.mcp().method("initialize").count(), 0, "the oldest left");
    let newest = calls.last().expect("the newest call is kept");
    let kept = newest.arguments["message"].as_str().expect("a string");
    assert!(kept.starts_with("call-099-"), "{}", &kept[..20]);
    let ids: Vec<u64> = log.records().iter().map(|r| r.id).collect();
    assert!(
        ids.windows(2).all(|w| w[1] == w[0] + 1),
        "the newest records, contiguous"
    );
    let held: usize = log
        .records()
        .iter()
        .map(|r| serde_json::to_string(r).expect("serializes").len())
        .sum();
    assert!(held < MIB, "{held} bytes of JSON kept under a 1 MiB budget");
    client.cancel().await.expect("the client closes");
}

#[tokio::test]
async fn a_log_bytes_below_1_mib_is_refused_naming_the_field() {
    for bytes in [0, 1024 * 1024 - 1] {
        let error = MockMcpServer::builder()
            .log_bytes(bytes)
            .try_start()
            .await
            .expect_err("too small a budget");
        assert!(
            matches!(
                error,
                Error::InvalidConfig {
                    field: "log_bytes",
                    ..
                }
            ),
            "{error:?}"
        );
        assert!(error.to_string().contains("log_bytes"), "{error}");
        assert!(error.to_string().contains("at least 1 MiB"), "{error}");
    }
}

/// A tool that logs before its result, so every call answers on an event stream (kept by the
/// session for resumption), echoing `message`.
fn shout() -> Tool {
    Tool::new("shout")
        .log(LogLevel::Info, "shouting")
        .respond_with(json!({ "content": [{ "type": "text", "text": "${args.message}" }] }))
}

#[tokio::test]
async fn sessions_that_streamed_large_answers_and_went_idle_hold_no_more_than_the_budget() {
    // Arrange: a 4 MiB budget for retained events, and one with the default 64 MiB.
    let small = MockMcpServer::builder()
        .tool(shout())
        .max_retained_event_bytes(4 * MIB)
        .start()
        .await;
    let roomy = MockMcpServer::builder().tool(shout()).start().await;
    let message = "m".repeat(MIB);

    // Act: two rmcp clients on each stream ten 1 MiB answers, then stay connected, idle.
    let mut clients = Vec::new();
    for server in [&small, &roomy] {
        for _ in 0..2 {
            let client = common::connect(&server.url()).await;
            for _ in 0..10 {
                let result = common::call_ok(&client, "shout", json!({ "message": message })).await;
                assert_eq!(common::text(&result).len(), MIB);
            }
            clients.push(client);
        }
    }

    // Assert: the answers went out on event streams, which the sessions keep for resumption.
    let streamed = small
        .log()
        .http()
        .method("POST")
        .all()
        .iter()
        .filter(|e| e.response_header("content-type") == Some("text/event-stream"))
        .count();
    assert_eq!(streamed, 20, "every call answered on a stream");
    // Within the default budget nothing was evicted: the 20 answers are all kept...
    let kept = roomy.memory().retained_events;
    assert!(kept.used_bytes >= 20 * MIB, "{kept:?}");
    assert_eq!(kept.evicted, 0, "{kept:?}");
    // ...and the small budget kept both idle sessions, together, within 4 MiB.
    let budget = small.memory().retained_events;
    assert!(budget.used_bytes <= 4 * MIB, "{budget:?}");
    assert!(
        budget.evicted >= 16,
        "the oldest answers went first: {budget:?}"
    );
    assert!(budget.evicted_bytes >= 16 * MIB as u64, "{budget:?}");
    assert_eq!(small.sessions().len(), 2, "no session ended for it");
    for client in clients {
        client.cancel().await.expect("the client closes");
    }
    let deadline = std::time::Instant::now() + std::time::Duration::from_secs(5);
    while !small.sessions().is_empty() && std::time::Instant::now() < deadline {
        tokio::time::sleep(std::time::Duration::from_millis(10)).await;
    }
    assert_eq!(
        small.memory().retained_events.used_bytes,
        0,
        "ended sessions give back what they kept"
    );
}

/// The `id:` lines of an SSE body, in order.
fn event_ids(body: &str) -> Vec<String> {
    body.lines()
        .filter_map(|line| line.strip_prefix("id:"))
        .map(|id| id.trim().to_string())
        .collect()
}

/// `GET` with `Last-Event-ID` in the peer's session: the status and the body.
async fn resume(peer: &Peer, last_event_id: &str) -> (u16, String) {
    let response = reqwest::Client::new()
        .get(&peer.url)
        .header("accept", "text/event-stream")
        .header(
            "mcp-session-id",
            peer.session.as_deref().expect("a session"),
        )
        .header("mcp-protocol-version", "2025-11-25")
        .header("last-event-id", last_event_id)
        .send()
        .await
        .expect("the GET is answered");
    let status = response.status().as_u16();
    (status, response.text().await.expect("the body"))
}

// 2025-11-25 transports, "Resumability and Redelivery": the server MAY replay what came after
// the Last-Event-ID on that stream; when it no longer can, it refuses rather than replay a gap.
#[tokio::test]
async fn a_resume_past_evicted_events_gets_410_naming_the_budget() {
    // Arrange: a 2 MiB budget; one streamed call whose events are all kept.
    let server = MockMcpServer::builder()
        .tool(shout())
        .max_retained_event_bytes(2 * MIB)
        .start()
        .await;
    let peer = Peer::legacy(&server.url(), json!({})).await;
    let call = |id: i64, message: String| {
        peer.request(
            json!(id),
            "tools/call",
            json!({ "name": "shout", "arguments": { "message": message } }),
        )
    };
    let first = peer.post(&call(1, "first".into()), &[]).await.text().await;
    let ids = event_ids(&first.expect("the first answer"));
    let priming = ids.first().expect("a priming event id").clone();
    assert_eq!(ids.len(), 3, "priming, log, result: {ids:?}");

    // Act: resume the first stream from its priming event; then two 1.5 MiB answers push
    // its events out of the budget, and resume again.
    let (kept_status, kept) = resume(&peer, &priming).await;
    for id in [2, 3] {
        let big = peer.post(&call(id, "b".repeat(3 * MIB / 2)), &[]).await;
        assert_eq!(big.status(), 200);
        big.text().await.expect("the big answer");
    }
    let (gone_status, gone) = resume(&peer, &priming).await;

    // Assert: the first resume replayed the rest of the stream, the result included...
    assert_eq!(kept_status, 200);
    assert!(kept.contains(r#""text":"first""#), "{kept}");
    // ...the second is refused with 410, naming the event and the setting.
    assert_eq!(gone_status, 410, "{gone}");
    let error: Value = serde_json::from_str(&gone).expect("a JSON-RPC error");
    let text = error["error"]["message"].as_str().expect("a message");
    assert!(text.contains(&priming), "{text}");
    assert!(text.contains("max_retained_event_bytes"), "{text}");
    let memory = server.memory().retained_events;
    assert!(
        memory.evicted >= 3 && memory.used_bytes <= 2 * MIB,
        "{memory:?}"
    );
    // The session itself lives on: a plain GET still opens its stream.
    assert_eq!(peer.get_stream().await.status(), 200);
}

#[tokio::test]
async fn a_zero_max_retained_event_bytes_is_refused_naming_the_field() {
    let refused = MockMcpServer::builder()
        .max_retained_event_bytes(0)
        .try_start()
        .await;

    let Err(Error::InvalidConfig { field, .. }) = refused else {
        panic!("zero must be refused");
    };
    assert_eq!(field, "max_retained_event_bytes");
}
