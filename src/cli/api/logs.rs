//! The logs of one server (product guide, "Read the logs" and the REST table): list newest
//! first with cursor pagination and filters, get one, clear, a live stream of server-sent
//! events and a JSONL export.
//!
//! Every server writes to the app's one `TrafficLog`, so `--log-limit` bounds all servers
//! together; a server's records are those tagged with its engine's `source`, which survives a
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
//! `after=ID` (or a `Last-Event-ID` header, which an `EventSource` sends when it reconnects
//! and which wins over `after`) first replays the kept records with a greater id. The stream
//! ends when the app shuts down or the server is deleted or renamed.

use std::collections::{HashMap, VecDeque};
use std::convert::Infallible;
use std::sync::Arc;
use std::time::Duration;

use axum::Router;
use axum::body::Body;
use axum::extract::rejection::QueryRejection;
use axum::extract::{Path, Query, State};
use axum::http::{HeaderMap, HeaderValue, StatusCode, header};
use axum::response::sse::{Event, KeepAlive, Sse};
use axum::response::{IntoResponse, Response};
use axum::routing::get;
use bytes::Bytes;
use futures::Stream;
use serde_json::{Value, json};
use tokio::sync::watch;

use super::ApiError;
use super::support::hosted;
use crate::cli::App;
use crate::log::{Entry, Record};

/// Records per page when `limit` is absent.
const DEFAULT_LIMIT: usize = 100;
/// The largest `limit` accepted.
const MAX_LIMIT: usize = 1000;
/// How often a stream checks that its server still exists (deleting a server does not touch
/// the log, so nothing else would wake the stream).
const HOSTED_CHECK: Duration = Duration::from_millis(500);
/// Comments on an idle stream, so proxies and browsers keep it open.
const KEEP_ALIVE: Duration = Duration::from_secs(15);
/// Export chunks: large enough to keep writes few, small enough to stream.
const EXPORT_CHUNK: usize = 64 * 1024;

/// The logs routes, relative to `/api/v1`.
pub(crate) fn routes() -> Router<Arc<App>> {
    Router::new()
        .route("/servers/{server}/logs", get(list).delete(clear))
        .route("/servers/{server}/logs/stream", get(stream))
        .route("/servers/{server}/logs/export", get(export))
        .route("/servers/{server}/logs/{id}", get(one))
}

/// The log source of the server named `server`, or 404 naming `server`.
fn source_of(app: &App, server: &str) -> Result<u64, ApiError> {
    hosted(app, server).map(|hosted| hosted.engine.source())
}

type Params = Result<Query<HashMap<String, String>>, QueryRejection>;

/// The query parameters, or 400 naming `query` when the query string does not parse.
fn params(params: Params) -> Result<HashMap<String, String>, ApiError> {
    params
        .map(|Query(params)| params)
        .map_err(|rejection| ApiError::bad_request("query", rejection.body_text()))
}

/// A parameter's value; an empty one (`?q=&cursor=`) counts as absent.
fn param<'a>(params: &'a HashMap<String, String>, name: &str) -> Option<&'a str> {
    params
        .get(name)
        .map(String::as_str)
        .filter(|v| !v.is_empty())
}

/// A record id given as `field`, or 400 naming it.
fn record_id(field: &str, text: &str) -> Result<u64, ApiError> {
    text.parse::<u64>().map_err(|_| {
        ApiError::bad_request(
            field,
            format!("`{field}` must be a record id (a whole number), not `{text}`"),
        )
    })
}

fn optional_id(params: &HashMap<String, String>, field: &str) -> Result<Option<u64>, ApiError> {
    param(params, field)
        .map(|text| record_id(field, text))
        .transpose()
}

/// Which records a request wants: `q` (case-insensitive substring over the method, the URL,
/// the headers and the bodies) and `carriedBy` (the `mcp` records an `http` record carried).
#[derive(Debug, Clone, Default)]
struct Filter {
    /// `q`, lower-cased.
    needle: Option<String>,
    carried_by: Option<u64>,
}

impl Filter {
    fn from_params(
        params: &HashMap<String, String>,
        with_carried_by: bool,
    ) -> Result<Self, ApiError> {
        Ok(Filter {
            needle: param(params, "q").map(str::to_lowercase),
            carried_by: if with_carried_by {
                optional_id(params, "carriedBy")?
            } else {
                None
            },
        })
    }

