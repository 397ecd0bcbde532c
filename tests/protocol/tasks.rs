//! 2025-11-25 experimental tasks (`2025-11-25/basic/utilities/tasks.mdx`), over raw HTTP in
//! a 2025-11-25 session (rmcp 3.11's client speaks only the 2026-07-28 extension, see
//! `tests/protocol/tasks_modern.rs`): `capabilities.tasks`, `execution.taskSupport`, `params.task`,
//! `tasks/get`, `tasks/result`, paginated `tasks/list`, `tasks/cancel` and the related-task
//! `_meta`; what travels on event streams is in `tests/protocol/tasks_streams.rs`. The script runs on
//! the server's clock, so every test moves it with `advance_clock` instead of sleeping.

use crate::common;

use std::time::Duration;

use common::legacy_tasks::{RELATED, build, call_as_task, check, get, server, task_id, text};
use common::peer::Peer;
use mcp_decoy::spec::{TaskSpec, TaskSupport};
use mcp_decoy::{MockMcpServer, TaskStatus, Tool};
use serde_json::{Value, json};

// ---------------------------------------------------------------------------------------
// Capabilities and tool-level negotiation ("Capabilities", "Tool-Level Negotiation")

#[tokio::test]
async fn a_2025_11_25_session_is_told_about_tasks_and_each_tools_task_support() {
    let server = server(vec![
        build(),
        Tool::new("plain"),
        Tool::new("deploy").task_required(),
    ])
    .await;
    let peer = Peer::legacy(&server.url(), json!({})).await;

    let tools = peer.result(2, "tools/list", json!({})).await;

    assert_eq!(
        peer.init["capabilities"]["tasks"],
        json!({ "list": {}, "cancel": {}, "requests": { "tools": { "call": {} } } })
    );
    let support: Vec<(String, Value)> = tools["tools"]
        .as_array()
        .expect("tools")
        .iter()
        .map(|t| {
            (
                t["name"].as_str().unwrap_or_default().to_string(),
                t["execution"].clone(),
            )
        })
        .collect();
    assert_eq!(
        support,
        [
            ("build".into(), json!({ "taskSupport": "optional" })),
            ("plain".into(), Value::Null),
            ("deploy".into(), json!({ "taskSupport": "required" })),
        ]
    );
    check(&server);
}

#[tokio::test]
async fn older_sessions_and_servers_without_task_tools_declare_no_tasks_and_ignore_params_task() {
    let instant = Tool::new("build")
        .task()
        .respond_with(text("built ${args.target}"));
    let with_tasks = server(vec![instant]).await;
    let old = Peer::legacy_at(&with_tasks.url(), "2025-06-18", json!({})).await;
    let without = server(vec![Tool::new("plain").respond_with(text("plain"))]).await;
    let current = Peer::legacy(&without.url(), json!({})).await;

    // Receivers that do not declare tasks process the request normally, "ignoring any
    // task-augmentation metadata" ("Task Support and Handling").
    let plain = call_as_task(&current, 1, "plain", json!({}), None).await;
    let old_call = call_as_task(&old, 2, "build", json!({ "target": "x" }), None).await;
    let old_get = get(&old, 3, "anything").await;

    assert_eq!(plain.result()["content"][0]["text"], "plain");
    assert!(plain.result().get("task").is_none());
    assert_eq!(old_call.result()["content"][0]["text"], "built x");
    assert_eq!(
        old_get.error().0,
        -32601,
        "tasks/get is no 2025-06-18 method"
    );
    check(&with_tasks);
    check(&without);
}

