//! `initialize` and `ping` (lifecycle page; ping utility page).

use std::sync::Arc;

use serde::Serialize;
use serde_json::value::RawValue;
use serde_json::{Value, json};

use crate::engine::Engine;
use crate::engine::declared::ServerInfo;
use crate::engine::protocol::era;
use crate::engine::protocol::jsonrpc::RpcError;
use crate::engine::state::session::Session;
use crate::log::Transport;

/// The `initialize` result (spec `InitializeResult`), members in the order they are written.
#[derive(Debug, Serialize)]
#[serde(rename_all = "camelCase")]
pub(crate) struct Initialized<'a> {
    protocol_version: &'static str,
    capabilities: &'static RawValue,
    server_info: ServerInfo<'a>,
    #[serde(skip_serializing_if = "Option::is_none")]
    instructions: Option<&'a str>,
}

/// Checks the `initialize` params, negotiates the revision and opens a session, which
/// keeps the client's `clientInfo` and `capabilities` (moved out of `params`).
pub(crate) fn initialize(
    engine: &Engine,
    mut params: Value,
    transport: Transport,
) -> Result<(Initialized<'_>, Arc<Session>), RpcError> {
    let requested = member(&params, "protocolVersion", "a string", Value::is_string)?
        .as_str()
        .unwrap_or_default();
    member(&params, "capabilities", "an object", Value::is_object)?;
    let client_info = member(&params, "clientInfo", "an object", Value::is_object)?;
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
    // Both members were checked above: the params are an object that has them.
    let mut take = |key: &str| {
        params
            .as_object_mut()
            .and_then(|p| p.get_mut(key))
            .map(Value::take)
            .unwrap_or_default()
    };
    let (client_info, capabilities) = (take("clientInfo"), take("capabilities"));
    let session = engine
        .sessions
        .create(version, client_info, capabilities, transport);
    let result = Initialized {
        protocol_version: version.as_str(),
        capabilities: engine.declared_text(version),
        server_info: engine.identity(),
        instructions: engine.spec.instructions.as_deref(),
    };
    Ok((result, session))
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
