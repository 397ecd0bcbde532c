//! A 2026-07-28 `tools/call` that becomes a task, polled ten times with `tasks/get` to its
//! result, against the same plain call answered at once, on one fixture, in the same run
//! (the tasks issue's bench). Real loopback HTTP with reqwest, stateless requests with the
//! `_meta` and headers a conforming client sends. The task's script is one long delay: nine
//! polls see it `working`, then the bench advances the server's clock and the tenth sees it
//! `completed` with its result, so every iteration takes the same path.
//!
//! `cargo bench --bench tasks`; debug: `cargo bench --profile dev --bench tasks`.

use std::hint::black_box;
use std::time::Duration;

use criterion::{Criterion, Throughput, criterion_group, criterion_main};
use mcp_decoy::{MockMcpServer, Tool};
use reqwest::header::{ACCEPT, CONTENT_TYPE};
use serde_json::{Value, json};

const VERSION: &str = "2026-07-28";
const POLLS: usize = 10;
// Shorter than the default TTL (a minute), or the tenth poll would find the task expired.
const STEP: Duration = Duration::from_secs(30);

fn runtime() -> tokio::runtime::Runtime {
    tokio::runtime::Builder::new_current_thread()
        .enable_all()
        .build()
        .expect("a client runtime")
}

/// One modern request; returns its result.
async fn request(client: &reqwest::Client, url: &str, method: &str, mut params: Value) -> Value {
    params["_meta"] = json!({
        "io.modelcontextprotocol/protocolVersion": VERSION,
        "io.modelcontextprotocol/clientCapabilities": { "extensions": { "io.modelcontextprotocol/tasks": {} } },
    });
    let name = params
        .get("name")
        .or_else(|| params.get("taskId"))
        .and_then(Value::as_str)
        .unwrap_or_default()
        .to_string();
    let body = json!({ "jsonrpc": "2.0", "id": 1, "method": method, "params": params });
    let response: Value = client
        .post(url)
        .header(CONTENT_TYPE, "application/json")
        .header(ACCEPT, "application/json, text/event-stream")
        .header("mcp-protocol-version", VERSION)
        .header("mcp-method", method)
        .header("mcp-name", name)
        .body(body.to_string())
        .send()
        .await
        .expect("the request")
        .json()
        .await
        .expect("a JSON answer");
    response["result"].clone()
}

/// The plain call: one request, its result.
async fn plain(client: &reqwest::Client, url: &str) -> Value {
    request(
        client,
        url,
        "tools/call",
        json!({ "name": "plain", "arguments": { "message": "hi" } }),
    )
    .await
}

/// The task: the call, nine `working` polls, the clock moved, the tenth poll's result.
async fn task(client: &reqwest::Client, url: &str, server: &MockMcpServer) -> Value {
    let created = request(
        client,
        url,
        "tools/call",
        json!({ "name": "slow", "arguments": { "message": "hi" } }),
    )
    .await;
    let id = created["taskId"].as_str().expect("a task").to_string();
    let mut last = Value::Null;
    for poll in 0..POLLS {
        if poll == POLLS - 1 {
            server.advance_clock(STEP);
        }
        last = request(client, url, "tasks/get", json!({ "taskId": id })).await;
    }
    last
}

fn task_vs_plain(c: &mut Criterion) {
    let rt = runtime();
    let template = json!({"content": [{"type": "text", "text": "${args.message}"}]});
    let server = rt.block_on(
        MockMcpServer::builder()
            .tool(Tool::new("plain").respond_with(template.clone()))
            .tool(Tool::new("slow").task().delay(STEP).respond_with(template))
            .log_limit(1_000)
            .start(),
    );
    let client = reqwest::Client::builder()
        .no_proxy()
        .tcp_nodelay(true)
        .build()
        .expect("a client");
    let url = server.url();

    // Check what is measured: the plain call completes, the task completes on its tenth poll.
    let answer = rt.block_on(plain(&client, &url));
    assert_eq!(answer["content"][0]["text"], "hi", "{answer}");
    let done = rt.block_on(task(&client, &url, &server));
    assert_eq!(done["status"], "completed", "{done}");
    assert_eq!(done["result"]["content"][0]["text"], "hi", "{done}");
    let info = server.tasks().pop().expect("a task");
    assert_eq!(info.poll_count, POLLS as u64);

    let mut group = c.benchmark_group("tasks");
    group.throughput(Throughput::Elements(1));
    group.bench_function("plain_call", |b| {
        b.to_async(&rt)
            .iter(|| async { black_box(plain(&client, &url).await) })
    });
    group.bench_function("task_10_polls", |b| {
        b.to_async(&rt)
            .iter(|| async { black_box(task(&client, &url, &server).await) })
    });
    group.finish();
    drop(server);
}

fn config() -> Criterion {
    Criterion::default()
        .sample_size(30)
        .warm_up_time(Duration::from_secs(1))
        .measurement_time(Duration::from_secs(4))
}

criterion_group! { name = benches; config = config(); targets = task_vs_plain }
criterion_main!(benches);
