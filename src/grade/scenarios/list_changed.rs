//! `list-changed-relisted`, mcp-decoy's own: a tool call changes the catalog and the server
//! sends `notifications/tools/list_changed`; the client lists the tools again (2025-11-25
//! `server/tools`, "List Changed Notification": servers that declare `listChanged` SHOULD
//! send it; a client that keeps a tool list stale calls tools that no longer match).

use serde_json::json;

use crate::grade::check::{Check, CheckStatus, SpecReference};
use crate::log::Log;
use crate::spec::Listing;
use crate::{MockMcpServer, MockMcpServerBuilder, ProtocolVersion, Tool};

const TOOL: &str = "refresh_catalog";
const NOTIFICATION: &str = "notifications/tools/list_changed";

pub(super) fn server() -> MockMcpServerBuilder {
    MockMcpServer::builder().name("list-changed-server").tool(
        Tool::new(TOOL)
            .description("Changes the catalog: list the tools again once told so")
            .notify(Listing::Tools)
            .respond_with(json!({ "content": [{ "type": "text", "text": "catalog changed" }] })),
    )
}

pub(super) fn checks(log: &Log, _version: ProtocolVersion) -> Vec<Check> {
    let check = |status| {
        Check::new(
            "list-changed-relisted",
            "ListChangedRelisted",
            "After notifications/tools/list_changed the client lists the tools again",
            status,
            SpecReference::new(
                "MCP-Tools-List-Changed",
                "https://modelcontextprotocol.io/specification/2025-11-25/server/tools#list-changed-notification",
            ),
        )
    };
    let Some(told) = log
        .mcp()
        .from_server()
        .method(NOTIFICATION)
        .records()
        .first()
        .map(|(record, _)| record.at)
    else {
        let why = if super::called(log, TOOL) {
            format!(
                "the client called {TOOL} but opened no stream the server could send {NOTIFICATION} on (a GET stream), so it never heard of the change"
            )
        } else {
            format!("the server never sent {NOTIFICATION}: the client did not call {TOOL}")
        };
        return vec![check(CheckStatus::Skipped).error(why)];
    };
    let relisted = log
        .mcp()
        .from_client()
        .method("tools/list")
        .records()
        .into_iter()
        .filter(|(record, _)| record.at >= told)
        .count();
    if relisted > 0 {
        vec![check(CheckStatus::Success).details(json!({ "listsAfter": relisted }))]
    } else {
        vec![check(CheckStatus::Failure).error(format!(
            "the client never listed the tools again after {NOTIFICATION}"
        ))]
    }
}
