//! GET opens a legacy session's stream of server-to-client messages (resumable with
//! `Last-Event-ID`), DELETE ends the session (2025-11-25 transports page).

use std::sync::Arc;
use std::time::Duration;

use axum::extract::{Request, State};
use axum::http::{StatusCode, header};
use axum::response::{IntoResponse, Response};
use serde_json::Value;

use super::capture::Captured;
use super::checks::{Read, lists, modern_get_or_delete, origin_rejection};
use super::render::{status_code, transport_error};
use super::{EMPTY, inbound, sse};
use crate::engine::Engine;
use crate::engine::pipeline::outcome::{Shape, Status, Streamed};
use crate::engine::pipeline::{Inbound, admit};
use crate::engine::protocol::jsonrpc::{self, RpcError, code};
use crate::engine::state::stream::{self, Attach, STANDALONE};

/// The header a client resumes a stream with.
const LAST_EVENT_ID: &str = "last-event-id";

/// GET: the session's stream of server-to-client messages (list_changed and friends).
pub(crate) async fn get(
    State(engine): State<Arc<Engine>>,
    request: Request,
    captured: Captured,
) -> Response {
    // axum routes HEAD here too; opening (and so taking over) the session's stream for a
    // request that never reads it would silently end the client's real GET stream.
    if request.method() == axum::http::Method::HEAD {
        return (
            StatusCode::METHOD_NOT_ALLOWED,
            [(header::ALLOW, "GET, POST, DELETE")],
        )
            .into_response();
    }
    let inbound = match checked(&engine, request, captured) {
        Ok(inbound) => inbound,
        Err(rejection) => return *rejection,
    };
    let headers = inbound.headers.as_ref().unwrap_or(&EMPTY);
    // The client MUST send an Accept header listing text/event-stream (transports,
    // "Listening for Messages from the Server"); without one, a GET is no stream request.
    if !lists(headers, "text/event-stream") {
        return transport_error(
            StatusCode::NOT_ACCEPTABLE,
            code::INVALID_REQUEST,
            "GET opens an event stream: send `Accept: text/event-stream`",
        );
    }
    admit::expire_if_due(&engine, &inbound);
    let session = match admit::session(&engine, &inbound) {
        Ok(session) => session,
        Err((status, error)) => return refusal(status, &error),
    };
    // Resumption (transports, "Resumability and Redelivery"): a Last-Event-ID this server
    // issued names the stream and the last event seen; anything else opens the GET stream.
    // A resume that would skip evicted events is refused, never replayed with a gap.
    let resume = headers
        .get(LAST_EVENT_ID)
        .and_then(|v| v.to_str().ok())
        .and_then(stream::parse_event_id);
    let reader = match resume.map(|(stream, seq)| session.attach(stream, Some(seq))) {
        Some(Err(Attach::Evicted)) => {
            let (stream, seq) = resume.unwrap_or_default();
            return transport_error(
                StatusCode::GONE,
                code::INVALID_REQUEST,
                &format!(
                    "Last-Event-ID {}: the events after it are no longer kept (evicted for \
                     the budget of retained events, max_retained_event_bytes = {} bytes, or \
                     past a stream's count limit); open the GET stream without \
                     Last-Event-ID, and send the request again",
                    stream::event_id(stream, seq),
                    engine.memory().retained_events.limit_bytes,
                ),
            );
        }
        Some(Ok(reader)) => Ok(reader),
        Some(Err(Attach::Unknown)) | None => session.attach(STANDALONE, None),
    };
    let Ok(reader) = reader else {
        return transport_error(
            StatusCode::INTERNAL_SERVER_ERROR,
            code::INVALID_REQUEST,
            "the session has no stream",
        );
    };
    let streamed = Streamed {
        session,
        reader,
        shape: Shape::Normal,
        hang: None,
    };
    sse::session_stream(engine, streamed, inbound.exchange)
}

/// DELETE: the client ends its session; the id answers 404 from now on.
pub(crate) async fn delete(
    State(engine): State<Arc<Engine>>,
    request: Request,
    captured: Captured,
) -> Response {
    let inbound = match checked(&engine, request, captured) {
        Ok(inbound) => inbound,
        Err(rejection) => return *rejection,
    };
    admit::expire_if_due(&engine, &inbound);
    match admit::session(&engine, &inbound) {
        Ok(session) => {
            engine.sessions.remove(&session.id);
            streams_ended(&engine, &session.id).await;
            StatusCode::OK.into_response()
        }
        Err((status, error)) => refusal(status, &error),
    }
}

/// How long a DELETE waits for the ends of its session's streams. Woken by the session's
/// end, they finish as soon as their connections run; this only bounds a stream whose
/// client stopped reading (its body is not polled again until the socket drains).
const STREAMS_END_WITHIN: Duration = Duration::from_millis(500);

/// Waits until the log holds the `stream_end` of every stream of the ended session, so a
/// client that reads the log once its DELETE is answered finds the whole session there
/// (the transcript then orders those ends before the DELETE either way).
async fn streams_ended(engine: &Engine, session: &str) {
    let mut changes = engine.log.subscribe();
    let deadline = tokio::time::Instant::now() + STREAMS_END_WITHIN;
    while engine.log.has_open_stream(engine.source, session) {
        let woke = tokio::time::timeout_at(deadline, changes.changed()).await;
        if !matches!(woke, Ok(Ok(()))) {
            return;
        }
    }
}

/// The request's inbound part, once `Origin` and the era allow a GET or DELETE at all.
fn checked(
    engine: &Engine,
    request: Request,
    captured: Captured,
) -> Result<Inbound, Box<Response>> {
    let parts = request.into_parts().0;
    let read = Read::of(&parts.headers);
    if let Some(rejection) = origin_rejection(engine, read.origin) {
        return Err(Box::new(rejection));
    }
    if let Some(rejection) = modern_get_or_delete(engine, &read.mcp) {
        return Err(Box::new(rejection));
    }
    let (accepts_stream, mcp) = (read.accepts_stream, read.mcp);
    Ok(inbound(parts, captured, accepts_stream, mcp))
}

/// A refused GET or DELETE: the status and an id-less error.
fn refusal(status: Status, error: &RpcError) -> Response {
    (
        status_code(status),
        axum::Json(jsonrpc::error(&Value::Null, error)),
    )
        .into_response()
}
