//! What a test pays for `mcp-decoy`, against a bare axum server doing the same JSON-RPC
//! (see `baseline/mod.rs`). Everything goes over real loopback HTTP with reqwest.
//!
//! - `startup/*`: one fixture per iteration, `builder().start()` → first answered
//!   `initialize` → drop (and variants: start alone, and `shutdown().await` instead of drop).
//! - `tools_call/*`: `tools/call` on one session of one long-lived server, at concurrency 1
//!   and 16; criterion's "thrpt" is requests/s, "time" is wall time per call.
//!
//! `cargo bench --bench fixture`; debug build: `cargo bench --profile dev --bench fixture --
//! startup`. See `benches/README.md`.

mod baseline;

use std::hint::black_box;
use std::time::{Duration, Instant};

use baseline::Baseline;
use criterion::{
    BenchmarkId, Criterion, SamplingMode, Throughput, criterion_group, criterion_main,
};
use futures::StreamExt;
use mcp_decoy::{MockMcpServer, Tool};
use reqwest::header::{ACCEPT, CONTENT_TYPE};
use serde_json::{Value, json};
use tokio::runtime::Runtime;

const PROTOCOL: &str = "2025-11-25";
const INITIALIZE: &str = r#"{"jsonrpc":"2.0","id":0,"method":"initialize","params":{"protocolVersion":"2025-11-25","capabilities":{},"clientInfo":{"name":"bench","version":"1.0.0"}}}"#;

/// The client side runs on a current-thread runtime, as under a default `#[tokio::test]`;
/// each server has its own thread, so on 2 cores client and server get one each.
fn client_runtime() -> Runtime {
    tokio::runtime::Builder::new_current_thread()
        .enable_all()
        .build()
        .unwrap()
}

/// Plain HTTP/1.1 to loopback, no proxy from the environment, Nagle off.
fn client(keep_idle: bool) -> reqwest::Client {
    let builder = reqwest::Client::builder().no_proxy().tcp_nodelay(true);
    let builder = if keep_idle {
        builder
    } else {
        // Every fixture has a new port, so an idle connection could never be reused.
        builder.pool_max_idle_per_host(0)
    };
    builder.build().unwrap()
}

/// The fixture the benches start: the echo tool as the README's first example writes it.
async fn start_fixture() -> MockMcpServer {
    MockMcpServer::builder()
        .tool(
            Tool::new("echo")
                .respond_with(json!({"content": [{"type": "text", "text": "${args.message}"}]})),
        )
        .start()
        .await
}

/// Sends `initialize` and returns the session id; the body is read in full.
async fn initialize(client: &reqwest::Client, url: &str) -> String {
    let response = client
        .post(url)
        .header(CONTENT_TYPE, "application/json")
        .header(ACCEPT, "application/json, text/event-stream")
        .body(INITIALIZE)
        .send()
        .await
        .unwrap();
    assert!(response.status().is_success(), "{}", response.status());
    let session = response.headers()["mcp-session-id"]
        .to_str()
        .unwrap()
        .to_string();
    black_box(response.bytes().await.unwrap());
    session
}

/// Sends one `tools/call` of `echo` in `session` and returns the response body.
async fn call(client: &reqwest::Client, url: &str, session: &str, id: u64) -> bytes::Bytes {
    let body = format!(
        r#"{{"jsonrpc":"2.0","id":{id},"method":"tools/call","params":{{"name":"echo","arguments":{{"message":"hello"}}}}}}"#
    );
    let response = client
        .post(url)
        .header(CONTENT_TYPE, "application/json")
        .header(ACCEPT, "application/json, text/event-stream")
        .header("mcp-session-id", session)
        .header("mcp-protocol-version", PROTOCOL)
        .body(body)
        .send()
        .await
        .unwrap();
    assert!(response.status().is_success(), "{}", response.status());
    response.bytes().await.unwrap()
}

/// Both servers must give the same answers, or the comparison means nothing.
fn check_same_answers(rt: &Runtime, client: &reqwest::Client, urls: [&str; 2]) {
    let answers = urls.map(|url| {
        rt.block_on(async {
            let session = initialize(client, url).await;
            let init: Value = client
                .post(url)
                .header(CONTENT_TYPE, "application/json")
                .body(INITIALIZE)
                .send()
                .await
                .unwrap()
                .json()
                .await
                .unwrap();
            let called: Value =
                serde_json::from_slice(&call(client, url, &session, 1).await).unwrap();
            (init, called)
        })
    });
    assert_eq!(
        answers[0], answers[1],
        "fixture and baseline answer differently"
    );
    assert_eq!(answers[0].1["result"]["content"][0]["text"], "hello");
}

/// What the startup benches need from either server.
trait Server: Sized {
    async fn start() -> Self;
    fn url(&self) -> String;
    async fn shutdown(self);
}

