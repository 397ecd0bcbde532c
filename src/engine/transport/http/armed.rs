//! A fixture's listener left with its server until the first client connects: the server's
//! task is made then, on the runtime's own thread, by the wake-up of the listener's first
//! readiness, so neither `start()` nor the runtime's thread does anything for it before.
//!
//! Handing a task to another thread's runtime writes to that runtime's eventfd, and wakes its
//! thread when it sleeps: on two cores, a thousand fixtures started at once spent a tenth of
//! their time on it (benches/README.md, "Armed listeners"). Registering a readiness interest
//! does neither: the listener is registered with the runtime's reactor where it is bound (on
//! the caller's thread, inside the runtime's context), and asked once for a connection with a
//! waker of ours. The runtime's thread runs that waker when the client connects, as part of
//! the turn that the connection woke it for anyway, and spawns the server there.
//!
//! A fixture that stops before any client came fires the server itself
//! ([`Armed::fire`]): its stop still runs on the runtime, where it ends whatever the fixture
//! served besides HTTP (in-memory streams, stdio bridges).

use std::future::Future;
use std::pin::Pin;
use std::sync::{Arc, Mutex};
use std::task::{Context, Poll, Wake, Waker};

use tokio::net::{TcpListener, TcpStream};
use tokio::runtime::Handle;

/// What serves a listener once it fires: the listener, and the connection already accepted
/// on it, if one was.
pub(super) type Serve = Box<
    dyn FnOnce(TcpListener, Option<TcpStream>) -> Pin<Box<dyn Future<Output = ()> + Send>> + Send,
>;

/// A listener and the server it waits to start.
pub(super) struct Armed {
    parked: Mutex<Option<(TcpListener, Serve)>>,
    runtime: Handle,
}

impl std::fmt::Debug for Armed {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("Armed").finish_non_exhaustive()
    }
}

impl Armed {
    /// Leaves `serve` with `listener` (registered with `runtime`'s reactor) until a client
    /// connects or [`fire`](Self::fire) is called. A connection that is already waiting
    /// starts the server at once.
    pub(super) fn arm(runtime: Handle, listener: TcpListener, serve: Serve) -> Arc<Armed> {
        let armed = Arc::new(Armed {
            parked: Mutex::new(None),
            runtime,
        });
        let waker = Waker::from(armed.clone());
        {
            let mut parked = armed.lock();
            // The lock is held until the listener is parked, so a wake-up on the runtime's
            // thread in between finds it there.
            match listener.poll_accept(&mut Context::from_waker(&waker)) {
                Poll::Pending => *parked = Some((listener, serve)),
                Poll::Ready(accepted) => {
                    drop(parked);
                    let first = accepted.ok().map(|(tcp, _)| tcp);
                    armed.runtime.spawn(serve(listener, first));
                }
            }
        }
        armed
    }

    /// Starts the server now, if it has not started: a client came, or the fixture stops.
    pub(super) fn fire(&self) {
        let parked = self.lock().take();
        if let Some((listener, serve)) = parked {
            self.runtime.spawn(serve(listener, None));
        }
    }

    fn lock(&self) -> std::sync::MutexGuard<'_, Option<(TcpListener, Serve)>> {
        self.parked.lock().unwrap_or_else(|p| p.into_inner())
    }
}

impl Wake for Armed {
    fn wake(self: Arc<Self>) {
        self.fire();
    }

    fn wake_by_ref(self: &Arc<Self>) {
        self.fire();
    }
}
