//! `/servers`: list, create, get, update (a new `name` moves the server) and delete the
//! hosted servers.
//!
//! A server's identity and behaviour (`name`, `version`, `instructions`, `protocolVersions`,
//! `responseMode`, `pageSize`) are fixed in its engine, and clients learn most of them at
//! `initialize`; so a `PATCH` that changes any of them rebuilds the server (keeping its logs)
//! and ends its sessions, and clients reconnect to see the change.
//!
//! Must not touch: engine fields (through `live.rs`), the catalog routes (`catalog.rs`);
//! it uses `oauth.rs` for the `auth` member, one way.

use std::sync::Arc;

use axum::Json;
use axum::extract::{Path, State};
use axum::http::StatusCode;
use axum::response::Response;
use serde::{Deserialize, Serialize};
use serde_json::{Value, json};

use super::ApiError;
use super::body::{JsonBody, decode, merge, object};
use super::live;
use super::openapi::{Docs, Operation, Route, Verb, patch_members};
use super::support::{commit, created, hosted};
use crate::cli::App;
use crate::cli::config::check_server_name;
use crate::cli::registry::Hosted;
use crate::spec::{
    PromptSpec, ResourceSpec, ResourceTemplateSpec, ResponseMode, ServerSpec, ToolSpec,
};

/// A server as `GET /servers` lists it.
#[derive(Debug, Serialize, Deserialize, schemars::JsonSchema)]
#[serde(rename_all = "camelCase")]
pub(crate) struct ServerSummary {
    /// The name, unique in the app; the server answers at `/s/NAME/mcp`.
    pub(crate) name: String,
    /// `serverInfo.title`.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub(crate) title: Option<String>,
    /// `serverInfo.version`.
    pub(crate) version: String,
    /// The MCP endpoint to give a client.
    pub(crate) url: String,
    /// Tools, drafts included.
    pub(crate) tools: usize,
    /// Published tools: what clients list.
    pub(crate) published_tools: usize,
    /// Static resources.
    pub(crate) resources: usize,
    /// Resource templates.
    pub(crate) resource_templates: usize,
    /// Prompts.
    pub(crate) prompts: usize,
    /// Live sessions.
    pub(crate) sessions: usize,
    /// Whether its MCP endpoint requires OAuth 2.1 (`auth` is set).
    pub(crate) oauth: bool,
    /// How POSTed requests are answered.
    pub(crate) response_mode: ResponseMode,
}

/// One server with everything it holds: its definition as `servers.json` stores it, plus
/// its URL and live session count.
#[derive(Debug, Serialize, Deserialize, schemars::JsonSchema)]
#[serde(rename_all = "camelCase")]
pub(crate) struct ServerDetail {
    /// The MCP endpoint to give a client.
    pub(crate) url: String,
    /// Live sessions.
    pub(crate) sessions: usize,
    /// The capability manifest, when `manifest` is on: `/s/NAME/.well-known/mcp-server.json`
    /// on the MCP listener.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub(crate) manifest_url: Option<String>,
    /// The definition.
    #[serde(flatten)]
    pub(crate) server: ServerSpec,
}

/// What a `PATCH /servers/{server}` may not name: the items have routes of their own.
const ITEMS: &[&str] = &["tools", "resources", "resourceTemplates", "prompts"];

/// The `PATCH` body's description (its members are `ServerSpec`'s, without [`ITEMS`]).
const PATCH: &str = "Each member given replaces that setting, `null` resets it to its \
    default. Any change rebuilds the server and ends its sessions; a new `name` moves it to \
    `/s/NEW/mcp` (the old URL answers `404`). `apiKeys`: `[]` or `null` turns the check off, \
    and a change to the keys alone keeps the server and its sessions. `auth`: an object turns \
    OAuth on or changes it, `null` turns it off (see `AuthBody`); any change to it revokes \
    every token. Fault counters start again, as the server is rebuilt.";

