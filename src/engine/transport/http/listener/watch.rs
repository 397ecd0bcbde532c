//! The timeouts of one connection. Which clock runs depends on what the connection is
//! doing, which only the bytes ([`Watched`]) and the requests ([`Tracked`]) know together:
//! waiting for a request's head (the header timeout), waiting between requests (the idle
//! timeout), receiving a request's body (the header timeout again, from when the service
//! first waits for the body: a client that announces a body and stalls would otherwise hold
//! the connection, and its place under the cap, for good), or serving a request until its
//! response is written (none: an event stream may stay open for hours). [`Watch::expired`]
//! completes when the running clock runs out.

use std::convert::Infallible;
use std::future::Future;
use std::io;
use std::pin::Pin;
use std::sync::{Arc, Mutex};
use std::task::{Context, Poll};
use std::time::Duration;

use axum::body::Body;
use bytes::Bytes;
use hyper::body::{Body as HttpBody, Frame, Incoming, SizeHint};
use tokio::io::{AsyncRead, AsyncWrite, ReadBuf};
use tokio::net::TcpStream;
use tokio::sync::Notify;
use tokio::time::Instant;
#[cfg(feature = "decoy-cli")]
use tower::ServiceExt;

use super::{Connections, Served};

/// What the connection is doing, as far as its timeouts care.
#[derive(Debug, Clone, Copy)]
enum Phase {
    /// Waiting for a request's head since then: the header timeout runs.
    Head(Instant),
    /// Between requests since then: the idle timeout runs.
    Idle(Instant),
    /// This many requests whose responses are not yet written: no timeout runs.
    Busy(usize),
}

/// The state both timeouts read, shared by the connection's bytes, requests and watchdog.
#[derive(Debug)]
pub(super) struct Watch {
    state: Mutex<State>,
    changed: Notify,
    header: Duration,
    idle: Duration,
}

#[derive(Debug)]
struct State {
    phase: Phase,
    /// When the watchdog's timer goes off next (`None` while it waits without one). A change
    /// whose deadline is no earlier needs no word to the watchdog: its timer goes off first
    /// and it reads the phase then. So a request on a kept-alive connection neither wakes the
    /// watchdog nor moves its timer (which costs a timer registration and, on a quiet
    /// runtime, a wake-up of the reactor).
    armed: Option<Instant>,
    /// Since when the service has been waiting for the body of the request it serves, until
    /// the body's end (HTTP/1 reads one request's body at a time).
    body: Option<Instant>,
}

impl State {
    /// When the running clock runs out, and which timeout it is; `None` while busy (or when
    /// the deadline is too far to represent).
    fn deadline(&self, header: Duration, idle: Duration) -> Option<(Instant, &'static str)> {
        match self.phase {
            Phase::Head(since) => Some((since.checked_add(header)?, "header read timeout")),
            Phase::Idle(since) => Some((since.checked_add(idle)?, "idle timeout")),
            Phase::Busy(_) => Some((self.body?.checked_add(header)?, "body read timeout")),
        }
    }
}

impl Watch {
    /// A new connection: its first request's head is due within the header timeout.
    pub(super) fn new(limits: Connections) -> Watch {
        Watch {
            state: Mutex::new(State {
                phase: Phase::Head(Instant::now()),
                armed: None,
                body: None,
            }),
            changed: Notify::new(),
            header: limits.header_read_timeout,
            idle: limits.idle_timeout,
        }
    }

