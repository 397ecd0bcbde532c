//! The REST API under `/api/v1` on the UI listener (product guide, "REST API"). One file per
//! resource; every error is an [`ApiError`] answered as RFC 9457 problem details.

mod problem;

use std::sync::Arc;

use axum::Router;
use axum::extract::State;
use axum::routing::get;
use serde_json::json;

pub use problem::ApiError;

use super::App;

/// The UI listener's router.
pub fn router(app: Arc<App>) -> Router {
    let api = Router::new().route("/", get(meta));
    Router::new().nest("/api/v1", api).with_state(app)
}

/// `GET /`: version, ports, MCP URL template, config path.
async fn meta(State(app): State<Arc<App>>) -> axum::Json<serde_json::Value> {
    axum::Json(json!({
        "version": env!("CARGO_PKG_VERSION"),
        "uiPort": app.ui_port,
        "mcpUrlTemplate": app.mcp_url("{server}"),
        "configPath": app.config_path,
    }))
}
