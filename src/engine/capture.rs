//! Records traffic into the server's [`TrafficLog`]: a middleware for every HTTP exchange,
//! and helpers the transport calls for each JSON-RPC message. The only writer of the log.

use std::sync::Arc;
use std::time::Instant;

use axum::body::{Body, Bytes};
use axum::extract::{Request, State};
use axum::http::{HeaderMap, Method, StatusCode, header};
use axum::middleware::Next;
use axum::response::{IntoResponse, Response};
use futures::StreamExt;
use serde_json::Value;

use super::Engine;
use super::jsonrpc::{self, RpcError, code};
use super::oauth::mask;
use super::session::Session;
use crate::log::{Direction, Entry, Era, HttpExchange, HttpKind, RpcKind, RpcMessage};

/// Bodies larger than this are kept in the log as a text prefix, so that a 4 MiB upload does
/// not multiply by the log's record limit.
const MAX_CAPTURED_BODY: usize = 256 * 1024;

/// The id of the `http` record of the exchange being handled, for linking `mcp` records.
#[derive(Debug, Clone, Copy)]
pub(crate) struct ExchangeId(pub(crate) u64);

/// Middleware: one `http` record per exchange (OPTIONS preflights excepted, as the product
/// guide says), the request body limit (413), and a `stream_end` record when an event
/// stream closes.
pub(crate) async fn exchange(
    State(engine): State<Arc<Engine>>,
    request: Request,
    next: Next,
) -> Response {
    if request.method() == Method::OPTIONS {
        return next.run(request).await;
    }
    let started = Instant::now();
    let (mut parts, body) = request.into_parts();
    let limit = engine.limits.max_body_bytes;
    let declared = parts
        .headers
        .get(header::CONTENT_LENGTH)
        .and_then(|v| v.to_str().ok())
        .and_then(|v| v.parse::<u64>().ok());
    let bytes = match declared {
        Some(length) if length > limit as u64 => None,
        _ => axum::body::to_bytes(body, limit).await.ok(),
    };
    // OAuth exchanges carry codes, tokens and secrets; the log keeps them masked.
    let secret = engine
        .oauth
        .as_ref()
        .is_some_and(|o| o.owns(parts.uri.path()));
    let id = engine.log.push_from(
        engine.source,
        Entry::Http(HttpExchange {
            kind: HttpKind::Exchange,
            method: parts.method.to_string(),
            path: parts.uri.path().to_string(),
            query: parts
                .uri
                .query()
                .map(|q| if secret { mask::form(q) } else { q.to_string() }),
            request_headers: header_list(&parts.headers),
            request_body: bytes
                .as_ref()
                .and_then(captured_body)
                .map(|body| masked(body, secret)),
            status: None,
            response_headers: Vec::new(),
            response_body: None,
            duration_ms: None,
            stream_of: None,
        }),
    );
    let response = match bytes {
        Some(bytes) => {
            parts.extensions.insert(ExchangeId(id));
            next.run(Request::from_parts(parts, Body::from(bytes)))
                .await
        }
        None => too_large(limit),
    };
    let status = response.status().as_u16();
    let mut response_headers = header_list(response.headers());
    if secret {
        for (name, value) in &mut response_headers {
            if name == "location" {
                *value = mask::url(value);
            }
        }
    }
    let elapsed = millis(started);
    // A fault's body that breaks off on purpose: collecting it would swallow the break.
    if response.extensions().get::<Unbuffered>().is_some() {
        engine.log.update(id, |entry| {
            if let Entry::Http(h) = entry {
                h.status = Some(status);
                h.response_headers = response_headers;
                h.duration_ms = Some(elapsed);
            }
        });
        return response;
    }
    if is_event_stream(response.headers()) {
        engine.log.update(id, |entry| {
            if let Entry::Http(h) = entry {
                h.status = Some(status);
                h.response_headers = response_headers;
                h.duration_ms = Some(elapsed);
            }
        });
        let (parts, body) = response.into_parts();
        let end = StreamEnd {
            engine: engine.clone(),
            of: id,
            started,
        };
        let body = body.into_data_stream().map(move |chunk| {
            let _keep_until_the_stream_drops = &end;
            chunk
        });
        return Response::from_parts(parts, Body::from_stream(body));
    }
    let (parts, body) = response.into_parts();
    // Our own handlers built this body in memory, so collecting it cannot stall.
    let bytes = axum::body::to_bytes(body, usize::MAX)
        .await
        .unwrap_or_default();
    let response_body = captured_body(&bytes).map(|body| masked(body, secret));
    engine.log.update(id, |entry| {
        if let Entry::Http(h) = entry {
            h.status = Some(status);
            h.response_headers = response_headers;
            h.response_body = response_body;
            h.duration_ms = Some(elapsed);
        }
    });
    Response::from_parts(parts, Body::from(bytes))
}

