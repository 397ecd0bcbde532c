//! The logs of one server (product guide, "Read the logs" and the REST table): list newest
//! first with cursor pagination and filters, get one, clear, a live stream of server-sent
//! events and a JSONL export.
//!
//! Every server writes to the app's one `TrafficLog`, so `--log-limit` and `--log-bytes`
//! bound all servers together; a server's records are those tagged with its engine's `source`, which survives a
//! rename or an update of the server.
//!
//! The stream (`GET /servers/{server}/logs/stream?after=&q=`) sends:
//! - a new record as an unnamed event (`message`), `id:` the record id, `data:` the record;
//! - a record that changed in place (a request getting its response, an exchange its status)
//!   as an `update` event with the same `id:` and the whole record. Treat updates as upserts:
//!   with `q`, a record that only matches once its response arrived first shows up as an
//!   update;
//! - `clear` (`data: {}`) when the server's records are cleared.
//!
//! `GET /servers/{server}/logs/export.har` is the server's `http` exchanges as a HAR 1.2
//! document, secrets masked unless `secrets=true` (see `har.rs`).
//!
//! `after=ID` (or a `Last-Event-ID` header, which an `EventSource` sends when it reconnects
//! and which wins over `after`) first replays the kept records with a greater id. The stream
//! ends when the app shuts down or the server is deleted or renamed.
//!
//! Must not touch: the engine (the log source comes through `live.rs`) or other resources.

mod har;
mod query;
mod stream;

use std::convert::Infallible;
use std::sync::Arc;

use axum::body::Body;
use axum::extract::{Path, State};
use axum::http::{HeaderValue, StatusCode, header};
use axum::response::{IntoResponse, Response};
use bytes::Bytes;
use serde_json::{Value, json};

use super::ApiError;
use super::live;
use super::openapi::{Operation, Route, Verb};
use super::support::hosted;
use crate::cli::App;
use crate::log::Record;
use query::{CHUNK, Filter, Params, optional_id, page, param, params, record_id};

/// Records per page when `limit` is absent.
const DEFAULT_LIMIT: usize = 100;
/// The largest `limit` accepted.
const MAX_LIMIT: usize = 1000;
/// Export chunks: large enough to keep writes few, small enough to stream.
const EXPORT_CHUNK: usize = 64 * 1024;

/// The logs routes, relative to `/api/v1`. Log records are `crate::log::Record`, which has
/// no schemars derive, so their schema is described rather than generated.
pub(crate) fn routes() -> Vec<Route> {
    let record = json!({ "type": "object", "required": ["id", "at", "layer"],
        "description": "A log record: `id` (increasing, never reused), `at` (RFC 3339), \
            `layer` (`http`: one HTTP exchange or the end of an event stream; `mcp`: one \
            JSON-RPC message, a request and its response in one record) and that layer's fields. \
            A message or body larger than 8 KiB is kept truncated, marked `truncated: true`.",
        "properties": {
            "id": { "type": "integer", "minimum": 0 },
            "at": { "type": "string", "format": "date-time" },
            "layer": { "enum": ["http", "mcp"] } } });
    let id = json!({ "type": "integer", "minimum": 0 });
    vec![
        Operation::new(
            Verb::Get,
            "/servers/{server}/logs",
            "listLogs",
            "List log entries, newest first, with cursor pagination.",
        )
        .query(
            "q",
            "Case-insensitive substring over the method, the URL, the headers and the bodies.",
            json!({ "type": "string" }),
        )
        .query(
            "carriedBy",
            "Only the `mcp` records that the `http` record with this id carried.",
            id.clone(),
        )
        .query(
            "cursor",
            "The `nextCursor` of the previous page: older records follow.",
            id.clone(),
        )
        .query(
            "limit",
            "Records per page, 1 to 1000 (default 100).",
            json!({ "type": "integer", "minimum": 1, "maximum": 1000 }),
        )
        .reply(
            200,
            json!({ "type": "object", "required": ["records", "total"], "properties": {
                "records": { "type": "array", "items": record.clone() },
                "total": { "type": "integer", "minimum": 0,
                    "description": "Every record the filter matches." },
                "nextCursor": { "type": ["integer", "null"], "minimum": 0 } } }),
        )
        .errors(&[400, 404])
        .to(list),
        Operation::new(
            Verb::Delete,
            "/servers/{server}/logs",
            "clearLogs",
            "Clear the logs of a server.",
        )
        .no_content()
        .errors(&[404])
        .to(clear),
        Operation::new(
            Verb::Get,
            "/servers/{server}/logs/{id}",
            "getLog",
            "Get one log entry by its numeric `id`.",
        )
        .reply(200, record)
        .errors(&[400, 404])
        .to(one),
        Operation::new(
            Verb::Get,
            "/servers/{server}/logs/stream",
            "streamLogs",
            "Stream log events as server-sent events. Pass `after` to replay from an ID.",
        )
        .describe(
            "A new record is a `message` event, a record that changed in place an `update` \
             event (upsert by `id`), and `clear` says the records were cleared. A \
             `Last-Event-ID` header wins over `after`.",
        )
        .query("after", "Replay the kept records after this id first.", id)
        .query(
            "q",
            "Only records matching this filter.",
            json!({ "type": "string" }),
        )
        .media(
            200,
            "text/event-stream",
            "Server-sent events, one per record change.",
        )
        .errors(&[400, 404])
        .to(stream::stream),
        Operation::new(
            Verb::Get,
            "/servers/{server}/logs/export",
            "exportLogs",
            "Download all entries as newline-delimited JSON.",
        )
        .media(
            200,
            "application/x-ndjson",
            "Every record of the server, oldest first, one JSON object per line.",
        )
        .errors(&[404])
        .to(export),
        Operation::new(
            Verb::Get,
            "/servers/{server}/logs/export.har",
            "exportLogsHar",
            "Download the HTTP exchanges as a HAR 1.2 file.",
        )
        .describe(
            "One entry per `http` exchange, oldest first: the request's method, URL, headers, \
             query and body as text, the response's status, headers and body as text, and \
             timings from the record's `durationMs` (an event stream's end is folded into \
             the exchange that opened it, as `timings.receive`). The values of \
             `Authorization` and `Proxy-Authorization` (keeping their scheme), `Cookie`, \
             `Set-Cookie`, `X-API-Key` and `Api-Key`, and OAuth's secret fields in the query \
             and form bodies are `********` unless `secrets=true`; what the log masks itself \
             was never kept.",
        )
        .query(
            "secrets",
            "`true` leaves secrets unmasked (default `false`).",
            json!({ "type": "boolean" }),
        )
        .reply(200, har::schema())
        .errors(&[400, 404])
        .to(har::export_har),
    ]
}

