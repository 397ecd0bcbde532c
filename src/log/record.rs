//! The records of captured traffic. Field order is stable, so JSON exports and snapshots diff
//! cleanly.

use chrono::{DateTime, Utc};
use serde::{Deserialize, Serialize};
use serde_json::Value;

use super::headers::Headers;
use super::json::Json;

/// The header that names a legacy session, as the log stores header names (lowercase).
pub(crate) const SESSION_HEADER: &str = "mcp-session-id";

/// One captured record: an HTTP exchange, the end of an event stream, or a JSON-RPC message.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
#[serde(rename_all = "camelCase")]
#[non_exhaustive]
pub struct Record {
    /// Increasing per log, never reused; also the cursor of log pagination.
    pub id: u64,
    /// Which server wrote it, when servers share one log (the app); not serialized.
    #[serde(skip)]
    pub(crate) source: u64,
    /// The log's change counter when this record was pushed or last updated, so a live
    /// stream can find what changed without copying the whole ring; not serialized.
    #[serde(skip)]
    pub(crate) revision: u64,
    /// The bytes of memory the ring counts for it against its budget (`log::size`); not
    /// serialized.
    #[serde(skip)]
    pub(crate) size: usize,
    /// When the exchange or message started.
    pub at: DateTime<Utc>,
    /// What was captured.
    #[serde(flatten)]
    pub entry: Entry,
}

/// The two layers of the log.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
#[serde(tag = "layer", rename_all = "lowercase")]
#[non_exhaustive]
pub enum Entry {
    /// One HTTP request and its response, or the end of an event stream.
    Http(HttpExchange),
    /// One JSON-RPC message; a request and its response share one entry.
    Mcp(RpcMessage),
}

/// What kind of HTTP record this is.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "snake_case")]
#[non_exhaustive]
pub enum HttpKind {
    /// A request and its response head (and body, unless it was an event stream).
    Exchange,
    /// The event stream opened by the exchange `stream_of` has ended.
    StreamEnd,
}

/// One HTTP exchange on the MCP listener.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
#[serde(rename_all = "camelCase")]
#[non_exhaustive]
pub struct HttpExchange {
    /// Exchange or stream end.
    pub kind: HttpKind,
    /// `GET`, `POST`, `DELETE`, ...
    pub method: String,
    /// The request path.
    pub path: String,
    /// The raw query string, if any.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub query: Option<String>,
    /// Request headers in arrival order, names lower-case.
    pub request_headers: Headers,
    /// The request body: JSON when it parses, else text; `None` when empty.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub request_body: Option<Json>,
    /// The response status; `None` while the handler runs, and for good when the
    /// connection closed first (`unanswered`).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub status: Option<u16>,
    /// Response headers, names lower-case.
    #[serde(default)]
    pub response_headers: Headers,
    /// The response body, unless it was an event stream (its messages are `mcp` records).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub response_body: Option<Json>,
    /// Milliseconds from request to response head; for a stream end, the stream's lifetime.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub duration_ms: Option<f64>,
    /// For a stream end: the id of the exchange that opened the stream.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub stream_of: Option<u64>,
    /// On a relay (`relay_to`, `"upstream"`): the request as it went to the upstream and
    /// what came back, or why nothing did. `None` on a mock server.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub upstream: Option<Box<Upstream>>,
    /// The log keeps a cut copy of a body or a header value: one larger than 8 KiB of JSON
    /// text is kept shaped like the original, its long strings cut to their start and
    /// their length (`"aaaa... (1048576 bytes)"`), and what did not fit named in its place
    /// (`"...": "(2 more members)"`). The client got it whole. Left out when `false`.
    #[serde(default, skip_serializing_if = "std::ops::Not::not")]
    pub truncated: bool,
    /// The connection closed before the server answered: the client hung up (or the
    /// server stopped) while the request's body was arriving or its handler ran. `status`
    /// stays `None`. Left out when `false`.
    #[serde(default, skip_serializing_if = "std::ops::Not::not")]
    pub unanswered: bool,
}

/// The upstream leg of an exchange a relay forwarded.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
#[serde(rename_all = "camelCase")]
#[non_exhaustive]
pub struct Upstream {
    /// The URL the relay sent the request to (query secrets masked).
    pub url: String,
    /// The upstream's status; `None` when it never answered (see `failure`).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub status: Option<u16>,
    /// Milliseconds from sending the request to the upstream's response head.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub duration_ms: Option<f64>,
    /// The HTTP version the upstream answered in (`HTTP/1.1`, `HTTP/2.0`): over `https`
    /// the relay offers HTTP/2 and HTTP/1.1 by ALPN and the upstream picks. `None` when it
    /// never answered.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub version: Option<String>,
    /// Why the upstream gave no usable answer; the client got `502`.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub failure: Option<UpstreamFailure>,
}

/// Why a relayed request got no usable answer from its upstream.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "camelCase")]
#[non_exhaustive]
pub struct UpstreamFailure {
    /// The cause, as a stable name.
    pub cause: FailureCause,
    /// What the HTTP client said, for a human.
    pub detail: String,
}