impl Server for MockMcpServer {
    async fn start() -> Self {
        start_fixture().await
    }
    fn url(&self) -> String {
        MockMcpServer::url(self)
    }
    async fn shutdown(self) {
        MockMcpServer::shutdown(self).await
    }
}

impl Server for Baseline {
    async fn start() -> Self {
        Baseline::start().await
    }
    fn url(&self) -> String {
        Baseline::url(self)
    }
    async fn shutdown(self) {
        Baseline::shutdown(self).await
    }
}

/// How a startup iteration ends.
#[derive(Clone, Copy)]
enum Stop {
    /// `drop(server)`: a signal; the server thread tears down while the next iteration runs.
    Drop,
    /// `server.shutdown().await`: waits until the server thread has closed the port.
    Shutdown,
}

/// `iters` server lives: start → (first answered `initialize`) → stop, timed.
///
/// Untimed between the answer and the stop: a few yields so that the client's connection
/// task closes its socket first. Otherwise the server closes first and its side of every
/// connection sits in TIME_WAIT for 60 s on a port of the range `bind(127.0.0.1:0)` searches;
/// at thousands of servers a second that crowds the range and the kernel's port search
/// (`inet_csk_get_port`) grows to milliseconds, for the fixture and the baseline alike.
async fn lives<S: Server>(
    client: &reqwest::Client,
    iters: u64,
    request: bool,
    stop: Stop,
) -> Duration {
    let mut timed = Duration::ZERO;
    for _ in 0..iters {
        let started = Instant::now();
        let server = S::start().await;
        if request {
            black_box(initialize(client, &server.url()).await);
        }
        timed += started.elapsed();
        if request {
            for _ in 0..4 {
                tokio::task::yield_now().await;
            }
        }
        let stopping = Instant::now();
        match stop {
            Stop::Drop => drop(server),
            Stop::Shutdown => server.shutdown().await,
        }
        timed += stopping.elapsed();
    }
    timed
}

fn startup(c: &mut Criterion) {
    let rt = client_runtime();
    let client = client(false);
    {
        let fixture = rt.block_on(start_fixture());
        let base = rt.block_on(Baseline::start());
        check_same_answers(&rt, &client, [&fixture.url(), &base.url()]);
    }

    let mut group = c.benchmark_group("startup");
    // Each iteration opens a port and a connection; keep the count in the thousands.
    group
        .sampling_mode(SamplingMode::Flat)
        .warm_up_time(Duration::from_millis(500))
        .measurement_time(Duration::from_secs(2));
    let cases = [
        // What one test pays: start → first answered initialize → drop.
        ("start_init_drop", true, Stop::Drop),
        // The start cost alone: bind, runtime, thread, validation; no request.
        ("start_drop", false, Stop::Drop),
        // Also waits for the server thread to close the port, so no teardown overlaps the
        // next iteration.
        ("start_init_shutdown", true, Stop::Shutdown),
    ];
    for (case, request, stop) in cases {
        group.bench_function(format!("fixture/{case}"), |b| {
            b.to_async(&rt)
                .iter_custom(|iters| lives::<MockMcpServer>(&client, iters, request, stop))
        });
        group.bench_function(format!("baseline/{case}"), |b| {
            b.to_async(&rt)
                .iter_custom(|iters| lives::<Baseline>(&client, iters, request, stop))
        });
    }
    group.finish();
}

fn tools_call(c: &mut Criterion) {
    let rt = client_runtime();
    let client = client(true);
    let fixture = rt.block_on(start_fixture());
    let base = rt.block_on(Baseline::start());
    check_same_answers(&rt, &client, [&fixture.url(), &base.url()]);

    let targets = [("fixture", fixture.url()), ("baseline", base.url())];
    let sessions = targets.clone().map(|(name, url)| {
        let session = rt.block_on(initialize(&client, &url));
        (name, url, session)
    });

    let mut group = c.benchmark_group("tools_call");
    // One element per call: "thrpt" is requests/s, "time" is wall time per call (at
    // concurrency 16 the latency of one call is about 16x that, by Little's law).
    group.throughput(Throughput::Elements(1));
    for concurrency in [1usize, 16] {
        for (name, url, session) in &sessions {
            group.bench_with_input(
                BenchmarkId::new(*name, format!("c{concurrency}")),
                &concurrency,
                |b, &concurrency| {
                    b.to_async(&rt).iter_custom(|iters| {
                        let (client, url, session) = (&client, url.as_str(), session.as_str());
                        async move {
                            let started = Instant::now();
                            futures::stream::iter(0..iters)
                                .map(|id| call(client, url, session, id))
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
    drop(rt);
    drop((fixture, base));
}

fn config() -> Criterion {
    Criterion::default()
        .sample_size(30)
        .warm_up_time(Duration::from_secs(1))
        .measurement_time(Duration::from_secs(4))
}

criterion_group! {
    name = benches;
    config = config();
    targets = startup, tools_call
}
criterion_main!(benches);