/// The log source of the server named `server`, or 404 naming `server`.
fn source_of(app: &App, server: &str) -> Result<u64, ApiError> {
    hosted(app, server).map(|hosted| live::log_source(&hosted))
}

/// `GET /servers/{server}/logs?q=&carriedBy=&cursor=&limit=`: `{records, total, nextCursor}`,
/// newest first; `total` counts every record the filter matches; pass `nextCursor` as
/// `cursor` for the next (older) page.
async fn list(
    State(app): State<Arc<App>>,
    Path(server): Path<String>,
    query: Params,
) -> Result<axum::Json<Value>, ApiError> {
    let source = source_of(&app, &server)?;
    let params = params(query)?;
    let filter = Filter::from_params(&params, true)?;
    let cursor = optional_id(&params, "cursor")?;
    let limit = match param(&params, "limit") {
        None => DEFAULT_LIMIT,
        Some(text) => match text.parse::<usize>() {
            Ok(n) if (1..=MAX_LIMIT).contains(&n) => n,
            _ => {
                return Err(ApiError::bad_request(
                    "limit",
                    format!("`limit` must be a whole number from 1 to {MAX_LIMIT}, not `{text}`"),
                ));
            }
        },
    };
    let log = app.registry.log.clone();
    let mut filter = filter;
    // Matching serializes every body of up to the whole ring: keep it off the async workers,
    // and copy the records out a chunk at a time, so a search never holds a second log.
    tokio::task::spawn_blocking(move || {
        page(
            |before| log.older_from(source, before, CHUNK),
            &mut filter,
            cursor,
            limit,
        )
    })
    .await
    .map(axum::Json)
    .map_err(|error| {
        tracing::error!(%error, "listing logs failed");
        ApiError::new(StatusCode::INTERNAL_SERVER_ERROR, "listing the logs failed")
    })
}

/// `GET /servers/{server}/logs/{id}`: one record; 404 when it is gone or another server's.
async fn one(
    State(app): State<Arc<App>>,
    Path((server, id)): Path<(String, String)>,
) -> Result<axum::Json<Record>, ApiError> {
    let source = source_of(&app, &server)?;
    let id = record_id("id", &id)?;
    app.registry
        .log
        .record_from(source, id)
        .map(axum::Json)
        .ok_or_else(|| {
            ApiError::not_found(format!("server `{server}` has no log record {id}")).field("id")
        })
}

/// `DELETE /servers/{server}/logs`: deletes the server's records (ids keep increasing).
async fn clear(
    State(app): State<Arc<App>>,
    Path(server): Path<String>,
) -> Result<StatusCode, ApiError> {
    let source = source_of(&app, &server)?;
    app.registry.log.clear_from(source);
    Ok(StatusCode::NO_CONTENT)
}

/// `GET /servers/{server}/logs/export`: every record of the server, oldest first, one JSON
/// object per line, whatever filter the UI shows.
async fn export(
    State(app): State<Arc<App>>,
    Path(server): Path<String>,
) -> Result<Response, ApiError> {
    let source = source_of(&app, &server)?;
    let log = app.registry.log.clone();
    // The records kept now, up to the newest: traffic that arrives while the client reads
    // does not make the export endless.
    let until = log
        .older_from(source, u64::MAX, 1)
        .first()
        .map_or(0, |r| r.id);
    let mut after = 0;
    // Copied and serialized chunk by chunk as the client reads, so the export never holds a
    // second copy of the whole log.
    let chunks = std::iter::from_fn(move || {
        let mut chunk = Vec::new();
        while after < until {
            let records = log.newer_from(source, after, CHUNK);
            let Some(last) = records.last() else {
                break;
            };
            after = last.id;
            for record in records.into_iter().filter(|r| r.id <= until) {
                match serde_json::to_writer(&mut chunk, &record) {
                    Ok(()) => chunk.push(b'\n'),
                    Err(error) => {
                        tracing::error!(%error, id = record.id, "a log record did not serialize")
                    }
                }
            }
            if chunk.len() >= EXPORT_CHUNK {
                break;
            }
        }
        (!chunk.is_empty()).then(|| Ok::<_, Infallible>(Bytes::from(chunk)))
    });
    let disposition =
        HeaderValue::from_str(&format!("attachment; filename=\"{server}-logs.jsonl\""))
            // Server names are letters, digits, `_`, `-` and `.`; fall back rather than fail.
            .unwrap_or_else(|_| HeaderValue::from_static("attachment; filename=\"logs.jsonl\""));
    Ok((
        [
            (
                header::CONTENT_TYPE,
                HeaderValue::from_static("application/x-ndjson"),
            ),
            (header::CONTENT_DISPOSITION, disposition),
        ],
        Body::from_stream(futures::stream::iter(chunks)),
    )
        .into_response())
}
