//! Serves a router on a TCP listener and keeps its connections in check: a client gets
//! [`Connections::header_read_timeout`] to send a request's head, a kept-alive connection
//! [`Connections::idle_timeout`] between requests (never while a response, such as an event
//! stream, is still being written: [`watch`]), and past [`Connections::max_connections`] a
//! new connection is answered `503` and closed ([`refuse`]). The fixture and both listeners
//! of the app serve through [`serve`]; `axum::serve` offers none of these limits.

mod refuse;
mod watch;

use std::future::Future;
use std::net::SocketAddr;
use std::sync::Arc;
use std::sync::atomic::{AtomicBool, Ordering};
use std::task::{Context, Poll, Wake, Waker};
use std::time::Duration;

#[cfg(feature = "decoy-cli")]
use axum::Router;
use futures::StreamExt;
use futures::stream::FuturesUnordered;
use futures::task::AtomicWaker;
use hyper_util::rt::TokioIo;
use tokio::net::{TcpListener, TcpSocket, TcpStream};
use tokio::sync::{OwnedSemaphorePermit, Semaphore, mpsc};
use tokio_util::sync::CancellationToken;

use super::endpoint::Endpoint;
use crate::engine::transport::pool;
use crate::error::Error;
use watch::{Tracked, Watch, Watched};

/// The backlog of a fixture's listener, as the standard library's `TcpListener::bind` sets it.
pub(crate) const FIXTURE_BACKLOG: u32 = 128;

/// Binds a listener on `addr` and registers it with the current runtime's reactor (call it
/// inside one), with its address: the socket is made non-blocking as it is created, one
/// system call fewer than binding through the standard library and handing the socket over.
/// `SO_REUSEADDR` is set as the standard library sets it: a restarted server binds its port
/// again while its old connections are still closing (TIME_WAIT), and a port of the
/// system's choosing may be one that only such connections hold. `TCP_NODELAY` is set here
/// too: Linux hands it down to every connection the listener accepts, which then need no
/// system call of their own before their first answer ([`serve_scoped`]).
pub(crate) fn bind(addr: SocketAddr, backlog: u32) -> std::io::Result<(TcpListener, SocketAddr)> {
    let socket = match addr {
        SocketAddr::V4(_) => TcpSocket::new_v4()?,
        SocketAddr::V6(_) => TcpSocket::new_v6()?,
    };
    socket.set_reuseaddr(true)?;
    socket.set_nodelay(true)?;
    socket.bind(addr)?;
    let listener = socket.listen(backlog)?;
    let addr = listener.local_addr()?;
    Ok((listener, addr))
}

/// How a listener treats its connections. The defaults suit tests and the app alike.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub(crate) struct Connections {
    /// How long a client may take to send a request's head (request line and headers),
    /// counted from when it connects or, between requests, from its next request's first
    /// byte. Past it the connection is closed (slowloris).
    pub(crate) header_read_timeout: Duration,
    /// How long a kept-alive connection may wait for its next request once every response
    /// is written. A request in flight, a long event stream included, stops this clock.
    pub(crate) idle_timeout: Duration,
    /// Connections open at once on this listener; past it a new one gets `503` and is closed.
    pub(crate) max_connections: usize,
}

impl Default for Connections {
    fn default() -> Self {
        Connections {
            header_read_timeout: Duration::from_secs(10),
            idle_timeout: Duration::from_secs(60),
            max_connections: 1024,
        }
    }
}

impl Connections {
    /// Refuses a zero limit, naming the builder method at fault (the app's flags check
    /// their own values).
    pub(crate) fn check(&self) -> Result<(), Error> {
        let zero = |field| Error::InvalidConfig {
            field,
            reason: "must be more than zero".into(),
        };
        if self.header_read_timeout.is_zero() {
            return Err(zero("header_read_timeout"));
        }
        if self.idle_timeout.is_zero() {
            return Err(zero("idle_timeout"));
        }
        if self.max_connections == 0 {
            return Err(zero("max_connections"));
        }
        Ok(())
    }
}

/// What a listener serves: one server's endpoint (the fixture), or a router (the app's
/// two listeners, which hand `/s/NAME/` on to each server's endpoint).
#[derive(Debug, Clone)]
pub(crate) enum Served {
    Endpoint(Endpoint),
    #[cfg(feature = "decoy-cli")]
    Router(Router),
}

impl From<Endpoint> for Served {
    fn from(endpoint: Endpoint) -> Served {
        Served::Endpoint(endpoint)
    }
}

/// How many refusals may be written at once; past it a connection over the limit is closed
/// without a word, so a flood cannot pile up refusal tasks either.
const MAX_REFUSALS: usize = 64;