#[tokio::test]
async fn a_required_task_without_params_task_and_a_forbidden_one_with_it_get_method_not_found() {
    let forbidden = Tool::new("quick").task_with(TaskSpec::new(TaskSupport::Forbidden));
    let server = server(vec![
        build(),
        Tool::new("deploy").task_required(),
        forbidden,
    ])
    .await;
    let peer = Peer::legacy(&server.url(), json!({})).await;

    // "Servers MUST return a -32601 (Method not found) error if a client does not attempt
    // to" invoke a required tool as a task; "SHOULD" for a forbidden one invoked as a task.
    let required = peer
        .send(
            1,
            "tools/call",
            json!({ "name": "deploy", "arguments": {} }),
        )
        .await;
    let refused = call_as_task(&peer, 2, "quick", json!({}), None).await;
    let bad_ttl = call_as_task(&peer, 3, "build", json!({}), None).await;
    let odd = peer
        .send(
            4,
            "tools/call",
            json!({ "name": "build", "arguments": {}, "task": { "ttl": "soon" } }),
        )
        .await;
    let extra = peer
        .send(
            5,
            "tools/call",
            json!({ "name": "build", "arguments": {}, "task": { "ttl": 5, "pollInterval": 1 } }),
        )
        .await;

    let (code, message) = required.error();
    assert_eq!(code, -32601);
    assert!(
        message.contains("`deploy`") && message.contains("params.task"),
        "{message}"
    );
    assert_eq!(refused.error().0, -32601);
    assert!(
        bad_ttl.result()["task"]["taskId"].is_string(),
        "an empty params.task asks for a task"
    );
    let (code, message) = odd.error();
    assert_eq!(code, -32602);
    assert!(message.contains("`params.task.ttl`"), "{message}");
    let (code, message) = extra.error();
    assert_eq!(code, -32602);
    assert!(message.contains("`params.task.pollInterval`"), "{message}");
    check(&server);
}

// ---------------------------------------------------------------------------------------
// Creating, polling, retrieving ("Creating Tasks", "Getting Tasks", "Retrieving Task Results")

#[tokio::test]
async fn a_call_with_params_task_answers_a_working_task_that_tasks_get_finds_at_once() {
    let server = server(vec![build()]).await;
    let peer = Peer::legacy(&server.url(), json!({})).await;

    let created = call_as_task(&peer, 1, "build", json!({ "target": "app" }), Some(30_000)).await;
    let id = task_id(&created);
    let polled = get(&peer, 2, &id).await;

    let task = &created.result()["task"];
    // "Tasks MUST begin in the working status when created" ("Task Status Lifecycle").
    assert_eq!(task["status"], "working");
    assert_eq!(
        task["ttl"], 30_000,
        "a shorter ttl than the tool's is honoured"
    );
    assert_eq!(task["pollInterval"], 1_000);
    assert!(task["createdAt"].as_str().is_some_and(|t| t.ends_with('Z')));
    assert_eq!(polled.result()["taskId"], json!(id));
    assert_eq!(polled.result()["status"], "working");
    assert!(
        polled
            .result()
            .get("_meta")
            .is_none_or(|m| m.get(RELATED).is_none())
    );
    assert_eq!(id.len(), 32, "128 random bits as hex");
    // The script (a progress step) runs in the task, not on the call's stream: plain JSON.
    let log = server.log();
    let posts = log.http().method("POST").status(200).all();
    assert!(
        posts
            .iter()
            .all(|e| e.response_header("content-type") == Some("application/json")),
        "{posts:?}"
    );
    check(&server);
}

#[tokio::test]
async fn the_script_runs_on_the_server_clock_and_tasks_result_returns_the_result_with_related_task()
{
    let server = server(vec![build()]).await;
    let peer = Peer::legacy(&server.url(), json!({})).await;
    let id = task_id(&call_as_task(&peer, 1, "build", json!({ "target": "app" }), None).await);

    let before = get(&peer, 2, &id).await;
    server.advance_clock(Duration::from_secs(5));
    let after = get(&peer, 3, &id).await;
    let result = peer.send(4, "tasks/result", json!({ "taskId": id })).await;

    assert_eq!(before.result()["status"], "working");
    assert_eq!(
        before.result()["statusMessage"],
        "compiling app",
        "a progress message"
    );
    assert_eq!(after.result()["status"], "completed");
    // "The tasks/result operation MUST include this metadata in its response".
    assert_eq!(result.result()["content"][0]["text"], "built app");
    assert_eq!(result.result()["_meta"][RELATED], json!({ "taskId": id }));
    check(&server);
}

// ---------------------------------------------------------------------------------------
// Outcomes ("Task Execution Errors", "Task Cancellation")

#[tokio::test]
async fn an_is_error_result_fails_the_task_and_tasks_result_still_returns_it() {
    let failing = Tool::new("lint").task().respond_with(json!({
        "content": [{ "type": "text", "text": "3 warnings" }], "isError": true }));
    let server = server(vec![failing]).await;
    let peer = Peer::legacy(&server.url(), json!({})).await;
    let id = task_id(&call_as_task(&peer, 1, "lint", json!({}), None).await);

    let result = peer.send(2, "tasks/result", json!({ "taskId": id })).await;
    let task = get(&peer, 3, &id).await;

    // 2025-11-25 "Task Status": failed "includes cases where the tool call result has
    // isError set to true"; tasks/result "returns exactly what the underlying request
    // would have returned".
    assert_eq!(task.result()["status"], "failed");
    assert_eq!(result.result()["isError"], true);
    assert_eq!(result.result()["content"][0]["text"], "3 warnings");
    check(&server);
}

