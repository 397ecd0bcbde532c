//! `tools/list` and `tools/call` (server/tools page), with the tool's script run before its
//! template renders, or handed to a task (`tasks`) when the call becomes one.

use std::sync::Arc;

use serde_json::{Map, Value};

use crate::engine::methods::RequestCtx;
use crate::engine::methods::pagination;
use crate::engine::methods::script::{self, Stop, script_failure};
use crate::engine::methods::tasks;
use crate::engine::protocol::jsonrpc::{RpcError, code};
use crate::engine::template::{self, Rendered};
use crate::spec::{ProtocolVersion, ToolSpec};

/// A `tools/call`, resolved: each part is what the handler answers with, or the error it
/// answers instead.
#[derive(Debug)]
pub(crate) struct Call {
    /// The published tool `params.name` names.
    pub(crate) tool: Result<Arc<ToolSpec>, RpcError>,
    /// `params.arguments`: absent or `null` is `{}`; anything but an object is refused.
    pub(crate) arguments: Result<Value, RpcError>,
    /// Whether the call becomes a task (decided with the session: `pipeline::resolve`).
    pub(crate) task: Result<Option<tasks::Wanted>, RpcError>,
}

impl Call {
    /// The arguments as the matchers of faults and responses read them; `None` when the call
    /// is refused for them (the matchers then read `{}`).
    pub(crate) fn matched_arguments(&self) -> Option<&Value> {
        self.arguments.as_ref().ok()
    }

    /// Whether the call is refused before its tool runs, whatever the plan says.
    pub(crate) fn is_refused(&self) -> bool {
        self.tool.is_err() || self.arguments.is_err() || self.task.is_err()
    }
}

pub(crate) fn list(ctx: &RequestCtx) -> Result<Value, RpcError> {
    // `execution.taskSupport` is 2025-11-25's; the 2026-07-28 extension has none.
    if ctx.session.version == ProtocolVersion::V2025_11_25 && ctx.engine.serves_tasks() {
        return pagination::list(ctx, "tools/list", "tools", ToolSpec::legacy_listing);
    }
    pagination::list(ctx, "tools/list", "tools", ToolSpec::listing)
}

pub(crate) async fn call(ctx: &RequestCtx) -> Result<Value, RpcError> {
    // Resolved once, before the plan (`pipeline::resolve`); what is wrong with the call is
    // answered in the order a client fixes it: the shape of its arguments, then its name.
    let call = ctx
        .call
        .as_ref()
        .ok_or_else(|| RpcError::new(code::INTERNAL_ERROR, "tools/call: not resolved"))?;
    let args = call.arguments.clone()?;
    let tool = call.tool.clone()?;
    ctx.engine.catalog.count_call(&tool.name);
    let task = call.task.clone()?;
    // A task runs the script itself, after what must be answered before it exists.
    let upto = match task {
        Some(_) => tasks::sync_prefix(&tool),
        None => tool.script.len(),
    };
    // Built by hand: `json!` would copy `args` (it serializes what it interpolates).
    let mut context = Map::with_capacity(2);
    context.insert("args".into(), args);
    context.insert("answers".into(), Value::Object(Map::new()));
    let mut context = Value::Object(context);
    match script::run(ctx, "tools/call", &tool.script, upto, &mut context).await {
        Ok(()) => {}
        Err(Stop::Render(problem)) => return Ok(template::failure(vec![problem]).result),
        Err(Stop::Client(problem)) => return Ok(script_failure(&problem)),
        Err(Stop::InputRequired(mut result)) => {
            if tool.omit_request_state
                && let Some(result) = result.as_object_mut()
            {
                result.remove("requestState");
            }
            return Ok(result);
        }
        Err(Stop::Refused(error) | Stop::Failed(error)) => return Err(error),
    }
    // The response the transport picked (see `responses::choose`) may bring its own result.
    let template = ctx
        .chosen
        .as_ref()
        .and_then(|chosen| chosen.result.as_ref())
        .unwrap_or(&tool.template);
    if let Some(task) = task {
        let template = template.clone();
        return tasks::create(ctx, tool, template, (context, upto), task);
    }
    let validator = ctx.engine.output_validator(&tool);
    let Rendered { result, failure } =
        template::render(template, &context, validator.as_deref()).await;
    if let Some(details) = &failure {
        tracing::debug!(
            tool = %tool.name,
            request = %ctx.id,
            ?details,
            "response template failed to render"
        );
    }
    Ok(result)
}
