//! How long `drop(server)` blocks the test as the capture log grows. Drop is meant to be a
//! signal, but it also verifies the tools' expectations, which reads the log. Criterion
//! does not fit (filling the log takes thousands of requests per sample), so this prints a
//! small table: median of 3 servers per log size, fixture with and without an expectation,
//! and the bare baseline.
//!
//! `cargo bench --bench drop` (release), `cargo bench --profile dev --bench drop` (debug).

// `url` and `start` only: the criterion benches use the rest.
#[allow(dead_code)]
mod baseline;

use std::time::{Duration, Instant};

use baseline::Baseline;
use futures::StreamExt;
use mcp_decoy::{MockMcpServer, Tool};
use reqwest::header::CONTENT_TYPE;
use serde_json::json;

const INITIALIZE: &str = r#"{"jsonrpc":"2.0","id":0,"method":"initialize","params":{"protocolVersion":"2025-11-25","capabilities":{},"clientInfo":{"name":"bench","version":"1.0.0"}}}"#;
const CALLS: [u64; 4] = [0, 100, 1_000, 5_000];
const REPEATS: usize = 3;

fn main() {
    let filter = std::env::args().skip(1).find(|a| !a.starts_with('-'));
    if filter.is_some_and(|f| !"drop".contains(f.as_str())) {
        return;
    }
    let rt = tokio::runtime::Builder::new_current_thread()
        .enable_all()
        .build()
        .unwrap();
    let client = reqwest::Client::builder().no_proxy().build().unwrap();
    let profile = if cfg!(debug_assertions) {
        "dev"
    } else {
        "release"
    };
    println!(
        "drop: time `drop(server)` blocks after N tools/calls, median of {REPEATS}, {profile} build"
    );
    println!(
        "{:>8} {:>9} {:>22} {:>22} {:>16}",
        "calls", "records", "fixture", "fixture, expect(0..)", "baseline"
    );
    for calls in CALLS {
        let mut records = 0;
        let mut row = Vec::new();
        for expect in [false, true] {
            let mut times: Vec<Duration> = (0..REPEATS)
                .map(|_| {
                    rt.block_on(async {
                        let mut tool = Tool::new("echo").respond_with(
                            json!({"content": [{"type": "text", "text": "${args.message}"}]}),
                        );
                        if expect {
                            tool = tool.expect(0..);
                        }
                        let server = MockMcpServer::builder().tool(tool).start().await;
                        traffic(&client, &server.url(), calls).await;
                        records = server.log().records().len();
                        let started = Instant::now();
                        drop(server);
                        started.elapsed()
                    })
                })
                .collect();
            times.sort();
            row.push(times[REPEATS / 2]);
        }
        let mut times: Vec<Duration> = (0..REPEATS)
            .map(|_| {
                rt.block_on(async {
                    let server = Baseline::start().await;
                    traffic(&client, &server.url(), calls).await;
                    let started = Instant::now();
                    drop(server);
                    started.elapsed()
                })
            })
            .collect();
        times.sort();
        row.push(times[REPEATS / 2]);
        println!(
            "{calls:>8} {records:>9} {:>22} {:>22} {:>16}",
            format!("{:.2?}", row[0]),
            format!("{:.2?}", row[1]),
            format!("{:.2?}", row[2])
        );
    }
}

/// `initialize`, then `calls` calls of `echo`, 16 at a time.
async fn traffic(client: &reqwest::Client, url: &str, calls: u64) {
    let response = client
        .post(url)
        .header(CONTENT_TYPE, "application/json")
        .body(INITIALIZE)
        .send()
        .await
        .unwrap();
    let session = response.headers()["mcp-session-id"].clone();
    response.bytes().await.unwrap();
    futures::stream::iter(0..calls)
        .map(|id| {
            let request = client
                .post(url)
                .header(CONTENT_TYPE, "application/json")
                .header("mcp-session-id", session.clone())
                .body(format!(
                    r#"{{"jsonrpc":"2.0","id":{id},"method":"tools/call","params":{{"name":"echo","arguments":{{"message":"hello"}}}}}}"#
                ));
            async move {
                let response = request.send().await.unwrap();
                assert!(response.status().is_success());
                response.bytes().await.unwrap()
            }
        })
        .buffer_unordered(16)
        .for_each(|_| async {})
        .await;
}
