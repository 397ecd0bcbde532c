//! `GET /`: what a client of the API needs to know about this instance.
//!
//! Must not touch: the servers or the engine; it reads only the app's own settings.

use std::path::PathBuf;
use std::sync::Arc;

use axum::Json;
use axum::extract::State;
use serde::{Deserialize, Serialize};

use super::openapi::{Docs, Operation, Route, Verb};
use crate::cli::App;

/// The version, listener ports, MCP URL template and config file path.
#[derive(Debug, Serialize, Deserialize, schemars::JsonSchema)]
#[serde(rename_all = "camelCase")]
pub(crate) struct Meta {
    /// The MCP Decoy version.
    pub(crate) version: String,
    /// The port of the UI and API listener.
    pub(crate) ui_port: u16,
    /// The port of the MCP listener.
    pub(crate) mcp_port: Option<u16>,
    /// Each server's MCP URL, with `{server}` in place of its name.
    pub(crate) mcp_url_template: String,
    /// The `servers.json` this instance reads and writes.
    pub(crate) config_path: PathBuf,
}

/// `GET /`, documented.
pub(crate) fn route(docs: &mut Docs) -> Route {
    Operation::new(
        Verb::Get,
        "/",
        "getMeta",
        "Get the version, listener ports, MCP URL template, and config file path.",
    )
    .reply(200, docs.schema::<Meta>())
    .to(get)
}

/// `GET /`.
pub(crate) async fn get(State(app): State<Arc<App>>) -> Json<Meta> {
    Json(Meta {
        version: env!("CARGO_PKG_VERSION").into(),
        ui_port: app.ui_port,
        // `mcp_base` is `http://HOST:PORT`, so its port is after the last colon.
        mcp_port: app
            .mcp_base
            .rsplit(':')
            .next()
            .and_then(|port| port.parse().ok()),
        mcp_url_template: app.mcp_url("{server}"),
        config_path: app.config_path.clone(),
    })
}
