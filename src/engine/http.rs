//! The Streamable HTTP transport of the legacy era on one endpoint: POST carries JSON-RPC,
//! GET opens the session's event stream, DELETE ends the session
//! (2025-11-25 `basic/transports.mdx`). HTTP <-> JSON-RPC only; methods live in `dispatch`.

use std::sync::Arc;
use std::time::{Duration, Instant};

use axum::body::{Body, Bytes};
use axum::extract::{Request, State};
use axum::http::{HeaderMap, HeaderValue, StatusCode, header};
use axum::response::{IntoResponse, Response};
use serde_json::Value;

use super::capture::{self, Arrival, ExchangeId};
use super::dispatch::{self, Principal, RequestCtx};
use super::era::{self, VERSION_HEADER};
use super::faults::{self, Delivery, HangPermit, Plan, Setting, Shape};
use super::jsonrpc::{self, Incoming, RpcError, code};
use super::methods::lifecycle;
use super::methods::listen::{self, Frame, Refused, Subscription};
use super::outbox::Outbox;
use super::responses::Chosen;
use super::session::{Reader, Session};
use super::stream::{self, Poll, STANDALONE};
use super::{Engine, modern};
use crate::log::RpcKind;
use crate::spec::{Fault, ProtocolVersion, ResponseMode, Step};

/// The session header (names are case-insensitive; `http` stores them lower-case).
pub(crate) const SESSION_HEADER: &str = "mcp-session-id";

/// The header a client resumes a stream with.
const LAST_EVENT_ID: &str = "last-event-id";

/// The handler's inputs that every method needs.
struct Inbound {
    exchange: Option<ExchangeId>,
    headers: HeaderMap,
    /// Who the credentials say sent the request (set by the guards).
    principal: Option<Principal>,
}

impl Inbound {
    fn named_session(&self) -> Option<&str> {
        self.headers
            .get(SESSION_HEADER)
            .and_then(|v| v.to_str().ok())
    }
}

async fn split(request: Request, limit: usize) -> (Inbound, Option<Bytes>) {
    let exchange = request.extensions().get::<ExchangeId>().copied();
    let principal = request.extensions().get::<Principal>().cloned();
    let (parts, body) = request.into_parts();
    let bytes = axum::body::to_bytes(body, limit).await.ok();
    (
        Inbound {
            exchange,
            headers: parts.headers,
            principal,
        },
        bytes,
    )
}

/// POST: one JSON-RPC message, or a batch in 2025-03-26 sessions.
pub(crate) async fn post(State(engine): State<Arc<Engine>>, request: Request) -> Response {
    let (incoming, body) = split(request, engine.limits.max_body_bytes).await;
    if let Some(rejection) = origin_rejection(&engine, &incoming.headers) {
        return rejection;
    }
    if !has_json_content_type(&incoming.headers) {
        return transport_error(
            StatusCode::UNSUPPORTED_MEDIA_TYPE,
            code::INVALID_REQUEST,
            "POST bodies must be sent with `Content-Type: application/json`",
        );
    }
    let Some(body) = body else {
        return transport_error(
            StatusCode::PAYLOAD_TOO_LARGE,
            code::INVALID_REQUEST,
            "the request body is too large",
        );
    };
    let parsed: Value = match serde_json::from_slice(&body) {
        Ok(value) => value,
        Err(error) => {
            let text = String::from_utf8_lossy(&body).into_owned();
            capture::arrived(
                &engine,
                Arrival {
                    exchange: incoming.exchange,
                    session: None,
                    named_session: incoming.named_session(),
                    modern_version: None,
                    kind: RpcKind::Invalid,
                    method: None,
                    message: Value::String(text),
                },
            );
            return transport_error(
                StatusCode::BAD_REQUEST,
                code::PARSE_ERROR,
                &format!("Parse error: the body is not valid JSON ({error})"),
            );
        }
    };
    match parsed {
        Value::Array(batch) => post_batch(&engine, &incoming, batch).await,
        message => post_one(&engine, &incoming, message).await,
    }
}

