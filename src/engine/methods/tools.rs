//! `tools/list` and `tools/call` (server/tools page).

use serde_json::{Map, Value, json};

use crate::engine::Engine;
use crate::engine::jsonrpc::RpcError;
use crate::engine::template;

pub(crate) fn list(engine: &Engine, params: &Value) -> Result<Value, RpcError> {
    if let Some(cursor) = params.get("cursor") {
        // Every list fits one page, so no cursor was ever issued (pagination page: an
        // invalid cursor is -32602).
        return Err(RpcError::invalid_params(format!(
            "tools/list: unknown cursor {cursor}: this server never issued it"
        )));
    }
    let tools: Vec<Value> = engine
        .catalog
        .published()
        .iter()
        .map(|t| t.listing())
        .collect();
    Ok(json!({ "tools": tools }))
}

pub(crate) fn call(engine: &Engine, params: &Value) -> Result<Value, RpcError> {
    let name = params.get("name").and_then(Value::as_str).ok_or_else(|| {
        RpcError::invalid_params("tools/call: `params.name` must be a string naming a tool")
    })?;
    let args = match params.get("arguments") {
        None | Some(Value::Null) => Value::Object(Map::new()),
        Some(args @ Value::Object(_)) => args.clone(),
        Some(other) => {
            return Err(RpcError::invalid_params(format!(
                "tools/call: `params.arguments` must be an object, got {}",
                kind_of(other)
            )));
        }
    };
    let Some(tool) = engine.catalog.callable(name) else {
        return Err(RpcError::invalid_params(format!("Unknown tool: {name}"))
            .with_data(json!({ "name": name })));
    };
    engine.catalog.count_call(name);
    let rendered = template::render(&tool.template, &args);
    if let Some(details) = &rendered.failure {
        tracing::debug!(tool = name, ?details, "response template failed to render");
    }
    Ok(rendered.result)
}

fn kind_of(value: &Value) -> &'static str {
    match value {
        Value::Null => "null",
        Value::Bool(_) => "a boolean",
        Value::Number(_) => "a number",
        Value::String(_) => "a string",
        Value::Array(_) => "an array",
        Value::Object(_) => "an object",
    }
}
