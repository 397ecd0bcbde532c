//! `initialize` and `ping` (lifecycle page; ping utility page).

use std::sync::Arc;

use serde_json::{Map, Value, json};

use crate::engine::Engine;
use crate::engine::protocol::era;
use crate::engine::protocol::jsonrpc::RpcError;
use crate::engine::state::session::Session;

/// Checks the `initialize` params, negotiates the revision and opens a session.
pub(crate) fn initialize(
    engine: &Engine,
    params: &Value,
) -> Result<(Value, Arc<Session>), RpcError> {
    let requested = params
        .get("protocolVersion")
        .and_then(Value::as_str)
        .ok_or_else(|| {
            RpcError::invalid_params("initialize: `params.protocolVersion` must be a string")
        })?;
    let capabilities = params
        .get("capabilities")
        .filter(|c| c.is_object())
        .ok_or_else(|| {
            RpcError::invalid_params("initialize: `params.capabilities` must be an object")
        })?;
    let client_info = params
        .get("clientInfo")
        .filter(|c| c.is_object())
        .ok_or_else(|| {
            RpcError::invalid_params("initialize: `params.clientInfo` must be an object")
        })?;
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
    let session = engine
        .sessions
        .create(version, client_info.clone(), capabilities.clone());
    let mut result = Map::new();
    result.insert("protocolVersion".into(), json!(version.as_str()));
    result.insert("capabilities".into(), engine.capabilities());
    result.insert("serverInfo".into(), engine.server_info());
    if let Some(instructions) = &engine.spec.instructions {
        result.insert("instructions".into(), json!(instructions));
    }
    Ok((Value::Object(result), session))
}

/// `ping` answers an empty result.
pub(crate) fn ping() -> Value {
    json!({})
}
