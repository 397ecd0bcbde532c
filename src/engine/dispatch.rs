//! Routes a JSON-RPC method to its handler in `methods/`. No HTTP here.

use serde_json::Value;

use super::Engine;
use super::jsonrpc::{RpcError, code};
use super::methods::{lifecycle, tools};
use super::session::Session;

/// The methods a legacy session can call (besides `initialize`, which opens the session).
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub(crate) enum Method {
    Ping,
    ToolsList,
    ToolsCall,
}

impl Method {
    pub(crate) fn parse(method: &str) -> Option<Self> {
        Some(match method {
            "ping" => Method::Ping,
            "tools/list" => Method::ToolsList,
            "tools/call" => Method::ToolsCall,
            _ => return None,
        })
    }
}

/// Answers one request of a session.
pub(crate) fn request(
    engine: &Engine,
    _session: &Session,
    method: &str,
    params: &Value,
) -> Result<Value, RpcError> {
    match Method::parse(method) {
        Some(Method::Ping) => Ok(lifecycle::ping()),
        Some(Method::ToolsList) => tools::list(engine, params),
        Some(Method::ToolsCall) => tools::call(engine, params),
        None if method == "initialize" => Err(RpcError::new(
            code::INVALID_REQUEST,
            "initialize: this session is already initialized; to start a new session, send initialize without an Mcp-Session-Id header",
        )),
        None => Err(RpcError::new(
            code::METHOD_NOT_FOUND,
            format!("Method not found: `{method}` is not a method this server offers"),
        )),
    }
}

/// Handles a notification of a session.
pub(crate) fn notification(session: &Session, method: &str) {
    if method == "notifications/initialized" {
        session.mark_initialized();
    }
    // `notifications/cancelled` and others need no action yet: every request is answered
    // before the next one is read.
}
