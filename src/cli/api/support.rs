//! What every resource's handlers share: finding a server by name, making a change and its
//! write to `servers.json` one step, and answering `201 Created`. Knows no resource and no
//! engine field (those are `live.rs`).

use axum::http::{HeaderValue, StatusCode, header};
use axum::response::{IntoResponse, Response};
use serde::Serialize;

use super::ApiError;
use crate::cli::App;
use crate::cli::registry::Hosted;

/// The hosted server `name`, or a `404` naming it.
pub(crate) fn hosted(app: &App, name: &str) -> Result<Hosted, ApiError> {
    app.registry
        .get(name)
        .ok_or_else(|| ApiError::not_found(format!("no server named `{name}`")).field("server"))
}

/// Applies `change` and saves `servers.json` while holding the write lock, so changes never
/// interleave and a success is answered only once the file holds it. If the save fails the
/// change stays live and the caller gets a `500`; the next successful save writes it.
pub(crate) async fn commit<R>(
    app: &App,
    change: impl FnOnce() -> Result<R, ApiError>,
) -> Result<R, ApiError> {
    let _writes = app.writes.lock().await;
    let outcome = change()?;
    app.persist()?;
    Ok(outcome)
}

/// `201 Created` with a `Location` header and the created item.
pub(crate) fn created(location: &str, body: &impl Serialize) -> Response {
    let mut response = (StatusCode::CREATED, axum::Json(body)).into_response();
    if let Ok(value) = HeaderValue::from_str(location) {
        response.headers_mut().insert(header::LOCATION, value);
    }
    response
}

/// Percent-encodes one path segment (a resource URI, a URI template) for a `Location`.
pub(crate) fn encode_segment(text: &str) -> String {
    let mut out = String::with_capacity(text.len());
    for byte in text.bytes() {
        if byte.is_ascii_alphanumeric() || matches!(byte, b'-' | b'.' | b'_' | b'~') {
            out.push(byte as char);
        } else {
            out.push_str(&format!("%{byte:02X}"));
        }
    }
    out
}
