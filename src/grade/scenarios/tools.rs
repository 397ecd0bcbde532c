//! `tools_call`: a call with two numbers (the suite's `src/scenarios/client/tools_call.ts`).

use serde_json::{Value, json};

use super::first_request;
use crate::grade::check::{Check, CheckStatus, SpecReference};
use crate::log::Log;
use crate::{MockMcpServer, MockMcpServerBuilder, Tool};

pub(super) fn tools_call_server() -> MockMcpServerBuilder {
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

pub(super) fn tools_call_checks(log: &Log, _version: crate::ProtocolVersion) -> Vec<Check> {
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