async fn post_one(engine: &Arc<Engine>, incoming: &Inbound, message: Value) -> Response {
    if modern::is_modern(engine, &message, &incoming.headers) {
        return modern_post(engine, incoming, message).await;
    }
    let started = Instant::now();
    let classified = jsonrpc::classify(&message);
    if let Incoming::Request { id, method, params } = &classified {
        if method == "initialize" {
            return initialize(engine, incoming, id, params, message.clone(), started).await;
        }
    }
    let expired = faults::expire_if_due(engine, &incoming.headers);
    let session = match resolve_session(engine, &incoming.headers) {
        Ok(session) => session,
        Err((status, error)) => {
            let record = record_arrival(engine, incoming, None, &classified, message);
            if expired.is_some() {
                capture::faulted(engine, record, expired, None);
            }
            return match classified {
                Incoming::Request { id, .. } | Incoming::Invalid { id, .. } => {
                    let response = jsonrpc::error(&id, &error);
                    capture::answered(engine, record, &response, started, None);
                    (status, axum::Json(response)).into_response()
                }
                _ => (status, axum::Json(jsonrpc::error(&Value::Null, &error))).into_response(),
            };
        }
    };
    let reply = matches!(classified, Incoming::Response { .. }).then(|| message.clone());
    let record = record_arrival(engine, incoming, Some(&session), &classified, message);
    match classified {
        Incoming::Request { id, method, params } => {
            faults::counted(engine, &session);
            let request = Received {
                session,
                id,
                method,
                params,
                record,
                started,
            };
            serve(engine, incoming, request, true).await
        }
        Incoming::Notification { method, params } => {
            dispatch::notification(&session, &method, &params);
            StatusCode::ACCEPTED.into_response()
        }
        Incoming::Response { id } => {
            if let Some(message) = reply {
                if !session.deliver_reply(&id, message) {
                    tracing::debug!(%id, "a response for no pending server request");
                }
            }
            StatusCode::ACCEPTED.into_response()
        }
        Incoming::Invalid { id, reason } => {
            let response = jsonrpc::error(
                &id,
                &RpcError::new(code::INVALID_REQUEST, format!("Invalid request: {reason}")),
            );
            capture::answered(engine, record, &response, started, None);
            (StatusCode::BAD_REQUEST, axum::Json(response)).into_response()
        }
    }
}

/// A 2026-07-28 request: checked against its headers and `_meta`, then answered by the
/// same handlers in a detached session (see `modern`).
async fn modern_post(engine: &Arc<Engine>, incoming: &Inbound, message: Value) -> Response {
    let started = Instant::now();
    let classified = jsonrpc::classify(&message);
    let requested = message
        .get("params")
        .and_then(|p| p.get("_meta"))
        .and_then(|m| m.get(modern::META_VERSION))
        .and_then(Value::as_str)
        .map(str::to_string)
        .or_else(|| {
            incoming
                .headers
                .get(VERSION_HEADER)
                .and_then(|v| v.to_str().ok())
                .map(|v| v.trim().to_string())
        });
    let (kind, method) = match &classified {
        Incoming::Request { method, .. } => (RpcKind::Request, Some(method.as_str())),
        Incoming::Notification { method, .. } => (RpcKind::Notification, Some(method.as_str())),
        Incoming::Response { .. } => (RpcKind::Response, None),
        Incoming::Invalid { .. } => (RpcKind::Invalid, None),
    };
    let record = capture::arrived(
        engine,
        Arrival {
            exchange: incoming.exchange,
            session: None,
            named_session: None,
            modern_version: Some(requested.as_deref().unwrap_or("")),
            kind,
            method,
            message,
        },
    );
    let refuse = |status: StatusCode, id: &Value, error: RpcError| {
        let response = jsonrpc::error(id, &error);
        capture::answered(engine, record, &response, started, None);
        (status, axum::Json(response)).into_response()
    };
    match classified {
        // Header rules for notifications are undefined; accept them (transport page).
        Incoming::Notification { .. } => StatusCode::ACCEPTED.into_response(),
        Incoming::Response { id } => refuse(
            StatusCode::BAD_REQUEST,
            &id,
            RpcError::new(
                code::INVALID_REQUEST,
                "Invalid request: a 2026-07-28 server sends no requests, so clients POST no responses",
            ),
        ),
        Incoming::Invalid { id, reason } => refuse(
            StatusCode::BAD_REQUEST,
            &id,
            RpcError::new(code::INVALID_REQUEST, format!("Invalid request: {reason}")),
        ),
        Incoming::Request { id, method, params } => {
            let declared = match modern::check(engine, &incoming.headers, &method, &params) {
                Ok(declared) => declared,
                Err((status, error)) => {
                    return refuse(
                        status,
                        &id,
                        modern::explain_initialize(engine, &method, error),
                    );
                }
            };
            if method == "subscriptions/listen" {
                let session = modern::session_for(engine, &declared);
                return listen_answer(engine, incoming, session, record, started, id, &params);
            }
            let request = Received {
                session: modern::session_for(engine, &declared),
                id,
                method,
                params,
                record,
                started,
            };
            serve(engine, incoming, request, false).await
        }
    }
}

/// A request recorded and checked, with the session that answers it.
struct Received {
    session: Arc<Session>,
    id: Value,
    method: String,
    params: Value,
    record: u64,
    started: Instant,
}

