//! How a task's script advances: on the server's clock, one step after another, whenever
//! someone looks at the task (a `tasks/get`, a `tasks/result` that waits, the background
//! ticker). A `delay` or `wait` step parks the task until its time on the server's clock
//! (so `advance_clock` moves it on at once, and a `tasks/get` right after sees the new state:
//! every reader drives before it reads); an `ask` round parks it in `input_required` until the
//! client answers; the end of the script renders the template and ends it.
//!
//! Status changes are announced: 2025-11-25 `notifications/tasks/status` on the creating
//! session's GET stream, 2026-07-28 `notifications/tasks` on the listen streams that named
//! the task.

use std::sync::{Arc, Weak};
use std::time::{Duration, SystemTime};

use serde_json::{Value, json};

use super::wire;
use crate::engine::Engine;
use crate::engine::methods::discover;
use crate::engine::methods::script::{self, Stop};
use crate::engine::protocol::jsonrpc;
use crate::engine::state::tasks::{Asked, Ending, Task, TaskState, TaskStatus};
use crate::engine::template::{self, Rendered};
use crate::log::Era;
use crate::spec::Step;

/// Where a task stopped advancing.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub(crate) enum Parked {
    /// A delay ends at this time (server clock).
    Due(SystemTime),
    /// An `ask` round waits for the client, or (a fault) the task never finishes.
    Waiting,
    /// Ended, lost or expired: it will not change again.
    Done,
}

/// Changes a task's state with the server's time, then announces a new status.
pub(crate) fn apply(engine: &Engine, task: &Task, change: impl FnOnce(&mut TaskState, SystemTime)) {
    let now = engine.now();
    change(&mut task.state(), now);
    // A task that just finished is charged to the pool of finished tasks.
    engine.tasks.finished(task);
    announce(engine, task);
}

/// Sends the status notification of a task whose status changed since the last one, and
/// wakes whoever waits on tasks.
pub(crate) fn announce(engine: &Engine, task: &Task) {
    let message = {
        let mut state = task.state();
        if state.status == state.announced {
            None
        } else {
            state.announced = state.status;
            Some(match task.meta.era {
                Era::Modern => wire::detailed(task, &state),
                _ => wire::task(task, &state),
            })
        }
    };
    engine.tasks.poke();
    let Some(params) = message else {
        return;
    };
    match task.meta.era {
        Era::Modern => engine.listeners.task_changed(&task.id, params),
        _ => {
            // 2025-11-25: the notification carries the task, without related-task `_meta`
            // ("Task Notifications").
            let session = task.meta.session.as_deref();
            if let Some(session) = session.and_then(|id| engine.sessions.get(id)) {
                session.send(jsonrpc::notification(
                    "notifications/tasks/status",
                    Some(params),
                ));
            }
        }
    }
}

/// Advances `task` as far as the server's clock and the client's answers allow.
pub(crate) async fn drive(engine: &Arc<Engine>, task: &Arc<Task>) -> Parked {
    let _turn = task.driving.lock().await;
    let steps = &task.meta.tool.script;
    // Every pass moves the cursor or parks, so a script ends within its length.
    for _ in 0..=steps.len().saturating_add(1) {
        let now = engine.now();
        let (cursor, context, reached_at) = {
            let state = task.state();
            if state.status.is_terminal() || state.lost || task.expired(now) {
                return Parked::Done;
            }
            if !state.pending.is_empty() {
                return Parked::Waiting;
            }
            (state.cursor, state.context.clone(), state.reached_at)
        };
        let Some(step) = steps.get(cursor) else {
            if task.meta.faults.never_finish {
                return Parked::Waiting;
            }
            finish(engine, task, &context).await;
            continue;
        };
        let moved = match step {
            Step::Delay { ms } => wait(task, cursor, reached_at, *ms, now),
            Step::Wait { ms } => match script::wait_ms(cursor, ms, &context).await {
                Ok(ms) => wait(task, cursor, reached_at, ms, now),
                Err(stop) => Err(stop),
            },
            Step::Ask { .. } => match gather(task, cursor, &context).await {
                Ok(None) => Ok(None),
                Ok(Some(round)) => {
                    apply(engine, task, |state, now| {
                        state.asked.extend(round.iter().map(|a| a.key.clone()));
                        state.pending = round;
                        state.set_status(TaskStatus::InputRequired, now);
                    });
                    return Parked::Waiting;
                }
                Err(stop) => Err(stop),
            },
            other => run_instant(engine, task, cursor, other, &context).await,
        };
        match moved {
            Ok(Some(due)) => return Parked::Due(due),
            Ok(None) => {}
            Err(stop) => stopped(engine, task, stop),
        }
    }
    Parked::Waiting
}

