//! The MCP methods, one file per family, and the router that picks a request's handler.
//! Handlers take a [`RequestCtx`] and return a result or a JSON-RPC error. They know nothing
//! of transports, faults or capture: the pipeline calls them once it has decided that the
//! request runs, and reads the catalog and sessions through the engine.

pub(crate) mod completion;
pub(crate) mod discover;
pub(crate) mod lifecycle;
pub(crate) mod listen;
pub(crate) mod logging;
pub(crate) mod mrtr;
pub(crate) mod pagination;
pub(crate) mod prompts;
pub(crate) mod replay;
pub(crate) mod resources;
pub(crate) mod script;
pub(crate) mod skills;
pub(crate) mod tasks;
pub(crate) mod tools;

use std::sync::Arc;

use serde_json::Value;

use super::Engine;
use super::protocol::jsonrpc::{RpcError, code};
use super::protocol::method::{INITIALIZE, Method};
use super::state::outbox::Outbox;
use super::state::responses::Chosen;
use super::state::session::Session;

/// Everything a method handler may use: the server, the session, the request, and the
/// outbox for messages related to the request (progress, logs, server-to-client requests).
#[derive(Debug)]
pub(crate) struct RequestCtx {
    pub(crate) engine: Arc<Engine>,
    pub(crate) session: Arc<Session>,
    /// The request's JSON-RPC id.
    pub(crate) id: Value,
    /// `params`, or `Value::Null`.
    pub(crate) params: Value,
    pub(crate) outbox: Outbox,
    /// For `tools/call`: the call as resolved (see `pipeline::resolve`).
    pub(crate) call: Option<Box<tools::Call>>,
    /// For `tools/call`: the tool response the plan picked (see `pipeline::plan`).
    pub(crate) chosen: Option<Chosen>,
    /// Who the request's credentials say sent it, when the server checks any.
    pub(crate) principal: Option<Principal>,
}

/// The authenticated sender of a request: set by the API-key guard or the OAuth resource
/// check (as a request extension), so state handed to the client, such as a 2026-07-28
/// `requestState`, can be bound to it.
#[derive(Debug, Clone, PartialEq, Eq)]
pub(crate) struct Principal(pub(crate) String);

impl RequestCtx {
    /// `params._meta.progressToken`, when the client asked for progress.
    pub(crate) fn progress_token(&self) -> Option<&Value> {
        self.params.get("_meta")?.get("progressToken")
    }
}

/// Answers one request of a session.
pub(crate) async fn request(ctx: &RequestCtx, method: &str) -> Result<Value, RpcError> {
    if let Some(player) = ctx.engine.replay() {
        return replay::answer(ctx, player, method).await;
    }
    match Method::parse(method) {
        Some(Method::Ping) => Ok(lifecycle::ping()),
        Some(Method::ToolsList) => tools::list(ctx),
        Some(Method::ToolsCall) => tools::call(ctx).await,
        Some(Method::ResourcesList) => resources::list(ctx),
        Some(Method::ResourceTemplatesList) => resources::list_templates(ctx),
        Some(Method::ResourcesRead) => resources::read(ctx).await,
        Some(Method::ResourcesSubscribe) => resources::subscribe(ctx),
        Some(Method::ResourcesUnsubscribe) => resources::unsubscribe(ctx),
        Some(Method::PromptsList) => prompts::list(ctx),
        Some(Method::PromptsGet) => prompts::get(ctx).await,
        Some(Method::CompletionComplete) => completion::complete(ctx),
        Some(Method::LoggingSetLevel) => logging::set_level(ctx),
        // Only the modern era has discovery; a legacy client has `initialize`.
        Some(Method::ServerDiscover) if ctx.session.version.is_modern() => {
            Ok(discover::discover(&ctx.engine))
        }
        Some(Method::ServerDiscover) => Err(method_not_found(method)),
        // A legacy session has its GET stream instead; a modern listen never gets here (the
        // transport streams it), so either way there is nothing to answer here.
        Some(Method::SubscriptionsListen) => Err(method_not_found(method)),
        Some(Method::TasksGet) => tasks::get(ctx).await,
        Some(Method::TasksResult) => tasks::result(ctx).await,
        Some(Method::TasksList) => tasks::list(ctx),
        Some(Method::TasksCancel) => tasks::cancel(ctx).await,
        Some(Method::TasksUpdate) => tasks::update(ctx).await,
        Some(Method::SkillsList) => skills::list(ctx),
        Some(Method::SkillsGet) => skills::get(ctx),
        Some(Method::ResourcesDirectoryRead) => skills::read_directory(ctx),
        None if method == INITIALIZE => Err(RpcError::new(
            code::INVALID_REQUEST,
            "initialize: this session is already initialized; to start a new session, send initialize without an Mcp-Session-Id header",
        )),
        None => Err(method_not_found(method)),
    }
}

/// `-32602` for a name or URI the catalog does not have, with the key in `data` (`field`).
pub(crate) fn unknown(kind: &str, field: &str, key: &str) -> RpcError {
    RpcError::invalid_params(format!("Unknown {kind}: {key}"))
        .with_data(serde_json::json!({ field: key }))
}

pub(crate) fn method_not_found(method: &str) -> RpcError {
    let hint = crate::engine::hint::nearest_method(method)
        .map(|near| format!("; did you mean `{near}`?"))
        .unwrap_or_default();
    RpcError::new(
        code::METHOD_NOT_FOUND,
        format!("Method not found: `{method}` is not a method this server offers{hint}"),
    )
}

/// Handles a notification of a session. For a `notifications/cancelled` naming a request
/// that is no longer being handled (its connection may have closed first), gives its id.
pub(crate) fn notification<'p>(
    session: &Session,
    method: &str,
    params: &'p Value,
) -> Option<&'p Value> {
    match method {
        "notifications/initialized" => session.mark_initialized(),
        "notifications/cancelled" => {
            let id = params.get("requestId")?;
            return (!session.cancel(id)).then_some(id);
        }
        _ => {}
    }
    None
}
