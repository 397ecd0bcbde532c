//! `/servers/{server}/oauth/tokens`: list and revoke the tokens of a server that uses OAuth.
//! OAuth itself comes later; until then no server uses it, so the routes exist and answer
//! `404` saying why.

use std::sync::Arc;

use axum::Router;
use axum::extract::{Path, State};
use axum::routing::{delete, get};

use super::ApiError;
use super::openapi::{Docs, Operation};
use super::support::hosted;
use crate::cli::App;

pub(crate) fn routes() -> Router<Arc<App>> {
    Router::new()
        .route(
            "/servers/{server}/oauth/tokens",
            get(without_oauth).delete(without_oauth),
        )
        .route(
            "/servers/{server}/oauth/tokens/{token}",
            delete(without_oauth_one),
        )
}

pub(crate) fn operations(_docs: &mut Docs) -> Vec<Operation> {
    let later = "Answers `404` while the server does not use OAuth.";
    vec![
        Operation::new(
            "get",
            "/servers/{server}/oauth/tokens",
            "listTokens",
            "List the live access and refresh tokens of a server that uses OAuth.",
        )
        .describe(later)
        .reply(
            200,
            serde_json::json!({ "type": "array", "items": { "type": "object" } }),
        )
        .errors(&[404]),
        Operation::new(
            "delete",
            "/servers/{server}/oauth/tokens",
            "revokeTokens",
            "Revoke every access and refresh token of a server that uses OAuth.",
        )
        .describe(later)
        .no_content()
        .errors(&[404]),
        Operation::new(
            "delete",
            "/servers/{server}/oauth/tokens/{token}",
            "revokeToken",
            "Revoke one token, by the `id` that the list returns.",
        )
        .describe(later)
        .no_content()
        .errors(&[404]),
    ]
}

fn no_oauth(app: &App, server: &str) -> ApiError {
    match hosted(app, server) {
        Err(unknown) => unknown,
        Ok(_) => {
            ApiError::not_found(format!("server `{server}` does not use OAuth")).field("server")
        }
    }
}

async fn without_oauth(State(app): State<Arc<App>>, Path(server): Path<String>) -> ApiError {
    no_oauth(&app, &server)
}

async fn without_oauth_one(
    State(app): State<Arc<App>>,
    Path((server, _token)): Path<(String, String)>,
) -> ApiError {
    no_oauth(&app, &server)
}
