//! Soak (issue 13, "Proof"): the app binary, pinned to core 0, holds 1,000 legacy sessions
//! while a client pinned to core 1 calls `tools/call echo` at a steady rate for 10 minutes;
//! the app's RSS is sampled every 10 s and must be flat after warm-up (the log reaches its
//! 10,000-record limit in the first minute, then only recycles).
//!
//! `cargo bench --features decoy-cli --bench soak`; `SOAK_SECS` (default 600) and
//! `SOAK_RATE` (calls per second, default 200) shorten or change the run. Prints one line per
//! sample and a summary; exits non-zero when RSS grew more than 10% after warm-up.

use std::process::{Child, Command, Stdio};
use std::time::{Duration, Instant};

use reqwest::header::{ACCEPT, CONTENT_TYPE};
use serde_json::{Value, json};

const SESSIONS: usize = 1_000;
const PROTOCOL: &str = "2025-11-25";

fn env_or(name: &str, default: u64) -> u64 {
    std::env::var(name)
        .ok()
        .and_then(|v| v.parse().ok())
        .unwrap_or(default)
}

fn rss_kib(pid: u32) -> u64 {
    std::fs::read_to_string(format!("/proc/{pid}/status"))
        .ok()
        .and_then(|s| {
            s.lines()
                .find_map(|l| l.strip_prefix("VmRSS:"))
                .and_then(|v| v.split_whitespace().next())
                .and_then(|v| v.parse().ok())
        })
        .unwrap_or(0)
}

/// Pins this process (the load generator) to `core` when `taskset` exists.
fn pin_self(core: u32) {
    let _ = Command::new("taskset")
        .args(["-pc", &core.to_string(), &std::process::id().to_string()])
        .stdout(Stdio::null())
        .status();
}

struct App(Child);

impl Drop for App {
    fn drop(&mut self) {
        let _ = self.0.kill();
        let _ = self.0.wait();
    }
}

fn start_app(dir: &std::path::Path, mcp: u16, ui: u16) -> App {
    let binary = env!("CARGO_BIN_EXE_mcp-decoy");
    let mut command = Command::new("taskset");
    command.args(["-c", "0", binary]);
    if Command::new("taskset").arg("-V").output().is_err() {
        command = Command::new(binary);
    }
    let child = command
        .args(["--config-dir", &dir.display().to_string()])
        .args(["--mcp-port", &mcp.to_string(), "--ui-port", &ui.to_string()])
        .stdout(Stdio::null())
        .stderr(Stdio::null())
        .spawn()
        .expect("spawn the app");
    let deadline = Instant::now() + Duration::from_secs(20);
    while std::net::TcpStream::connect(("127.0.0.1", ui)).is_err() {
        assert!(Instant::now() < deadline, "the app did not start");
        std::thread::sleep(Duration::from_millis(20));
    }
    App(child)
}

async fn post(
    http: &reqwest::Client,
    url: &str,
    session: Option<&str>,
    body: Value,
) -> reqwest::Response {
    let mut request = http
        .post(url)
        .header(CONTENT_TYPE, "application/json")
        .header(ACCEPT, "application/json, text/event-stream")
        .header("mcp-protocol-version", PROTOCOL)
        .body(body.to_string());
    if let Some(session) = session {
        request = request.header("mcp-session-id", session);
    }
    request.send().await.expect("the app answers")
}

async fn open_session(http: &reqwest::Client, url: &str) -> String {
    let reply = post(
        http,
        url,
        None,
        json!({ "jsonrpc": "2.0", "id": 0, "method": "initialize",
        "params": { "protocolVersion": PROTOCOL, "capabilities": {},
                    "clientInfo": { "name": "soak", "version": "1" } } }),
    )
    .await;
    let session = reply
        .headers()
        .get("mcp-session-id")
        .and_then(|v| v.to_str().ok())
        .expect("a session id")
        .to_owned();
    let _ = reply.bytes().await;
    let done = post(
        http,
        url,
        Some(&session),
        json!({ "jsonrpc": "2.0", "method": "notifications/initialized" }),
    )
    .await;
    assert_eq!(done.status(), 202);
    session
}

