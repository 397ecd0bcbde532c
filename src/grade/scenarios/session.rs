//! `session-expired-reinitialize`, mcp-decoy's own: the server ends the client's session
//! after a few requests; the next request gets `404`, and the client starts a new session
//! and goes on (2025-11-25 `basic/transports`, "Session Management": "When a client
//! receives HTTP 404 in response to a request containing an `Mcp-Session-Id`, it MUST start a
//! new session by sending a new `InitializeRequest` without a session ID attached").

use serde_json::json;

use crate::grade::check::{Check, CheckStatus, SpecReference};
use crate::log::{Entry, HttpKind, Log};
use crate::spec::SessionExpiry;
use crate::{MockMcpServer, MockMcpServerBuilder, ProtocolVersion, Tool};

const TOOL: &str = "count_me";

/// Requests a session answers after `initialize` before it ends (notifications do not count):
/// the third call gets the 404.
const REQUESTS: u64 = 2;

pub(super) fn server() -> MockMcpServerBuilder {
    MockMcpServer::builder()
        .name("session-expired-server")
        .session_expiry(SessionExpiry {
            after_requests: Some(REQUESTS),
            after_ms: None,
        })
        .tool(
            Tool::new(TOOL)
                .description("Call it three times: the session ends on the way")
                .respond_with(json!({ "content": [{ "type": "text", "text": "counted" }] })),
        )
}

fn reference() -> SpecReference {
    SpecReference::new(
        "MCP-Session-Management",
        "https://modelcontextprotocol.io/specification/2025-11-25/basic/transports#session-management",
    )
}

pub(super) fn checks(log: &Log, _version: ProtocolVersion) -> Vec<Check> {
    let check = |id: &str, name: &str, description: &str, status| {
        Check::new(id, name, description, status, reference())
    };
    let renewed = |status| {
        check(
            "session-reinitialized-after-404",
            "SessionReinitializedAfter404",
            "After a 404 for its session, the client starts a new session with initialize (no session id)",
            status,
        )
    };
    let dropped = |status| {
        check(
            "session-expired-id-dropped",
            "SessionExpiredIdDropped",
            "After the new session starts, the client never sends the expired session id again",
            status,
        )
    };
    // The first 404 to a request that carried a session id: the session had ended.
    let expired = log.records().iter().find_map(|record| match &record.entry {
        Entry::Http(h) if h.kind == HttpKind::Exchange && h.status == Some(404) => h
            .request_headers
            .get("mcp-session-id")
            .map(|id| (record.at, id.to_string())),
        _ => None,
    });
    let Some((ended_at, old)) = expired else {
        let why = format!(
            "the client never reached the end of its session (after {REQUESTS} requests), so it never got the 404"
        );
        return vec![
            renewed(CheckStatus::Skipped).error(why.clone()),
            dropped(CheckStatus::Skipped).error(why),
        ];
    };
    let later = |method: &str| {
        log.mcp()
            .from_client()
            .method(method)
            .records()
            .into_iter()
            .filter(move |(record, _)| record.at > ended_at)
    };
    let reinitialized = later("initialize").next().is_some();
    let called_after = later("tools/call")
        .filter(|(_, m)| {
            m.session.as_deref().is_some_and(|s| s != old)
                && m.response
                    .as_ref()
                    .is_some_and(|r| r.value().get("result").is_some())
        })
        .count();
    let first = if reinitialized {
        renewed(CheckStatus::Success)
            .details(json!({ "expiredSession": old, "callsAfter": called_after }))
    } else {
        renewed(CheckStatus::Failure).error(format!(
            "the client got 404 for its expired session {old} and never sent a new initialize"
        ))
    };
    let reused = log
        .records()
        .iter()
        .filter(|record| record.at > ended_at)
        .filter(|record| match &record.entry {
            Entry::Http(h) => h.request_headers.get("mcp-session-id") == Some(old.as_str()),
            _ => false,
        })
        .count();
    let second = if !reinitialized {
        dropped(CheckStatus::Skipped).error("no new session was started")
    } else if reused == 0 {
        dropped(CheckStatus::Success)
    } else {
        dropped(CheckStatus::Failure).error(format!(
            "the client sent the expired session id {old} {reused} more time(s) after the 404"
        ))
    };
    vec![first, second]
}
