//! Live legacy sessions: ids, negotiated revision, client identity, and the queue of
//! server-to-client messages that the session's GET stream drains.
//!
//! Bounded four ways: past `max_sessions`, or past `max_bytes` of what clients sent in
//! their `initialize` (`clientInfo` and `capabilities`, which a session keeps), the oldest
//! session ends; a session queues at most `max_queued` messages while no stream is open
//! (the oldest drop first); and every event a session keeps for resumption is charged to
//! the pool of retained events, which evicts the oldest of any session past its budget.

use std::collections::{HashMap, HashSet, VecDeque};
use std::sync::{Arc, Mutex, MutexGuard, Weak};

use chrono::{DateTime, Utc};
use serde::Serialize;
use serde_json::Value;
use tokio::sync::{oneshot, watch};

use super::cancel::Cancel;
use super::pool::{GiveUp, Holder, Key, Pool};
use super::sent::Sent;
use super::stream::{Attach, Poll, STANDALONE, Streams};
use crate::log::{RequestEnd, Transport};
use crate::signal::Signal;
use crate::spec::{LogLevel, ProtocolVersion};

/// Resource subscriptions one session may hold at once.
pub(crate) const MAX_SUBSCRIPTIONS: usize = 1_000;

/// A live session as tests and the app see it.
#[derive(Debug, Clone, PartialEq, Serialize)]
#[serde(rename_all = "camelCase")]
#[non_exhaustive]
pub struct SessionInfo {
    /// The `Mcp-Session-Id`.
    pub id: String,
    /// The negotiated revision.
    pub protocol_version: ProtocolVersion,
    /// `clientInfo.name` from `initialize`.
    pub client_name: Option<String>,
    /// `clientInfo.version` from `initialize`.
    pub client_version: Option<String>,
    /// `capabilities` from `initialize`.
    pub client_capabilities: Value,
    /// Whether `notifications/initialized` arrived.
    pub initialized: bool,
    /// Whether a GET stream is open.
    pub stream_open: bool,
    /// What carries the session: `http`, or `stdio` / `memory` for a byte stream.
    pub transport: Transport,
    /// When `initialize` was answered.
    pub created_at: DateTime<Utc>,
}

#[derive(Debug)]
pub(crate) struct Session {
    pub(crate) id: String,
    pub(crate) version: ProtocolVersion,
    /// What carries its messages, as the capture names it.
    pub(crate) transport: Transport,
    client_info: Sent,
    client_capabilities: Sent,
    /// `client_info` and `client_capabilities` in bytes of JSON text, counted once when the
    /// session joins the live ones (0 for a detached one).
    bytes: usize,
    created_at: DateTime<Utc>,
    state: Mutex<State>,
    wake: Signal,
    /// Itself, as the pool's holder of its events.
    me: Weak<Session>,
    /// Where its events are charged.
    pool: Arc<Pool>,
}

#[derive(Debug)]
struct State {
    initialized: bool,
    ended: bool,
    streams: Streams,
    /// Requests being handled, by JSON id, so `notifications/cancelled` can stop them.
    in_flight: HashMap<String, Cancel>,
    /// Server-to-client requests awaiting the client's response, by JSON id.
    replies: HashMap<String, oneshot::Sender<Value>>,
    next_request: u64,
    /// Set by `logging/setLevel`; `None` sends every level.
    log_level: Option<LogLevel>,
    /// Off for a stateless request without `_meta` logLevel: no log messages at all.
    logging: bool,
    subscriptions: HashSet<String>,
}

