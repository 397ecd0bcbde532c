//! 2025-11-25 tasks over event streams (`2025-11-25/basic/utilities/tasks.mdx`): a
//! `tasks/result` that waits until the task ends, the task's progress, logs and status
//! notifications on the session's GET stream with the related-task `_meta`, and a task's
//! `ask` sent as a request on the `tasks/result` stream ("Input Required Status"). Raw HTTP
//! in a 2025-11-25 session; the script runs on the server's clock.

use crate::common;

use std::time::Duration;

use common::legacy_tasks::{RELATED, build, call_as_task, check, get, server, task_id, text};
use common::peer::Peer;
use mcp_decoy::Tool;
use mcp_decoy::spec::AskMethod;
use serde_json::json;

#[tokio::test]
async fn tasks_result_blocks_until_the_task_ends() {
    let server = server(vec![build()]).await;
    let peer = Peer::legacy(&server.url(), json!({})).await;
    let id = task_id(&call_as_task(&peer, 1, "build", json!({ "target": "lib" }), None).await);

    // "MUST block the response until the task reaches a terminal status".
    let mut waiting = peer
        .stream(2, "tasks/result", json!({ "taskId": id }))
        .await;
    let quiet = tokio::time::timeout(common::QUIET, waiting.next("nothing yet")).await;
    server.advance_clock(Duration::from_secs(5));
    let response = loop {
        let message = waiting.next("the task's result").await.expect("a response");
        if message.get("id") == Some(&json!(2)) {
            break message;
        }
    };

    assert!(
        quiet.is_err(),
        "tasks/result answered a working task: {quiet:?}"
    );
    assert_eq!(response["result"]["content"][0]["text"], "built lib");
    check(&server);
}

#[tokio::test]
async fn progress_logs_and_status_changes_reach_the_get_stream_tied_to_the_task() {
    let server = server(vec![build()]).await;
    let peer = Peer::legacy(&server.url(), json!({})).await;
    let mut stream = peer.get_stream().await;
    let created = peer
        .send(
            1,
            "tools/call",
            json!({ "name": "build", "arguments": { "target": "app" },
            "task": {}, "_meta": { "progressToken": "p1" } }),
        )
        .await;
    let id = task_id(&created);

    let progress = stream.next_notification("notifications/progress").await;
    server.advance_clock(Duration::from_secs(5));
    let log = stream.next_notification("notifications/message").await;
    let status = stream.next_notification("notifications/tasks/status").await;

    // "All requests, responses, and notifications associated with a task MUST include the
    // io.modelcontextprotocol/related-task key", and the status notification SHOULD NOT.
    assert_eq!(progress["params"]["progressToken"], "p1");
    assert_eq!(progress["params"]["_meta"][RELATED]["taskId"], json!(id));
    assert_eq!(log["params"]["data"], "linking");
    assert_eq!(log["params"]["_meta"][RELATED]["taskId"], json!(id));
    assert_eq!(status["params"]["taskId"], json!(id));
    assert_eq!(status["params"]["status"], "completed");
    assert!(status["params"].get("_meta").is_none());
    check(&server);
}

#[tokio::test]
async fn an_ask_step_makes_the_task_input_required_and_its_request_goes_out_on_tasks_result() {
    let confirm = Tool::new("delete")
        .task()
        .ask("confirm", AskMethod::Elicitation, json!({
            "message": "Delete ${args.file}?",
            "requestedSchema": { "type": "object", "properties": { "ok": { "type": "boolean" } } }
        }))
        .respond_with(text("deleted: ${answers.confirm.content.ok}"));
    let server = server(vec![confirm]).await;
    let peer = Peer::legacy(&server.url(), json!({ "elicitation": {} })).await;
    let id = task_id(&call_as_task(&peer, 1, "delete", json!({ "file": "a.txt" }), None).await);

    let parked = get(&peer, 2, &id).await;
    let mut result = peer
        .stream(3, "tasks/result", json!({ "taskId": id }))
        .await;
    let request = loop {
        let message = result.next("the elicitation").await.expect("a request");
        if message["method"] == "elicitation/create" {
            break message;
        }
    };
    peer.respond(
        &request["id"],
        json!({ "action": "accept", "content": { "ok": true } }),
    )
    .await;
    let response = loop {
        let message = result.next("the result").await.expect("the response");
        if message.get("id") == Some(&json!(3)) {
            break message;
        }
    };

    assert_eq!(parked.result()["status"], "input_required");
    // "The receiver MUST include the io.modelcontextprotocol/related-task metadata in the
    // request to associate it with the task".
    assert_eq!(request["params"]["message"], "Delete a.txt?");
    assert_eq!(request["params"]["_meta"][RELATED]["taskId"], json!(id));
    assert_eq!(response["result"]["content"][0]["text"], "deleted: true");
    let info = server.task(&id).expect("kept");
    assert_eq!(info.asked, ["confirm"]);
    assert!(info.answered_every_input_request());
    check(&server);
}
