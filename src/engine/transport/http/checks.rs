//! The checks Streamable HTTP makes before a message reaches the pipeline: `Origin`
//! (DNS rebinding), `Content-Type`, `Accept`, and the 405 a 2026-07-28 client gets for GET
//! and DELETE (2025-11-25 and 2026-07-28 transports pages).

use axum::http::{HeaderMap, HeaderValue, StatusCode, header};
use axum::response::Response;

use super::render::transport_error;
use crate::engine::Engine;
use crate::engine::protocol::McpHeaders;
use crate::engine::protocol::jsonrpc::code;
use crate::spec::ProtocolVersion;

/// The headers a POST's checks and the pipeline read, found in one pass over the request's
/// headers instead of a lookup each: a lookup hashes the name (about 1 K instructions in a
/// debug build), and a POST made eight (benches/README.md, "The handshake in the body's
/// pass, headers in one pass"). Each is the first value of its name, as a lookup gives, but
/// `Accept`, whose values all count.
#[derive(Debug, Default)]
pub(crate) struct Read<'a> {
    pub(crate) origin: Option<&'a HeaderValue>,
    pub(crate) content_type: Option<&'a HeaderValue>,
    /// Whether an `Accept` header lets the answer be an event stream (no header does).
    pub(crate) accepts_stream: bool,
    pub(crate) mcp: McpHeaders,
}

impl Read<'_> {
    pub(crate) fn of(headers: &HeaderMap) -> Read<'_> {
        let mut read = Read::default();
        let mut accept = false;
        let mut lists_stream = false;
        for (name, value) in headers {
            if *name == header::ACCEPT {
                accept = true;
                lists_stream = lists_stream || lists_value(value, STREAM, b"text");
            } else if *name == header::CONTENT_TYPE {
                read.content_type = read.content_type.or(Some(value));
            } else if *name == header::ORIGIN {
                read.origin = read.origin.or(Some(value));
            } else {
                read.mcp.note(name, value);
            }
        }
        read.accepts_stream = !accept || lists_stream;
        read
    }
}

/// The type of an event stream.
const STREAM: &str = "text/event-stream";

