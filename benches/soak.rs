//! Soak (issue 49, "Proof"): the release app, pinned to core 0, under a mixed workload from a
//! load generator pinned to core 1, with RSS sampled every 10 s. It must stay flat within
//! 10% after warm-up and under the ceiling its default budgets state.
//!
//! The workload, all at once:
//! - three clients churning legacy sessions: `initialize`, then 1-20 `tools/call`s echoing a
//!   string of 10 B, 1 KiB, 9 KiB, 100 KiB or 1 MiB, half of them answered as JSON and half on
//!   an event stream (the tool logs first); then `DELETE` for 80% of sessions and nothing for
//!   the rest, which stay idle until the session limit ends them;
//! - a REST `PATCH` of the echo tool every 2 s (a `list_changed` for every live session);
//! - one reader of the REST log stream.
//!
//! `cargo bench --features decoy-cli --bench soak`; `SOAK_SECS` (default 1200) shortens the
//! run, `SOAK_SEED` changes the draw, `SOAK_WRAP` prefixes the app's command (such as
//! `heaptrack -o /tmp/soak`). Prints one line per sample, the budgets' eviction counters, and a
//! summary; exits non-zero when RSS grew more than 10% after warm-up or passed the ceiling.

mod common;

use common::{open_session, post};
use std::process::{Child, Command, Stdio};
use std::sync::Arc;
use std::sync::atomic::{AtomicU64, Ordering};
use std::time::{Duration, Instant};

use futures::StreamExt;
use reqwest::header::AUTHORIZATION;
use serde_json::{Value, json};

const PROTOCOL: &str = "2025-11-25";
const SIZES: [usize; 5] = [10, 1024, 9 * 1024, 100 * 1024, 1024 * 1024];
/// What the default budgets add up to, with room for the process itself (see
/// `docs/guards.md`, "Memory budgets").
const CEILING_KIB: u64 = 512 * 1024;

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

struct App {
    child: Child,
    /// The app's own pid: the wrapper's child when `SOAK_WRAP` runs one.
    pid: u32,
}

impl Drop for App {
    fn drop(&mut self) {
        // SIGTERM first, so a wrapper such as heaptrack writes its data.
        let _ = Command::new("kill")
            .args(["-TERM", &self.pid.to_string()])
            .status();
        let deadline = Instant::now() + Duration::from_secs(60);
        while Instant::now() < deadline && matches!(self.child.try_wait(), Ok(None)) {
            std::thread::sleep(Duration::from_millis(100));
        }
        let _ = self.child.kill();
        let _ = self.child.wait();
    }
}

const SERVERS: &str = r#"{"servers": [{"name": "soak", "tools": [
  {"name": "echo", "description": "edit 0",
   "inputSchema": {"type": "object", "properties": {"text": {"type": "string"}}},
   "template": {"content": [{"type": "text", "text": "${args.text}"}]}},
  {"name": "stream",
   "inputSchema": {"type": "object", "properties": {"text": {"type": "string"}}},
   "script": [{"step": "log", "level": "info", "data": "streaming"}],
   "template": {"content": [{"type": "text", "text": "${args.text}"}]}}
]}]}"#;

fn start_app(dir: &std::path::Path, mcp: u16, ui: u16) -> App {
    std::fs::write(dir.join("servers.json"), SERVERS).expect("servers.json");
    let binary = env!("CARGO_BIN_EXE_mcp-decoy");
    let mut words: Vec<String> = Vec::new();
    if Command::new("taskset").arg("-V").output().is_ok() {
        words.extend(["taskset", "-c", "0"].map(String::from));
    }
    let wrap = std::env::var("SOAK_WRAP").unwrap_or_default();
    words.extend(wrap.split_whitespace().map(String::from));
    words.push(binary.to_string());
    let child = Command::new(&words[0])
        .args(&words[1..])
        .args(["--config-dir", &dir.display().to_string()])
        .args(["--mcp-port", &mcp.to_string(), "--ui-port", &ui.to_string()])
        .stdout(Stdio::null())
        .stderr(Stdio::null())
        .spawn()
        .expect("spawn the app");
    let deadline = Instant::now() + Duration::from_secs(60);
    while std::net::TcpStream::connect(("127.0.0.1", ui)).is_err() {
        assert!(Instant::now() < deadline, "the app did not start");
        std::thread::sleep(Duration::from_millis(20));
    }
    // The app is the newest process running the binary (a wrapper forks it).
    let pid = Command::new("pgrep")
        .args(["-n", "-f", binary])
        .output()
        .ok()
        .and_then(|o| String::from_utf8(o.stdout).ok())
        .and_then(|s| s.trim().parse().ok())
        .unwrap_or(child.id());
    App { child, pid }
}

