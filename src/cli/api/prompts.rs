//! `/servers/{server}/prompts`: list, create, get, update and delete prompts. Edits send
//! `notifications/prompts/list_changed`. A server that started without prompts did not
//! declare the `prompts` capability; adding its first prompt rebuilds the server (its
//! sessions end, its logs stay) so that reconnecting clients are told about it.

use std::sync::Arc;

use axum::extract::{Path, State};
use axum::http::StatusCode;
use axum::response::Response;
use axum::routing::get;
use axum::{Json, Router};
use serde::{Deserialize, Serialize};
use serde_json::Value;

use super::ApiError;
use super::body::{JsonBody, merge, object};
use super::openapi::{Docs, Operation};
use super::support::{commit, created, edit_catalog, hosted};
use crate::cli::App;
use crate::error::Error;
use crate::spec::{PromptArgumentSpec, PromptSpec};

/// The body of `PATCH /servers/{server}/prompts/{prompt}`: each member given replaces that
/// field whole, `null` resets it.
#[derive(Debug, Serialize, Deserialize, schemars::JsonSchema)]
#[serde(rename_all = "camelCase", deny_unknown_fields)]
pub(crate) struct PromptPatch {
    /// A new name (a rename), unique on the server.
    #[serde(default)]
    pub(crate) name: Option<String>,
    /// A display name.
    #[serde(default)]
    pub(crate) title: Option<String>,
    /// What the prompt does.
    #[serde(default)]
    pub(crate) description: Option<String>,
    /// Its arguments, in order (the whole list).
    #[serde(default)]
    pub(crate) arguments: Option<Vec<PromptArgumentSpec>>,
    /// Spec `Icon`s.
    #[serde(default)]
    pub(crate) icons: Option<Value>,
    /// `_meta`.
    #[serde(default, rename = "_meta")]
    pub(crate) meta: Option<Value>,
    /// The json-e template over `{args}`.
    #[serde(default)]
    pub(crate) template: Option<Value>,
}

pub(crate) fn routes() -> Router<Arc<App>> {
    Router::new()
        .route("/servers/{server}/prompts", get(list).post(create))
        .route(
            "/servers/{server}/prompts/{prompt}",
            get(read).patch(update).delete(remove),
        )
}

pub(crate) fn operations(docs: &mut Docs) -> Vec<Operation> {
    let prompt = docs.schema::<PromptSpec>();
    vec![
        Operation::new(
            "get",
            "/servers/{server}/prompts",
            "listPrompts",
            "List prompts.",
        )
        .reply(200, docs.schema::<Vec<PromptSpec>>())
        .errors(&[404]),
        Operation::new(
            "post",
            "/servers/{server}/prompts",
            "createPrompt",
            "Create a prompt.",
        )
        .describe(
            "Sends `notifications/prompts/list_changed`. A server that started without \
             prompts does not declare the `prompts` capability: adding its first prompt \
             rebuilds the server, which closes its sessions so reconnecting clients see it.",
        )
        .body(prompt.clone())
        .reply(201, prompt.clone())
        .errors(&[404, 409]),
        Operation::new(
            "get",
            "/servers/{server}/prompts/{prompt}",
            "getPrompt",
            "Get a prompt.",
        )
        .reply(200, prompt.clone())
        .errors(&[404]),
        Operation::new(
            "patch",
            "/servers/{server}/prompts/{prompt}",
            "updatePrompt",
            "Update a prompt.",
        )
        .describe("Sends `notifications/prompts/list_changed`.")
        .body(docs.schema::<PromptPatch>())
        .reply(200, prompt)
        .errors(&[404, 409]),
        Operation::new(
            "delete",
            "/servers/{server}/prompts/{prompt}",
            "deletePrompt",
            "Delete a prompt.",
        )
        .no_content()
        .errors(&[404]),
    ]
}

fn no_prompt(server: &str, prompt: &str) -> ApiError {
    ApiError::not_found(format!("server `{server}` has no prompt named `{prompt}`")).field("prompt")
}

fn catalog_error(server: &str, prompt: &str, error: Error) -> ApiError {
    match error {
        Error::Unknown { .. } => no_prompt(server, prompt),
        other => other.into(),
    }
}

fn find(app: &App, server: &str, prompt: &str) -> Result<PromptSpec, ApiError> {
    hosted(app, server)?
        .engine
        .items::<PromptSpec>()
        .into_iter()
        .find(|p| p.name == prompt)
        .ok_or_else(|| no_prompt(server, prompt))
}

async fn list(
    State(app): State<Arc<App>>,
    Path(server): Path<String>,
) -> Result<Json<Vec<PromptSpec>>, ApiError> {
    Ok(Json(hosted(&app, &server)?.engine.items::<PromptSpec>()))
}

async fn create(
    State(app): State<Arc<App>>,
    Path(server): Path<String>,
    JsonBody(prompt): JsonBody<PromptSpec>,
) -> Result<Response, ApiError> {
    let name = prompt.name.clone();
    let saved = commit(&app, || {
        let hosted = hosted(&app, &server)?;
        hosted
            .engine
            .add(prompt.clone())
            .map_err(|e| catalog_error(&server, &name, e))?;
        Ok(prompt)
    })
    .await?;
    Ok(created(
        &format!(
            "/api/v1/servers/{server}/prompts/{}",
            super::support::encode_segment(&name)
        ),
        &saved,
    ))
}

async fn read(
    State(app): State<Arc<App>>,
    Path((server, prompt)): Path<(String, String)>,
) -> Result<Json<PromptSpec>, ApiError> {
    find(&app, &server, &prompt).map(Json)
}

async fn update(
    State(app): State<Arc<App>>,
    Path((server, prompt)): Path<(String, String)>,
    JsonBody(patch): JsonBody<Value>,
) -> Result<Json<PromptSpec>, ApiError> {
    let patch = object(patch)?;
    commit(&app, || {
        let current = find(&app, &server, &prompt)?;
        let next: PromptSpec = merge::<_, PromptPatch>(&current, patch)?;
        if next != current {
            edit_catalog(
                &app,
                &server,
                |e| e.update(&prompt, next.clone()),
                |e| catalog_error(&server, &prompt, e),
            )?;
        }
        Ok(next)
    })
    .await
    .map(Json)
}

async fn remove(
    State(app): State<Arc<App>>,
    Path((server, prompt)): Path<(String, String)>,
) -> Result<StatusCode, ApiError> {
    commit(&app, || {
        edit_catalog(
            &app,
            &server,
            |e| e.remove::<PromptSpec>(&prompt),
            |e| catalog_error(&server, &prompt, e),
        )?;
        Ok(StatusCode::NO_CONTENT)
    })
    .await
}
