//! Render: turns the pipeline's [`Outcome`] into an HTTP response. The only place a fault
//! becomes bytes on the wire: a status with its body, a JSON body that is not JSON, is cut
//! in half or broken off with the connection, a duplicate, an answer that never comes.

use axum::body::{Body, Bytes};
use axum::http::{HeaderName, HeaderValue, StatusCode, header};
use axum::response::{IntoResponse, Response};
use serde_json::{Value, json};

use super::capture::Unbuffered;
use super::sse;
use crate::engine::Engine;
use crate::engine::pipeline::admit::session_gone;
use crate::engine::pipeline::outcome::{Framing, Outcome, Reply, Status};
use crate::engine::protocol::SESSION_HEADER_NAME;
use crate::engine::protocol::garble::{half, malformed};
use crate::engine::protocol::jsonrpc::{self, RpcError, code};
use crate::engine::state::faults::MAX_HANGING;
use crate::engine::state::session::Session;
use crate::spec::{Fault, ResponseMode};

/// The HTTP response of an outcome.
pub(crate) async fn render(
    engine: &std::sync::Arc<Engine>,
    outcome: Outcome,
    exchange: Option<crate::engine::capture::ExchangeId>,
) -> Response {
    match outcome {
        Outcome::Accepted => StatusCode::ACCEPTED.into_response(),
        Outcome::Reply(reply) => render_reply(engine, reply).await,
        Outcome::Written {
            text,
            opened,
            framing,
        } => {
            let response =
                if framing == Framing::Mode && engine.spec.response_mode == ResponseMode::Sse {
                    sse::one_event_text(text.text())
                } else {
                    json_text(StatusCode::OK, &text)
                };
            with_session(response, opened)
        }
        Outcome::Stream(streamed) => sse::session_stream(engine.clone(), streamed, exchange),
        Outcome::Listen(listening) => sse::listen_stream(engine.clone(), *listening, exchange),
        Outcome::Status {
            status,
            body,
            headers,
        } => http_fault(status, body.as_deref(), &headers),
    }
}

async fn render_reply(engine: &Engine, reply: Reply) -> Response {
    let Reply {
        status,
        body,
        framing,
        fault,
        opened,
        text,
    } = reply;
    let response = match (fault, framing) {
        (Some((fault, session)), _) => faulty_json(engine, &session, &fault, body).await,
        (None, Framing::Mode) if engine.spec.response_mode == ResponseMode::Sse => {
            sse::one_event(&body)
        }
        (None, _) => match text {
            Some(text) => json_text(status_code(status), &text),
            None => (status_code(status), axum::Json(body)).into_response(),
        },
    };
    with_session(response, opened)
}

/// A JSON body the capture wrote already: its bytes are sent, not written again.
fn json_text(status: StatusCode, text: &crate::log::Json) -> Response {
    // Built by hand: the tuple's `IntoResponse` sets the bytes' own content type, then parses
    // and checks the one given here, about 9 K instructions a response in a debug build.
    let mut response = Response::new(Body::from(text.to_bytes()));
    *response.status_mut() = status;
    response.headers_mut().insert(header::CONTENT_TYPE, JSON);
    response
}

/// `application/json`, checked once, when this is compiled.
const JSON: HeaderValue = HeaderValue::from_static("application/json");

/// Hands out the session an answer opened (`initialize`).
fn with_session(mut response: Response, opened: Option<String>) -> Response {
    // The id's bytes move into the header; they are not copied.
    if let Some(id) = opened
        && let Ok(value) = HeaderValue::from_maybe_shared(bytes::Bytes::from(id))
    {
        response.headers_mut().insert(SESSION_HEADER_NAME, value);
    }
    response
}

/// The HTTP status of an outcome's [`Status`].
pub(crate) fn status_code(status: Status) -> StatusCode {
    match status {
        Status::Ok => StatusCode::OK,
        Status::BadRequest => StatusCode::BAD_REQUEST,
        Status::NotFound => StatusCode::NOT_FOUND,
        Status::NotAcceptable => StatusCode::NOT_ACCEPTABLE,
        Status::Unavailable => StatusCode::SERVICE_UNAVAILABLE,
        Status::Internal => StatusCode::INTERNAL_SERVER_ERROR,
    }
}

