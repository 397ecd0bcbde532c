//! The conformance suite's tasks-extension scenarios (`tasks-*`, its
//! `src/scenarios/server/tasks/`) and `input-required-result-non-tool-request`, replayed
//! against [`mcp_decoy::presets::conformance`] with stateless 2026-07-28 requests, one test
//! per scenario. Where the suite sleeps until a task ends, these tests advance the server's
//! clock. `tests/CONFORMANCE.md` maps each scenario here.

use crate::common;

use std::time::Duration;

use common::peer::{Answer, Peer};
use mcp_decoy::MockMcpServer;
use serde_json::{Value, json};

const EXTENSION: &str = "io.modelcontextprotocol/tasks";
/// The members of a task envelope, which acknowledgments must not carry.
const ENVELOPE: [&str; 5] = ["taskId", "status", "result", "error", "inputRequests"];

/// The capabilities the suite's task scenarios connect with.
fn declaring() -> Value {
    json!({ "elicitation": {}, "sampling": {}, "extensions": { EXTENSION: {} } })
}

async fn start() -> (MockMcpServer, Peer) {
    let server = mcp_decoy::presets::conformance().start().await;
    let peer = Peer::modern(&server.url(), declaring());
    (server, peer)
}

async fn call(peer: &Peer, id: i64, tool: &str, arguments: Value) -> Answer {
    peer.send(
        id,
        "tools/call",
        json!({ "name": tool, "arguments": arguments }),
    )
    .await
}

fn task_id(answer: &Answer) -> String {
    answer.result()["taskId"]
        .as_str()
        .unwrap_or_else(|| panic!("not a CreateTaskResult: {}", answer.response))
        .to_string()
}

async fn get(peer: &Peer, id: i64, task: &str) -> Value {
    peer.result(id, "tasks/get", json!({ "taskId": task }))
        .await
}

fn iso(value: &Value) -> bool {
    value.as_str().is_some_and(|t| {
        t.len() >= 19
            && t.as_bytes()[4] == b'-'
            && t.as_bytes()[10] == b'T'
            && t.as_bytes()[13] == b':'
    })
}

fn no_envelope(ack: &Value) {
    assert_eq!(ack["resultType"], "complete", "{ack}");
    for member in ENVELOPE {
        assert!(
            ack.get(member).is_none(),
            "an acknowledgment with `{member}`: {ack}"
        );
    }
}

fn check(server: &MockMcpServer) {
    common::schema::assert_server_messages_valid(&server.log());
}

#[tokio::test]
async fn tasks_lifecycle() {
    let (server, peer) = start().await;

    let sync = call(&peer, 1, "greet", json!({ "name": "World" })).await;
    let created = call(
        &peer,
        2,
        "slow_compute",
        json!({ "seconds": 2, "label": "lifecycle-create" }),
    )
    .await;
    let id = task_id(&created);
    let working = get(&peer, 3, &id).await;
    server.advance_clock(Duration::from_secs(2));
    let completed = get(&peer, 4, &id).await;
    let tool_error = task_id(&call(&peer, 5, "failing_job", json!({})).await);
    let protocol_error = task_id(&call(&peer, 6, "protocol_error_job", json!({})).await);
    let long = task_id(&call(&peer, 7, "slow_compute", json!({ "seconds": 60 })).await);
    let cancel_ack = peer
        .result(8, "tasks/cancel", json!({ "taskId": long }))
        .await;
    server.advance_clock(Duration::from_secs(1));
    let tool_error = get(&peer, 9, &tool_error).await;
    let protocol_error = get(&peer, 10, &protocol_error).await;
    let cancelled = get(&peer, 11, &long).await;
    let terminal_ack = peer
        .result(12, "tasks/cancel", json!({ "taskId": id }))
        .await;

    assert_eq!(sync.result()["resultType"], "complete");
    assert!(sync.result().get("taskId").is_none());
    assert_eq!(sync.result()["content"][0]["text"], "Hello, World!");
    let handle = created.result();
    assert_eq!(handle["resultType"], "task");
    for absent in ["task", "result", "error", "inputRequests"] {
        assert!(
            handle.get(absent).is_none(),
            "a CreateTaskResult with `{absent}`"
        );
    }
    assert!(
        iso(&handle["createdAt"]) && iso(&handle["lastUpdatedAt"]),
        "{handle}"
    );
    assert_eq!(working["taskId"], json!(id));
    assert_eq!(completed["status"], "completed");
    assert_eq!(
        completed["result"]["content"][0]["text"],
        "Computed lifecycle-create"
    );
    assert_eq!(tool_error["status"], "completed");
    assert_eq!(tool_error["result"]["isError"], true);
    assert_eq!(protocol_error["status"], "failed");
    assert!(
        protocol_error["error"]["code"].is_i64() && protocol_error["error"]["message"].is_string()
    );
    assert!(protocol_error.get("result").is_none());
    no_envelope(&cancel_ack);
    assert_eq!(cancelled["status"], "cancelled");
    no_envelope(&terminal_ack);
    check(&server);
}

