//! The capture of Streamable HTTP exchanges: a middleware that writes one `http` record per
//! exchange (OPTIONS preflights excepted, as the product guide says), enforces the request
//! body limit (413), and records a `stream_end` when an event stream closes. The JSON-RPC
//! messages inside are recorded by the pipeline (`engine::capture`).

use std::sync::Arc;
use std::time::Instant;

use axum::body::{Body, Bytes};
use axum::extract::Request;
use axum::http::request::Parts;
use axum::http::{HeaderMap, Method, header};
use axum::response::Response;
use futures::StreamExt;
use serde_json::Value;

use super::body::{self, Unread};
use crate::engine::Engine;
use crate::engine::capture::{ExchangeId, millis};
use crate::log::mask;
use crate::log::{
    Entry, Headers, HttpExchange, HttpKind, Json, MAX_CAPTURED_BYTES, clip_bytes, clip_json,
    clip_text,
};

/// Around `next`: one `http` record per exchange, the body limit, and the stream's end.
/// `next` is told what was captured of the request.
pub(crate) async fn exchange<F, Fut>(engine: &Arc<Engine>, request: Request, next: F) -> Response
where
    F: FnOnce(Request, Captured) -> Fut,
    Fut: Future<Output = Response>,
{
    if request.method() == Method::OPTIONS {
        return next(request, Captured::default()).await;
    }
    let started = Instant::now();
    let (parts, body) = request.into_parts();
    // From here the request is recorded whatever becomes of its connection: dropped while
    // its body arrives, the guard records the head as unanswered.
    let mut arriving = Arriving {
        engine,
        head: &parts,
        armed: true,
    };
    let limit = engine.limits.max_body_bytes;
    let declared = parts
        .headers
        .get(header::CONTENT_LENGTH)
        .and_then(|v| v.to_str().ok())
        .and_then(|v| v.parse::<u64>().ok());
    let bytes = match declared {
        Some(length) if length > limit as u64 => Err(Unread::TooLarge),
        _ => body::read(body, limit).await,
    };
    arriving.armed = false;
    drop(arriving);
    let keep = keeping(engine, &parts);
    let (record, received) = record_of(&parts, bytes.as_ref().ok(), keep);
    let id = engine.log.push_from(engine.source, Entry::Http(record));
    // Dropped before the response below is recorded, the record says so.
    let mut answering = Answering {
        engine,
        id,
        started,
        armed: true,
    };
    let response = match bytes {
        Ok(bytes) => {
            let captured = Captured {
                exchange: Some(ExchangeId(id)),
                received,
            };
            next(Request::from_parts(parts, Body::from(bytes)), captured).await
        }
        Err(Unread::TooLarge) => body::too_large(limit),
        Err(Unread::Broken(error)) => body::unreadable(&error),
    };
    answering.armed = false;
    let status = response.status().as_u16();
    let (mut response_headers, headers_cut) = header_list(response.headers(), keep.mask);
    if keep.masks_oauth() {
        response_headers = response_headers.map_values("location", mask::url);
    }
    let elapsed = millis(started);
    // A fault's body that breaks off on purpose: collecting it would swallow the break.
    if response.extensions().get::<Unbuffered>().is_some() {
        engine.log.update(id, |entry| {
            if let Entry::Http(h) = entry {
                h.status = Some(status);
                h.response_headers = response_headers;
                h.duration_ms = Some(elapsed);
                h.truncated |= headers_cut;
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
                h.truncated |= headers_cut;
            }
        });
        let (parts, body) = response.into_parts();
        let end = StreamEnd {
            engine: Arc::clone(engine),
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
    let bytes = body::read(body, usize::MAX).await.unwrap_or_default();
    let (response_body, body_cut) = captured_body(&bytes, keep.masks_oauth());
    engine.log.update(id, |entry| {
        if let Entry::Http(h) = entry {
            h.status = Some(status);
            h.response_headers = response_headers;
            h.response_body = response_body;
            h.duration_ms = Some(elapsed);
            h.truncated |= headers_cut || body_cut;
        }
    });
    Response::from_parts(parts, Body::from(bytes))
}

/// How an exchange is kept: whether it is an OAuth exchange (codes, tokens, secrets; its
/// body is no MCP message) and whether secrets are masked, as they are unless the server
/// captures secrets (`ServerSpec::capture_secrets`).
#[derive(Debug, Clone, Copy)]
struct Keep {
    oauth: bool,
    mask: bool,
}

impl Keep {
    fn masks_oauth(self) -> bool {
        self.oauth && self.mask
    }
}

fn keeping(engine: &Engine, head: &Parts) -> Keep {
    Keep {
        oauth: is_secret(engine, head),
        mask: !engine.spec().capture_secrets,
    }
}

/// Whether the exchange carries OAuth codes, tokens or secrets.
fn is_secret(engine: &Engine, head: &Parts) -> bool {
    engine
        .oauth
        .as_ref()
        .is_some_and(|o| o.owns(head.uri.path()))
        || relayed_auth_leg(engine, head.uri.path())
}

/// The `http` record of a request as it arrived, answer still to come, and the body's text
/// for the message records when the log keeps it whole (a masked OAuth body is no message).
/// `body` is `None` when it was not read whole.
fn record_of(head: &Parts, body: Option<&Bytes>, keep: Keep) -> (HttpExchange, Option<Json>) {
    let (request_headers, headers_cut) = header_list(&head.headers, keep.mask);
    let (request_body, body_cut) = match body {
        Some(bytes) => captured_body(bytes, keep.masks_oauth()),
        None => (None, false),
    };
    let received = request_body
        .as_ref()
        .filter(|_| !keep.oauth && !body_cut)
        .cloned();
    let (path, path_cut) = clip_text(head.uri.path().to_string());
    let (query, query_cut) = match head.uri.query() {
        Some(q) => {
            let (q, cut) = clip_text(if keep.masks_oauth() {
                mask::form(q)
            } else {
                q.to_string()
            });
            (Some(q), cut)
        }
        None => (None, false),
    };
    let record = HttpExchange {
        kind: HttpKind::Exchange,
        method: head.method.as_str().to_owned(),
        path,
        query,
        request_headers,
        request_body,
        status: None,
        response_headers: Headers::new(),
        response_body: None,
        duration_ms: None,
        stream_of: None,
        upstream: None,
        truncated: headers_cut || body_cut || path_cut || query_cut,
        unanswered: false,
    };
    (record, received)
}

/// A request whose body is still arriving: dropped so (the connection closed), it records
/// the head as an unanswered exchange, so no request the server read goes unrecorded.
struct Arriving<'a> {
    engine: &'a Engine,
    head: &'a Parts,
    armed: bool,
}

impl Drop for Arriving<'_> {
    fn drop(&mut self) {
        if !self.armed {
            return;
        }
        let keep = keeping(self.engine, self.head);
        let (mut record, _) = record_of(self.head, None, keep);
        record.unanswered = true;
        self.engine
            .log
            .push_from(self.engine.source, Entry::Http(record));
    }
}

