//! Tasks: a `tools/call` answered with a task handle while the tool's script runs on the
//! server's clock, and the `tasks/*` methods that follow it.
//!
//! Two generations share one store and one driver ([`drive`]), and differ on the wire
//! ([`wire`]):
//! - 2025-11-25 experimental tasks (`basic/utilities/tasks`): the client asks with
//!   `params.task`; `tasks/get`, blocking `tasks/result` (which also carries the task's
//!   requests to the client), paginated `tasks/list`, `tasks/cancel` (`-32602` for a
//!   terminal task).
//! - The 2026-07-28 extension (`io.modelcontextprotocol/tasks`): the server decides, for a
//!   client that declares the extension in the request; `tasks/get` inlines
//!   `inputRequests`, `result` or `error`; `tasks/update` answers input requests;
//!   `tasks/cancel` is an acknowledgment.
//!
//! A task is visible only to the principal that created it, in the era that created it; any
//! other request naming it is told it does not exist.

pub(crate) mod drive;
mod result;
pub(crate) mod wire;

pub(crate) use result::result;

use std::sync::Arc;

use serde_json::{Map, Value, json};

use super::{RequestCtx, method_not_found, mrtr, pagination};
use crate::engine::Engine;
use crate::engine::protocol::jsonrpc::{RpcError, code};
use crate::engine::protocol::modern::TASKS_EXTENSION;
use crate::engine::schema;
use crate::engine::state::session::Session;
use crate::engine::state::tasks::{Task, TaskMeta, TaskStatus};
use crate::log::Era;
use crate::spec::{ProtocolVersion, Step, TaskSupport, ToolSpec};

/// A call that is to become a task, with the TTL the client asked for (2025-11-25).
#[derive(Debug, Clone, Copy)]
pub(crate) struct Wanted {
    ttl_ms: Option<u64>,
}

/// Whether the client's capabilities declare the tasks extension.
pub(crate) fn declares_extension(capabilities: &Value) -> bool {
    capabilities
        .get("extensions")
        .and_then(|extensions| extensions.get(TASKS_EXTENSION))
        .is_some()
}

/// Whether a session's calls can be tasks at all: 2025-11-25 sessions and 2026-07-28
/// requests, on a server with task tools.
fn era_serves(engine: &Engine, session: &Session) -> bool {
    let version = session.version;
    engine.serves_tasks() && (version.is_modern() || version == ProtocolVersion::V2025_11_25)
}

/// Whether a `tools/call` of `tool` with `params` in `session` becomes a task, or why it
/// cannot run at all. Decided once, when the call is resolved (`pipeline::resolve`).
pub(crate) fn wanted(
    engine: &Engine,
    session: &Session,
    params: &Value,
    tool: &ToolSpec,
) -> Result<Option<Wanted>, RpcError> {
    if !era_serves(engine, session) {
        // Receivers that do not declare tasks process the request normally, ignoring
        // `params.task` (2025-11-25 "Task Support and Handling").
        return Ok(None);
    }
    let support = tool
        .task
        .as_ref()
        .map_or(TaskSupport::Forbidden, |t| t.support);
    if session.version.is_modern() {
        // The server decides; a legacy `task` hint is tolerated and ignored (the suite's
        // tasks-dispatch-and-envelope). A required task without the extension was refused
        // at admission (-32021).
        let declared = declares_extension(session.client_capabilities());
        return Ok(
            (declared && support != TaskSupport::Forbidden).then_some(Wanted { ttl_ms: None })
        );
    }
    let requested = params.get("task").filter(|t| !t.is_null());
    let name = &tool.name;
    match (requested, support) {
        (None, TaskSupport::Required) => Err(RpcError::new(
            code::METHOD_NOT_FOUND,
            format!(
                "tools/call: tool `{name}` runs only as a task (execution.taskSupport is \"required\"): send `params.task`, e.g. {{\"ttl\": 60000}}"
            ),
        )),
        (None, _) => Ok(None),
        (Some(_), TaskSupport::Forbidden) => Err(RpcError::new(
            code::METHOD_NOT_FOUND,
            format!(
                "tools/call: tool `{name}` does not run as a task (its execution.taskSupport is \"forbidden\"): send the call without `params.task`"
            ),
        )),
        (Some(task), _) => Ok(Some(Wanted {
            ttl_ms: requested_ttl(task)?,
        })),
    }
}

