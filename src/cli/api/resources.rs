//! `/servers/{server}/resources`: list, create, get, update and delete static resources
//! (resource templates are in `resource_templates.rs`).
//!
//! A resource is addressed by its URI, and a template by its URI template; both hold `/`,
//! `:` or `{}`, so each goes in the path as ONE percent-encoded segment
//! (`encodeURIComponent`): `GET /servers/s/resources/test%3A%2F%2Fa%2Fb` is `test://a/b`.
//! A path parameter keeps the routes uniform with tools and prompts, and it is what a URL
//! builder does with a segment anyway.
//!
//! Edits send `notifications/resources/list_changed` (shared with templates), and an edit of
//! a resource also sends `notifications/resources/updated` to the sessions subscribed to it.
//! A server that started with no resources or templates did not declare the `resources`
//! capability; adding its first one rebuilds the server (its sessions end, its logs stay) so
//! that reconnecting clients are told about the capability.

use std::sync::Arc;

use axum::extract::{Path, State};
use axum::http::StatusCode;
use axum::response::Response;
use axum::routing::get;
use axum::{Json, Router};
use serde::{Deserialize, Serialize};
use serde_json::{Map, Value};

use super::ApiError;
use super::body::{JsonBody, decode, merge, object};
use super::openapi::{Docs, Operation};
use super::support::{commit, created, edit_catalog, encode_segment, hosted};
use crate::cli::App;
use crate::error::Error;
use crate::spec::{ResourceBody, ResourceSpec};

/// The body of `PATCH /servers/{server}/resources/{uri}`: each member given replaces that
/// field, `null` resets it. Giving `text` turns a blob resource into a text one, and the
/// other way round.
#[derive(Debug, Serialize, Deserialize, schemars::JsonSchema)]
#[serde(rename_all = "camelCase", deny_unknown_fields)]
pub(crate) struct ResourcePatch {
    /// A new URI (a move), unique on the server.
    #[serde(default)]
    pub(crate) uri: Option<String>,
    /// A programmatic name.
    #[serde(default)]
    pub(crate) name: Option<String>,
    /// A display name.
    #[serde(default)]
    pub(crate) title: Option<String>,
    /// What the resource is.
    #[serde(default)]
    pub(crate) description: Option<String>,
    /// The MIME type of its contents.
    #[serde(default)]
    pub(crate) mime_type: Option<String>,
    /// Its size in bytes, for the listing.
    #[serde(default)]
    pub(crate) size: Option<u64>,
    /// Spec `Annotations`.
    #[serde(default)]
    pub(crate) annotations: Option<Value>,
    /// Spec `Icon`s.
    #[serde(default)]
    pub(crate) icons: Option<Value>,
    /// `_meta`.
    #[serde(default, rename = "_meta")]
    pub(crate) meta: Option<Value>,
    /// UTF-8 contents (replaces `blob`).
    #[serde(default)]
    pub(crate) text: Option<String>,
    /// Base64 contents (replaces `text`).
    #[serde(default)]
    pub(crate) blob: Option<String>,
}

pub(crate) fn routes() -> Router<Arc<App>> {
    Router::new()
        .route(
            "/servers/{server}/resources",
            get(list_resources).post(create_resource),
        )
        .route(
            "/servers/{server}/resources/{uri}",
            get(read_resource)
                .patch(update_resource)
                .delete(remove_resource),
        )
}

/// What creating the first resource, template or prompt of a server does.
pub(crate) const FIRST_ITEM: &str = "A server that started without resources or resource \
    templates does not declare the `resources` capability: adding its first one declares \
    it and closes the server's sessions, so reconnecting clients see the capability.";

pub(crate) fn operations(docs: &mut Docs) -> Vec<Operation> {
    let resource = docs.schema::<ResourceSpec>();
    vec![
        Operation::new(
            "get",
            "/servers/{server}/resources",
            "listResources",
            "List static resources.",
        )
        .reply(200, docs.schema::<Vec<ResourceSpec>>())
        .errors(&[404]),
        Operation::new(
            "post",
            "/servers/{server}/resources",
            "createResource",
            "Create a static resource (with `text` or base64 `blob`).",
        )
        .describe(FIRST_ITEM)
        .body(resource.clone())
        .reply(201, resource.clone())
        .errors(&[404, 409]),
        Operation::new(
            "get",
            "/servers/{server}/resources/{uri}",
            "getResource",
            "Get a static resource by its percent-encoded URI.",
        )
        .reply(200, resource.clone())
        .errors(&[404]),
        Operation::new(
            "patch",
            "/servers/{server}/resources/{uri}",
            "updateResource",
            "Update a static resource.",
        )
        .describe(
            "Sends `notifications/resources/list_changed` to every session and \
             `notifications/resources/updated` to the sessions subscribed to the URI.",
        )
        .body(docs.schema::<ResourcePatch>())
        .reply(200, resource)
        .errors(&[404, 409]),
        Operation::new(
            "delete",
            "/servers/{server}/resources/{uri}",
            "deleteResource",
            "Delete a static resource.",
        )
        .no_content()
        .errors(&[404]),
    ]
}