/// A recorded request still waiting for its response: dropped so, it marks the record
/// unanswered.
struct Answering<'a> {
    engine: &'a Engine,
    id: u64,
    started: Instant,
    armed: bool,
}

impl Drop for Answering<'_> {
    fn drop(&mut self) {
        if !self.armed {
            return;
        }
        let elapsed = millis(self.started);
        self.engine.log.update(self.id, |entry| {
            if let Entry::Http(h) = entry {
                h.unanswered = true;
                h.duration_ms = Some(elapsed);
            }
        });
    }
}

/// What the capture hands on with a request. Passed along, not put in the request's
/// extensions: their map and a box per value were four allocations per request.
#[derive(Debug, Clone, Default)]
pub(crate) struct Captured {
    /// The request's `http` record (none for a preflight, which is not recorded).
    pub(crate) exchange: Option<ExchangeId>,
    /// The body's text as that record keeps it, when whole: the message records share it.
    pub(crate) received: Option<Json>,
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
                request_headers: Headers::new(),
                request_body: None,
                status: None,
                response_headers: Headers::new(),
                response_body: None,
                duration_ms: Some(millis(self.started)),
                stream_of: Some(self.of),
                upstream: None,
                truncated: false,
                unanswered: false,
            }),
        );
    }
}

/// Whether `path` is a relay's OAuth leg or discovery document (not its MCP endpoint),
/// whose bodies and query carry codes, tokens and secrets.
fn relayed_auth_leg(engine: &Engine, path: &str) -> bool {
    #[cfg(feature = "relay")]
    if let Some(relay) = &engine.relay {
        return path != relay.mount();
    }
    let _ = (engine, path);
    false
}

fn is_event_stream(headers: &HeaderMap) -> bool {
    // Compared as bytes: a value that starts so is the type, whatever follows, and reading it
    // as text first cost a debug build 1 K instructions a response.
    headers
        .get(header::CONTENT_TYPE)
        .is_some_and(|v| v.as_bytes().starts_with(b"text/event-stream"))
}

/// The headers as captured, and whether a value was cut (`log::clip`): `Authorization`
/// values keep only their scheme when `mask`. A value is copied once, into the list's one
/// string, unless it has to be masked, cut or mended (not UTF-8).
fn header_list(headers: &HeaderMap, mask: bool) -> (Headers, bool) {
    // A plain loop: a debug build's `map` and `sum` adapters cost three times as much.
    let mut bytes = 0;
    for (name, value) in headers {
        bytes += name.as_str().len() + value.len().min(MAX_CAPTURED_BYTES);
    }
    let mut list = Headers::with_capacity(headers.len(), bytes);
    let mut cut = false;
    for (name, value) in headers {
        let name = name.as_str();
        let masked = mask && mask::is_masked_header(name);
        let text = match std::str::from_utf8(value.as_bytes()) {
            Ok(text) if text.len() <= MAX_CAPTURED_BYTES && !masked => {
                list.push(name, text);
                continue;
            }
            Ok(text) => text.to_string(),
            Err(_) => String::from_utf8_lossy(value.as_bytes()).into_owned(),
        };
        let text = if masked {
            mask::header(name, text)
        } else {
            text
        };
        let (text, was_cut) = clip_text(text);
        cut |= was_cut;
        list.push(name, &text);
    }
    (list, cut)
}

/// A body as the log keeps it, and whether it was cut: JSON when it parses, else text;
/// `None` when empty. A body larger than the log's cut is kept as the start of its text
/// (the `mcp` record keeps the message's cut copy with its shape), except an OAuth body
/// (`secret`), which is parsed, masked and then cut, so no secret survives in the text.
fn captured_body(bytes: &Bytes, secret: bool) -> (Option<Json>, bool) {
    if bytes.is_empty() {
        return (None, false);
    }
    if !secret {
        // Kept as the bytes that came: parsed only if someone reads the record.
        if bytes.len() > MAX_CAPTURED_BYTES {
            return (Some(Json::from(Value::String(clip_bytes(bytes)))), true);
        }
        return (Some(Json::from_bytes(bytes)), false);
    }
    let mut body = serde_json::from_slice(bytes)
        .unwrap_or_else(|_| Value::String(String::from_utf8_lossy(bytes).into_owned()));
    mask::body(&mut body);
    let (body, cut) = clip_json(&body);
    (Some(body), cut)
}
