//! One CRUD for every kind of catalog item (tools, prompts, resources, resource templates):
//! `/servers/{server}/{collection}` lists and creates, `/servers/{server}/{collection}/{key}`
//! gets, updates and deletes. A [`Kind`] (see `kinds.rs`) brings its names, its OpenAPI texts
//! and its own body rules; the handlers, the `PATCH` merge and the error mapping are the
//! same for all.
//!
//! A key that holds `/`, `:` or `{}` (a resource URI, a URI template) goes in the path as ONE
//! percent-encoded segment (`encodeURIComponent`): `GET /servers/s/resources/test%3A%2F%2Fa%2Fb`
//! is `test://a/b`. A path parameter keeps the routes uniform, and it is what a URL builder
//! does with a segment anyway.
//!
//! Every change goes through the engine's catalog (via `live.rs`, never an engine field
//! here), which tells clients `list_changed` exactly when they can see the difference.

use std::sync::Arc;

use axum::Json;
use axum::extract::{Path, State};
use axum::http::StatusCode;
use axum::response::Response;
use schemars::JsonSchema;
use serde::Serialize;
use serde::de::DeserializeOwned;
use serde_json::{Map, Value};

use super::ApiError;
use super::body::{JsonBody, decode, merge, object};
use super::live::{self, Shelved};
use super::openapi::{Docs, Operation, Route, Verb, patch_members};
use super::support::{commit, created, encode_segment, hosted};
use crate::cli::App;
use crate::cli::registry::Hosted;
use crate::error::Error;

/// An operation's summary and, when it has more to say, its description.
pub(crate) type Text = (&'static str, Option<&'static str>);

/// What the OpenAPI document says of one kind's routes.
#[derive(Debug)]
pub(crate) struct KindDocs {
    /// The singular in operation ids and the patch schema's name: `Tool` (`createTool`,
    /// `ToolPatch`).
    pub(crate) one: &'static str,
    /// The plural in the list operation's id: `Tools` (`listTools`).
    pub(crate) many: &'static str,
    pub(crate) list: Text,
    pub(crate) create: Text,
    pub(crate) get: Text,
    pub(crate) update: Text,
    pub(crate) delete: Text,
    /// The description of the `PATCH` body.
    pub(crate) patch: &'static str,
}

/// A kind of catalog item as the REST API serves it. The defaults are the plain rules; a
/// kind overrides only what is its own.
pub(crate) trait Kind:
    Shelved + Serialize + DeserializeOwned + JsonSchema + Clone + PartialEq + Send + Sync + 'static
{
    /// The collection's path segment: `tools`, `resource-templates`.
    const COLLECTION: &'static str;
    /// The item's path parameter, which a `404` names: `tool`, `uri`.
    const PARAM: &'static str;
    /// The body member holding the key, which a `409` names: `name`, `uri`.
    const KEY_FIELD: &'static str;
    /// How a `404` calls a missing item: `tool named`, `resource`.
    const NOUN: &'static str;
    /// Members of the spec type that a `PATCH` may not set.
    const FIXED: &'static [&'static str] = &[];
    const DOCS: KindDocs;

    /// Checks or completes a `POST` body before it is decoded.
    fn create_body(_body: &mut Map<String, Value>) -> Result<(), ApiError> {
        Ok(())
    }

    /// The documented `POST` body, given the spec type's schema.
    fn create_schema(spec: Value) -> Value {
        spec
    }

    /// Checks or completes a `PATCH` body before it is merged onto `current`.
    fn patch_body(_current: &Self, _patch: &mut Map<String, Value>) -> Result<(), ApiError> {
        Ok(())
    }

    /// Follow-up work once the item keyed `before` became `next`.
    fn updated(_hosted: &Hosted, _before: &str, _next: &Self) {}
}

