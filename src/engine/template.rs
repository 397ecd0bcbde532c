//! Renders a tool's json-e template into a `CallToolResult`, and checks templates before a
//! server runs them. Pure: no I/O, no state.

use serde_json::{Value, json};

use super::schema;

/// The first line of every render-failure result (product guide, "Write a response template").
pub(crate) const RENDER_FAILURE_HEADLINE: &str =
    "MCP Decoy: the response template of this tool failed to render.";

/// Finds errors that no arguments can fix in a tool's template or script step: json-e syntax
/// errors, unknown operators, names other than `args` and `answers` (the client's answers to
/// the script's requests). Errors that depend on the arguments (a missing property, a type
/// mismatch) only show when a client calls the tool, as the product guide says.
pub(crate) fn check(template: &Value) -> Result<(), String> {
    check_with(template, &json!({ "args": {}, "answers": {} }))
}

/// [`check`] against a representative empty context (`uri` a string, `args` an object, ...).
pub(crate) fn check_with(template: &Value, context: &Value) -> Result<(), String> {
    match json_e::render(template, context) {
        Ok(_) => Ok(()),
        Err(error) => {
            let text = error.to_string();
            // json-e's error types are private; its messages are stable and tell the kinds apart:
            // interpreter errors depend on the data, except a reference to an unknown name.
            let data_dependent = text.starts_with("Interpreter Error:")
                && !text.starts_with("Interpreter Error: unknown context value");
            if data_dependent { Ok(()) } else { Err(text) }
        }
    }
}

/// The outcome of one render.
pub(crate) struct Rendered {
    /// A valid `CallToolResult`: the template's output, or the render-failure result.
    pub(crate) result: Value,
    /// Set when the template failed: the details, one per entry.
    pub(crate) failure: Option<Vec<String>>,
}

/// Renders `template` with `context` (`{args}`, plus `answers` after a script) and validates
/// the output against the spec's `CallToolResult` and, when the tool has one, its output
/// schema; any failure becomes an `isError: true` result naming each problem.
pub(crate) fn render(
    template: &Value,
    context: &Value,
    output_schema: Option<&jsonschema::Validator>,
) -> Rendered {
    let mut output = match json_e::render(template, context) {
        Ok(output) => output,
        Err(error) => return failure(vec![error.to_string()]),
    };
    if let Some(validator) = output_schema {
        if let Some(problems) = structured(&mut output, validator) {
            return failure(problems);
        }
    }
    let problems = schema::call_tool_result_problems(&output);
    if problems.is_empty() {
        Rendered {
            result: output,
            failure: None,
        }
    } else {
        failure(
            problems
                .into_iter()
                .map(|p| format!("the output is not a valid CallToolResult: {p}"))
                .collect(),
        )
    }
}

/// A tool with an output schema must return `structuredContent` that conforms; a template
/// that renders only `structuredContent` gets its serialized JSON as the text content too
/// (server/tools page, "Structured Content": "SHOULD also return the serialized JSON").
fn structured(output: &mut Value, validator: &jsonschema::Validator) -> Option<Vec<String>> {
    let object = output.as_object_mut()?;
    let Some(content) = object.get("structuredContent").cloned() else {
        return Some(vec![
            "the tool has an outputSchema, so the result must have `structuredContent`".into(),
        ]);
    };
    let problems: Vec<String> = schema::problems(validator, &content)
        .into_iter()
        .map(|p| format!("structuredContent does not match the outputSchema: {p}"))
        .collect();
    if !problems.is_empty() {
        return Some(problems);
    }
    if !object.contains_key("content") {
        object.insert(
            "content".into(),
            json!([{ "type": "text", "text": content.to_string() }]),
        );
    }
    None
}

/// Renders a script step's field with the same context as the template.
pub(crate) fn render_value(template: &Value, context: &Value) -> Result<Value, String> {
    json_e::render(template, context).map_err(|e| e.to_string())
}

pub(crate) fn failure(details: Vec<String>) -> Rendered {
    let mut text = String::from(RENDER_FAILURE_HEADLINE);
    for line in &details {
        text.push('\n');
        text.push_str(line);
    }
    Rendered {
        result: json!({ "content": [{ "type": "text", "text": text }], "isError": true }),
        failure: Some(details),
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn syntax_errors_are_caught_before_any_call() {
        let broken = json!({ "content": [{ "type": "text", "text": "${args.city" }] });
        assert!(check(&broken).is_err());
        let unknown_operator = json!({ "$nope": 1 });
        assert!(check(&unknown_operator).is_err());
        let unknown_name = json!({ "content": [{ "type": "text", "text": "${city}" }] });
        assert!(
            check(&unknown_name)
                .unwrap_err()
                .contains("unknown context value city")
        );
    }

    #[test]
    fn errors_that_arguments_can_fix_wait_for_the_call() {
        let needs_number =
            json!({ "content": [{ "type": "text", "text": { "$eval": "str(args.n + 1)" } }] });
        assert_eq!(check(&needs_number), Ok(()));
    }

    #[test]
    fn output_that_is_not_a_call_tool_result_names_each_problem() {
        let rendered = render(
            &json!({ "content": [{ "type": "txt" }] }),
            &json!({"args": {}}),
            None,
        );
        let details = rendered.failure.expect("the output is invalid");
        assert!(!details.is_empty());
        let text = rendered.result["content"][0]["text"]
            .as_str()
            .unwrap_or_default();
        assert!(text.starts_with(RENDER_FAILURE_HEADLINE), "{text}");
        assert_eq!(rendered.result["isError"], true);
    }
}