/// `params.task` (spec `TaskMetadata`): an object with an optional integer `ttl`.
fn requested_ttl(task: &Value) -> Result<Option<u64>, RpcError> {
    let Some(object) = task.as_object() else {
        return Err(invalid_field(
            "task",
            format!("must be an object such as {{\"ttl\": 60000}}, got {task}"),
        ));
    };
    if let Some(key) = object.keys().find(|key| *key != "ttl") {
        return Err(invalid_field(
            &format!("task.{key}"),
            "is not a member of TaskMetadata (only `ttl`)",
        ));
    }
    match object.get("ttl") {
        None | Some(Value::Null) => Ok(None),
        Some(ttl) => ttl.as_u64().map(Some).ok_or_else(|| {
            invalid_field(
                "task.ttl",
                format!("must be a whole number of milliseconds, got {ttl}"),
            )
        }),
    }
}

/// How many leading steps of `tool`'s script run before its task exists: its leading
/// `ask`s when the tool asks first.
pub(crate) fn sync_prefix(tool: &ToolSpec) -> usize {
    if !tool.task.as_ref().is_some_and(|t| t.ask_first) {
        return 0;
    }
    tool.script
        .iter()
        .take_while(|step| matches!(step, Step::Ask { .. }))
        .count()
}

/// Creates the task of a call whose script ran up to `cursor`, and answers with its handle.
/// The task is in the store before the answer leaves, so a `tasks/get` right after it finds
/// it (2026-07-28: "MUST NOT return `CreateTaskResult` until the task is durably created").
pub(crate) fn create(
    ctx: &RequestCtx,
    tool: Arc<ToolSpec>,
    template: Value,
    (context, cursor): (Value, usize),
    wanted: Wanted,
) -> Result<Value, RpcError> {
    let spec = tool.task.clone().unwrap_or_default();
    let now = ctx.engine.now();
    // A shorter TTL than the tool's is honoured; a longer one is not (2025-11-25: "Receivers
    // MAY override the requested ttl").
    let ttl_ms = match (spec.ttl_ms, wanted.ttl_ms) {
        (Some(max), Some(asked)) => Some(asked.min(max)),
        (None, asked) => asked,
        (max, None) => max,
    };
    let modern = ctx.session.version.is_modern();
    let meta = TaskMeta {
        era: if modern { Era::Modern } else { Era::Legacy },
        principal: ctx.principal.as_ref().map(|p| p.0.clone()),
        session: (!modern).then(|| ctx.session.id.clone()),
        tool,
        template,
        created_at: now,
        ttl_ms,
        poll_interval_ms: spec.poll_interval_ms,
        faults: spec.faults,
        progress_token: ctx.progress_token().cloned(),
        capabilities: ctx.session.client_capabilities().clone(),
    };
    let task = Arc::new(Task::new(meta, context, cursor));
    ctx.engine
        .tasks
        .insert(task.clone(), now)
        .map_err(|reason| RpcError::new(code::INTERNAL_ERROR, format!("tools/call: {reason}")))?;
    drive::start_ticker(&ctx.engine);
    Ok(wire::created(&task))
}

pub(super) fn invalid_field(field: &str, reason: impl std::fmt::Display) -> RpcError {
    RpcError::invalid_params(format!("`params.{field}` {reason}"))
        .with_data(json!({ "field": field }))
}

/// The params of a `tasks/*` request: an object with only `allowed` members (and `_meta`).
pub(super) fn params<'a>(
    ctx: &'a RequestCtx,
    allowed: &[&str],
) -> Result<&'a Map<String, Value>, RpcError> {
    static EMPTY: std::sync::LazyLock<Map<String, Value>> = std::sync::LazyLock::new(Map::new);
    let params = match &ctx.params {
        Value::Null => &*EMPTY,
        Value::Object(params) => params,
        other => return Err(invalid_field("", format!("must be an object, got {other}"))),
    };
    if let Some(key) = params
        .keys()
        .find(|key| *key != "_meta" && !allowed.contains(&key.as_str()))
    {
        return Err(invalid_field(
            key,
            format!("is not a param of this method (only {allowed:?})"),
        ));
    }
    Ok(params)
}

