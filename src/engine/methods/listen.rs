//! `subscriptions/listen` (2026-07-28 `basic/patterns/subscriptions.mdx`): a request whose
//! answer is a long-lived stream of the change notifications the client opted in to. It
//! replaces the legacy GET stream and `resources/subscribe`.
//!
//! [`Listeners`] is the engine's hub: catalog edits and `resource_updated` publish to it, and
//! each open [`Subscription`] reads from it, keeping what its filter asked for. A
//! subscription yields [`Frame`]s: the acknowledgment first, then the notifications, a
//! keep-alive when idle, and the listen response when the server ends it. The transport
//! turns frames into SSE events; no HTTP here.

use std::collections::{HashSet, VecDeque};
use std::sync::atomic::{AtomicUsize, Ordering};
use std::sync::{Arc, OnceLock};
use std::time::Duration;

use serde_json::{Map, Value, json};
use tokio::sync::broadcast::error::RecvError;
use tokio::sync::{broadcast, watch};

use crate::engine::methods::discover;
use crate::engine::protocol::jsonrpc::{self, RpcError, code};
use crate::engine::protocol::modern::TASKS_EXTENSION;
use crate::engine::{Engine, Listing};

/// The `_meta` key that ties every message of a listen stream to its request
/// (`basic/index.mdx`: the value is the listen request's JSON-RPC id).
pub(crate) const META_SUBSCRIPTION_ID: &str = "io.modelcontextprotocol/subscriptionId";

const ACKNOWLEDGED: &str = "notifications/subscriptions/acknowledged";
const RESOURCE_UPDATED: &str = "notifications/resources/updated";
/// The tasks extension's status notification ("Task Status Notifications").
const TASK_STATUS: &str = "notifications/tasks";

/// Catalog events buffered for a stream that is slow to read. One that falls further behind
/// is told that everything it watches may have changed (see [`Subscription::catch_up`]), so
/// a stalled client costs bounded memory and still hears of every kind of change.
const BACKLOG: usize = 256;

/// How long a stopping server waits after its last listen stream ended, so that the
/// connection writes the listen response before the runtime drops it.
const FLUSH: Duration = Duration::from_millis(20);

/// A change a listen stream may be told about.
#[derive(Debug, Clone)]
enum Change {
    List(Listing),
    Updated(Arc<str>),
    /// A task's new status: its id and its `DetailedTask`.
    Task(Arc<(String, Value)>),
}

/// The open listen streams of one server: where catalog changes are published, how many
/// streams are open, and the signal that ends them all.
#[derive(Debug)]
pub(crate) struct Listeners {
    /// Made by the first stream: a channel allocates its whole backlog up front, which
    /// most servers, never listened to, would hold for nothing. Before it exists there is
    /// no stream to tell of a change.
    events: OnceLock<broadcast::Sender<Change>>,
    open: Arc<AtomicUsize>,
    max: usize,
    /// Whether the streams are to end; made by the first stream or the first
    /// [`close`](Listeners::close), for the same reason as `events`.
    closing: OnceLock<watch::Sender<bool>>,
}

impl Listeners {
    /// At most `max` streams open at once.
    pub(crate) fn new(max: usize) -> Self {
        Listeners {
            events: OnceLock::new(),
            open: Arc::new(AtomicUsize::new(0)),
            max,
            closing: OnceLock::new(),
        }
    }

    /// Publishes a list's `list_changed` to the streams that opted in.
    pub(crate) fn list_changed(&self, listing: Listing) {
        self.publish(Change::List(listing));
    }

    fn publish(&self, change: Change) {
        if let Some(events) = self.events.get() {
            // An error only means that no stream is open.
            let _ = events.send(change);
        }
    }

    fn subscribe(&self) -> broadcast::Receiver<Change> {
        self.events
            .get_or_init(|| broadcast::channel(BACKLOG).0)
            .subscribe()
    }

    /// Publishes `notifications/resources/updated` for `uri` to the streams that named it.
    pub(crate) fn resource_updated(&self, uri: &str) {
        self.publish(Change::Updated(Arc::from(uri)));
    }

    /// Publishes a task's new status (`detailed`, its `DetailedTask`) to the streams that
    /// named the task in `taskIds`.
    pub(crate) fn task_changed(&self, id: &str, detailed: Value) {
        self.publish(Change::Task(Arc::new((id.to_string(), detailed))));
    }

    /// How many listen streams are open.
    pub(crate) fn open_count(&self) -> usize {
        self.open.load(Ordering::Acquire)
    }

    /// Ends every stream with its listen response (the server is stopping or its app entry
    /// was removed) and refuses new ones.
    pub(crate) fn close(&self) {
        self.closing().send_replace(true);
    }