pub(crate) fn routes(docs: &mut Docs) -> Vec<Route> {
    vec![
        Operation::new(Verb::Get, "/servers", "listServers", "List servers.")
            .reply(200, docs.schema::<Vec<ServerSummary>>())
            .to(list),
        Operation::new(Verb::Post, "/servers", "createServer", "Create a server.")
            .describe(
                "The body is a server as `servers.json` stores it; only `name` is required, and \
                 a server created with just a name has no tools. Tools in the body keep the \
                 file's default (`published: true`). `apiKeys` makes its MCP endpoint answer \
                 `401` without `Authorization: Bearer KEY`; `allowedHosts` turns on the Host \
                 check (`403` for other names); `manifest: true` serves the capability \
                 manifest at `manifestUrl`. `auth: {}` turns on OAuth 2.1 and generates the \
                 pre-registered client's id and secret (see `AuthBody`). A problem names the \
                 entry at fault, as in `apiKeys[1]`.",
            )
            .body(docs.schema::<ServerSpec>())
            .reply(201, docs.schema::<ServerDetail>())
            .errors(&[409])
            .to(create),
        Operation::new(Verb::Get, "/servers/{server}", "getServer", "Get a server.")
            .reply(200, docs.schema::<ServerDetail>())
            .errors(&[404])
            .to(read),
        Operation::new(
            Verb::Patch,
            "/servers/{server}",
            "updateServer",
            "Update a server.",
        )
        .describe(
            "A new `name` moves the server and closes its sessions. Any change rebuilds \
                 the server and closes its sessions, since clients learn these settings at \
                 `initialize`; its logs stay. A change to `apiKeys` alone applies in place: \
                 sessions stay, and the next request is checked against the new keys. \
                 `auth: {}` turns on OAuth 2.1 with a new pre-registered client, `auth: null` \
                 turns it off and deletes the client, `auth: {\"redirectUris\": [...]}` sets \
                 the client's redirect URIs; each revokes every token. Other changes keep \
                 the OAuth clients and tokens.",
        )
        .body({
            let mut auth = docs.schema::<super::oauth::AuthBody>();
            auth["description"] = json!(
                "OAuth 2.1: an object turns it on (or changes it), `null` turns it off; see \
                 `AuthBody`. Any change to it revokes every token and closes the sessions."
            );
            docs.patch_schema::<ServerSpec>("ServerPatch", ITEMS, PATCH, &[("auth", auth)])
        })
        .reply(200, docs.schema::<ServerDetail>())
        .errors(&[404, 409])
        .to(update),
        Operation::new(
            Verb::Delete,
            "/servers/{server}",
            "deleteServer",
            "Delete a server and close its sessions.",
        )
        .no_content()
        .errors(&[404])
        .to(remove),
    ]
}

fn summary(app: &App, name: &str, hosted: &Hosted) -> ServerSummary {
    let built = live::built_spec(hosted);
    let tools = live::items::<ToolSpec>(hosted);
    ServerSummary {
        name: name.to_string(),
        title: built.title.clone(),
        version: built.version.clone(),
        url: app.mcp_url(name),
        published_tools: tools.iter().filter(|t| t.published).count(),
        tools: tools.len(),
        resources: live::items::<ResourceSpec>(hosted).len(),
        resource_templates: live::items::<ResourceTemplateSpec>(hosted).len(),
        prompts: live::items::<PromptSpec>(hosted).len(),
        sessions: live::sessions(hosted).len(),
        // Any change to `auth` rebuilds the server, so the built definition has the current one.
        oauth: built.auth.is_some(),
        response_mode: built.response_mode,
    }
}

fn detail(app: &App, hosted: &Hosted) -> ServerDetail {
    let server = live::current_spec(hosted);
    ServerDetail {
        url: app.mcp_url(&server.name),
        sessions: live::sessions(hosted).len(),
        manifest_url: server.manifest.then(|| {
            format!(
                "{}/s/{}/.well-known/mcp-server.json",
                app.mcp_base, server.name
            )
        }),
        server,
    }
}