    fn lock(&self) -> std::sync::MutexGuard<'_, State> {
        self.state.lock().unwrap_or_else(|p| p.into_inner())
    }

    fn update(&self, change: impl FnOnce(&mut State)) {
        let mut state = self.lock();
        change(&mut state);
        let sooner = match (state.deadline(self.header, self.idle), state.armed) {
            (Some((deadline, _)), Some(armed)) => deadline < armed,
            (Some(_), None) => true,
            (None, _) => false,
        };
        drop(state);
        if sooner {
            // One waiter, the watchdog; a permit stored while it is busy is not lost.
            self.changed.notify_one();
        }
    }

    /// Bytes arrived: between requests, they start the next request's head.
    fn bytes_arrived(&self) {
        let idle = matches!(self.lock().phase, Phase::Idle(_));
        if idle {
            self.update(|state| {
                if let Phase::Idle(_) = state.phase {
                    state.phase = Phase::Head(Instant::now());
                }
            });
        }
    }

    /// A request's head was read; the guard ends the request when its response is written
    /// (or dropped).
    fn request_started(self: &Arc<Self>) -> InFlight {
        self.update(|state| {
            state.phase = match state.phase {
                Phase::Busy(n) => Phase::Busy(n + 1),
                Phase::Head(_) | Phase::Idle(_) => Phase::Busy(1),
            };
            // A body the service kept past its response no longer times this request.
            state.body = None;
        });
        InFlight(self.clone())
    }

    fn request_ended(&self) {
        self.update(|state| {
            state.phase = match state.phase {
                Phase::Busy(n) if n > 1 => Phase::Busy(n - 1),
                _ => Phase::Idle(Instant::now()),
            }
        });
    }

    /// The service waits for a request's body; the guard stops its clock when the body has
    /// arrived (or is dropped unread).
    fn body_started(self: &Arc<Self>) -> Receiving {
        self.update(|state| state.body = Some(Instant::now()));
        Receiving(self.clone())
    }

    fn body_ended(&self) {
        self.update(|state| state.body = None);
    }

    /// The running clock's deadline, noted as the one the watchdog's timer is set to.
    fn arm(&self) -> Option<(Instant, &'static str)> {
        let mut state = self.lock();
        let deadline = state.deadline(self.header, self.idle);
        state.armed = deadline.map(|(at, _)| at);
        deadline
    }

    /// Completes with the timeout's name once the running clock runs out. One timer serves
    /// the whole connection: moved later, it stays where the reactor has it.
    pub(super) async fn expired(&self) -> &'static str {
        let timer = tokio::time::sleep(Duration::ZERO);
        tokio::pin!(timer);
        let mut set = false;
        loop {
            let Some((deadline, timeout)) = self.arm() else {
                self.changed.notified().await;
                continue;
            };
            if !set || timer.deadline() != deadline {
                timer.as_mut().reset(deadline);
                set = true;
            }
            tokio::select! {
                biased;
                () = self.changed.notified() => {}
                () = timer.as_mut() => {
                    // The phase may have changed since without a word (a later deadline).
                    if self.lock().deadline(self.header, self.idle) == Some((deadline, timeout)) {
                        return timeout;
                    }
                }
            }
        }
    }
}

/// One request in flight, until its response body is written or dropped.
#[derive(Debug)]
struct InFlight(Arc<Watch>);

impl Drop for InFlight {
    fn drop(&mut self) {
        self.0.request_ended();
    }
}

/// One request body being received, until its end.
#[derive(Debug)]
struct Receiving(Arc<Watch>);

impl Drop for Receiving {
    fn drop(&mut self) {
        self.0.body_ended();
    }
}

/// A request's body as the service reads it. Its clock starts the first time the service
/// has to wait for it, so a body that came whole with its head (a small one with a
/// `Content-Length`, as clients send) costs the watchdog no wake-up and no timer; a chunked
/// one waits for its last chunk, so it starts the clock. The clock stops at the body's end.
/// It times the whole body, not its progress: at the default 10 s, a 4 MiB body must come at
/// 420 KB/s or more.
#[derive(Debug)]
struct ReceivedBody {
    body: Incoming,
    watch: Arc<Watch>,
    receiving: Option<Receiving>,
    ended: bool,
}

impl HttpBody for ReceivedBody {
    type Data = Bytes;
    type Error = hyper::Error;

    fn poll_frame(
        mut self: Pin<&mut Self>,
        cx: &mut Context<'_>,
    ) -> Poll<Option<Result<Frame<Bytes>, hyper::Error>>> {
        let polled = Pin::new(&mut self.body).poll_frame(cx);
        match &polled {
            Poll::Pending if !self.ended && self.receiving.is_none() => {
                self.receiving = Some(self.watch.body_started());
            }
            Poll::Pending => {}
            Poll::Ready(None | Some(Err(_))) => self.ended = true,
            Poll::Ready(Some(Ok(_))) => self.ended = self.body.is_end_stream(),
        }
        if self.ended {
            self.receiving = None;
        }
        polled
    }

