//! Server-sent events: the writer of a session stream (one event per message, with its id,
//! keep-alive comments while idle, and the stream shapes of faults), of a listen stream, and
//! of a one-event answer.

use std::sync::Arc;
use std::time::Duration;

use axum::body::{Body, Bytes};
use axum::http::{HeaderValue, header};
use axum::response::Response;
use serde_json::{Value, json};

use crate::engine::Engine;
use crate::engine::capture::{self, ExchangeId, Recorder};
use crate::engine::methods::listen::{Frame, Subscription};
use crate::engine::pipeline::outcome::{Listening, Shape, Streamed};
use crate::engine::protocol::garble::malformed;
use crate::engine::protocol::jsonrpc;
use crate::engine::state::faults::HangPermit;
use crate::engine::state::session::{Reader, Session};
use crate::engine::state::stream::{self, Poll};
use crate::spec::ProtocolVersion;

/// The event stream of a request answered on a stream of its session.
pub(crate) fn session_stream(
    engine: Arc<Engine>,
    streamed: Streamed,
    exchange: Option<ExchangeId>,
) -> Response {
    sse_response(event_body(engine, streamed, exchange))
}

/// A whole answer as one event (a server in SSE response mode).
pub(crate) fn one_event(message: &Value) -> Response {
    one_event_text(message.to_string().as_bytes())
}

/// [`one_event`] for a message already written as JSON text (one line: JSON text that
/// `serde_json` writes compactly has no newline).
pub(crate) fn one_event_text(message: &[u8]) -> Response {
    let mut event = Vec::with_capacity(message.len() + 24);
    event.extend_from_slice(b"event: message\ndata: ");
    event.extend_from_slice(message);
    event.extend_from_slice(b"\n\n");
    sse_response(Body::from(event))
}

/// An SSE body that reads a session stream: one event per message, with its id, and a
/// comment as keep-alive while idle. Each message is captured when it is written. `shape`
/// is how a faulted request's stream misbehaves (see `Shape`); `hang` holds a
/// hanging stream's place in the server's count.
pub(crate) fn event_body(
    engine: Arc<Engine>,
    streamed: Streamed,
    exchange: Option<ExchangeId>,
) -> Body {
    let Streamed {
        session,
        reader,
        shape,
        hang,
    } = streamed;
    let state = BodyState {
        engine,
        session,
        reader,
        exchange,
        shape,
        written: false,
        flooded: 0,
        done: false,
        _hang: hang,
    };
    let stream = futures::stream::unfold(state, |mut state| async move {
        if state.done {
            return None;
        }
        // 2026-07-28 streams are request-scoped and not resumable: no event ids.
        let modern = state.session.version.is_modern();
        if let Some(chunk) = state.fault_chunk(modern) {
            return Some((Ok(chunk), state));
        }
        loop {
            match state.session.poll(&mut state.reader) {
                Poll::Event(event) => {
                    state.written = true;
                    let id = if modern {
                        String::new()
                    } else {
                        format!("id: {}\n", stream::event_id(state.reader.stream, event.seq))
                    };
                    // On a POST stream the one message without a method is the response.
                    let response = event.message.as_ref().filter(|m| m.get("method").is_none());
                    let text = match (&event.message, state.shape) {
                        (Some(_), Shape::Cut) if response.is_some() => {
                            state.done = true;
                            return Some((
                                Err(std::io::Error::other(
                                    "mcp-decoy: the close_connection fault cut the connection",
                                )),
                                state,
                            ));
                        }
                        // No id, as if garbled in transit: a resumed stream replays the
                        // buffered response intact.
                        (Some(message), Shape::Malformed) if response.is_some() => {
                            format!("event: message\ndata: {}\n\n", malformed(message))
                        }
                        (Some(message), _) => {
                            capture::sent(&state.engine, &state.session, state.exchange, message);
                            format!("{id}event: message\ndata: {message}\n\n")
                        }
                        (None, Shape::Poll { retry_ms }) => {
                            state.done = true;
                            format!("{id}retry: {retry_ms}\ndata: \n\n")
                        }
                        (None, _) => format!("{id}data: \n\n"),
                    };
                    return Some((Ok(Bytes::from(text)), state));
                }
                Poll::Closed => return None,
                Poll::Wait => {
                    tokio::select! {
                        changed = state.reader.wake.changed() => {
                            if changed.is_err() { return None; }
                        }
                        // Limits::keep_alive_ms: so proxies and clients keep an idle stream open.
                        () = tokio::time::sleep(Duration::from_millis(state.engine.limits.keep_alive_ms)) => {
                            return Some((Ok(Bytes::from_static(b": keep-alive\n\n")), state));
                        }
                    }
                }
            }
        }
    });
    Body::from_stream(stream)
}