/// Serves `router` on `listener` until `shutdown` completes, then stops accepting, lets
/// every connection finish its response (hyper's graceful shutdown) and returns once all are
/// closed. `setting` names what raises [`Connections::max_connections`], for the refusal
/// and its warning. Dropping the future stops accepting at once; the connections then live
/// as long as their runtime.
#[cfg(feature = "decoy-cli")]
pub(crate) async fn serve(
    listener: TcpListener,
    router: Router,
    limits: Connections,
    setting: &'static str,
    shutdown: impl Future<Output = ()>,
) {
    serve_scoped(
        listener,
        None,
        Served::Router(router),
        limits,
        setting,
        shutdown,
        CancellationToken::new(),
    )
    .await;
}

/// [`serve`], and every connection is dropped (its socket closed) as soon as `scope` is
/// cancelled: how a fixture on a shared runtime ends what it served. `first` is a connection
/// already accepted on `listener` (while it was armed, [`armed`](super::armed)).
pub(crate) async fn serve_scoped(
    listener: TcpListener,
    mut first: Option<TcpStream>,
    service: Served,
    limits: Connections,
    setting: &'static str,
    shutdown: impl Future<Output = ()>,
    scope: CancellationToken,
) {
    let runtime = tokio::runtime::Handle::current();
    // On a fixture's one-thread runtime the connections are polled in this task: they would
    // run on its thread anyway, and spawning each one as a task of its own cost an aligned
    // allocation and the scheduler's bookkeeping on the way to the first answer
    // (benches/README.md, "Connections in the server's task"). A multi-thread runtime (the
    // app's) spawns them, so they run in parallel.
    let inline = runtime.runtime_flavor() == tokio::runtime::RuntimeFlavor::CurrentThread;
    let mut served = FuturesUnordered::new();
    let slots = Arc::new(Semaphore::new(
        limits.max_connections.min(Semaphore::MAX_PERMITS),
    ));
    let refusals = Arc::new(Semaphore::new(MAX_REFUSALS));
    let mut refused = refuse::Warnings::default();
    let stop = CancellationToken::new();
    // Each connection holds a sender; `recv` returns `None` once the last one is dropped.
    let (open, mut all_closed) = mpsc::channel::<()>(1);
    tokio::pin!(shutdown);
    // The stop and the listener are polled again only when they were woken: a wake of a
    // connection polls that connection alone.
    let (stop_woken, listen_woken) = (Woken::new(), Woken::new());
    let (stop_waker, listen_waker) = (
        Waker::from(stop_woken.clone()),
        Waker::from(listen_woken.clone()),
    );
    loop {
        let accepted = match first.take() {
            Some(tcp) => Ok(tcp),
            None => {
                let next = std::future::poll_fn(|cx| {
                    stop_woken.register(cx.waker());
                    listen_woken.register(cx.waker());
                    // The stop first: a connection of a stopped fixture must not answer.
                    if stop_woken.take()
                        && shutdown
                            .as_mut()
                            .poll(&mut Context::from_waker(&stop_waker))
                            .is_ready()
                    {
                        return Poll::Ready(None);
                    }
                    while let Poll::Ready(Some(())) = served.poll_next_unpin(cx) {}
                    if listen_woken.take()
                        && let Poll::Ready(accepted) =
                            listener.poll_accept(&mut Context::from_waker(&listen_waker))
                    {
                        // More may be waiting: the listener is asked again next time.
                        listen_woken.note();
                        return Poll::Ready(Some(accepted.map(|(tcp, _)| tcp)));
                    }
                    Poll::Pending
                })
                .await;
                match next {
                    Some(accepted) => accepted,
                    None => break,
                }
            }
        };
        let tcp = match accepted {
            Ok(tcp) => tcp,
            Err(error) if is_connection_error(&error) => continue,
            Err(error) => {
                // Most likely out of file descriptors (EMFILE): wait for some to close, as
                // axum::serve and hyper 0.14 did.
                tracing::error!(%error, "mcp-decoy: cannot accept a connection");
                // This wait registers the task's own waker with the stop and the listener:
                // both are polled again after it, to register theirs.
                stop_woken.note();
                listen_woken.note();
                // The connections polled in this task go on meanwhile: ending them is what
                // gives descriptors back.
                let connections = async {
                    while served.next().await.is_some() {}
                    std::future::pending::<()>().await;
                };
                tokio::select! {
                    () = tokio::time::sleep(Duration::from_secs(1)) => continue,
                    () = &mut shutdown => break,
                    () = connections => continue,
                }
            }
        };
        // Without TCP_NODELAY each small SSE write waits ~40 ms for the peer's delayed ACK.
        // Linux sockets inherit it from their listener ([`bind`] sets it); elsewhere each
        // connection sets it.
        #[cfg(not(target_os = "linux"))]
        let _ = tcp.set_nodelay(true);
        match slots.clone().try_acquire_owned() {
            Ok(slot) => {
                let connection = connection(
                    tcp,
                    service.clone(),
                    limits,
                    stop.clone(),
                    (slot, open.clone()),
                );
                if inline {
                    served.push(connection);
                } else {
                    pool::spawn_scoped(&runtime, &scope, connection);
                }
            }
            Err(_) => {
                refused.note(limits.max_connections, setting);
                if let Ok(permit) = refusals.clone().try_acquire_owned() {
                    let refusal = refuse::refuse(tcp, limits.max_connections, setting, permit);
                    pool::spawn_scoped(&runtime, &scope, refusal);
                }
            }
        }
    }
    drop(listener);
    stop.cancel();
    drop(open);
    if scope.is_cancelled() {
        // As the spawned connections of the scope are dropped: their sockets close now.
        drop(served);
    } else {
        // Each finishes its current response (the stop above) and ends.
        while served.next().await.is_some() {}
    }
    let _ = all_closed.recv().await;
}

