//! Task faults (a client polling too fast, a task that never finishes, one that is lost
//! after some polls, cancellation ignored, a full store) and the typed reads of how a client
//! treated its tasks (`MockMcpServer::tasks`, `TaskInfo`): polls and their intervals on the
//! server's clock, answers, cancellation.

use crate::common;

use std::time::Duration;

use common::peer::Peer;
use mcp_decoy::spec::{AskMethod, TaskFaults, TaskSpec, TaskSupport};
use mcp_decoy::{MockMcpServer, TaskStatus, Tool};
use serde_json::{Value, json};

const EXTENSION: &str = "io.modelcontextprotocol/tasks";

fn with_tasks() -> Value {
    json!({ "elicitation": {}, "extensions": { EXTENSION: {} } })
}

fn faulty(name: &str, faults: TaskFaults) -> Tool {
    Tool::new(name)
        .task_faults(faults)
        .delay(Duration::from_secs(3))
        .respond_with(json!({ "content": [{ "type": "text", "text": "done" }] }))
}

async fn start(tools: Vec<Tool>) -> (MockMcpServer, Peer) {
    let mut builder = MockMcpServer::builder();
    for tool in tools {
        builder = builder.tool(tool);
    }
    let server = builder.start().await;
    let peer = Peer::modern(&server.url(), with_tasks());
    (server, peer)
}

async fn create(peer: &Peer, id: i64, tool: &str) -> String {
    let answer = peer
        .send(id, "tools/call", json!({ "name": tool, "arguments": {} }))
        .await;
    answer.result()["taskId"]
        .as_str()
        .unwrap_or_else(|| panic!("no task: {}", answer.response))
        .to_string()
}

#[tokio::test]
async fn polls_sooner_than_the_poll_interval_are_refused_and_counted() {
    let rate_limited = TaskFaults {
        rate_limit_polls: true,
        ..TaskFaults::default()
    };
    let (server, peer) = start(vec![faulty("job", rate_limited)]).await;
    let id = create(&peer, 1, "job").await;

    let first = peer.send(2, "tasks/get", json!({ "taskId": id })).await;
    server.advance_clock(Duration::from_millis(400));
    let early = peer.send(3, "tasks/get", json!({ "taskId": id })).await;
    server.advance_clock(Duration::from_millis(1_000));
    let patient = peer.send(4, "tasks/get", json!({ "taskId": id })).await;

    // The extension: "Servers MAY rate-limit clients polling more frequently than the
    // recorded pollIntervalMs".
    assert_eq!(first.result()["status"], "working");
    let (code, message) = early.error();
    assert_eq!(code, -32603);
    assert!(message.contains("polled too fast"), "{message}");
    // The server's clock is real time plus what the test advanced, so the gap is 400 ms and
    // however long the machine took between the requests: the retry hint is what is left of
    // the 1,000 ms interval after that gap, whatever it was.
    let retry = early.response["error"]["data"]["retryAfterMs"]
        .as_u64()
        .expect("a number");
    assert_eq!(patient.result()["status"], "working");
    let info = server.task(&id).expect("kept");
    assert_eq!((info.poll_count, info.refused_polls), (3, 1));
    let gaps = info.poll_intervals();
    assert_eq!(gaps.len(), 2);
    assert!(gaps[0] >= Duration::from_millis(400) && gaps[0] < Duration::from_millis(1_000));
    let gap = u64::try_from(gaps[0].as_millis()).expect("under a second");
    assert_eq!(retry + gap, 1_000, "retry {retry} ms after a {gap} ms gap");
    assert!(gaps[1] >= Duration::from_millis(1_000));
    assert!(
        !info.honoured_poll_interval(),
        "one poll came 400 ms after the last"
    );
    common::schema::assert_server_messages_valid(&server.log());
}

#[tokio::test]
async fn a_task_that_never_finishes_stays_working_until_it_is_cancelled() {
    let stuck = TaskFaults {
        never_finish: true,
        ..TaskFaults::default()
    };
    let (server, peer) = start(vec![faulty("stuck", stuck)]).await;
    let id = create(&peer, 1, "stuck").await;

    server.advance_clock(Duration::from_secs(50));
    let still = peer.result(2, "tasks/get", json!({ "taskId": id })).await;
    peer.result(3, "tasks/cancel", json!({ "taskId": id }))
        .await;
    let cancelled = peer.result(4, "tasks/get", json!({ "taskId": id })).await;

    assert_eq!(still["status"], "working");
    assert_eq!(cancelled["status"], "cancelled");
    common::schema::assert_server_messages_valid(&server.log());
}