/// Plans the request's faults, answers those that replace the handler, and otherwise runs
/// it, answering as JSON or on a stream; `legacy_session` tells a legacy session's request
/// from a 2026-07-28 one (detached session).
async fn serve(
    engine: &Arc<Engine>,
    incoming: &Inbound,
    request: Received,
    legacy_session: bool,
) -> Response {
    let Received {
        session,
        id,
        method,
        params,
        record,
        started,
    } = request;
    let setting = Setting {
        session: legacy_session,
        stream: accepts(&incoming.headers, "text/event-stream"),
    };
    let plan = faults::plan(engine, &method, &params, setting);
    faults::note(engine, record, &plan);
    if let Some(reply) = faults::early(
        engine, &session, &id, &method, &params, &plan, record, started,
    )
    .await
    {
        return reply;
    }
    let pending = Pending {
        engine: engine.clone(),
        session,
        id,
        method,
        params,
        record,
        started,
        plan,
        principal: incoming.principal.clone(),
    };
    if wants_stream(engine, incoming, &pending) {
        stream_answer(pending, incoming.exchange)
    } else {
        json_answer(pending).await
    }
}

async fn initialize(
    engine: &Arc<Engine>,
    incoming: &Inbound,
    id: &Value,
    params: &Value,
    message: Value,
    started: Instant,
) -> Response {
    let record = capture::arrived(
        engine,
        Arrival {
            exchange: incoming.exchange,
            session: None,
            named_session: None,
            modern_version: None,
            kind: RpcKind::Request,
            method: Some("initialize"),
            message,
        },
    );
    if let Some(sent) = incoming
        .headers
        .get(VERSION_HEADER)
        .and_then(|v| v.to_str().ok())
    {
        if !engine.versions.iter().any(|v| v.as_str() == sent.trim()) {
            let error = RpcError::new(
                code::INVALID_REQUEST,
                format!(
                    "unsupported MCP-Protocol-Version header `{sent}`: this server supports {}",
                    engine.versions_list()
                ),
            );
            let response = jsonrpc::error(id, &error);
            capture::answered(engine, record, &response, started, None);
            return (StatusCode::BAD_REQUEST, axum::Json(response)).into_response();
        }
    }
    // Faults on initialize: no session yet (so no expiry) and a JSON or one-event answer.
    let setting = Setting {
        session: false,
        stream: false,
    };
    let plan = faults::plan(engine, "initialize", params, setting);
    faults::note(engine, record, &plan);
    if let Some(delay) = plan.delay {
        tokio::time::sleep(delay).await;
    }
    if let Some(Fault::Http {
        status,
        body,
        headers,
    }) = &plan.fault
    {
        capture::withheld(engine, record, started);
        return faults::http_fault(*status, body.as_deref(), headers);
    }
    if let Some(error) = plan.refusal() {
        let response = jsonrpc::error(id, &error);
        capture::answered(engine, record, &response, started, None);
        return respond(engine, response);
    }
    match lifecycle::initialize(engine, params) {
        Ok((result, session)) => {
            faults::opened(engine, &session);
            let mut response = jsonrpc::result(id, result);
            plan.rewrite(&mut response);
            match plan.shown(&response, false) {
                Some(shown) => capture::answered(engine, record, &shown, started, Some(&session)),
                None => capture::withheld(engine, record, started),
            }
            let mut reply = match &plan.fault {
                Some(fault) => faults::json_reply(engine, &session, Some(fault), response).await,
                None => respond(engine, response),
            };
            if let Ok(value) = HeaderValue::from_str(&session.id) {
                reply.headers_mut().insert(SESSION_HEADER, value);
            }
            reply
        }
        Err(error) => {
            let response = jsonrpc::error(id, &error);
            capture::answered(engine, record, &response, started, None);
            // A modern-only server fails a legacy handshake as header validation would, so a
            // client falls back or gives up (2026-07-28 versioning, "Backward compatibility").
            if engine.versions.iter().all(|v| v.is_modern()) {
                return (StatusCode::BAD_REQUEST, axum::Json(response)).into_response();
            }
            respond(engine, response)
        }
    }
}