/// The five routes of kind `K`.
pub(crate) fn routes<K: Kind>(docs: &mut Docs) -> Vec<Route> {
    let texts = &K::DOCS;
    let spec = docs.schema::<K>();
    let items = format!("/servers/{{server}}/{}", K::COLLECTION);
    let item = format!("{items}/{{{}}}", K::PARAM);
    let id = |verb: &str, noun: &str| format!("{verb}{noun}");
    let patch = docs.patch_schema::<K>(&format!("{}Patch", texts.one), K::FIXED, texts.patch, &[]);
    vec![
        Operation::new(Verb::Get, &items, id("list", texts.many), texts.list.0)
            .describe(texts.list.1)
            .reply(200, docs.schema::<Vec<K>>())
            .errors(&[404])
            .to(list::<K>),
        Operation::new(Verb::Post, items, id("create", texts.one), texts.create.0)
            .describe(texts.create.1)
            .body(K::create_schema(spec.clone()))
            .reply(201, spec.clone())
            .errors(&[404, 409])
            .to(create::<K>),
        Operation::new(Verb::Get, &item, id("get", texts.one), texts.get.0)
            .describe(texts.get.1)
            .reply(200, spec.clone())
            .errors(&[404])
            .to(read::<K>),
        Operation::new(Verb::Patch, &item, id("update", texts.one), texts.update.0)
            .describe(texts.update.1)
            .body(patch)
            .reply(200, spec)
            .errors(&[404, 409])
            .to(update::<K>),
        Operation::new(Verb::Delete, item, id("delete", texts.one), texts.delete.0)
            .describe(texts.delete.1)
            .no_content()
            .errors(&[404])
            .to(remove::<K>),
    ]
}

fn missing<K: Kind>(server: &str, key: &str) -> ApiError {
    ApiError::not_found(format!("server `{server}` has no {} `{key}`", K::NOUN)).field(K::PARAM)
}

/// The API's one reading of a catalog refusal: an unknown key is the route's `404`, and a
/// key taken is a conflict on the key's own member (`uri`, `uriTemplate`), not on `name`.
fn catalog_error<K: Kind>(server: &str, key: &str, error: Error) -> ApiError {
    match error {
        Error::Unknown { .. } => missing::<K>(server, key),
        duplicate @ Error::Duplicate { .. } => {
            ApiError::conflict(K::KEY_FIELD, duplicate.to_string())
        }
        other => other.into(),
    }
}

fn find<K: Kind>(hosted: &Hosted, server: &str, key: &str) -> Result<K, ApiError> {
    live::items::<K>(hosted)
        .into_iter()
        .find(|item| item.key() == key)
        .ok_or_else(|| missing::<K>(server, key))
}

async fn list<K: Kind>(
    State(app): State<Arc<App>>,
    Path(server): Path<String>,
) -> Result<Json<Vec<K>>, ApiError> {
    Ok(Json(live::items(&hosted(&app, &server)?)))
}

async fn create<K: Kind>(
    State(app): State<Arc<App>>,
    Path(server): Path<String>,
    JsonBody(body): JsonBody<Value>,
) -> Result<Response, ApiError> {
    let mut body = object(body)?;
    K::create_body(&mut body)?;
    let item: K = decode(&Value::Object(body))?;
    let key = item.key().to_string();
    let saved = commit(&app, || {
        let hosted = hosted(&app, &server)?;
        live::add(&hosted, item.clone()).map_err(|e| catalog_error::<K>(&server, &key, e))?;
        Ok(item)
    })
    .await?;
    let location = format!(
        "/api/v1/servers/{server}/{}/{}",
        K::COLLECTION,
        encode_segment(&key)
    );
    Ok(created(&location, &saved))
}

async fn read<K: Kind>(
    State(app): State<Arc<App>>,
    Path((server, key)): Path<(String, String)>,
) -> Result<Json<K>, ApiError> {
    find(&hosted(&app, &server)?, &server, &key).map(Json)
}

async fn update<K: Kind>(
    State(app): State<Arc<App>>,
    Path((server, key)): Path<(String, String)>,
    JsonBody(patch): JsonBody<Value>,
) -> Result<Json<K>, ApiError> {
    let mut patch = object(patch)?;
    commit(&app, || {
        let hosted = hosted(&app, &server)?;
        let current: K = find(&hosted, &server, &key)?;
        K::patch_body(&current, &mut patch)?;
        let next: K = merge(&current, patch, &patch_members::<K>(K::FIXED))?;
        // A no-op (publishing a published tool) changes nothing clients see.
        if next != current {
            live::replace(&hosted, &key, next.clone())
                .map_err(|e| catalog_error::<K>(&server, &key, e))?;
            K::updated(&hosted, &key, &next);
        }
        Ok(next)
    })
    .await
    .map(Json)
}

async fn remove<K: Kind>(
    State(app): State<Arc<App>>,
    Path((server, key)): Path<(String, String)>,
) -> Result<StatusCode, ApiError> {
    commit(&app, || {
        let hosted = hosted(&app, &server)?;
        live::remove::<K>(&hosted, &key).map_err(|e| catalog_error::<K>(&server, &key, e))?;
        Ok(StatusCode::NO_CONTENT)
    })
    .await
}