fn main() {
    // `cargo bench` passes `--bench`; this harness takes no arguments of its own.
    let seconds = env_or("SOAK_SECS", 600);
    let rate = env_or("SOAK_RATE", 200).max(1);
    pin_self(1);
    let dir = std::env::temp_dir().join(format!("mcp-decoy-soak-{}", std::process::id()));
    let _ = std::fs::remove_dir_all(&dir);
    std::fs::create_dir_all(&dir).expect("a scratch dir");
    let (mcp, ui) = loop {
        let a = portpicker::pick_unused_port().expect("a port");
        let b = portpicker::pick_unused_port().expect("a port");
        if a != b {
            break (a, b);
        }
    };
    let app = start_app(&dir, mcp, ui);
    let pid = app.0.id();
    let url = format!("http://localhost:{mcp}/s/echo/mcp");
    let runtime = tokio::runtime::Builder::new_current_thread()
        .enable_all()
        .build()
        .expect("rt");
    let http = reqwest::Client::builder()
        .no_proxy()
        .tcp_nodelay(true)
        .build()
        .expect("client");

    runtime.block_on(async {
        let idle = rss_kib(pid);
        let mut sessions = Vec::with_capacity(SESSIONS);
        for _ in 0..SESSIONS {
            sessions.push(open_session(&http, &url).await);
        }
        println!("soak: {SESSIONS} sessions open; RSS idle {idle} KiB, with sessions {} KiB", rss_kib(pid));
        println!("soak: {rate} calls/s for {seconds} s; sample every 10 s");
        let started = Instant::now();
        let mut ticker = tokio::time::interval(Duration::from_micros(1_000_000 / rate));
        let mut samples: Vec<(u64, u64)> = Vec::new();
        let mut next_sample = Duration::ZERO;
        let (mut calls, mut worst) = (0u64, Duration::ZERO);
        while started.elapsed() < Duration::from_secs(seconds) {
            ticker.tick().await;
            let session = &sessions[(calls as usize) % SESSIONS];
            let sent = Instant::now();
            let reply = post(&http, &url, Some(session), json!({ "jsonrpc": "2.0", "id": calls + 1,
                "method": "tools/call", "params": { "name": "echo",
                "arguments": { "message": format!("call {calls} of the soak, with some text to log") } } })).await;
            assert_eq!(reply.status(), 200, "call {calls}");
            let _ = reply.bytes().await;
            worst = worst.max(sent.elapsed());
            calls += 1;
            if started.elapsed() >= next_sample {
                let rss = rss_kib(pid);
                println!("soak: t={:>4} s calls={calls:>7} rss={rss} KiB", started.elapsed().as_secs());
                samples.push((started.elapsed().as_secs(), rss));
                next_sample += Duration::from_secs(10);
            }
        }
        // Warm-up: the first minute (or the first third of a short run).
        let warm = (seconds / 3).min(60);
        let after: Vec<u64> = samples.iter().filter(|(t, _)| *t >= warm).map(|(_, r)| *r).collect();
        let (first, last) = (after.first().copied().unwrap_or(0), after.last().copied().unwrap_or(0));
        let peak = after.iter().copied().max().unwrap_or(0);
        println!(
            "soak: {calls} calls in {:.0} s, slowest {worst:?}; RSS after warm-up {first} KiB -> {last} KiB (peak {peak} KiB)",
            started.elapsed().as_secs_f64()
        );
        drop(app);
        let _ = std::fs::remove_dir_all(&dir);
        if last > first + first / 10 {
            eprintln!("soak: RSS grew more than 10% after warm-up");
            std::process::exit(1);
        }
    });
}
