//! JSON Schema: the MCP schema shipped in `schema/`, compiled once per process, for checking
//! what a template renders before it goes on the wire; the compiling of schemas from outside
//! ([`compile`]); and the wording of what breaks them ([`violation`]).

mod compile;
mod violation;

use std::collections::HashMap;
use std::sync::{Arc, LazyLock, Mutex};

use serde_json::Value;

use crate::engine::protocol::jsonrpc::member;

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
    if plainly_valid_call_tool_result(value) {
        return Vec::new();
    }
    match CALL_TOOL_RESULT.as_ref() {
        Some(validator) => problems(validator, value),
        // The shipped schema is ours and covered by a test; if it ever fails to compile, fail
        // loudly on the result instead of letting anything through.
        None => vec!["the bundled MCP schema failed to compile".into()],
    }
}

/// Whether `value` is the shape most tools render, which the schema accepts without a walk:
/// an object of `content` (text blocks of `type` and `text` only) and at most a boolean
/// `isError`. Anything else goes to the full validator, so this only ever skips work: it
/// accepts nothing the schema refuses.
fn plainly_valid_call_tool_result(value: &Value) -> bool {
    let Some(result) = value.as_object() else {
        return false;
    };
    let Some(Value::Array(content)) = member(value, "content") else {
        return false;
    };
    let plain_text = |block: &Value| {
        block.as_object().is_some_and(|members| members.len() == 2)
            && member(block, "type").and_then(Value::as_str) == Some("text")
            && member(block, "text").is_some_and(Value::is_string)
    };
    result.iter().all(|(key, member)| match key.as_str() {
        "content" => true,
        "isError" => member.is_boolean(),
        _ => false,
    }) && content.iter().all(plain_text)
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

/// The definitions of the 2025-11-25 schema that a message with this `method` must meet
/// (`InitializeRequest` for `initialize`), found by their `method` constant; `None` for a
/// method the schema does not define.
pub(crate) fn message_definition(method: &str) -> Option<&'static str> {
    static BY_METHOD: LazyLock<HashMap<String, String>> = LazyLock::new(|| {
        let mut by_method = HashMap::new();
        let defs = MCP
            .as_ref()
            .and_then(|s| s.get("$defs"))
            .and_then(Value::as_object);
        for (name, def) in defs.into_iter().flatten() {
            let constant = def
                .pointer("/properties/method/const")
                .and_then(Value::as_str);
            if let Some(constant) = constant {
                by_method.insert(constant.to_string(), name.clone());
            }
        }
        by_method
    });
    BY_METHOD.get(method).map(String::as_str)
}

#[cfg(test)]
mod tests {
    use super::*;
    use serde_json::json;

    #[test]
    fn a_message_is_checked_against_the_definition_of_its_method() {
        assert_eq!(message_definition("initialize"), Some("InitializeRequest"));
        assert_eq!(
            message_definition("notifications/initialized"),
            Some("InitializedNotification")
        );
        assert_eq!(message_definition("no/such/method"), None);
    }

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

    #[test]
    fn the_shortcut_accepts_only_what_the_schema_accepts() {
        let validator = CALL_TOOL_RESULT.as_ref().expect("compiles");
        let cases = [
            json!({"content": []}),
            json!({"content": [{"type": "text", "text": "hi"}], "isError": false}),
            json!({"content": [{"text": "a", "type": "text"}, {"type": "text", "text": ""}]}),
            json!({"content": [{"type": "text", "text": 1}]}),
            json!({"content": [{"type": "text"}]}),
            json!({"content": [{"type": "image", "text": "x"}]}),
            json!({"content": [{"type": "text", "text": "x"}], "isError": "no"}),
            json!({"content": {"type": "text", "text": "x"}}),
            json!({"content": [], "structuredContent": 3}),
            json!({"isError": true}),
            json!([]),
        ];
        let mut taken = 0;
        for case in &cases {
            if plainly_valid_call_tool_result(case) {
                taken += 1;
                assert!(validator.violations(case).is_empty(), "{case}");
            }
        }
        assert_eq!(taken, 3, "the three plain results take the shortcut");
        for case in &cases[3..] {
            assert!(!call_tool_result_problems(case).is_empty(), "{case}");
        }
    }
}