/// The task `params.taskId` names, when this requestor can see it.
pub(super) fn find(
    ctx: &RequestCtx,
    method: &str,
    params: &Map<String, Value>,
) -> Result<Arc<Task>, RpcError> {
    let id = params
        .get("taskId")
        .and_then(Value::as_str)
        .ok_or_else(|| {
            invalid_field(
                "taskId",
                "must be a string naming a task (the `taskId` of its CreateTaskResult)",
            )
        })?;
    let era = if ctx.session.version.is_modern() {
        Era::Modern
    } else {
        Era::Legacy
    };
    let principal = ctx.principal.as_ref().map(|p| p.0.as_str());
    let not_found = || {
        RpcError::invalid_params(format!(
            "{method}: Failed to retrieve task: Task not found (`{id}`)"
        ))
        .with_data(json!({ "taskId": id }))
    };
    let task = ctx
        .engine
        .tasks
        .get(id)
        .filter(|t| t.meta.era == era && t.meta.principal.as_deref() == principal)
        .ok_or_else(not_found)?;
    if task.state().lost {
        return Err(not_found());
    }
    if task.expired(ctx.engine.now()) {
        return Err(RpcError::invalid_params(format!(
            "{method}: Failed to retrieve task: Task has expired (`{id}`, its ttl ended)"
        ))
        .with_data(json!({ "taskId": id })));
    }
    Ok(task)
}

/// `tasks/*` exist on a server with task tools, in 2025-11-25 sessions and 2026-07-28.
pub(super) fn served(ctx: &RequestCtx, method: &str) -> Result<(), RpcError> {
    if era_serves(&ctx.engine, &ctx.session) {
        Ok(())
    } else {
        Err(method_not_found(method))
    }
}

/// `tasks/get`: the task as it stands once driven to now. Polls are recorded (and the
/// task faults that count them fire here).
pub(crate) async fn get(ctx: &RequestCtx) -> Result<Value, RpcError> {
    served(ctx, "tasks/get")?;
    let task = find(ctx, "tasks/get", params(ctx, &["taskId"])?)?;
    let faults = task.meta.faults;
    let interval = task.meta.poll_interval_ms;
    {
        let mut state = task.state();
        let since = state.record_poll(ctx.engine.now());
        if faults
            .lost_after_polls
            .is_some_and(|n| state.poll_count > u64::from(n))
        {
            state.lost = true;
            drop(state);
            return Err(RpcError::invalid_params(format!(
                "tasks/get: Failed to retrieve task: Task not found (`{}`)",
                task.id
            ))
            .with_data(json!({ "taskId": task.id })));
        }
        let early = since.filter(|gap| gap.as_millis() < u128::from(interval));
        if let Some(gap) = early.filter(|_| faults.rate_limit_polls) {
            state.refused_polls = state.refused_polls.saturating_add(1);
            let wait = interval.saturating_sub(u64::try_from(gap.as_millis()).unwrap_or(u64::MAX));
            return Err(RpcError::new(
                code::INTERNAL_ERROR,
                format!(
                    "tasks/get: polled too fast: {} ms after the previous poll; pollIntervalMs is {interval}",
                    gap.as_millis()
                ),
            )
            .with_data(json!({ "taskId": task.id, "retryAfterMs": wait })));
        }
    }
    drive::drive(&ctx.engine, &task).await;
    let state = task.state();
    Ok(match task.meta.era {
        Era::Modern => wire::detailed(&task, &state),
        _ => wire::task(&task, &state),
    })
}