impl Session {
    fn state(&self) -> MutexGuard<'_, State> {
        self.state.lock().unwrap_or_else(|p| p.into_inner())
    }

    pub(crate) fn mark_initialized(&self) {
        self.state().initialized = true;
    }

    /// The capabilities the client declared in `initialize`.
    pub(crate) fn client_capabilities(&self) -> &Value {
        self.client_capabilities.get()
    }

    /// Queues a message on the standalone (GET) stream.
    pub(crate) fn send(&self, message: Value) {
        self.push(STANDALONE, Some(message));
    }

    /// Appends an event to a stream (`None`: the priming event) and wakes its reader.
    pub(crate) fn push(&self, stream: u64, message: Option<Value>) {
        let charged = {
            let mut state = self.state();
            if state.ended {
                return;
            }
            state.streams.push(stream, message)
        };
        self.wake.notify();
        if let Some((key, bytes)) = charged {
            let me: Weak<dyn Holder> = self.me.clone();
            self.pool.track(me, key, bytes);
        }
    }

    /// Opens a stream for one POSTed request.
    pub(crate) fn open_stream(&self) -> u64 {
        self.state().streams.open()
    }

    /// Ends a stream once its readers have read everything.
    pub(crate) fn finish_stream(&self, stream: u64) {
        self.state().streams.finish(stream);
        self.wake.notify();
    }

    /// Attaches a reader to a stream (it takes over from an older one); `after` is the
    /// `Last-Event-ID` sequence number. Refused for a stream the session never had, or when
    /// events after `after` were evicted.
    pub(crate) fn attach(&self, stream: u64, after: Option<u64>) -> Result<Reader, Attach> {
        let (id, cursor) = self.state().streams.attach(stream, after)?;
        // Wake the reader it takes over from, so that one ends now.
        self.wake.notify();
        let mut wake = self.wake.subscribe();
        wake.mark_changed();
        Ok(Reader {
            stream,
            id,
            cursor,
            wake,
        })
    }

    pub(crate) fn poll(&self, reader: &mut Reader) -> Poll {
        let mut state = self.state();
        if state.ended {
            return Poll::Closed;
        }
        let next = state.streams.poll(reader.stream, reader.id, reader.cursor);
        if let Poll::Event(event) = &next {
            reader.cursor = event.seq + 1;
        }
        next
    }

    pub(crate) fn detach(&self, reader: &Reader) {
        self.state().streams.detach(reader.stream, reader.id);
    }

    /// Registers a request being handled; `notifications/cancelled` for its id cancels it.
    pub(crate) fn begin_request(&self, id: &Value) -> Cancel {
        let cancel = Cancel::default();
        self.state()
            .in_flight
            .insert(id.to_string(), cancel.clone());
        cancel
    }

    pub(crate) fn end_request(&self, id: &Value) {
        self.state().in_flight.remove(&id.to_string());
    }

    /// Cancels every request being handled (a 2026-07-28 client closed its stream).
    pub(crate) fn cancel_all(&self) {
        for (_, cancel) in self.state().in_flight.drain() {
            cancel.fire(RequestEnd::CancelledByClient);
        }
    }

    /// The client cancelled request `id` (`notifications/cancelled`); whether it was still
    /// being handled.
    pub(crate) fn cancel(&self, id: &Value) -> bool {
        let cancel = self.state().in_flight.remove(&id.to_string());
        cancel
            .inspect(|c| c.fire(RequestEnd::CancelledByClient))
            .is_some()
    }

    /// A fresh id for a server-to-client request and the receiver of its response.
    pub(crate) fn expect_reply(&self) -> (Value, oneshot::Receiver<Value>) {
        let (tx, rx) = oneshot::channel();
        let mut state = self.state();
        state.next_request += 1;
        let id = Value::String(format!("decoy-{}", state.next_request));
        state.replies.insert(id.to_string(), tx);
        (id, rx)
    }

    /// Routes a response the client POSTed; false when no request of ours has that id.
    pub(crate) fn deliver_reply(&self, id: &Value, message: Value) -> bool {
        match self.state().replies.remove(&id.to_string()) {
            Some(tx) => tx.send(message).is_ok(),
            None => false,
        }
    }

    pub(crate) fn forget_reply(&self, id: &Value) {
        self.state().replies.remove(&id.to_string());
    }

    pub(crate) fn set_log_level(&self, level: LogLevel) {
        self.state().log_level = Some(level);
    }

    /// Whether a `notifications/message` at `level` passes the session's `logging/setLevel`.
    pub(crate) fn logs_at(&self, level: LogLevel) -> bool {
        let state = self.state();
        state.logging && state.log_level.is_none_or(|min| level >= min)
    }

    /// Stateless requests log only at the `_meta` logLevel they ask for (2026-07-28
    /// server/utilities/logging): `None` sends nothing.
    pub(crate) fn log_only_at(&self, level: Option<LogLevel>) {
        let mut state = self.state();
        state.logging = level.is_some();
        state.log_level = level;
    }

    /// Subscribes to `uri`; false when the session already holds [`MAX_SUBSCRIPTIONS`]
    /// others (a template matches endless URIs, so a client could grow the set forever).
    pub(crate) fn subscribe(&self, uri: &str) -> bool {
        let mut state = self.state();
        if state.subscriptions.len() >= MAX_SUBSCRIPTIONS && !state.subscriptions.contains(uri) {
            return false;
        }
        state.subscriptions.insert(uri.to_string());
        true
    }

    pub(crate) fn unsubscribe(&self, uri: &str) {
        self.state().subscriptions.remove(uri);
    }

    pub(crate) fn is_subscribed(&self, uri: &str) -> bool {
        self.state().subscriptions.contains(uri)
    }

    /// Resolves once the session has ended (DELETE, expiry, eviction, server stop).
    pub(crate) async fn ended(&self) {
        let mut wake = self.wake.subscribe();
        loop {
            if self.state().ended {
                return;
            }
            if wake.changed().await.is_err() {
                return;
            }
        }
    }

    fn end(&self) {
        {
            let mut state = self.state();
            state.ended = true;
            state.streams.close_all();
            for (_, cancel) in state.in_flight.drain() {
                cancel.fire(RequestEnd::EndedByServer);
            }
            state.replies.clear();
        }
        self.wake.notify();
    }

    fn info(&self) -> SessionInfo {
        let state = self.state();
        let field = |name: &str| {
            self.client_info
                .get()
                .get(name)
                .and_then(Value::as_str)
                .map(str::to_string)
        };
        SessionInfo {
            id: self.id.clone(),
            protocol_version: self.version,
            client_name: field("name"),
            client_version: field("version"),
            client_capabilities: self.client_capabilities.get().clone(),
            initialized: state.initialized,
            stream_open: state.streams.standalone_open(),
            transport: self.transport,
            created_at: self.created_at,
        }
    }
}