#[tokio::test]
async fn a_fail_step_fails_the_task_and_tasks_result_returns_the_same_json_rpc_error() {
    let crashing = Tool::new("crash")
        .task()
        .end_with_error(-32603, "the job crashed on ${args.host}");
    let server = server(vec![crashing]).await;
    let peer = Peer::legacy(&server.url(), json!({})).await;
    let id = task_id(&call_as_task(&peer, 1, "crash", json!({ "host": "ci-3" }), None).await);

    let result = peer.send(2, "tasks/result", json!({ "taskId": id })).await;
    let task = get(&peer, 3, &id).await;

    // "If the underlying request resulted in a JSON-RPC error, tasks/result MUST return that
    // same JSON-RPC error".
    assert_eq!(
        result.error(),
        (-32603, "the job crashed on ci-3".to_string())
    );
    assert_eq!(task.result()["status"], "failed");
    assert_eq!(task.result()["statusMessage"], "the job crashed on ci-3");
    check(&server);
}

#[tokio::test]
async fn cancelling_moves_a_working_task_to_cancelled_and_a_terminal_one_is_refused() {
    let server = server(vec![build()]).await;
    let peer = Peer::legacy(&server.url(), json!({})).await;
    let id = task_id(&call_as_task(&peer, 1, "build", json!({ "target": "x" }), None).await);

    let cancelled = peer.send(2, "tasks/cancel", json!({ "taskId": id })).await;
    server.advance_clock(Duration::from_secs(10));
    let later = get(&peer, 3, &id).await;
    let again = peer.send(4, "tasks/cancel", json!({ "taskId": id })).await;
    let result = peer.send(5, "tasks/result", json!({ "taskId": id })).await;

    // "MUST transition the task to cancelled status before sending the response", "MUST
    // remain in cancelled status even if execution continues", and a terminal task's
    // cancellation is "-32602 (Invalid params)" ("Task Cancellation").
    assert_eq!(cancelled.result()["status"], "cancelled");
    assert_eq!(later.result()["status"], "cancelled");
    let (code, message) = again.error();
    assert_eq!(code, -32602);
    assert!(message.contains("terminal status 'cancelled'"), "{message}");
    assert!(
        result.error().1.contains("cancelled"),
        "{:?}",
        result.error()
    );
    let info = server.task(&id).expect("the task is kept");
    assert!(info.cancel_requested);
    assert_eq!(info.status, TaskStatus::Cancelled);
    check(&server);
}

// ---------------------------------------------------------------------------------------
// TTL, lookups, listing ("TTL and Resource Management", "Listing Tasks", "Protocol Errors")

#[tokio::test]
async fn after_its_ttl_a_task_is_expired_and_an_unknown_one_is_not_found() {
    let server = server(vec![build()]).await;
    let peer = Peer::legacy(&server.url(), json!({})).await;
    let id = task_id(&call_as_task(&peer, 1, "build", json!({}), Some(2_000)).await);

    server.advance_clock(Duration::from_millis(2_000));
    let expired = get(&peer, 2, &id).await;
    let unknown = get(&peer, 3, "no-such-task").await;
    let no_id = peer.send(4, "tasks/get", json!({})).await;
    let extra = peer
        .send(5, "tasks/get", json!({ "taskId": id, "verbose": true }))
        .await;

    let (code, message) = expired.error();
    assert_eq!(code, -32602);
    assert!(message.contains("Task has expired"), "{message}");
    let (code, message) = unknown.error();
    assert_eq!(code, -32602);
    assert!(message.contains("Task not found"), "{message}");
    assert!(
        no_id.error().1.contains("`params.taskId`"),
        "{:?}",
        no_id.error()
    );
    assert!(
        extra.error().1.contains("`params.verbose`"),
        "{:?}",
        extra.error()
    );
    assert!(server.task(&id).expect("kept").expired);
    check(&server);
}

