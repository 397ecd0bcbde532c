//! The cassette file: versioned JSON, one [`Interaction`] per JSON-RPC exchange, and the
//! recorded server's handshake answers. Reading a file checks every member (an unknown one
//! is an error) and names the field at fault.

use std::path::{Path, PathBuf};

use serde::{Deserialize, Serialize};
use serde_json::Value;

use crate::error::Error;

/// The format version this crate writes and reads.
pub const CASSETTE_VERSION: u32 = 1;

/// A recorded MCP session, replayable as a fixture
/// ([`MockMcpServer::from_cassette`](crate::MockMcpServer::from_cassette)) and convertible
/// into an editable server ([`to_server_spec`](Cassette::to_server_spec)).
///
/// Get one from a capture ([`Log::to_cassette`](crate::log::Log::to_cassette)) or a file
/// ([`Cassette::load`]). The JSON Schema of the file is `schema/cassette.schema.json`.
///
/// # Example
/// ```
/// use mcp_decoy::cassette::Cassette;
///
/// let cassette = Cassette::from_json(r#"{
///   "version": 1,
///   "interactions": [{
///     "request": { "method": "tools/call", "params": { "name": "echo", "arguments": { "message": "hi" } } },
///     "response": { "result": { "content": [{ "type": "text", "text": "hi" }] } }
///   }]
/// }"#).expect("a valid cassette");
/// assert_eq!(cassette.interactions.len(), 1);
/// assert!(Cassette::from_json(r#"{ "version": 1, "tapes": [] }"#)
///     .unwrap_err()
///     .to_string()
///     .contains("tapes"));
/// ```
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
#[cfg_attr(feature = "decoy-cli", derive(schemars::JsonSchema))]
#[cfg_attr(
    feature = "decoy-cli",
    schemars(
        description = "A recorded MCP session (mcp-decoy cassette, docs/cassettes.md): the server's handshake answers and one interaction per JSON-RPC exchange."
    )
)]
#[serde(rename_all = "camelCase", deny_unknown_fields)]
#[non_exhaustive]
pub struct Cassette {
    /// The format version: `1`.
    pub version: u32,
    /// What the recorded server answered to the handshakes of each era.
    #[serde(default, skip_serializing_if = "RecordedServer::is_empty")]
    pub server: RecordedServer,
    /// The exchanges, in the order the client sent their requests.
    #[serde(default)]
    pub interactions: Vec<Interaction>,
}

/// The recorded server's answers to `initialize` (legacy era) and `server/discover`
/// (2026-07-28): its identity, capabilities and instructions.
#[derive(Debug, Clone, Default, PartialEq, Serialize, Deserialize)]
#[cfg_attr(feature = "decoy-cli", derive(schemars::JsonSchema))]
#[serde(rename_all = "camelCase", deny_unknown_fields)]
#[non_exhaustive]
pub struct RecordedServer {
    /// The `initialize` result (spec `InitializeResult`).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub initialize: Option<Value>,
    /// The `server/discover` result.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub discover: Option<Value>,
}

impl RecordedServer {
    fn is_empty(&self) -> bool {
        self.initialize.is_none() && self.discover.is_none()
    }
}

/// One JSON-RPC exchange: the client's request, what the server sent while it worked on it
/// (progress, log messages, its own requests to the client), and its response. Ids are
/// left out: the replay answers with the live request's id.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
#[cfg_attr(feature = "decoy-cli", derive(schemars::JsonSchema))]
#[serde(rename_all = "camelCase", deny_unknown_fields)]
#[non_exhaustive]
pub struct Interaction {
    /// The protocol revision the request was sent under, such as `2025-06-18`.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub protocol_version: Option<String>,
    /// The client's request.
    pub request: RecordedRequest,
    /// What the server sent before its response, in order.
    #[serde(default, skip_serializing_if = "Vec::is_empty")]
    pub messages: Vec<ServerMessage>,
    /// The server's response.
    pub response: RecordedResponse,
    /// The capture kept a cut copy of the request or the response (over 8 KiB of JSON):
    /// replaying it answers the cut copy.
    #[serde(default, skip_serializing_if = "std::ops::Not::not")]
    pub truncated: bool,
}

/// A request as the client sent it, without its id.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
#[cfg_attr(feature = "decoy-cli", derive(schemars::JsonSchema))]
#[serde(rename_all = "camelCase", deny_unknown_fields)]
#[non_exhaustive]
pub struct RecordedRequest {
    /// The JSON-RPC method, such as `tools/call`.
    pub method: String,
    /// `params`, when the request had them.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub params: Option<Value>,
}