impl Holder for Session {
    fn give_up(&self, key: Key) -> GiveUp {
        self.state().streams.give_up(key)
    }

    fn holds(&self, key: Key) -> bool {
        self.state().streams.holds(key)
    }
}

/// A reader of one stream: an HTTP body's cursor.
#[derive(Debug)]
pub(crate) struct Reader {
    pub(crate) stream: u64,
    id: u64,
    cursor: u64,
    pub(crate) wake: watch::Receiver<()>,
}

/// All live sessions of one server.
#[derive(Debug)]
pub(crate) struct Sessions {
    inner: Mutex<Inner>,
    max_sessions: usize,
    max_bytes: usize,
    max_queued: usize,
    /// The budget of retained events, shared with other servers in the app.
    pool: Arc<Pool>,
}

#[derive(Debug, Default)]
struct Inner {
    by_id: HashMap<String, Arc<Session>>,
    /// Creation order, for evicting the oldest.
    order: VecDeque<String>,
    /// What the live sessions hold of their clients' handshakes (their `bytes`).
    bytes: usize,
    /// Sessions ended by `max_sessions` or `max_bytes`.
    evicted: u64,
}

impl Sessions {
    pub(crate) fn new(
        max_sessions: usize,
        max_bytes: usize,
        max_queued: usize,
        pool: Arc<Pool>,
    ) -> Self {
        Sessions {
            inner: Mutex::new(Inner::default()),
            max_sessions: max_sessions.max(1),
            max_bytes,
            max_queued: max_queued.max(1),
            pool,
        }
    }