#[tokio::test]
async fn tasks_capability_negotiation() {
    let (server, with) = start().await;
    let without = Peer::modern(&server.url(), json!({}));

    let discovered = with.result(1, "server/discover", json!({})).await;
    let gated = [
        without
            .send(2, "tasks/get", json!({ "taskId": "gate-test" }))
            .await,
        without
            .send(
                3,
                "tasks/update",
                json!({ "taskId": "gate-test", "inputResponses": {} }),
            )
            .await,
        without
            .send(4, "tasks/cancel", json!({ "taskId": "gate-test" }))
            .await,
    ];
    let sync = call(
        &without,
        5,
        "slow_compute",
        json!({ "seconds": 0, "label": "capability-no-ext" }),
    )
    .await;
    let opted_in = without
        .send(
            6,
            "tools/call",
            json!({ "name": "slow_compute", "arguments": { "seconds": 1 },
            "_meta": {
                "io.modelcontextprotocol/protocolVersion": "2026-07-28",
                "io.modelcontextprotocol/clientCapabilities": { "extensions": { EXTENSION: {} } }
            } }),
        )
        .await;

    let capabilities = &discovered["capabilities"];
    assert!(capabilities.get("tasks").is_none());
    assert_eq!(capabilities["extensions"][EXTENSION], json!({}));
    for refused in gated {
        assert_eq!(refused.error().0, -32021, "{}", refused.response);
    }
    assert_eq!(sync.result()["resultType"], "complete");
    assert!(sync.result().get("taskId").is_none() && sync.result()["content"].is_array());
    assert_eq!(opted_in.result()["resultType"], "task");
    check(&server);
}

#[tokio::test]
async fn tasks_wire_fields() {
    let (server, peer) = start().await;

    let created = call(
        &peer,
        1,
        "slow_compute",
        json!({ "seconds": 1, "label": "wire-fields" }),
    )
    .await;
    let id = task_id(&created);
    server.advance_clock(Duration::from_secs(1));
    let terminal = get(&peer, 2, &id).await;
    server.advance_clock(Duration::from_millis(500));
    let still = get(&peer, 3, &id).await;

    let handle = created.result();
    assert!(
        handle["ttlMs"].as_u64().is_some_and(|ttl| ttl > 0),
        "{handle}"
    );
    assert!(
        handle["pollIntervalMs"].as_u64().is_some_and(|ms| ms > 0),
        "{handle}"
    );
    assert!(handle.get("ttl").is_none() && handle.get("pollInterval").is_none());
    assert_eq!(terminal["status"], "completed");
    assert_eq!(still["taskId"], json!(id), "kept for its ttlMs");
    let meta = &terminal["result"]["_meta"];
    assert!(
        meta.get("io.modelcontextprotocol/related-task").is_none(),
        "{meta}"
    );
    check(&server);
}

#[tokio::test]
async fn tasks_request_state_removal() {
    let (server, peer) = start().await;

    let created = call(&peer, 1, "slow_compute", json!({ "seconds": 60 })).await;
    let detailed = get(&peer, 2, &task_id(&created)).await;

    assert!(created.result().get("requestState").is_none());
    assert!(detailed.get("requestState").is_none());
    check(&server);
}

