//! `/servers/{server}/resource-templates`: list, create, get, update and delete resource
//! templates. A template is addressed by its URI template as ONE percent-encoded path
//! segment (`encodeURIComponent`), like a resource by its URI (see `resources.rs`); edits
//! send `notifications/resources/list_changed`, and the first template of a server without
//! the `resources` capability rebuilds it.

use std::collections::BTreeMap;
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
use super::resources::{FIRST_ITEM, catalog_error};
use super::support::{commit, created, edit_catalog, encode_segment, hosted};
use crate::cli::App;
use crate::spec::ResourceTemplateSpec;

/// The body of `PATCH /servers/{server}/resource-templates/{template}`: each member given
/// replaces that field, `null` resets it.
#[derive(Debug, Serialize, Deserialize, schemars::JsonSchema)]
#[serde(rename_all = "camelCase", deny_unknown_fields)]
pub(crate) struct ResourceTemplatePatch {
    /// A new RFC 6570 URI template (a move), unique on the server.
    #[serde(default)]
    pub(crate) uri_template: Option<String>,
    /// A programmatic name.
    #[serde(default)]
    pub(crate) name: Option<String>,
    /// A display name.
    #[serde(default)]
    pub(crate) title: Option<String>,
    /// What the resources are.
    #[serde(default)]
    pub(crate) description: Option<String>,
    /// The MIME type of every match.
    #[serde(default)]
    pub(crate) mime_type: Option<String>,
    /// Spec `Annotations`.
    #[serde(default)]
    pub(crate) annotations: Option<Value>,
    /// Spec `Icon`s.
    #[serde(default)]
    pub(crate) icons: Option<Value>,
    /// `_meta`.
    #[serde(default, rename = "_meta")]
    pub(crate) meta: Option<Value>,
    /// The json-e template over `{uri, vars}`.
    #[serde(default)]
    pub(crate) template: Option<Value>,
    /// Values offered by `completion/complete` for each variable.
    #[serde(default)]
    pub(crate) completions: Option<BTreeMap<String, Vec<String>>>,
}

pub(crate) fn routes() -> Router<Arc<App>> {
    Router::new()
        .route(
            "/servers/{server}/resource-templates",
            get(list_templates).post(create_template),
        )
        .route(
            "/servers/{server}/resource-templates/{template}",
            get(read_template)
                .patch(update_template)
                .delete(remove_template),
        )
}

pub(crate) fn operations(docs: &mut Docs) -> Vec<Operation> {
    let template = docs.schema::<ResourceTemplateSpec>();
    vec![
        Operation::new(
            "get",
            "/servers/{server}/resource-templates",
            "listResourceTemplates",
            "List resource templates.",
        )
        .reply(200, docs.schema::<Vec<ResourceTemplateSpec>>())
        .errors(&[404]),
        Operation::new(
            "post",
            "/servers/{server}/resource-templates",
            "createResourceTemplate",
            "Create a resource template.",
        )
        .describe(FIRST_ITEM)
        .body(template.clone())
        .reply(201, template.clone())
        .errors(&[404, 409]),
        Operation::new(
            "get",
            "/servers/{server}/resource-templates/{template}",
            "getResourceTemplate",
            "Get a resource template by its percent-encoded URI template.",
        )
        .reply(200, template.clone())
        .errors(&[404]),
        Operation::new(
            "patch",
            "/servers/{server}/resource-templates/{template}",
            "updateResourceTemplate",
            "Update a resource template.",
        )
        .body(docs.schema::<ResourceTemplatePatch>())
        .reply(200, template)
        .errors(&[404, 409]),
        Operation::new(
            "delete",
            "/servers/{server}/resource-templates/{template}",
            "deleteResourceTemplate",
            "Delete a resource template.",
        )
        .no_content()
        .errors(&[404]),
    ]
}

fn no_template(server: &str, template: &str) -> ApiError {
    ApiError::not_found(format!(
        "server `{server}` has no resource template `{template}`"
    ))
    .field("template")
}

fn find_template(
    app: &App,
    server: &str,
    template: &str,
) -> Result<ResourceTemplateSpec, ApiError> {
    hosted(app, server)?
        .engine
        .items::<ResourceTemplateSpec>()
        .into_iter()
        .find(|t| t.uri_template == template)
        .ok_or_else(|| no_template(server, template))
}

async fn list_templates(
    State(app): State<Arc<App>>,
    Path(server): Path<String>,
) -> Result<Json<Vec<ResourceTemplateSpec>>, ApiError> {
    Ok(Json(
        hosted(&app, &server)?
            .engine
            .items::<ResourceTemplateSpec>(),
    ))
}

async fn create_template(
    State(app): State<Arc<App>>,
    Path(server): Path<String>,
    JsonBody(template): JsonBody<ResourceTemplateSpec>,
) -> Result<Response, ApiError> {
    let key = template.uri_template.clone();
    let saved = commit(&app, || {
        let hosted = hosted(&app, &server)?;
        hosted
            .engine
            .add(template.clone())
            .map_err(|e| catalog_error(e, "uriTemplate", || no_template(&server, &key)))?;
        Ok(template)
    })
    .await?;
    Ok(created(
        &format!(
            "/api/v1/servers/{server}/resource-templates/{}",
            encode_segment(&key)
        ),
        &saved,
    ))
}

async fn read_template(
    State(app): State<Arc<App>>,
    Path((server, template)): Path<(String, String)>,
) -> Result<Json<ResourceTemplateSpec>, ApiError> {
    find_template(&app, &server, &template).map(Json)
}

async fn update_template(
    State(app): State<Arc<App>>,
    Path((server, template)): Path<(String, String)>,
    JsonBody(patch): JsonBody<Value>,
) -> Result<Json<ResourceTemplateSpec>, ApiError> {
    let patch = object(patch)?;
    commit(&app, || {
        let current = find_template(&app, &server, &template)?;
        let next: ResourceTemplateSpec = merge::<_, ResourceTemplatePatch>(&current, patch)?;
        if next != current {
            edit_catalog(
                &app,
                &server,
                |e| e.update(&template, next.clone()),
                |e| catalog_error(e, "uriTemplate", || no_template(&server, &template)),
            )?;
        }
        Ok(next)
    })
    .await
    .map(Json)
}

async fn remove_template(
    State(app): State<Arc<App>>,
    Path((server, template)): Path<(String, String)>,
) -> Result<StatusCode, ApiError> {
    commit(&app, || {
        edit_catalog(
            &app,
            &server,
            |e| e.remove::<ResourceTemplateSpec>(&template),
            |e| catalog_error(e, "uriTemplate", || no_template(&server, &template)),
        )?;
        Ok(StatusCode::NO_CONTENT)
    })
    .await
}
