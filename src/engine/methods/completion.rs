//! `completion/complete` (server/utilities/completion page): values configured on a prompt
//! argument or a resource-template variable, filtered by the typed prefix.

use serde_json::{Value, json};

use crate::engine::methods::{RequestCtx, unknown};
use crate::engine::protocol::jsonrpc::RpcError;
use crate::engine::uri_template::UriTemplate;

/// server/utilities/completion "Completion Results": "Maximum 100 items per response".
const MAX_VALUES: usize = 100;

const METHOD: &str = "completion/complete";

pub(crate) fn complete(ctx: &RequestCtx) -> Result<Value, RpcError> {
    let params = &ctx.params;
    let reference = params
        .get("ref")
        .filter(|r| r.is_object())
        .ok_or_else(|| {
            invalid(
                "`params.ref` must be an object: {\"type\": \"ref/prompt\", \"name\"} or {\"type\": \"ref/resource\", \"uri\"}",
            )
        })?;
    let argument = params
        .get("argument")
        .filter(|a| a.is_object())
        .ok_or_else(|| invalid("`params.argument` must be an object with `name` and `value`"))?;
    let argument_name = string(argument, "name", "params.argument.name")?;
    let typed = string(argument, "value", "params.argument.value")?;
    match params.get("context") {
        None | Some(Value::Null | Value::Object(_)) => {}
        Some(other) => {
            return Err(invalid(format!(
                "`params.context` must be an object, got {other}"
            )));
        }
    }
    let offered = match string(reference, "type", "params.ref.type")? {
        "ref/prompt" => {
            let name = string(reference, "name", "params.ref.name")?;
            prompt_values(ctx, name, argument_name)?
        }
        "ref/resource" => {
            let uri = string(reference, "uri", "params.ref.uri")?;
            template_values(ctx, uri, argument_name)?
        }
        other => {
            return Err(invalid(format!(
                "`params.ref.type` must be \"ref/prompt\" or \"ref/resource\", got {other:?}"
            )));
        }
    };
    Ok(json!({ "completion": filter(&offered, typed) }))
}

fn prompt_values(ctx: &RequestCtx, name: &str, argument: &str) -> Result<Vec<String>, RpcError> {
    let prompt =
        (ctx.engine.catalog.prompts.get(name)).ok_or_else(|| unknown("prompt", "name", name))?;
    let Some(spec) = prompt.arguments.iter().find(|a| a.name == argument) else {
        return Err(invalid(format!(
            "prompt `{name}` has no argument `{argument}` (`params.argument.name`)"
        ))
        .with_data(json!({ "name": name, "argument": argument })));
    };
    Ok(spec.completions.clone())
}

fn template_values(ctx: &RequestCtx, uri: &str, argument: &str) -> Result<Vec<String>, RpcError> {
    let template = (ctx.engine.catalog.templates.get(uri))
        .ok_or_else(|| unknown("resource template", "uri", uri))?;
    if let Some(values) = template.completions.get(argument) {
        return Ok(values.clone());
    }
    let declared = UriTemplate::parse(&template.uri_template)
        .is_ok_and(|parsed| parsed.variables().contains(&argument));
    if declared {
        return Ok(Vec::new());
    }
    Err(invalid(format!(
        "resource template `{uri}` has no variable `{argument}` (`params.argument.name`)"
    ))
    .with_data(json!({ "uri": uri, "argument": argument })))
}

/// The offered values that start with `typed`, ignoring case, in their configured order.
fn filter(offered: &[String], typed: &str) -> Value {
    let typed = typed.to_lowercase();
    let matches: Vec<&String> = offered
        .iter()
        .filter(|v| v.to_lowercase().starts_with(&typed))
        .collect();
    let total = matches.len();
    let values: Vec<&String> = matches.into_iter().take(MAX_VALUES).collect();
    json!({ "values": values, "total": total, "hasMore": total > MAX_VALUES })
}

fn string<'a>(object: &'a Value, key: &str, field: &str) -> Result<&'a str, RpcError> {
    object
        .get(key)
        .and_then(Value::as_str)
        .ok_or_else(|| invalid(format!("`{field}` must be a string")))
}

fn invalid(reason: impl std::fmt::Display) -> RpcError {
    RpcError::invalid_params(format!("{METHOD}: {reason}"))
}

#[cfg(test)]
mod tests {
    use super::*;

    fn owned(values: &[&str]) -> Vec<String> {
        values.iter().map(|v| v.to_string()).collect()
    }

    #[test]
    fn values_are_filtered_by_prefix_ignoring_case() {
        let offered = owned(&["Paris", "park", "London", "PARTY"]);
        assert_eq!(
            filter(&offered, "par"),
            json!({ "values": ["Paris", "park", "PARTY"], "total": 3, "hasMore": false })
        );
        assert_eq!(filter(&offered, "")["total"], 4);
    }

    #[test]
    fn at_most_a_hundred_values_are_sent() {
        let offered: Vec<String> = (0..150).map(|n| format!("v{n}")).collect();
        let completion = filter(&offered, "v");
        assert_eq!(completion["values"].as_array().map(Vec::len), Some(100));
        assert_eq!(completion["total"], 150);
        assert_eq!(completion["hasMore"], true);
    }
}
