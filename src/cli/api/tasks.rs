//! `/servers/{server}/tasks` and `/servers/{server}/clock`: a server's tasks as the client
//! left them (status, polls and their intervals, answers, cancellation), and moving the
//! server's clock forward so a task's delays and TTL pass without waiting.
//!
//! Must not touch: engine fields (tasks and the clock are reached through `live.rs`).

use std::sync::Arc;
use std::time::Duration;

use axum::Json;
use axum::extract::{Path, State};
use chrono::{DateTime, Utc};
use serde::{Deserialize, Serialize};
use serde_json::Value;

use super::ApiError;
use super::body::JsonBody;
use super::live;
use super::openapi::{Docs, Operation, Route, Verb};
use super::support::hosted;
use crate::TaskInfo;
use crate::cli::App;

/// The longest the clock moves in one request: a day, the longest TTL a task can have.
const MAX_ADVANCE_MS: u64 = 86_400_000;

/// One task of a server.
#[derive(Debug, Serialize, Deserialize, schemars::JsonSchema)]
#[serde(rename_all = "camelCase")]
pub(crate) struct Task {
    /// The `taskId`.
    pub(crate) id: String,
    /// The tool whose call it runs.
    pub(crate) tool: String,
    /// `legacy` (a 2025-11-25 session's `params.task`) or `modern` (the 2026-07-28
    /// extension).
    pub(crate) era: String,
    /// `working`, `input_required`, `completed`, `failed` or `cancelled`.
    pub(crate) status: String,
    /// Its `statusMessage`.
    pub(crate) status_message: Option<String>,
    /// `createdAt` on the server's clock (RFC 3339).
    #[schemars(with = "String")]
    pub(crate) created_at: DateTime<Utc>,
    /// `ttlMs`; `null` for unlimited.
    pub(crate) ttl_ms: Option<u64>,
    /// `pollIntervalMs`.
    pub(crate) poll_interval_ms: u64,
    /// The TTL has passed.
    pub(crate) expired: bool,
    /// A task fault made it disappear for the client.
    pub(crate) lost: bool,
    /// How many `tasks/get` polls it had.
    pub(crate) poll_count: u64,
    /// Milliseconds between one poll and the next (the latest 1,000 polls).
    pub(crate) poll_intervals_ms: Vec<u64>,
    /// Whether every interval was at least `pollIntervalMs`.
    pub(crate) honoured_poll_interval: bool,
    /// Polls refused by the `rateLimitPolls` fault.
    pub(crate) refused_polls: u64,
    /// Input request keys it asked, in order.
    pub(crate) asked: Vec<String>,
    /// The keys the client answered, in order.
    pub(crate) answered: Vec<String>,
    /// Whether the client sent `tasks/cancel`.
    pub(crate) cancel_requested: bool,
    /// The result it ended with.
    pub(crate) result: Option<Value>,
    /// The JSON-RPC error it failed with.
    pub(crate) error: Option<Value>,
}

impl From<TaskInfo> for Task {
    fn from(info: TaskInfo) -> Self {
        let intervals = info
            .poll_intervals()
            .iter()
            .map(|gap| u64::try_from(gap.as_millis()).unwrap_or(u64::MAX))
            .collect();
        let honoured = info.honoured_poll_interval();
        let status = info.status.as_str();
        Task {
            id: info.id,
            tool: info.tool,
            era: serde_json::to_value(info.era)
                .ok()
                .and_then(|v| v.as_str().map(str::to_string))
                .unwrap_or_default(),
            status: status.into(),
            status_message: info.status_message,
            created_at: info.created_at,
            ttl_ms: info.ttl_ms,
            poll_interval_ms: info.poll_interval_ms,
            expired: info.expired,
            lost: info.lost,
            poll_count: info.poll_count,
            poll_intervals_ms: intervals,
            honoured_poll_interval: honoured,
            refused_polls: info.refused_polls,
            asked: info.asked,
            answered: info.answered,
            cancel_requested: info.cancel_requested,
            result: info.result,
            error: info.error,
        }
    }
}

/// How far to move a server's clock.
#[derive(Debug, Deserialize, schemars::JsonSchema)]
#[serde(rename_all = "camelCase", deny_unknown_fields)]
pub(crate) struct Advance {
    /// Milliseconds, 1 to 86,400,000 (a day).
    pub(crate) advance_ms: u64,
}

/// The server's clock after a move.
#[derive(Debug, Serialize, Deserialize, schemars::JsonSchema)]
#[serde(rename_all = "camelCase")]
pub(crate) struct Clock {
    /// The server's time now (RFC 3339).
    #[schemars(with = "String")]
    pub(crate) now: DateTime<Utc>,
}

pub(crate) fn routes(docs: &mut Docs) -> Vec<Route> {
    vec![
        Operation::new(
            Verb::Get,
            "/servers/{server}/tasks",
            "listTasks",
            "List a server's tasks, oldest first.",
        )
        .describe(
            "Live, finished, expired and lost tasks alike (the server keeps at most 1,000; the \
             oldest finished ones go first). Each says how the client treated it: its polls \
             and their intervals on the server's clock, the input requests it answered, \
             whether it cancelled.",
        )
        .reply(200, docs.schema::<Vec<Task>>())
        .errors(&[404])
        .to(list),
        Operation::new(
            Verb::Get,
            "/servers/{server}/tasks/{task}",
            "getTask",
            "Read one task by its taskId.",
        )
        .reply(200, docs.schema::<Task>())
        .errors(&[404])
        .to(one),
        Operation::new(
            Verb::Post,
            "/servers/{server}/clock",
            "advanceClock",
            "Move a server's clock forward.",
        )
        .describe(
            "What the server times (task delays and TTLs, session expiry, token lifetimes) \
             moves on without waiting: a task's next `tasks/get` sees its script as far as the \
             new time allows. Time only moves forward, at most a day per request.",
        )
        .body(docs.schema::<Advance>())
        .reply(200, docs.schema::<Clock>())
        .errors(&[400, 404])
        .to(advance),
    ]
}

async fn list(
    State(app): State<Arc<App>>,
    Path(server): Path<String>,
) -> Result<Json<Vec<Task>>, ApiError> {
    let hosted = hosted(&app, &server)?;
    Ok(Json(
        live::tasks(&hosted).into_iter().map(Task::from).collect(),
    ))
}

async fn one(
    State(app): State<Arc<App>>,
    Path((server, task)): Path<(String, String)>,
) -> Result<Json<Task>, ApiError> {
    let hosted = hosted(&app, &server)?;
    live::tasks(&hosted)
        .into_iter()
        .find(|info| info.id == task)
        .map(|info| Json(Task::from(info)))
        .ok_or_else(|| {
            ApiError::not_found(format!("server `{server}` has no task `{task}`")).field("task")
        })
}

async fn advance(
    State(app): State<Arc<App>>,
    Path(server): Path<String>,
    JsonBody(body): JsonBody<Advance>,
) -> Result<Json<Clock>, ApiError> {
    let hosted = hosted(&app, &server)?;
    if body.advance_ms == 0 || body.advance_ms > MAX_ADVANCE_MS {
        return Err(ApiError::bad_request(
            "advanceMs",
            format!(
                "`advanceMs` is {}; it must be 1 to {MAX_ADVANCE_MS} milliseconds",
                body.advance_ms
            ),
        ));
    }
    let now = live::advance_clock(&hosted, Duration::from_millis(body.advance_ms));
    Ok(Json(Clock { now: now.into() }))
}