/// The cause of an [`UpstreamFailure`].
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "snake_case")]
#[non_exhaustive]
pub enum FailureCause {
    /// Nothing listens at the upstream's address (TCP connection refused).
    ConnectRefused,
    /// The connection could not be made for another reason (DNS, unreachable host).
    Connect,
    /// The TLS handshake failed (certificate, protocol).
    Tls,
    /// The upstream did not answer within the relay's timeout.
    Timeout,
    /// The upstream broke HTTP (a malformed response, a reset stream, a body over the
    /// relay's limit).
    Protocol,
}

impl FailureCause {
    /// `connect_refused`, `connect`, `tls`, `timeout` or `protocol`, as the capture writes it.
    pub fn as_str(self) -> &'static str {
        match self {
            FailureCause::ConnectRefused => "connect_refused",
            FailureCause::Connect => "connect",
            FailureCause::Tls => "tls",
            FailureCause::Timeout => "timeout",
            FailureCause::Protocol => "protocol",
        }
    }
}

impl HttpExchange {
    /// The value of the first request header named `name` (case-insensitive).
    pub fn request_header(&self, name: &str) -> Option<&str> {
        self.request_headers.get(name)
    }

    /// The value of the first response header named `name` (case-insensitive).
    pub fn response_header(&self, name: &str) -> Option<&str> {
        self.response_headers.get(name)
    }
}

/// The shape of a JSON-RPC message.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "snake_case")]
pub enum RpcKind {
    /// Has `method` and `id`; the entry also holds the response.
    Request,
    /// Has `method`, no `id`.
    Notification,
    /// Has `id` and `result` or `error`, no `method`.
    Response,
    /// Not a JSON-RPC message: malformed JSON or a missing/ill-typed member.
    Invalid,
}

/// How a request ended ([`RpcMessage::end`]), in the words of the MCP specification's
/// cancellation rules (`basic/utilities/cancellation`, 2025-11-25; `basic/patterns/cancellation`,
/// 2026-07-28).
///
/// # Example
/// ```
/// use mcp_decoy::log::RequestEnd;
///
/// // How the capture and a transcript write it:
/// assert_eq!(serde_json::to_value(RequestEnd::ConnectionClosed).unwrap(), "connection_closed");
/// assert!(!RequestEnd::ConnectionClosed.is_cancellation());
/// assert!(RequestEnd::CancelledByClient.is_cancellation());
/// ```
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash, Serialize, Deserialize)]
#[serde(rename_all = "snake_case")]
#[non_exhaustive]
pub enum RequestEnd {
    /// The server sent a response (a result or a JSON-RPC error); it is in
    /// [`RpcMessage::response`].
    Answered,
    /// The client cancelled it: a legacy `notifications/cancelled` naming its id (recorded
    /// before this end is set), or, in 2026-07-28, closing the request's stream before the
    /// answer, which is how that revision cancels.
    CancelledByClient,
    /// A legacy request whose connection closed before the answer, with no
    /// `notifications/cancelled`: the client hung up, which the 2025 revisions do not count
    /// as a cancellation. A `notifications/cancelled` that names it later turns it into
    /// [`CancelledByClient`](Self::CancelledByClient).
    ConnectionClosed,
    /// The server ended it without an answer the client could read: a fault withheld the
    /// response, its session expired or ended, or the server stopped.
    EndedByServer,
}

impl RequestEnd {
    /// `answered`, `cancelled_by_client`, `connection_closed` or `ended_by_server`, as the
    /// capture writes it.
    pub fn as_str(self) -> &'static str {
        match self {
            RequestEnd::Answered => "answered",
            RequestEnd::CancelledByClient => "cancelled_by_client",
            RequestEnd::ConnectionClosed => "connection_closed",
            RequestEnd::EndedByServer => "ended_by_server",
        }
    }

    /// Whether the client cancelled the request ([`CancelledByClient`](Self::CancelledByClient)).
    pub fn is_cancellation(self) -> bool {
        self == RequestEnd::CancelledByClient
    }
}

impl std::fmt::Display for RequestEnd {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.write_str(self.as_str())
    }
}

/// Who sent the message.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "snake_case")]
pub enum Direction {
    /// The client under test sent it.
    ClientToServer,
    /// The decoy sent it.
    ServerToClient,
}

/// The protocol era a message belongs to.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "lowercase")]
#[non_exhaustive]
pub enum Era {
    /// 2025-03-26 to 2025-11-25: sessions opened by `initialize`.
    Legacy,
    /// 2026-07-28: stateless requests carrying their version in `_meta`.
    Modern,
}

/// What carried a JSON-RPC message between the client and the server.
#[derive(Debug, Clone, Copy, Default, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "lowercase")]
#[non_exhaustive]
pub enum Transport {
    /// Streamable HTTP: each message rides an `http` record (`carried_by`).
    #[default]
    Http,
    /// Newline-delimited JSON-RPC over a child process's stdin and stdout.
    Stdio,
    /// The stdio framing over an in-process duplex
    /// ([`connect_duplex`](crate::MockMcpServer::connect_duplex)).
    Memory,
}

