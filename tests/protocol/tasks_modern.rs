//! The 2026-07-28 tasks extension (`io.modelcontextprotocol/tasks`, the spec pack's
//! `extensions/tasks/overview.mdx` and the extension's `tasks.mdx`): advertised in
//! `server/discover`, a task for a `tools/call` whose request declares the extension,
//! `tasks/get` inlining `inputRequests`, `result` and `error`, `tasks/update`, cooperative
//! `tasks/cancel`, `Mcp-Name: <taskId>`, and `notifications/tasks` on `subscriptions/listen`.
//! Raw HTTP pins the wire; rmcp's client (which speaks the extension) drives a task end to
//! end. Scripts run on the server's clock: tests advance it instead of sleeping.

use crate::common;

use std::time::Duration;

use common::peer::{Answer, Peer};
use mcp_decoy::spec::AskMethod;
use mcp_decoy::{MockMcpServer, TaskStatus, Tool};
use serde_json::{Value, json};

const EXTENSION: &str = "io.modelcontextprotocol/tasks";

fn text(t: &str) -> Value {
    json!({ "content": [{ "type": "text", "text": t }] })
}

/// Capabilities that declare the extension (and elicitation, for asks).
fn with_tasks() -> Value {
    json!({ "elicitation": {}, "extensions": { EXTENSION: {} } })
}

fn build() -> Tool {
    Tool::new("build")
        .task()
        .delay(Duration::from_secs(5))
        .respond_with(text("built ${args.target}"))
}

fn confirm() -> Tool {
    let ask = |message: &str| {
        json!({ "message": message, "requestedSchema": { "type": "object",
            "properties": { "ok": { "type": "boolean" } }, "required": ["ok"] } })
    };
    Tool::new("confirm")
        .task()
        .ask("first", AskMethod::Elicitation, ask("Sure?"))
        .ask("second", AskMethod::Elicitation, ask("Really sure?"))
        .respond_with(text(
            "${answers.first.content.ok} ${answers.second.content.ok}",
        ))
}

async fn server(tools: Vec<Tool>) -> MockMcpServer {
    let mut builder = MockMcpServer::builder();
    for tool in tools {
        builder = builder.tool(tool);
    }
    builder.start().await
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
        .unwrap_or_else(|| panic!("no taskId in {}", answer.response))
        .to_string()
}

async fn get(peer: &Peer, id: i64, task: &str) -> Value {
    peer.result(id, "tasks/get", json!({ "taskId": task }))
        .await
}

fn check(server: &MockMcpServer) {
    common::schema::assert_server_messages_valid(&server.log());
}

// ---------------------------------------------------------------------------------------
// Negotiation ("Capability Negotiation")

#[tokio::test]
async fn discover_advertises_the_extension_only_on_a_server_with_task_tools() {
    let tasks = server(vec![build()]).await;
    let plain = server(vec![Tool::new("plain")]).await;

    let with = Peer::modern(&tasks.url(), json!({}))
        .result(1, "server/discover", json!({}))
        .await;
    let without = Peer::modern(&plain.url(), json!({}))
        .result(1, "server/discover", json!({}))
        .await;

    assert_eq!(with["capabilities"]["extensions"], json!({ EXTENSION: {} }));
    assert!(
        with["capabilities"].get("tasks").is_none(),
        "no 2025-11-25 slot"
    );
    assert!(without["capabilities"].get("extensions").is_none());
    check(&tasks);
    check(&plain);
}

#[tokio::test]
async fn only_a_request_that_declares_the_extension_gets_a_task() {
    let instant = Tool::new("instant").task().respond_with(text("done"));
    let server = server(vec![instant, Tool::new("deploy").task_required()]).await;
    let declaring = Peer::modern(&server.url(), with_tasks());
    let plain = Peer::modern(&server.url(), json!({}));

    let task = call(&declaring, 1, "instant", json!({})).await;
    let sync = call(&plain, 2, "instant", json!({})).await;
    let required = call(&plain, 3, "deploy", json!({})).await;
    let get = plain.send(4, "tasks/get", json!({ "taskId": "x" })).await;
    let hint = plain
        .send(
            5,
            "tools/call",
            json!({ "name": "instant", "arguments": {}, "task": { "ttl": 1 } }),
        )
        .await;

    // "A server MUST NOT return CreateTaskResult to a client that did not include the
    // extension capability on its request"; a task-only tool is -32021 naming it.
    assert_eq!(task.result()["resultType"], "task");
    assert_eq!(sync.result()["resultType"], "complete");
    assert_eq!(sync.result()["content"][0]["text"], "done");
    assert_eq!(required.status, 400);
    assert_eq!(required.error().0, -32021);
    assert_eq!(
        required.response["error"]["data"]["requiredCapabilities"],
        json!({ "extensions": { EXTENSION: {} } })
    );
    assert_eq!(get.status, 400);
    assert_eq!(get.error().0, -32021);
    assert_eq!(
        hint.result()["resultType"],
        "complete",
        "a legacy task hint is ignored"
    );
    check(&server);
}

