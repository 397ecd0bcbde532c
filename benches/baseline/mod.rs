//! The floor the benches compare `mcp-decoy` with: a bare axum 0.8 server started the way the
//! fixture starts (bind `127.0.0.1:0`, its own thread and current-thread runtime, TCP_NODELAY
//! on every accepted socket) whose one handler parses the same JSON-RPC and answers
//! `initialize` and `tools/call` with the same results, with no session table, capture log,
//! validation or json-e rendering.

use std::net::{Ipv4Addr, SocketAddr, TcpListener};
use std::sync::atomic::{AtomicU64, Ordering};

use axum::Router;
use axum::body::Bytes;
use axum::http::{HeaderValue, StatusCode};
use axum::response::{IntoResponse, Response};
use axum::routing::post;
use axum::serve::ListenerExt;
use serde_json::{Value, json};
use tokio::sync::oneshot;

/// A running bare server; dropping it signals the stop without waiting, like the fixture.
pub struct Baseline {
    addr: SocketAddr,
    stop: Option<oneshot::Sender<()>>,
    stopped: Option<oneshot::Receiver<()>>,
}

impl Baseline {
    /// Binds a free loopback port and serves on a new thread. `async` only to mirror
    /// `MockMcpServerBuilder::start`; nothing in it awaits.
    pub async fn start() -> Baseline {
        let listener = TcpListener::bind(SocketAddr::from((Ipv4Addr::LOCALHOST, 0))).unwrap();
        listener.set_nonblocking(true).unwrap();
        let addr = listener.local_addr().unwrap();
        let runtime = tokio::runtime::Builder::new_current_thread()
            .enable_all()
            .build()
            .unwrap();
        let (stop_tx, stop_rx) = oneshot::channel::<()>();
        let (stopped_tx, stopped_rx) = oneshot::channel::<()>();
        std::thread::Builder::new()
            .name(format!("baseline-{}", addr.port()))
            .spawn(move || {
                runtime.block_on(async move {
                    let listener =
                        tokio::net::TcpListener::from_std(listener)
                            .unwrap()
                            .tap_io(|tcp| {
                                let _ = tcp.set_nodelay(true);
                            });
                    let router = Router::new().route("/mcp", post(handle));
                    tokio::select! {
                        _ = axum::serve(listener, router) => {}
                        _ = stop_rx => {}
                    }
                });
                drop(runtime);
                let _ = stopped_tx.send(());
            })
            .unwrap();
        Baseline {
            addr,
            stop: Some(stop_tx),
            stopped: Some(stopped_rx),
        }
    }

    /// `http://127.0.0.1:PORT/mcp`.
    pub fn url(&self) -> String {
        format!("http://{}/mcp", self.addr)
    }

    /// Stops the server and waits until its runtime (and so its sockets) is gone.
    pub async fn shutdown(mut self) {
        if let Some(stop) = self.stop.take() {
            let _ = stop.send(());
        }
        if let Some(stopped) = self.stopped.take() {
            let _ = stopped.await;
        }
    }
}

impl Drop for Baseline {
    fn drop(&mut self) {
        if let Some(stop) = self.stop.take() {
            let _ = stop.send(());
        }
    }
}

static SESSIONS: AtomicU64 = AtomicU64::new(0);

/// Parses the JSON-RPC request and answers what the fixture answers for the bench's
/// requests. The `tools/call` text is the `message` argument, as the fixture's
/// `${args.message}` template renders it.
pub(crate) async fn handle(body: Bytes) -> Response {
    let Ok(request) = serde_json::from_slice::<Value>(&body) else {
        return StatusCode::BAD_REQUEST.into_response();
    };
    let id = request.get("id").cloned().unwrap_or(Value::Null);
    match request.get("method").and_then(Value::as_str) {
        Some("initialize") => {
            let result = json!({
                "protocolVersion": "2025-11-25",
                "capabilities": { "tools": { "listChanged": true }, "logging": {}, "completions": {} },
                "serverInfo": { "name": "mcp-decoy", "version": env!("CARGO_PKG_VERSION") },
            });
            let mut response =
                axum::Json(json!({ "jsonrpc": "2.0", "id": id, "result": result })).into_response();
            let session = format!("{:032x}", SESSIONS.fetch_add(1, Ordering::Relaxed));
            response
                .headers_mut()
                .insert("mcp-session-id", HeaderValue::from_str(&session).unwrap());
            response
        }
        Some("tools/call") => {
            let text = request
                .pointer("/params/arguments/message")
                .and_then(Value::as_str)
                .unwrap_or_default();
            let result = json!({ "content": [{ "type": "text", "text": text }] });
            axum::Json(json!({ "jsonrpc": "2.0", "id": id, "result": result })).into_response()
        }
        Some(method) if method.starts_with("notifications/") => {
            StatusCode::ACCEPTED.into_response()
        }
        _ => StatusCode::BAD_REQUEST.into_response(),
    }
}