impl Transport {
    /// `http`, `stdio` or `memory`, as the capture writes it.
    pub fn as_str(self) -> &'static str {
        match self {
            Transport::Http => "http",
            Transport::Stdio => "stdio",
            Transport::Memory => "memory",
        }
    }

    /// Whether this is [`Transport::Http`] (transcripts leave that default out).
    pub(crate) fn is_http(&self) -> bool {
        *self == Transport::Http
    }
}

/// One JSON-RPC message and, for a request, its response.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
#[serde(rename_all = "camelCase")]
#[non_exhaustive]
pub struct RpcMessage {
    /// Request, notification, response or invalid.
    pub kind: RpcKind,
    /// Who sent it.
    pub direction: Direction,
    /// The method, for requests and notifications.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub method: Option<String>,
    /// The tool, prompt or resource the request names (`params.name` / `params.uri`).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub name: Option<String>,
    /// The session it belongs to, once one exists.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub session: Option<String>,
    /// The protocol revision in force for it.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub protocol_version: Option<String>,
    /// The era of that revision.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub era: Option<Era>,
    /// What carried it.
    #[serde(default)]
    pub transport: Transport,
    /// The id of the `http` record that carried it.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub carried_by: Option<u64>,
    /// The message as sent (for an invalid body: the text that arrived).
    pub message: Json,
    /// The response to a request; `None` while it is pending or when none was sent.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub response: Option<Json>,
    /// Milliseconds from request to its end (a response, or why none was sent).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub duration_ms: Option<f64>,
    /// How a request ended: [`RequestEnd::Answered`], or why no response reached the client.
    /// `None` while it is pending, and for notifications and responses.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub end: Option<RequestEnd>,
    /// The faults that fired for this request, as short stable labels joined by `, `
    /// (`delay 120 ms, http 503`, `expire_session`, ...); see `Fault::label`.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub fault: Option<String>,
    /// For a `tools/call`: the index, in the tool's `responses`, of the response that
    /// answered it; `None` when the tool's own template did.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub response_index: Option<usize>,
    /// For a `tools/call` on a server that validates arguments
    /// (`validate_arguments(true)`): how its `arguments` break the tool's `inputSchema`, in
    /// schema order. Empty when they conform or nothing checked them.
    ///
    /// A call whose message the log keeps truncated (see `truncated`) is checked when it
    /// arrives on any server, whether or not it validates arguments, since its whole
    /// arguments are not kept to check later:
    /// [`assert_valid_arguments`](crate::MockMcpServer::assert_valid_arguments) reads this
    /// list for such a call.
    #[serde(default, skip_serializing_if = "Vec::is_empty")]
    pub argument_errors: Vec<ArgumentError>,
    /// The log keeps a cut copy of the message or the response (or of its method or name):
    /// one larger than 8 KiB of JSON text is kept with its envelope (`jsonrpc`, `id`,
    /// `method`) and small members whole, its long strings cut to their start and their
    /// length (`"aaaa... (1048576 bytes)"`), and what did not fit named in its place
    /// (`"...": "(2 more members)"`). The client got it whole, and the server chose its
    /// response from the whole message. Left out when `false`.
    #[serde(default, skip_serializing_if = "std::ops::Not::not")]
    pub truncated: bool,
}

/// One way a `tools/call`'s `arguments` break the tool's `inputSchema`: where, and why.
///
/// # Example
/// ```
/// use mcp_decoy::log::ArgumentError;
/// use serde_json::json;
///
/// let error: ArgumentError =
///     serde_json::from_value(json!({ "pointer": "/limit", "reason": "\"5\" is not of type \"integer\"" }))
///         .expect("an ArgumentError");
/// assert_eq!(error.to_string(), r#"at /limit: "5" is not of type "integer""#);
/// ```
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "camelCase")]
#[non_exhaustive]
pub struct ArgumentError {
    /// The JSON pointer (RFC 6901) into the arguments object of the value at fault; `/` is
    /// the whole object (a missing required member is reported there).
    pub pointer: String,
    /// What the schema says is wrong, as the validator words it.
    pub reason: String,
}

impl ArgumentError {
    pub(crate) fn new(pointer: impl Into<String>, reason: impl Into<String>) -> Self {
        ArgumentError {
            pointer: pointer.into(),
            reason: reason.into(),
        }
    }
}

impl std::fmt::Display for ArgumentError {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        write!(f, "at {}: {}", self.pointer, self.reason)
    }
}

impl RpcMessage {
    /// The JSON-RPC `id`, if the message has one.
    pub fn rpc_id(&self) -> Option<&Value> {
        self.message.get("id")
    }

    /// `params` of the message, or `Value::Null`.
    pub fn params(&self) -> &Value {
        self.message.get("params").unwrap_or(&Value::Null)
    }

    /// `result` of the response, if it succeeded.
    pub fn result(&self) -> Option<&Value> {
        self.response.as_ref().and_then(|r| r.get("result"))
    }

    /// `error` of the response, if it failed.
    pub fn error(&self) -> Option<&Value> {
        self.response.as_ref().and_then(|r| r.get("error"))
    }
}
