//! `tools/call` of `echo` over the in-memory duplex (newline-delimited JSON-RPC, no socket),
//! over a spawned stdio process (`stdio_command`: the bridge the build script compiled, between
//! its pipes and the fixture), and over loopback HTTP, on one fixture in the
//! same run (issue 17's bench). Each uses one initialized 2025-11-25 session; `c16` keeps 16
//! calls in flight (a line peer writes 16 lines, then reads 16 answers).
//!
//! `cargo bench --bench duplex`; debug: add `--profile dev`.

use std::hint::black_box;
use std::time::{Duration, Instant};

use criterion::{BenchmarkId, Criterion, Throughput, criterion_group, criterion_main};
use futures::StreamExt;
use mcp_decoy::{MockMcpServer, Tool};
use reqwest::header::{ACCEPT, CONTENT_TYPE};
use serde_json::{Value, json};
use tokio::io::{AsyncBufReadExt, AsyncRead, AsyncWrite, AsyncWriteExt, BufReader, Lines};
use tokio::sync::Mutex;

const INITIALIZE: &str = r#"{"jsonrpc":"2.0","id":0,"method":"initialize","params":{"protocolVersion":"2025-11-25","capabilities":{},"clientInfo":{"name":"bench","version":"1.0.0"}}}"#;

fn call_line(id: u64) -> String {
    json!({ "jsonrpc": "2.0", "id": id, "method": "tools/call",
            "params": { "name": "echo", "arguments": { "message": "hello" } } })
    .to_string()
}

/// A client of newline-delimited JSON-RPC (a duplex's end, a child's pipes), initialized.
struct Peer<R, W> {
    lines: Lines<BufReader<R>>,
    write: W,
}

