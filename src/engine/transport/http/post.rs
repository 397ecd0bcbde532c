//! POST: one JSON-RPC message, or a batch in 2025-03-26 sessions. The adapter's part is the
//! HTTP around the message: `Origin`, `Content-Type`, the body limit and JSON parsing; the
//! message itself goes through the pipeline, and its outcome through render.

use std::sync::Arc;

use axum::extract::{Request, State};
use axum::http::StatusCode;
use axum::response::Response;

use super::capture::Captured;
use super::checks::{Read, has_json_content_type, origin_rejection};
use super::inbound;
use super::render::{render, transport_error};
use crate::engine::Engine;
use crate::engine::pipeline;
use crate::engine::protocol::jsonrpc::code;
use crate::engine::protocol::message::Body;

pub(crate) async fn post(
    State(engine): State<Arc<Engine>>,
    request: Request,
    captured: Captured,
) -> Response {
    let limit = engine.limits.max_body_bytes;
    let (parts, body) = request.into_parts();
    // The checks are made now, from one pass over the headers, and their verdicts given below
    // in their order, once the body is read.
    let read = Read::of(&parts.headers);
    let origin = origin_rejection(&engine, read.origin);
    let json = has_json_content_type(read.content_type);
    let (accepts_stream, mcp) = (read.accepts_stream, read.mcp);
    let mut inbound = inbound(parts, captured, accepts_stream, mcp);
    // The capture already read the body whole and kept its text: parsed from there, it is
    // not collected a second time.
    let received = inbound.text.clone();
    let body = match &received {
        Some(text) => Ok(Received::Kept(text.text())),
        None => super::body::read(body, limit).await.map(Received::Read),
    };
    if let Some(rejection) = origin {
        return rejection;
    }
    if !json {
        return transport_error(
            StatusCode::UNSUPPORTED_MEDIA_TYPE,
            code::INVALID_REQUEST,
            "POST bodies must be sent with `Content-Type: application/json`",
        );
    }
    let body = match body {
        Ok(body) => body,
        Err(super::body::Unread::TooLarge) => {
            return transport_error(
                StatusCode::PAYLOAD_TOO_LARGE,
                code::INVALID_REQUEST,
                "the request body is too large",
            );
        }
        Err(super::body::Unread::Broken(error)) => return super::body::unreadable(&error),
    };
    let body = match &body {
        Received::Kept(text) => text,
        Received::Read(bytes) => &bytes[..],
    };
    let outcome = match Body::parse(body) {
        Ok(Body::Batch(batch)) => {
            // Each message of a batch is recorded alone, not as the body's text.
            inbound.text = None;
            pipeline::batch(&engine, &inbound, batch).await
        }
        Ok(Body::One(message)) => pipeline::message(&engine, &inbound, message).await,
        Err(error) => {
            let text = String::from_utf8_lossy(body).into_owned();
            pipeline::unparsable(&engine, &inbound, text, &error.to_string())
        }
    };
    render(&engine, outcome, inbound.exchange).await
}

/// A POST body: the text the capture kept, or the bytes read here.
enum Received<'a> {
    Kept(&'a [u8]),
    Read(bytes::Bytes),
}
