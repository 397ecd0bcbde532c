//! The suite's `wire-schema-valid` check: every JSON-RPC message the client sent, against the
//! specification's JSON schema for the revision graded.

use serde_json::{Value, json};

use super::check::{Check, CheckStatus, SpecReference};
use crate::ProtocolVersion;
use crate::engine::{definition_problems, message_definition};
use crate::log::{Log, RpcKind};

/// The check, or none when the client sent nothing (as the suite does).
pub(super) fn check(log: &Log, version: ProtocolVersion) -> Option<Check> {
    let sent: Vec<_> = log.mcp().from_client().all();
    if sent.is_empty() {
        return None;
    }
    let dir = match version {
        ProtocolVersion::V2026_07_28 => "draft",
        other => other.as_str(),
    };
    let check = Check::new(
        "wire-schema-valid",
        "WireSchemaValid",
        "Every JSON-RPC message the implementation sent is valid per the spec JSON schema for the negotiated spec version",
        CheckStatus::Success,
        SpecReference::new(
            "MCP-Schema",
            &format!(
                "https://github.com/modelcontextprotocol/modelcontextprotocol/blob/main/schema/{dir}/schema.json"
            ),
        ),
    );
    if version != ProtocolVersion::V2025_11_25 {
        return Some(Check {
            status: CheckStatus::Skipped,
            ..check.error(format!(
                "mcp-decoy ships the schema of 2025-11-25 only, so it cannot check messages of {}",
                version.as_str()
            ))
        });
    }
    let mut violations = Vec::new();
    let mut unjudged = 0;
    for message in &sent {
        if message.truncated {
            // The capture keeps a cut copy of a large message; the schema needs the whole.
            unjudged += 1;
            continue;
        }
        let errors = match (&message.kind, message.method.as_deref()) {
            (RpcKind::Invalid, _) => vec!["not a JSON-RPC message".to_string()],
            (_, Some(method)) => match message_definition(method) {
                Some(definition) => definition_problems(definition, &message.message),
                None => Vec::new(),
            },
            _ => Vec::new(),
        };
        if !errors.is_empty() {
            let context = format!(
                "{} '{}'",
                kind_word(message.kind),
                message.method.as_deref().unwrap_or("-")
            );
            violations.push(json!({
                "origin": "implementation",
                "specVersion": version.as_str(),
                "context": context,
                "errors": errors,
                "message": message.message.value(),
            }));
        }
    }
    let details = json!({
        "messagesValidated": sent.len() - unjudged,
        "messagesNotValidated": unjudged,
        "violations": violations,
    });
    if violations.is_empty() {
        return Some(check.details(details));
    }
    let message = violations
        .iter()
        .map(|v| {
            format!(
                "[implementation] {}: {}",
                v["context"].as_str().unwrap_or_default(),
                v["errors"]
                    .as_array()
                    .map(|e| e
                        .iter()
                        .filter_map(Value::as_str)
                        .collect::<Vec<_>>()
                        .join("; "))
                    .unwrap_or_default()
            )
        })
        .collect::<Vec<_>>()
        .join("\n");
    Some(Check {
        status: CheckStatus::Failure,
        ..check.details(details).error(message)
    })
}

fn kind_word(kind: RpcKind) -> &'static str {
    match kind {
        RpcKind::Request => "request",
        RpcKind::Notification => "notification",
        RpcKind::Response => "response",
        RpcKind::Invalid => "invalid message",
    }
}