/// JSON-RPC batches: allowed in 2025-03-26 sessions only (removed in 2025-06-18).
async fn post_batch(engine: &Arc<Engine>, incoming: &Inbound, batch: Vec<Value>) -> Response {
    let started = Instant::now();
    let expired = faults::expire_if_due(engine, &incoming.headers);
    let session = match resolve_session(engine, &incoming.headers) {
        Ok(session) => Some(session),
        // A named session that has ended (404) or a bad version header (400) is refused as
        // for a single message; only a missing id falls through to the batch refusal below.
        Err((status, error)) if incoming.headers.contains_key(SESSION_HEADER) => {
            for message in batch {
                let classified = jsonrpc::classify(&message);
                let record = record_arrival(engine, incoming, None, &classified, message);
                if expired.is_some() {
                    capture::faulted(engine, record, expired.clone(), None);
                }
                capture::answered(
                    engine,
                    record,
                    &jsonrpc::error(&Value::Null, &error),
                    started,
                    None,
                );
            }
            return (status, axum::Json(jsonrpc::error(&Value::Null, &error))).into_response();
        }
        Err(_) => None,
    };
    let refusal = match &session {
        _ if batch.is_empty() => Some("Invalid request: an empty JSON array is not a batch".to_string()),
        Some(s) if s.version.allows_batches() => None,
        Some(s) => Some(format!(
            "Invalid request: JSON-RPC batches are not supported in protocol version {} (batching was removed in 2025-06-18); send one message per POST",
            s.version
        )),
        None => Some("Invalid request: a batch can only be sent in an initialized 2025-03-26 session; initialize must be sent alone".to_string()),
    };
    if let Some(reason) = refusal {
        for message in batch {
            let classified = jsonrpc::classify(&message);
            let record = record_arrival(engine, incoming, session.as_deref(), &classified, message);
            let response = jsonrpc::error(
                &Value::Null,
                &RpcError::new(code::INVALID_REQUEST, reason.clone()),
            );
            capture::answered(engine, record, &response, started, None);
        }
        return transport_error(StatusCode::BAD_REQUEST, code::INVALID_REQUEST, &reason);
    }
    let Some(session) = session else {
        return transport_error(StatusCode::BAD_REQUEST, code::INVALID_REQUEST, "no session");
    };
    let mut responses = Vec::new();
    // A fault that shapes the HTTP answer (a status, a broken body, a hang) applies to the
    // whole batch: the first one that fired.
    let mut whole: Option<Fault> = None;
    for message in batch {
        let classified = jsonrpc::classify(&message);
        let reply = matches!(classified, Incoming::Response { .. }).then(|| message.clone());
        let record = record_arrival(engine, incoming, Some(&session), &classified, message);
        let response = match classified {
            Incoming::Request { id, method, .. } if method == "initialize" => Some(jsonrpc::error(
                &id,
                &RpcError::new(
                    code::INVALID_REQUEST,
                    "Invalid request: initialize must not be part of a JSON-RPC batch",
                ),
            )),
            Incoming::Request { id, method, params } => {
                faults::counted(engine, &session);
                let setting = Setting {
                    session: true,
                    stream: false,
                };
                let mut plan = faults::plan(engine, &method, &params, setting);
                faults::note(engine, record, &plan);
                if let Some(delay) = plan.delay {
                    tokio::time::sleep(delay).await;
                }
                let mut response = match plan.refusal() {
                    Some(error) => {
                        faults::count_tool_call(engine, &method, &params);
                        jsonrpc::error(&id, &error)
                    }
                    None => {
                        let chosen = plan.chosen.take();
                        let request = (id.clone(), method.clone(), params);
                        answer(engine, &session, incoming, request, chosen).await
                    }
                };
                plan.rewrite(&mut response);
                if matches!(plan.fault, Some(Fault::DuplicateResponse)) {
                    responses.push(response.clone());
                }
                if let Some(fault) = plan.fault.filter(faults::spans_body) {
                    whole.get_or_insert(fault);
                }
                Some(response)
            }
            Incoming::Notification { method, params } => {
                dispatch::notification(&session, &method, &params);
                None
            }
            Incoming::Response { id } => {
                if let Some(message) = reply {
                    session.deliver_reply(&id, message);
                }
                None
            }
            Incoming::Invalid { id, reason } => Some(jsonrpc::error(
                &id,
                &RpcError::new(code::INVALID_REQUEST, format!("Invalid request: {reason}")),
            )),
        };
        if let Some(response) = response {
            capture::answered(engine, record, &response, started, None);
            responses.push(response);
        }
    }
    match whole {
        None if responses.is_empty() => StatusCode::ACCEPTED.into_response(),
        None => axum::Json(Value::Array(responses)).into_response(),
        Some(Fault::Http {
            status,
            body,
            headers,
        }) => faults::http_fault(status, body.as_deref(), &headers),
        Some(Fault::ExpireSession) => {
            engine.sessions.remove(&session.id);
            transport_error(
                StatusCode::NOT_FOUND,
                code::SESSION_NOT_FOUND,
                "Session not found: the session ended (expire_session fault); send initialize without an Mcp-Session-Id header to start a new session",
            )
        }
        Some(fault) => {
            faults::json_reply(engine, &session, Some(&fault), Value::Array(responses)).await
        }
    }
}

/// A request of a session, received and recorded, not yet answered.
struct Pending {
    engine: Arc<Engine>,
    session: Arc<Session>,
    id: Value,
    method: String,
    params: Value,
    record: u64,
    started: Instant,
    /// The request's faults (see `faults`); quiet for most requests.
    plan: Plan,
    principal: Option<Principal>,
}

