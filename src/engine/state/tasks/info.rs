//! What a test (or the app) sees of a task: [`TaskInfo`], with typed reads of how the client
//! treated it (how often and how fast it polled, whether it answered and cancelled).

use std::time::{Duration, SystemTime};

use chrono::{DateTime, Utc};
use serde::{Deserialize, Serialize};
use serde_json::Value;

use super::{Ending, Task, TaskState};
use crate::log::Era;

/// The status of a task (spec `TaskStatus`).
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash, Serialize, Deserialize)]
#[serde(rename_all = "snake_case")]
#[non_exhaustive]
pub enum TaskStatus {
    /// The script is running.
    Working,
    /// An `ask` step waits for the client's answer.
    InputRequired,
    /// The script ran and the template rendered the result (2025-11-25: without `isError`).
    Completed,
    /// The script ended with a JSON-RPC error (2025-11-25: or an `isError` result).
    Failed,
    /// The client cancelled it.
    Cancelled,
}

impl TaskStatus {
    /// The wire form (`"input_required"`, ...).
    pub fn as_str(self) -> &'static str {
        match self {
            TaskStatus::Working => "working",
            TaskStatus::InputRequired => "input_required",
            TaskStatus::Completed => "completed",
            TaskStatus::Failed => "failed",
            TaskStatus::Cancelled => "cancelled",
        }
    }

    /// `completed`, `failed` and `cancelled` never change.
    pub fn is_terminal(self) -> bool {
        matches!(
            self,
            TaskStatus::Completed | TaskStatus::Failed | TaskStatus::Cancelled
        )
    }
}

/// One task of a server as the test sees it: what it is, where it stands, and what the client
/// did with it. Times are on the server's clock (which `MockMcpServer::advance_clock` moves),
/// so poll intervals mean the same whether the test sleeps or advances the clock.
///
/// # Example
/// ```
/// # #[tokio::main(flavor = "current_thread")]
/// # async fn main() {
/// use mcp_decoy::{MockMcpServer, Tool};
///
/// let server = MockMcpServer::builder().tool(Tool::new("build").task()).start().await;
/// // After the client under test ran `build` as a task:
/// for task in server.tasks() {
///     assert!(task.honoured_poll_interval(), "polled too fast: {:?}", task.poll_intervals());
/// }
/// # }
/// ```
#[derive(Debug, Clone, PartialEq, Serialize)]
#[serde(rename_all = "camelCase")]
#[non_exhaustive]
pub struct TaskInfo {
    /// The `taskId`.
    pub id: String,
    /// The tool whose call the task runs.
    pub tool: String,
    /// Which protocol era created it (2025-11-25 session, or 2026-07-28 extension).
    pub era: Era,
    /// Its status now.
    pub status: TaskStatus,
    /// Its `statusMessage`, if any.
    pub status_message: Option<String>,
    /// `createdAt`.
    pub created_at: DateTime<Utc>,
    /// `lastUpdatedAt`.
    pub last_updated_at: DateTime<Utc>,
    /// `ttlMs` (`None`: unlimited).
    pub ttl_ms: Option<u64>,
    /// `pollIntervalMs`, the interval the client was asked to keep.
    pub poll_interval_ms: u64,
    /// The TTL has passed: requests naming the task get `-32602`.
    pub expired: bool,
    /// A task fault made it disappear.
    pub lost: bool,
    /// How many times the client asked for its status (`tasks/get`).
    pub poll_count: u64,
    /// When it did, oldest first (the latest 1,000).
    pub polls: Vec<DateTime<Utc>>,
    /// Polls the `rate_limit_polls` fault refused.
    pub refused_polls: u64,
    /// The keys of every input request the task made, in order.
    pub asked: Vec<String>,
    /// The keys the client answered, in order.
    pub answered: Vec<String>,
    /// Whether the client sent `tasks/cancel` for it.
    pub cancel_requested: bool,
    /// The result it ended with, if any.
    pub result: Option<Value>,
    /// The JSON-RPC error it failed with, if any.
    pub error: Option<Value>,
}

impl TaskInfo {
    pub(super) fn of(task: &Task, state: &TaskState, now: SystemTime) -> TaskInfo {
        let (result, error) = match &state.ending {
            Some(Ending::Result(result)) => (Some(result.clone()), None),
            Some(Ending::Error(error)) => (None, Some(error.clone())),
            None => (None, None),
        };
        TaskInfo {
            id: task.id.clone(),
            tool: task.meta.tool.name.clone(),
            era: task.meta.era,
            status: state.status,
            status_message: state.status_message.clone(),
            created_at: task.meta.created_at.into(),
            last_updated_at: state.last_updated_at.into(),
            ttl_ms: task.meta.ttl_ms,
            poll_interval_ms: task.meta.poll_interval_ms,
            expired: task.expired(now),
            lost: state.lost,
            poll_count: state.poll_count,
            polls: state.polls.iter().map(|at| (*at).into()).collect(),
            refused_polls: state.refused_polls,
            asked: state.asked.clone(),
            answered: state.answered.clone(),
            cancel_requested: state.cancel_requested,
            result,
            error,
        }
    }

    /// The time between each poll and the next (one fewer than the kept polls).
    pub fn poll_intervals(&self) -> Vec<Duration> {
        self.polls
            .windows(2)
            .map(|pair| (pair[1] - pair[0]).to_std().unwrap_or_default())
            .collect()
    }

    /// Whether the client kept at least `pollIntervalMs` between polls (2026-07-28 "Clients
    /// SHOULD respect the `pollIntervalMs`"); true with fewer than two polls.
    pub fn honoured_poll_interval(&self) -> bool {
        let interval = Duration::from_millis(self.poll_interval_ms);
        self.poll_intervals().iter().all(|gap| *gap >= interval)
    }

    /// Whether the client answered every input request the task made.
    pub fn answered_every_input_request(&self) -> bool {
        self.asked.iter().all(|key| self.answered.contains(key))
    }
}