/// An HTTP error with an id-less JSON-RPC error body, as the transports page allows.
pub(crate) fn transport_error(status: StatusCode, code: i64, message: &str) -> Response {
    (
        status,
        axum::Json(jsonrpc::error(&Value::Null, &RpcError::new(code, message))),
    )
        .into_response()
}

/// A [`Fault::Http`] response: the status, the body as is (`text/plain` unless a
/// `Content-Type` is among the headers), and the headers.
pub(crate) fn http_fault(
    status: u16,
    body: Option<&str>,
    headers: &[(String, String)],
) -> Response {
    let status = StatusCode::from_u16(status).unwrap_or(StatusCode::INTERNAL_SERVER_ERROR);
    let mut response = Response::new(Body::from(body.unwrap_or_default().to_string()));
    *response.status_mut() = status;
    if body.is_some() {
        response.headers_mut().insert(
            header::CONTENT_TYPE,
            HeaderValue::from_static("text/plain; charset=utf-8"),
        );
    }
    for (name, value) in headers {
        // Checked at start (`check`); a rule added live with a bad header skips it.
        if let (Ok(name), Ok(value)) = (
            HeaderName::from_bytes(name.as_bytes()),
            HeaderValue::from_str(value),
        ) {
            if name == header::CONTENT_TYPE {
                response.headers_mut().insert(name, value);
            } else {
                response.headers_mut().append(name, value);
            }
        }
    }
    response
}

/// The answer of a request answered as JSON, shaped by its fault: a body that is not JSON,
/// cut in half, or broken off with the connection; a duplicate; or no answer at all until
/// the session ends. `response` may be a batch's array.
async fn faulty_json(
    engine: &Engine,
    session: &Session,
    fault: &Fault,
    response: Value,
) -> Response {
    let json_text = |text: String| {
        (
            [(header::CONTENT_TYPE, "application/json")],
            Body::from(text),
        )
            .into_response()
    };
    match Some(fault) {
        Some(Fault::MalformedJson) => json_text(malformed(&response)),
        Some(Fault::TruncatedStream) => json_text(half(&response)),
        Some(Fault::CloseConnection) => {
            let first = Bytes::from(half(&response));
            let chunks: Vec<Result<Bytes, std::io::Error>> = vec![
                Ok(first),
                Err(std::io::Error::other(
                    "mcp-decoy: the close_connection fault cut the connection",
                )),
            ];
            let mut reply = Response::new(Body::from_stream(futures::stream::iter(chunks)));
            reply.headers_mut().insert(
                header::CONTENT_TYPE,
                HeaderValue::from_static("application/json"),
            );
            reply.extensions_mut().insert(Unbuffered);
            reply
        }
        Some(Fault::DuplicateResponse) if session.version.is_modern() => {
            // No other channel in 2026-07-28: the body carries it twice.
            axum::Json(json!([response.clone(), response])).into_response()
        }
        Some(Fault::DuplicateResponse) => {
            // The closest honest duplicate in JSON mode: the body, and a copy on the
            // session's GET stream (queued until the client opens it).
            session.send(response.clone());
            axum::Json(response).into_response()
        }
        Some(Fault::HangingStream) => {
            let Some(_permit) = engine.faults.hang_permit() else {
                return too_many_hanging();
            };
            // Until the client gives up (the future is dropped with its connection), the
            // session ends, or the server stops (its runtime drops every connection).
            if session.version.is_modern() {
                return std::future::pending().await;
            }
            session.ended().await;
            let error = session_gone(&session.id);
            (
                StatusCode::NOT_FOUND,
                axum::Json(jsonrpc::error(&Value::Null, &error)),
            )
                .into_response()
        }
        _ => axum::Json(response).into_response(),
    }
}

fn too_many_hanging() -> Response {
    let error = RpcError::new(
        code::INTERNAL_ERROR,
        format!(
            "mcp-decoy: {MAX_HANGING} requests are already hanging (hanging_stream fault); this one is refused"
        ),
    );
    (
        StatusCode::SERVICE_UNAVAILABLE,
        axum::Json(jsonrpc::error(&Value::Null, &error)),
    )
        .into_response()
}
