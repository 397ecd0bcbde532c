//! `prompts/list` and `prompts/get` (server/prompts page).

use serde_json::Value;

use crate::engine::dispatch::{RequestCtx, method_not_found};
use crate::engine::jsonrpc::RpcError;

pub(crate) fn list(_ctx: &RequestCtx) -> Result<Value, RpcError> {
    Err(method_not_found("prompts/list"))
}

pub(crate) fn get(_ctx: &RequestCtx) -> Result<Value, RpcError> {
    Err(method_not_found("prompts/get"))
}
