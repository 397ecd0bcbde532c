//! How a tool runs as a task: the 2025-11-25 experimental tasks (`basic/utilities/tasks`)
//! and the 2026-07-28 tasks extension (`io.modelcontextprotocol/tasks`). A task runs the
//! tool's script on the server's clock; these settings say when a call becomes one, how long
//! it lives and how it misbehaves.

use serde::{Deserialize, Serialize};

/// Whether a tool's calls may, or must, run as tasks (2025-11-25 `execution.taskSupport`).
#[derive(Debug, Clone, Copy, Default, PartialEq, Eq, Serialize, Deserialize)]
#[cfg_attr(feature = "decoy-cli", derive(schemars::JsonSchema))]
#[serde(rename_all = "lowercase")]
#[non_exhaustive]
pub enum TaskSupport {
    /// Never a task: a 2025-11-25 call with `params.task` gets `-32601`, and a 2026-07-28
    /// call always runs synchronously.
    Forbidden,
    /// A task when the client asks for one (2025-11-25 `params.task`) or declares the
    /// extension (2026-07-28); otherwise a plain call.
    #[default]
    Optional,
    /// Always a task: a 2025-11-25 call without `params.task` gets `-32601`, a 2026-07-28
    /// call whose client did not declare the extension gets `-32021`.
    Required,
}

impl TaskSupport {
    /// The wire form (`"optional"`, ...).
    pub fn as_str(self) -> &'static str {
        match self {
            TaskSupport::Forbidden => "forbidden",
            TaskSupport::Optional => "optional",
            TaskSupport::Required => "required",
        }
    }
}

/// What goes wrong with a tool's tasks, to test how a client copes.
#[derive(Debug, Clone, Copy, Default, PartialEq, Eq, Serialize, Deserialize)]
#[cfg_attr(feature = "decoy-cli", derive(schemars::JsonSchema))]
#[serde(rename_all = "camelCase", deny_unknown_fields)]
pub struct TaskFaults {
    /// A `tasks/get` sooner than `pollIntervalMs` after the previous one (on the server's
    /// clock) is refused with `-32603` and `data.retryAfterMs` (2026-07-28: "Servers MAY
    /// rate-limit clients polling more frequently").
    #[serde(default, skip_serializing_if = "std::ops::Not::not")]
    pub rate_limit_polls: bool,
    /// The task never reaches a terminal status on its own: once its script has run, it
    /// stays `working` until it is cancelled or its TTL ends.
    #[serde(default, skip_serializing_if = "std::ops::Not::not")]
    pub never_finish: bool,
    /// After this many `tasks/get` polls the task is gone: every later request naming it
    /// gets `-32602`, as for a task the server never had.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub lost_after_polls: Option<u32>,
    /// `tasks/cancel` is acknowledged (2025-11-25: the task is returned as it is) but the
    /// task keeps running to its own end: cancellation is cooperative (2026-07-28).
    #[serde(default, skip_serializing_if = "std::ops::Not::not")]
    pub ignore_cancel: bool,
}

impl TaskFaults {
    pub(crate) fn is_default(&self) -> bool {
        *self == TaskFaults::default()
    }
}

fn default_ttl() -> Option<u64> {
    Some(DEFAULT_TASK_TTL_MS)
}

fn default_poll_interval() -> u64 {
    DEFAULT_POLL_INTERVAL_MS
}

/// The TTL of a task when its tool sets none: one minute.
pub const DEFAULT_TASK_TTL_MS: u64 = 60_000;
/// The suggested poll interval of a task when its tool sets none: one second.
pub const DEFAULT_POLL_INTERVAL_MS: u64 = 1_000;
/// The longest TTL and poll interval a tool may set: one day.
pub const MAX_TASK_MS: u64 = 86_400_000;

/// How a tool's calls run as tasks. The task runs the tool's script (progress, log,
/// delay, wait, ask, notify, fail) on the server's clock, so
/// `MockMcpServer::advance_clock` moves it on without sleeping; `ask` steps put it in
/// `input_required`, and the template renders its result once the script has run.
///
/// # Example
/// ```
/// use mcp_decoy::spec::{TaskSpec, TaskSupport};
/// use serde_json::json;
///
/// let spec: TaskSpec = serde_json::from_value(json!({
///     "support": "required", "ttlMs": 30000, "pollIntervalMs": 500
/// }))
/// .unwrap();
/// assert_eq!(spec.support, TaskSupport::Required);
/// assert_eq!(spec.ttl_ms, Some(30_000));
/// ```
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
#[cfg_attr(feature = "decoy-cli", derive(schemars::JsonSchema))]
#[serde(rename_all = "camelCase", deny_unknown_fields)]
pub struct TaskSpec {
    /// Whether calls may or must be tasks.
    #[serde(default)]
    pub support: TaskSupport,
    /// How long a task lives from its creation, in milliseconds (at most one day); `null`
    /// for unlimited. A 2025-11-25 client's shorter `params.task.ttl` is honoured. After it,
    /// requests naming the task get `-32602` ("Task has expired").
    #[serde(default = "default_ttl")]
    pub ttl_ms: Option<u64>,
    /// The `pollIntervalMs` (2025-11-25 `pollInterval`) suggested to clients, 1 ms to one day.
    #[serde(default = "default_poll_interval")]
    pub poll_interval_ms: u64,
    /// The script's leading `ask` steps are answered before the task is created (2026-07-28
    /// multi round-trip rounds, server requests in a 2025-11-25 session), as the extension
    /// recommends for input a server needs to decide on the task; the rest of the script
    /// runs in the task.
    #[serde(default, skip_serializing_if = "std::ops::Not::not")]
    pub ask_first: bool,
    /// What goes wrong.
    #[serde(default, skip_serializing_if = "TaskFaults::is_default")]
    pub faults: TaskFaults,
}

impl Default for TaskSpec {
    fn default() -> Self {
        TaskSpec {
            support: TaskSupport::Optional,
            ttl_ms: default_ttl(),
            poll_interval_ms: default_poll_interval(),
            ask_first: false,
            faults: TaskFaults::default(),
        }
    }
}

impl TaskSpec {
    /// Tasks with this support and the default TTL and poll interval.
    pub fn new(support: TaskSupport) -> Self {
        TaskSpec {
            support,
            ..TaskSpec::default()
        }
    }

    /// Whether a call of the tool can be a task at all.
    pub(crate) fn allows_tasks(&self) -> bool {
        self.support != TaskSupport::Forbidden
    }
}