    fn closing(&self) -> &watch::Sender<bool> {
        self.closing.get_or_init(|| watch::channel(false).0)
    }

    /// Accepts new streams again after [`close`](Self::close) (the server restarted).
    pub(crate) fn reopen(&self) {
        if let Some(closing) = self.closing.get() {
            closing.send_replace(false);
        }
    }

    /// After [`close`](Self::close): waits until the streams have ended, at most `within`.
    /// Returns at once when none was open, so stopping a server without listeners costs
    /// nothing.
    pub(crate) async fn drained(&self, within: Duration) {
        if self.open_count() == 0 {
            return;
        }
        let deadline = tokio::time::Instant::now() + within;
        while self.open_count() > 0 && tokio::time::Instant::now() < deadline {
            tokio::time::sleep(Duration::from_millis(2)).await;
        }
        tokio::time::sleep(FLUSH).await;
    }

    /// Counts a new stream in, unless the server is at its limit or stopping.
    fn admit(&self) -> Result<Permit, Refused> {
        if self.closing.get().is_some_and(|closing| *closing.borrow()) {
            return Err(Refused::Busy(RpcError::new(
                code::INTERNAL_ERROR,
                "subscriptions/listen: the server is shutting down; open the stream again once it is back",
            )));
        }
        self.open
            .fetch_update(Ordering::AcqRel, Ordering::Acquire, |open| {
                (open < self.max).then_some(open + 1)
            })
            .map_err(|open| {
                Refused::Busy(RpcError::new(
                    code::INTERNAL_ERROR,
                    format!(
                        "subscriptions/listen: this server already has {open} open listen streams, its limit (max_listen_streams = {}); close one before opening another",
                        self.max
                    ),
                ))
            })?;
        Ok(Permit(self.open.clone()))
    }
}

/// One stream's place in the count; given back when the stream is dropped, however it ends.
#[derive(Debug)]
struct Permit(Arc<AtomicUsize>);

impl Drop for Permit {
    fn drop(&mut self) {
        self.0.fetch_sub(1, Ordering::AcqRel);
    }
}

/// Why a listen request got no stream.
#[derive(Debug)]
pub(crate) enum Refused {
    /// `params.notifications` is missing or malformed (`-32602`).
    Invalid(RpcError),
    /// It asks for task notifications without declaring the tasks extension (`-32021`,
    /// HTTP `400`).
    Missing(RpcError),
    /// Too many streams are open, or the server is stopping (`-32603`; HTTP `503`).
    Busy(RpcError),
}

/// What the client opted in to, cut down to what this server serves: the subset the
/// acknowledgment reports ("Notification types the server does not support are omitted").
#[derive(Debug, Clone, Default, PartialEq, Eq)]
pub(crate) struct Filter {
    tools: bool,
    prompts: bool,
    resources: bool,
    /// Resource URIs, in request order, without duplicates.
    uris: Vec<String>,
    lookup: HashSet<String>,
    /// Task ids (the tasks extension's `taskIds`), in request order, without duplicates.
    tasks: Vec<String>,
    task_lookup: HashSet<String>,
}

impl Filter {
    /// Reads `params.notifications` (`SubscriptionFilter`). Unknown keys are ignored and
    /// left out of the acknowledgment, so a client asking for a newer kind hears it is not
    /// served.
    pub(crate) fn parse(engine: &Engine, params: &Value) -> Result<Filter, RpcError> {
        let Some(requested) = params.get("notifications").and_then(Value::as_object) else {
            return Err(RpcError::invalid_params(
                "subscriptions/listen: `params.notifications` is required: an object naming what to receive, e.g. {\"toolsListChanged\": true, \"resourceSubscriptions\": [\"file:///a\"]}",
            ));
        };
        let flag = |key: &str| -> Result<bool, RpcError> {
            match requested.get(key) {
                None | Some(Value::Null) => Ok(false),
                Some(Value::Bool(on)) => Ok(*on),
                Some(other) => Err(RpcError::invalid_params(format!(
                    "subscriptions/listen: `params.notifications.{key}` must be a boolean, got {other}"
                ))),
            }
        };
        let tools = flag("toolsListChanged")?;
        let prompts = flag("promptsListChanged")?;
        let resources = flag("resourcesListChanged")?;
        let uris = strings(
            requested.get("resourceSubscriptions"),
            "resourceSubscriptions",
            "a URI string",
        )?;
        let task_ids = strings(requested.get("taskIds"), "taskIds", "a task id")?;
        // Tools are always declared with `listChanged`; prompts and resources only when the
        // server started with some (`Engine::capabilities`). Any URI may be watched, as with
        // `resources/subscribe`: a template's URIs too, and ones that appear later.
        let serves_resources = engine.serves_resources();
        let mut filter = Filter {
            tools,
            prompts: prompts && engine.serves_prompts(),
            resources: resources && serves_resources,
            ..Filter::default()
        };
        if serves_resources {
            for uri in uris {
                if filter.lookup.insert(uri.clone()) {
                    filter.uris.push(uri);
                }
            }
        }
        if engine.serves_tasks() {
            for id in task_ids {
                if filter.task_lookup.insert(id.clone()) {
                    filter.tasks.push(id);
                }
            }
        }
        Ok(filter)
    }

