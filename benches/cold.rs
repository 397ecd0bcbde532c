//! The first fixture of a process: what the first test of a test binary pays, one-time
//! initialisation included (lazily built validators, the first runtime and thread, the
//! first connection). Criterion's warm-up hides exactly this, so this bench re-runs its own
//! executable once per sample and times each phase in the fresh child process.
//!
//! `cargo bench --bench cold` (release) and `cargo bench --profile dev --bench cold` (what
//! `cargo test` builds). See `benches/README.md`.

// `shutdown` is for the criterion benches only.
#[allow(dead_code)]
mod baseline;

use std::process::Command;
use std::time::{Duration, Instant};

use baseline::Baseline;
use mcp_decoy::{MockMcpServer, Tool};
use reqwest::header::{ACCEPT, CONTENT_TYPE};
use serde_json::json;

const CHILD: &str = "MCP_DECOY_BENCH_COLD_CHILD";
const SAMPLES: usize = 15;
const INITIALIZE: &str = r#"{"jsonrpc":"2.0","id":0,"method":"initialize","params":{"protocolVersion":"2025-11-25","capabilities":{},"clientInfo":{"name":"bench","version":"1.0.0"}}}"#;
const CALL: &str = r#"{"jsonrpc":"2.0","id":1,"method":"tools/call","params":{"name":"echo","arguments":{"message":"hello"}}}"#;
const PHASES: [&str; 5] = ["start", "initialize", "tools/call", "drop", "total"];

fn main() {
    if let Ok(kind) = std::env::var(CHILD) {
        child(&kind);
        return;
    }
    // `cargo bench -- FILTER` passes FILTER to every bench; run only if it names this one.
    let filter = std::env::args().skip(1).find(|a| !a.starts_with('-'));
    if filter.is_some_and(|f| !"cold".contains(f.as_str())) {
        return;
    }
    let profile = if cfg!(debug_assertions) {
        "dev"
    } else {
        "release"
    };
    println!("cold: first server of a fresh process, {SAMPLES} processes each, {profile} build");
    println!("median (min-max) per phase, microseconds");
    println!(
        "{:<9} {:>22} {:>22} {:>22} {:>22} {:>22}",
        "server", PHASES[0], PHASES[1], PHASES[2], PHASES[3], PHASES[4]
    );
    for kind in ["fixture", "baseline"] {
        let mut samples: Vec<[u64; 5]> = (0..SAMPLES).map(|_| run_child(kind)).collect();
        let mut row = format!("{kind:<9}");
        for phase in 0..PHASES.len() {
            samples.sort_by_key(|s| s[phase]);
            let (min, median, max) = (
                samples[0][phase],
                samples[SAMPLES / 2][phase],
                samples[SAMPLES - 1][phase],
            );
            row.push_str(&format!(" {:>22}", format!("{median} ({min}-{max})")));
        }
        println!("{row}");
    }
}

fn run_child(kind: &str) -> [u64; 5] {
    let output = Command::new(std::env::current_exe().unwrap())
        .env(CHILD, kind)
        .output()
        .unwrap();
    assert!(output.status.success(), "{output:?}");
    let text = String::from_utf8(output.stdout).unwrap();
    let numbers: Vec<u64> = text
        .split_whitespace()
        .map(|n| n.parse().unwrap())
        .collect();
    numbers.try_into().unwrap()
}

/// Times one server's life in this fresh process and prints the phases in microseconds.
fn child(kind: &str) {
    let rt = tokio::runtime::Builder::new_current_thread()
        .enable_all()
        .build()
        .unwrap();
    let client = reqwest::Client::builder()
        .no_proxy()
        .tcp_nodelay(true)
        .build()
        .unwrap();
    let phases: Vec<Duration> = rt.block_on(async {
        let t0 = Instant::now();
        let (fixture, base) = if kind == "fixture" {
            let server = MockMcpServer::builder()
                .tool(Tool::new("echo").respond_with(
                    json!({"content": [{"type": "text", "text": "${args.message}"}]}),
                ))
                .start()
                .await;
            (Some(server), None)
        } else {
            (None, Some(Baseline::start().await))
        };
        let url = match (&fixture, &base) {
            (Some(server), _) => server.url(),
            (_, Some(server)) => server.url(),
            _ => unreachable!(),
        };
        let t1 = Instant::now();
        let post = |body: &'static str| {
            client
                .post(&url)
                .header(CONTENT_TYPE, "application/json")
                .header(ACCEPT, "application/json, text/event-stream")
                .body(body)
        };
        let response = post(INITIALIZE).send().await.unwrap();
        assert!(response.status().is_success());
        let session = response.headers()["mcp-session-id"].clone();
        response.bytes().await.unwrap();
        let t2 = Instant::now();
        let response = post(CALL)
            .header("mcp-session-id", session)
            .send()
            .await
            .unwrap();
        assert!(response.status().is_success());
        let body = response.bytes().await.unwrap();
        assert!(body.windows(5).any(|w| w == b"hello"));
        let t3 = Instant::now();
        drop((fixture, base));
        let t4 = Instant::now();
        vec![t1 - t0, t2 - t1, t3 - t2, t4 - t3, t4 - t0]
    });
    let line: Vec<String> = phases.iter().map(|d| d.as_micros().to_string()).collect();
    println!("{}", line.join(" "));
}
