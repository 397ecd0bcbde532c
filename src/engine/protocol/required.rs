//! What a 2026-07-28 request must declare in its `_meta` client capabilities for what it
//! asks of the server (`basic/index.mdx`: otherwise `-32021` with
//! `data.requiredCapabilities`, a `ClientCapabilities` object): the capabilities a tool's or
//! prompt's `ask` steps need, and the tasks extension for `tasks/*` and task-only tools.

use serde_json::{Map, Value, json};

use super::jsonrpc::{RpcError, code};
use crate::spec::{AskMethod, Step, TaskSupport, ToolSpec};

/// The tasks extension's identifier, in `capabilities.extensions` on both sides.
pub(crate) const TASKS_EXTENSION: &str = "io.modelcontextprotocol/tasks";

/// A tool whose script asks the client for something needs that capability in this
/// request's `_meta` (-32021 with `data.requiredCapabilities`, `basic/index.mdx`); so do the
/// `tasks/*` methods and a tool that runs only as a task, the tasks extension (its
/// "Capability Negotiation").
pub(crate) fn capabilities(
    method: &str,
    tool: Option<&ToolSpec>,
    declared: &Value,
) -> Result<(), RpcError> {
    let declares_tasks = declared
        .get("extensions")
        .and_then(|e| e.get(TASKS_EXTENSION))
        .is_some();
    let task_only = tool.is_some_and(|t| {
        t.task
            .as_ref()
            .is_some_and(|task| task.support == TaskSupport::Required)
    });
    if !declares_tasks && (method.starts_with("tasks/") || task_only) {
        let what = match tool.filter(|_| task_only) {
            Some(tool) => format!("tool `{}` runs only as a task", tool.name),
            None => format!("{method} belongs to the tasks extension"),
        };
        return Err(RpcError::new(
            code::MISSING_CLIENT_CAPABILITY,
            format!("{what}: declare `extensions[\"{TASKS_EXTENSION}\"]` in this request's _meta clientCapabilities"),
        )
        .with_data(json!({ "requiredCapabilities": { "extensions": { TASKS_EXTENSION: {} } } })));
    }
    match tool {
        Some(tool) => asks(&format!("tool `{}`", tool.name), &tool.script, declared),
        None => Ok(()),
    }
}

/// The capabilities the non-optional `ask` steps of `script` (of `what`) need, which the
/// request must declare (-32021 naming them).
pub(crate) fn asks(what: &str, script: &[Step], declared: &Value) -> Result<(), RpcError> {
    let mut required = Map::new();
    for step in script {
        // An optional ask is skipped for a client without the capability.
        if let Step::Ask {
            method,
            optional: false,
            ..
        } = step
        {
            let key = match method {
                AskMethod::Sampling => "sampling",
                AskMethod::Elicitation => "elicitation",
                AskMethod::Roots => "roots",
            };
            if declared.get(key).is_none() {
                required.insert(key.into(), json!({}));
            }
        }
    }
    if required.is_empty() {
        return Ok(());
    }
    let names: Vec<&String> = required.keys().collect();
    Err(RpcError::new(
        code::MISSING_CLIENT_CAPABILITY,
        format!("{what} needs the client capabilities {names:?}, which this request's _meta does not declare"),
    )
    .with_data(json!({ "requiredCapabilities": Value::Object(required) })))
}
