//! A `tools/call`'s arguments checked against its tool's `inputSchema`: the plan refuses a
//! call that breaks it when the server validates arguments, and the fixture's
//! `assert_valid_arguments` checks a whole log with the same function, so both say the same.

use serde_json::Value;

use super::Engine;
use crate::log::ArgumentError;
use crate::spec::ToolSpec;

/// Violations listed per call; a client that sends a 10,000-item array of wrong types gets
/// an error (and a record) one can read.
pub(crate) const MAX_ERRORS: usize = 20;

/// Characters of a reason kept: the validator quotes the offending value, which may be huge.
const MAX_REASON: usize = 200;

/// How `args` break `tool`'s `inputSchema`, at most [`MAX_ERRORS`] of them in pointer order
/// (so the text does not depend on the validator's keyword order); `Err` when the schema
/// does not compile (a remote `$ref` is never fetched), so nothing could be checked.
pub(crate) fn violations(
    engine: &Engine,
    tool: &ToolSpec,
    args: &Value,
) -> Result<Vec<ArgumentError>, String> {
    let validator = engine.validator(&tool.input_schema)?;
    let mut errors: Vec<ArgumentError> = validator
        .violations(args)
        .into_iter()
        .take(MAX_ERRORS)
        .map(|violation| ArgumentError::new(violation.pointer, bounded(&violation.reason)))
        .collect();
    errors.sort_by(|a, b| a.pointer.cmp(&b.pointer));
    Ok(errors)
}

fn bounded(text: &str) -> String {
    match text.char_indices().nth(MAX_REASON) {
        Some((cut, _)) => format!("{}...", &text[..cut]),
        None => text.to_string(),
    }
}

impl Engine {
    /// How `args` break the `inputSchema` of the published tool named `tool`; `None` when
    /// there is none, `Err` when its schema does not compile.
    pub(crate) fn argument_violations(
        &self,
        tool: &str,
        args: &Value,
    ) -> Option<Result<Vec<ArgumentError>, String>> {
        let tool = self.catalog.tools.get(tool)?;
        Some(violations(self, &tool, args))
    }
}

/// The `-32602` message of a refused call: the tool and every violation, one per line.
pub(crate) fn message(tool: &str, errors: &[ArgumentError]) -> String {
    let mut text =
        format!("Invalid arguments for tool `{tool}`: they do not match its inputSchema");
    for error in errors {
        text.push_str("\n  ");
        text.push_str(&error.to_string());
    }
    text
}

#[cfg(test)]
mod tests {
    use super::*;
    use serde_json::json;

    fn tool(schema: Value) -> ToolSpec {
        ToolSpec {
            input_schema: schema,
            ..ToolSpec::new("t")
        }
    }

    #[test]
    fn each_violation_names_its_pointer_and_the_list_is_bounded() {
        let engine = Engine::for_tests(crate::spec::ServerSpec::new("s"));
        let schema = json!({
            "type": "object",
            "properties": { "limit": { "type": "integer" }, "tags": { "type": "array", "items": { "type": "string" } } },
            "required": ["city"]
        });
        let errors = violations(
            &engine,
            &tool(schema.clone()),
            &json!({ "limit": "5", "tags": ["a", 1] }),
        )
        .expect("the schema compiles");
        let pointers: Vec<&str> = errors.iter().map(|e| e.pointer.as_str()).collect();
        assert!(pointers.contains(&"/limit"), "{errors:?}");
        assert!(pointers.contains(&"/tags/1"), "{errors:?}");
        assert!(
            pointers.contains(&"/"),
            "the missing `city` is reported at the root: {errors:?}"
        );

        let many: Vec<i64> = (0..100).collect();
        let errors = violations(
            &engine,
            &tool(schema),
            &json!({ "city": "x", "tags": many }),
        )
        .expect("the schema compiles");
        assert_eq!(errors.len(), MAX_ERRORS);
    }

    #[test]
    fn a_schema_with_a_remote_ref_is_not_checked_and_says_why() {
        let engine = Engine::for_tests(crate::spec::ServerSpec::new("s"));
        let schema = json!({ "type": "object", "properties": { "u": { "$ref": "https://canary.invalid/u.json" } } });
        assert!(violations(&engine, &tool(schema), &json!({ "u": 1 })).is_err());
    }
}