    fn inner(&self) -> MutexGuard<'_, Inner> {
        self.inner.lock().unwrap_or_else(|p| p.into_inner())
    }

    pub(crate) fn create(
        &self,
        version: ProtocolVersion,
        client_info: Sent,
        client_capabilities: Sent,
        transport: Transport,
    ) -> Arc<Session> {
        // Only a session that joins the live ones counts against the byte budget, so a
        // stateless request's detached context never measures its handshake.
        let bytes = client_info.bytes() + client_capabilities.bytes();
        let session = self.build(version, client_info, client_capabilities, transport, bytes);
        let mut inner = self.inner();
        inner.by_id.insert(session.id.clone(), session.clone());
        inner.order.push_back(session.id.clone());
        inner.bytes += session.bytes;
        // The new session stays even alone over the byte budget: the body limit bounds it.
        while inner.by_id.len() > self.max_sessions
            || (inner.bytes > self.max_bytes && inner.by_id.len() > 1)
        {
            let Some(oldest) = inner.order.pop_front() else {
                break;
            };
            if let Some(evicted) = inner.by_id.remove(&oldest) {
                inner.bytes -= evicted.bytes;
                inner.evicted += 1;
                evicted.end();
            }
        }
        session
    }

    pub(crate) fn get(&self, id: &str) -> Option<Arc<Session>> {
        self.inner().by_id.get(id).cloned()
    }

    /// A session that no id reaches: the context of one stateless (2026-07-28) request,
    /// which lives as long as that request.
    pub(crate) fn detached(
        &self,
        version: ProtocolVersion,
        client_info: Sent,
        client_capabilities: Sent,
        transport: Transport,
    ) -> Arc<Session> {
        self.build(version, client_info, client_capabilities, transport, 0)
    }

    fn build(
        &self,
        version: ProtocolVersion,
        client_info: Sent,
        client_capabilities: Sent,
        transport: Transport,
        bytes: usize,
    ) -> Arc<Session> {
        Arc::new_cyclic(|me| Session {
            me: me.clone(),
            pool: self.pool.clone(),
            id: new_session_id(),
            version,
            transport,
            bytes,
            client_info,
            client_capabilities,
            created_at: Utc::now(),
            state: Mutex::new(State {
                initialized: false,
                ended: false,
                streams: Streams::new(self.max_queued, self.pool.clone()),
                in_flight: HashMap::new(),
                replies: HashMap::new(),
                next_request: 0,
                log_level: None,
                logging: true,
                subscriptions: HashSet::new(),
            }),
            wake: Signal::default(),
        })
    }

    /// Ends a session: its streams close and its id answers 404 from now on.
    pub(crate) fn remove(&self, id: &str) -> bool {
        let mut inner = self.inner();
        let Some(session) = inner.by_id.remove(id) else {
            return false;
        };
        inner.bytes -= session.bytes;
        inner.order.retain(|s| s != id);
        drop(inner);
        session.end();
        true
    }

    /// Queues a message for every live session.
    pub(crate) fn broadcast(&self, message: &Value) {
        let sessions: Vec<Arc<Session>> = self.inner().by_id.values().cloned().collect();
        for session in sessions {
            session.send(message.clone());
        }
    }

    /// Queues a message for every live session subscribed to `uri` (`resources/subscribe`).
    pub(crate) fn notify_subscribers(&self, uri: &str, message: &Value) {
        let sessions: Vec<Arc<Session>> = self.inner().by_id.values().cloned().collect();
        for session in sessions.iter().filter(|s| s.is_subscribed(uri)) {
            session.send(message.clone());
        }
    }

    /// `(live sessions, handshake bytes they keep, sessions ended by the limits)`.
    pub(crate) fn usage(&self) -> (usize, usize, u64) {
        let inner = self.inner();
        (inner.by_id.len(), inner.bytes, inner.evicted)
    }

    pub(crate) fn list(&self) -> Vec<SessionInfo> {
        let inner = self.inner();
        inner
            .order
            .iter()
            .filter_map(|id| inner.by_id.get(id))
            .map(|s| s.info())
            .collect()
    }

    /// Ends every session.
    pub(crate) fn clear(&self) {
        let drained: Vec<Arc<Session>> = {
            let mut inner = self.inner();
            inner.order.clear();
            inner.bytes = 0;
            inner.by_id.drain().map(|(_, s)| s).collect()
        };
        for session in drained {
            session.end();
        }
    }
}

/// 128 random bits as hex: visible ASCII and cryptographically random, as the transports
/// page asks of session ids.
fn new_session_id() -> String {
    crate::engine::random::hex_id()
}

#[cfg(test)]
mod tests {
    use super::*;
    use serde_json::json;

    #[test]
    fn the_oldest_session_ends_when_the_limit_is_reached() {
        let sessions = Sessions::new(2, usize::MAX, 10, Arc::new(Pool::new(usize::MAX)));
        let a = sessions.create(
            ProtocolVersion::V2025_11_25,
            json!({}).into(),
            json!({}).into(),
            Transport::Http,
        );
        let b = sessions.create(
            ProtocolVersion::V2025_11_25,
            json!({}).into(),
            json!({}).into(),
            Transport::Http,
        );
        let c = sessions.create(
            ProtocolVersion::V2025_11_25,
            json!({}).into(),
            json!({}).into(),
            Transport::Http,
        );
        assert!(sessions.get(&a.id).is_none());
        assert!(sessions.get(&b.id).is_some() && sessions.get(&c.id).is_some());
        assert_ne!(b.id, c.id);
        assert!(b.id.chars().all(|ch| ('\x21'..='\x7e').contains(&ch)));
    }
}
