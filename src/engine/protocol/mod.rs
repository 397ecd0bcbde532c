//! The wire vocabulary both eras share: JSON-RPC messages as they are read ([`message`]),
//! ids and error codes ([`jsonrpc`]), the MCP methods ([`method`]), revision negotiation ([`era`]), the rules a
//! 2026-07-28 request must follow ([`modern`]) and the capabilities it must declare
//! ([`required`]), and the header and `_meta` names.
//!
//! Pure rules on values: nothing here holds state, touches a socket or knows the engine, so
//! every other engine module may use it and it uses none of them (only `spec`). The
//! `x-mcp-header` annotations a modern request's headers follow are here too
//! ([`param_headers`]).

pub(crate) mod era;
pub(crate) mod garble;
pub(crate) mod handshake;
pub(crate) mod jsonrpc;
pub(crate) mod message;
pub(crate) mod method;
pub(crate) mod modern;
pub(crate) mod param_headers;
pub(crate) mod required;

use http::{HeaderName, HeaderValue};

/// The legacy session header (names are case-insensitive; `http` stores them lower-case).
pub(crate) const SESSION_HEADER: &str = "mcp-session-id";

/// The header every request after `initialize` carries since 2025-06-18, and every
/// 2026-07-28 request.
pub(crate) const VERSION_HEADER: &str = "mcp-protocol-version";

/// [`SESSION_HEADER`] and [`VERSION_HEADER`] as header names, for the lookups every request
/// makes: a name given as text is parsed and lower-cased again at each lookup.
pub(crate) const SESSION_HEADER_NAME: HeaderName = HeaderName::from_static(SESSION_HEADER);
/// See [`SESSION_HEADER_NAME`].
pub(crate) const VERSION_HEADER_NAME: HeaderName = HeaderName::from_static(VERSION_HEADER);

/// The two MCP headers of a message's request (`Mcp-Session-Id`, `MCP-Protocol-Version`),
/// the first value of each as a lookup would give it. The HTTP adapter notes them in the one
/// pass it makes over a request's headers ([`note`](Self::note)): a lookup by name hashes
/// the name, about 1 K instructions in a debug build, and every POST looked these two up
/// four times (benches/README.md, "The handshake in the body's pass, headers in one pass").
#[derive(Debug, Clone, Default)]
pub(crate) struct McpHeaders {
    pub(crate) session: Option<HeaderValue>,
    pub(crate) version: Option<HeaderValue>,
}

impl McpHeaders {
    /// The two headers of `headers`.
    #[cfg(feature = "relay")]
    pub(crate) fn of(headers: &http::HeaderMap) -> McpHeaders {
        let mut mcp = McpHeaders::default();
        for (name, value) in headers {
            mcp.note(name, value);
        }
        mcp
    }

    /// Keeps `value` if `name` is one of the two and none was seen before it.
    pub(crate) fn note(&mut self, name: &HeaderName, value: &HeaderValue) {
        let slot = if *name == SESSION_HEADER_NAME {
            &mut self.session
        } else if *name == VERSION_HEADER_NAME {
            &mut self.version
        } else {
            return;
        };
        if slot.is_none() {
            *slot = Some(value.clone());
        }
    }
}

/// How an answer stands, in words a transport maps to its own (Streamable HTTP: the status
/// code; a byte stream: nothing, the JSON-RPC error says it all).
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub(crate) enum Status {
    Ok,
    BadRequest,
    NotFound,
    NotAcceptable,
    Unavailable,
    Internal,
}
