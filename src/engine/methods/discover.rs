//! `server/discover` (2026-07-28 `server/discover.mdx`) and what every 2026-07-28 result
//! carries besides its content: `resultType`, the server's identity, caching hints.

use serde_json::{Value, json};

use crate::engine::Engine;
use crate::engine::protocol::modern::{CACHEABLE, META_SERVER_INFO, TASKS_EXTENSION};

/// `server/discover` (`server/discover.mdx`).
pub(crate) fn discover(engine: &Engine) -> Value {
    let mut capabilities = engine.capabilities();
    if engine.serves_tasks() {
        // The tasks extension: "Include the extension in your server/discover capabilities".
        if let Some(extensions) = capabilities
            .as_object_mut()
            .map(|c| c.entry("extensions").or_insert_with(|| json!({})))
            .and_then(Value::as_object_mut)
        {
            extensions.insert(TASKS_EXTENSION.into(), json!({}));
        }
    }
    let mut result = json!({
        "supportedVersions": engine.versions.iter().map(|v| v.as_str()).collect::<Vec<_>>(),
        "capabilities": capabilities,
    });
    if let Some(instructions) = &engine.spec.instructions {
        result["instructions"] = json!(instructions);
    }
    result
}

/// What every modern result carries: `resultType` (when the handler did not set one),
/// the server's identity in `_meta`, and caching hints on cacheable complete results.
pub(crate) fn finish_result(engine: &Engine, method: &str, mut result: Value) -> Value {
    let Some(object) = result.as_object_mut() else {
        return result;
    };
    object
        .entry("resultType")
        .or_insert_with(|| json!("complete"));
    let complete = object.get("resultType") == Some(&json!("complete"));
    if complete && CACHEABLE.contains(&method) {
        object.entry("ttlMs").or_insert_with(|| json!(0));
        object
            .entry("cacheScope")
            .or_insert_with(|| json!("public"));
    }
    let meta = object.entry("_meta").or_insert_with(|| json!({}));
    if let Some(meta) = meta.as_object_mut() {
        meta.insert(META_SERVER_INFO.into(), engine.server_info());
    }
    result
}