fn no_resource(server: &str, uri: &str) -> ApiError {
    ApiError::not_found(format!("server `{server}` has no resource `{uri}`")).field("uri")
}

/// A catalog error as this route's problem: an unknown key is the route's 404, and a key
/// taken is a conflict on the key's field (`uri`, `uriTemplate`), not on `name`.
pub(crate) fn catalog_error(
    error: Error,
    key_field: &str,
    missing: impl FnOnce() -> ApiError,
) -> ApiError {
    match error {
        Error::Unknown { .. } => missing(),
        duplicate @ Error::Duplicate { .. } => ApiError::conflict(key_field, duplicate.to_string()),
        other => other.into(),
    }
}

fn find_resource(app: &App, server: &str, uri: &str) -> Result<ResourceSpec, ApiError> {
    hosted(app, server)?
        .engine
        .items::<ResourceSpec>()
        .into_iter()
        .find(|r| r.uri == uri)
        .ok_or_else(|| no_resource(server, uri))
}

/// A resource has exactly one of `text` and `blob`; say so before serde's untagged-enum
/// message would.
fn one_body(body: &Map<String, Value>) -> Result<(), ApiError> {
    let has = |key: &str| body.get(key).is_some_and(|v| !v.is_null());
    match (has("text"), has("blob")) {
        (true, true) => Err(ApiError::bad_request(
            "blob",
            "a resource has `text` or `blob`, not both",
        )),
        (false, false) => Err(ApiError::bad_request(
            "text",
            "a resource needs its contents: `text` (UTF-8) or `blob` (base64)",
        )),
        _ => Ok(()),
    }
}

/// Makes a patch that gives `text` drop `blob` and the other way round, and refuses one
/// that would leave the resource without contents.
fn body_patch(current: &ResourceSpec, patch: &mut Map<String, Value>) -> Result<(), ApiError> {
    let given = |key: &str| patch.get(key).is_some_and(|v| !v.is_null());
    match (given("text"), given("blob")) {
        (true, true) => one_body(patch),
        (true, false) => {
            patch.insert("blob".into(), Value::Null);
            Ok(())
        }
        (false, true) => {
            patch.insert("text".into(), Value::Null);
            Ok(())
        }
        (false, false) => {
            let own = match current.body {
                ResourceBody::Text { .. } => "text",
                ResourceBody::Blob { .. } => "blob",
            };
            if patch.get(own).is_some_and(Value::is_null) {
                return Err(ApiError::bad_request(
                    own,
                    format!("`{own}` cannot be cleared: a resource needs `text` or `blob`"),
                ));
            }
            Ok(())
        }
    }
}

async fn list_resources(
    State(app): State<Arc<App>>,
    Path(server): Path<String>,
) -> Result<Json<Vec<ResourceSpec>>, ApiError> {
    Ok(Json(hosted(&app, &server)?.engine.items::<ResourceSpec>()))
}

async fn create_resource(
    State(app): State<Arc<App>>,
    Path(server): Path<String>,
    JsonBody(body): JsonBody<Value>,
) -> Result<Response, ApiError> {
    let body = object(body)?;
    one_body(&body)?;
    let resource: ResourceSpec = decode(&Value::Object(body))?;
    let uri = resource.uri.clone();
    let saved = commit(&app, || {
        let hosted = hosted(&app, &server)?;
        hosted
            .engine
            .add(resource.clone())
            .map_err(|e| catalog_error(e, "uri", || no_resource(&server, &uri)))?;
        Ok(resource)
    })
    .await?;
    Ok(created(
        &format!(
            "/api/v1/servers/{server}/resources/{}",
            encode_segment(&uri)
        ),
        &saved,
    ))
}

async fn read_resource(
    State(app): State<Arc<App>>,
    Path((server, uri)): Path<(String, String)>,
) -> Result<Json<ResourceSpec>, ApiError> {
    find_resource(&app, &server, &uri).map(Json)
}

async fn update_resource(
    State(app): State<Arc<App>>,
    Path((server, uri)): Path<(String, String)>,
    JsonBody(patch): JsonBody<Value>,
) -> Result<Json<ResourceSpec>, ApiError> {
    let mut patch = object(patch)?;
    commit(&app, || {
        let current = find_resource(&app, &server, &uri)?;
        body_patch(&current, &mut patch)?;
        let next: ResourceSpec = merge::<_, ResourcePatch>(&current, patch)?;
        if next != current {
            let engine = edit_catalog(
                &app,
                &server,
                |e| e.update(&uri, next.clone()),
                |e| catalog_error(e, "uri", || no_resource(&server, &uri)),
            )?;
            engine.resource_updated(&next.uri);
        }
        Ok(next)
    })
    .await
    .map(Json)
}

async fn remove_resource(
    State(app): State<Arc<App>>,
    Path((server, uri)): Path<(String, String)>,
) -> Result<StatusCode, ApiError> {
    commit(&app, || {
        edit_catalog(
            &app,
            &server,
            |e| e.remove::<ResourceSpec>(&uri),
            |e| catalog_error(e, "uri", || no_resource(&server, &uri)),
        )?;
        Ok(StatusCode::NO_CONTENT)
    })
    .await
}
