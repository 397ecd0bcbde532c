//! Pages of list results (server/utilities/pagination page): a per-server page size and
//! opaque cursors; a cursor this server did not issue is `-32602`.

use serde_json::{Value, json};

use crate::engine::methods::RequestCtx;
use crate::engine::protocol::jsonrpc::RpcError;
use crate::engine::state::catalog::Kind;

/// `*/list` of one catalog kind: its visible items as `show` lists them, paged.
pub(crate) fn list<T: Kind>(
    ctx: &RequestCtx,
    method: &str,
    key: &str,
    show: impl Fn(&T) -> Value,
) -> Result<Value, RpcError> {
    let items = T::shelf(&ctx.engine.catalog)
        .visible()
        .iter()
        .map(|item| show(item))
        .collect();
    page(ctx, method, key, items)
}

/// The page of `items` the request's `cursor` asks for, as `{<key>: [...], nextCursor?}`.
pub(crate) fn page(
    ctx: &RequestCtx,
    method: &str,
    key: &str,
    items: Vec<Value>,
) -> Result<Value, RpcError> {
    let start = match ctx.params.get("cursor") {
        None | Some(Value::Null) => 0,
        Some(cursor) => decode(method, cursor)?,
    };
    if start > items.len() {
        return Err(invalid(method, &ctx.params["cursor"]));
    }
    let size = ctx.engine.spec.page_size.unwrap_or(usize::MAX);
    let end = start.saturating_add(size).min(items.len());
    let mut result = json!({ key: items[start..end].to_vec() });
    if end < items.len() {
        result["nextCursor"] = json!(encode(method, end));
    }
    Ok(result)
}

fn encode(method: &str, offset: usize) -> String {
    use base64::Engine as _;
    base64::engine::general_purpose::URL_SAFE_NO_PAD.encode(format!("{method}@{offset}"))
}

fn decode(method: &str, cursor: &Value) -> Result<usize, RpcError> {
    use base64::Engine as _;
    let text = cursor.as_str().ok_or_else(|| invalid(method, cursor))?;
    let bytes = base64::engine::general_purpose::URL_SAFE_NO_PAD
        .decode(text)
        .map_err(|_| invalid(method, cursor))?;
    let decoded = String::from_utf8(bytes).map_err(|_| invalid(method, cursor))?;
    let (issued_for, offset) = decoded
        .rsplit_once('@')
        .ok_or_else(|| invalid(method, cursor))?;
    if issued_for != method {
        return Err(invalid(method, cursor));
    }
    offset.parse().map_err(|_| invalid(method, cursor))
}

fn invalid(method: &str, cursor: &Value) -> RpcError {
    RpcError::invalid_params(format!(
        "{method}: invalid cursor {cursor}: pass back a `nextCursor` this server returned for {method}"
    ))
}
