//! The suite's client scenarios that the grader plays: for each, the server it serves and
//! the checks it reads from the capture, as the suite's scenario server
//! (`src/scenarios/client/*.ts` of `@modelcontextprotocol/conformance`) serves and checks.

use serde_json::{Value, json};

use super::check::{Check, CheckStatus, SpecReference};
use crate::log::{Log, RpcMessage};
use crate::{MockMcpServer, MockMcpServerBuilder, ProtocolVersion, Tool};

/// One scenario: its name, where it applies on the spec timeline, what it serves and how it
/// judges.
pub(super) struct Play {
    pub(super) name: &'static str,
    pub(super) description: &'static str,
    pub(super) introduced_in: ProtocolVersion,
    pub(super) removed_in: Option<ProtocolVersion>,
    pub(super) serve: fn() -> MockMcpServerBuilder,
    pub(super) judge: fn(&Log) -> Vec<Check>,
    /// Whether the suite checks the client's messages against the schema in this scenario
    /// (`wire-schema-valid`): its scenario servers built on its mock server do, the ones
    /// that answer raw HTTP by hand (`initialize`) do not.
    pub(super) wire: bool,
}

pub(super) const PLAYS: &[Play] = &[
    Play {
        name: "initialize",
        description: "Tests MCP client initialization handshake",
        introduced_in: ProtocolVersion::V2025_06_18,
        removed_in: Some(ProtocolVersion::V2026_07_28),
        serve: initialize_server,
        judge: initialize_checks,
        wire: false,
    },
    Play {
        name: "tools_call",
        description: "Tests calling tools with various parameter types",
        introduced_in: ProtocolVersion::V2025_06_18,
        removed_in: None,
        serve: tools_call_server,
        judge: tools_call_checks,
        wire: true,
    },
];

const LIFECYCLE: (&str, &str) = (
    "MCP-Lifecycle",
    "https://modelcontextprotocol.io/specification/2025-06-18/basic/lifecycle",
);

/// The versions the suite's `initialize` check accepts from a client.
const NEGOTIABLE: [&str; 3] = ["2025-06-18", "2025-11-25", "2026-07-28"];
/// The version that check expects (the suite's `LATEST_SPEC_VERSION`).
const EXPECTED: &str = "2025-11-25";

fn initialize_server() -> MockMcpServerBuilder {
    MockMcpServer::builder()
        .name("test-server")
        .version("1.0.0")
}

/// The client's first request with `method`.
fn first_request<'a>(log: &'a Log, method: &str) -> Option<&'a RpcMessage> {
    log.mcp().from_client().method(method).first()
}

fn initialize_checks(log: &Log) -> Vec<Check> {
    let reference = || SpecReference::new(LIFECYCLE.0, LIFECYCLE.1);
    let description = "Validates that MCP client properly initializes with server";
    let Some(initialize) = first_request(log, "initialize") else {
        return vec![
            Check::new(
                "mcp-client-initialization",
                "MCPClientInitialization",
                description,
                CheckStatus::Failure,
                reference(),
            )
            .error("the client never sent initialize"),
        ];
    };
    let params = initialize.params();
    let sent = params.get("protocolVersion").and_then(Value::as_str);
    let client_info = |member: &str| {
        params
            .pointer(&format!("/clientInfo/{member}"))
            .and_then(Value::as_str)
            .filter(|s| !s.is_empty())
    };
    let version_match = sent.is_some_and(|v| NEGOTIABLE.contains(&v));
    let mut errors = Vec::new();
    if sent.is_none() {
        errors.push("Protocol version not provided".to_string());
    }
    if !version_match {
        errors.push(format!(
            "Version mismatch: expected {EXPECTED}, got {}",
            sent.unwrap_or("undefined")
        ));
    }
    if client_info("name").is_none() {
        errors.push("Client name missing".into());
    }
    if client_info("version").is_none() {
        errors.push("Client version missing".into());
    }
    let status = if errors.is_empty() {
        CheckStatus::Success
    } else {
        CheckStatus::Failure
    };
    let mut check = Check::new(
        "mcp-client-initialization",
        "MCPClientInitialization",
        description,
        status,
        reference(),
    )
    .details(json!({
        "protocolVersionSent": sent,
        "expectedSpecVersion": EXPECTED,
        "versionMatch": version_match,
        "clientName": client_info("name"),
        "clientVersion": client_info("version"),
    }));
    if !errors.is_empty() {
        check = check.error(errors.join("; "));
    }
    let server_info = Check::new(
        "server-info",
        "ServerInfo",
        "Test server info returned to client",
        CheckStatus::Info,
        reference(),
    )
    .details(json!({ "serverName": "test-server", "serverVersion": "1.0.0" }));
    vec![check, server_info]
}

fn tools_call_server() -> MockMcpServerBuilder {
    MockMcpServer::builder().tool(
        Tool::new("add_numbers")
            .description("Add two numbers together")
            .input_schema(json!({
                "type": "object",
                "properties": {
                    "a": { "type": "number", "description": "First number" },
                    "b": { "type": "number", "description": "Second number" }
                },
                "required": ["a", "b"]
            }))
            .respond_with(json!({
                "content": [{ "type": "text", "text": "The sum of ${args.a} and ${args.b} is ${args.a + args.b}" }]
            })),
    )
}

fn tools_call_checks(log: &Log) -> Vec<Check> {
    let reference = SpecReference::new(
        "MCP-Tools",
        "https://modelcontextprotocol.io/specification/2025-06-18/server/tools#calling-tools",
    );
    let call = first_request(log, "tools/call");
    let arguments = call.map(|c| &c.params()["arguments"]);
    let number = |name: &str| arguments.and_then(|a| a.get(name)).and_then(Value::as_f64);
    let check = Check::new(
        "tool-add-numbers",
        "ToolAddNumbers",
        "Validates that the add_numbers tool works correctly",
        CheckStatus::Success,
        reference,
    );
    match (number("a"), number("b")) {
        (Some(a), Some(b)) => vec![check.details(json!({ "a": a, "b": b, "result": a + b }))],
        _ => {
            let why = match call {
                None => "Tool was not called by client".to_string(),
                Some(call) => format!(
                    "the call's arguments are not two numbers `a` and `b`: {}",
                    call.params()["arguments"]
                ),
            };
            vec![Check {
                status: CheckStatus::Failure,
                ..check.details(json!({ "message": why.clone() })).error(why)
            }]
        }
    }
}
