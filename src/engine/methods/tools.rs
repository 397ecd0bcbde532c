//! `tools/list` and `tools/call` (server/tools page), with the tool's script run before its
//! template renders.

use std::time::Duration;

use serde_json::{Map, Value, json};

use crate::engine::dispatch::RequestCtx;
use crate::engine::jsonrpc::RpcError;
use crate::engine::methods::pagination;
use crate::engine::template::{self, Rendered};
use crate::spec::{AskMethod, Step, ToolSpec};

pub(crate) fn list(ctx: &RequestCtx) -> Result<Value, RpcError> {
    let tools: Vec<Value> = ctx
        .engine
        .catalog
        .tools
        .visible()
        .iter()
        .map(|t| t.listing())
        .collect();
    pagination::page(ctx, "tools/list", "tools", tools)
}

pub(crate) async fn call(ctx: &RequestCtx) -> Result<Value, RpcError> {
    let params = &ctx.params;
    let name = params.get("name").and_then(Value::as_str).ok_or_else(|| {
        RpcError::invalid_params("tools/call: `params.name` must be a string naming a tool")
    })?;
    let args = match params.get("arguments") {
        None | Some(Value::Null) => Value::Object(Map::new()),
        Some(args @ Value::Object(_)) => args.clone(),
        Some(other) => {
            return Err(RpcError::invalid_params(format!(
                "tools/call: `params.arguments` must be an object, got {}",
                kind_of(other)
            )));
        }
    };
    let Some(tool) = ctx.engine.catalog.tools.get(name) else {
        return Err(RpcError::invalid_params(format!("Unknown tool: {name}"))
            .with_data(json!({ "name": name })));
    };
    ctx.engine.catalog.count_call(name);
    let mut context = json!({ "args": args, "answers": {} });
    if let Err(problem) = run_script(ctx, &tool, &mut context).await {
        return Ok(template::failure(vec![problem]).result);
    }
    let validator = ctx.engine.output_validator(&tool);
    let Rendered { result, failure } =
        template::render(&tool.template, &context, validator.as_deref());
    if let Some(details) = &failure {
        tracing::debug!(tool = name, ?details, "response template failed to render");
    }
    Ok(result)
}

/// Runs the steps in order; an `Err` is a problem to report as the tool's `isError` result.
async fn run_script(ctx: &RequestCtx, tool: &ToolSpec, context: &mut Value) -> Result<(), String> {
    for step in &tool.script {
        match step {
            Step::Progress {
                progress,
                total,
                message,
            } => {
                let Some(token) = ctx.progress_token() else {
                    continue;
                };
                let mut params = json!({ "progressToken": token, "progress": progress });
                if let Some(total) = total {
                    params["total"] = json!(total);
                }
                if let Some(message) = message {
                    params["message"] = template::render_value(&json!(message), context)?;
                }
                ctx.outbox.notify("notifications/progress", params);
            }
            Step::Log {
                level,
                logger,
                data,
            } => {
                if !ctx.session.logs_at(*level) {
                    continue;
                }
                let mut params =
                    json!({ "level": level, "data": template::render_value(data, context)? });
                if let Some(logger) = logger {
                    params["logger"] = json!(logger);
                }
                ctx.outbox.notify("notifications/message", params);
            }
            Step::Delay { ms } => tokio::time::sleep(Duration::from_millis(*ms)).await,
            Step::Ask {
                key,
                method,
                params,
                timeout_ms,
            } => {
                let params = template::render_value(params, context)?;
                missing_capability(ctx.session.client_capabilities(), *method, &params)?;
                let answer = ctx
                    .outbox
                    .ask(method.method(), params, Duration::from_millis(*timeout_ms))
                    .await?;
                context["answers"][key.as_str()] = answer;
            }
        }
    }
    Ok(())
}

/// Servers must not send a request the client did not declare a capability for
/// (client/sampling, client/elicitation, client/roots pages); the tool reports it instead.
fn missing_capability(
    capabilities: &Value,
    method: AskMethod,
    params: &Value,
) -> Result<(), String> {
    let (needed, path): (bool, &str) = match method {
        AskMethod::Sampling => (capabilities.get("sampling").is_some(), "sampling"),
        AskMethod::Roots => (capabilities.get("roots").is_some(), "roots"),
        AskMethod::Elicitation => {
            let elicitation = capabilities.get("elicitation");
            if params.get("mode").and_then(Value::as_str) == Some("url") {
                (
                    elicitation.and_then(|e| e.get("url")).is_some(),
                    "elicitation.url",
                )
            } else {
                // An empty elicitation object means form mode (client/elicitation, "Capabilities").
                let form = elicitation.is_some_and(|e| {
                    e.get("form").is_some()
                        || e.as_object()
                            .is_some_and(|o| o.is_empty() || !o.contains_key("url"))
                });
                (form, "elicitation.form")
            }
        }
    };
    if needed {
        Ok(())
    } else {
        Err(format!(
            "this tool sends {} to the client, but the client did not declare the `{path}` capability in initialize",
            method.method()
        ))
    }
}

fn kind_of(value: &Value) -> &'static str {
    match value {
        Value::Null => "null",
        Value::Bool(_) => "a boolean",
        Value::Number(_) => "a number",
        Value::String(_) => "a string",
        Value::Array(_) => "an array",
        Value::Object(_) => "an object",
    }
}