/// `tasks/update` (2026-07-28): answers to the task's outstanding input requests. Keys that
/// are not outstanding are ignored; an answer of the wrong shape is `-32602` naming it.
pub(crate) async fn update(ctx: &RequestCtx) -> Result<Value, RpcError> {
    if !ctx.session.version.is_modern() {
        return Err(method_not_found("tasks/update"));
    }
    served(ctx, "tasks/update")?;
    let params = params(ctx, &["taskId", "inputResponses"])?;
    let task = find(ctx, "tasks/update", params)?;
    let responses = match params.get("inputResponses") {
        Some(Value::Object(responses)) => responses,
        other => {
            return Err(invalid_field(
                "inputResponses",
                format!(
                    "must be an object of answers by inputRequests key, got {}",
                    other.map_or("nothing".to_string(), Value::to_string)
                ),
            ));
        }
    };
    {
        let state = task.state();
        for asked in &state.pending {
            let Some(answer) = responses.get(&asked.key) else {
                continue;
            };
            let kind = mrtr::answer_type(asked.method);
            let problems = schema::definition_problems(kind, answer);
            if !problems.is_empty() {
                return Err(invalid_field(
                    &format!("inputResponses.{}", asked.key),
                    format!(
                        "must be a {kind} (the answer to {}): {}",
                        asked.method.method(),
                        problems.join("; ")
                    ),
                ));
            }
        }
    }
    for (key, answer) in responses {
        answer_key(ctx, &task, key, answer.clone());
    }
    Ok(json!({}))
}

/// Records the answer to outstanding request `key`; the task works again once its round is
/// answered. An answer to no outstanding request is ignored.
pub(super) fn answer_key(ctx: &RequestCtx, task: &Task, key: &str, answer: Value) {
    drive::apply(&ctx.engine, task, |state, now| {
        let Some(slot) = state.pending.iter().position(|asked| asked.key == key) else {
            return;
        };
        state.pending.remove(slot);
        state.context["answers"][key] = answer;
        state.answered.push(key.to_string());
        if state.pending.is_empty() && state.status == TaskStatus::InputRequired {
            state.set_status(TaskStatus::Working, now);
        }
    });
}

/// `tasks/cancel`: the task is cancelled at once (unless the `ignore_cancel` fault keeps it
/// running). 2025-11-25 answers the task, and refuses a terminal one with `-32602`; 2026-07-28
/// acknowledges with an empty result, for a terminal task too.
pub(crate) async fn cancel(ctx: &RequestCtx) -> Result<Value, RpcError> {
    served(ctx, "tasks/cancel")?;
    let task = find(ctx, "tasks/cancel", params(ctx, &["taskId"])?)?;
    let modern = task.meta.era == Era::Modern;
    let status = task.state().status;
    if status.is_terminal() && !modern {
        return Err(RpcError::invalid_params(format!(
            "tasks/cancel: Cannot cancel task: already in terminal status '{}'",
            status.as_str()
        ))
        .with_data(json!({ "taskId": task.id, "status": status.as_str() })));
    }
    let honour = !task.meta.faults.ignore_cancel;
    drive::apply(&ctx.engine, &task, |state, now| {
        state.cancel_requested = true;
        if honour && !state.status.is_terminal() {
            state.pending.clear();
            state.status_message = Some("The task was cancelled by request.".into());
            state.set_status(TaskStatus::Cancelled, now);
        }
    });
    if modern {
        return Ok(json!({}));
    }
    let state = task.state();
    Ok(wire::task(&task, &state))
}

/// `tasks/list` (2025-11-25): this requestor's live tasks, paged like every list.
pub(crate) fn list(ctx: &RequestCtx) -> Result<Value, RpcError> {
    if ctx.session.version.is_modern() {
        return Err(method_not_found("tasks/list"));
    }
    served(ctx, "tasks/list")?;
    params(ctx, &["cursor"])?;
    let now = ctx.engine.now();
    let principal = ctx.principal.as_ref().map(|p| p.0.as_str());
    let items = ctx
        .engine
        .tasks
        .all()
        .into_iter()
        .filter(|t| t.meta.era == Era::Legacy && t.meta.principal.as_deref() == principal)
        .filter(|t| !t.expired(now) && !t.state().lost)
        .map(|t| wire::task(&t, &t.state()))
        .collect();
    pagination::page(ctx, "tasks/list", "tasks", items)
}
