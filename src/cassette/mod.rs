//! Cassettes: a captured MCP session saved as a file, replayed as a fixture, or turned into
//! an editable server.
//!
//! - **Record**: [`Log::to_cassette`](crate::log::Log::to_cassette) turns a capture (of a
//!   mock, or of a relay to a real server) into a [`Cassette`]: one [`Interaction`] per
//!   JSON-RPC exchange, secrets redacted, volatile values normalised so the same session
//!   recorded twice gives the same file; [`Cassette::save`] writes it.
//! - **Replay**: [`MockMcpServer::from_cassette`](crate::MockMcpServer::from_cassette)
//!   answers as the recorded server did, matching requests by method and params
//!   ([`Matching`]); a request that matches nothing gets a JSON-RPC error, and the fixture's
//!   drop reports it with the nearest recorded interaction and where the two differ.
//! - **Edit**: [`Cassette::to_server_spec`] makes a `servers.json` server of it.
//!
//! The format is versioned JSON ([`CASSETTE_VERSION`]); its JSON Schema ships as
//! `schema/cassette.schema.json`, and `docs/cassettes.md` describes it member by member.
//!
//! Layout: `format` (the file), `normalise` (labels and redaction), `record` (a log
//! becomes a cassette), `matching` (a request finds its interaction), `replay` (the state
//! the engine asks), `convert` (a cassette becomes a server).

mod convert;
mod format;
mod matching;
mod normalise;
mod record;
mod replay;

pub use format::{
    CASSETTE_VERSION, Cassette, Interaction, MessageKind, RecordedRequest, RecordedResponse,
    RecordedServer, ServerMessage,
};
pub use matching::{Matching, Order};
pub(crate) use replay::{Played, Player};

/// The JSON Schema of a cassette file, generated from the serde types (shipped as
/// `schema/cassette.schema.json`; a test keeps the two equal).
#[cfg(feature = "decoy-cli")]
pub fn json_schema() -> serde_json::Value {
    serde_json::to_value(schemars::schema_for!(Cassette)).unwrap_or(serde_json::Value::Null)
}
