//! How much memory the capture log holds after `tools/call`s of `echo` with a 1 MiB
//! `message` (issue 13 item 6, issue 16): the process's resident set (`VmRSS`, and its peak
//! `VmHWM`) before the server starts and after the calls, the records kept, and the JSON
//! size of what they hold. Criterion does not fit (one sample is thousands of 1 MiB
//! requests), so this prints one row per call count.
//!
//! `cargo bench --bench log_memory` runs 200 and 5,000 calls (5,000 calls are 10,000
//! records, the default `log_limit`); `LOG_MEMORY_CALLS=200 cargo bench --bench log_memory`
//! runs one count. Each count gets its own server; the rows share one process, so the
//! peak (`VmHWM`) of a row includes the rows before it.

use std::io::Write;

use futures::StreamExt;
use mcp_decoy::{MockMcpServer, Tool};
use reqwest::header::{ACCEPT, CONTENT_TYPE};
use serde_json::json;

const INITIALIZE: &str = r#"{"jsonrpc":"2.0","id":0,"method":"initialize","params":{"protocolVersion":"2025-11-25","capabilities":{},"clientInfo":{"name":"bench","version":"1.0.0"}}}"#;
const DEFAULT_CALLS: [usize; 2] = [200, 5_000];
/// The size of each call's `message`.
const MESSAGE: usize = 1024 * 1024;
/// Calls in flight.
const IN_FLIGHT: usize = 4;

fn main() {
    let filter = std::env::args().skip(1).find(|a| !a.starts_with('-'));
    if filter.is_some_and(|f| !"log_memory".contains(f.as_str())) {
        return;
    }
    let counts: Vec<usize> = match std::env::var("LOG_MEMORY_CALLS") {
        Ok(text) => text
            .split(',')
            .map(|n| n.trim().parse().expect("LOG_MEMORY_CALLS: whole numbers"))
            .collect(),
        Err(_) => DEFAULT_CALLS.to_vec(),
    };
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
        "log_memory: tools/call of echo with a {} KiB message, default log settings, {profile} build",
        MESSAGE / 1024
    );
    println!(
        "{:>7} {:>8} {:>14} {:>13} {:>13} {:>13}",
        "calls", "records", "log JSON", "RSS before", "RSS after", "peak RSS"
    );
    for calls in counts {
        let before = status_kib("VmRSS");
        let (records, json_bytes, after) = rt.block_on(async {
            let server = MockMcpServer::builder().tool(Tool::echo()).start().await;
            traffic(&client, &server.url(), calls).await;
            // Before `log()`, which copies the records.
            let after = status_kib("VmRSS");
            let log = server.log();
            let mut counter = Counter(0);
            serde_json::to_writer(&mut counter, &log).expect("the log serializes");
            (log.records().len(), counter.0, after)
        });
        println!(
            "{calls:>7} {records:>8} {:>14} {:>13} {:>13} {:>13}",
            mib(json_bytes as u64 / 1024),
            mib(before),
            mib(after),
            mib(status_kib("VmHWM")),
        );
    }
}

/// `initialize`, then `calls` calls of `echo` with a 1 MiB `message`, a few at a time; each
/// answer must hold the whole message.
async fn traffic(client: &reqwest::Client, url: &str, calls: usize) {
    let response = client
        .post(url)
        .header(CONTENT_TYPE, "application/json")
        .header(ACCEPT, "application/json, text/event-stream")
        .body(INITIALIZE)
        .send()
        .await
        .unwrap();
    let session = response.headers()["mcp-session-id"].clone();
    response.bytes().await.unwrap();
    let message = "m".repeat(MESSAGE);
    futures::stream::iter(0..calls)
        .map(|id| {
            let body = json!({ "jsonrpc": "2.0", "id": id + 1, "method": "tools/call",
                "params": { "name": "echo", "arguments": { "message": message } } })
            .to_string();
            let request = client
                .post(url)
                .header(CONTENT_TYPE, "application/json")
                .header(ACCEPT, "application/json, text/event-stream")
                .header("mcp-session-id", session.clone())
                .header("mcp-protocol-version", "2025-11-25")
                .body(body);
            async move {
                let response = request.send().await.unwrap();
                assert!(response.status().is_success(), "{}", response.status());
                let answer = response.bytes().await.unwrap();
                assert!(answer.len() > MESSAGE, "the client gets the whole echo");
            }
        })
        .buffer_unordered(IN_FLIGHT)
        .for_each(|()| async {})
        .await;
}

/// A field of `/proc/self/status` in KiB (0 where there is none).
fn status_kib(field: &str) -> u64 {
    let status = std::fs::read_to_string("/proc/self/status").unwrap_or_default();
    status
        .lines()
        .find_map(|line| line.strip_prefix(field)?.strip_prefix(':'))
        .and_then(|rest| rest.trim().trim_end_matches("kB").trim().parse().ok())
        .unwrap_or(0)
}

fn mib(kib: u64) -> String {
    format!("{:.1} MiB", kib as f64 / 1024.0)
}

/// Counts the bytes written to it.
struct Counter(usize);

impl Write for Counter {
    fn write(&mut self, buf: &[u8]) -> std::io::Result<usize> {
        self.0 += buf.len();
        Ok(buf.len())
    }

    fn flush(&mut self) -> std::io::Result<()> {
        Ok(())
    }
}
