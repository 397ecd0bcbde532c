//! `/servers/{server}/tools`: list (drafts included), create (a new tool starts as a draft),
//! get, update and delete tools.
//!
//! Every change goes through the engine's catalog, which tells clients
//! `notifications/tools/list_changed` exactly when the product guide says: on publish, and on
//! an edit, rename, unpublish or delete of a published tool; never for a draft.

use std::sync::Arc;

use axum::extract::{Path, State};
use axum::http::StatusCode;
use axum::response::Response;
use axum::routing::get;
use axum::{Json, Router};
use serde::{Deserialize, Serialize};
use serde_json::{Value, json};

use super::ApiError;
use super::body::{JsonBody, decode, merge, object};
use super::openapi::{Docs, Operation};
use super::support::{commit, created, edit_catalog, hosted};
use crate::cli::App;
use crate::error::Error;
use crate::spec::{ResponseSpec, Step, ToolAnnotations, ToolSpec};

/// The body of `PATCH /servers/{server}/tools/{tool}`: each member given replaces that
/// field whole, `null` resets it to its default.
#[derive(Debug, Serialize, Deserialize, schemars::JsonSchema)]
#[serde(rename_all = "camelCase", deny_unknown_fields)]
pub(crate) struct ToolPatch {
    /// A new name (a rename): 1-128 letters, digits, `_`, `-` or `.`, unique on the server.
    #[serde(default)]
    pub(crate) name: Option<String>,
    /// A display name.
    #[serde(default)]
    pub(crate) title: Option<String>,
    /// What the tool does, for the model behind the client.
    #[serde(default)]
    pub(crate) description: Option<String>,
    /// A JSON Schema with `"type": "object"`.
    #[serde(default)]
    pub(crate) input_schema: Option<Value>,
    /// A JSON Schema for `structuredContent`.
    #[serde(default)]
    pub(crate) output_schema: Option<Value>,
    /// `readOnlyHint`, `destructiveHint`, `idempotentHint`, `openWorldHint`, `title`.
    #[serde(default)]
    pub(crate) annotations: Option<ToolAnnotations>,
    /// The json-e response template.
    #[serde(default)]
    pub(crate) template: Option<Value>,
    /// `true` publishes the tool, `false` makes it a draft again.
    #[serde(default)]
    pub(crate) published: Option<bool>,
    /// Steps run before the template renders.
    #[serde(default)]
    pub(crate) script: Option<Vec<Step>>,
    /// Spec `Icon`s.
    #[serde(default)]
    pub(crate) icons: Option<Value>,
    /// `_meta`, passed through to `tools/list`.
    #[serde(default, rename = "_meta")]
    pub(crate) meta: Option<Value>,
    /// Alternative answers (conditions, sequences, faults), replaced whole; `null` or `[]`
    /// leaves only the template.
    #[serde(default)]
    pub(crate) responses: Option<Vec<ResponseSpec>>,
}

pub(crate) fn routes() -> Router<Arc<App>> {
    Router::new()
        .route("/servers/{server}/tools", get(list).post(create))
        .route(
            "/servers/{server}/tools/{tool}",
            get(read).patch(update).delete(remove),
        )
}

