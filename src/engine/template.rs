//! Renders a tool's json-e template into a `CallToolResult`, and checks templates before a
//! server runs them. Pure: no I/O, no state.

use serde_json::{Value, json};

use super::schema;

/// The first line of every render-failure result (product guide, "Write a response template").
pub(crate) const RENDER_FAILURE_HEADLINE: &str =
    "MCP Decoy: the response template of this tool failed to render.";

/// Finds errors that no arguments can fix: json-e syntax errors, unknown operators, names
/// other than `args`. Errors that depend on the arguments (a missing property, a type
/// mismatch) only show when a client calls the tool, as the product guide says.
pub(crate) fn check(template: &Value) -> Result<(), String> {
    match json_e::render(template, &json!({ "args": {} })) {
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

/// Renders `template` with `{args}` and validates the output against the spec's
/// `CallToolResult`; any failure becomes an `isError: true` result naming each problem.
pub(crate) fn render(template: &Value, args: &Value) -> Rendered {
    let context = json!({ "args": args });
    let output = match json_e::render(template, &context) {
        Ok(output) => output,
        Err(error) => return failure(vec![error.to_string()]),
    };
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

fn failure(details: Vec<String>) -> Rendered {
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
        let rendered = render(&json!({ "content": [{ "type": "txt" }] }), &json!({}));
        let details = rendered.failure.expect("the output is invalid");
        assert!(!details.is_empty());
        let text = rendered.result["content"][0]["text"]
            .as_str()
            .unwrap_or_default();
        assert!(text.starts_with(RENDER_FAILURE_HEADLINE), "{text}");
        assert_eq!(rendered.result["isError"], true);
    }
}
