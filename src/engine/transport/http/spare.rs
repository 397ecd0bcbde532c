//! Loopback listeners bound ahead of time, two per fixture runtime, each registered with that
//! runtime's reactor: a fixture started on `127.0.0.1` with a free port (the default) claims
//! one of its runtime's spares instead of binding, so its start makes no system call for the socket
//! (socket, bind, listen, the port's name, non-blocking mode, the reactor's registration).
//! It is then armed like any fixture's listener ([`armed`](super::armed)).
//!
//! A fixture that stops binds its runtime's next spares on that runtime's thread, once its
//! own sockets are closed: then neither a start nor a first answer waits for it. Two, not
//! one: fixtures that never overlap all go to the same runtime ([`pool::next`]), so the next
//! one starts before the last one's refill has run, and takes the other spare.
//!
//! A spare is a listener no one has been told of: claimed, it is as new as one bound on the
//! spot (a connection that reached it unasked waits in its backlog and is served by the
//! fixture that claims it). An address other than the default, or a runtime whose spares are
//! taken, binds as before.

use std::net::{Ipv4Addr, SocketAddr};
use std::sync::Mutex;

use tokio::net::TcpListener;

use crate::engine::transport::pool;

/// One slot per pool runtime, by its index.
static SPARES: [Mutex<Vec<Spare>>; pool::MAX_THREADS] =
    [const { Mutex::new(Vec::new()) }; pool::MAX_THREADS];

/// Spares kept per runtime (see the module's text for why two).
const DEPTH: usize = 2;

/// A listener registered with the runtime whose slot holds it, and its address.
#[derive(Debug)]
pub(super) struct Spare {
    pub(super) listener: TcpListener,
    pub(super) addr: SocketAddr,
}

/// The address a spare is bound to: the fixture's default.
fn default_addr() -> SocketAddr {
    SocketAddr::from((Ipv4Addr::LOCALHOST, 0))
}

/// A spare of runtime `index`, when `addr` is the default address and it has one.
pub(super) fn take(index: usize, addr: SocketAddr) -> Option<Spare> {
    if addr != default_addr() {
        return None;
    }
    let mut slot = SPARES.get(index)?.lock().unwrap_or_else(|p| p.into_inner());
    slot.pop()
}

/// Binds spares of runtime `index` until it has [`DEPTH`]. Runs on that runtime, whose
/// reactor the listener registers with.
pub(super) fn refill(index: usize) {
    let Some(slot) = SPARES.get(index) else {
        return;
    };
    while slot.lock().unwrap_or_else(|p| p.into_inner()).len() < DEPTH {
        match super::listener::bind(default_addr(), super::listener::FIXTURE_BACKLOG) {
            Ok((listener, addr)) => {
                let mut slot = slot.lock().unwrap_or_else(|p| p.into_inner());
                // Another fixture of this runtime may have refilled it meanwhile.
                if slot.len() < DEPTH {
                    slot.push(Spare { listener, addr });
                }
            }
            // Not fatal: the next fixture binds its own, and reports the error if it recurs.
            Err(error) => {
                tracing::debug!(%error, "mcp-decoy: no spare listener");
                return;
            }
        }
    }
}
