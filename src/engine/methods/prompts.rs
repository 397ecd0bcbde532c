//! `prompts/list` and `prompts/get` (server/prompts page).

use serde_json::{Map, Value, json};

use crate::engine::methods::pagination;
use crate::engine::methods::script::{self, Stop};
use crate::engine::methods::{RequestCtx, unknown};
use crate::engine::protocol::jsonrpc::{RpcError, code};
use crate::engine::{schema, template};
use crate::spec::PromptSpec;

pub(crate) fn list(ctx: &RequestCtx) -> Result<Value, RpcError> {
    served(ctx, "prompts/list")?;
    pagination::list(ctx, "prompts/list", "prompts", PromptSpec::listing)
}

pub(crate) async fn get(ctx: &RequestCtx) -> Result<Value, RpcError> {
    served(ctx, "prompts/get")?;
    let params = &ctx.params;
    let name = params.get("name").and_then(Value::as_str).ok_or_else(|| {
        RpcError::invalid_params("prompts/get: `params.name` must be a string naming a prompt")
    })?;
    let args = arguments(params)?;
    let Some(prompt) = ctx.engine.catalog.prompts.get(name) else {
        return Err(unknown("prompt", "name", name));
    };
    // server/prompts "Error Handling": missing required arguments are -32602.
    let missing: Vec<&str> = prompt
        .arguments
        .iter()
        .filter(|a| a.required && !args.contains_key(&a.name))
        .map(|a| a.name.as_str())
        .collect();
    if !missing.is_empty() {
        let list = missing
            .iter()
            .map(|m| format!("`{m}`"))
            .collect::<Vec<_>>()
            .join(", ");
        let noun = if missing.len() == 1 {
            "argument"
        } else {
            "arguments"
        };
        return Err(RpcError::invalid_params(format!(
            "prompts/get: prompt `{name}` is missing the required {noun} {list} in `params.arguments`"
        ))
        .with_data(json!({ "name": name, "missing": missing })));
    }
    let mut context = json!({ "args": Value::Object(args), "answers": {} });
    let steps = prompt.script.len();
    match script::run(ctx, "prompts/get", &prompt.script, steps, &mut context).await {
        Ok(()) => {}
        // 2026-07-28: an `ask` answers `input_required`, as a tool's does (mrtr.mdx names
        // `prompts/get` among the methods that may).
        Err(Stop::InputRequired(result)) => return Ok(result),
        Err(Stop::Refused(error) | Stop::Failed(error)) => return Err(error),
        // A prompt has no `isError` channel: a script that stopped is the server's fault.
        Err(Stop::Render(problem) | Stop::Client(problem)) => {
            return Err(RpcError::new(
                code::INTERNAL_ERROR,
                format!("MCP Decoy: the script of prompt `{name}` stopped before its messages: {problem}"),
            )
            .with_data(json!({ "name": name })));
        }
    }
    render(&prompt, &context).await
}

/// Prompts methods exist only on a server that declared the `prompts` capability
/// (server/prompts "Capabilities"; server/utilities/completion names -32601 for an
/// unsupported capability).
fn served(ctx: &RequestCtx, method: &str) -> Result<(), RpcError> {
    if ctx.engine.serves_prompts() {
        Ok(())
    } else {
        Err(RpcError::new(
            code::METHOD_NOT_FOUND,
            format!(
                "Method not found: `{method}`: this server started without prompts, so it does not declare the `prompts` capability"
            ),
        ))
    }
}

/// `params.arguments`: absent, null, or an object whose values are strings (spec
/// `GetPromptRequest`: `{ [key: string]: string }`).
fn arguments(params: &Value) -> Result<Map<String, Value>, RpcError> {
    match params.get("arguments") {
        None | Some(Value::Null) => Ok(Map::new()),
        Some(Value::Object(args)) => {
            if let Some((key, value)) = args.iter().find(|(_, v)| !v.is_string()) {
                return Err(RpcError::invalid_params(format!(
                    "prompts/get: `params.arguments.{key}` must be a string, got {value}"
                ))
                .with_data(json!({ "argument": key })));
            }
            Ok(args.clone())
        }
        Some(other) => Err(RpcError::invalid_params(format!(
            "prompts/get: `params.arguments` must be an object of strings, got {other}"
        ))),
    }
}