    fn is_end_stream(&self) -> bool {
        self.body.is_end_stream()
    }

    fn size_hint(&self) -> SizeHint {
        self.body.size_hint()
    }
}

/// The connection's socket, telling the watch when bytes arrive.
#[derive(Debug)]
pub(super) struct Watched {
    tcp: TcpStream,
    watch: Arc<Watch>,
}

impl Watched {
    pub(super) fn new(tcp: TcpStream, watch: Arc<Watch>) -> Watched {
        Watched { tcp, watch }
    }
}

impl AsyncRead for Watched {
    fn poll_read(
        mut self: Pin<&mut Self>,
        cx: &mut Context<'_>,
        buf: &mut ReadBuf<'_>,
    ) -> Poll<io::Result<()>> {
        let before = buf.filled().len();
        let polled = Pin::new(&mut self.tcp).poll_read(cx, buf);
        if matches!(polled, Poll::Ready(Ok(()))) && buf.filled().len() > before {
            self.watch.bytes_arrived();
        }
        polled
    }
}

impl AsyncWrite for Watched {
    fn poll_write(
        mut self: Pin<&mut Self>,
        cx: &mut Context<'_>,
        buf: &[u8],
    ) -> Poll<io::Result<usize>> {
        Pin::new(&mut self.tcp).poll_write(cx, buf)
    }

    fn poll_write_vectored(
        mut self: Pin<&mut Self>,
        cx: &mut Context<'_>,
        bufs: &[io::IoSlice<'_>],
    ) -> Poll<io::Result<usize>> {
        Pin::new(&mut self.tcp).poll_write_vectored(cx, bufs)
    }

    fn is_write_vectored(&self) -> bool {
        self.tcp.is_write_vectored()
    }

    fn poll_flush(mut self: Pin<&mut Self>, cx: &mut Context<'_>) -> Poll<io::Result<()>> {
        Pin::new(&mut self.tcp).poll_flush(cx)
    }

    fn poll_shutdown(mut self: Pin<&mut Self>, cx: &mut Context<'_>) -> Poll<io::Result<()>> {
        Pin::new(&mut self.tcp).poll_shutdown(cx)
    }
}

/// What is served, as hyper calls it, marking each request in flight until its response
/// body is written.
#[derive(Debug, Clone)]
pub(super) struct Tracked {
    served: Served,
    watch: Arc<Watch>,
}

impl Tracked {
    pub(super) fn new(served: Served, watch: Arc<Watch>) -> Tracked {
        Tracked { served, watch }
    }
}

type Answer = http::Response<TrackedBody>;

type Serving = Pin<Box<dyn Future<Output = Result<Answer, Infallible>> + Send>>;

impl hyper::service::Service<http::Request<Incoming>> for Tracked {
    type Response = Answer;
    type Error = Infallible;
    type Future = Started;

    fn call(&self, request: http::Request<Incoming>) -> Started {
        let in_flight = self.watch.request_started();
        let served = self.served.clone();
        let request = request.map(|body| {
            if body.is_end_stream() {
                Body::new(body)
            } else {
                Body::new(ReceivedBody {
                    body,
                    watch: self.watch.clone(),
                    receiving: None,
                    ended: false,
                })
            }
        });
        let mut serving: Serving = Box::pin(async move {
            let response = match served {
                Served::Endpoint(endpoint) => endpoint.handle(request).await,
                #[cfg(feature = "decoy-cli")]
                Served::Router(router) => match router.oneshot(request).await {
                    Ok(response) => response,
                    Err(never) => match never {},
                },
            };
            Ok(response.map(|body| TrackedBody {
                body,
                _in_flight: in_flight,
            }))
        });
        // hyper drops this future unpolled when it finds the connection closed right after
        // the head it just read (a client that hangs up as it sends): polled once here, the
        // capture has recorded the request before that can happen. hyper polls it again
        // with its own waker before it waits, as a future pending here needs.
        match serving
            .as_mut()
            .poll(&mut Context::from_waker(std::task::Waker::noop()))
        {
            Poll::Ready(answer) => Started::Answered(Some(answer)),
            Poll::Pending => Started::Serving(serving),
        }
    }
}

/// A request's service future after its first poll in [`Tracked::call`].
pub(super) enum Started {
    /// Answered in that poll; taken on hyper's first poll.
    Answered(Option<Result<Answer, Infallible>>),
    /// Still serving.
    Serving(Serving),
}

impl Future for Started {
    type Output = Result<Answer, Infallible>;