#[tokio::test]
async fn tasks_mrtr_input() {
    let (server, peer) = start().await;
    let accept = |content: Value| json!({ "action": "accept", "content": content });

    let single = task_id(
        &call(
            &peer,
            1,
            "confirm_delete",
            json!({ "filename": "mrtr.txt" }),
        )
        .await,
    );
    let parked = get(&peer, 2, &single).await;
    let responses: serde_json::Map<String, Value> = parked["inputRequests"]
        .as_object()
        .expect("inputRequests")
        .keys()
        .map(|key| (key.clone(), accept(json!({ "confirm": true }))))
        .collect();
    let ack = peer
        .result(
            3,
            "tasks/update",
            json!({ "taskId": single, "inputResponses": responses }),
        )
        .await;
    let resumed = get(&peer, 4, &single).await;

    let multi = task_id(&call(&peer, 5, "multi_input", json!({})).await);
    let both = get(&peer, 6, &multi).await;
    let keys: Vec<String> = both["inputRequests"]
        .as_object()
        .expect("keys")
        .keys()
        .cloned()
        .collect();
    peer.result(7, "tasks/update", json!({ "taskId": multi,
        "inputResponses": { keys[0].clone(): accept(json!({ "name": "partial-1", "confirm": true })) } }))
        .await;
    let partial = get(&peer, 8, &multi).await;
    peer.result(9, "tasks/update", json!({ "taskId": multi,
        "inputResponses": { keys[1].clone(): accept(json!({ "name": "partial-2", "confirm": true })) } }))
        .await;
    let finished = get(&peer, 10, &multi).await;

    assert_eq!(parked["status"], "input_required");
    assert!(
        parked["inputRequests"]
            .as_object()
            .is_some_and(|m| m.values().all(|r| r["method"].is_string()))
    );
    no_envelope(&ack);
    assert_eq!(resumed["status"], "completed");
    assert_eq!(keys.len(), 2);
    assert_eq!(partial["status"], "input_required");
    let remaining: Vec<&String> = partial["inputRequests"]
        .as_object()
        .expect("one left")
        .keys()
        .collect();
    assert_eq!(remaining, [&keys[1]]);
    assert_eq!(finished["status"], "completed");
    check(&server);
}

#[tokio::test]
async fn tasks_request_headers() {
    let (server, peer) = start().await;

    let greeted = peer
        .send_with(
            1,
            "tools/call",
            json!({ "name": "greet", "arguments": { "name": "sep-2243" } }),
            &[("Mcp-Method", "tools/call")],
        )
        .await;
    let id = task_id(&call(&peer, 2, "slow_compute", json!({ "seconds": 60 })).await);
    let routed = peer
        .send_with(
            3,
            "tasks/get",
            json!({ "taskId": id }),
            &[("Mcp-Method", "tasks/get"), ("Mcp-Name", &id)],
        )
        .await;
    let wrong_method = peer
        .send_with(
            4,
            "tools/call",
            json!({ "name": "greet", "arguments": { "name": "x" } }),
            &[("Mcp-Method", "tasks/get")],
        )
        .await;
    let wrong_name = peer
        .send_with(
            5,
            "tasks/get",
            json!({ "taskId": id }),
            &[(
                "Mcp-Name",
                "sep-2663-wrong-task-id-for-routing-header-mismatch",
            )],
        )
        .await;

    assert_eq!(greeted.result()["content"][0]["text"], "Hello, sep-2243!");
    assert_eq!(routed.result()["taskId"], json!(id));
    assert_eq!(wrong_method.error().0, -32020);
    assert_eq!(wrong_name.error().0, -32020);
    check(&server);
}

