//! The REST API under `/api/v1` on the UI listener (product guide, "REST API"). One file per
//! resource, declaring each of its routes once with its OpenAPI entry (`openapi.rs`); the
//! four catalog kinds share one CRUD (`catalog.rs`, `kinds.rs`). Every error is an
//! [`ApiError`] answered as RFC 9457 problem details, and every engine access goes through
//! `live.rs`.
//!
//! The whole `/api/v1` router sits behind `guard` (Host, Origin, Content-Type) and a 4 MiB
//! body limit; `GET /api/v1/openapi.json` documents every route. The same listener serves the
//! web UI (`crate::cli::ui`) behind the Host check alone.
//!
//! Imports run one way: resource files use the shared lower modules (`openapi`, `body`,
//! `support`, `live`, `problem`), never each other, except `servers` using `oauth`'s `auth`
//! body.

mod body;
mod cassettes;
mod catalog;
mod guard;
mod kinds;
mod live;
mod logs;
mod memory;
mod meta;
mod oauth;
mod openapi;
mod problem;
mod servers;
mod sessions;
mod support;
mod tasks;
mod templates;

use std::sync::Arc;

use axum::Router;
use axum::extract::DefaultBodyLimit;
use axum::http::{Method, StatusCode, Uri};
use axum::routing::get;

pub use problem::ApiError;

use super::App;
use crate::spec::{PromptSpec, ResourceSpec, ResourceTemplateSpec, ToolSpec};
use openapi::Docs;

/// The UI listener's router.
pub fn router(app: Arc<App>) -> Router {
    let mut docs = Docs::new();
    // In the order of the product guide's table.
    let mut routes = vec![meta::route(&mut docs)];
    routes.extend(servers::routes(&mut docs));
    routes.extend(catalog::routes::<ToolSpec>(&mut docs));
    routes.extend(catalog::routes::<ResourceSpec>(&mut docs));
    routes.extend(catalog::routes::<ResourceTemplateSpec>(&mut docs));
    routes.extend(catalog::routes::<PromptSpec>(&mut docs));
    routes.extend(sessions::routes(&mut docs));
    routes.extend(tasks::routes(&mut docs));
    routes.extend(oauth::routes(&mut docs));
    routes.extend(logs::routes());
    routes.extend(cassettes::routes(&mut docs));
    routes.push(templates::route(&mut docs));
    routes.push(memory::route(&mut docs));
    let api = openapi::serve(docs, app.ui_port, routes)
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
    let ui = crate::cli::ui::routes().layer(axum::middleware::from_fn_with_state(
        app.clone(),
        guard::local_host,
    ));
    Router::new()
        .nest("/api/v1", api)
        .route("/api/v1/", root)
        .merge(ui)
        .with_state(app)
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