#[tokio::test]
async fn tasks_list_pages_the_live_tasks_and_refuses_a_cursor_it_did_not_issue() {
    let server = MockMcpServer::builder()
        .tool(build())
        .page_size(2)
        .start()
        .await;
    let peer = Peer::legacy(&server.url(), json!({})).await;
    let mut ids = Vec::new();
    for n in 0..3 {
        ids.push(task_id(
            &call_as_task(&peer, n, "build", json!({}), None).await,
        ));
    }

    let first = peer.result(10, "tasks/list", json!({})).await;
    let cursor = first["nextCursor"]
        .as_str()
        .expect("a next page")
        .to_string();
    let second = peer
        .result(11, "tasks/list", json!({ "cursor": cursor }))
        .await;
    let bad = peer
        .send(12, "tasks/list", json!({ "cursor": "forged" }))
        .await;

    let listed: Vec<Value> = first["tasks"]
        .as_array()
        .into_iter()
        .chain(second["tasks"].as_array())
        .flatten()
        .map(|t| t["taskId"].clone())
        .collect();
    assert_eq!(listed, ids.iter().map(|id| json!(id)).collect::<Vec<_>>());
    assert!(second.get("nextCursor").is_none());
    assert_eq!(bad.error().0, -32602);
    check(&server);
}

#[tokio::test]
async fn tasks_update_is_no_2025_11_25_method() {
    let server = server(vec![build()]).await;
    let peer = Peer::legacy(&server.url(), json!({})).await;

    let update = peer
        .send(
            1,
            "tasks/update",
            json!({ "taskId": "x", "inputResponses": {} }),
        )
        .await;

    assert_eq!(update.error().0, -32601);
    check(&server);
}

// ---------------------------------------------------------------------------------------
// Memory: finished tasks are charged to `max_task_bytes` (docs/guards.md, "Memory budgets")

#[tokio::test]
async fn past_max_task_bytes_the_oldest_finished_tasks_are_forgotten_and_live_ones_stay() {
    const MIB: usize = 1024 * 1024;
    // Each task keeps its 1 MiB argument and its 1 MiB result: about 2 MiB.
    let echo = Tool::new("echo_later")
        .task()
        .delay(Duration::from_secs(5))
        .respond_with(text("${args.message}"));
    let server = MockMcpServer::builder()
        .tool(echo)
        .max_task_bytes(5 * MIB)
        .start()
        .await;
    let peer = Peer::legacy(&server.url(), json!({})).await;
    let message = "m".repeat(MIB);

    // Act: four tasks run and finish one after another; then a fifth starts and stays working.
    let (mut ids, mut finished) = (Vec::new(), Vec::new());
    for n in 0..4 {
        let created =
            call_as_task(&peer, n, "echo_later", json!({ "message": message }), None).await;
        ids.push(task_id(&created));
        server.advance_clock(Duration::from_secs(5));
        finished.push(get(&peer, 10 + n, &ids[n as usize]).await);
    }
    let live =
        task_id(&call_as_task(&peer, 20, "echo_later", json!({ "message": message }), None).await);
    let newest = peer
        .send(21, "tasks/result", json!({ "taskId": ids[3] }))
        .await;
    let oldest = get(&peer, 22, &ids[0]).await;
    let working = get(&peer, 23, &live).await;

    // Assert: each finished, then the two oldest were forgotten to stay within 5 MiB.
    assert!(finished.iter().all(|a| a.result()["status"] == "completed"));
    let memory = server.memory().tasks;
    assert!(memory.used_bytes <= 5 * MIB, "{memory:?}");
    assert_eq!((memory.items, memory.evicted), (2, 2), "{memory:?}");
    assert!(memory.evicted_bytes >= 4 * MIB as u64, "{memory:?}");
    let (code, text) = oldest.error();
    assert_eq!(code, -32602);
    assert!(text.contains("Task not found"), "{text}");
    assert_eq!(
        newest.result()["content"][0]["text"].as_str().map(str::len),
        Some(MIB)
    );
    assert_eq!(
        working.result()["status"],
        "working",
        "live work is never evicted"
    );
    assert!(server.task(&ids[3]).is_some() && server.task(&ids[0]).is_none());
}

#[tokio::test]
async fn a_zero_max_task_bytes_is_refused_naming_the_field() {
    let refused = MockMcpServer::builder().max_task_bytes(0).try_start().await;

    let Err(mcp_decoy::Error::InvalidConfig { field, .. }) = refused else {
        panic!("zero must be refused");
    };
    assert_eq!(field, "max_task_bytes");
}