/// Renders the template over `{args, answers}` into a `GetPromptResult`. A template fault is
/// the server's, so it is `-32603` naming each problem: a prompt has no `isError` channel.
async fn render(prompt: &PromptSpec, context: &Value) -> Result<Value, RpcError> {
    let name = &prompt.name;
    let internal = |problems: Vec<String>| {
        let mut message = format!(
            "MCP Decoy: the template of prompt `{name}` failed to render a GetPromptResult."
        );
        for line in &problems {
            message.push('\n');
            message.push_str(line);
        }
        RpcError::new(code::INTERNAL_ERROR, message)
            .with_data(json!({ "name": name, "problems": problems }))
    };
    let output = template::render_value(&prompt.template, context)
        .await
        .map_err(|e| internal(vec![e]))?;
    let result = match output {
        Value::Array(messages) => {
            let mut result = Map::new();
            if let Some(description) = &prompt.description {
                result.insert("description".into(), json!(description));
            }
            result.insert("messages".into(), Value::Array(messages));
            Value::Object(result)
        }
        object @ Value::Object(_) => object,
        other => {
            return Err(internal(vec![format!(
                "the template must render an array of PromptMessage or a GetPromptResult object, got {other}"
            )]));
        }
    };
    let problems = schema::definition_problems("GetPromptResult", &result);
    if problems.is_empty() {
        Ok(result)
    } else {
        Err(internal(
            problems
                .into_iter()
                .map(|p| format!("the output is not a valid GetPromptResult: {p}"))
                .collect(),
        ))
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::spec::PromptArgumentSpec;

    fn prompt(template: Value) -> PromptSpec {
        PromptSpec {
            description: Some("Greets".into()),
            arguments: vec![PromptArgumentSpec {
                name: "who".into(),
                title: None,
                description: None,
                required: true,
                completions: Vec::new(),
            }],
            template,
            ..PromptSpec::new("greet")
        }
    }

    #[tokio::test]
    async fn a_messages_array_is_wrapped_with_the_description() {
        let p = prompt(
            json!([{ "role": "user", "content": { "type": "text", "text": "Hi ${args.who}" } }]),
        );
        let result = render(&p, &json!({ "args": { "who": "Ada" } }))
            .await
            .expect("renders");
        assert_eq!(result["description"], "Greets");
        assert_eq!(result["messages"][0]["content"]["text"], "Hi Ada");
    }

    #[tokio::test]
    async fn a_whole_result_is_kept_as_rendered() {
        let p = prompt(json!({ "messages": [], "_meta": { "k": "${args.who}" } }));
        let result = render(&p, &json!({ "args": { "who": "Ada" } }))
            .await
            .expect("renders");
        assert_eq!(result, json!({ "messages": [], "_meta": { "k": "Ada" } }));
    }

    #[tokio::test]
    async fn invalid_output_is_an_internal_error_naming_each_problem() {
        let p = prompt(json!([{ "role": "robot", "content": { "type": "text" } }]));
        let error = render(&p, &json!({ "args": {} }))
            .await
            .expect_err("the output is invalid");
        assert_eq!(error.code, code::INTERNAL_ERROR);
        assert!(
            error.message.contains("/messages/0/role"),
            "{}",
            error.message
        );
        let p = prompt(json!("just text"));
        let error = render(&p, &json!({ "args": {} }))
            .await
            .expect_err("a string is no result");
        assert!(
            error.message.contains("array of PromptMessage"),
            "{}",
            error.message
        );
    }

    #[test]
    fn arguments_must_be_strings() {
        let error = arguments(&json!({ "arguments": { "n": 1 } })).expect_err("a number");
        assert!(
            error.message.contains("`params.arguments.n`"),
            "{}",
            error.message
        );
        assert!(arguments(&json!({ "arguments": [] })).is_err());
        assert_eq!(arguments(&json!({})).ok(), Some(Map::new()));
    }
}
