//! Admission of a legacy message: the session it names, its expiry, and its version header
//! (2025-11-25 transports page, "Session Management", "Protocol Version Header").

use std::sync::Arc;

use super::Inbound;
use crate::engine::Engine;
use crate::engine::protocol::jsonrpc::{RpcError, code};
use crate::engine::protocol::modern::Refusal;
use crate::engine::protocol::{Status, era};
use crate::engine::state::session::Session;

/// Ends the session the message names if it has expired, so the message gets `404` like
/// any message of an ended session. Returns the label for the capture when it did.
pub(crate) fn expire_if_due(engine: &Engine, inbound: &Inbound) -> Option<String> {
    let id = inbound.named_session()?;
    let label = engine.expiry.due(id, engine.clock.now())?;
    engine.sessions.remove(id);
    Some(label)
}

/// Finds the session the message names and checks its version header: a bad request
/// without an id or with a bad version, not found for an unknown or ended session.
pub(crate) fn session(engine: &Engine, inbound: &Inbound) -> Result<Arc<Session>, Refusal> {
    // From the headers' one pass. A value that is not text names no session (`404`) and no
    // version this server speaks (`400`), as a lookup read it.
    let (named, sent) = match &inbound.mcp {
        Some(mcp) => (
            mcp.session
                .as_ref()
                .map(|id| id.to_str().unwrap_or_default()),
            mcp.version
                .as_ref()
                .map(|v| v.to_str().unwrap_or("(not ASCII)")),
        ),
        None => (inbound.session.as_deref(), None),
    };
    let Some(id) = named else {
        return Err((
            Status::BadRequest,
            RpcError::new(
                code::INVALID_REQUEST,
                "Bad request: missing Mcp-Session-Id header; send initialize first, then the id its response carried",
            ),
        ));
    };
    let Some(session) = engine.sessions.get(id) else {
        return Err((Status::NotFound, session_gone(id)));
    };
    era::check_header(sent, session.version, &engine.versions).map_err(|message| {
        (
            Status::BadRequest,
            RpcError::new(code::INVALID_REQUEST, format!("Bad request: {message}")),
        )
    })?;
    Ok(session)
}

/// The error of an ended or unknown session.
pub(crate) fn session_gone(id: &str) -> RpcError {
    RpcError::new(
        code::SESSION_NOT_FOUND,
        format!(
            "Session not found: `{id}` has ended or never existed; send initialize without an Mcp-Session-Id header to start a new session"
        ),
    )
}
