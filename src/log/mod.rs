//! Captured traffic, public and read-only to users: the records ([`Record`]), typed queries
//! ([`Log`], and [`OAuthLog`] for the OAuth flow) and the snapshot views ([`Transcript`], and
//! [`Conversation`] for the JSON-RPC messages alone).
//! The bounded ring that holds the records (`buffer`, bounded by a record count and a byte
//! budget that `size` estimates) and the cut copies it keeps of large bodies (`clip`) are the
//! crate's own: only the engine's capture layer writes them, and users read copies of the
//! ring through `MockMcpServer::log`.

mod buffer;
mod clip;
mod conversation;
mod headers;
mod json;
pub(crate) mod mask;
mod oauth;
mod order;
mod query;
mod record;
mod ring;
pub(crate) mod size;
pub(crate) mod text;
mod transcript;

pub(crate) use buffer::{DEFAULT_LOG_BYTES, DEFAULT_LOG_LIMIT, MIN_LOG_BYTES, TrafficLog};
pub(crate) use clip::{MAX_CAPTURED_BYTES, clip_bytes, clip_json, clip_json_noting, clip_text};
pub use conversation::{Conversation, ConversationEntry};
pub(crate) use headers::CREDENTIAL_HEADERS;
pub use headers::{HeaderIter, Headers};
pub use json::Json;
#[cfg(feature = "oauth-jwt")]
pub(crate) use oauth::challenge_param;
pub use oauth::{AuthorizeRequest, Challenge, ClientAuth, OAuthLog, Registration, TokenRequest};
pub use query::{FiredFault, HttpQuery, Log, McpQuery, ToolCall};
pub(crate) use query::{MAX_DESCRIBED, bounded, describe_detailed, describe_mcp, describe_with};
pub use record::{
    ArgumentError, Direction, Entry, Era, FailureCause, HttpExchange, HttpKind, Record, RequestEnd,
    RpcKind, RpcMessage, Transport, Upstream, UpstreamFailure,
};
pub(crate) use text::{write_str, write_value};
pub use transcript::{Transcript, TranscriptEntry};
