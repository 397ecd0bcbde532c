//! `completion/complete` (server/utilities/completion page).

use serde_json::Value;

use crate::engine::dispatch::{RequestCtx, method_not_found};
use crate::engine::jsonrpc::RpcError;

pub(crate) fn complete(_ctx: &RequestCtx) -> Result<Value, RpcError> {
    Err(method_not_found("completion/complete"))
}