    fn poll(self: Pin<&mut Self>, cx: &mut Context<'_>) -> Poll<Self::Output> {
        match self.get_mut() {
            Started::Answered(answer) => match answer.take() {
                Some(answer) => Poll::Ready(answer),
                None => Poll::Pending,
            },
            Started::Serving(serving) => serving.as_mut().poll(cx),
        }
    }
}

/// A response body that keeps its request in flight until hyper has written it all
/// (then hyper drops it).
#[derive(Debug)]
pub(super) struct TrackedBody {
    body: Body,
    _in_flight: InFlight,
}

impl HttpBody for TrackedBody {
    type Data = Bytes;
    type Error = axum::Error;

    fn poll_frame(
        mut self: Pin<&mut Self>,
        cx: &mut Context<'_>,
    ) -> Poll<Option<Result<Frame<Bytes>, axum::Error>>> {
        Pin::new(&mut self.body).poll_frame(cx)
    }

    fn is_end_stream(&self) -> bool {
        self.body.is_end_stream()
    }

    fn size_hint(&self) -> SizeHint {
        self.body.size_hint()
    }
}

#[cfg(test)]
mod tests {
    use hyper_util::rt::TokioIo;
    use tokio::io::AsyncWriteExt;

    use super::*;
    use crate::engine::Engine;
    use crate::engine::transport::http::endpoint::Endpoint;
    use crate::log::{Entry, Record};
    use crate::spec::ServerSpec;

    /// Serves one connection whose client sent `request` and then closed: hyper reads the
    /// head and finds the end of the connection at once. The log's records afterwards.
    async fn hang_up_after(request: &[u8]) -> Vec<Record> {
        let engine = Engine::for_tests(ServerSpec::new("s"));
        let endpoint = Endpoint::new(engine.clone(), "/mcp");
        let watch = Arc::new(Watch::new(Connections::default()));
        let (mut client, server) = tokio::io::duplex(64 * 1024);
        client.write_all(request).await.expect("written");
        drop(client);
        let service = Tracked::new(Served::Endpoint(endpoint), watch);
        let served = hyper::server::conn::http1::Builder::new()
            .serve_connection(TokioIo::new(server), service);
        // Ends with an error: the connection closed before the response was written.
        let _ = served.await;
        engine.log.records()
    }

    /// Issue 40: hyper drops a service's future unpolled when the connection's end comes
    /// right behind the head it read; a GET so cut off left no record at all.
    #[tokio::test]
    async fn a_request_whose_connection_ends_right_after_its_head_is_recorded() {
        // Arrange + Act
        let records = hang_up_after(
            b"GET /mcp HTTP/1.1\r\nhost: 127.0.0.1\r\naccept: text/event-stream\r\n\
              mcp-session-id: gone\r\nmcp-protocol-version: 2025-11-25\r\n\r\n",
        )
        .await;

        // Assert: the GET is recorded, with the answer it was given.
        let exchanges: Vec<_> = records
            .iter()
            .filter_map(|r| match &r.entry {
                Entry::Http(h) => Some(h),
                Entry::Mcp(_) => None,
            })
            .collect();
        assert_eq!(exchanges.len(), 1, "{exchanges:?}");
        assert_eq!(exchanges[0].method, "GET");
        assert_eq!(exchanges[0].status, Some(404), "{exchanges:?}");
    }
}