/// Marks a response whose body must reach the client as it is produced (a fault that cuts
/// the connection mid-body), so the middleware neither collects nor records it.
#[derive(Debug, Clone, Copy)]
pub(crate) struct Unbuffered;

/// Pushes the `stream_end` record when the response body is dropped: at the stream's end,
/// when the client goes away, or when the server shuts down.
struct StreamEnd {
    engine: Arc<Engine>,
    of: u64,
    started: Instant,
}

impl Drop for StreamEnd {
    fn drop(&mut self) {
        let opened = self.engine.log.request_line(self.of);
        let (method, path) = opened.unwrap_or_default();
        self.engine.log.push_from(
            self.engine.source,
            Entry::Http(HttpExchange {
                kind: HttpKind::StreamEnd,
                method,
                path,
                query: None,
                request_headers: Vec::new(),
                request_body: None,
                status: None,
                response_headers: Vec::new(),
                response_body: None,
                duration_ms: Some(millis(self.started)),
                stream_of: Some(self.of),
            }),
        );
    }
}

fn too_large(limit: usize) -> Response {
    let error = RpcError::new(
        code::INVALID_REQUEST,
        format!("the request body exceeds this server's limit of {limit} bytes"),
    );
    // The rest of the body is never read, so the connection cannot be reused; saying so
    // keeps the client from sending its next request on a connection that is closing.
    (
        StatusCode::PAYLOAD_TOO_LARGE,
        [(header::CONNECTION, "close")],
        axum::Json(jsonrpc::error(&Value::Null, &error)),
    )
        .into_response()
}

fn is_event_stream(headers: &HeaderMap) -> bool {
    headers
        .get(header::CONTENT_TYPE)
        .and_then(|v| v.to_str().ok())
        .is_some_and(|v| v.starts_with("text/event-stream"))
}

/// The headers as captured; `Authorization` values keep only their scheme.
fn header_list(headers: &HeaderMap) -> Vec<(String, String)> {
    headers
        .iter()
        .map(|(name, value)| {
            (
                name.as_str().to_string(),
                mask::header(
                    name.as_str(),
                    String::from_utf8_lossy(value.as_bytes()).into_owned(),
                ),
            )
        })
        .collect()
}

fn masked(mut body: Value, secret: bool) -> Value {
    if secret {
        mask::body(&mut body);
    }
    body
}

fn captured_body(bytes: &Bytes) -> Option<Value> {
    if bytes.is_empty() {
        return None;
    }
    if bytes.len() > MAX_CAPTURED_BODY {
        let prefix = String::from_utf8_lossy(&bytes[..MAX_CAPTURED_BODY]);
        return Some(Value::String(format!(
            "[{} bytes; the first {MAX_CAPTURED_BODY} follow]\n{prefix}",
            bytes.len()
        )));
    }
    Some(
        serde_json::from_slice(bytes)
            .unwrap_or_else(|_| Value::String(String::from_utf8_lossy(bytes).into_owned())),
    )
}

pub(crate) fn millis(since: Instant) -> f64 {
    since.elapsed().as_secs_f64() * 1000.0
}

/// What the transport knows about a client message when it records it.
pub(crate) struct Arrival<'a> {
    pub(crate) exchange: Option<ExchangeId>,
    pub(crate) session: Option<&'a Session>,
    /// The `Mcp-Session-Id` the request named, recorded even when no live session has it,
    /// so a client that keeps using an ended session shows which one.
    pub(crate) named_session: Option<&'a str>,
    /// For a 2026-07-28 request: the version it asked for (there is no session).
    pub(crate) modern_version: Option<&'a str>,
    pub(crate) kind: RpcKind,
    pub(crate) method: Option<&'a str>,
    pub(crate) message: Value,
}