    fn matches(&self, record: &Record) -> bool {
        if let Some(carrier) = self.carried_by {
            match &record.entry {
                Entry::Mcp(message) if message.carried_by == Some(carrier) => {}
                _ => return false,
            }
        }
        match &self.needle {
            Some(needle) => mentions(record, needle),
            None => true,
        }
    }
}

/// Whether the method, URL, headers or bodies of `record` contain `needle` (lower case).
/// Ids, times, statuses and durations are not searched: a search for `12` should find a
/// body, not every record numbered 12 or taking 12 ms.
fn mentions(record: &Record, needle: &str) -> bool {
    let has = |text: &str| text.to_lowercase().contains(needle);
    match &record.entry {
        Entry::Http(exchange) => {
            has(&exchange.method)
                || has(&exchange.path)
                || exchange
                    .query
                    .as_deref()
                    .is_some_and(|q| has(&format!("{}?{q}", exchange.path)))
                || exchange
                    .request_headers
                    .iter()
                    .chain(&exchange.response_headers)
                    .any(|(name, value)| has(&format!("{name}: {value}")))
                || [&exchange.request_body, &exchange.response_body]
                    .into_iter()
                    .flatten()
                    .any(|body| body_mentions(body, needle))
        }
        Entry::Mcp(message) => {
            message.method.as_deref().is_some_and(has)
                || body_mentions(&message.message, needle)
                || message
                    .response
                    .as_ref()
                    .is_some_and(|response| body_mentions(response, needle))
        }
    }
}

/// Whether a body's JSON text contains `needle`, or any of its strings and keys does (a
/// quote or a newline is escaped in the JSON text, so `say "hi"` only matches the string).
fn body_mentions(body: &Value, needle: &str) -> bool {
    let text = body.to_string();
    text.to_lowercase().contains(needle) || (text.contains('\\') && strings_mention(body, needle))
}

fn strings_mention(value: &Value, needle: &str) -> bool {
    match value {
        Value::String(s) => s.to_lowercase().contains(needle),
        Value::Array(items) => items.iter().any(|v| strings_mention(v, needle)),
        Value::Object(map) => map
            .iter()
            .any(|(k, v)| k.to_lowercase().contains(needle) || strings_mention(v, needle)),
        _ => false,
    }
}

