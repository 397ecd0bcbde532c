//! Loopback listeners bound ahead of time, one per fixture runtime, each already waiting for
//! its first connection on that runtime: a fixture started on `127.0.0.1` with a free port
//! (the default) claims its runtime's spare instead of binding, so its start makes no system
//! call for the socket (socket, bind, listen, the port's name, non-blocking mode, the
//! reactor's registration), and does not wake the runtime's thread either: it leaves its
//! server with the spare ([`Claim::hand`]), which starts serving when the first client
//! connects, or when the fixture stops first ([`Claim::wake`]). Handing a task to another
//! thread's runtime costs a system call and, on a busy machine, the starting thread's core.
//!
//! A fixture that stops binds its runtime's next spare on that runtime's thread, once its
//! own sockets are closed: then neither a start nor a first answer waits for it.
//!
//! A spare is a listener no one has been told of: claimed, it is as new as one bound on the
//! spot. A connection to a spare no one claimed is closed. An address other than the
//! default, or a runtime whose spare is taken, binds as before.

use std::future::Future;
use std::net::{Ipv4Addr, SocketAddr};
use std::pin::Pin;
use std::sync::{Arc, Mutex};
use std::time::Duration;

use tokio::net::{TcpListener, TcpStream};
use tokio::sync::Notify;

use crate::engine::transport::pool;

/// One slot per pool runtime, by its index.
static SPARES: [Mutex<Option<Spare>>; pool::MAX_THREADS] =
    [const { Mutex::new(None) }; pool::MAX_THREADS];

/// A listener waiting on the runtime whose slot holds it, and the claim that gives it a
/// server.
#[derive(Debug)]
pub(super) struct Spare {
    pub(super) addr: SocketAddr,
    pub(super) claim: Arc<Claim>,
}

/// What serves a claimed spare: its listener, and the connection that woke it, if one did.
pub(super) type Serve = Box<
    dyn FnOnce(TcpListener, Option<TcpStream>) -> Pin<Box<dyn Future<Output = ()> + Send>> + Send,
>;

/// The server a fixture left with its spare, and the spare's wake-up for a fixture that
/// stops before any client came.
#[derive(Default)]
pub(super) struct Claim {
    serve: Mutex<Option<Serve>>,
    woken: Notify,
}

impl std::fmt::Debug for Claim {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("Claim").finish_non_exhaustive()
    }
}

impl Claim {
    /// Leaves `serve` with the spare, without waking its thread.
    pub(super) fn hand(&self, serve: Serve) {
        *self.serve.lock().unwrap_or_else(|p| p.into_inner()) = Some(serve);
    }

    /// Starts the server now, whether or not a client came (its fixture is stopping).
    pub(super) fn wake(&self) {
        self.woken.notify_one();
    }

    fn take(&self) -> Option<Serve> {
        self.serve.lock().unwrap_or_else(|p| p.into_inner()).take()
    }
}

/// The address a spare is bound to: the fixture's default.
fn default_addr() -> SocketAddr {
    SocketAddr::from((Ipv4Addr::LOCALHOST, 0))
}

/// The spare of runtime `index`, when `addr` is the default address and it has one.
pub(super) fn take(index: usize, addr: SocketAddr) -> Option<Spare> {
    if addr != default_addr() {
        return None;
    }
    let mut slot = SPARES.get(index)?.lock().unwrap_or_else(|p| p.into_inner());
    slot.take()
}

/// Binds the next spare of runtime `index` if its slot is empty, and starts its wait. Runs on
/// that runtime, whose reactor the listener registers with.
pub(super) fn refill(index: usize) {
    let Some(slot) = SPARES.get(index) else {
        return;
    };
    if slot.lock().unwrap_or_else(|p| p.into_inner()).is_some() {
        return;
    }
    match super::listener::bind(default_addr(), super::listener::FIXTURE_BACKLOG) {
        Ok((listener, addr)) => {
            let mut slot = slot.lock().unwrap_or_else(|p| p.into_inner());
            // Another fixture of this runtime may have refilled it meanwhile; one is kept.
            if slot.is_none() {
                let claim = Arc::new(Claim::default());
                tokio::spawn(wait(listener, claim.clone()));
                *slot = Some(Spare { addr, claim });
            }
        }
        // Not fatal: the next fixture binds its own, and reports the error if it recurs.
        Err(error) => tracing::debug!(%error, "mcp-decoy: no spare listener"),
    }
}

/// A spare's wait: until a connection comes or its claim wakes it, then it becomes its
/// fixture's server. Unclaimed, a connection is closed (no fixture gave out this port) and
/// the wait goes on.
async fn wait(listener: TcpListener, claim: Arc<Claim>) {
    loop {
        let (first, failed) = tokio::select! {
            accepted = listener.accept() => match accepted {
                Ok((tcp, _)) => (Some(tcp), false),
                Err(_) => (None, true),
            },
            () = claim.woken.notified() => (None, false),
        };
        if let Some(serve) = claim.take() {
            return serve(listener, first).await;
        }
        drop(first);
        if failed {
            // Out of descriptors, most likely: the server's own loop waits the same way.
            tokio::time::sleep(Duration::from_millis(100)).await;
        }
    }
}