// ---------------------------------------------------------------------------------------
// Creation, polling, outcomes ("Task Creation", "Task Polling", "Error Handling")

#[tokio::test]
async fn a_task_is_created_flat_found_at_once_and_its_result_inlined_once_the_clock_moves() {
    let server = server(vec![build()]).await;
    let peer = Peer::modern(&server.url(), with_tasks());

    let created = call(&peer, 1, "build", json!({ "target": "app" })).await;
    let id = task_id(&created);
    let working = get(&peer, 2, &id).await;
    server.advance_clock(Duration::from_secs(5));
    let done = get(&peer, 3, &id).await;

    let handle = created.result();
    assert_eq!(handle["status"], "working");
    assert_eq!(handle["ttlMs"], 60_000);
    assert_eq!(handle["pollIntervalMs"], 1_000);
    assert!(handle.get("task").is_none() && handle.get("ttl").is_none());
    // "The resultType field MUST be set to "complete"" on tasks/get.
    assert_eq!(working["resultType"], "complete");
    assert_eq!(working["status"], "working");
    assert!(working.get("result").is_none());
    assert_eq!(done["status"], "completed");
    assert_eq!(done["result"]["content"][0]["text"], "built app");
    check(&server);
}

#[tokio::test]
async fn an_is_error_result_completes_the_task_and_only_a_json_rpc_error_fails_it() {
    let lint = Tool::new("lint").task().respond_with(json!({
        "content": [{ "type": "text", "text": "bad input" }], "isError": true }));
    let crash = Tool::new("crash")
        .task()
        .end_with_error(-32603, "API rate limit exceeded");
    let server = server(vec![lint, crash]).await;
    let peer = Peer::modern(&server.url(), with_tasks());

    let lint = task_id(&call(&peer, 1, "lint", json!({})).await);
    let crash = task_id(&call(&peer, 2, "crash", json!({})).await);
    let completed = get(&peer, 3, &lint).await;
    let failed = get(&peer, 4, &crash).await;

    // "The failed status MUST NOT be used to represent non-JSON-RPC errors, such as a tool
    // result that completed with isError: true".
    assert_eq!(completed["status"], "completed");
    assert_eq!(completed["result"]["isError"], true);
    assert_eq!(failed["status"], "failed");
    assert_eq!(
        failed["error"],
        json!({ "code": -32603, "message": "API rate limit exceeded" })
    );
    assert_eq!(failed["statusMessage"], "API rate limit exceeded");
    assert!(failed.get("result").is_none());
    check(&server);
}

#[tokio::test]
async fn unknown_and_expired_tasks_are_invalid_params_and_removed_methods_are_not_found() {
    let short = Tool::new("short").task_with(mcp_decoy::spec::TaskSpec {
        ttl_ms: Some(1_000),
        ..mcp_decoy::spec::TaskSpec::default()
    });
    let server = server(vec![short]).await;
    let peer = Peer::modern(&server.url(), with_tasks());
    let id = task_id(&call(&peer, 1, "short", json!({})).await);

    server.advance_clock(Duration::from_secs(1));
    let expired = peer.send(2, "tasks/get", json!({ "taskId": id })).await;
    let unknown = peer.send(3, "tasks/get", json!({ "taskId": "nope" })).await;
    let result = peer.send(4, "tasks/result", json!({ "taskId": id })).await;
    let list = peer.send(5, "tasks/list", json!({})).await;

    assert!(
        expired.error().1.contains("Task has expired"),
        "{:?}",
        expired.error()
    );
    assert_eq!(expired.error().0, -32602);
    assert_eq!(unknown.error().0, -32602);
    assert!(
        unknown.error().1.contains("Task not found"),
        "{:?}",
        unknown.error()
    );
    for removed in [result, list] {
        assert_eq!((removed.status, removed.error().0), (404, -32601));
    }
    check(&server);
}

#[tokio::test]
async fn tasks_methods_need_mcp_name_to_equal_the_task_id() {
    let server = server(vec![build()]).await;
    let peer = Peer::modern(&server.url(), with_tasks());
    let id = task_id(&call(&peer, 1, "build", json!({})).await);

    // "the client MUST set the Mcp-Name header to the value of params.taskId".
    let missing = peer
        .send_with(2, "tasks/get", json!({ "taskId": id }), &[("mcp-name", "")])
        .await;
    let other = peer
        .send_with(
            3,
            "tasks/cancel",
            json!({ "taskId": id }),
            &[("mcp-name", "another")],
        )
        .await;

    for refused in [missing, other] {
        assert_eq!((refused.status, refused.error().0), (400, -32020));
    }
    assert_eq!(server.task(&id).expect("kept").status, TaskStatus::Working);
    check(&server);
}

