//! A script run within one request: the steps a tool (or prompt) runs before its template
//! renders, in order. Progress and log steps send notifications on the request's stream,
//! `ask` steps send requests to the client (2026-07-28: they gather multi round-trip rounds,
//! see `mrtr`), `fail` ends the request with a JSON-RPC error. A task runs the same steps on
//! the server's clock instead (`tasks::drive`), with the helpers shared here.

use std::time::Duration;

use serde_json::{Value, json};

use crate::engine::methods::RequestCtx;
use crate::engine::methods::mrtr;
use crate::engine::protocol::jsonrpc::RpcError;
use crate::engine::template;
use crate::spec::{AskMethod, Listing, MAX_WAIT_MS, Step};

/// The first line of the `isError` result of a call whose script could not get what it
/// asked the client for.
pub(crate) const SCRIPT_FAILURE_HEADLINE: &str =
    "MCP Decoy: this tool's script stopped before its result.";

/// Why a script stopped before the template rendered.
#[derive(Debug)]
pub(crate) enum Stop {
    /// A step's template failed to render: reported like a template failure.
    Render(String),
    /// The client lacks a capability, answered an error, or did not answer in time.
    Client(String),
    /// 2026-07-28: the script needs answers; the call's result is this `input_required`.
    InputRequired(Value),
    /// 2026-07-28: the retry's `requestState` or `inputResponses` is unusable (-32602).
    Refused(RpcError),
    /// A `fail` step: the request answers this JSON-RPC error.
    Failed(RpcError),
}

/// The `isError` result of a script that stopped for `problem`.
pub(crate) fn script_failure(problem: &str) -> Value {
    json!({
        "content": [{ "type": "text", "text": format!("{SCRIPT_FAILURE_HEADLINE}\n{problem}") }],
        "isError": true
    })
}

/// Renders a field of script step `n` with the template's context.
pub(crate) async fn render_step(
    n: usize,
    template: &Value,
    context: &Value,
) -> Result<Value, Stop> {
    template::render_value(template, context)
        .await
        .map_err(|e| Stop::Render(format!("script step {n}: {e}")))
}

/// The milliseconds a `wait` step renders to, capped at a day.
pub(crate) async fn wait_ms(n: usize, template: &Value, context: &Value) -> Result<u64, Stop> {
    let rendered = render_step(n, template, context).await?;
    let ms = rendered
        .as_u64()
        .or_else(|| {
            rendered
                .as_f64()
                .filter(|f| f.is_finite() && *f >= 0.0)
                .map(|f| f.round() as u64)
        })
        .ok_or_else(|| {
            Stop::Render(format!(
                "script step {n}: a wait step's `ms` must render to a non-negative number of milliseconds, got {rendered}"
            ))
        })?;
    Ok(ms.min(MAX_WAIT_MS))
}

/// The JSON-RPC error of a `fail` step.
pub(crate) async fn failure(
    n: usize,
    (code, message, data): (i64, &str, Option<&Value>),
    context: &Value,
) -> Result<RpcError, Stop> {
    let message = render_step(n, &json!(message), context).await?;
    let message = match message {
        Value::String(text) => text,
        other => other.to_string(),
    };
    let mut error = RpcError::new(code, message);
    if let Some(data) = data {
        error = error.with_data(render_step(n, data, context).await?);
    }
    Ok(error)
}

/// The params of a `notifications/progress` step, or `None` without a progress token.
pub(crate) async fn progress_params(
    n: usize,
    token: Option<&Value>,
    (progress, total, message): (f64, Option<f64>, Option<&String>),
    context: &Value,
) -> Result<Option<Value>, Stop> {
    let Some(token) = token else {
        return Ok(None);
    };
    let mut params = json!({ "progressToken": token, "progress": progress });
    if let Some(total) = total {
        params["total"] = json!(total);
    }
    if let Some(message) = message {
        params["message"] = render_step(n, &json!(message), context).await?;
    }
    Ok(Some(params))
}

/// Tells clients a list changed, when the server declares it (a `notify` step).
pub(crate) fn notify(engine: &crate::engine::Engine, listing: Listing) {
    let declared = match listing {
        Listing::Tools => true,
        Listing::Prompts => engine.serves_prompts(),
        Listing::Resources => engine.serves_resources(),
    };
    // Clients were not told this server has prompts or resources: no news.
    if declared {
        engine.notify_list_changed(listing);
    }
}

/// Runs steps `..upto` of `script` in order for `method`; an `Err` is a problem to report as
/// the tool's `isError` result, or, in a 2026-07-28 request, the `input_required` result of a
/// round (see `mrtr`), or a `fail` step's error.
pub(crate) async fn run(
    ctx: &RequestCtx,
    method: &str,
    script: &[Step],
    upto: usize,
    context: &mut Value,
) -> Result<(), Stop> {
    let steps = &script[..upto.min(script.len())];
    // 2026-07-28 servers send no requests; asks become multi round-trip rounds.
    // Only a script that asks can need rounds; skip the state digest for every other call.
    let asks = steps.iter().any(|step| matches!(step, Step::Ask { .. }));
    let mut rounds = if asks && ctx.session.version.is_modern() {
        let principal = ctx.principal.as_ref().map(|p| p.0.as_str());
        let rounds = mrtr::Rounds::start(&ctx.engine.mrtr, principal, method, &ctx.params, script)
            .map_err(Stop::Refused)?;
        context["answers"] = Value::Object(rounds.answers().clone());
        Some(rounds)
    } else {
        None
    };
    for (n, step) in steps.iter().enumerate() {
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
                let shape = (*progress, *total, message.as_ref());
                if let Some(params) =
                    progress_params(n, ctx.progress_token(), shape, context).await?
                {
                    ctx.outbox.notify("notifications/progress", params);
                }
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
            Step::Wait { ms } => {
                let ms = wait_ms(n, ms, context).await?;
                tokio::time::sleep(Duration::from_millis(ms)).await;
            }
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
            Step::Notify { listing } => notify(&ctx.engine, *listing),
            Step::Fail {
                code,
                message,
                data,
            } => {
                let error = failure(n, (*code, message, data.as_ref()), context).await?;
                return Err(Stop::Failed(error));
            }
        }
    }
    if let Some(rounds) = rounds.filter(mrtr::Rounds::has_pending) {
        return Err(Stop::InputRequired(rounds.input_required()));
    }
    Ok(())
}

/// One `ask` step of a 2026-07-28 request: its answer from `requestState` or
/// `inputResponses` when the client has given it, else its request joins the round being
/// gathered.
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
pub(crate) fn missing_capability(
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
            "this script sends {} to the client, but the client did not declare the `{path}` capability in initialize",
            method.method()
        ))
    }
}
