//! The capability manifest: `GET /.well-known/mcp-server.json` next to the MCP endpoint (as
//! Mock MCP Studio serves it), describing the live catalog without an MCP session: server
//! info, protocol versions, capabilities, the endpoint, whether it needs an API key, and the
//! tools, resources, resource templates and prompts exactly as the list methods show them.
//!
//! Opt-in (`manifest: true`); otherwise the path answers `404`. It is discovery, so it asks
//! for no API key, but the Host check applies as on the endpoint. The field names follow
//! MCP's own (`serverInfo`, `capabilities`, `supportedVersions` as `server/discover` says,
//! `inputSchema` in tools) and the draft "server card" proposal (`transport`,
//! `authentication`), so a client can read it with the types it already has.

use axum::extract::Request;
use axum::http::{StatusCode, header};
use axum::response::{IntoResponse, Response};
use serde_json::{Value, json};

use super::Engine;

/// The manifest's file name under `.well-known/`.
pub(crate) const FILE: &str = "mcp-server.json";

/// Where the manifest of the endpoint at `endpoint` is served: beside it, so `/mcp` has
/// `/.well-known/mcp-server.json` and `/s/NAME/mcp` has `/s/NAME/.well-known/mcp-server.json`.
pub(crate) fn path_for(endpoint: &str) -> String {
    let parent = endpoint.rsplit_once('/').map_or("", |(parent, _)| parent);
    format!("{parent}/.well-known/{FILE}")
}

/// The manifest of the endpoint at `endpoint`, answering a GET or HEAD of its
/// [`path_for`].
pub(crate) fn serve(engine: &Engine, endpoint: &str, request: &Request) -> Response {
    if let Some(rejection) = engine.guard.host_rejection(request) {
        return rejection;
    }
    if !engine.spec.manifest {
        return (
            StatusCode::NOT_FOUND,
            axum::Json(json!({
                "error": "this server does not serve a capability manifest; turn it on with `manifest: true` (builder `.manifest(true)`)"
            })),
        )
            .into_response();
    }
    let url = request
        .headers()
        .get(header::HOST)
        .and_then(|v| v.to_str().ok())
        .map(|host| {
            // Behind a TLS tunnel the listener sees plain HTTP; the proxy says what the
            // client used. Only the two known values are reflected.
            let https = request
                .headers()
                .get("x-forwarded-proto")
                .is_some_and(|v| v.as_bytes().eq_ignore_ascii_case(b"https"));
            format!(
                "{}://{host}{endpoint}",
                if https { "https" } else { "http" }
            )
        });
    (
        // The catalog changes while clients are connected; a cached copy would lie. It is
        // public discovery data carrying no credentials, so any web page may read it.
        [
            (header::CACHE_CONTROL, "no-store"),
            (header::ACCESS_CONTROL_ALLOW_ORIGIN, "*"),
        ],
        axum::Json(document(engine, endpoint, url)),
    )
        .into_response()
}

/// The manifest of `engine` now.
pub(crate) fn document(engine: &Engine, endpoint: &str, url: Option<String>) -> Value {
    let mut manifest = json!({ "serverInfo": engine.server_info() });
    if let Some(instructions) = &engine.spec.instructions {
        manifest["instructions"] = json!(instructions);
    }
    manifest["protocolVersion"] = json!(engine.versions.first().map(|v| v.as_str()));
    manifest["supportedVersions"] = json!(
        engine
            .versions
            .iter()
            .map(|v| v.as_str())
            .collect::<Vec<_>>()
    );
    let mut transport = json!({ "type": "streamable-http", "endpoint": endpoint });
    if let Some(url) = url {
        transport["url"] = json!(url);
    }
    manifest["transport"] = transport;
    let required = engine.guard.requires_key();
    manifest["authentication"] = json!({
        "required": required,
        "schemes": if required { vec!["bearer"] } else { Vec::new() },
    });
    manifest["capabilities"] = engine.capabilities();
    let catalog = &engine.catalog;
    manifest["tools"] = catalog
        .tools
        .visible()
        .iter()
        .map(|t| t.listing())
        .collect();
    if engine.serves_resources() {
        manifest["resources"] = catalog
            .resources
            .visible()
            .iter()
            .map(|r| r.listing())
            .collect();
        manifest["resourceTemplates"] = catalog
            .templates
            .visible()
            .iter()
            .map(|t| t.listing())
            .collect();
    }
    if engine.serves_prompts() {
        manifest["prompts"] = catalog
            .prompts
            .visible()
            .iter()
            .map(|p| p.listing())
            .collect();
    }
    manifest
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn the_manifest_sits_beside_the_endpoint() {
        assert_eq!(path_for("/mcp"), "/.well-known/mcp-server.json");
        assert_eq!(
            path_for("/s/echo/mcp"),
            "/s/echo/.well-known/mcp-server.json"
        );
    }
}
