//! The Streamable HTTP adapter, both eras on one endpoint: POST carries JSON-RPC ([`post`](mod@post)),
//! GET opens a legacy session's stream and DELETE ends the session ([`session`]). The adapter
//! owns everything HTTP: the exchange capture and body limit ([`capture`]), `Origin`,
//! `Content-Type` and `Accept` ([`checks`]), and turning the pipeline's outcome into a
//! response ([`render`], with event streams in [`sse`]). It never decides anything about a
//! message: that is the pipeline's.
//!
//! [`endpoint`] matches a request to what answers it, behind the capture and the guards;
//! [`serve`] runs one engine alone on the shared fixture runtimes, and the app hands each
//! server's endpoint the requests under `/s/NAME/`. Every listener, the fixture's and the app's two,
//! serves its connections through [`listener`]: header and idle timeouts, a connection cap.

mod armed;
mod body;
pub(crate) mod capture;
pub(crate) mod checks;
pub(crate) mod endpoint;
pub(crate) mod listener;
pub(crate) mod post;
#[cfg(feature = "relay")]
pub(crate) mod relay;
pub(crate) mod render;
pub(crate) mod serve;
pub(crate) mod session;
mod spare;
pub(crate) mod sse;

use std::sync::LazyLock;

use axum::http::HeaderMap;
use axum::http::request::Parts;

use crate::engine::methods::Principal;
use crate::engine::pipeline::Inbound;
use crate::engine::protocol::McpHeaders;
use capture::Captured;

/// No headers, for the checks of a request whose headers were moved into its [`Inbound`].
static EMPTY: LazyLock<HeaderMap> = LazyLock::new(HeaderMap::new);

/// What the pipeline gets to know of a request besides its body: `accepts_stream` and `mcp`
/// as [`checks::Read`] found them in its headers.
fn inbound(parts: Parts, captured: Captured, accepts_stream: bool, mcp: McpHeaders) -> Inbound {
    Inbound {
        exchange: captured.exchange,
        transport: crate::log::Transport::Http,
        principal: parts.extensions.get::<Principal>().cloned(),
        headers: Some(parts.headers),
        mcp: Some(mcp),
        accepts_stream,
        session: None,
        text: captured.received,
    }
}
