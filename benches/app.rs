//! The standalone app (feature `decoy-cli`), started in-process with `mcp_decoy::cli::run` on
//! free ports and a scratch config directory, on its own thread and multi-thread runtime as
//! the binary runs (`#[tokio::main]`). Real loopback HTTP with reqwest from a current-thread
//! client runtime.
//!
//! - `rest_write/*`: REST writes with persistence on. Every acknowledged write has been
//!   saved to `servers.json` (temp file, fsync, rename, fsync of the directory) before the
//!   answer, so this is mostly the disk's fsync latency. Compared with a REST read of the same
//!   tool (no disk) and with `config::save` of the same file called directly (disk only).
//! - `app_tools_call/*`: `tools/call` of `echo` on one session of the app-hosted server at
//!   `/s/echo/mcp`, against a library fixture (`MockMcpServer`) with the same tool, at
//!   concurrency 1 and 16, in the same run.
//!
//! `cargo bench --features decoy-cli --bench app`; see `benches/README.md`.

use std::hint::black_box;
use std::path::{Path, PathBuf};
use std::sync::atomic::{AtomicU64, Ordering};
use std::time::{Duration, Instant};

use clap::Parser;
use criterion::{BenchmarkId, Criterion, Throughput, criterion_group, criterion_main};
use futures::StreamExt;
use mcp_decoy::cli::{self, Options};
use mcp_decoy::{MockMcpServer, Tool};
use reqwest::header::{ACCEPT, CONTENT_TYPE};
use serde_json::{Value, json};
use tokio::runtime::Runtime;

const PROTOCOL: &str = "2025-11-25";
const INITIALIZE: &str = r#"{"jsonrpc":"2.0","id":0,"method":"initialize","params":{"protocolVersion":"2025-11-25","capabilities":{},"clientInfo":{"name":"bench","version":"1.0.0"}}}"#;

/// The client side, as under a default `#[tokio::test]`.
fn client_runtime() -> Runtime {
    tokio::runtime::Builder::new_current_thread()
        .enable_all()
        .build()
        .expect("a client runtime")
}

/// Plain HTTP/1.1 to loopback, no proxy from the environment, Nagle off; every request names
/// the app's REST API secret.
fn client(app: &App) -> reqwest::Client {
    let mut headers = reqwest::header::HeaderMap::new();
    let bearer = format!("Bearer {}", app.api_token());
    headers.insert(
        reqwest::header::AUTHORIZATION,
        bearer.parse().expect("a header value"),
    );
    reqwest::Client::builder()
        .no_proxy()
        .tcp_nodelay(true)
        .default_headers(headers)
        .build()
        .expect("a client")
}

/// The app on its own thread, stopped and its config directory removed on drop.
struct App {
    api: String,
    mcp_port: u16,
    dir: PathBuf,
    stop: Option<tokio::sync::oneshot::Sender<()>>,
    thread: Option<std::thread::JoinHandle<()>>,
}

impl App {
    fn start(name: &str) -> App {
        let dir =
            std::env::temp_dir().join(format!("mcp-decoy-bench-{name}-{}", std::process::id()));
        let _ = std::fs::remove_dir_all(&dir);
        let mcp_port = portpicker::pick_unused_port().expect("a free MCP port");
        let ui_port = loop {
            let port = portpicker::pick_unused_port().expect("a free UI port");
            if port != mcp_port {
                break port;
            }
        };
        let options = Options::try_parse_from([
            "mcp-decoy".to_string(),
            "--config-dir".into(),
            dir.display().to_string(),
            "--mcp-port".into(),
            mcp_port.to_string(),
            "--ui-port".into(),
            ui_port.to_string(),
        ])
        .expect("options");
        let (stop, stopped) = tokio::sync::oneshot::channel::<()>();
        let thread = std::thread::spawn(move || {
            let rt = tokio::runtime::Builder::new_multi_thread()
                .enable_all()
                .build()
                .expect("the app's runtime");
            let shutdown = async {
                let _ = stopped.await;
            };
            if let Err(error) = rt.block_on(cli::run(options, shutdown)) {
                panic!("the app failed: {error}");
            }
        });
        let app = App {
            api: format!("http://localhost:{ui_port}/api/v1"),
            mcp_port,
            dir,
            stop: Some(stop),
            thread: Some(thread),
        };
        app.wait_ready(ui_port);
        app
    }

    /// Waits until the UI listener accepts connections: both listeners are bound before it
    /// serves, so requests sent from then on are answered.
    fn wait_ready(&self, ui_port: u16) {
        let deadline = Instant::now() + Duration::from_secs(20);
        while Instant::now() < deadline {
            if self.thread.as_ref().is_some_and(|t| t.is_finished()) {
                panic!("the app stopped before it was ready");
            }
            if std::net::TcpStream::connect(("127.0.0.1", ui_port)).is_ok() {
                return;
            }
            std::thread::sleep(Duration::from_millis(10));
        }
        panic!("the app did not listen at {}", self.api);
    }

    fn mcp_url(&self, server: &str) -> String {
        format!("http://localhost:{}/s/{server}/mcp", self.mcp_port)
    }

    fn config_path(&self) -> PathBuf {
        self.dir.join("servers.json")
    }