/// A present `Origin` must be loopback or allow-listed, else 403 (transports page,
/// "Security Warning": servers MUST validate Origin to prevent DNS rebinding).
pub(crate) fn origin_rejection(engine: &Engine, origin: Option<&HeaderValue>) -> Option<Response> {
    let origin = origin?.to_str().unwrap_or_default();
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

pub(crate) fn has_json_content_type(content_type: Option<&HeaderValue>) -> bool {
    let Some(value) = content_type else {
        return false;
    };
    // The type every client sends, compared whole before the value is read as text.
    if value.as_bytes() == b"application/json" {
        return true;
    }
    value.to_str().is_ok() && {
        let value = value.as_bytes();
        value[..next(value, 0, b';')]
            .trim_ascii()
            .eq_ignore_ascii_case(b"application/json")
    }
}

/// Whether an `Accept` header is present and lists `mime`, itself or by a wildcard
/// (`*/*`, `text/*`), with a weight above zero.
pub(crate) fn lists(headers: &HeaderMap, mime: &str) -> bool {
    let kind = mime.split('/').next().unwrap_or_default().as_bytes();
    headers
        .get_all(header::ACCEPT)
        .iter()
        .any(|value| lists_value(value, mime, kind))
}

/// Whether one `Accept` value lists `mime`, whose type is `kind` (see [`lists`]).
fn lists_value(value: &HeaderValue, mime: &str, kind: &[u8]) -> bool {
    let (bytes, mime) = (value.as_bytes(), mime.as_bytes());
    // The value the transport page has every client send, compared whole (one `memcmp`)
    // before it is read as text and item by item, which a debug build does in about 9 K
    // instructions.
    if bytes == SPEC_ACCEPT {
        return mime == b"application/json" || mime == b"text/event-stream";
    }
    value.to_str().is_ok() && value_lists(bytes, mime, kind)
}

/// The `Accept` value a client sends to list both of the types a POST may be answered with
/// (2025-11-25 transports, "Sending Messages to the Server").
const SPEC_ACCEPT: &[u8] = b"application/json, text/event-stream";

/// One `Accept` value, read as bytes with plain loops: it is on every POST's path, where a
/// debug build's `split`, `trim` and searchers cost about 12 K instructions per request.
fn value_lists(value: &[u8], mime: &[u8], kind: &[u8]) -> bool {
    let mut start = 0;
    while start <= value.len() {
        let end = next(value, start, b',');
        if item_lists(&value[start..end], mime, kind) {
            return true;
        }
        start = end + 1;
    }
    false
}

/// One media range with its parameters: `mime`, `*/*` or `KIND/*`, unless weighted `q=0`.
fn item_lists(item: &[u8], mime: &[u8], kind: &[u8]) -> bool {
    let end = next(item, 0, b';');
    let range = item[..end].trim_ascii();
    let named = range.eq_ignore_ascii_case(mime)
        || range == b"*/*"
        || range
            .strip_suffix(b"/*")
            .is_some_and(|k| k.eq_ignore_ascii_case(kind));
    if !named {
        return false;
    }
    let mut start = end + 1;
    while start <= item.len() {
        let end = next(item, start, b';');
        let weight = item[start..end]
            .trim_ascii()
            .strip_prefix(b"q=")
            .and_then(|q| std::str::from_utf8(q.trim_ascii()).ok())
            .and_then(|q| q.parse::<f32>().ok());
        if weight.is_some_and(|q| q <= 0.0) {
            return false;
        }
        start = end + 1;
    }
    true
}

/// Where the part of `bytes` that starts at `start` ends: at the next `separator`, or at the
/// end.
fn next(bytes: &[u8], start: usize, separator: u8) -> usize {
    let mut end = start;
    while end < bytes.len() && bytes[end] != separator {
        end += 1;
    }
    end
}

/// 2026-07-28 has no GET stream and no sessions to delete: 405 (transport page) for a
/// modern client, and for anyone on a server that serves only 2026-07-28 ("Earlier
/// Streamable HTTP Revisions": such a server SHOULD answer GET and DELETE with 405).
/// `mcp`: the request's MCP headers, as [`Read`] found them.
pub(crate) fn modern_get_or_delete(engine: &Engine, mcp: &McpHeaders) -> Option<Response> {
    let serves_legacy = engine.versions.iter().any(|v| !v.is_modern());
    let serves_modern = engine.versions.iter().any(|v| v.is_modern());
    let modern_client = mcp
        .version
        .as_ref()
        .and_then(|v| v.to_str().ok())
        .and_then(|v| ProtocolVersion::parse(v.trim()))
        .is_some_and(ProtocolVersion::is_modern);
    let legacy_traffic = !modern_client || mcp.session.is_some();
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

#[cfg(test)]
mod tests {
    use super::*;
    use crate::engine::protocol::{SESSION_HEADER, VERSION_HEADER};

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

    fn accept(value: &str) -> HeaderMap {
        let mut headers = HeaderMap::new();
        headers.insert(
            header::ACCEPT,
            HeaderValue::from_str(value).expect("a header value"),
        );
        headers
    }

    #[test]
    fn a_json_content_type_may_have_parameters_and_any_case() {
        for json in [
            "application/json",
            "application/json; charset=utf-8",
            " Application/JSON ;charset=UTF-8",
        ] {
            let value = HeaderValue::from_static(json);
            assert!(has_json_content_type(Some(&value)), "{json}");
        }
        for other in [
            "text/plain",
            "application/json-seq",
            "application/jsonx",
            "",
        ] {
            let value = HeaderValue::from_static(other);
            assert!(!has_json_content_type(Some(&value)), "{other}");
        }
        assert!(!has_json_content_type(None));
    }

    #[test]
    fn one_pass_reads_the_first_value_of_each_name_as_a_lookup_does() {
        let mut headers = HeaderMap::new();
        for (name, value) in [
            ("origin", "http://localhost"),
            ("origin", "http://evil.example"),
            ("content-type", "application/json"),
            ("content-type", "text/plain"),
            ("mcp-session-id", "a"),
            ("mcp-session-id", "b"),
            ("mcp-protocol-version", "2025-11-25"),
            ("mcp-protocol-version", "2026-07-28"),
        ] {
            headers.append(
                http::HeaderName::from_static(name),
                HeaderValue::from_static(value),
            );
        }
        let read = Read::of(&headers);
        assert_eq!(read.origin, headers.get(header::ORIGIN));
        assert_eq!(read.content_type, headers.get(header::CONTENT_TYPE));
        assert_eq!(read.mcp.session.as_ref(), headers.get(SESSION_HEADER));
        assert_eq!(read.mcp.version.as_ref(), headers.get(VERSION_HEADER));
        assert!(read.accepts_stream);
        let empty = HeaderMap::new();
        let none = Read::of(&empty);
        assert!(none.origin.is_none() && none.content_type.is_none());
        assert!(none.mcp.session.is_none() && none.mcp.version.is_none());
    }

    #[test]
    fn an_accept_header_lists_a_type_by_name_or_wildcard_unless_weighted_zero() {
        let sse = "text/event-stream";
        for listed in [
            "text/event-stream",
            "application/json, TEXT/EVENT-STREAM",
            "text/*",
            "*/*;q=0.1",
            "text/event-stream; q=1",
            "application/json;q=0, text/event-stream",
            " text/event-stream ;charset=utf-8; q=0.5 ",
            "text/html,,text/event-stream",
        ] {
            assert!(lists(&accept(listed), sse), "{listed}");
        }
        for unlisted in [
            "application/json",
            "text/event-stream;q=0",
            "text/event-stream; q=0.0;level=1",
            "",
            "text/html",
            "text/event-streams",
            "event-stream",
        ] {
            assert!(!lists(&accept(unlisted), sse), "{unlisted}");
        }
        assert!(!lists(&HeaderMap::new(), sse), "no header lists nothing");
        assert!(
            Read::of(&HeaderMap::new()).accepts_stream,
            "no header accepts anything"
        );
        assert!(!Read::of(&accept("application/json")).accepts_stream);
        let mut two = accept("application/json");
        two.append(header::ACCEPT, HeaderValue::from_static("text/*"));
        assert!(Read::of(&two).accepts_stream, "every Accept value counts");
        // The value compared whole lists its two types and nothing else.
        let spec = accept("application/json, text/event-stream");
        assert!(lists(&spec, sse) && lists(&spec, "application/json"));
        assert!(!lists(&spec, "text/html") && !lists(&spec, "text/*"));
    }
}