/// Records a message from the client; returns the record id for [`answered`].
pub(crate) fn arrived(engine: &Engine, arrival: Arrival<'_>) -> u64 {
    let name = arrival
        .message
        .get("params")
        .and_then(|p| p.get("name").or_else(|| p.get("uri")))
        .and_then(Value::as_str)
        .map(str::to_string);
    engine.log.push_from(
        engine.source,
        Entry::Mcp(RpcMessage {
            kind: arrival.kind,
            direction: Direction::ClientToServer,
            method: arrival.method.map(str::to_string),
            name,
            session: arrival
                .session
                .map(|s| s.id.clone())
                .or_else(|| arrival.named_session.map(str::to_string)),
            protocol_version: arrival
                .modern_version
                .map(str::to_string)
                .or_else(|| arrival.session.map(|s| s.version.as_str().to_string())),
            era: Some(if arrival.modern_version.is_some() {
                Era::Modern
            } else {
                Era::Legacy
            }),
            carried_by: arrival.exchange.map(|e| e.0),
            message: arrival.message,
            response: None,
            duration_ms: None,
            cancelled: false,
            fault: None,
            response_index: None,
        }),
    )
}

/// Attaches the response to a request's record; `session` is set when the request opened it.
pub(crate) fn answered(
    engine: &Engine,
    record: u64,
    response: &Value,
    started: Instant,
    session: Option<&Session>,
) {
    let response = response.clone();
    let duration = millis(started);
    engine.log.update(record, |entry| {
        if let Entry::Mcp(m) = entry {
            m.response = Some(response);
            m.duration_ms = Some(duration);
            if let Some(session) = session {
                m.session = Some(session.id.clone());
                m.protocol_version = Some(session.version.as_str().to_string());
            }
        }
    });
}

/// Names the faults that fired for a request (`label`, see `Fault::label`) and the tool
/// response that answered it.
pub(crate) fn faulted(
    engine: &Engine,
    record: u64,
    label: Option<String>,
    response_index: Option<usize>,
) {
    engine.log.update(record, |entry| {
        if let Entry::Mcp(m) = entry {
            m.fault = label;
            m.response_index = response_index;
        }
    });
}

/// Closes a request's record that got no response the client could read (a fault withheld
/// it): only the duration is set.
pub(crate) fn withheld(engine: &Engine, record: u64, started: Instant) {
    let duration = millis(started);
    engine.log.update(record, |entry| {
        if let Entry::Mcp(m) = entry {
            m.duration_ms = Some(duration);
        }
    });
}

/// Marks a request's record as cancelled by the client.
pub(crate) fn cancelled(engine: &Engine, record: u64, started: Instant) {
    let duration = millis(started);
    engine.log.update(record, |entry| {
        if let Entry::Mcp(m) = entry {
            m.cancelled = true;
            m.duration_ms = Some(duration);
        }
    });
}

/// Records a message the server sent on a stream.
pub(crate) fn sent(
    engine: &Engine,
    session: &Session,
    exchange: Option<ExchangeId>,
    message: &Value,
) {
    let method = message
        .get("method")
        .and_then(Value::as_str)
        .map(str::to_string);
    // A response on a stream answers a request whose record already holds it.
    if method.is_none() {
        return;
    }
    let kind = if message.get("id").is_some() {
        RpcKind::Request
    } else {
        RpcKind::Notification
    };
    engine.log.push_from(
        engine.source,
        Entry::Mcp(RpcMessage {
            kind,
            direction: Direction::ServerToClient,
            method,
            name: None,
            // A 2026-07-28 request's detached session is no session the client knows.
            session: (!session.version.is_modern()).then(|| session.id.clone()),
            protocol_version: Some(session.version.as_str().to_string()),
            era: Some(if session.version.is_modern() {
                Era::Modern
            } else {
                Era::Legacy
            }),
            carried_by: exchange.map(|e| e.0),
            message: message.clone(),
            response: None,
            duration_ms: None,
            cancelled: false,
            fault: None,
            response_index: None,
        }),
    );
}
