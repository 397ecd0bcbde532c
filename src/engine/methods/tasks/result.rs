//! `tasks/result` (2025-11-25 "Retrieving Task Results"): it waits until the task ends,
//! and while it waits the task's `ask`s go to the client as requests on its stream ("Input
//! Required Status"), so this is where a 2025-11-25 task gathers its input.

use std::sync::Arc;

use serde_json::{Value, json};

use super::{answer_key, drive, find, params, served, wire};
use crate::engine::methods::{RequestCtx, method_not_found};
use crate::engine::protocol::jsonrpc::{RpcError, code};
use crate::engine::state::tasks::{Asked, Ending, Task};

/// `tasks/result` (2025-11-25): waits until the task ends, then answers what the call would
/// have: its result (with the related-task `_meta`) or its JSON-RPC error. While it waits,
/// the task's `ask`s go to the client as requests on this request's stream.
pub(crate) async fn result(ctx: &RequestCtx) -> Result<Value, RpcError> {
    if ctx.session.version.is_modern() {
        return Err(method_not_found("tasks/result"));
    }
    served(ctx, "tasks/result")?;
    let params = params(ctx, &["taskId"])?;
    loop {
        // Subscribed before looking, so a change after the look wakes the wait below.
        let mut changes = ctx.engine.tasks.subscribe();
        changes.borrow_and_update();
        let task = find(ctx, "tasks/result", params)?;
        let parked = drive::drive(&ctx.engine, &task).await;
        let (status, ending, unsent) = {
            let mut state = task.state();
            let unsent: Vec<_> = state
                .pending
                .iter_mut()
                .filter(|asked| !asked.sent)
                .map(|asked| {
                    asked.sent = true;
                    asked.clone()
                })
                .collect();
            (state.status, state.ending.clone(), unsent)
        };
        if status.is_terminal() {
            return match ending {
                Some(Ending::Result(result)) => Ok(wire::with_related(result, &task.id)),
                Some(Ending::Error(error)) => Err(RpcError::from_value(&error)),
                None => Err(RpcError::new(
                    code::INTERNAL_ERROR,
                    format!(
                        "tasks/result: task `{}` was cancelled, so it has no result",
                        task.id
                    ),
                )
                .with_data(json!({ "taskId": task.id, "status": status.as_str() }))),
            };
        }
        if !unsent.is_empty() {
            ask_client(ctx, &task, unsent).await;
            continue;
        }
        let wait = match parked {
            drive::Parked::Due(at) => Some(at.duration_since(ctx.engine.now()).unwrap_or_default()),
            _ => None,
        };
        match wait {
            Some(wait) => {
                tokio::select! {
                    _ = changes.changed() => {}
                    () = tokio::time::sleep(wait) => {}
                }
            }
            None => {
                let _ = changes.changed().await;
            }
        }
    }
}

/// Sends the task's requests to the client on this request's stream, with the related-task
/// `_meta` (2025-11-25 "Input Required Status"), and records the answers. A request the
/// client refuses or lets time out ends the task as it ends a plain call.
async fn ask_client(ctx: &RequestCtx, task: &Arc<Task>, asks: Vec<Asked>) {
    for asked in asks {
        let mut claim = Claim {
            task,
            key: asked.key.clone(),
            answered: false,
        };
        let params = if asked.params.is_null() {
            json!({})
        } else {
            asked.params.clone()
        };
        let params = wire::with_related(params, &task.id);
        let timeout = std::time::Duration::from_millis(asked.timeout_ms);
        match ctx.outbox.ask(asked.method.method(), params, timeout).await {
            Ok(answer) => {
                claim.answered = true;
                answer_key(ctx, task, &asked.key, answer);
            }
            Err(problem) => {
                claim.answered = true;
                drive::client_failed(&ctx.engine, task, &problem);
                return;
            }
        }
    }
}

/// A request sent for a task; dropped unanswered (the `tasks/result` was cancelled or its
/// stream closed), it is marked unsent, so the next `tasks/result` sends it again.
struct Claim<'a> {
    task: &'a Task,
    key: String,
    answered: bool,
}

impl Drop for Claim<'_> {
    fn drop(&mut self) {
        if self.answered {
            return;
        }
        if let Some(asked) = self
            .task
            .state()
            .pending
            .iter_mut()
            .find(|a| a.key == self.key)
        {
            asked.sent = false;
        }
    }
}
