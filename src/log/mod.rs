//! Captured traffic, public and read-only to users: the records ([`Record`]), the bounded
//! ring that holds them ([`TrafficLog`]), typed queries ([`Log`]) and the snapshot view
//! ([`Transcript`]). Only the engine's capture layer writes here.

mod buffer;
mod oauth;
mod query;
mod record;
mod transcript;

pub(crate) use buffer::{DEFAULT_LOG_LIMIT, TrafficLog};
pub use oauth::{AuthorizeRequest, Challenge, ClientAuth, OAuthLog, Registration, TokenRequest};
pub(crate) use query::describe_mcp;
pub use query::{FiredFault, HttpQuery, Log, McpQuery, ToolCall};
pub use record::{Direction, Entry, Era, HttpExchange, HttpKind, Record, RpcKind, RpcMessage};
pub use transcript::{Transcript, TranscriptEntry};