#[tokio::test]
async fn a_task_lost_after_two_polls_is_unknown_from_the_third_on() {
    let lost = TaskFaults {
        lost_after_polls: Some(2),
        ..TaskFaults::default()
    };
    let (server, peer) = start(vec![faulty("flaky", lost)]).await;
    let id = create(&peer, 1, "flaky").await;

    let first = peer.send(2, "tasks/get", json!({ "taskId": id })).await;
    let second = peer.send(3, "tasks/get", json!({ "taskId": id })).await;
    let third = peer.send(4, "tasks/get", json!({ "taskId": id })).await;
    let cancel = peer.send(5, "tasks/cancel", json!({ "taskId": id })).await;

    assert_eq!(first.result()["status"], "working");
    assert_eq!(second.result()["status"], "working");
    for gone in [third, cancel] {
        let (code, message) = gone.error();
        assert_eq!(code, -32602);
        assert!(message.contains("Task not found"), "{message}");
    }
    let info = server.task(&id).expect("the test still sees it");
    assert!(info.lost);
    assert_eq!(info.poll_count, 3);
    common::schema::assert_server_messages_valid(&server.log());
}

#[tokio::test]
async fn an_ignored_cancel_is_acknowledged_and_the_task_runs_to_its_end() {
    let stubborn = TaskFaults {
        ignore_cancel: true,
        ..TaskFaults::default()
    };
    let (server, peer) = start(vec![faulty("stubborn", stubborn)]).await;
    let id = create(&peer, 1, "stubborn").await;
    let legacy = Peer::legacy(&server.url(), json!({})).await;
    let legacy_task = legacy
        .result(
            10,
            "tools/call",
            json!({ "name": "stubborn", "arguments": {}, "task": {} }),
        )
        .await;
    let legacy_id = legacy_task["task"]["taskId"]
        .as_str()
        .expect("a task")
        .to_string();

    let ack = peer
        .result(2, "tasks/cancel", json!({ "taskId": id }))
        .await;
    let legacy_ack = legacy
        .result(11, "tasks/cancel", json!({ "taskId": legacy_id }))
        .await;
    server.advance_clock(Duration::from_secs(3));
    let done = peer.result(3, "tasks/get", json!({ "taskId": id })).await;

    // The extension: cancellation "MAY ultimately reach a terminal status other than
    // cancelled if the work finished before cancellation could take effect".
    assert_eq!(ack["resultType"], "complete");
    assert_eq!(
        legacy_ack["status"], "working",
        "a misbehaving 2025-11-25 server"
    );
    assert_eq!(done["status"], "completed");
    assert!(server.task(&id).expect("kept").cancel_requested);
    common::schema::assert_server_messages_valid(&server.log());
}

#[tokio::test]
async fn a_full_store_forgets_the_oldest_finished_task_and_refuses_a_live_one_past_it() {
    let server = MockMcpServer::builder()
        .tool(faulty("job", TaskFaults::default()))
        .max_tasks(2)
        .start()
        .await;
    let peer = Peer::modern(&server.url(), with_tasks());
    let first = create(&peer, 1, "job").await;
    let _second = create(&peer, 2, "job").await;

    let refused = peer
        .send(3, "tools/call", json!({ "name": "job", "arguments": {} }))
        .await;
    peer.result(4, "tasks/cancel", json!({ "taskId": first }))
        .await;
    let third = create(&peer, 5, "job").await;
    let forgotten = peer.send(6, "tasks/get", json!({ "taskId": first })).await;

    let (code, message) = refused.error();
    assert_eq!(code, -32603);
    assert!(message.contains("max_tasks"), "{message}");
    assert_eq!(forgotten.error().0, -32602);
    let kept: Vec<String> = server.tasks().into_iter().map(|t| t.id).collect();
    assert_eq!(kept.len(), 2);
    assert!(kept.contains(&third) && !kept.contains(&first));
    common::schema::assert_server_messages_valid(&server.log());
}

#[tokio::test]
async fn a_client_that_honours_the_interval_and_answers_is_seen_to_do_so() {
    let tool = Tool::new("survey")
        .task_with(TaskSpec {
            poll_interval_ms: 2_000,
            ..TaskSpec::new(TaskSupport::Optional)
        })
        .ask("mood", AskMethod::Elicitation, json!({ "message": "Mood?",
            "requestedSchema": { "type": "object", "properties": { "mood": { "type": "string" } } } }))
        .delay(Duration::from_secs(4));
    let (server, peer) = start(vec![tool]).await;
    let id = create(&peer, 1, "survey").await;

    let asked = peer.result(2, "tasks/get", json!({ "taskId": id })).await;
    assert_eq!(asked["pollIntervalMs"], 2_000);
    peer.result(
        3,
        "tasks/update",
        json!({ "taskId": id,
        "inputResponses": { "mood": { "action": "accept", "content": { "mood": "fine" } } } }),
    )
    .await;
    for n in 0..2 {
        server.advance_clock(Duration::from_secs(2));
        peer.result(4 + n, "tasks/get", json!({ "taskId": id }))
            .await;
    }

    let info = server.task(&id).expect("kept");
    assert_eq!(info.status, TaskStatus::Completed);
    assert_eq!(info.poll_count, 3);
    assert!(info.honoured_poll_interval(), "{:?}", info.poll_intervals());
    assert!(info.answered_every_input_request());
    assert!(!info.cancel_requested);
    assert_eq!(info.tool, "survey");
    let polls = server.log().mcp().method("tasks/get").name(&id).count();
    assert_eq!(polls, 3, "the capture names each poll's task");
    common::schema::assert_server_messages_valid(&server.log());
}
