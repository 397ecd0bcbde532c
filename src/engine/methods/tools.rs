//! `tools/list` and `tools/call` (server/tools page), with the tool's script run before its
//! template renders, or handed to a task (`tasks`) when the call becomes one.

use serde_json::{Map, Value};

use crate::engine::methods::pagination;
use crate::engine::methods::script::{self, Stop, script_failure};
use crate::engine::methods::tasks;
use crate::engine::methods::{RequestCtx, unknown};
use crate::engine::protocol::jsonrpc::{RpcError, member};
use crate::engine::template::{self, Rendered};
use crate::spec::{ProtocolVersion, ToolSpec};

pub(crate) fn list(ctx: &RequestCtx) -> Result<Value, RpcError> {
    // `execution.taskSupport` is 2025-11-25's; the 2026-07-28 extension has none.
    if ctx.session.version == ProtocolVersion::V2025_11_25 && ctx.engine.serves_tasks() {
        return pagination::list(ctx, "tools/list", "tools", ToolSpec::legacy_listing);
    }
    pagination::list(ctx, "tools/list", "tools", ToolSpec::listing)
}

pub(crate) async fn call(ctx: &RequestCtx) -> Result<Value, RpcError> {
    let params = &ctx.params;
    let name = member(params, "name")
        .and_then(Value::as_str)
        .ok_or_else(|| {
            RpcError::invalid_params("tools/call: `params.name` must be a string naming a tool")
        })?;
    let args = match member(params, "arguments") {
        None | Some(Value::Null) => Value::Object(Map::new()),
        Some(args @ Value::Object(_)) => args.clone(),
        Some(other) => {
            return Err(RpcError::invalid_params(format!(
                "tools/call: `params.arguments` must be an object, got {}",
                crate::error::json_type(other)
            )));
        }
    };
    let Some(tool) = ctx.engine.catalog.tools.get(name) else {
        let mut error = unknown("tool", "name", name);
        // A draft, or a typo: say which, so the client's error shows the fix.
        if let Some(miss) = ctx.engine.tool_miss(name) {
            error.message = format!("{}: {miss}", error.message);
        }
        return Err(error);
    };
    ctx.engine.catalog.count_call(name);
    let task = tasks::wanted(ctx, &tool)?;
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
        Err(Stop::InputRequired(result)) => return Ok(result),
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
            tool = name,
            request = %ctx.id,
            ?details,
            "response template failed to render"
        );
    }
    Ok(result)
}