impl Pending {
    /// Runs the handler until it answers or the client cancels the request
    /// (`notifications/cancelled`); `None` when cancelled, and then nothing is sent
    /// (basic/utilities/cancellation page: receivers "SHOULD NOT send a response").
    async fn run(mut self, stream: Option<u64>) -> Option<Value> {
        let cancelled = self.session.begin_request(&self.id);
        // Unregisters on every path, including a JSON-mode handler dropped with its connection.
        let _in_flight = InFlight {
            session: &self.session,
            id: &self.id,
        };
        let mut unsettled = self.session.version.is_modern().then(|| Unsettled {
            engine: &self.engine,
            record: self.record,
            started: self.started,
            settled: false,
        });
        let ctx = RequestCtx {
            engine: self.engine.clone(),
            session: self.session.clone(),
            id: self.id.clone(),
            params: self.params,
            outbox: Outbox::new(self.session.clone(), stream),
            chosen: self.plan.chosen.take(),
            principal: self.principal.clone(),
        };
        let delay = self.plan.delay;
        let refusal = self.plan.refusal();
        if refusal.is_some() {
            faults::count_tool_call(&self.engine, &self.method, &ctx.params);
        }
        // The delay sits inside the cancellable part: a client that gives up on a slow
        // request and cancels it sees it cancelled, as for a slow handler.
        let work = async {
            if let Some(delay) = delay {
                tokio::time::sleep(delay).await;
            }
            match refusal {
                Some(error) => Err(error),
                None => dispatch::request(&ctx, &self.method).await,
            }
        };
        let outcome = tokio::select! {
            outcome = work => Some(outcome),
            () = cancelled.cancelled() => None,
        };
        match outcome {
            Some(outcome) => {
                let mut response = match outcome {
                    Ok(result) if self.session.version.is_modern() => jsonrpc::result(
                        &self.id,
                        modern::finish_result(&self.engine, &self.method, result),
                    ),
                    Ok(result) => jsonrpc::result(&self.id, result),
                    Err(error) => jsonrpc::error(&self.id, &error),
                };
                self.plan.rewrite(&mut response);
                settle(&mut unsettled);
                // The capture shows what the client could read, not what the handler made.
                match self.plan.shown(&response, stream.is_some()) {
                    Some(shown) => {
                        capture::answered(&self.engine, self.record, &shown, self.started, None)
                    }
                    None => capture::withheld(&self.engine, self.record, self.started),
                }
                Some(response)
            }
            None => {
                settle(&mut unsettled);
                capture::cancelled(&self.engine, self.record, self.started);
                None
            }
        }
    }
}

/// A 2026-07-28 request whose handler is dropped before it answers: the client closed the
/// connection of a JSON answer, which is cancellation as much as closing a stream is
/// (`basic/patterns/cancellation.mdx`), so the capture says so.
struct Unsettled<'a> {
    engine: &'a Engine,
    record: u64,
    started: Instant,
    /// The handler answered or saw the cancellation; the capture already says which.
    settled: bool,
}

fn settle(unsettled: &mut Option<Unsettled<'_>>) {
    if let Some(guard) = unsettled {
        guard.settled = true;
    }
}

impl Drop for Unsettled<'_> {
    fn drop(&mut self) {
        if !self.settled {
            capture::cancelled(self.engine, self.record, self.started);
        }
    }
}

struct InFlight<'a> {
    session: &'a Session,
    id: &'a Value,
}

impl Drop for InFlight<'_> {
    fn drop(&mut self) {
        self.session.end_request(self.id);
    }
}

/// Whether to answer on an event stream: the server is in SSE mode, or the call's script
/// sends messages that must arrive before the result; and the client accepts streams.
fn wants_stream(engine: &Engine, incoming: &Inbound, pending: &Pending) -> bool {
    if !accepts(&incoming.headers, "text/event-stream") {
        return false;
    }
    if engine.spec.response_mode == ResponseMode::Sse || pending.plan.needs_stream() {
        return true;
    }
    pending.method == "tools/call"
        && pending
            .params
            .get("name")
            .and_then(Value::as_str)
            .and_then(|name| engine.catalog.tools.get(name))
            .is_some_and(|tool| {
                // In 2026-07-28 an ask becomes an input_required result, not a message.
                let modern = pending.session.version.is_modern();
                tool.script
                    .iter()
                    .any(|step| step.talks() && !(modern && matches!(step, Step::Ask { .. })))
            })
}

async fn json_answer(pending: Pending) -> Response {
    let Some(fault) = pending.plan.fault.clone() else {
        return match pending.run(None).await {
            Some(response) => axum::Json(response).into_response(),
            // Cancelled: the HTTP request still needs an answer, and it carries no result.
            None => StatusCode::ACCEPTED.into_response(),
        };
    };
    let engine = pending.engine.clone();
    let session = pending.session.clone();
    match pending.run(None).await {
        Some(response) => faults::json_reply(&engine, &session, Some(&fault), response).await,
        // Cancelled: the HTTP request still needs an answer, and it carries no result.
        None => StatusCode::ACCEPTED.into_response(),
    }
}

