//! `tools/list` and `tools/call` (server/tools page), with the tool's script run before its
//! template renders.

use std::time::Duration;

use serde_json::{Map, Value, json};

use crate::engine::methods::mrtr;
use crate::engine::methods::pagination;
use crate::engine::methods::{RequestCtx, unknown};
use crate::engine::protocol::jsonrpc::RpcError;
use crate::engine::template::{self, Rendered};
use crate::spec::{AskMethod, Listing, Step, ToolSpec};

pub(crate) fn list(ctx: &RequestCtx) -> Result<Value, RpcError> {
    pagination::list(ctx, "tools/list", "tools", ToolSpec::listing)
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
    let mut context = json!({ "args": args, "answers": {} });
    match run_script(ctx, &tool, &mut context).await {
        Ok(()) => {}
        Err(Stop::Render(problem)) => return Ok(template::failure(vec![problem]).result),
        Err(Stop::Client(problem)) => return Ok(script_failure(&problem)),
        Err(Stop::InputRequired(result)) => return Ok(result),
        Err(Stop::Refused(error)) => return Err(error),
    }
    let validator = ctx.engine.output_validator(&tool);
    // The response the transport picked (see `responses::choose`) may bring its own result.
    let template = ctx
        .chosen
        .as_ref()
        .and_then(|chosen| chosen.result.as_ref())
        .unwrap_or(&tool.template);
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

/// The first line of the `isError` result of a call whose script could not get what it
/// asked the client for.
pub(crate) const SCRIPT_FAILURE_HEADLINE: &str =
    "MCP Decoy: this tool's script stopped before its result.";

/// Why a script stopped before the template rendered.
enum Stop {
    /// A step's template failed to render: reported like a template failure.
    Render(String),
    /// The client lacks a capability, answered an error, or did not answer in time.
    Client(String),
    /// 2026-07-28: the script needs answers; the call's result is this `input_required`.
    InputRequired(Value),
    /// 2026-07-28: the retry's `requestState` or `inputResponses` is unusable (-32602).
    Refused(RpcError),
}

fn script_failure(problem: &str) -> Value {
    json!({
        "content": [{ "type": "text", "text": format!("{SCRIPT_FAILURE_HEADLINE}\n{problem}") }],
        "isError": true
    })
}

/// Renders a field of script step `n` with the template's context.
async fn render_step(n: usize, template: &Value, context: &Value) -> Result<Value, Stop> {
    template::render_value(template, context)
        .await
        .map_err(|e| Stop::Render(format!("script step {n}: {e}")))
}

/// Runs the steps in order; an `Err` is a problem to report as the tool's `isError` result,
/// or, in a 2026-07-28 request, the `input_required` result of a round (see `mrtr`).
async fn run_script(ctx: &RequestCtx, tool: &ToolSpec, context: &mut Value) -> Result<(), Stop> {
    // 2026-07-28 servers send no requests; asks become multi round-trip rounds.
    // Only a script that asks can need rounds; skip the state digest for every other call.
    let asks = tool
        .script
        .iter()
        .any(|step| matches!(step, Step::Ask { .. }));
    let mut rounds = if asks && ctx.session.version.is_modern() {
        let principal = ctx.principal.as_ref().map(|p| p.0.as_str());
        let rounds = mrtr::Rounds::start(
            &ctx.engine.mrtr,
            principal,
            "tools/call",
            &ctx.params,
            &tool.script,
        )
        .map_err(Stop::Refused)?;
        context["answers"] = Value::Object(rounds.answers().clone());
        Some(rounds)
    } else {
        None
    };
    for (n, step) in tool.script.iter().enumerate() {
        if let Some(rounds) = rounds.as_mut() {
            if rounds.skips(n) {
                continue;
            }
            if !matches!(step, Step::Ask { .. }) {
                // A step of another kind ends the round: ask for what was gathered first.
                if rounds.has_pending() {
                    return Err(Stop::InputRequired(rounds.input_required()));
                }
                rounds.leave_round();
            }
        }
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
                    params["message"] = render_step(n, &json!(message), context).await?;
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
                let data = render_step(n, data, context).await?;
                let mut params = json!({ "level": level, "data": data });
                if let Some(logger) = logger {
                    params["logger"] = render_step(n, &json!(logger), context).await?;
                }
                ctx.outbox.notify("notifications/message", params);
            }
            Step::Delay { ms } => tokio::time::sleep(Duration::from_millis(*ms)).await,
            Step::Ask {
                key,
                method,
                params,
                optional,
                ..
            } if rounds.is_some() => {
                if let Some(rounds) = rounds.as_mut() {
                    ask_in_round(ctx, rounds, n, (key, *method, params, *optional), context)
                        .await?;
                }
            }
            Step::Ask {
                key,
                method,
                params,
                timeout_ms,
                optional,
            } => {
                let params = render_step(n, params, context).await?;
                let missing =
                    missing_capability(ctx.session.client_capabilities(), *method, &params);
                if *optional && missing.is_err() {
                    continue;
                }
                missing.map_err(Stop::Client)?;
                let answer = ctx
                    .outbox
                    .ask(method.method(), params, Duration::from_millis(*timeout_ms))
                    .await
                    .map_err(Stop::Client)?;
                context["answers"][key.as_str()] = answer;
            }
            Step::Notify { listing } => {
                let engine = &ctx.engine;
                let declared = match listing {
                    Listing::Tools => true,
                    Listing::Prompts => engine.serves_prompts(),
                    Listing::Resources => engine.serves_resources(),
                };
                // Clients were not told this server has prompts or resources: no news.
                if declared {
                    engine.notify_list_changed(*listing);
                }
            }
        }
    }
    if let Some(rounds) = rounds.filter(mrtr::Rounds::has_pending) {
        return Err(Stop::InputRequired(rounds.input_required()));
    }
    Ok(())
}

/// One `ask` step of a 2026-07-28 call: its answer from `requestState` or `inputResponses`
/// when the client has given it, else its request joins the round being gathered.
async fn ask_in_round(
    ctx: &RequestCtx,
    rounds: &mut mrtr::Rounds<'_>,
    n: usize,
    (key, method, params, optional): (&str, AskMethod, &Value, bool),
    context: &mut Value,
) -> Result<(), Stop> {
    if let Some(answer) = rounds.answer(key, method).map_err(Stop::Refused)? {
        context["answers"][key] = answer;
        return Ok(());
    }
    let params = match template::render_value(params, context).await {
        Ok(params) => params,
        // Params that read an answer of this same round: ask for that round first.
        Err(_) if rounds.has_pending() => return Err(Stop::InputRequired(rounds.input_required())),
        Err(e) => return Err(Stop::Render(format!("script step {n}: {e}"))),
    };
    if let Err(problem) = missing_capability(ctx.session.client_capabilities(), method, &params) {
        if optional {
            return Ok(());
        }
        return Err(Stop::Client(
            problem.replace("in initialize", "in this request's _meta"),
        ));
    }
    rounds.ask(n, key, method, params);
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
        // Tool-enabled sampling needs `sampling.tools` (client/sampling, "Tools in Sampling").
        AskMethod::Sampling if params.get("tools").is_some() => (
            capabilities
                .get("sampling")
                .and_then(|s| s.get("tools"))
                .is_some(),
            "sampling.tools",
        ),
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
