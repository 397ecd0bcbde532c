//! Renders a tool's json-e template into a `CallToolResult`, and checks templates before a
//! server runs them. Rendering is [`jsone`]'s, with its budget; a template that loops runs
//! on the blocking pool, never on the async workers that serve other clients.

pub(crate) mod jsone;

use std::sync::Arc;

use serde_json::{Value, json};
use tokio::sync::Semaphore;

use super::schema;
use jsone::{Kind, Limits};

/// The first line of every render-failure result (product guide, "Write a response template").
pub(crate) const RENDER_FAILURE_HEADLINE: &str =
    "MCP Decoy: the response template of this tool failed to render.";

/// Finds errors that no arguments can fix in a tool's template or script step: json-e syntax
/// errors anywhere in the template (branches included), unknown operators, names other than
/// `args` and `answers` (the client's answers to the script's requests), and limits a render
/// with no arguments already exceeds. Errors that depend on the arguments (a missing property,
/// a type mismatch) only show when a client calls the tool, as the product guide says.
pub(crate) fn check(template: &Value) -> Result<(), String> {
    check_with(template, &json!({ "args": {}, "answers": {} }))
}

/// [`check`] against a representative empty context (`uri` a string, `args` an object, ...).
pub(crate) fn check_with(template: &Value, context: &Value) -> Result<(), String> {
    jsone::check_syntax(template).map_err(|e| e.to_string())?;
    match jsone::render(template, context, &Limits::default()) {
        Ok(_) => Ok(()),
        Err(error) => {
            let data_dependent =
                matches!(error.kind, Kind::Interpreter | Kind::Builtin) && !error.unknown_name;
            if data_dependent {
                Ok(())
            } else {
                Err(error.to_string())
            }
        }
    }
}

/// At most this many looping renders run at once in the process; the rest wait their turn,
/// so a burst of them cannot fill the blocking pool with threads.
static LOOPING: Semaphore = Semaphore::const_new(2);

/// Renders `template` within the default budget: inline when it cannot loop (its cost is
/// linear in the template and the arguments), else on the blocking pool.
pub(crate) async fn eval(template: &Value, context: &Value) -> Result<Value, jsone::Error> {
    if !jsone::loops(template) {
        return jsone::render(template, context, &Limits::default());
    }
    let Ok(_turn) = LOOPING.acquire().await else {
        return Err(jsone::Error::limit("the renderer is shutting down"));
    };
    let (template, context) = (Arc::new(template.clone()), Arc::new(context.clone()));
    tokio::task::spawn_blocking(move || jsone::render(&template, &context, &Limits::default()))
        .await
        .unwrap_or_else(|_| Err(jsone::Error::limit("the render was stopped")))
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
pub(crate) async fn render(
    template: &Value,
    context: &Value,
    output_schema: Option<&schema::Validator>,
) -> Rendered {
    let mut output = match eval(template, context).await {
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
fn structured(output: &mut Value, validator: &schema::Validator) -> Option<Vec<String>> {
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
pub(crate) async fn render_value(template: &Value, context: &Value) -> Result<Value, String> {
    eval(template, context).await.map_err(|e| e.to_string())
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

    #[tokio::test]
    async fn output_that_is_not_a_call_tool_result_names_each_problem() {
        let rendered = render(
            &json!({ "content": [{ "type": "txt" }] }),
            &json!({"args": {}}),
            None,
        )
        .await;
        let details = rendered.failure.expect("the output is invalid");
        assert!(!details.is_empty());
        let text = rendered.result["content"][0]["text"]
            .as_str()
            .unwrap_or_default();
        assert!(text.starts_with(RENDER_FAILURE_HEADLINE), "{text}");
        assert_eq!(rendered.result["isError"], true);
    }
}