// ---------------------------------------------------------------------------------------
// Input ("Task Update Requests")

#[tokio::test]
async fn an_ask_round_is_input_required_and_tasks_update_answers_it_key_by_key() {
    let server = server(vec![confirm()]).await;
    let peer = Peer::modern(&server.url(), with_tasks());
    let id = task_id(&call(&peer, 1, "confirm", json!({})).await);
    let yes = json!({ "action": "accept", "content": { "ok": true } });

    let asking = get(&peer, 2, &id).await;
    let partial = peer
        .result(
            3,
            "tasks/update",
            json!({ "taskId": id, "inputResponses": { "first": yes, "stray": 1 } }),
        )
        .await;
    let still = get(&peer, 4, &id).await;
    let bad = peer
        .send(
            5,
            "tasks/update",
            json!({ "taskId": id, "inputResponses": { "second": { "action": "maybe" } } }),
        )
        .await;
    peer.result(
        6,
        "tasks/update",
        json!({ "taskId": id, "inputResponses": {
        "first": { "action": "decline" }, "second": yes } }),
    )
    .await;
    let done = get(&peer, 7, &id).await;

    let keys = |task: &Value| -> Vec<String> {
        task["inputRequests"]
            .as_object()
            .map(|m| m.keys().cloned().collect())
            .unwrap_or_default()
    };
    assert_eq!(asking["status"], "input_required");
    assert_eq!(
        keys(&asking),
        ["first", "second"],
        "consecutive asks form one round"
    );
    assert_eq!(
        asking["inputRequests"]["first"]["method"],
        "elicitation/create"
    );
    // "MUST acknowledge the request with an empty result"; "MAY accept a partial set";
    // "SHOULD ignore any inputResponses ... not currently outstanding".
    assert_eq!(
        partial,
        json!({ "resultType": "complete",
        "_meta": partial["_meta"].clone() })
    );
    assert_eq!(still["status"], "input_required");
    assert_eq!(keys(&still), ["second"]);
    assert_eq!(bad.error().0, -32602);
    assert!(
        bad.error().1.contains("`params.inputResponses.second`"),
        "{:?}",
        bad.error()
    );
    assert_eq!(done["status"], "completed");
    assert_eq!(
        done["result"]["content"][0]["text"], "true true",
        "the repeated key was ignored"
    );
    let info = server.task(&id).expect("kept");
    assert_eq!(info.answered, ["first", "second"]);
    check(&server);
}

#[tokio::test]
async fn asking_first_runs_a_multi_round_trip_round_before_the_task_is_created() {
    let greet = Tool::new("greet_later")
        .task_with(mcp_decoy::spec::TaskSpec {
            ask_first: true,
            ..mcp_decoy::spec::TaskSpec::new(mcp_decoy::spec::TaskSupport::Required)
        })
        .ask("user_name", AskMethod::Elicitation, json!({ "message": "Name?",
            "requestedSchema": { "type": "object", "properties": { "name": { "type": "string" } } } }))
        .respond_with(text("Hello, ${answers.user_name.content.name}!"));
    let server = server(vec![greet]).await;
    let peer = Peer::modern(&server.url(), with_tasks());

    let round = call(&peer, 1, "greet_later", json!({})).await;
    let state = round.result()["requestState"].clone();
    let created = peer
        .send(2, "tools/call", json!({ "name": "greet_later", "arguments": {},
            "inputResponses": { "user_name": { "action": "accept", "content": { "name": "Alice" } } },
            "requestState": state }))
        .await;
    let done = get(&peer, 3, &task_id(&created)).await;

    // "SHOULD resolve all MRTR exchanges synchronously before responding with a
    // CreateTaskResult"; the task has no requestState (the suite's tasks-mrtr-composition).
    assert_eq!(round.result()["resultType"], "input_required");
    assert!(round.result().get("taskId").is_none());
    assert_eq!(created.result()["resultType"], "task");
    assert!(created.result().get("requestState").is_none());
    assert_eq!(done["result"]["content"][0]["text"], "Hello, Alice!");
    check(&server);
}

// ---------------------------------------------------------------------------------------
// Cancellation ("Task Cancellation")

