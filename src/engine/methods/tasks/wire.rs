//! A task as each era writes it. 2025-11-25 (`basic/utilities/tasks`, "Data Types"):
//! `ttl` and `pollInterval`, a `CreateTaskResult` that wraps the task in `task`, results only
//! through `tasks/result`. The 2026-07-28 extension ("Tasks", "Task Creation"): `ttlMs` and
//! `pollIntervalMs`, a flat `CreateTaskResult` with `resultType: "task"`, and a `DetailedTask`
//! that inlines `inputRequests`, `result` or `error`.

use std::time::SystemTime;

use chrono::{DateTime, SecondsFormat, Utc};
use serde_json::{Map, Value, json};

use crate::engine::state::tasks::{Ending, Task, TaskState, TaskStatus};
use crate::log::Era;

/// The `_meta` key tying a 2025-11-25 message to its task.
pub(crate) const RELATED_TASK: &str = "io.modelcontextprotocol/related-task";

/// ISO 8601 with milliseconds, UTC.
pub(crate) fn timestamp(at: SystemTime) -> String {
    DateTime::<Utc>::from(at).to_rfc3339_opts(SecondsFormat::Millis, true)
}

/// The `Task` object: what both eras share, with each one's field names.
pub(crate) fn task(task: &Task, state: &TaskState) -> Value {
    let meta = &task.meta;
    let mut out = Map::new();
    out.insert("taskId".into(), json!(task.id));
    out.insert("status".into(), json!(state.status.as_str()));
    if let Some(message) = &state.status_message {
        out.insert("statusMessage".into(), json!(message));
    }
    out.insert("createdAt".into(), json!(timestamp(meta.created_at)));
    out.insert(
        "lastUpdatedAt".into(),
        json!(timestamp(state.last_updated_at)),
    );
    let (ttl, poll) = match meta.era {
        Era::Modern => ("ttlMs", "pollIntervalMs"),
        _ => ("ttl", "pollInterval"),
    };
    out.insert(ttl.into(), json!(meta.ttl_ms));
    out.insert(poll.into(), json!(meta.poll_interval_ms));
    Value::Object(out)
}

/// The answer of the call that created the task.
pub(crate) fn created(created: &Task) -> Value {
    let state = created.state();
    let body = task(created, &state);
    match created.meta.era {
        Era::Modern => {
            let mut flat = body;
            flat["resultType"] = json!("task");
            flat
        }
        _ => json!({ "task": body }),
    }
}

/// 2026-07-28 `DetailedTask` (the answer of `tasks/get`, the params of
/// `notifications/tasks`): the task with what its status carries inlined.
pub(crate) fn detailed(of: &Task, state: &TaskState) -> Value {
    let mut out = task(of, state);
    match (state.status, &state.ending) {
        (TaskStatus::InputRequired, _) => {
            let requests: Map<String, Value> = state
                .pending
                .iter()
                .map(|asked| {
                    // `roots/list` usually has no params; the request object still has `{}`.
                    let params = if asked.params.is_null() {
                        json!({})
                    } else {
                        asked.params.clone()
                    };
                    (
                        asked.key.clone(),
                        json!({ "method": asked.method.method(), "params": params }),
                    )
                })
                .collect();
            out["inputRequests"] = Value::Object(requests);
        }
        (TaskStatus::Completed, Some(Ending::Result(result))) => out["result"] = result.clone(),
        (TaskStatus::Failed, Some(Ending::Error(error))) => out["error"] = error.clone(),
        _ => {}
    }
    out
}

/// Adds the related-task key to `value`'s `_meta` (an object's), keeping what is there.
pub(crate) fn with_related(mut value: Value, id: &str) -> Value {
    if let Some(object) = value.as_object_mut() {
        let meta = object.entry("_meta").or_insert_with(|| json!({}));
        if let Some(meta) = meta.as_object_mut() {
            meta.insert(RELATED_TASK.into(), json!({ "taskId": id }));
        }
    }
    value
}
