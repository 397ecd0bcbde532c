//! `tools/call` in the two eras on the same fixture, in the same run (issue 4's bench): a
//! 2026-07-28 stateless request (every required header, `_meta` with protocol version,
//! client capabilities and client info; the server checks them all and builds a detached
//! session per request) against a 2025-11-25 request in one initialized session. Real
//! loopback HTTP with reqwest, 1 or 16 requests in flight, pooled keep-alive connections.
//!
//! `cargo bench --bench eras`; debug: `cargo bench --profile dev --bench eras`.

use std::hint::black_box;
use std::time::{Duration, Instant};

use criterion::{BenchmarkId, Criterion, Throughput, criterion_group, criterion_main};
use futures::StreamExt;
use mcp_decoy::{MockMcpServer, Tool};
use reqwest::header::{ACCEPT, CONTENT_TYPE};
use serde_json::{Value, json};

const LEGACY: &str = "2025-11-25";
const MODERN: &str = "2026-07-28";
const INITIALIZE: &str = r#"{"jsonrpc":"2.0","id":0,"method":"initialize","params":{"protocolVersion":"2025-11-25","capabilities":{},"clientInfo":{"name":"bench","version":"1.0.0"}}}"#;

/// The client runs on a current-thread runtime, as under a default `#[tokio::test]`.
fn runtime() -> tokio::runtime::Runtime {
    tokio::runtime::Builder::new_current_thread()
        .enable_all()
        .build()
        .expect("a client runtime")
}

#[derive(Debug, Clone, Copy, PartialEq, Eq)]
enum Era {
    Legacy,
    Modern,
}

impl Era {
    fn name(self) -> &'static str {
        match self {
            Era::Legacy => "legacy_session",
            Era::Modern => "modern_stateless",
        }
    }
}

async fn session(client: &reqwest::Client, url: &str) -> String {
    let response = client
        .post(url)
        .header(CONTENT_TYPE, "application/json")
        .header(ACCEPT, "application/json, text/event-stream")
        .body(INITIALIZE)
        .send()
        .await
        .expect("initialize");
    assert!(response.status().is_success(), "{}", response.status());
    let session = response.headers()["mcp-session-id"]
        .to_str()
        .expect("an ASCII session id")
        .to_string();
    black_box(response.bytes().await.expect("the initialize body"));
    session
}

/// One `tools/call` of `echo` in `era`; returns the whole body.
async fn call(
    client: &reqwest::Client,
    url: &str,
    era: Era,
    session: &str,
    id: u64,
) -> bytes::Bytes {
    let mut params = json!({ "name": "echo", "arguments": { "message": "hello" } });
    let request = client
        .post(url)
        .header(CONTENT_TYPE, "application/json")
        .header(ACCEPT, "application/json, text/event-stream");
    let request = match era {
        Era::Legacy => request
            .header("mcp-session-id", session)
            .header("mcp-protocol-version", LEGACY),
        Era::Modern => {
            params["_meta"] = json!({
                "io.modelcontextprotocol/protocolVersion": MODERN,
                "io.modelcontextprotocol/clientCapabilities": {},
                "io.modelcontextprotocol/clientInfo": { "name": "bench", "version": "1.0.0" }
            });
            request
                .header("mcp-protocol-version", MODERN)
                .header("mcp-method", "tools/call")
                .header("mcp-name", "echo")
        }
    };
    let body = json!({ "jsonrpc": "2.0", "id": id, "method": "tools/call", "params": params });
    let response = request
        .body(body.to_string())
        .send()
        .await
        .expect("tools/call");
    assert!(response.status().is_success(), "{}", response.status());
    response.bytes().await.expect("the whole body")
}

fn eras(c: &mut Criterion) {
    let rt = runtime();
    let server =
        rt.block_on(
            MockMcpServer::builder()
                .tool(Tool::new("echo").respond_with(
                    json!({"content": [{"type": "text", "text": "${args.message}"}]}),
                ))
                .log_limit(1_000)
                .start(),
        );
    let client = reqwest::Client::builder()
        .no_proxy()
        .tcp_nodelay(true)
        .build()
        .expect("a client");
    let url = server.url();
    let session = rt.block_on(session(&client, &url));

    // Check what is measured: both eras answer the same content as JSON, and the modern
    // answer is a complete 2026-07-28 result.
    let answers = [Era::Legacy, Era::Modern].map(|era| {
        let body = rt.block_on(call(&client, &url, era, &session, 1));
        let answer: Value = serde_json::from_slice(&body).expect("a JSON answer");
        assert!(answer.get("error").is_none(), "{era:?}: {answer}");
        answer
    });
    let [legacy, modern] = &answers;
    assert_eq!(
        legacy["result"]["content"],
        json!([{"type": "text", "text": "hello"}])
    );
    assert_eq!(legacy["result"]["content"], modern["result"]["content"]);
    assert_eq!(modern["result"]["resultType"], "complete");
    assert!(legacy["result"].get("resultType").is_none());

    let mut group = c.benchmark_group("eras");
    // One element per call: "thrpt" is requests/s, "time" is wall time per call.
    group.throughput(Throughput::Elements(1));
    for concurrency in [1usize, 16] {
        for era in [Era::Modern, Era::Legacy] {
            group.bench_with_input(
                BenchmarkId::new(era.name(), format!("c{concurrency}")),
                &concurrency,
                |b, &concurrency| {
                    b.to_async(&rt).iter_custom(|iters| {
                        let (client, url, session) = (&client, url.as_str(), session.as_str());
                        async move {
                            let started = Instant::now();
                            futures::stream::iter(0..iters)
                                .map(|id| call(client, url, era, session, id))
                                .buffer_unordered(concurrency)
                                .for_each(|body| {
                                    black_box(body);
                                    async {}
                                })
                                .await;
                            started.elapsed()
                        }
                    })
                },
            );
        }
    }
    group.finish();
    drop(server);
}

fn config() -> Criterion {
    Criterion::default()
        .sample_size(30)
        .warm_up_time(Duration::from_secs(1))
        .measurement_time(Duration::from_secs(4))
}

criterion_group! { name = benches; config = config(); targets = eras }
criterion_main!(benches);