    /// The honoured subset, as the acknowledgment's `notifications`.
    pub(crate) fn to_json(&self) -> Value {
        let mut honoured = Map::new();
        for (on, key) in [
            (self.tools, "toolsListChanged"),
            (self.prompts, "promptsListChanged"),
            (self.resources, "resourcesListChanged"),
        ] {
            if on {
                honoured.insert(key.into(), json!(true));
            }
        }
        if !self.uris.is_empty() {
            honoured.insert("resourceSubscriptions".into(), json!(self.uris));
        }
        if !self.tasks.is_empty() {
            honoured.insert("taskIds".into(), json!(self.tasks));
        }
        Value::Object(honoured)
    }

    fn wants(&self, change: &Change) -> bool {
        match change {
            Change::List(Listing::Tools) => self.tools,
            Change::List(Listing::Prompts) => self.prompts,
            Change::List(Listing::Resources) => self.resources,
            Change::Updated(uri) => self.lookup.contains(&**uri),
            Change::Task(task) => self.task_lookup.contains(&task.0),
        }
    }
}

/// `params.notifications.<key>`: absent, or an array of strings (each `what`).
fn strings(value: Option<&Value>, key: &str, what: &str) -> Result<Vec<String>, RpcError> {
    match value {
        None | Some(Value::Null) => Ok(Vec::new()),
        Some(Value::Array(items)) => items
            .iter()
            .enumerate()
            .map(|(n, item)| {
                item.as_str().map(str::to_string).ok_or_else(|| {
                    RpcError::invalid_params(format!(
                        "subscriptions/listen: `params.notifications.{key}[{n}]` must be {what}, got {item}"
                    ))
                })
            })
            .collect(),
        Some(other) => Err(RpcError::invalid_params(format!(
            "subscriptions/listen: `params.notifications.{key}` must be an array of strings ({what} each), got {other}"
        ))),
    }
}

/// One piece of a listen stream, in the order it is to be written.
#[derive(Debug, Clone, PartialEq)]
pub(crate) enum Frame {
    /// A notification: the acknowledgment first, then the opted-in changes.
    Notification(Value),
    /// The listen response that ends the stream gracefully (server shutdown).
    Final(Value),
    /// Nothing happened for a while: a comment keeps intermediaries from closing the stream.
    KeepAlive,
}

/// One open listen stream. Dropping it (the client closed the stream) ends the
/// subscription and frees its place.
#[derive(Debug)]
pub(crate) struct Subscription {
    id: Value,
    filter: Filter,
    events: broadcast::Receiver<Change>,
    closing: watch::Receiver<bool>,
    keep_alive: Duration,
    /// Written before anything else: the acknowledgment, or catch-up notifications.
    queued: VecDeque<Value>,
    /// The listen response, built up front so that ending needs nothing from the engine.
    last: Option<Value>,
    _permit: Permit,
}

/// Opens a subscription for the listen request `id`: checks the filter and the stream limit
/// and subscribes to changes at once, so that nothing published after this call is missed.
pub(crate) fn open(engine: &Engine, id: &Value, params: &Value) -> Result<Subscription, Refused> {
    let filter = Filter::parse(engine, params).map_err(Refused::Invalid)?;
    let declared = params
        .get("_meta")
        .and_then(|m| m.get("io.modelcontextprotocol/clientCapabilities"))
        .and_then(|c| c.get("extensions"))
        .and_then(|e| e.get(TASKS_EXTENSION))
        .is_some();
    if !filter.tasks.is_empty() && !declared {
        // The extension: "If a client requests task status notifications but does not
        // declare the io.modelcontextprotocol/tasks extension capability, the server MUST
        // return a JSON-RPC error specifying the missing capabilities".
        return Err(Refused::Missing(
            RpcError::new(
                code::MISSING_CLIENT_CAPABILITY,
                format!("subscriptions/listen: `params.notifications.taskIds` needs the tasks extension: declare `extensions[\"{TASKS_EXTENSION}\"]` in _meta clientCapabilities"),
            )
            .with_data(json!({ "requiredCapabilities": { "extensions": { TASKS_EXTENSION: {} } } })),
        ));
    }
    let permit = engine.listeners.admit()?;
    let acknowledgment = jsonrpc::notification(
        ACKNOWLEDGED,
        Some(json!({
            "_meta": { META_SUBSCRIPTION_ID: id },
            "notifications": filter.to_json(),
        })),
    );
    let result = discover::finish_result(
        engine,
        "subscriptions/listen",
        json!({ "_meta": { META_SUBSCRIPTION_ID: id } }),
    );
    Ok(Subscription {
        id: id.clone(),
        filter,
        events: engine.listeners.subscribe(),
        closing: engine.listeners.closing().subscribe(),
        keep_alive: Duration::from_millis(engine.limits.keep_alive_ms.max(1)),
        queued: VecDeque::from([acknowledgment]),
        last: Some(jsonrpc::result(id, result)),
        _permit: permit,
    })
}