impl RecordedRequest {
    /// `params`, or `null`.
    pub fn params(&self) -> &Value {
        self.params.as_ref().unwrap_or(&Value::Null)
    }
}

/// A JSON-RPC response without its id: a `result` or an `error` object.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
#[cfg_attr(feature = "decoy-cli", derive(schemars::JsonSchema))]
#[serde(rename_all = "camelCase", deny_unknown_fields)]
#[non_exhaustive]
pub enum RecordedResponse {
    /// `result` (any JSON object).
    Result(Value),
    /// `error`: `code`, `message` and optional `data`.
    Error(Value),
}

/// A message the server sent while it worked on a request.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
#[cfg_attr(feature = "decoy-cli", derive(schemars::JsonSchema))]
#[serde(rename_all = "camelCase", deny_unknown_fields)]
#[non_exhaustive]
pub struct ServerMessage {
    /// A notification, or a request to the client.
    pub kind: MessageKind,
    /// Its method, such as `notifications/progress` or `sampling/createMessage`.
    pub method: String,
    /// Its params, when it had them.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub params: Option<Value>,
    /// For a request: what the client answered.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub answer: Option<RecordedResponse>,
}

/// Whether a [`ServerMessage`] expects an answer.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize, Deserialize)]
#[cfg_attr(feature = "decoy-cli", derive(schemars::JsonSchema))]
#[serde(rename_all = "lowercase")]
#[non_exhaustive]
pub enum MessageKind {
    /// A notification (no id).
    Notification,
    /// A request the client answered.
    Request,
}

/// The largest cassette file read: a recording holds what a log held, and the log's default
/// budget is 256 MiB; a path to something that is no cassette is refused before it fills
/// the memory.
const MAX_CASSETTE_BYTES: u64 = 256 * 1024 * 1024;

impl Cassette {
    /// An empty cassette of the current version.
    pub fn new() -> Self {
        Cassette {
            version: CASSETTE_VERSION,
            server: RecordedServer::default(),
            interactions: Vec::new(),
        }
    }

    /// Reads a cassette file; the error names the file and the field at fault.
    pub fn load(path: impl AsRef<Path>) -> Result<Cassette, Error> {
        let path = path.as_ref();
        let io = |source| Error::Io {
            path: path.to_path_buf(),
            source,
        };
        let bytes = crate::file::read_regular(path, MAX_CASSETTE_BYTES)
            .map_err(|refused| io(refused.into()))?;
        let text = String::from_utf8(bytes)
            .map_err(|error| io(std::io::Error::new(std::io::ErrorKind::InvalidData, error)))?;
        Cassette::parse(&text, Some(path))
    }

    /// Parses a cassette from JSON text; the error names the field at fault.
    pub fn from_json(text: &str) -> Result<Cassette, Error> {
        Cassette::parse(text, None)
    }

    /// Reads a cassette from a JSON value (an inline cassette in `servers.json`).
    pub fn from_value(value: Value) -> Result<Cassette, Error> {
        let cassette = serde_path_to_error::deserialize(value)
            .map_err(|error| invalid(None, &error.path().to_string(), error.inner()))?;
        check(cassette, None)
    }

    fn parse(text: &str, path: Option<&Path>) -> Result<Cassette, Error> {
        let mut deserializer = serde_json::Deserializer::from_str(text);
        let cassette: Cassette =
            serde_path_to_error::deserialize(&mut deserializer).map_err(|error| {
                let reason = error.inner().to_string();
                if path.is_none() {
                    return invalid(path, &error.path().to_string(), &reason);
                }
                // A file's contents stay out of the error: its path may come from outside
                // (a REST call naming any file), and serde quotes the value it met, and an
                // unknown member's name ends the field path.
                let segments: Vec<_> = error.path().iter().collect();
                let known = if reason.starts_with("unknown field") {
                    &segments[..segments.len().saturating_sub(1)]
                } else {
                    &segments[..]
                };
                let field = known.iter().fold(String::new(), |mut field, segment| {
                    use serde_path_to_error::Segment;
                    match segment {
                        Segment::Seq { index } => field.push_str(&format!("[{index}]")),
                        Segment::Map { key } => {
                            if !field.is_empty() {
                                field.push('.');
                            }
                            field.push_str(key);
                        }
                        Segment::Enum { variant } => {
                            if !field.is_empty() {
                                field.push('.');
                            }
                            field.push_str(variant);
                        }
                        Segment::Unknown => field.push_str(".?"),
                    }
                    field
                });
                let field = if field.is_empty() {
                    ".".to_string()
                } else {
                    field
                };
                invalid(path, &field, &unquoted(&reason))
            })?;
        deserializer
            .end()
            .map_err(|error| invalid(path, ".", &error))?;
        check(cassette, path)
    }

