//! How a server behaves as a process on stdio: what a client that spawns it meets before
//! the first message and after its last. Per-message misbehaviour on stdio is a
//! [`Fault`](super::Fault) like any other (`Exit`, `SplitMessage`, `StderrFlood`).

use serde::{Deserialize, Serialize};

/// The longest start delay, in milliseconds: a slow start, not a dead one.
pub(crate) const MAX_START_DELAY_MS: u64 = 600_000;

/// The process-level behaviour of a server served over stdio (the app's
/// `mcp-decoy stdio NAME`, and a fixture's
/// [`stdio_command`](crate::MockMcpServer::stdio_command)); over HTTP it has no effect.
/// The default is a well-behaved server: it reads at once and exits when stdin closes.
///
/// The builder sets it with `stdio_start_delay`, `stdio_ignore_eof` and
/// `stdio_ignore_sigterm`; `servers.json` with a server's `stdio` member.
///
/// # Example
/// ```
/// use mcp_decoy::spec::StdioSpec;
///
/// let spec: StdioSpec = serde_json::from_str(r#"{ "ignoreEof": true }"#).unwrap();
/// assert!(spec.ignore_eof && !spec.ignore_sigterm && spec.start_delay_ms == 0);
/// ```
#[derive(Debug, Clone, Copy, Default, PartialEq, Eq, Serialize, Deserialize)]
#[cfg_attr(feature = "decoy-cli", derive(schemars::JsonSchema))]
#[serde(rename_all = "camelCase", deny_unknown_fields)]
#[non_exhaustive]
pub struct StdioSpec {
    /// Milliseconds before the server reads its first line (a slow start); at most 600,000.
    #[serde(default, skip_serializing_if = "is_zero")]
    pub start_delay_ms: u64,
    /// Keep running after stdin closes, so the client must escalate to `SIGTERM` (the
    /// shutdown sequence of the stdio transport).
    #[serde(default, skip_serializing_if = "std::ops::Not::not")]
    pub ignore_eof: bool,
    /// Ignore `SIGTERM` as well, so only `SIGKILL` stops the process (Unix).
    #[serde(default, skip_serializing_if = "std::ops::Not::not")]
    pub ignore_sigterm: bool,
}

fn is_zero(n: &u64) -> bool {
    *n == 0
}

impl StdioSpec {
    /// Whether this is the default, well-behaved process (`servers.json` leaves it out).
    pub fn is_default(&self) -> bool {
        *self == StdioSpec::default()
    }
}
