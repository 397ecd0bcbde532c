//! `logging/setLevel` (server/utilities/logging page).

use serde_json::{Value, json};

use crate::engine::methods::RequestCtx;
use crate::engine::protocol::jsonrpc::RpcError;
use crate::spec::LogLevel;

pub(crate) fn set_level(ctx: &RequestCtx) -> Result<Value, RpcError> {
    let level = ctx
        .params
        .get("level")
        .and_then(Value::as_str)
        .ok_or_else(|| {
            RpcError::invalid_params("logging/setLevel: `params.level` must be a string")
        })?;
    let level = LogLevel::parse(level).ok_or_else(|| {
        RpcError::invalid_params(format!(
            "logging/setLevel: unknown level `{level}`; use debug, info, notice, warning, error, critical, alert or emergency"
        ))
    })?;
    ctx.session.set_log_level(level);
    Ok(json!({}))
}