async fn list(State(app): State<Arc<App>>) -> Json<Vec<ServerSummary>> {
    Json(
        app.registry
            .all()
            .iter()
            .map(|(name, hosted)| summary(&app, name, hosted))
            .collect(),
    )
}

/// Checks what the engine would report under snake_case field names, so the error names
/// the API's field.
fn check_settings(server: &ServerSpec) -> Result<(), ApiError> {
    check_server_name(&server.name).map_err(|reason| ApiError::bad_request("name", reason))?;
    if server.page_size == Some(0) {
        return Err(ApiError::bad_request(
            "pageSize",
            "`pageSize` must be at least 1 (or null for one page)",
        ));
    }
    let guards = live::guard_problems(server);
    if let Some((field, reason)) = guards.into_iter().next() {
        return Err(ApiError::bad_request(
            field.clone(),
            format!("`{field}` {reason}"),
        ));
    }
    super::oauth::check(server)?;
    Ok(())
}

fn taken(name: &str) -> ApiError {
    ApiError::conflict("name", format!("a server named `{name}` already exists"))
}

async fn create(
    State(app): State<Arc<App>>,
    JsonBody(body): JsonBody<Value>,
) -> Result<Response, ApiError> {
    let mut body = object(body)?;
    if let Some(auth) = body.remove("auth") {
        body.insert("auth".into(), super::oauth::resolve(None, auth)?);
    }
    let server: ServerSpec = decode(&Value::Object(body))?;
    check_settings(&server)?;
    let name = server.name.clone();
    let body = commit(&app, || {
        if app.registry.get(&name).is_some() {
            return Err(taken(&name));
        }
        let hosted = app.registry.host(server, None)?;
        Ok(detail(&app, &hosted))
    })
    .await?;
    Ok(created(&format!("/api/v1/servers/{name}"), &body))
}

async fn read(
    State(app): State<Arc<App>>,
    Path(server): Path<String>,
) -> Result<Json<ServerDetail>, ApiError> {
    let hosted = hosted(&app, &server)?;
    Ok(Json(detail(&app, &hosted)))
}

async fn update(
    State(app): State<Arc<App>>,
    Path(server): Path<String>,
    JsonBody(patch): JsonBody<Value>,
) -> Result<Json<ServerDetail>, ApiError> {
    let mut patch = object(patch)?;
    commit(&app, || {
        let current_host = hosted(&app, &server)?;
        let current = live::current_spec(&current_host);
        if let Some(auth) = patch.remove("auth") {
            let auth = super::oauth::resolve(current.auth.as_ref(), auth)?;
            patch.insert("auth".into(), auth);
        }
        let next: ServerSpec = merge(&current, patch, &patch_members::<ServerSpec>(ITEMS))?;
        if next == current {
            return Ok(detail(&app, &current_host));
        }
        check_settings(&next)?;
        // Keys are checked per request, so new ones apply without ending sessions.
        let keys_only = ServerSpec {
            api_keys: current.api_keys.clone(),
            ..next.clone()
        } == current;
        if keys_only {
            live::set_api_keys(&current_host, next.api_keys);
            return Ok(detail(&app, &current_host));
        }
        if next.name != server && app.registry.get(&next.name).is_some() {
            return Err(taken(&next.name));
        }
        let replaced = app.registry.replace(&server, next)?;
        Ok(detail(&app, &replaced))
    })
    .await
    .map(Json)
}

async fn remove(
    State(app): State<Arc<App>>,
    Path(server): Path<String>,
) -> Result<StatusCode, ApiError> {
    commit(&app, || {
        app.registry
            .remove(&server)
            .map(|_| StatusCode::NO_CONTENT)
            .ok_or_else(|| {
                ApiError::not_found(format!("no server named `{server}`")).field("server")
            })
    })
    .await
}