/// A `delay` of `ms` from when the script reached it: parked until then, or past it.
fn wait(
    task: &Task,
    cursor: usize,
    reached_at: SystemTime,
    ms: u64,
    now: SystemTime,
) -> Result<Option<SystemTime>, Stop> {
    let due = reached_at + Duration::from_millis(ms);
    if now < due {
        return Ok(Some(due));
    }
    // The next step starts when this one was due, not when someone looked: a late poll
    // does not stretch the script.
    let mut state = task.state();
    state.cursor = cursor + 1;
    state.reached_at = due;
    Ok(None)
}

/// Runs a step that takes no time (progress, log, notify, fail) and moves past it.
async fn run_instant(
    engine: &Arc<Engine>,
    task: &Task,
    n: usize,
    step: &Step,
    context: &Value,
) -> Result<Option<SystemTime>, Stop> {
    let meta = &task.meta;
    let legacy = meta.era != Era::Modern;
    // 2026-07-28 has no stream left to the client once the task exists: progress and logs
    // reach it only through the task's `statusMessage`.
    let session = meta
        .session
        .as_deref()
        .and_then(|id| engine.sessions.get(id))
        .filter(|_| legacy);
    match step {
        Step::Progress {
            progress,
            total,
            message,
        } => {
            let shape = (*progress, *total, message.as_ref());
            let token = meta.progress_token.as_ref();
            let params = script::progress_params(n, token, shape, context).await?;
            if let Some(message) = message {
                // The notification's message when there is one, so it renders once.
                let text = match params.as_ref().and_then(|p| p.get("message")) {
                    Some(rendered) => rendered.clone(),
                    None => script::render_step(n, &json!(message), context).await?,
                };
                task.state().status_message = Some(match text {
                    Value::String(text) => text,
                    other => other.to_string(),
                });
            }
            if let (Some(session), Some(params)) = (&session, params) {
                let params = wire::with_related(params, &task.id);
                session.send(jsonrpc::notification(
                    "notifications/progress",
                    Some(params),
                ));
            }
        }
        Step::Log {
            level,
            logger,
            data,
        } => {
            if let Some(session) = session.filter(|s| s.logs_at(*level)) {
                let data = script::render_step(n, data, context).await?;
                let mut params = json!({ "level": level, "data": data });
                if let Some(logger) = logger {
                    params["logger"] = script::render_step(n, &json!(logger), context).await?;
                }
                let params = wire::with_related(params, &task.id);
                session.send(jsonrpc::notification("notifications/message", Some(params)));
            }
        }
        Step::Notify { listing } => script::notify(engine, *listing),
        Step::Fail {
            code,
            message,
            data,
        } => {
            let error = script::failure(n, (*code, message, data.as_ref()), context).await?;
            return Err(Stop::Failed(error));
        }
        // Timed and asking steps are the caller's.
        Step::Delay { .. } | Step::Wait { .. } | Step::Ask { .. } => {}
    }
    task.state().cursor = n + 1;
    Ok(None)
}

/// The round of `ask`s starting at `cursor` that the client has yet to answer; `None` when
/// every one is answered (or skipped), and then the cursor moves past the round.
async fn gather(task: &Task, cursor: usize, context: &Value) -> Result<Option<Vec<Asked>>, Stop> {
    let steps = &task.meta.tool.script;
    let mut round: Vec<Asked> = Vec::new();
    let mut end = cursor;
    for (n, step) in steps.iter().enumerate().skip(cursor) {
        let Step::Ask {
            key,
            method,
            params,
            timeout_ms,
            optional,
        } = step
        else {
            break;
        };
        // A key is asked once in a task's life (2026-07-28 "Task Update Requests").
        if context["answers"].get(key).is_some() || round.iter().any(|a| &a.key == key) {
            end = n + 1;
            continue;
        }
        let params = match template::render_value(params, context).await {
            Ok(params) => params,
            // Params that read an answer of this same round: ask for that round first.
            Err(_) if !round.is_empty() => break,
            Err(e) => return Err(Stop::Render(format!("script step {n}: {e}"))),
        };
        if let Err(problem) = script::missing_capability(&task.meta.capabilities, *method, &params)
        {
            if *optional {
                end = n + 1;
                continue;
            }
            return Err(Stop::Client(problem));
        }
        end = n + 1;
        round.push(Asked {
            key: key.clone(),
            method: *method,
            params,
            timeout_ms: *timeout_ms,
            sent: false,
        });
    }
    if round.is_empty() {
        task.state().cursor = end;
        return Ok(None);
    }
    Ok(Some(round))
}

