//! Helpers of the 2025-11-25 task tests (`tests/protocol/tasks.rs`, `tests/protocol/tasks_streams.rs`): a
//! tool whose script takes five seconds on the server's clock, and the requests of the
//! task methods over a raw legacy session.

#![allow(
    dead_code,
    reason = "each test binary compiles this module and uses only part of it"
)]

use std::time::Duration;

use mcp_decoy::spec::LogLevel;
use mcp_decoy::{MockMcpServer, Tool};
use serde_json::{Value, json};

use super::peer::{Answer, Peer};

pub const RELATED: &str = "io.modelcontextprotocol/related-task";

pub fn text(t: &str) -> Value {
    json!({ "content": [{ "type": "text", "text": t }] })
}

/// A task tool whose script takes five seconds on the server's clock.
pub fn build() -> Tool {
    Tool::new("build")
        .task()
        .progress(10.0, Some(100.0), Some("compiling ${args.target}"))
        .delay(Duration::from_secs(5))
        .log(LogLevel::Info, "linking")
        .respond_with(text("built ${args.target}"))
}

pub async fn server(tools: Vec<Tool>) -> MockMcpServer {
    let mut builder = MockMcpServer::builder();
    for tool in tools {
        builder = builder.tool(tool);
    }
    builder.start().await
}

/// `tools/call` of `tool` with `arguments` as a task (`params.task` with `ttl`).
pub async fn call_as_task(
    peer: &Peer,
    id: i64,
    tool: &str,
    arguments: Value,
    ttl: Option<u64>,
) -> Answer {
    let task = match ttl {
        Some(ttl) => json!({ "ttl": ttl }),
        None => json!({}),
    };
    peer.send(
        id,
        "tools/call",
        json!({ "name": tool, "arguments": arguments, "task": task }),
    )
    .await
}

/// The task id of a `CreateTaskResult`.
pub fn task_id(answer: &Answer) -> String {
    answer.result()["task"]["taskId"]
        .as_str()
        .unwrap_or_else(|| panic!("no task.taskId in {}", answer.response))
        .to_string()
}

pub async fn get(peer: &Peer, id: i64, task: &str) -> Answer {
    peer.send(id, "tasks/get", json!({ "taskId": task })).await
}

pub fn check(server: &MockMcpServer) {
    super::schema::assert_server_messages_valid(&server.log());
}