/// A waker that notes it was woken before it wakes the task that waits on several sources,
/// so the task polls again only the sources that were woken.
struct Woken {
    woken: AtomicBool,
    task: AtomicWaker,
}

impl Woken {
    /// Noted as woken, so the first poll polls the source.
    fn new() -> Arc<Woken> {
        Arc::new(Woken {
            woken: AtomicBool::new(true),
            task: AtomicWaker::new(),
        })
    }

    fn register(&self, task: &Waker) {
        self.task.register(task);
    }

    fn note(&self) {
        self.woken.store(true, Ordering::Release);
    }

    /// Whether the source was woken since the last call.
    fn take(&self) -> bool {
        self.woken.swap(false, Ordering::AcqRel)
    }
}

impl Wake for Woken {
    fn wake(self: Arc<Self>) {
        self.wake_by_ref();
    }

    fn wake_by_ref(self: &Arc<Self>) {
        self.note();
        self.task.wake();
    }
}

/// One connection, served until it ends, a timeout expires, or the listener stops (then
/// after its current response). `held` is its place under the cap and in the count of open
/// connections, given back when this returns.
async fn connection(
    tcp: TcpStream,
    service: Served,
    limits: Connections,
    stop: CancellationToken,
    held: (OwnedSemaphorePermit, mpsc::Sender<()>),
) {
    let watch = Arc::new(Watch::new(limits));
    let io = TokioIo::new(Watched::new(tcp, watch.clone()));
    let mut http = hyper::server::conn::http1::Builder::new();
    // hyper's own header timer also runs between requests, so it would cut a kept-alive
    // connection after the header timeout; `Watch` times the two apart instead.
    http.header_read_timeout(None);
    let served = http.serve_connection(io, Tracked::new(service, watch.clone()));
    tokio::pin!(served);
    let expired = watch.expired();
    tokio::pin!(expired);
    let mut stopping = false;
    loop {
        tokio::select! {
            // The connection first: a request that is ready is answered before the watchdog
            // first sets its timer, so that work is not on the way to the first answer.
            biased;
            result = served.as_mut() => {
                if let Err(error) = result {
                    tracing::debug!(%error, "mcp-decoy: a connection ended with an error");
                }
                break;
            }
            timeout = &mut expired => {
                // Dropping the connection closes the socket.
                tracing::debug!("mcp-decoy: closing a connection after its {timeout}");
                break;
            }
            () = stop.cancelled(), if !stopping => {
                stopping = true;
                served.as_mut().graceful_shutdown();
            }
        }
    }
    drop(held);
}

/// Errors of one connection that was gone before `accept` returned it.
fn is_connection_error(error: &std::io::Error) -> bool {
    use std::io::ErrorKind::{ConnectionAborted, ConnectionRefused, ConnectionReset};
    matches!(
        error.kind(),
        ConnectionRefused | ConnectionAborted | ConnectionReset
    )
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_zero_limit_is_refused_naming_its_field() {
        for (limits, field) in [
            (
                Connections {
                    header_read_timeout: Duration::ZERO,
                    ..Connections::default()
                },
                "header_read_timeout",
            ),
            (
                Connections {
                    idle_timeout: Duration::ZERO,
                    ..Connections::default()
                },
                "idle_timeout",
            ),
            (
                Connections {
                    max_connections: 0,
                    ..Connections::default()
                },
                "max_connections",
            ),
        ] {
            let error = limits.check().expect_err("zero is refused");
            assert!(error.to_string().contains(field), "{error}");
        }
        assert!(Connections::default().check().is_ok());
    }

    /// `serve_scoped` sets no `TCP_NODELAY` of its own on Linux: it relies on this.
    #[cfg(target_os = "linux")]
    #[tokio::test]
    async fn accepted_connections_inherit_nodelay_from_the_listener() {
        let (listener, addr) = bind(SocketAddr::from(([127, 0, 0, 1], 0)), FIXTURE_BACKLOG)
            .expect("a loopback listener");
        let _client = TcpStream::connect(addr).await.expect("connected");
        let (accepted, _) = listener.accept().await.expect("accepted");
        assert!(accepted.nodelay().expect("readable option"));
    }
}
