//! `elicitation-sep1034-client-defaults`: the client fills in the schema's defaults for the
//! fields a user left out (the suite's `src/scenarios/client/elicitation-defaults.ts`).

use serde_json::{Value, json};

use super::{answer_to, first_request, js_type};
use crate::grade::check::{Check, CheckStatus, SpecReference};
use crate::log::Log;
use crate::spec::AskMethod;
use crate::{MockMcpServer, MockMcpServerBuilder, Tool};

const TOOL: &str = "test_client_elicitation_defaults";

fn sep_1034() -> SpecReference {
    SpecReference::new(
        "SEP-1034",
        "https://github.com/modelcontextprotocol/modelcontextprotocol/issues/1034",
    )
}

/// The five defaults: check id, check name, field, JSON type the value must have, default.
const FIELDS: [(&str, &str, &str, &str); 5] = [
    ("string", "String", "name", "string"),
    ("integer", "Integer", "age", "number"),
    ("number", "Number", "score", "number"),
    ("enum", "Enum", "status", "string"),
    ("boolean", "Boolean", "verified", "boolean"),
];

const STATUSES: [&str; 3] = ["active", "inactive", "pending"];

fn requested_schema() -> Value {
    json!({
        "type": "object",
        "properties": {
            "name": { "type": "string", "description": "User name", "default": "John Doe" },
            "age": { "type": "integer", "description": "User age", "default": 30 },
            "score": { "type": "number", "description": "User score", "default": 95.5 },
            "status": {
                "type": "string",
                "description": "User status",
                "enum": STATUSES,
                "default": "active"
            },
            "verified": { "type": "boolean", "description": "Verification status", "default": true }
        },
        "required": []
    })
}

pub(super) fn server() -> MockMcpServerBuilder {
    // `params` is a json-e template; the schema has no `$` keys or `${}`, so it stays as is.
    let params = json!({
        "message": "Test client default value handling - please accept with defaults",
        "requestedSchema": requested_schema(),
    });
    MockMcpServer::builder()
        .name("elicitation-defaults-test-server")
        .version("1.0.0")
        .tool(
            Tool::new(TOOL)
                .description("Tests that client applies defaults for omitted elicitation fields")
                .input_schema(json!({ "type": "object", "properties": {}, "required": [] }))
                .ask("defaults", AskMethod::Elicitation, params)
                .respond_with(json!({ "content": [{ "type": "text", "text": {
                    "$json": { "$eval": "answers.defaults.content" }
                } }] })),
        )
}

pub(super) fn checks(log: &Log, _version: crate::ProtocolVersion) -> Vec<Check> {
    let asked = log
        .mcp()
        .from_server()
        .method("elicitation/create")
        .first()
        .cloned();
    let outcome = match (first_request(log, "tools/call"), &asked) {
        (None, _) => Err("Tool was not called by client".to_string()),
        (Some(_), None) => {
            let declared = first_request(log, "initialize")
                .is_some_and(|i| i.params().pointer("/capabilities/elicitation").is_some());
            Err(if declared {
                "the server's elicitation/create was never sent".to_string()
            } else {
                "the client did not declare the `elicitation` capability in initialize, so the \
                 server could not ask"
                    .to_string()
            })
        }
        (Some(_), Some(asked)) => match answer_to(log, asked).map(|a| &a.message) {
            None => Err("Elicitation failed: the client never answered".to_string()),
            Some(answer) => match (answer.get("result"), answer.get("error")) {
                (Some(result), _) => match result.get("action").and_then(Value::as_str) {
                    Some("accept") => Ok(result.get("content").cloned().unwrap_or(json!({}))),
                    action => Err(format!(
                        "Expected action 'accept', got '{}'",
                        action.unwrap_or("undefined")
                    )),
                },
                (None, Some(error)) => Err(format!(
                    "Elicitation failed: {}",
                    error.get("message").and_then(Value::as_str).unwrap_or("")
                )),
                _ => Err(format!(
                    "Elicitation failed: the client's answer is neither a result nor an error: {answer}"
                )),
            },
        },
    };
    let content = match outcome {
        Ok(content) => content,
        Err(why) => {
            let mut checks = Vec::new();
            if asked.is_some() || why.starts_with("the client did not declare") {
                checks.push(
                    Check::new(
                        "client-elicitation-sep1034-general",
                        "ClientElicitationSEP1034General",
                        "Client handles elicitation with defaults",
                        CheckStatus::Failure,
                        sep_1034(),
                    )
                    .error(why.clone()),
                );
            }
            checks.extend(FIELDS.iter().map(|(kind, name, field, _)| {
                field_check(kind, name, CheckStatus::Failure)
                    .details(json!({ "field": field, "message": why }))
                    .error(why.clone())
            }));
            return checks;
        }
    };
    FIELDS
        .iter()
        .map(|(kind, name, field, expected_type)| {
            let value = content.get(*field);
            let problem = match value {
                None => Some(format!(
                    "Field \"{field}\" missing - should have default {}",
                    default_of(field)
                )),
                Some(v) if js_type(v) != *expected_type => Some(format!(
                    "Expected {expected_type} for \"{field}\", got {}",
                    js_type(v)
                )),
                Some(Value::String(s)) if *kind == "enum" && !STATUSES.contains(&s.as_str()) => {
                    Some(format!("Value \"{s}\" is not a valid enum member"))
                }
                Some(_) => None,
            };
            let status = if problem.is_some() {
                CheckStatus::Failure
            } else {
                CheckStatus::Success
            };
            let check = field_check(kind, name, status).details(json!({
                "field": field,
                "expectedDefault": requested_schema()["properties"][field]["default"],
                "receivedValue": value,
            }));
            match problem {
                Some(problem) => check.error(problem),
                None => check,
            }
        })
        .collect()
}

fn default_of(field: &str) -> String {
    requested_schema()["properties"][field]["default"].to_string()
}

fn field_check(kind: &str, name: &str, status: CheckStatus) -> Check {
    Check::new(
        &format!("client-elicitation-sep1034-{kind}-default"),
        &format!("ClientElicitationSEP1034{name}Default"),
        &format!("Client applies {kind} default value for elicitation"),
        status,
        sep_1034(),
    )
}