pub(crate) fn operations(docs: &mut Docs) -> Vec<Operation> {
    let tool = docs.schema::<ToolSpec>();
    vec![
        Operation::new(
            "get",
            "/servers/{server}/tools",
            "listTools",
            "List tools, drafts included.",
        )
        .reply(200, docs.schema::<Vec<ToolSpec>>())
        .errors(&[404]),
        Operation::new("post", "/servers/{server}/tools", "createTool", "Create a tool.")
            .describe(
                "A new tool starts as a draft: `published` defaults to `false` here. Creating \
                 a published tool sends `notifications/tools/list_changed`.",
            )
            .body(json!({ "allOf": [tool.clone(), { "properties": { "published": {
                "type": "boolean", "default": false,
                "description": "Drafts are neither listed nor callable; a new tool is a draft unless this is `true`." } } }] }))
            .reply(201, tool.clone())
            .errors(&[404, 409]),
        Operation::new("get", "/servers/{server}/tools/{tool}", "getTool", "Get a tool.")
            .reply(200, tool.clone())
            .errors(&[404]),
        Operation::new(
            "patch",
            "/servers/{server}/tools/{tool}",
            "updateTool",
            "Update a tool. Set `published` to publish or unpublish it.",
        )
        .describe(
            "Sends `notifications/tools/list_changed` when the tool is published, and when a \
             published tool is edited, renamed or unpublished; changes to a draft send none.",
        )
        .body(docs.schema::<ToolPatch>())
        .reply(200, tool)
        .errors(&[404, 409]),
        Operation::new(
            "delete",
            "/servers/{server}/tools/{tool}",
            "deleteTool",
            "Delete a tool.",
        )
        .describe("Deleting a published tool sends `notifications/tools/list_changed`.")
        .no_content()
        .errors(&[404]),
    ]
}

fn find(app: &App, server: &str, tool: &str) -> Result<ToolSpec, ApiError> {
    hosted(app, server)?
        .engine
        .items::<ToolSpec>()
        .into_iter()
        .find(|t| t.name == tool)
        .ok_or_else(|| no_tool(server, tool))
}

fn no_tool(server: &str, tool: &str) -> ApiError {
    ApiError::not_found(format!("server `{server}` has no tool named `{tool}`")).field("tool")
}

/// A catalog error, with an unknown tool answered as this route's 404.
fn catalog_error(server: &str, tool: &str, error: Error) -> ApiError {
    match error {
        Error::Unknown { .. } => no_tool(server, tool),
        other => other.into(),
    }
}

async fn list(
    State(app): State<Arc<App>>,
    Path(server): Path<String>,
) -> Result<Json<Vec<ToolSpec>>, ApiError> {
    Ok(Json(hosted(&app, &server)?.engine.items::<ToolSpec>()))
}

async fn create(
    State(app): State<Arc<App>>,
    Path(server): Path<String>,
    JsonBody(body): JsonBody<Value>,
) -> Result<Response, ApiError> {
    let mut body = object(body)?;
    // The product: "A new tool starts as a draft." ToolSpec's own default (published) is
    // the library's and servers.json's.
    body.entry("published").or_insert(Value::Bool(false));
    let tool: ToolSpec = decode(&Value::Object(body))?;
    let name = tool.name.clone();
    let saved = commit(&app, || {
        let hosted = hosted(&app, &server)?;
        hosted.engine.add(tool.clone())?;
        Ok(tool)
    })
    .await?;
    Ok(created(
        &format!("/api/v1/servers/{server}/tools/{name}"),
        &saved,
    ))
}

async fn read(
    State(app): State<Arc<App>>,
    Path((server, tool)): Path<(String, String)>,
) -> Result<Json<ToolSpec>, ApiError> {
    find(&app, &server, &tool).map(Json)
}

async fn update(
    State(app): State<Arc<App>>,
    Path((server, tool)): Path<(String, String)>,
    JsonBody(patch): JsonBody<Value>,
) -> Result<Json<ToolSpec>, ApiError> {
    let patch = object(patch)?;
    commit(&app, || {
        let current = find(&app, &server, &tool)?;
        let next: ToolSpec = merge::<_, ToolPatch>(&current, patch)?;
        // A no-op (publishing a published tool) changes nothing clients see.
        if next != current {
            edit_catalog(
                &app,
                &server,
                |e| e.update(&tool, next.clone()),
                |e| catalog_error(&server, &tool, e),
            )?;
        }
        Ok(next)
    })
    .await
    .map(Json)
}

async fn remove(
    State(app): State<Arc<App>>,
    Path((server, tool)): Path<(String, String)>,
) -> Result<StatusCode, ApiError> {
    commit(&app, || {
        edit_catalog(
            &app,
            &server,
            |e| e.remove::<ToolSpec>(&tool),
            |e| catalog_error(&server, &tool, e),
        )?;
        Ok(StatusCode::NO_CONTENT)
    })
    .await
}
