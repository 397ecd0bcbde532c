//! What a server keeps in memory, against which budget: the figures `MockMcpServer::memory`
//! and the app's `GET /api/v1/memory` report, evictions included.

use serde::Serialize;

use super::Engine;
use super::state::pool::{PoolUse, Pools};
use crate::log::TrafficLog;
use crate::spec::Limits;

/// Everything a server keeps that grows with traffic, each part with its budget and what it
/// evicted to stay within it. In the app the capture and the two pools are shared by every
/// server, so each server reports the same figures for them.
///
/// # Example
/// ```
/// # #[tokio::main(flavor = "current_thread")]
/// # async fn main() {
/// use mcp_decoy::MockMcpServer;
///
/// let server = MockMcpServer::builder()
///     .max_retained_event_bytes(8 * 1024 * 1024)
///     .start()
///     .await;
/// let memory = server.memory();
/// assert_eq!(memory.retained_events.limit_bytes, 8 * 1024 * 1024);
/// assert_eq!(memory.retained_events.evicted, 0);
/// # }
/// ```
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize)]
#[cfg_attr(feature = "decoy-cli", derive(schemars::JsonSchema))]
#[serde(rename_all = "camelCase")]
#[non_exhaustive]
pub struct MemoryUse {
    /// The capture (the log's records).
    pub capture: CaptureUse,
    /// The live sessions and what they keep of their clients' handshakes.
    pub sessions: SessionsUse,
    /// Events sessions keep for resumption with `Last-Event-ID`.
    pub retained_events: PoolUse,
    /// Finished tasks kept for `tasks/get` and `tasks/result`.
    pub tasks: PoolUse,
}

/// The capture's figures.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize)]
#[cfg_attr(feature = "decoy-cli", derive(schemars::JsonSchema))]
#[serde(rename_all = "camelCase")]
#[non_exhaustive]
pub struct CaptureUse {
    /// The byte budget (`log_bytes`, the app's `--log-bytes`).
    pub limit_bytes: usize,
    /// Bytes the kept records take, as the budget counts them.
    pub used_bytes: usize,
    /// Records kept.
    pub records: usize,
    /// The record limit (`log_limit`, the app's `--log-limit`).
    pub record_limit: usize,
    /// Records dropped, oldest first, to stay within the two limits.
    pub evicted: u64,
}

/// The sessions' figures: this server's, or in the app every server's summed (the limits
/// apply to each server).
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize)]
#[cfg_attr(feature = "decoy-cli", derive(schemars::JsonSchema))]
#[serde(rename_all = "camelCase")]
#[non_exhaustive]
pub struct SessionsUse {
    /// Live sessions.
    pub live: usize,
    /// `max_sessions`.
    pub limit: usize,
    /// Bytes of `clientInfo` and `capabilities` the live sessions keep.
    pub handshake_bytes: usize,
    /// `max_session_bytes`.
    pub handshake_limit_bytes: usize,
    /// Sessions ended, oldest first, by one of the two limits.
    pub evicted: u64,
}

impl Engine {
    /// What the server keeps now, against its budgets.
    pub(crate) fn memory(&self) -> MemoryUse {
        MemoryUse::of(&self.log, &self.pools, self.limits, std::iter::once(self))
    }
}

impl MemoryUse {
    /// The figures of servers sharing one log and one set of pools: their sessions summed
    /// (each server has its own `limit`s).
    pub(crate) fn of<'a>(
        log: &TrafficLog,
        pools: &Pools,
        limits: Limits,
        servers: impl Iterator<Item = &'a Engine>,
    ) -> MemoryUse {
        let (records, record_limit, used_bytes, limit_bytes, evicted) = log.usage();
        let mut sessions = SessionsUse {
            live: 0,
            limit: limits.max_sessions,
            handshake_bytes: 0,
            handshake_limit_bytes: limits.max_session_bytes,
            evicted: 0,
        };
        for server in servers {
            let (live, handshake_bytes, ended) = server.sessions.usage();
            sessions.live += live;
            sessions.handshake_bytes += handshake_bytes;
            sessions.evicted += ended;
        }
        MemoryUse {
            capture: CaptureUse {
                limit_bytes,
                used_bytes,
                records,
                record_limit,
                evicted,
            },
            sessions,
            retained_events: pools.events.usage(),
            tasks: pools.tasks.usage(),
        }
    }
}
