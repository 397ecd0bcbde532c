//! `era-fallback-initialize`, mcp-decoy's own: the server speaks only the legacy revisions;
//! a client that prefers 2026-07-28 probes it, is refused (400, no modern answer), and falls
//! back to `initialize` (2026-07-28 `basic/versioning`: a client supporting both eras falls
//! back to the legacy handshake when a server does not answer the modern one).

use serde_json::json;

use crate::grade::check::{Check, CheckStatus, SpecReference};
use crate::log::{Entry, HttpKind, Log};
use crate::{MockMcpServer, MockMcpServerBuilder, ProtocolVersion, Tool};

const TOOL: &str = "hello";
const META_VERSION: &str = "io.modelcontextprotocol/protocolVersion";

pub(super) fn server() -> MockMcpServerBuilder {
    MockMcpServer::builder()
        .name("era-fallback-server")
        .protocol_versions([
            ProtocolVersion::V2025_03_26,
            ProtocolVersion::V2025_06_18,
            ProtocolVersion::V2025_11_25,
        ])
        .tool(
            Tool::new(TOOL)
                .description("Answers once the client has a session")
                .respond_with(json!({ "content": [{ "type": "text", "text": "hello" }] })),
        )
}

pub(super) fn checks(log: &Log, _version: ProtocolVersion) -> Vec<Check> {
    let check = |id: &str, name: &str, description: &str, status| {
        Check::new(
            id,
            name,
            description,
            status,
            SpecReference::new(
                "MCP-Versioning",
                "https://modelcontextprotocol.io/specification/2026-07-28/basic/versioning",
            ),
        )
    };
    let probed = |status| {
        check(
            "era-fallback-probed",
            "EraFallbackProbed",
            "A client that prefers 2026-07-28 first sends a 2026-07-28 request",
            status,
        )
    };
    let fell_back = |status| {
        check(
            "era-fallback-initialized",
            "EraFallbackInitialized",
            "Refused by a server of the legacy revisions only, the client falls back to initialize and works",
            status,
        )
    };
    // The first POST that was a 2026-07-28 request (`server/discover`, or `_meta` naming a
    // revision) and was not answered 200.
    let probe = log.records().iter().find_map(|record| match &record.entry {
        Entry::Http(h) if h.kind == HttpKind::Exchange && h.method == "POST" => {
            let body = h.request_body.as_ref()?.value();
            let modern = body["method"] == "server/discover"
                || body["params"]["_meta"].get(META_VERSION).is_some();
            (modern && h.status != Some(200)).then(|| {
                (
                    record.at,
                    body["method"].as_str().unwrap_or("?").to_string(),
                    h.status,
                )
            })
        }
        _ => None,
    });
    let Some((refused_at, method, status)) = probe else {
        let why = "the client sent no 2026-07-28 request, so it had nothing to fall back from";
        return vec![
            probed(CheckStatus::Skipped).error(why),
            fell_back(CheckStatus::Skipped).error(why),
        ];
    };
    let first = probed(CheckStatus::Success).details(json!({ "method": method, "status": status }));
    let initialized = log
        .mcp()
        .from_client()
        .method("initialize")
        .records()
        .into_iter()
        .any(|(record, m)| {
            record.at > refused_at
                && m.response
                    .as_ref()
                    .is_some_and(|r| r.value().get("result").is_some())
        });
    let worked = log
        .mcp()
        .from_client()
        .method("tools/call")
        .records()
        .into_iter()
        .any(|(record, m)| {
            record.at > refused_at
                && m.params()["name"] == TOOL
                && m.response
                    .as_ref()
                    .is_some_and(|r| r.value().get("result").is_some())
        });
    let second = match (initialized, worked) {
        (true, true) => fell_back(CheckStatus::Success),
        (true, false) => fell_back(CheckStatus::Failure).error(format!(
            "the client initialized after the refused {method} but never called {TOOL} in the session"
        )),
        (false, _) => fell_back(CheckStatus::Failure).error(format!(
            "the client's {method} was refused ({}) and it never sent initialize",
            status.map_or("no status".to_string(), |s| s.to_string())
        )),
    };
    vec![first, second]
}
