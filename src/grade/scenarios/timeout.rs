//! `cancel-on-timeout`, mcp-decoy's own: a tool that takes far longer than a client should
//! wait; the client gives up on its own timeout and tells the server (2025-11-25
//! `basic/utilities/cancellation`: a `notifications/cancelled` for the request, as
//! "disconnection SHOULD NOT be interpreted as the client cancelling its request"; at
//! 2026-07-28 closing the request's stream cancels it).

use std::time::Duration;

use serde_json::json;

use crate::grade::check::{Check, CheckStatus, SpecReference};
use crate::log::{Log, RequestEnd};
use crate::{MockMcpServer, MockMcpServerBuilder, ProtocolVersion, Tool};

const TOOL: &str = "stall";

pub(super) fn server() -> MockMcpServerBuilder {
    MockMcpServer::builder()
        .name("cancel-on-timeout-server")
        .tool(
            Tool::new(TOOL)
                .description("Takes a minute: give up after a few seconds and cancel")
                .delay(Duration::from_secs(60))
                .respond_with(json!({ "content": [{ "type": "text", "text": "finally" }] })),
        )
}

pub(super) fn checks(log: &Log, version: ProtocolVersion) -> Vec<Check> {
    let url = if version.is_modern() {
        "https://modelcontextprotocol.io/specification/2026-07-28/basic/utilities/cancellation"
    } else {
        "https://modelcontextprotocol.io/specification/2025-11-25/basic/utilities/cancellation"
    };
    let check = |status| {
        Check::new(
            "timeout-request-cancelled",
            "TimeoutRequestCancelled",
            "A client that stops waiting for a request cancels it",
            status,
            SpecReference::new("MCP-Cancellation", url),
        )
    };
    let calls = log.mcp().from_client().method("tools/call").all();
    let Some(call) = calls.into_iter().find(|m| m.params()["name"] == TOOL) else {
        return vec![check(CheckStatus::Skipped).error(format!("the client never called {TOOL}"))];
    };
    // A `notifications/cancelled` naming the call counts even when it came after the client
    // had closed the call's connection.
    let notified = log
        .mcp()
        .from_client()
        .method("notifications/cancelled")
        .all()
        .into_iter()
        .any(|m| Some(&m.params()["requestId"]) == call.rpc_id());
    let details = json!({ "end": call.end, "durationMs": call.duration_ms, "cancelledNotification": notified });
    match call.end {
        _ if notified => vec![check(CheckStatus::Success).details(details)],
        Some(RequestEnd::CancelledByClient) => vec![check(CheckStatus::Success).details(details)],
        Some(RequestEnd::ConnectionClosed) => vec![check(CheckStatus::Failure).details(details).error(
            "the client closed the connection without notifications/cancelled, which a 2025-11-25 server must not take as cancelling the request",
        )],
        _ => vec![check(CheckStatus::Failure).details(details).error(format!(
            "the client never cancelled its call of {TOOL}: it was still waiting when the run ended"
        ))],
    }
}
