//! `http-standard-headers`: every POST carries `Mcp-Method`, equal to its body's `method`,
//! and `tools/call`, `resources/read` and `prompts/get` carry `Mcp-Name`, equal to the name
//! or URI they address (SEP-2243; the suite's `src/scenarios/client/http-standard-headers.ts`).

use serde_json::{Value, json};

use super::{js_string, posts};
use crate::grade::check::{Check, CheckStatus, SpecReference};
use crate::log::Log;
use crate::{MockMcpServer, MockMcpServerBuilder, Prompt, ProtocolVersion, Resource, Tool};

const ID: &str = "sep-2243-client-includes-standard-headers";
/// The methods whose `Mcp-Method` the scenario expects to see; one never sent is SKIPPED.
const EXPECTED: [&str; 8] = [
    "initialize",
    "notifications/initialized",
    "tools/list",
    "tools/call",
    "resources/list",
    "resources/read",
    "prompts/list",
    "prompts/get",
];
const NAMED: [&str; 3] = ["tools/call", "resources/read", "prompts/get"];

fn reference() -> SpecReference {
    SpecReference::new(
        "SEP-2243-Standard-Headers",
        "https://modelcontextprotocol.io/specification/draft/basic/transports#standard-mcp-request-headers",
    )
}

pub(super) fn server() -> MockMcpServerBuilder {
    let empty = || json!({ "type": "object", "properties": {}, "required": [] });
    let done = json!({ "content": [{ "type": "text", "text": "Headers test completed" }] });
    MockMcpServer::builder()
        .name("http-standard-headers-server")
        .version("1.0.0")
        .tool(
            Tool::new("test_headers")
                .description("A simple tool used to test that HTTP headers are sent correctly")
                .input_schema(empty())
                .respond_with(done.clone()),
        )
        .tool(
            Tool::new("my-hyphenated-tool")
                .description("Tool with hyphen in name to test special chars in Mcp-Name header")
                .input_schema(empty())
                .respond_with(done),
        )
        .resource(
            Resource::text("file:///path/to/file%20name.txt", "")
                .name("File with spaces")
                .description("Resource URI with percent-encoded spaces"),
        )
        .resource(
            Resource::text("https://example.com/resource?id=123", "")
                .name("Resource with query string")
                .description("Resource URI with query string"),
        )
        .prompt(
            Prompt::new("test_prompt")
                .description("A simple prompt for header testing")
                .respond_with(json!([])),
        )
}

fn label(method: &str) -> String {
    method.replace('/', "_")
}

/// A header the suite counts as sent: present and not empty.
fn sent(value: Option<&str>) -> Option<&str> {
    value.filter(|v| !v.is_empty())
}

pub(super) fn checks(log: &Log, _version: ProtocolVersion) -> Vec<Check> {
    let mut checks = Vec::new();
    let mut methods_seen: Vec<String> = Vec::new();
    let mut names_seen: Vec<String> = Vec::new();
    for (exchange, body) in posts(log) {
        let Some(method) = body.get("method").and_then(Value::as_str) else {
            continue;
        };
        // The suite answers discovery before it looks at headers.
        if method == "server/discover" {
            continue;
        }
        if !methods_seen.iter().any(|m| m == method) {
            methods_seen.push(method.to_string());
            let header = exchange.request_header("mcp-method");
            let error = match sent(header) {
                None => Some(format!(
                    "Missing Mcp-Method header on {method} request. Clients MUST include the \
                     Mcp-Method header on all POST requests."
                )),
                Some(value) if value != method => Some(format!(
                    "Mcp-Method header value '{value}' does not match body method '{method}'. \
                     Header values are case-sensitive."
                )),
                Some(_) => None,
            };
            checks.push(judged(
                &format!("ClientMcpMethodHeader_{}", label(method)),
                &format!("Client sends correct Mcp-Method header on {method} request"),
                error,
                json!({ "expectedMethod": method, "actualHeader": header }),
            ));
        }
        if NAMED.contains(&method) && !names_seen.iter().any(|m| m == method) {
            names_seen.push(method.to_string());
            let field = if method == "resources/read" {
                "uri"
            } else {
                "name"
            };
            let expected = body.pointer(&format!("/params/{field}"));
            let expected_text = expected.map_or_else(|| "undefined".to_string(), js_string);
            let header = exchange.request_header("mcp-name");
            let error = match sent(header) {
                None => Some(format!(
                    "Missing Mcp-Name header on {method} request. Clients MUST include the \
                     Mcp-Name header for {method} requests."
                )),
                Some(value) if expected.and_then(Value::as_str) != Some(value) => Some(format!(
                    "Mcp-Name header value '{value}' does not match body params.{field} \
                     '{expected_text}'."
                )),
                Some(_) => None,
            };
            checks.push(judged(
                &format!("ClientMcpNameHeader_{}", label(method)),
                &format!("Client sends correct Mcp-Name header on {method} request"),
                error,
                json!({
                    "method": method,
                    "sourceField": format!("params.{field}"),
                    "expectedValue": expected,
                    "actualHeader": header
                }),
            ));
        }
    }
    for method in EXPECTED {
        if !methods_seen.iter().any(|m| m == method) {
            checks.push(unexercised("Mcp-Method", "ClientMcpMethodHeader", method));
        }
    }
    for method in NAMED {
        if !names_seen.iter().any(|m| m == method) {
            checks.push(unexercised("Mcp-Name", "ClientMcpNameHeader", method));
        }
    }
    checks
}

fn judged(name: &str, description: &str, error: Option<String>, details: Value) -> Check {
    let status = if error.is_some() {
        CheckStatus::Failure
    } else {
        CheckStatus::Success
    };
    let check = Check::new(ID, name, description, status, reference()).details(details);
    match error {
        Some(error) => check.error(error),
        None => check,
    }
}

/// A method the client never sent: nothing to judge, so SKIPPED, saying so.
fn unexercised(header: &str, name: &str, method: &str) -> Check {
    Check::new(
        ID,
        &format!("{name}_{}", label(method)),
        &format!("Client sends correct {header} header on {method} request"),
        CheckStatus::Skipped,
        reference(),
    )
    .error(format!(
        "Client did not send a {method} request; {header} header was not exercised for this method."
    ))
}