impl Subscription {
    /// The next frame, waiting for a change; `None` once the listen response was given.
    pub(crate) async fn next(&mut self) -> Option<Frame> {
        if let Some(message) = self.queued.pop_front() {
            return Some(Frame::Notification(message));
        }
        self.last.as_ref()?;
        let idle_until = tokio::time::Instant::now() + self.keep_alive;
        loop {
            if *self.closing.borrow_and_update() {
                return self.last.take().map(Frame::Final);
            }
            tokio::select! {
                biased;
                changed = self.closing.changed() => {
                    // The sender lives as long as the engine, which outlives this stream.
                    if changed.is_err() {
                        return self.last.take().map(Frame::Final);
                    }
                }
                event = self.events.recv() => match event {
                    Ok(change) if self.filter.wants(&change) => {
                        return Some(Frame::Notification(self.message(&change)));
                    }
                    Ok(_) => {}
                    Err(RecvError::Lagged(_)) => {
                        self.catch_up();
                        if let Some(message) = self.queued.pop_front() {
                            return Some(Frame::Notification(message));
                        }
                    }
                    Err(RecvError::Closed) => return self.last.take().map(Frame::Final),
                },
                () = tokio::time::sleep_until(idle_until) => return Some(Frame::KeepAlive),
            }
        }
    }

    /// The notification of a change, tagged with this subscription's id.
    fn message(&self, change: &Change) -> Value {
        let meta = json!({ META_SUBSCRIPTION_ID: self.id });
        match change {
            Change::List(listing) => {
                jsonrpc::notification(listing.notification(), Some(json!({ "_meta": meta })))
            }
            Change::Updated(uri) => jsonrpc::notification(
                RESOURCE_UPDATED,
                Some(json!({ "_meta": meta, "uri": &**uri })),
            ),
            Change::Task(task) => {
                let mut params = task.1.clone();
                params["_meta"] = meta;
                jsonrpc::notification(TASK_STATUS, Some(params))
            }
        }
    }

    /// Missed events cannot be replayed, so a stream that fell behind is told that each
    /// thing it watches may have changed: a client then re-reads, as after any change.
    /// (Task statuses are not replayed: a client that watches tasks also polls them, as the
    /// extension says it may.)
    fn catch_up(&mut self) {
        let mut changes: Vec<Change> = [Listing::Tools, Listing::Prompts, Listing::Resources]
            .into_iter()
            .map(Change::List)
            .collect();
        changes.extend(
            self.filter
                .uris
                .iter()
                .map(|uri| Change::Updated(Arc::from(uri.as_str()))),
        );
        for change in changes {
            if self.filter.wants(&change) {
                let message = self.message(&change);
                self.queued.push_back(message);
            }
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn the_limit_refuses_the_stream_past_it_and_a_dropped_stream_frees_its_place() {
        let listeners = Listeners::new(2);
        let a = listeners.admit().expect("first");
        let _b = listeners.admit().expect("second");
        assert!(matches!(listeners.admit(), Err(Refused::Busy(_))));
        assert_eq!(listeners.open_count(), 2);
        drop(a);
        assert_eq!(listeners.open_count(), 1);
        listeners.admit().expect("a place is free again");
    }

    #[test]
    fn a_zero_limit_refuses_every_stream_and_a_closed_hub_refuses_new_ones() {
        assert!(matches!(Listeners::new(0).admit(), Err(Refused::Busy(_))));
        let listeners = Listeners::new(5);
        listeners.close();
        let Err(Refused::Busy(error)) = listeners.admit() else {
            panic!("a closing hub admits nothing");
        };
        assert!(error.message.contains("shutting down"), "{}", error.message);
    }
}
