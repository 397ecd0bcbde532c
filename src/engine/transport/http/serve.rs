//! Serves one engine alone: a loopback listener, its own thread and current-thread runtime
//! (as wiremock does), so the server works under either `#[tokio::test]` flavour and neither
//! start nor drop waits on the test's runtime.

use std::net::{SocketAddr, TcpListener};
use std::sync::Arc;

use tokio::sync::oneshot;

use super::listener::{self, Connections};
use super::router;
use crate::engine::Engine;
use crate::engine::transport::attach::{self, Attach};
use crate::error::Error;

/// A server that runs until [`Running::stop`] or drop.
#[derive(Debug)]
pub(crate) struct Running {
    pub(crate) addr: SocketAddr,
    /// The server's runtime, for the in-memory connections it serves besides HTTP.
    pub(crate) runtime: tokio::runtime::Handle,
    /// The attach socket of stdio bridges, opened by the first stdio command.
    attach: std::sync::Mutex<Option<Attach>>,
    /// The connection limits it was started with, kept for a restart.
    pub(crate) connections: Connections,
    stop: Option<oneshot::Sender<()>>,
    stopped: Option<oneshot::Receiver<()>>,
}

/// The builder method that raises the fixture's connection cap, named by its refusals.
const MAX_CONNECTIONS_SETTING: &str = "MockMcpServerBuilder::max_connections";

/// Binds `addr` (port 0 picks a free port) and serves `engine` on a new thread, its
/// connections held to `connections` (checked first: a zero limit is refused).
pub(crate) fn spawn(
    engine: Arc<Engine>,
    addr: SocketAddr,
    connections: Connections,
) -> Result<Running, Error> {
    connections.check()?;
    let bind_error = |source| Error::Bind {
        addr: addr.to_string(),
        source,
    };
    let listener = TcpListener::bind(addr).map_err(bind_error)?;
    listener.set_nonblocking(true).map_err(bind_error)?;
    let addr = listener.local_addr().map_err(bind_error)?;
    // Served alone on loopback, the engine refuses other Host names (DNS rebinding).
    engine.guard.bound_to(addr);
    let runtime = tokio::runtime::Builder::new_current_thread()
        .enable_all()
        .build()
        .map_err(Error::Runtime)?;
    let handle = runtime.handle().clone();
    let (stop_tx, stop_rx) = oneshot::channel::<()>();
    let (stopped_tx, stopped_rx) = oneshot::channel::<()>();
    let name = format!("mcp-decoy-{}", addr.port());
    std::thread::Builder::new()
        .name(name)
        .spawn(move || {
            runtime.block_on(async move {
                let listener = match tokio::net::TcpListener::from_std(listener) {
                    Ok(listener) => listener,
                    Err(error) => {
                        tracing::error!(%error, "mcp-decoy: cannot register the listener");
                        return;
                    }
                };
                // Stopping drops the accept loop at once; the runtime's end closes the rest.
                let serve = listener::serve(
                    listener,
                    router(engine.clone()),
                    connections,
                    MAX_CONNECTIONS_SETTING,
                    std::future::pending(),
                );
                tokio::select! {
                    () = serve => {}
                    _ = stop_rx => {}
                }
                // Ending the sessions wakes their streams, so nothing outlives the runtime.
                engine.sessions.clear();
                // Listen streams end with their listen response (2026-07-28 subscriptions,
                // "Graceful Closure"); their connections get a moment to write it.
                engine.listeners.close();
                engine
                    .listeners
                    .drained(std::time::Duration::from_millis(500))
                    .await;
            });
            // Dropping the runtime here aborts every connection task and closes the sockets.
            drop(runtime);
            let _ = stopped_tx.send(());
        })
        .map_err(Error::Runtime)?;
    Ok(Running {
        addr,
        runtime: handle,
        attach: std::sync::Mutex::default(),
        connections,
        stop: Some(stop_tx),
        stopped: Some(stopped_rx),
    })
}

impl Running {
    /// Where a stdio bridge reaches `engine`, opening the attach socket on first use; it
    /// closes with the server's runtime.
    pub(crate) fn attach(&self, engine: &Arc<Engine>) -> std::io::Result<Attach> {
        let mut attach = self.attach.lock().unwrap_or_else(|p| p.into_inner());
        if let Some(attach) = attach.as_ref() {
            return Ok(attach.clone());
        }
        let served = engine.clone();
        let opened = attach::listen(&self.runtime, Arc::new(move |_| Ok(served.clone())))?;
        *attach = Some(opened.clone());
        Ok(opened)
    }

    /// Stops the server and waits until its sockets are closed.
    pub(crate) async fn stop(&mut self) {
        if let Some(stop) = self.stop.take() {
            let _ = stop.send(());
        }
        if let Some(stopped) = self.stopped.take() {
            let _ = stopped.await;
        }
    }
}

impl Drop for Running {
    fn drop(&mut self) {
        // Only a signal: never join or block here (a test may drop many servers quickly, and
        // from inside a runtime).
        if let Some(stop) = self.stop.take() {
            let _ = stop.send(());
        }
    }
}
