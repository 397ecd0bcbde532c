//! Loopback listeners bound ahead of time, one per fixture runtime: a fixture started on
//! `127.0.0.1` with a free port (the default) takes its runtime's spare instead of binding,
//! so its start makes no system call for the socket (socket, bind, listen, the port's name,
//! non-blocking mode, the reactor's registration: most of what `start` took). A fixture
//! that stops binds its runtime's next spare on that runtime's thread, once its own sockets
//! are closed: then neither a start nor a first answer waits for it (binding on the way to
//! the first answer put six system calls before the request was read).
//!
//! A spare is a listener no one has been told of: taken, it is as new as one bound on the
//! spot. An address other than the default, or a runtime whose spare is taken, binds as
//! before.

use std::net::{Ipv4Addr, SocketAddr};
use std::sync::Mutex;

use tokio::net::TcpListener;

use crate::engine::transport::pool;

/// One slot per pool runtime, by its index.
static SPARES: [Mutex<Option<Spare>>; pool::MAX_THREADS] =
    [const { Mutex::new(None) }; pool::MAX_THREADS];

/// A listener registered with the reactor of the runtime whose slot holds it.
#[derive(Debug)]
pub(super) struct Spare {
    pub(super) listener: TcpListener,
    pub(super) addr: SocketAddr,
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

/// Binds the next spare of runtime `index` if its slot is empty. Runs on that runtime, whose
/// reactor the listener registers with.
pub(super) fn refill(index: usize) {
    let Some(slot) = SPARES.get(index) else {
        return;
    };
    if slot.lock().unwrap_or_else(|p| p.into_inner()).is_some() {
        return;
    }
    match bind() {
        Ok(spare) => {
            let mut slot = slot.lock().unwrap_or_else(|p| p.into_inner());
            // Another fixture of this runtime may have refilled it meanwhile; one is kept.
            if slot.is_none() {
                *slot = Some(spare);
            }
        }
        // Not fatal: the next fixture binds its own, and reports the error if it recurs.
        Err(error) => tracing::debug!(%error, "mcp-decoy: no spare listener"),
    }
}

fn bind() -> std::io::Result<Spare> {
    let listener = std::net::TcpListener::bind(default_addr())?;
    listener.set_nonblocking(true)?;
    let addr = listener.local_addr()?;
    Ok(Spare {
        listener: TcpListener::from_std(listener)?,
        addr,
    })
}
