//! `skills/list`, `skills/get` and `resources/directory/read`: the skills extension's
//! methods (SEP-2640). A server without skills does not declare the extension, so they
//! answer `-32601` there, as does the directory read on a server that does not declare
//! `directoryRead`.

use serde_json::{Value, json};

use crate::engine::methods::{RequestCtx, method_not_found, pagination, unknown};
use crate::engine::protocol::jsonrpc::RpcError;
use crate::engine::skills::Skills;

/// Every skill's entry, paged like the other lists (an entry is never split).
pub(crate) fn list(ctx: &RequestCtx) -> Result<Value, RpcError> {
    let method = "skills/list";
    let skills = served(ctx, method)?;
    pagination::page(ctx, method, "skills", skills.entries().to_vec())
}

/// The entry of the skill whose `SKILL.md` URI is `params.uri`.
pub(crate) fn get(ctx: &RequestCtx) -> Result<Value, RpcError> {
    let method = "skills/get";
    let skills = served(ctx, method)?;
    let uri = uri_param(ctx, method, "a skill's SKILL.md")?;
    let entry = skills
        .entry(uri)
        .ok_or_else(|| unknown("skill", "uri", uri))?;
    Ok(json!({ "skill": entry }))
}

/// The direct children of a skill folder, paged like every list.
pub(crate) fn read_directory(ctx: &RequestCtx) -> Result<Value, RpcError> {
    let method = "resources/directory/read";
    let skills = served(ctx, method)?;
    if !ctx.engine.spec().skills_directory_read {
        return Err(method_not_found(method));
    }
    let uri = uri_param(ctx, method, "a skill folder")?;
    let children = skills.folder(uri).ok_or_else(|| {
        RpcError::invalid_params(format!(
            "{method}: {uri} is not a folder of a skill this server serves"
        ))
        .with_data(json!({ "uri": uri }))
    })?;
    pagination::page(ctx, method, "resources", children.to_vec())
}

fn uri_param<'a>(ctx: &'a RequestCtx, method: &str, naming: &str) -> Result<&'a str, RpcError> {
    ctx.params
        .get("uri")
        .and_then(Value::as_str)
        .ok_or_else(|| {
            RpcError::invalid_params(format!(
                "{method}: `params.uri` must be a string naming {naming}"
            ))
        })
}

fn served<'a>(ctx: &'a RequestCtx, method: &str) -> Result<&'a Skills, RpcError> {
    ctx.engine.skills().ok_or_else(|| method_not_found(method))
}
