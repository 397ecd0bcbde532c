//! JSON Schema: the MCP schema shipped in `schema/`, compiled once per process, for checking
//! what a template renders before it goes on the wire; the compiling of schemas from outside
//! ([`compile`]); and the wording of what breaks them ([`violation`]).

mod compile;
mod violation;

use std::collections::HashMap;
use std::sync::{Arc, LazyLock, Mutex};

use serde_json::Value;

pub(crate) use compile::{Validator, compile, meta_violations};

/// The 2025-11-25 schema, byte-identical to the specification's `schema.json`.
pub(crate) const MCP_2025_11_25: &str = include_str!("../../../schema/mcp-2025-11-25.json");

static MCP: LazyLock<Option<Value>> = LazyLock::new(|| serde_json::from_str(MCP_2025_11_25).ok());

fn definition_validator(name: &str) -> Option<Validator> {
    compile::compile_at(MCP.as_ref()?, &format!("/$defs/{name}")).ok()
}

static CALL_TOOL_RESULT: LazyLock<Option<Validator>> =
    LazyLock::new(|| definition_validator("CallToolResult"));

/// Every way `value` breaks the spec's `CallToolResult`, as `at <pointer>: <reason>` lines.
pub(crate) fn call_tool_result_problems(value: &Value) -> Vec<String> {
    match CALL_TOOL_RESULT.as_ref() {
        Some(validator) => problems(validator, value),
        // The shipped schema is ours and covered by a test; if it ever fails to compile, fail
        // loudly on the result instead of letting anything through.
        None => vec!["the bundled MCP schema failed to compile".into()],
    }
}

/// Every way `value` breaks `validator`, one `at <pointer>: <reason>` line each.
pub(crate) fn problems(validator: &Validator, value: &Value) -> Vec<String> {
    validator
        .violations(value)
        .iter()
        .map(ToString::to_string)
        .collect()
}

/// Compiled definitions by name; the names come from our code, so the map stays small.
static DEFINITIONS: LazyLock<Mutex<HashMap<String, Option<Arc<Validator>>>>> =
    LazyLock::new(Mutex::default);

/// Every way `value` breaks the spec's definition `name` (e.g. `GetPromptResult`), as
/// `at <pointer>: <reason>` lines; each definition is compiled once per process.
pub(crate) fn definition_problems(name: &str, value: &Value) -> Vec<String> {
    let validator = {
        let mut cache = DEFINITIONS.lock().unwrap_or_else(|p| p.into_inner());
        cache
            .entry(name.to_string())
            .or_insert_with(|| definition_validator(name).map(Arc::new))
            .clone()
    };
    match validator {
        Some(validator) => problems(&validator, value),
        // Fail loudly rather than let an unchecked result through.
        None => vec![format!(
            "the bundled MCP schema has no definition `{name}`, or it failed to compile"
        )],
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use serde_json::json;

    #[test]
    fn the_bundled_schema_compiles_and_accepts_a_text_result() {
        assert!(CALL_TOOL_RESULT.is_some());
        assert!(
            call_tool_result_problems(&json!({"content": [{"type": "text", "text": "hi"}]}))
                .is_empty()
        );
    }

    #[test]
    fn any_definition_checks_by_name_and_an_unknown_one_never_passes() {
        let ok = json!({"messages": [{"role": "user", "content": {"type": "text", "text": "hi"}}]});
        assert!(definition_problems("GetPromptResult", &ok).is_empty());
        let bad =
            json!({"messages": [{"role": "robot", "content": {"type": "text", "text": "hi"}}]});
        let problems = definition_problems("GetPromptResult", &bad);
        assert!(
            problems
                .iter()
                .any(|p| p.starts_with("at /messages/0/role")),
            "{problems:?}"
        );
        assert!(!definition_problems("NoSuchDefinition", &ok).is_empty());
    }

    #[test]
    fn a_result_without_content_is_rejected_with_its_location() {
        let problems = call_tool_result_problems(&json!({"isError": "yes"}));
        assert!(
            problems.iter().any(|p| p.contains("content")),
            "{problems:?}"
        );
        assert!(
            problems.iter().any(|p| p.starts_with("at /isError")),
            "{problems:?}"
        );
    }
}