/// One page of the list, newest first.
fn page(records: Vec<Record>, filter: &Filter, cursor: Option<u64>, limit: usize) -> Value {
    let mut total = 0usize;
    let mut page = Vec::new();
    let mut more = false;
    for record in records.into_iter().rev() {
        if !filter.matches(&record) {
            continue;
        }
        total += 1;
        if cursor.is_some_and(|cursor| record.id >= cursor) {
            continue;
        }
        if page.len() < limit {
            page.push(record);
        } else {
            more = true;
        }
    }
    let next_cursor = if more {
        page.last().map(|r: &Record| r.id)
    } else {
        None
    };
    json!({ "records": page, "total": total, "nextCursor": next_cursor })
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
    let records = app.registry.log.records_from(source);
    // Matching serializes every body of up to the whole ring: keep it off the async workers.
    tokio::task::spawn_blocking(move || page(records, &filter, cursor, limit))
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
    let mut records = app.registry.log.records_from(source).into_iter();
    // Serialized chunk by chunk as the client reads, so the export never holds a second
    // copy of the whole log.
    let chunks = std::iter::from_fn(move || {
        let mut chunk = Vec::new();
        for record in records.by_ref() {
            match serde_json::to_writer(&mut chunk, &record) {
                Ok(()) => chunk.push(b'\n'),
                Err(error) => {
                    tracing::error!(%error, id = record.id, "a log record did not serialize")
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

/// `GET /servers/{server}/logs/stream?after=&q=`: server-sent events (see the module docs).
async fn stream(
    State(app): State<Arc<App>>,
    Path(server): Path<String>,
    headers: HeaderMap,
    query: Params,
) -> Result<Sse<impl Stream<Item = Result<Event, Infallible>>>, ApiError> {
    let source = source_of(&app, &server)?;
    let params = params(query)?;
    let filter = Filter::from_params(&params, false)?;
    let last_event_id = headers
        .get("last-event-id")
        .map(|value| {
            value
                .to_str()
                .map_err(|_| {
                    ApiError::bad_request("Last-Event-ID", "`Last-Event-ID` must be a record id")
                })
                .and_then(|text| record_id("Last-Event-ID", text.trim()))
        })
        .transpose()?;
    let after = match last_event_id {
        Some(id) => Some(id),
        None => optional_id(&params, "after")?,
    };
    let tail = Tail::start(app, server, source, filter, after);
    let events = futures::stream::unfold(tail, |mut tail| async move {
        let event = tail.next().await?;
        Some((Ok(event), tail))
    });
    Ok(Sse::new(events).keep_alive(KeepAlive::new().interval(KEEP_ALIVE).text("keep-alive")))
}

/// One live stream: what it has sent and what it waits on. Holds at most one batch of
/// changes (never more records than the ring), refilled only once the batch is sent, so a
/// slow reader costs memory bounded by the log limit.
struct Tail {
    app: Arc<App>,
    server: String,
    source: u64,
    filter: Filter,
    /// The log revision the stream has seen.
    revision: u64,
    /// Ids up to this one are known to the client (replayed, sent, or before `after`):
    /// their changes are `update` events.
    announced: u64,
    queue: VecDeque<Event>,
    changed: watch::Receiver<u64>,
    closing: watch::Receiver<bool>,
    check: tokio::time::Interval,
}

impl Tail {
    fn start(
        app: Arc<App>,
        server: String,
        source: u64,
        filter: Filter,
        after: Option<u64>,
    ) -> Self {
        // Subscribe before the snapshot, so a change between the two still wakes the stream.
        let changed = app.registry.log.subscribe();
        let closing = app.closing.subscribe();
        // Without `after`, copy nothing: only the revision and the newest id are needed.
        let snapshot = app
            .registry
            .log
            .changes_from(source, 0, after.unwrap_or(u64::MAX));
        let mut check = tokio::time::interval(HOSTED_CHECK);
        check.set_missed_tick_behavior(tokio::time::MissedTickBehavior::Delay);
        let mut tail = Tail {
            app,
            server,
            source,
            filter,
            revision: snapshot.revision,
            announced: 0,
            queue: VecDeque::new(),
            changed,
            closing,
            check,
        };
        for record in &snapshot.records {
            tail.enqueue(record);
        }
        tail.announced = tail.announced.max(snapshot.newest);
        tail
    }

    /// Queues the event for a pushed or changed record, if the filter wants it.
    fn enqueue(&mut self, record: &Record) {
        if !self.filter.matches(record) {
            return;
        }
        let event = match Event::default().id(record.id.to_string()).json_data(record) {
            Ok(event) => event,
            Err(error) => {
                tracing::error!(%error, id = record.id, "a log record did not serialize");
                return;
            }
        };
        if record.id > self.announced {
            self.announced = record.id;
            self.queue.push_back(event);
        } else {
            self.queue.push_back(event.event("update"));
        }
    }

    fn refill(&mut self) {
        let changes = self
            .app
            .registry
            .log
            .changes_from(self.source, self.revision, 0);
        self.revision = changes.revision;
        if changes.cleared {
            self.queue
                .push_back(Event::default().event("clear").data("{}"));
        }
        for record in &changes.records {
            self.enqueue(record);
        }
    }

    fn still_hosted(&self) -> bool {
        self.app
            .registry
            .get(&self.server)
            .is_some_and(|hosted| hosted.engine.source() == self.source)
    }

    /// The next event, or `None` when the stream should end.
    async fn next(&mut self) -> Option<Event> {
        loop {
            if *self.closing.borrow() {
                return None;
            }
            if let Some(event) = self.queue.pop_front() {
                return Some(event);
            }
            tokio::select! {
                closing = self.closing.changed() => {
                    if closing.is_err() {
                        return None;
                    }
                }
                changed = self.changed.changed() => {
                    if changed.is_err() {
                        return None;
                    }
                    self.refill();
                }
                _ = self.check.tick() => {
                    if !self.still_hosted() {
                        return None;
                    }
                }
            }
        }
    }
}
