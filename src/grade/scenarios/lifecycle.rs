//! `initialize`: the client's handshake (the suite's `src/scenarios/client/initialize.ts`).

use serde_json::{Value, json};

use super::first_request;
use crate::grade::check::{Check, CheckStatus, SpecReference};
use crate::log::Log;
use crate::{MockMcpServer, MockMcpServerBuilder};

const LIFECYCLE: (&str, &str) = (
    "MCP-Lifecycle",
    "https://modelcontextprotocol.io/specification/2025-06-18/basic/lifecycle",
);

/// The versions the suite's `initialize` check accepts from a client.
const NEGOTIABLE: [&str; 3] = ["2025-06-18", "2025-11-25", "2026-07-28"];
/// The version that check expects (the suite's `LATEST_SPEC_VERSION`).
const EXPECTED: &str = "2025-11-25";

pub(super) fn initialize_server() -> MockMcpServerBuilder {
    MockMcpServer::builder()
        .name("test-server")
        .version("1.0.0")
}

pub(super) fn initialize_checks(log: &Log, _version: crate::ProtocolVersion) -> Vec<Check> {
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
