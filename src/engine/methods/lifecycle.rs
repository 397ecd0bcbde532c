//! `initialize` and `ping` (lifecycle page; ping utility page).

use std::sync::Arc;

use serde_json::{Map, Value, json};

use crate::engine::Engine;
use crate::engine::protocol::era;
use crate::engine::protocol::jsonrpc::RpcError;
use crate::engine::state::session::Session;
use crate::log::Transport;

/// Checks the `initialize` params, negotiates the revision and opens a session.
pub(crate) fn initialize(
    engine: &Engine,
    params: &Value,
    transport: Transport,
) -> Result<(Value, Arc<Session>), RpcError> {
    let requested = member(params, "protocolVersion", "a string", Value::is_string)?
        .as_str()
        .unwrap_or_default();
    let capabilities = member(params, "capabilities", "an object", Value::is_object)?;
    let client_info = member(params, "clientInfo", "an object", Value::is_object)?;
    for field in ["name", "version"] {
        if !client_info.get(field).is_some_and(Value::is_string) {
            return Err(RpcError::invalid_params(format!(
                "initialize: `params.clientInfo.{field}` must be a string"
            )));
        }
    }
    let Some(version) = era::negotiate(requested, &engine.versions) else {
        return Err(RpcError::new(
            crate::engine::protocol::jsonrpc::code::INVALID_REQUEST,
            format!(
                "initialize: this server serves only the stateless protocol ({}), which has no initialize; send requests with `_meta` instead",
                crate::engine::protocol::modern::versions_list(&engine.versions)
            ),
        )
        .with_data(json!({ "supported": engine.versions.iter().map(|v| v.as_str()).collect::<Vec<_>>(), "requested": requested })));
    };
    let session = engine.sessions.create(
        version,
        client_info.clone(),
        capabilities.clone(),
        transport,
    );
    let mut result = Map::new();
    result.insert("protocolVersion".into(), json!(version.as_str()));
    result.insert("capabilities".into(), engine.legacy_capabilities(version));
    result.insert("serverInfo".into(), engine.server_info());
    if let Some(instructions) = &engine.spec.instructions {
        result.insert("instructions".into(), json!(instructions));
    }
    Ok((Value::Object(result), session))
}

/// `params.<key>`, when `is` holds for it; else `-32602` saying what it must be.
fn member<'a>(
    params: &'a Value,
    key: &str,
    what: &str,
    is: fn(&Value) -> bool,
) -> Result<&'a Value, RpcError> {
    params.get(key).filter(|value| is(value)).ok_or_else(|| {
        RpcError::invalid_params(format!("initialize: `params.{key}` must be {what}"))
    })
}

/// `ping` answers an empty result.
pub(crate) fn ping() -> Value {
    json!({})
}
