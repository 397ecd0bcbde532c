//! `json-schema-ref-no-deref`: a client MUST NOT fetch a `$ref` that resolves to a network URI
//! in a tool's `inputSchema` (SEP-2106; the suite's
//! `src/scenarios/client/json-schema-ref-deref.ts`).

use serde_json::json;

use crate::grade::check::{Check, CheckStatus, SpecReference};
use crate::log::{Entry, HttpKind, Log};
use crate::spec::ResponseMode;
use crate::{MockMcpServer, MockMcpServerBuilder, Tool};

const TOOL: &str = "lookup_user";
/// Served by the scenario's own listener, so a client that fetches it is seen doing so.
const CANARY_PATH: &str = "/canary/profile-schema.json";

fn sep_2106() -> SpecReference {
    SpecReference::new(
        "SEP-2106",
        "https://modelcontextprotocol.io/seps/2106-json-schema-2020-12#security-implications",
    )
}

/// The suite's server answers through the SDK's transport, on an event stream.
pub(super) fn server() -> MockMcpServerBuilder {
    MockMcpServer::builder()
        .name("json-schema-ref-deref-server")
        .version("1.0.0")
        .response_mode(ResponseMode::Sse)
}

/// The tool names the canary by the server's own address, known once it listens.
pub(super) fn prepare(server: &MockMcpServer) -> Result<(), crate::Error> {
    let url = server.url();
    let origin = url.strip_suffix("/mcp").unwrap_or(&url);
    server.add_tool(
        Tool::new(TOOL)
            .description("Look up a user profile by id")
            .input_schema(json!({
                "$schema": "https://json-schema.org/draft/2020-12/schema",
                "type": "object",
                "$defs": { "userId": { "type": "string", "pattern": "^[a-z0-9-]+$" } },
                "properties": {
                    "id": { "$ref": "#/$defs/userId" },
                    "profile": { "$ref": format!("{origin}{CANARY_PATH}") }
                },
                "required": ["id"]
            })),
    )
}

pub(super) fn checks(log: &Log, _version: crate::ProtocolVersion) -> Vec<Check> {
    let listed = log.mcp().from_client().method("tools/list").count() > 0;
    let check = |description: &str, status| {
        Check::new(
            "sep-2106-no-network-ref-deref",
            "NoNetworkRefDereference",
            description,
            status,
            sep_2106(),
        )
    };
    if !listed {
        return vec![
            check(
                "Client never requested tools/list, so $ref handling could not be evaluated",
                CheckStatus::Failure,
            )
            .details(json!({ "toolsListed": false }))
            .error(
                "Client did not call tools/list against a server advertising a tool with a \
                 network $ref",
            ),
        ];
    }
    let fetches: Vec<&str> = log
        .records()
        .iter()
        .filter_map(|record| match &record.entry {
            Entry::Http(h) if h.kind == HttpKind::Exchange && h.path == CANARY_PATH => {
                Some(h.method.as_str())
            }
            _ => None,
        })
        .collect();
    let details =
        json!({ "toolsListed": true, "canaryRequests": fetches.len(), "methods": fetches });
    if fetches.is_empty() {
        vec![
            check(
                "Client did not dereference the network-URI $ref in the tool inputSchema",
                CheckStatus::Success,
            )
            .details(details),
        ]
    } else {
        vec![
            check(
                "Client automatically dereferenced a network-URI $ref in a tool inputSchema. \
                 Implementations MUST NOT automatically dereference $ref values that resolve to \
                 a network URI (SEP-2106).",
                CheckStatus::Failure,
            )
            .details(details)
            .error(format!(
                "Canary URL {CANARY_PATH} was fetched {} time(s)",
                fetches.len()
            )),
        ]
    }
}