/// Answers on a new stream of the session: a priming event (2025-11-25), the messages the
/// handler sends, then the response. The handler runs on its own task, so a dropped
/// connection does not stop it and the client can resume with `Last-Event-ID`.
fn stream_answer(pending: Pending, exchange: Option<ExchangeId>) -> Response {
    let session = pending.session.clone();
    let engine = pending.engine.clone();
    let fault = pending.plan.fault.as_ref();
    let mut shape = Shape::of(fault);
    let mut delivery = Delivery::of(fault);
    let mut hang = None;
    if delivery == Delivery::Held {
        hang = faults::hang_permit(&engine);
        if hang.is_none() {
            // Too many hang already: this stream ends without its response instead.
            (shape, delivery) = (Shape::Normal, Delivery::Dropped);
        }
    }
    let stream = session.open_stream();
    // SSE polling needs an event id to resume from, whatever the legacy revision.
    let polled = matches!(shape, Shape::Poll { .. }) && !session.version.is_modern();
    if session.version == ProtocolVersion::V2025_11_25 || polled {
        session.push(stream, None);
    }
    let Some(reader) = session.attach(stream, None) else {
        return transport_error(
            StatusCode::INTERNAL_SERVER_ERROR,
            code::INVALID_REQUEST,
            "the stream vanished",
        );
    };
    let writer = session.clone();
    tokio::spawn(async move {
        if let Some(response) = pending.run(Some(stream)).await {
            match delivery {
                Delivery::Once => writer.push(stream, Some(response)),
                Delivery::Twice => {
                    writer.push(stream, Some(response.clone()));
                    writer.push(stream, Some(response));
                }
                Delivery::Dropped | Delivery::Held => {}
            }
        }
        if delivery != Delivery::Held {
            writer.finish_stream(stream);
        }
    });
    sse_response(event_body(engine, session, reader, exchange, shape, hang))
}