/// Notifications of a flood written per chunk: big enough to be cheap, small enough that a
/// slow client applies back-pressure.
const FLOOD_CHUNK: u32 = 100;

struct BodyState {
    engine: Arc<Engine>,
    session: Arc<Session>,
    reader: Reader,
    exchange: Option<ExchangeId>,
    shape: Shape,
    /// An event of the stream was written.
    written: bool,
    /// Notifications of a flood written so far.
    flooded: u32,
    /// The body ends at the next poll (SSE polling, a cut connection).
    done: bool,
    _hang: Option<HangPermit>,
}

impl BodyState {
    /// The next chunk a fault writes on its own, before or between the stream's events.
    fn fault_chunk(&mut self, modern: bool) -> Option<Bytes> {
        match self.shape {
            // No event ids to resume from in 2026-07-28: the retry hint, then the end.
            Shape::Poll { retry_ms } if modern => {
                self.done = true;
                Some(Bytes::from(format!("retry: {retry_ms}\n\n")))
            }
            // After the priming event when there is one, so it stays the first event.
            Shape::Flood { count }
                if self.flooded < count
                    && (self.written || self.session.version != ProtocolVersion::V2025_11_25) =>
            {
                let to = self.flooded.saturating_add(FLOOD_CHUNK).min(count);
                let chunk = flood_chunk(self.flooded + 1, to + 1, count);
                self.flooded = to;
                Some(chunk)
            }
            _ => None,
        }
    }
}

impl Drop for BodyState {
    fn drop(&mut self) {
        self.session.detach(&self.reader);
        // A hanging stream has no writer left to finish it; finished, the session can evict it.
        if self.shape == Shape::Hang {
            self.session.finish_stream(self.reader.stream);
        }
        // In 2026-07-28 closing the response stream is how a client cancels
        // (`basic/patterns/cancellation.mdx`); after the response it is a no-op. A stream the
        // server itself ended (SSE polling) is no cancellation.
        if self.session.version.is_modern() && !matches!(self.shape, Shape::Poll { .. }) {
            self.session.cancel_all();
        }
    }
}

/// The stream of a `subscriptions/listen` request. Each notification is captured as it is
/// written; the listen request's record gets the listen response when the server ends the
/// stream, or is marked cancelled when the client closes it (2026-07-28 cancellation).
pub(crate) fn listen_stream(
    engine: Arc<Engine>,
    listening: Listening,
    exchange: Option<ExchangeId>,
) -> Response {
    let Listening {
        session,
        subscription,
        record,
    } = listening;
    let state = ListenBody {
        engine,
        session,
        subscription,
        exchange,
        record: Some(record),
    };
    let stream = futures::stream::unfold(state, |mut state| async move {
        let text = match state.subscription.next().await? {
            Frame::Notification(message) => {
                capture::sent(&state.engine, &state.session, state.exchange, &message);
                format!("event: message\ndata: {message}\n\n")
            }
            Frame::Final(response) => {
                if let Some(record) = state.record.take() {
                    record.answered(&response, None);
                }
                format!("event: message\ndata: {response}\n\n")
            }
            Frame::KeepAlive => ": keep-alive\n\n".to_string(),
        };
        Some((Ok::<_, std::convert::Infallible>(Bytes::from(text)), state))
    });
    sse_response(Body::from_stream(stream))
}

struct ListenBody {
    engine: Arc<Engine>,
    session: Arc<Session>,
    subscription: Subscription,
    exchange: Option<ExchangeId>,
    /// Dropped before the listen response, the client closed the stream, which ends the
    /// subscription (`subscriptions.mdx`, "Cancellation"): the recorder marks it cancelled.
    record: Option<Recorder>,
}

/// Events `from..to` (1-based) of a flood of `count`, as one chunk of SSE text.
pub(crate) fn flood_chunk(from: u32, to: u32, count: u32) -> Bytes {
    let mut text = String::new();
    for n in from..to {
        let message = jsonrpc::notification(
            "notifications/message",
            Some(json!({
                "level": "info",
                "logger": "mcp-decoy",
                "data": format!("flood {n} of {count}"),
            })),
        );
        text.push_str("event: message\ndata: ");
        text.push_str(&message.to_string());
        text.push_str("\n\n");
    }
    Bytes::from(text)
}

pub(crate) fn sse_response(body: Body) -> Response {
    let mut response = Response::new(body);
    let headers = response.headers_mut();
    headers.insert(
        header::CONTENT_TYPE,
        HeaderValue::from_static("text/event-stream"),
    );
    headers.insert(header::CACHE_CONTROL, HeaderValue::from_static("no-cache"));
    // Reverse proxies (nginx) otherwise hold events back.
    headers.insert("x-accel-buffering", HeaderValue::from_static("no"));
    response
}
