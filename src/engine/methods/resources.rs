//! `resources/list`, `resources/templates/list`, `resources/read`, `resources/subscribe`,
//! `resources/unsubscribe` (server/resources page).

use serde_json::Value;

use crate::engine::dispatch::{RequestCtx, method_not_found};
use crate::engine::jsonrpc::RpcError;

pub(crate) fn list(_ctx: &RequestCtx) -> Result<Value, RpcError> {
    Err(method_not_found("resources/list"))
}

pub(crate) fn list_templates(_ctx: &RequestCtx) -> Result<Value, RpcError> {
    Err(method_not_found("resources/templates/list"))
}

pub(crate) fn read(_ctx: &RequestCtx) -> Result<Value, RpcError> {
    Err(method_not_found("resources/read"))
}

pub(crate) fn subscribe(_ctx: &RequestCtx) -> Result<Value, RpcError> {
    Err(method_not_found("resources/subscribe"))
}

pub(crate) fn unsubscribe(_ctx: &RequestCtx) -> Result<Value, RpcError> {
    Err(method_not_found("resources/unsubscribe"))
}
