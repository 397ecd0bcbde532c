//! The web UI's Logs tab with 10,000 records, in a real headless Chromium (issue 18: "the
//! page stays responsive with 10,000 log records"). The app binary holds a full log (its
//! default `--log-limit`), then the bench measures, in the page:
//!
//! - **open**: from navigating to the Logs tab until its count shows every record and the
//!   first row is drawn;
//! - **scroll**: the longest frame while the list scrolls through 120 frames of 400 px;
//! - **search**: from typing a query until the count shows the filtered total;
//! - **live**: the longest frame while 1,000 more `tools/call`s stream in.
//!
//! `cargo bench --features decoy-cli --bench ui_logs` (needs `chromium` and `chromium-driver`);
//! figures in `benches/README.md`.

#[path = "../tests/common/mod.rs"]
mod common;

use std::time::{Duration, Instant};

use common::app_process::{Running, Scratch};
use common::browser::Browser;
use serde_json::{Value, json};

const RECORDS: u64 = 10_000;
const ROUNDS: usize = 3;

/// A legacy session on the app's `echo` server, for filling the log.
struct Session {
    http: reqwest::Client,
    url: String,
    id: String,
}

impl Session {
    async fn open(url: &str) -> Session {
        let http = reqwest::Client::builder()
            .no_proxy()
            .tcp_nodelay(true)
            .build()
            .expect("a client");
        let response = http
            .post(url)
            .header("content-type", "application/json")
            .header("accept", "application/json, text/event-stream")
            .body(r#"{"jsonrpc":"2.0","id":0,"method":"initialize","params":{"protocolVersion":"2025-11-25","capabilities":{},"clientInfo":{"name":"ui-bench","version":"1.0.0"}}}"#)
            .send()
            .await
            .expect("initialize");
        let id = response
            .headers()
            .get("mcp-session-id")
            .and_then(|v| v.to_str().ok())
            .expect("a session id")
            .to_string();
        Session {
            http,
            url: url.to_string(),
            id,
        }
    }

    async fn call(&self, n: u64) {
        let body = json!({ "jsonrpc": "2.0", "id": n, "method": "tools/call",
            "params": { "name": "echo", "arguments": { "message": format!("message {n}") } } });
        let response = self
            .http
            .post(&self.url)
            .header("content-type", "application/json")
            .header("accept", "application/json, text/event-stream")
            .header("mcp-session-id", &self.id)
            .header("mcp-protocol-version", "2025-11-25")
            .body(body.to_string())
            .send()
            .await
            .expect("tools/call");
        assert!(response.status().is_success(), "{}", response.status());
        let _ = response.bytes().await;
    }

    /// `count` calls, 8 at a time.
    async fn calls(&self, from: u64, count: u64) {
        use futures::StreamExt;
        futures::stream::iter(from..from + count)
            .for_each_concurrent(8, |n| self.call(n))
            .await;
    }
}

async fn total(app: &Running) -> u64 {
    let page: Value = app
        .api_client()
        .get(format!("{}/servers/echo/logs?limit=1", app.api()))
        .send()
        .await
        .expect("GET logs")
        .json()
        .await
        .expect("a JSON page");
    page["total"].as_u64().unwrap_or(0)
}

/// The count the page shows now.
async fn shown(b: &Browser) -> u64 {
    b.eval("const c = document.querySelector('[data-testid=log-count]'); return c ? Number(c.dataset.count || -1) : -1")
        .await
        .as_i64()
        .map_or(0, |n| n.max(0) as u64)
}

/// The longest gap between animation frames while `action` (JS run each frame) runs for
/// `frames` frames.
async fn longest_frame(b: &Browser, action: &str, frames: u32) -> f64 {
    let script = format!(
        "const done = arguments[arguments.length - 1]; let last = performance.now(), max = 0, n = 0;\
         function step(t) {{ max = Math.max(max, t - last); last = t; {action}; \
           if (++n < {frames}) requestAnimationFrame(step); else done(max); }}\
         requestAnimationFrame(step);"
    );
    b.client
        .execute_async(&script, vec![])
        .await
        .expect("the frame probe")
        .as_f64()
        .unwrap_or(f64::NAN)
}

fn ms(d: Duration) -> String {
    format!("{:.0} ms", d.as_secs_f64() * 1000.0)
}

#[tokio::main(flavor = "current_thread")]
async fn main() {
    let dir = Scratch::new("ui-bench");
    let app = Running::start(dir.path());
    let session = Session::open(&app.mcp_url("echo")).await;
    let started = Instant::now();
    let mut n = 0;
    while total(&app).await < RECORDS {
        session.calls(n, 500).await;
        n += 500;
    }
    let records = total(&app).await;
    println!(
        "filled the log: {records} records ({n} calls) in {}",
        ms(started.elapsed())
    );

    let logs = format!("http://localhost:{}/#/servers/echo/logs", app.ui_port);
    let mut rows = Vec::new();
    for round in 1..=ROUNDS {
        let b = Browser::start().await;
        let opened = Instant::now();
        b.open(&logs).await;
        b.css("[data-testid=log-row]").await;
        b.until("the count shows the whole log", || async {
            shown(&b).await >= records
        })
        .await;
        let open = opened.elapsed();
        let in_page = b.all("[data-testid=log-row]").await.len();

        let scroll = longest_frame(
            &b,
            "document.querySelector('[data-testid=log-scroll]').scrollTop += 400",
            120,
        )
        .await;

        let searched = Instant::now();
        b.eval("const e = document.querySelector('[data-testid=log-search]'); e.value = 'message 4242'; e.dispatchEvent(new Event('input', { bubbles: true }));")
            .await;
        b.until("the count shows the filtered total", || async {
            let n = shown(&b).await;
            n > 0 && n < records
        })
        .await;
        let search = searched.elapsed();
        b.eval("const e = document.querySelector('[data-testid=log-search]'); e.value = ''; e.dispatchEvent(new Event('input', { bubbles: true }));")
            .await;

        // 1,000 calls stream in while the page draws frames.
        let probe = longest_frame(&b, "", 240);
        let load = session.calls(n, 1_000);
        n += 1_000;
        let (live, ()) = tokio::join!(probe, load);
        rows.push((round, open, in_page, scroll, search, live));
        b.close().await;
    }

    println!();
    println!(
        "Logs tab with {records} records, headless Chromium {}, window 1280x800",
        std::env::var("CHROME").unwrap_or_else(|_| "/usr/bin/chromium".into())
    );
    println!(
        "| round | open (count = all, first row) | rows in the page | longest frame, scrolling | search → filtered count | longest frame, 1,000 calls arriving |"
    );
    println!("|---|---:|---:|---:|---:|---:|");
    for (round, open, in_page, scroll, search, live) in rows {
        println!(
            "| {round} | {} | {in_page} | {scroll:.0} ms | {} | {live:.0} ms |",
            ms(open),
            ms(search)
        );
    }
}