#[tokio::test]
async fn cancel_is_acknowledged_empty_even_for_a_terminal_task() {
    let server = server(vec![build()]).await;
    let peer = Peer::modern(&server.url(), with_tasks());
    let id = task_id(&call(&peer, 1, "build", json!({})).await);

    let ack = peer
        .result(2, "tasks/cancel", json!({ "taskId": id }))
        .await;
    server.advance_clock(Duration::from_secs(10));
    let after = get(&peer, 3, &id).await;
    let again = peer
        .result(4, "tasks/cancel", json!({ "taskId": id }))
        .await;
    let unknown = peer
        .send(5, "tasks/cancel", json!({ "taskId": "nope" }))
        .await;

    for ack in [&ack, &again] {
        assert_eq!(ack["resultType"], "complete");
        assert!(ack.get("taskId").is_none() && ack.get("status").is_none());
    }
    assert_eq!(after["status"], "cancelled");
    assert_eq!(unknown.error().0, -32602);
    assert!(server.task(&id).expect("kept").cancel_requested);
    check(&server);
}

// ---------------------------------------------------------------------------------------
// Notifications ("Task Status Notifications")

#[tokio::test]
async fn a_listen_stream_that_names_a_task_hears_each_status_with_the_detailed_task() {
    let server = server(vec![build()]).await;
    let peer = Peer::modern(&server.url(), with_tasks());
    let id = task_id(&call(&peer, 1, "build", json!({ "target": "app" })).await);

    let mut listen = peer
        .stream(
            2,
            "subscriptions/listen",
            json!({ "notifications": { "taskIds": [id, "unknown"] } }),
        )
        .await;
    let ack = listen
        .next_notification("notifications/subscriptions/acknowledged")
        .await;
    server.advance_clock(Duration::from_secs(5));
    let status = listen.next_notification("notifications/tasks").await;
    let refused = Peer::modern(&server.url(), json!({}))
        .send(
            3,
            "subscriptions/listen",
            json!({ "notifications": { "taskIds": [id] } }),
        )
        .await;

    assert_eq!(
        ack["params"]["notifications"]["taskIds"],
        json!([id, "unknown"])
    );
    assert_eq!(status["params"]["taskId"], json!(id));
    assert_eq!(status["params"]["status"], "completed");
    assert_eq!(
        status["params"]["result"]["content"][0]["text"],
        "built app"
    );
    assert_eq!(
        status["params"]["_meta"]["io.modelcontextprotocol/subscriptionId"],
        2
    );
    // "If a client requests task status notifications but does not declare the ...
    // extension capability, the server MUST return a JSON-RPC error".
    assert_eq!((refused.status, refused.error().0), (400, -32021));
    drop(listen);
    check(&server);
}

// ---------------------------------------------------------------------------------------
// rmcp's client, which speaks the extension

#[tokio::test]
async fn the_rmcp_client_polls_answers_and_reads_a_task_to_its_end() {
    use rmcp::model::{CallToolResponse, GetTaskParams, TaskPayload, UpdateTaskParams};

    let server = server(vec![confirm()]).await;
    let capabilities: rmcp::model::ClientCapabilities =
        serde_json::from_value(with_tasks()).expect("ClientCapabilities");
    let config = rmcp::model::ClientConfig::new(
        capabilities,
        rmcp::model::Implementation::new(common::CLIENT_NAME, "1.0.0"),
    );
    let transport = rmcp::transport::StreamableHttpClientTransport::from_uri(server.url());
    let client = tokio::time::timeout(
        common::PATIENCE,
        rmcp::ClientServiceExt::serve_with_lifecycle(
            config,
            transport,
            rmcp::ClientLifecycleMode::Discover {
                preferred_versions: vec![rmcp::model::ProtocolVersion::V_2026_07_28],
            },
        ),
    )
    .await
    .expect("discover in time")
    .expect("the rmcp client discovers the decoy");

    let created = client
        .call_tool_once(common::call("confirm", json!({})))
        .await
        .expect("tools/call");
    let CallToolResponse::Task(created) = created else {
        panic!("expected a task, got {created:?}");
    };
    let id = created.task.task_id.clone();
    let polled = client
        .get_task(GetTaskParams::new(&id))
        .await
        .expect("tasks/get");
    let TaskPayload::InputRequired { input_requests } = &polled.task.payload else {
        panic!("expected input_required, got {polled:?}");
    };
    let answers = input_requests
        .keys()
        .map(|key| {
            (
                key.clone(),
                json!({ "action": "accept", "content": { "ok": true } }),
            )
        })
        .collect();
    client
        .update_task(UpdateTaskParams::new(&id, answers))
        .await
        .expect("tasks/update");
    let done = client
        .get_task(GetTaskParams::new(&id))
        .await
        .expect("tasks/get");

    let TaskPayload::Completed { result } = &done.task.payload else {
        panic!("expected completed, got {done:?}");
    };
    assert_eq!(result["content"][0]["text"], "true true");
    let info = server.task(&id).expect("kept");
    assert_eq!(info.poll_count, 2);
    assert!(info.answered_every_input_request());
    client.cancel().await.expect("the client stops");
    check(&server);
}
