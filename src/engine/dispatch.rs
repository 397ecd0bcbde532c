//! Routes a JSON-RPC method to its handler in `methods/`. No HTTP here.

use std::sync::Arc;

use serde_json::Value;

use super::Engine;
use super::jsonrpc::{RpcError, code};
use super::methods::{completion, lifecycle, logging, prompts, resources, tools};
use super::outbox::Outbox;
use super::session::Session;

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
    /// For `tools/call`: the tool response the transport picked (see `responses`).
    pub(crate) chosen: Option<super::responses::Chosen>,
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

/// The methods a legacy session can call (besides `initialize`, which opens the session).
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub(crate) enum Method {
    Ping,
    ToolsList,
    ToolsCall,
    ResourcesList,
    ResourceTemplatesList,
    ResourcesRead,
    ResourcesSubscribe,
    ResourcesUnsubscribe,
    PromptsList,
    PromptsGet,
    CompletionComplete,
    LoggingSetLevel,
    ServerDiscover,
    /// 2026-07-28 only; the HTTP transport answers it with a long-lived stream
    /// (`methods::listen`) before dispatch.
    SubscriptionsListen,
}

impl Method {
    pub(crate) fn parse(method: &str) -> Option<Self> {
        Some(match method {
            "ping" => Method::Ping,
            "tools/list" => Method::ToolsList,
            "tools/call" => Method::ToolsCall,
            "resources/list" => Method::ResourcesList,
            "resources/templates/list" => Method::ResourceTemplatesList,
            "resources/read" => Method::ResourcesRead,
            "resources/subscribe" => Method::ResourcesSubscribe,
            "resources/unsubscribe" => Method::ResourcesUnsubscribe,
            "prompts/list" => Method::PromptsList,
            "prompts/get" => Method::PromptsGet,
            "completion/complete" => Method::CompletionComplete,
            "logging/setLevel" => Method::LoggingSetLevel,
            "server/discover" => Method::ServerDiscover,
            "subscriptions/listen" => Method::SubscriptionsListen,
            _ => return None,
        })
    }
}

/// Answers one request of a session.
pub(crate) async fn request(ctx: &RequestCtx, method: &str) -> Result<Value, RpcError> {
    match Method::parse(method) {
        Some(Method::Ping) => Ok(lifecycle::ping()),
        Some(Method::ToolsList) => tools::list(ctx),
        Some(Method::ToolsCall) => tools::call(ctx).await,
        Some(Method::ResourcesList) => resources::list(ctx),
        Some(Method::ResourceTemplatesList) => resources::list_templates(ctx),
        Some(Method::ResourcesRead) => resources::read(ctx),
        Some(Method::ResourcesSubscribe) => resources::subscribe(ctx),
        Some(Method::ResourcesUnsubscribe) => resources::unsubscribe(ctx),
        Some(Method::PromptsList) => prompts::list(ctx),
        Some(Method::PromptsGet) => prompts::get(ctx),
        Some(Method::CompletionComplete) => completion::complete(ctx),
        Some(Method::LoggingSetLevel) => logging::set_level(ctx),
        // Only the modern era has discovery; a legacy client has `initialize`.
        Some(Method::ServerDiscover) if ctx.session.version.is_modern() => {
            Ok(super::modern::discover(&ctx.engine))
        }
        Some(Method::ServerDiscover) => Err(method_not_found(method)),
        // A legacy session has its GET stream instead; a modern listen never gets here (the
        // transport streams it), so either way there is nothing to answer here.
        Some(Method::SubscriptionsListen) => Err(method_not_found(method)),
        None if method == "initialize" => Err(RpcError::new(
            code::INVALID_REQUEST,
            "initialize: this session is already initialized; to start a new session, send initialize without an Mcp-Session-Id header",
        )),
        None => Err(method_not_found(method)),
    }
}

pub(crate) fn method_not_found(method: &str) -> RpcError {
    RpcError::new(
        code::METHOD_NOT_FOUND,
        format!("Method not found: `{method}` is not a method this server offers"),
    )
}

/// Handles a notification of a session.
pub(crate) fn notification(session: &Session, method: &str, params: &Value) {
    match method {
        "notifications/initialized" => session.mark_initialized(),
        "notifications/cancelled" => {
            if let Some(id) = params.get("requestId") {
                session.cancel(id);
            }
        }
        _ => {}
    }
}