    /// The file's text: pretty JSON with a final newline. The same session recorded twice
    /// gives the same text (see [`Log::to_cassette`](crate::log::Log::to_cassette)).
    pub fn to_json(&self) -> String {
        let mut text = serde_json::to_string_pretty(self).unwrap_or_default();
        text.push('\n');
        text
    }

    /// Writes the cassette to `path` (see [`to_json`](Self::to_json)).
    pub fn save(&self, path: impl AsRef<Path>) -> Result<(), Error> {
        let path = path.as_ref();
        std::fs::write(path, self.to_json()).map_err(|source| Error::Io {
            path: path.to_path_buf(),
            source,
        })
    }

    /// The recorded `serverInfo`: from the `initialize` result, else from the
    /// `server/discover` result's `_meta`.
    pub fn server_info(&self) -> Option<&Value> {
        let from_initialize = self.server.initialize.as_ref();
        from_initialize
            .and_then(|i| i.get("serverInfo"))
            .or_else(|| {
                self.server
                    .discover
                    .as_ref()?
                    .get("_meta")?
                    .get("io.modelcontextprotocol/serverInfo")
            })
    }
}

impl Default for Cassette {
    fn default() -> Self {
        Cassette::new()
    }
}

/// A serde error without the text it quotes from the input (`invalid type: string "…"`,
/// ``unknown variant `…` ``): what follows `, expected ` comes from the format and stays.
fn unquoted(reason: &str) -> String {
    let (met, expected) = match reason.split_once(", expected ") {
        Some((met, expected)) => (met, Some(expected)),
        None => (reason, None),
    };
    let mut out = String::with_capacity(met.len());
    let mut quote: Option<char> = None;
    for c in met.chars() {
        match quote {
            Some(open) if c == open => {
                out.push_str("(…)");
                out.push(c);
                quote = None;
            }
            Some(_) => {}
            None => {
                out.push(c);
                if c == '"' || c == '`' {
                    quote = Some(c);
                }
            }
        }
    }
    if quote.is_some() {
        out.push_str("(…)");
    }
    match expected {
        Some(expected) => format!("{out}, expected {expected}"),
        None => out,
    }
}

fn invalid(path: Option<&Path>, field: &str, reason: &dyn std::fmt::Display) -> Error {
    Error::Cassette {
        path: path.map(PathBuf::from),
        field: field.to_string(),
        reason: reason.to_string(),
    }
}

/// What serde cannot say: the version, and the shape of params and responses.
fn check(cassette: Cassette, path: Option<&Path>) -> Result<Cassette, Error> {
    if cassette.version != CASSETTE_VERSION {
        return Err(invalid(
            path,
            "version",
            &format!(
                "is {}; this mcp-decoy reads cassettes of version {CASSETTE_VERSION}",
                cassette.version
            ),
        ));
    }
    for (n, interaction) in cassette.interactions.iter().enumerate() {
        let at = |field: &str| format!("interactions[{n}].{field}");
        if interaction.request.method.is_empty() {
            return Err(invalid(path, &at("request.method"), &"is empty"));
        }
        if let Some(params) = &interaction.request.params
            && !(params.is_object() || params.is_array())
        {
            return Err(invalid(
                path,
                &at("request.params"),
                &"must be an object or an array",
            ));
        }
        match &interaction.response {
            RecordedResponse::Result(result) if !result.is_object() => {
                return Err(invalid(path, &at("response.result"), &"must be an object"));
            }
            RecordedResponse::Error(error) if !error_shape(error) => {
                return Err(invalid(
                    path,
                    &at("response.error"),
                    &"must be an object with an integer `code` and a string `message`",
                ));
            }
            _ => {}
        }
        for (m, message) in interaction.messages.iter().enumerate() {
            if message.method.is_empty() {
                return Err(invalid(
                    path,
                    &at(&format!("messages[{m}].method")),
                    &"is empty",
                ));
            }
        }
    }
    for (field, value) in [
        ("server.initialize", &cassette.server.initialize),
        ("server.discover", &cassette.server.discover),
    ] {
        if value.as_ref().is_some_and(|v| !v.is_object()) {
            return Err(invalid(path, field, &"must be an object"));
        }
    }
    Ok(cassette)
}

fn error_shape(error: &Value) -> bool {
    error.get("code").is_some_and(Value::is_i64)
        && error.get("message").is_some_and(Value::is_string)
}
