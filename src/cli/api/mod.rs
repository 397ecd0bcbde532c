//! The REST API under `/api/v1` on the UI listener (product guide, "REST API"). One file per
//! resource; every error is an [`ApiError`] answered as RFC 9457 problem details.
//!
//! The whole `/api/v1` router sits behind `guard` (Host, Origin, Content-Type) and a 4 MiB
//! body limit; `GET /api/v1/openapi.json` documents every route.

mod body;
mod guard;
mod logs;
mod meta;
mod oauth;
mod openapi;
mod problem;
mod prompts;
mod resource_templates;
mod resources;
mod servers;
mod sessions;
mod support;
mod tools;

use std::sync::Arc;

use axum::Router;
use axum::extract::DefaultBodyLimit;
use axum::http::{Method, StatusCode, Uri};
use axum::routing::get;

pub use problem::ApiError;

use super::App;

/// The UI listener's router.
pub fn router(app: Arc<App>) -> Router {
    let api = Router::new()
        .route("/", get(meta::get))
        .route("/openapi.json", get(openapi::get))
        .merge(servers::routes())
        .merge(tools::routes())
        .merge(resources::routes())
        .merge(resource_templates::routes())
        .merge(prompts::routes())
        .merge(sessions::routes())
        .merge(oauth::routes())
        .merge(logs::routes())
        .fallback(no_route)
        .method_not_allowed_fallback(no_method)
        .layer(DefaultBodyLimit::max(body::MAX_BODY_BYTES))
        .layer(axum::middleware::from_fn_with_state(
            app.clone(),
            guard::check,
        ));
    // A nest matches `/api/v1` and `/api/v1/...` but not `/api/v1/`, which is `GET /` too.
    let root = get(meta::get).layer(axum::middleware::from_fn_with_state(
        app.clone(),
        guard::check,
    ));
    Router::new()
        .nest("/api/v1", api)
        .route("/api/v1/", root)
        .route("/", get(ui_placeholder))
        .with_state(app)
}

/// The banner points people at the UI URL; until the web UI ships, it says where things are
/// rather than answering 404.
async fn ui_placeholder() -> axum::response::Html<&'static str> {
    axum::response::Html(
        "<!doctype html><title>MCP Decoy</title><h1>MCP Decoy</h1>\
         <p>The web UI is not part of this version yet. Everything it will do is in the REST API: \
         <a href=\"/api/v1/\">/api/v1/</a> (routes: <a href=\"/api/v1/openapi.json\">openapi.json</a>).</p>",
    )
}

/// Unknown paths under `/api/v1` answer a problem too, pointing at the route list.
async fn no_route(method: Method, uri: Uri) -> ApiError {
    ApiError::not_found(format!(
        "no API route `{method} /api/v1{}`; GET /api/v1/openapi.json lists every route",
        uri.path()
    ))
}

async fn no_method(method: Method, uri: Uri) -> ApiError {
    ApiError::new(
        StatusCode::METHOD_NOT_ALLOWED,
        format!(
            "`/api/v1{}` does not accept {method}; GET /api/v1/openapi.json lists every route",
            uri.path()
        ),
    )
}