/// The end of the script: the template renders the result.
async fn finish(engine: &Arc<Engine>, task: &Task, context: &Value) {
    let validator = engine.output_validator(&task.meta.tool);
    let Rendered { result, .. } =
        template::render(&task.meta.template, context, validator.as_deref()).await;
    complete(engine, task, result);
}

/// Ends the task with a `CallToolResult`: `completed` in 2026-07-28 whatever its `isError`
/// (the extension keeps `failed` for JSON-RPC errors), `failed` for an `isError` result in
/// 2025-11-25 ("Task Status": "this includes cases where the tool call result has `isError`
/// set to true").
fn complete(engine: &Engine, task: &Task, result: Value) {
    let is_error = result.get("isError") == Some(&Value::Bool(true));
    let (status, result) = match task.meta.era {
        Era::Modern => (
            TaskStatus::Completed,
            discover::finish_result(engine, "tools/call", result),
        ),
        _ if is_error => (TaskStatus::Failed, result),
        _ => (TaskStatus::Completed, result),
    };
    apply(engine, task, |state, now| {
        state.end(status, Ending::Result(result), now);
    });
}

/// The client refused, or did not answer in time, a request the task sent it (2025-11-25):
/// the task ends as a plain call whose script stopped.
pub(crate) fn client_failed(engine: &Engine, task: &Task, problem: &str) {
    complete(engine, task, script::script_failure(problem));
}

/// A step that could not run ends the task as the same script ends a plain call.
fn stopped(engine: &Engine, task: &Task, stop: Stop) {
    match stop {
        Stop::Failed(error) => {
            let message = error.message.clone();
            let error = error.to_value();
            apply(engine, task, |state, now| {
                state.status_message = Some(message);
                state.end(TaskStatus::Failed, Ending::Error(error), now);
            });
        }
        Stop::Render(problem) => complete(engine, task, template::failure(vec![problem]).result),
        Stop::Client(problem) => complete(engine, task, script::script_failure(&problem)),
        Stop::Refused(error) => complete(engine, task, script::script_failure(&error.message)),
        Stop::InputRequired(_) => {}
    }
}

/// Starts the server's task ticker, unless it runs: it drives live tasks when their delays
/// end, so their status notifications go out without anyone polling.
pub(crate) fn start_ticker(engine: &Arc<Engine>) {
    let weak = Arc::downgrade(engine);
    engine.tasks.ensure_ticker(|| tokio::spawn(tick(weak)));
}

/// Drives every live task, then sleeps until the next delay ends or something changes. It
/// holds the engine only while driving, so a dropped server ends it, and it watches only the
/// live tasks it was handed (a store full of finished tasks costs it nothing).
async fn tick(engine: Weak<Engine>) {
    let mut watching: Vec<Arc<Task>> = Vec::new();
    loop {
        let (mut changes, wait) = {
            let Some(engine) = engine.upgrade() else {
                return;
            };
            let mut changes = engine.tasks.subscribe();
            changes.borrow_and_update();
            watching.extend(engine.tasks.take_created());
            let mut next: Option<SystemTime> = None;
            let mut live = Vec::with_capacity(watching.len());
            for task in watching.drain(..) {
                match drive(&engine, &task).await {
                    Parked::Done => {}
                    Parked::Due(at) => {
                        next = Some(next.map_or(at, |earliest| earliest.min(at)));
                        live.push(task);
                    }
                    Parked::Waiting => live.push(task),
                }
            }
            watching = live;
            let now = engine.now();
            (
                changes,
                next.map(|at| at.duration_since(now).unwrap_or_default()),
            )
        };
        match wait {
            Some(wait) => {
                tokio::select! {
                    changed = changes.changed() => if changed.is_err() { return },
                    () = tokio::time::sleep(wait) => {}
                }
            }
            None => {
                if changes.changed().await.is_err() {
                    return;
                }
            }
        }
    }
}
