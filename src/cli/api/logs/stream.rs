//! `GET /servers/{server}/logs/stream`: the live server-sent events of one server's log
//! (see the folder's module docs for the events). Ends when the app shuts down or the server
//! is deleted or renamed.

use std::collections::VecDeque;
use std::convert::Infallible;
use std::sync::Arc;
use std::time::Duration;

use axum::extract::{Path, State};
use axum::http::HeaderMap;
use axum::response::sse::{Event, KeepAlive, Sse};
use futures::Stream;
use tokio::sync::watch;

use super::query::{Filter, Params, optional_id, params, record_id};
use super::source_of;
use crate::cli::App;
use crate::cli::api::ApiError;
use crate::cli::api::live;
use crate::log::Record;

/// How often a stream checks that its server still exists (deleting a server does not touch
/// the log, so nothing else would wake the stream).
const HOSTED_CHECK: Duration = Duration::from_millis(500);
/// Comments on an idle stream, so proxies and browsers keep it open.
const KEEP_ALIVE: Duration = Duration::from_secs(15);

/// `GET /servers/{server}/logs/stream?after=&q=`: server-sent events (see the module docs).
pub(super) async fn stream(
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
    changed: watch::Receiver<()>,
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
            .is_some_and(|hosted| live::log_source(&hosted) == self.source)
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