#[tokio::test]
async fn tasks_dispatch_and_envelope() {
    let (server, peer) = start().await;

    let result = peer
        .send(
            1,
            "tasks/result",
            json!({ "taskId": "tasks-conformance-isolation-probe" }),
        )
        .await;
    let list = peer.send(2, "tasks/list", json!({})).await;
    let no_hint = call(&peer, 3, "failing_job", json!({})).await;
    let legacy_hint = peer
        .send(
            4,
            "tools/call",
            json!({ "name": "greet", "arguments": { "name": "legacy-hint" },
            "task": { "ttl": 60_000, "pollInterval": 100 } }),
        )
        .await;
    let instant = call(
        &peer,
        5,
        "slow_compute",
        json!({ "seconds": 0, "label": "instant" }),
    )
    .await;
    let instant_id = task_id(&instant);
    let immediate = get(&peer, 6, &instant_id).await;
    let elicit = task_id(&call(&peer, 7, "confirm_delete", json!({ "filename": "rt.txt" })).await);
    get(&peer, 8, &elicit).await;
    let update_ack = peer
        .result(
            9,
            "tasks/update",
            json!({ "taskId": elicit, "inputResponses": { "unknown-key": { "ignored": true } } }),
        )
        .await;
    let unknown = peer
        .send(
            10,
            "tasks/get",
            json!({ "taskId": "tasks-conformance-nonexistent-12345" }),
        )
        .await;

    assert_eq!(result.error().0, -32601);
    assert_eq!(list.error().0, -32601);
    assert_eq!(no_hint.result()["resultType"], "task");
    assert_eq!(legacy_hint.result()["resultType"], "complete");
    assert!(legacy_hint.result().get("taskId").is_none());
    assert_eq!(immediate["resultType"], "complete");
    assert_eq!(immediate["taskId"], json!(instant_id));
    no_envelope(&update_ack);
    assert_eq!(unknown.error().0, -32602);
    check(&server);
}

#[tokio::test]
async fn tasks_status_notifications() {
    let (server, peer) = start().await;
    let id = task_id(&call(&peer, 1, "slow_compute", json!({ "seconds": 1 })).await);

    let mut listen = peer
        .stream(
            2,
            "subscriptions/listen",
            json!({ "notifications": { "taskIds": [id] } }),
        )
        .await;
    listen
        .next_notification("notifications/subscriptions/acknowledged")
        .await;
    server.advance_clock(Duration::from_secs(1));
    let status = listen.next_notification("notifications/tasks").await;

    assert_eq!(status["params"]["taskId"], json!(id));
    assert_eq!(status["params"]["status"], "completed");
    drop(listen);
    check(&server);
}

#[tokio::test]
async fn tasks_required_task_error() {
    let (server, _) = start().await;
    let plain = Peer::modern(&server.url(), json!({}));

    let refused = call(&plain, 1, "failing_job", json!({})).await;

    assert_eq!(refused.error().0, -32021);
    assert_eq!(
        refused.response["error"]["data"]["requiredCapabilities"]["extensions"][EXTENSION],
        json!({})
    );
    check(&server);
}

#[tokio::test]
async fn tasks_mrtr_composition() {
    let (server, peer) = start().await;

    let first = call(&peer, 1, "test_tool_with_task", json!({})).await;
    let round = first.result();
    let key = round["inputRequests"]
        .as_object()
        .and_then(|m| m.keys().next().cloned())
        .expect("a key");
    let second = peer
        .send(
            2,
            "tools/call",
            json!({ "name": "test_tool_with_task", "arguments": {},
            "inputResponses": { key: { "action": "accept", "content": { "name": "Alice" } } },
            "requestState": round["requestState"] }),
        )
        .await;
    let id = task_id(&second);
    server.advance_clock(Duration::from_secs(1));
    let done = get(&peer, 3, &id).await;

    assert_eq!(round["resultType"], "input_required");
    assert!(round.get("taskId").is_none());
    assert_eq!(second.result()["resultType"], "task");
    assert!(
        second.result().get("requestState").is_none()
            && second.result().get("inputRequests").is_none()
    );
    assert_eq!(done["status"], "completed");
    assert!(
        done["result"]["content"][0]["text"]
            .as_str()
            .is_some_and(|t| t.contains("Alice")),
        "{done}"
    );
    check(&server);
}

#[tokio::test]
async fn input_required_result_non_tool_request() {
    let (server, peer) = start().await;

    let first = peer
        .result(
            1,
            "prompts/get",
            json!({ "name": "test_input_required_result_prompt" }),
        )
        .await;
    let key = first["inputRequests"]
        .as_object()
        .and_then(|m| m.keys().next().cloned())
        .expect("a key");
    let second = peer
        .result(2, "prompts/get", json!({ "name": "test_input_required_result_prompt",
            "inputResponses": { key: { "action": "accept", "content": { "context": "test context" } } },
            "requestState": first["requestState"] }))
        .await;

    assert_eq!(first["resultType"], "input_required");
    assert_eq!(second["resultType"], "complete");
    assert!(second["messages"].is_array(), "{second}");
    check(&server);
}