/// `subscriptions/listen`: an event stream whatever the response mode, since its answer is
/// the stream (`methods::listen`). Each notification is captured as it is written; the
/// listen request's record gets the listen response when the server ends the stream, or is
/// marked cancelled when the client closes it (2026-07-28 cancellation).
fn listen_answer(
    engine: &Arc<Engine>,
    incoming: &Inbound,
    session: Arc<Session>,
    record: u64,
    started: Instant,
    id: Value,
    params: &Value,
) -> Response {
    let refuse = |status: StatusCode, error: RpcError| {
        let response = jsonrpc::error(&id, &error);
        capture::answered(engine, record, &response, started, None);
        (status, axum::Json(response)).into_response()
    };
    if !accepts(&incoming.headers, "text/event-stream") {
        return refuse(
            StatusCode::NOT_ACCEPTABLE,
            RpcError::new(
                code::INVALID_REQUEST,
                "subscriptions/listen answers with an event stream: send `Accept: application/json, text/event-stream`",
            ),
        );
    }
    let subscription = match listen::open(engine, &id, params) {
        Ok(subscription) => subscription,
        Err(Refused::Invalid(error)) => return refuse(StatusCode::OK, error),
        Err(Refused::Busy(error)) => return refuse(StatusCode::SERVICE_UNAVAILABLE, error),
    };
    let state = ListenBody {
        engine: engine.clone(),
        session,
        subscription,
        exchange: incoming.exchange,
        record,
        started,
        answered: false,
    };
    let stream = futures::stream::unfold(state, |mut state| async move {
        let text = match state.subscription.next().await? {
            Frame::Notification(message) => {
                capture::sent(&state.engine, &state.session, state.exchange, &message);
                format!("event: message\ndata: {message}\n\n")
            }
            Frame::Final(response) => {
                capture::answered(&state.engine, state.record, &response, state.started, None);
                state.answered = true;
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
    record: u64,
    started: Instant,
    answered: bool,
}

impl Drop for ListenBody {
    fn drop(&mut self) {
        // Dropped before the listen response: the client closed the stream, which ends the
        // subscription (`subscriptions.mdx`, "Cancellation").
        if !self.answered {
            capture::cancelled(&self.engine, self.record, self.started);
        }
    }
}

/// Answers one request of a batch: its id, method and params.
async fn answer(
    engine: &Arc<Engine>,
    session: &Arc<Session>,
    incoming: &Inbound,
    (id, method, params): (Value, String, Value),
    chosen: Option<Chosen>,
) -> Value {
    let ctx = RequestCtx {
        engine: engine.clone(),
        session: session.clone(),
        id: id.clone(),
        params,
        outbox: Outbox::new(session.clone(), None),
        chosen,
        principal: incoming.principal.clone(),
    };
    match dispatch::request(&ctx, &method).await {
        Ok(result) => jsonrpc::result(&id, result),
        Err(error) => jsonrpc::error(&id, &error),
    }
}

fn record_arrival(
    engine: &Engine,
    incoming: &Inbound,
    session: Option<&Session>,
    classified: &Incoming,
    message: Value,
) -> u64 {
    let (kind, method) = match classified {
        Incoming::Request { method, .. } => (RpcKind::Request, Some(method.as_str())),
        Incoming::Notification { method, .. } => (RpcKind::Notification, Some(method.as_str())),
        Incoming::Response { .. } => (RpcKind::Response, None),
        Incoming::Invalid { .. } => (RpcKind::Invalid, None),
    };
    capture::arrived(
        engine,
        Arrival {
            exchange: incoming.exchange,
            session,
            named_session: incoming.named_session(),
            modern_version: None,
            kind,
            method,
            message,
        },
    )
}

/// A request's answer, as JSON or as a one-event stream, per the server's response mode.
fn respond(engine: &Engine, response: Value) -> Response {
    match engine.spec.response_mode {
        ResponseMode::Json => axum::Json(response).into_response(),
        ResponseMode::Sse => {
            let body = format!("event: message\ndata: {response}\n\n");
            sse_response(Body::from(body))
        }
    }
}

fn sse_response(body: Body) -> Response {
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

/// GET: the session's stream of server-to-client messages (list_changed and friends).
pub(crate) async fn get(State(engine): State<Arc<Engine>>, request: Request) -> Response {
    // axum routes HEAD here too; opening (and so taking over) the session's stream for a
    // request that never reads it would silently end the client's real GET stream.
    if request.method() == axum::http::Method::HEAD {
        return (
            StatusCode::METHOD_NOT_ALLOWED,
            [(header::ALLOW, "GET, POST, DELETE")],
        )
            .into_response();
    }
    let (incoming, _) = split(request, 0).await;
    if let Some(rejection) = origin_rejection(&engine, &incoming.headers) {
        return rejection;
    }
    if let Some(rejection) = modern_get_or_delete(&engine, &incoming.headers) {
        return rejection;
    }
    if !accepts(&incoming.headers, "text/event-stream") {
        return transport_error(
            StatusCode::NOT_ACCEPTABLE,
            code::INVALID_REQUEST,
            "GET opens an event stream: send `Accept: text/event-stream`",
        );
    }
    faults::expire_if_due(&engine, &incoming.headers);
    let session = match resolve_session(&engine, &incoming.headers) {
        Ok(session) => session,
        Err((status, error)) => {
            return (status, axum::Json(jsonrpc::error(&Value::Null, &error))).into_response();
        }
    };
    // Resumption (transports, "Resumability and Redelivery"): a Last-Event-ID this server
    // issued names the stream and the last event seen; anything else opens the GET stream.
    let resume = incoming
        .headers
        .get(LAST_EVENT_ID)
        .and_then(|v| v.to_str().ok())
        .and_then(stream::parse_event_id);
    let reader = resume
        .and_then(|(stream, seq)| session.attach(stream, Some(seq)))
        .or_else(|| session.attach(STANDALONE, None));
    let Some(reader) = reader else {
        return transport_error(
            StatusCode::INTERNAL_SERVER_ERROR,
            code::INVALID_REQUEST,
            "the session has no stream",
        );
    };
    sse_response(event_body(
        engine,
        session,
        reader,
        incoming.exchange,
        Shape::Normal,
        None,
    ))
}

/// An SSE body that reads a session stream: one event per message, with its id, and a
/// comment as keep-alive while idle. Each message is captured when it is written. `shape`
/// is how a faulted request's stream misbehaves (see `faults::Shape`); `hang` holds a
/// hanging stream's place in the server's count.
fn event_body(
    engine: Arc<Engine>,
    session: Arc<Session>,
    reader: Reader,
    exchange: Option<ExchangeId>,
    shape: Shape,
    hang: Option<HangPermit>,
) -> Body {
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
                            format!("event: message\ndata: {}\n\n", faults::malformed(message))
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
                let chunk = faults::flood_chunk(self.flooded + 1, to + 1, count);
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

/// DELETE: the client ends its session; the id answers 404 from now on.
pub(crate) async fn delete(State(engine): State<Arc<Engine>>, request: Request) -> Response {
    let (incoming, _) = split(request, 0).await;
    if let Some(rejection) = origin_rejection(&engine, &incoming.headers) {
        return rejection;
    }
    if let Some(rejection) = modern_get_or_delete(&engine, &incoming.headers) {
        return rejection;
    }
    faults::expire_if_due(&engine, &incoming.headers);
    match resolve_session(&engine, &incoming.headers) {
        Ok(session) => {
            engine.sessions.remove(&session.id);
            StatusCode::OK.into_response()
        }
        Err((status, error)) => {
            (status, axum::Json(jsonrpc::error(&Value::Null, &error))).into_response()
        }
    }
}

/// 2026-07-28 has no GET stream and no sessions to delete: 405 (transport page) for a
/// modern client, and for anyone on a server that serves only 2026-07-28 ("Earlier
/// Streamable HTTP Revisions": such a server SHOULD answer GET and DELETE with 405).
fn modern_get_or_delete(engine: &Engine, headers: &HeaderMap) -> Option<Response> {
    let serves_legacy = engine.versions.iter().any(|v| !v.is_modern());
    let serves_modern = engine.versions.iter().any(|v| v.is_modern());
    let modern_client = headers
        .get(VERSION_HEADER)
        .and_then(|v| v.to_str().ok())
        .and_then(|v| ProtocolVersion::parse(v.trim()))
        .is_some_and(ProtocolVersion::is_modern);
    let legacy_traffic = !modern_client || headers.contains_key(SESSION_HEADER);
    if !serves_modern || (serves_legacy && legacy_traffic) {
        return None;
    }
    let mut response = transport_error(
        StatusCode::METHOD_NOT_ALLOWED,
        code::INVALID_REQUEST,
        "2026-07-28 requests are POSTs only: there is no GET stream and no session to DELETE",
    );
    response
        .headers_mut()
        .insert(header::ALLOW, HeaderValue::from_static("POST"));
    Some(response)
}

/// Finds the session the request names and checks its version header: 400 without an id or
/// with a bad version, 404 for an unknown or ended session (transports page, "Session
/// Management", "Protocol Version Header").
fn resolve_session(
    engine: &Engine,
    headers: &HeaderMap,
) -> Result<Arc<Session>, (StatusCode, RpcError)> {
    let Some(id) = headers.get(SESSION_HEADER) else {
        return Err((
            StatusCode::BAD_REQUEST,
            RpcError::new(
                code::INVALID_REQUEST,
                "Bad request: missing Mcp-Session-Id header; send initialize first, then the id its response carried",
            ),
        ));
    };
    let id = id.to_str().unwrap_or_default();
    let Some(session) = engine.sessions.get(id) else {
        return Err((
            StatusCode::NOT_FOUND,
            RpcError::new(
                code::SESSION_NOT_FOUND,
                format!(
                    "Session not found: `{id}` has ended or never existed; send initialize without an Mcp-Session-Id header to start a new session"
                ),
            ),
        ));
    };
    let sent = headers
        .get(VERSION_HEADER)
        .map(|v| v.to_str().unwrap_or("(not ASCII)"));
    era::check_header(sent, session.version, &engine.versions).map_err(|message| {
        (
            StatusCode::BAD_REQUEST,
            RpcError::new(code::INVALID_REQUEST, format!("Bad request: {message}")),
        )
    })?;
    Ok(session)
}

/// A present `Origin` must be loopback or allow-listed, else 403 (transports page,
/// "Security Warning": servers MUST validate Origin to prevent DNS rebinding).
fn origin_rejection(engine: &Engine, headers: &HeaderMap) -> Option<Response> {
    let origin = headers.get(header::ORIGIN)?;
    let origin = origin.to_str().unwrap_or_default();
    if engine
        .allowed_origins
        .iter()
        .any(|allowed| allowed == origin)
        || is_loopback_origin(origin)
    {
        return None;
    }
    Some(transport_error(
        StatusCode::FORBIDDEN,
        code::INVALID_REQUEST,
        &format!(
            "Forbidden: Origin `{origin}` is not allowed; this server accepts loopback origins and its allow-list"
        ),
    ))
}

fn is_loopback_origin(origin: &str) -> bool {
    let Some(rest) = origin
        .strip_prefix("http://")
        .or_else(|| origin.strip_prefix("https://"))
    else {
        return false;
    };
    let host = if let Some(v6) = rest.strip_prefix('[') {
        v6.split(']').next().unwrap_or_default()
    } else {
        rest.split([':', '/']).next().unwrap_or_default()
    };
    host.eq_ignore_ascii_case("localhost")
        || host
            .parse::<std::net::IpAddr>()
            .is_ok_and(|ip| ip.is_loopback())
}

fn has_json_content_type(headers: &HeaderMap) -> bool {
    headers
        .get(header::CONTENT_TYPE)
        .and_then(|v| v.to_str().ok())
        .and_then(|v| v.split(';').next())
        .is_some_and(|mime| mime.trim().eq_ignore_ascii_case("application/json"))
}

fn accepts(headers: &HeaderMap, mime: &str) -> bool {
    let Some(accept) = headers.get(header::ACCEPT).and_then(|v| v.to_str().ok()) else {
        return true;
    };
    let kind = mime.split('/').next().unwrap_or_default();
    accept.split(',').any(|item| {
        let item = item.split(';').next().unwrap_or_default().trim();
        item.eq_ignore_ascii_case(mime)
            || item == "*/*"
            || item.eq_ignore_ascii_case(&format!("{kind}/*"))
    })
}

/// An HTTP error with an id-less JSON-RPC error body, as the transports page allows.
fn transport_error(status: StatusCode, code: i64, message: &str) -> Response {
    (
        status,
        axum::Json(jsonrpc::error(&Value::Null, &RpcError::new(code, message))),
    )
        .into_response()
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn loopback_origins_are_recognised() {
        for ok in [
            "http://localhost:3000",
            "http://127.0.0.1",
            "https://[::1]:8080",
            "http://127.0.0.2/x",
        ] {
            assert!(is_loopback_origin(ok), "{ok}");
        }
        for bad in [
            "http://evil.example",
            "http://localhost.evil.example",
            "null",
            "file://",
            "http://10.0.0.1",
        ] {
            assert!(!is_loopback_origin(bad), "{bad}");
        }
    }
}
