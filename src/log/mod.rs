//! Captured traffic, public and read-only to users: the records ([`Record`]), typed queries
//! ([`Log`], and [`OAuthLog`] for the OAuth flow) and the snapshot view ([`Transcript`]).
//! The bounded ring that holds the records (`buffer`) is the crate's own: only the engine's
//! capture layer writes it, and users read copies of it through `MockMcpServer::log`.

mod buffer;
mod oauth;
mod order;
mod query;
mod record;
mod transcript;

pub(crate) use buffer::{DEFAULT_LOG_LIMIT, TrafficLog};
pub use oauth::{AuthorizeRequest, Challenge, ClientAuth, OAuthLog, Registration, TokenRequest};
pub use query::{FiredFault, HttpQuery, Log, McpQuery, ToolCall};
pub(crate) use query::{MAX_DESCRIBED, bounded, describe_detailed, describe_mcp, describe_with};
pub use record::{
    ArgumentError, Direction, Entry, Era, HttpExchange, HttpKind, Record, RpcKind, RpcMessage,
    Transport,
};
pub use transcript::{Transcript, TranscriptEntry};