/// A small xorshift: the same draw for the same seed.
struct Draw(u64);

impl Draw {
    fn next(&mut self, below: u64) -> u64 {
        self.0 ^= self.0 << 13;
        self.0 ^= self.0 >> 7;
        self.0 ^= self.0 << 17;
        self.0 % below
    }
}

#[derive(Default)]
struct Counts {
    sessions: AtomicU64,
    calls: AtomicU64,
    streamed: AtomicU64,
    abandoned: AtomicU64,
    edits: AtomicU64,
    log_bytes: AtomicU64,
}

/// One client: sessions one after another until `until`.
async fn churn(http: reqwest::Client, url: String, seed: u64, until: Instant, counts: Arc<Counts>) {
    let mut draw = Draw(seed | 1);
    let texts: Vec<String> = SIZES.iter().map(|n| "x".repeat(*n)).collect();
    while Instant::now() < until {
        let session = open_session(&http, &url).await;
        counts.sessions.fetch_add(1, Ordering::Relaxed);
        for id in 1..=1 + draw.next(20) {
            let streamed = draw.next(2) == 0;
            let tool = if streamed { "stream" } else { "echo" };
            let text = &texts[draw.next(SIZES.len() as u64) as usize];
            let reply = post(&http, &url, Some(&session), &json!({ "jsonrpc": "2.0", "id": id,
                "method": "tools/call", "params": { "name": tool, "arguments": { "text": text } } }))
            .await;
            assert_eq!(reply.status(), 200, "tools/call {tool}");
            let body = reply.bytes().await.expect("the answer");
            assert!(body.len() >= text.len(), "the echo came back");
            counts.calls.fetch_add(1, Ordering::Relaxed);
            if streamed {
                counts.streamed.fetch_add(1, Ordering::Relaxed);
            }
        }
        if draw.next(5) == 0 {
            counts.abandoned.fetch_add(1, Ordering::Relaxed);
        } else {
            let gone = http
                .delete(&url)
                .header("mcp-session-id", &session)
                .header("mcp-protocol-version", PROTOCOL)
                .send()
                .await
                .expect("DELETE");
            assert_eq!(gone.status(), 200, "DELETE");
        }
    }
}

/// A REST edit of the echo tool every 2 s: each is a `list_changed` for every live session.
async fn edit(
    http: reqwest::Client,
    api: String,
    token: String,
    until: Instant,
    counts: Arc<Counts>,
) {
    let mut tick = tokio::time::interval(Duration::from_secs(2));
    while Instant::now() < until {
        tick.tick().await;
        let n = counts.edits.fetch_add(1, Ordering::Relaxed) + 1;
        let reply = http
            .patch(format!("{api}/servers/soak/tools/echo"))
            .header(AUTHORIZATION, format!("Bearer {token}"))
            .json(&json!({ "description": format!("edit {n}") }))
            .send()
            .await
            .expect("PATCH");
        assert_eq!(reply.status(), 200, "PATCH the tool");
    }
}

/// Reads the server's live log stream, as the UI does, and throws it away.
async fn read_logs(http: reqwest::Client, api: String, token: String, counts: Arc<Counts>) {
    let reply = http
        .get(format!("{api}/servers/soak/logs/stream"))
        .header(AUTHORIZATION, format!("Bearer {token}"))
        .send()
        .await
        .expect("the log stream");
    assert_eq!(reply.status(), 200, "the log stream");
    let mut body = reply.bytes_stream();
    while let Some(Ok(chunk)) = body.next().await {
        counts
            .log_bytes
            .fetch_add(chunk.len() as u64, Ordering::Relaxed);
    }
}