    /// The REST API's secret for this run, from `runtime.json`.
    fn api_token(&self) -> String {
        let text = std::fs::read_to_string(self.dir.join("runtime.json")).expect("runtime.json");
        let info: serde_json::Value = serde_json::from_str(&text).expect("JSON");
        info["apiToken"].as_str().expect("apiToken").to_string()
    }
}

impl Drop for App {
    fn drop(&mut self) {
        if let Some(stop) = self.stop.take() {
            let _ = stop.send(());
        }
        if let Some(thread) = self.thread.take() {
            let _ = thread.join();
        }
        let _ = std::fs::remove_dir_all(&self.dir);
    }
}

async fn check(response: reqwest::Response, what: &str) -> bytes::Bytes {
    let status = response.status();
    let body = response.bytes().await.expect("the body");
    assert!(
        status.is_success(),
        "{what}: {status} {}",
        String::from_utf8_lossy(&body)
    );
    body
}

// ---------------------------------------------------------------------------------------
// REST writes

fn rest_write(c: &mut Criterion) {
    let rt = client_runtime();
    let app = App::start("rest");
    let http = client(&app);
    let tool_url = format!("{}/servers/echo/tools/echo", app.api);
    let counter = AtomicU64::new(0);

    // The PATCH must change the tool and reach the file, or the bench measures nothing.
    rt.block_on(async {
        let patched = http
            .patch(&tool_url)
            .json(&json!({ "description": "check" }))
            .send()
            .await
            .expect("PATCH");
        check(patched, "PATCH the echo tool").await;
    });
    let on_disk: Value =
        serde_json::from_str(&std::fs::read_to_string(app.config_path()).expect("servers.json"))
            .expect("JSON");
    assert_eq!(on_disk["servers"][0]["tools"][0]["description"], "check");

    let mut group = c.benchmark_group("rest_write");
    group.throughput(Throughput::Elements(1));
    group.bench_function("get_tool", |b| {
        b.to_async(&rt).iter(|| async {
            black_box(check(http.get(&tool_url).send().await.expect("GET"), "GET").await)
        })
    });
    for concurrency in [1usize, 4] {
        group.bench_with_input(
            BenchmarkId::new("patch_tool", format!("c{concurrency}")),
            &concurrency,
            |b, &concurrency| {
                b.to_async(&rt).iter_custom(|iters| {
                    let (http, tool_url, counter) = (&http, tool_url.as_str(), &counter);
                    async move {
                        let started = Instant::now();
                        futures::stream::iter(0..iters)
                            .map(|_| async move {
                                let n = counter.fetch_add(1, Ordering::Relaxed);
                                let body = json!({ "description": format!("edit {n}") });
                                let sent = http.patch(tool_url).json(&body).send().await;
                                check(sent.expect("PATCH"), "PATCH").await
                            })
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
    // The disk alone: the same file saved the same way, no HTTP and no engine.
    let scratch = app.dir.join("save-only");
    let config: cli::config::ConfigFile =
        serde_json::from_value(on_disk).expect("servers.json as a ConfigFile");
    group.bench_function("config_save_only", |b| {
        b.iter(|| save(&scratch.join("servers.json"), &config))
    });
    group.finish();
    drop(app);
}

fn save(path: &Path, config: &cli::config::ConfigFile) {
    cli::config::save(path, config).expect("save");
}

// ---------------------------------------------------------------------------------------
// MCP throughput: app-hosted server vs library fixture

async fn initialize(client: &reqwest::Client, url: &str) -> String {
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
    check(response, "initialize").await;
    session
}

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
        .expect("tools/call");
    check(response, "tools/call").await
}

fn app_tools_call(c: &mut Criterion) {
    let rt = client_runtime();
    let app = App::start("mcp");
    let http = client(&app);
    // The app's default echo server, and the same tool in a fixture.
    let fixture = rt.block_on(
        MockMcpServer::builder()
            .name("echo")
            .tool(Tool::echo())
            .start(),
    );
    let targets = [("app", app.mcp_url("echo")), ("fixture", fixture.url())];
    let sessions = targets.map(|(name, url)| {
        let session = rt.block_on(initialize(&http, &url));
        (name, url, session)
    });
    // Both must answer the same, or the comparison means nothing.
    let answers = sessions.clone().map(|(_, url, session)| {
        let body = rt.block_on(call(&http, &url, &session, 1));
        serde_json::from_slice::<Value>(&body).expect("a JSON answer")
    });
    assert_eq!(answers[0], answers[1], "app and fixture answer differently");
    assert_eq!(answers[0]["result"]["content"][0]["text"], "hello");

    let mut group = c.benchmark_group("app_tools_call");
    group.throughput(Throughput::Elements(1));
    for concurrency in [1usize, 16] {
        for (name, url, session) in &sessions {
            group.bench_with_input(
                BenchmarkId::new(*name, format!("c{concurrency}")),
                &concurrency,
                |b, &concurrency| {
                    b.to_async(&rt).iter_custom(|iters| {
                        let (http, url, session) = (&http, url.as_str(), session.as_str());
                        async move {
                            let started = Instant::now();
                            futures::stream::iter(0..iters)
                                .map(|id| call(http, url, session, id))
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
    drop(fixture);
    drop(app);
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
    targets = rest_write, app_tools_call
}
criterion_main!(benches);
