//! Serves one engine alone: a loopback listener whose connections run on the process-wide
//! fixture runtimes ([`pool`]), not on the test's, so the server works under either
//! `#[tokio::test]` flavour and neither start nor drop waits on the test's runtime or on a
//! thread. Everything the server runs is scoped to it: stopping cancels its connections,
//! streams and bridges at once, as dropping a runtime of its own would.

use std::net::SocketAddr;
use std::sync::Arc;

use tokio::sync::oneshot;
use tokio_util::sync::CancellationToken;

use super::armed::Armed;
use super::endpoint::Endpoint;
use super::listener::{self, Connections};
use super::spare;
use crate::engine::Engine;
use crate::engine::transport::attach::{self, Attach};
use crate::engine::transport::pool;
use crate::error::Error;

/// A server that runs until [`Running::stop`] or drop.
#[derive(Debug)]
pub(crate) struct Running {
    pub(crate) addr: SocketAddr,
    /// The runtime it is served on, for the in-memory connections it serves besides HTTP.
    pub(crate) runtime: tokio::runtime::Handle,
    /// Cancelled when the server has stopped: ends every task it left on the shared runtime.
    pub(crate) scope: CancellationToken,
    /// The attach socket of stdio bridges, opened by the first stdio command.
    attach: std::sync::Mutex<Option<Attach>>,
    /// The connection limits it was started with, kept for a restart.
    pub(crate) connections: Connections,
    stop: Option<oneshot::Sender<()>>,
    stopped: Option<oneshot::Receiver<()>>,
    /// The listener its server waits on, fired when it stops (its server has not started
    /// if no client came).
    armed: Arc<Armed>,
    /// Counts this server on its runtime until dropped, so the next fixture goes to a
    /// runtime that serves none when there is one.
    _lease: pool::Lease,
}

/// The builder method that raises the fixture's connection cap, named by its refusals.
const MAX_CONNECTIONS_SETTING: &str = "MockMcpServerBuilder::max_connections";

/// Binds `addr` (port 0 picks a free port) and serves `engine` on a pool runtime, its
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
    let (index, runtime, lease) = pool::next()?;
    let (listener, addr) = match spare::take(index, addr) {
        Some(spare) => (spare.listener, spare.addr),
        None => {
            // Registered here, on the runtime's reactor, so a bad listener fails `start`.
            let _entered = runtime.enter();
            listener::bind(addr, listener::FIXTURE_BACKLOG).map_err(bind_error)?
        }
    };
    // Served alone on loopback, the engine refuses other Host names (DNS rebinding).
    engine.listening_on(addr);
    let (stop_tx, stop_rx) = oneshot::channel::<()>();
    let (stopped_tx, stopped_rx) = oneshot::channel::<()>();
    let scope = CancellationToken::new();
    let served = scope.clone();
    let endpoint = Endpoint::new(engine.clone(), "/mcp");
    let scope_of_serve = scope.clone();
    // One future for both halves, so one task runs the server.
    let serve = move |listener: tokio::net::TcpListener, first: Option<tokio::net::TcpStream>| async move {
        let stopping = async {
            // A stop, or the `Running` dropped without one.
            let _ = stop_rx.await;
            // Ending the sessions wakes their streams; listen streams end with their listen
            // response (2026-07-28 subscriptions, "Graceful Closure") and their connections
            // get a moment to write it.
            engine.end();
            engine
                .listeners
                .drained(std::time::Duration::from_millis(500))
                .await;
            served.cancel();
        };
        let serving = async {
            // Stops accepting once the scope ends, and returns when every connection is
            // closed.
            let ended = scope_of_serve.clone();
            listener::serve_scoped(
                listener,
                first,
                endpoint.into(),
                connections,
                MAX_CONNECTIONS_SETTING,
                async move { ended.cancelled().await },
                scope_of_serve,
            )
            .await;
            let _ = stopped_tx.send(());
        };
        tokio::join!(stopping, serving);
        spare::refill(index);
    };
    // No task is handed to the runtime's thread now: the first client starts the server.
    let armed = Armed::arm(
        runtime.clone(),
        listener,
        Box::new(move |listener, first| Box::pin(serve(listener, first))),
    );
    Ok(Running {
        addr,
        runtime,
        scope,
        attach: std::sync::Mutex::default(),
        connections,
        stop: Some(stop_tx),
        stopped: Some(stopped_rx),
        armed,
        _lease: lease,
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
        let resolve = Arc::new(move |_: Option<&str>| Ok(served.clone()));
        let opened = attach::listen(&self.runtime, &self.scope, resolve)?;
        *attach = Some(opened.clone());
        Ok(opened)
    }

    /// Tells the server to stop, starting it first if no client has reached it yet.
    fn signal_stop(&mut self) {
        if let Some(stop) = self.stop.take() {
            let _ = stop.send(());
            self.armed.fire();
        }
    }

    /// Stops the server and waits until its sockets are closed.
    pub(crate) async fn stop(&mut self) {
        self.signal_stop();
        if let Some(stopped) = self.stopped.take() {
            let _ = stopped.await;
        }
    }
}

impl Drop for Running {
    fn drop(&mut self) {
        // Only a signal: never join or block here (a test may drop many servers quickly, and
        // from inside a runtime).
        self.signal_stop();
    }
}
