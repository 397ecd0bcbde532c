//! Cassettes over REST: a server's captured traffic as a cassette file, and a cassette (that
//! one, or one in the body) turned into a new, editable server.
//!
//! A server can also replay a cassette: that is its `replay` member, which `/servers` takes
//! like any other.

use std::sync::Arc;

use axum::extract::{Path, State};
use axum::http::{HeaderValue, header};
use axum::response::{IntoResponse, Response};
use serde::Deserialize;

use super::ApiError;
use super::body::JsonBody;
use super::live;
use super::openapi::{Docs, Operation, Route, Verb};
use super::support::{commit, created, hosted};
use crate::cassette::Cassette;
use crate::cli::App;
use crate::cli::config::check_server_name;
use crate::log::{Log, Record};
use crate::spec::ServerSpec;

/// Records copied out of the ring at a time.
const CHUNK: usize = 1_000;

/// What `POST /servers/{server}/cassette/convert` and `POST /cassettes/convert` take.
#[derive(Debug, Deserialize, schemars::JsonSchema)]
#[serde(rename_all = "camelCase", deny_unknown_fields)]
pub(crate) struct ConvertBody {
    /// The new server's name (it answers at `/s/NAME/mcp`).
    name: String,
    /// The cassette to convert; `POST /servers/{server}/cassette/convert` converts the
    /// server's captured traffic when it is left out.
    #[serde(default)]
    #[schemars(with = "Option<Cassette>")]
    cassette: Option<serde_json::Value>,
}

/// The body's cassette, checked as a file is; the problem names the member at fault.
fn checked(cassette: serde_json::Value) -> Result<Cassette, ApiError> {
    Cassette::from_value(cassette).map_err(|error| match error {
        crate::Error::Cassette { field, reason, .. } => {
            let field = format!("cassette.{field}");
            ApiError::bad_request(field.clone(), format!("`{field}`: {reason}"))
        }
        other => ApiError::from(other),
    })
}

pub(crate) fn routes(docs: &mut Docs) -> Vec<Route> {
    vec![
        Operation::new(
            Verb::Get,
            "/servers/{server}/cassette",
            "getCassette",
            "Download the server's captured traffic as a cassette.",
        )
        .describe(
            "One interaction per JSON-RPC request that was answered, in arrival order, with \
             the progress, log messages and requests to the client that belonged to it, and \
             the server's `initialize` and `server/discover` answers (docs/cassettes.md). \
             Secrets are masked and what varies between runs (ids, session ids, times, the \
             port) is left out or labelled, so the same session gives the same file. Replay \
             it with a server's `replay` member or `MockMcpServer::from_cassette`.",
        )
        .reply(200, docs.schema::<Cassette>())
        .errors(&[404])
        .to(download),
        Operation::new(
            Verb::Post,
            "/servers/{server}/cassette/convert",
            "convertCassette",
            "Create an editable server from this server's captured traffic.",
        )
        .describe(
            "The new server has the tools, resources and prompts the recorded lists showed, \
             each tool answering each recorded call with a fixed response (`responses` with \
             `when.arguments`), resources with the contents they were read with and prompts \
             with the messages they were got with. `cassette` converts that cassette instead.",
        )
        .body(docs.schema::<ConvertBody>())
        .reply(201, docs.schema::<ServerSpec>())
        .errors(&[404, 409])
        .to(convert_capture),
        Operation::new(
            Verb::Post,
            "/cassettes/convert",
            "convertUploadedCassette",
            "Create an editable server from a cassette.",
        )
        .describe("As `POST /servers/{server}/cassette/convert`; `cassette` is required.")
        .body(docs.schema::<ConvertBody>())
        .reply(201, docs.schema::<ServerSpec>())
        .errors(&[409])
        .to(convert_upload),
    ]
}

/// The server's records, oldest first, copied a chunk at a time.
async fn cassette_of(app: &App, server: &str) -> Result<Cassette, ApiError> {
    let source = live::log_source(&hosted(app, server)?);
    let log = app.registry.log.clone();
    tokio::task::spawn_blocking(move || {
        let mut records: Vec<Record> = Vec::new();
        let mut after = 0;
        loop {
            let chunk = log.newer_from(source, after, CHUNK);
            let Some(last) = chunk.last() else {
                break;
            };
            after = last.id;
            records.extend(chunk);
        }
        Log::new(records).to_cassette()
    })
    .await
    .map_err(|error| {
        tracing::error!(%error, "building a cassette failed");
        ApiError::new(
            axum::http::StatusCode::INTERNAL_SERVER_ERROR,
            "the cassette could not be built; see the app's log",
        )
    })
}

async fn download(
    State(app): State<Arc<App>>,
    Path(server): Path<String>,
) -> Result<Response, ApiError> {
    let cassette = cassette_of(&app, &server).await?;
    let mut response = (
        [(
            header::CONTENT_TYPE,
            HeaderValue::from_static("application/json"),
        )],
        cassette.to_json(),
    )
        .into_response();
    let file = format!("attachment; filename=\"{server}.cassette.json\"");
    if let Ok(value) = HeaderValue::from_str(&file) {
        response
            .headers_mut()
            .insert(header::CONTENT_DISPOSITION, value);
    }
    Ok(response)
}

async fn convert_capture(
    State(app): State<Arc<App>>,
    Path(server): Path<String>,
    JsonBody(body): JsonBody<ConvertBody>,
) -> Result<Response, ApiError> {
    let cassette = match body.cassette {
        Some(cassette) => checked(cassette)?,
        None => cassette_of(&app, &server).await?,
    };
    create(&app, &body.name, &cassette).await
}

async fn convert_upload(
    State(app): State<Arc<App>>,
    JsonBody(body): JsonBody<ConvertBody>,
) -> Result<Response, ApiError> {
    let Some(cassette) = body.cassette else {
        return Err(ApiError::bad_request("cassette", "`cassette` is required"));
    };
    create(&app, &body.name, &checked(cassette)?).await
}

async fn create(app: &App, name: &str, cassette: &Cassette) -> Result<Response, ApiError> {
    check_server_name(name).map_err(|reason| ApiError::bad_request("name", reason))?;
    let spec = cassette.to_server_spec(name);
    let body = commit(app, || {
        if app.registry.get(name).is_some() {
            return Err(ApiError::conflict(
                "name",
                format!("a server named `{name}` already exists"),
            ));
        }
        let hosted = app.registry.host(spec, None)?;
        Ok(live::current_spec(&hosted))
    })
    .await?;
    Ok(created(&format!("/api/v1/servers/{name}"), &body))
}
