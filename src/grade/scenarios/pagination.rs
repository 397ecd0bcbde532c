//! `pagination-followed`, mcp-decoy's own: the server lists its tools two to a page; the
//! client follows `nextCursor` to the last page (2025-11-25 `server/utilities/pagination`:
//! "clients ... SHOULD treat a missing nextCursor as the end of results"; the catalog is only
//! whole once every page was read).

use serde_json::json;

use crate::grade::check::{Check, CheckStatus, SpecReference};
use crate::log::Log;
use crate::{MockMcpServer, MockMcpServerBuilder, ProtocolVersion, Tool};

const TOOLS: [&str; 5] = ["alpha", "bravo", "charlie", "delta", "echo_last"];

pub(super) fn server() -> MockMcpServerBuilder {
    let mut builder = MockMcpServer::builder()
        .name("pagination-followed-server")
        .page_size(2);
    for name in TOOLS {
        builder = builder.tool(Tool::new(name).description("One tool of a paged listing"));
    }
    builder
}

pub(super) fn checks(log: &Log, version: ProtocolVersion) -> Vec<Check> {
    let url = format!(
        "https://modelcontextprotocol.io/specification/{}/server/utilities/pagination",
        if version.is_modern() {
            "2026-07-28"
        } else {
            "2025-11-25"
        }
    );
    let check = |status| {
        Check::new(
            "pagination-followed-to-end",
            "PaginationFollowedToEnd",
            "The client follows nextCursor until a page without one, so it sees every tool",
            status,
            SpecReference::new("MCP-Pagination", &url),
        )
    };
    let lists = log.mcp().from_client().method("tools/list").all();
    if lists.is_empty() {
        return vec![check(CheckStatus::Failure).error("the client never listed the tools")];
    }
    let issued: Vec<String> = lists
        .iter()
        .filter_map(|m| {
            m.response.as_ref()?.value()["result"]["nextCursor"]
                .as_str()
                .map(str::to_string)
        })
        .collect();
    let sent: Vec<String> = lists
        .iter()
        .filter_map(|m| m.params()["cursor"].as_str().map(str::to_string))
        .collect();
    let reached_end = lists.iter().any(|m| {
        m.response.as_ref().is_some_and(|r| {
            let result = &r.value()["result"];
            result.get("tools").is_some() && result.get("nextCursor").is_none()
        }) && m.params().get("cursor").is_some()
    });
    let pages = TOOLS.len().div_ceil(2);
    let details = json!({ "requests": lists.len(), "cursorsIssued": issued, "cursorsSent": sent });
    if reached_end {
        vec![check(CheckStatus::Success).details(details)]
    } else {
        let unfollowed: Vec<&String> = issued.iter().filter(|c| !sent.contains(c)).collect();
        vec![check(CheckStatus::Failure).details(details).error(format!(
            "the client read {} of the {pages} pages of tools/list: it never sent the cursor {}",
            sent.len() + 1,
            unfollowed
                .first()
                .map_or_else(|| "of the next page".to_string(), |c| format!("`{c}`"))
        ))]
    }
}