fn main() {
    // `cargo bench` passes `--bench`; this harness takes no arguments of its own.
    let seconds = env_or("SOAK_SECS", 1200);
    let seed = env_or("SOAK_SEED", 49);
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
    let pid = app.pid;
    let runtime: Value = serde_json::from_str(
        &std::fs::read_to_string(dir.join("runtime.json")).expect("runtime.json"),
    )
    .expect("runtime.json is JSON");
    let token = runtime["apiToken"].as_str().expect("apiToken").to_string();
    let api = format!("http://localhost:{ui}/api/v1");
    let url = format!("http://localhost:{mcp}/s/soak/mcp");
    let rt = tokio::runtime::Builder::new_current_thread()
        .enable_all()
        .build()
        .expect("rt");
    let http = reqwest::Client::builder()
        .no_proxy()
        .tcp_nodelay(true)
        .build()
        .expect("client");

    let (samples, counts, started) = rt.block_on(async {
        let counts = Arc::new(Counts::default());
        let started = Instant::now();
        let until = started + Duration::from_secs(seconds);
        println!("soak: {seconds} s; RSS at start {} KiB; sample every 10 s", rss_kib(pid));
        let mut jobs = Vec::new();
        for client in 0..3 {
            jobs.push(tokio::spawn(churn(http.clone(), url.clone(), seed + client, until, counts.clone())));
        }
        jobs.push(tokio::spawn(edit(http.clone(), api.clone(), token.clone(), until, counts.clone())));
        let reader = tokio::spawn(read_logs(http.clone(), api.clone(), token.clone(), counts.clone()));
        let mut samples: Vec<(u64, u64)> = Vec::new();
        let mut tick = tokio::time::interval(Duration::from_secs(10));
        while Instant::now() < until {
            tick.tick().await;
            let rss = rss_kib(pid);
            let t = started.elapsed().as_secs();
            let memory = get_json(&http, &format!("{api}/memory"), &token).await;
            println!(
                "soak: t={t:>5} s rss={rss:>8} KiB sessions={:>6} live={:>5} calls={:>7} streamed={:>7} edits={:>4} events={:>6} KiB evicted={:>7} log={:>6} KiB log-stream={} KiB",
                counts.sessions.load(Ordering::Relaxed),
                memory["sessions"]["live"],
                counts.calls.load(Ordering::Relaxed),
                counts.streamed.load(Ordering::Relaxed),
                counts.edits.load(Ordering::Relaxed),
                memory["retainedEvents"]["usedBytes"].as_u64().unwrap_or(0) / 1024,
                memory["retainedEvents"]["evicted"],
                memory["capture"]["usedBytes"].as_u64().unwrap_or(0) / 1024,
                counts.log_bytes.load(Ordering::Relaxed) / 1024,
            );
            samples.push((t, rss));
            if jobs.iter().any(|j| j.is_finished()) && Instant::now() + Duration::from_secs(5) < until {
                break;
            }
        }
        for job in jobs {
            if let Err(failed) = job.await {
                eprintln!("soak: a client failed: {failed}");
                std::process::exit(1);
            }
        }
        reader.abort();
        (samples, counts, started)
    });

    let memory = rt.block_on(get_json(&http, &format!("{api}/memory"), &token));
    println!("soak: GET /memory at the end: {memory}");
    // Warm-up: the first five minutes (or the first third of a shorter run).
    let warm = (seconds / 3).min(300);
    let after: Vec<u64> = samples
        .iter()
        .filter(|(t, _)| *t >= warm)
        .map(|(_, r)| *r)
        .collect();
    let (first, last) = (
        after.first().copied().unwrap_or(0),
        after.last().copied().unwrap_or(0),
    );
    let peak = samples.iter().map(|(_, r)| *r).max().unwrap_or(0);
    let low = after.iter().copied().min().unwrap_or(0);
    println!(
        "soak: {} sessions ({} abandoned), {} calls ({} streamed), {} edits in {:.0} s; RSS after warm-up {first} KiB -> {last} KiB (range {low}-{} KiB), peak {peak} KiB, ceiling {CEILING_KIB} KiB",
        counts.sessions.load(Ordering::Relaxed),
        counts.abandoned.load(Ordering::Relaxed),
        counts.calls.load(Ordering::Relaxed),
        counts.streamed.load(Ordering::Relaxed),
        counts.edits.load(Ordering::Relaxed),
        started.elapsed().as_secs_f64(),
        after.iter().copied().max().unwrap_or(0),
    );
    drop(app);
    let _ = std::fs::remove_dir_all(&dir);
    if last > first + first / 10 {
        eprintln!("soak: RSS grew more than 10% after warm-up");
        std::process::exit(1);
    }
    if peak > CEILING_KIB {
        eprintln!("soak: RSS passed the ceiling");
        std::process::exit(1);
    }
}

async fn get_json(http: &reqwest::Client, url: &str, token: &str) -> Value {
    match http
        .get(url)
        .header(AUTHORIZATION, format!("Bearer {token}"))
        .send()
        .await
    {
        Ok(reply) => reply.json().await.unwrap_or(Value::Null),
        Err(_) => Value::Null,
    }
}