impl<R: AsyncRead + Unpin, W: AsyncWrite + Unpin> Peer<R, W> {
    async fn open(read: R, write: W) -> Self {
        let mut duplex = Peer {
            lines: BufReader::new(read).lines(),
            write,
        };
        duplex.send(INITIALIZE).await;
        black_box(duplex.answer().await);
        duplex
            .send(r#"{"jsonrpc":"2.0","method":"notifications/initialized"}"#)
            .await;
        duplex
    }

    async fn send(&mut self, line: &str) {
        self.write
            .write_all(line.as_bytes())
            .await
            .expect("write a line");
        self.write.write_all(b"\n").await.expect("write a newline");
        self.write.flush().await.expect("flush");
    }

    async fn answer(&mut self) -> String {
        self.lines
            .next_line()
            .await
            .expect("read a line")
            .expect("the server keeps the stream open")
    }

    /// `count` calls with at most `concurrency` in flight.
    async fn calls(&mut self, count: u64, concurrency: usize) {
        let mut id = 1;
        let mut left = count;
        while left > 0 {
            let batch = left.min(concurrency as u64);
            for _ in 0..batch {
                self.send(&call_line(id)).await;
                id += 1;
            }
            for _ in 0..batch {
                black_box(self.answer().await);
            }
            left -= batch;
        }
    }
}

async fn http_session(client: &reqwest::Client, url: &str) -> String {
    let response = client
        .post(url)
        .header(CONTENT_TYPE, "application/json")
        .header(ACCEPT, "application/json, text/event-stream")
        .body(INITIALIZE)
        .send()
        .await
        .expect("initialize");
    let session = response.headers()["mcp-session-id"]
        .to_str()
        .expect("an ASCII session id")
        .to_string();
    black_box(response.bytes().await.expect("the initialize body"));
    session
}

async fn http_call(client: &reqwest::Client, url: &str, session: &str, id: u64) -> bytes::Bytes {
    let response = client
        .post(url)
        .header(CONTENT_TYPE, "application/json")
        .header(ACCEPT, "application/json, text/event-stream")
        .header("mcp-session-id", session)
        .header("mcp-protocol-version", "2025-11-25")
        .body(call_line(id))
        .send()
        .await
        .expect("tools/call");
    assert!(response.status().is_success(), "{}", response.status());
    response.bytes().await.expect("the whole body")
}

fn duplex_vs_http(c: &mut Criterion) {
    let rt = tokio::runtime::Builder::new_current_thread()
        .enable_all()
        .build()
        .expect("a client runtime");
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
    let session = rt.block_on(http_session(&client, &url));
    let duplex = Mutex::new(rt.block_on(async {
        let (read, write) = tokio::io::split(server.connect_duplex());
        Peer::open(read, write).await
    }));
    let (mut child, stdio) = rt.block_on(async {
        let command = server.stdio_command().expect("a stdio command");
        let mut child = tokio::process::Command::from(command)
            .stdin(std::process::Stdio::piped())
            .stdout(std::process::Stdio::piped())
            .kill_on_drop(true)
            .spawn()
            .expect("spawn the stdio command");
        let stdin = child.stdin.take().expect("piped stdin");
        let stdout = child.stdout.take().expect("piped stdout");
        (child, Mutex::new(Peer::open(stdout, stdin).await))
    });

    // Check what is measured: both answer the same result.
    let over_http: Value =
        serde_json::from_slice(&rt.block_on(http_call(&client, &url, &session, 1)))
            .expect("a JSON answer");
    let over_duplex: Value = rt.block_on(async {
        let mut duplex = duplex.lock().await;
        duplex.send(&call_line(1)).await;
        serde_json::from_str(&duplex.answer().await).expect("a JSON line")
    });
    assert_eq!(over_http["result"], over_duplex["result"]);
    assert_eq!(over_http["result"]["content"][0]["text"], "hello");
    {
        let over_stdio: Value = rt.block_on(async {
            let mut stdio = stdio.lock().await;
            stdio.send(&call_line(1)).await;
            serde_json::from_str(&stdio.answer().await).expect("a JSON line")
        });
        assert_eq!(over_http["result"], over_stdio["result"]);
    }

    let mut group = c.benchmark_group("duplex");
    group.throughput(Throughput::Elements(1));
    for concurrency in [1usize, 16] {
        let name = format!("c{concurrency}");
        group.bench_with_input(BenchmarkId::new("duplex", &name), &concurrency, |b, &n| {
            b.to_async(&rt).iter_custom(|iters| {
                let duplex = &duplex;
                async move {
                    let mut duplex = duplex.lock().await;
                    let started = Instant::now();
                    duplex.calls(iters, n).await;
                    started.elapsed()
                }
            })
        });
        group.bench_with_input(BenchmarkId::new("stdio", &name), &concurrency, |b, &n| {
            b.to_async(&rt).iter_custom(|iters| {
                let stdio = &stdio;
                async move {
                    let mut stdio = stdio.lock().await;
                    let started = Instant::now();
                    stdio.calls(iters, n).await;
                    started.elapsed()
                }
            })
        });
        group.bench_with_input(BenchmarkId::new("http", &name), &concurrency, |b, &n| {
            b.to_async(&rt).iter_custom(|iters| {
                let (client, url, session) = (&client, url.as_str(), session.as_str());
                async move {
                    let started = Instant::now();
                    futures::stream::iter(0..iters)
                        .map(|id| http_call(client, url, session, id))
                        .buffer_unordered(n)
                        .for_each(|body| {
                            black_box(body);
                            async {}
                        })
                        .await;
                    started.elapsed()
                }
            })
        });
    }
    group.finish();
    {
        drop(stdio);
        let _ = rt.block_on(child.wait());
    }
    drop(server);
}

fn config() -> Criterion {
    Criterion::default()
        .sample_size(30)
        .warm_up_time(Duration::from_secs(1))
        .measurement_time(Duration::from_secs(4))
}

criterion_group! { name = benches; config = config(); targets = duplex_vs_http }
criterion_main!(benches);
