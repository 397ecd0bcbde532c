//! Reading a body whole, within a limit. Nearly every body here comes as one chunk (a
//! request with a `Content-Length` that hyper read at once, or a response built in memory):
//! that chunk is returned as it is, without the collector of `http_body_util` (a queue of
//! chunks and a future around them), which cost about 1.2 K instructions a body on the way
//! to a fixture's first answer (benches/README.md, "Headers in one string, members read in
//! one pass"). Every body the HTTP adapter reads goes through here; the OAuth endpoints, which the
//! adapter calls, keep axum's `to_bytes` (reading through this module would import the
//! transport from the engine's OAuth). A body that could not be read is answered here too.

use std::pin::Pin;

use axum::body::{Body, Bytes};
use axum::http::{StatusCode, header};
use axum::response::{IntoResponse, Response};
use bytes::BytesMut;
use hyper::body::Body as HttpBody;
use serde_json::Value;

use crate::engine::protocol::jsonrpc::{self, RpcError, code};

/// Why a body was not read whole.
#[derive(Debug)]
pub(crate) enum Unread {
    /// It holds more than the limit (reading stopped there: the rest is never buffered).
    TooLarge,
    /// The client sent it malformed (a bad chunk, say) or broke it off.
    Broken(axum::Error),
}

/// The body's bytes, or why they could not all be read within `limit` bytes.
pub(crate) async fn read(mut body: Body, limit: usize) -> Result<Bytes, Unread> {
    let mut first: Option<Bytes> = None;
    let mut joined: Option<BytesMut> = None;
    let mut total = 0usize;
    while let Some(frame) = std::future::poll_fn(|cx| Pin::new(&mut body).poll_frame(cx)).await {
        // Trailers are no part of the bytes.
        let Ok(data) = frame.map_err(Unread::Broken)?.into_data() else {
            continue;
        };
        total = total
            .checked_add(data.len())
            .filter(|&total| total <= limit)
            .ok_or(Unread::TooLarge)?;
        match (&first, &mut joined) {
            (None, _) => first = Some(data),
            (Some(head), None) => {
                let mut all = BytesMut::with_capacity(total);
                all.extend_from_slice(head);
                all.extend_from_slice(&data);
                joined = Some(all);
            }
            (Some(_), Some(all)) => all.extend_from_slice(&data),
        }
        if body.is_end_stream() {
            break;
        }
    }
    Ok(match (joined, first) {
        (Some(all), _) => all.freeze(),
        (None, Some(only)) => only,
        (None, None) => Bytes::new(),
    })
}

/// A body the client sent malformed or broke off: a `400` naming what went wrong.
pub(crate) fn unreadable(error: &axum::Error) -> Response {
    // axum's error shows its inner error's text and gives it as its source too.
    let mut reasons = vec![error.to_string()];
    let mut source = std::error::Error::source(error);
    while let Some(cause) = source {
        let text = cause.to_string();
        if reasons.last() != Some(&text) {
            reasons.push(text);
        }
        source = cause.source();
    }
    let reason = reasons.join(": ");
    closing_error(
        StatusCode::BAD_REQUEST,
        format!("the request body could not be read: {reason}"),
    )
}

pub(crate) fn too_large(limit: usize) -> Response {
    closing_error(
        StatusCode::PAYLOAD_TOO_LARGE,
        format!("the request body exceeds this server's limit of {limit} bytes"),
    )
}

/// A `-32600` error that closes the connection: the rest of the body is never read, so the
/// connection cannot be reused; saying so keeps the client from sending its next request on
/// a connection that is closing.
fn closing_error(status: StatusCode, message: String) -> Response {
    let error = RpcError::new(code::INVALID_REQUEST, message);
    (
        status,
        [(header::CONNECTION, "close")],
        axum::Json(jsonrpc::error(&Value::Null, &error)),
    )
        .into_response()
}

#[cfg(test)]
mod tests {
    use super::*;
    use futures::stream;

    fn chunked(chunks: &[&'static str]) -> Body {
        let frames: Vec<Result<Bytes, std::io::Error>> = chunks
            .iter()
            .map(|chunk| Ok(Bytes::from_static(chunk.as_bytes())))
            .collect();
        Body::from_stream(stream::iter(frames))
    }

    #[tokio::test]
    async fn one_chunk_many_chunks_and_none_read_whole() {
        assert_eq!(
            read(Body::from("whole"), 5).await.ok().as_deref(),
            Some(&b"whole"[..])
        );
        let joined = read(chunked(&["a", "bc", "", "def"]), 6).await.ok();
        assert_eq!(joined.as_deref(), Some(&b"abcdef"[..]));
        assert_eq!(read(Body::empty(), 0).await.ok().as_deref(), Some(&b""[..]));
    }

    #[tokio::test]
    async fn a_body_over_the_limit_is_too_large_and_a_failing_one_broken() {
        assert!(matches!(
            read(Body::from("123456"), 5).await,
            Err(Unread::TooLarge)
        ));
        assert!(matches!(
            read(chunked(&["abc", "def"]), 5).await,
            Err(Unread::TooLarge)
        ));
        let failing: Vec<Result<Bytes, std::io::Error>> = vec![
            Ok(Bytes::from_static(b"ab")),
            Err(std::io::Error::other("cut")),
        ];
        let broken = read(Body::from_stream(stream::iter(failing)), 10).await;
        assert!(
            matches!(&broken, Err(Unread::Broken(error)) if error.to_string().contains("cut")),
            "{broken:?}"
        );
    }
}
