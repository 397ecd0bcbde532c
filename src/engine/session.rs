//! Live legacy sessions: ids, negotiated revision, client identity, and the queue of
//! server-to-client messages that the session's GET stream drains.
//!
//! Bounded twice: past `max_sessions` the oldest session ends, and a session queues at most
//! `max_queued` messages while no stream is open (the oldest drop first).

use std::collections::{HashMap, VecDeque};
use std::sync::{Arc, Mutex, MutexGuard};

use chrono::{DateTime, Utc};
use serde::Serialize;
use serde_json::Value;
use tokio::sync::watch;

use crate::spec::ProtocolVersion;

/// A live session as tests and the app see it.
#[derive(Debug, Clone, PartialEq, Serialize)]
#[serde(rename_all = "camelCase")]
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
    /// When `initialize` was answered.
    pub created_at: DateTime<Utc>,
}

#[derive(Debug)]
pub(crate) struct Session {
    pub(crate) id: String,
    pub(crate) version: ProtocolVersion,
    client_info: Value,
    client_capabilities: Value,
    created_at: DateTime<Utc>,
    state: Mutex<State>,
    wake: watch::Sender<()>,
    max_queued: usize,
}

#[derive(Debug, Default)]
struct State {
    initialized: bool,
    ended: bool,
    /// Which GET stream may drain the queue; a newer GET takes over from an older one.
    stream: Option<u64>,
    next_stream: u64,
    queue: VecDeque<Value>,
}

/// What a GET stream's next poll found.
pub(crate) enum Next {
    Message(Value),
    Wait,
    Closed,
}

impl Session {
    fn state(&self) -> MutexGuard<'_, State> {
        self.state.lock().unwrap_or_else(|p| p.into_inner())
    }

    pub(crate) fn mark_initialized(&self) {
        self.state().initialized = true;
    }

    /// Queues a server-to-client message for the GET stream.
    pub(crate) fn send(&self, message: Value) {
        {
            let mut state = self.state();
            if state.ended {
                return;
            }
            state.queue.push_back(message);
            while state.queue.len() > self.max_queued {
                state.queue.pop_front();
            }
        }
        self.wake.send_replace(());
    }

    /// Opens a GET stream; an older stream of the session stops at its next poll.
    pub(crate) fn open_stream(&self) -> (u64, watch::Receiver<()>) {
        let generation = {
            let mut state = self.state();
            state.next_stream += 1;
            state.stream = Some(state.next_stream);
            state.next_stream
        };
        self.wake.send_replace(());
        let mut wake = self.wake.subscribe();
        wake.mark_changed();
        (generation, wake)
    }

    pub(crate) fn poll_stream(&self, generation: u64) -> Next {
        let mut state = self.state();
        if state.ended || state.stream != Some(generation) {
            return Next::Closed;
        }
        match state.queue.pop_front() {
            Some(message) => Next::Message(message),
            None => Next::Wait,
        }
    }

    pub(crate) fn close_stream(&self, generation: u64) {
        let mut state = self.state();
        if state.stream == Some(generation) {
            state.stream = None;
        }
    }

    fn end(&self) {
        self.state().ended = true;
        self.wake.send_replace(());
    }

    fn info(&self) -> SessionInfo {
        let state = self.state();
        let field = |name: &str| {
            self.client_info
                .get(name)
                .and_then(Value::as_str)
                .map(str::to_string)
        };
        SessionInfo {
            id: self.id.clone(),
            protocol_version: self.version,
            client_name: field("name"),
            client_version: field("version"),
            client_capabilities: self.client_capabilities.clone(),
            initialized: state.initialized,
            stream_open: state.stream.is_some(),
            created_at: self.created_at,
        }
    }
}

/// All live sessions of one server.
#[derive(Debug)]
pub(crate) struct Sessions {
    inner: Mutex<Inner>,
    max_sessions: usize,
    max_queued: usize,
}

#[derive(Debug, Default)]
struct Inner {
    by_id: HashMap<String, Arc<Session>>,
    /// Creation order, for evicting the oldest.
    order: VecDeque<String>,
}

impl Sessions {
    pub(crate) fn new(max_sessions: usize, max_queued: usize) -> Self {
        Sessions {
            inner: Mutex::new(Inner::default()),
            max_sessions: max_sessions.max(1),
            max_queued: max_queued.max(1),
        }
    }

    fn inner(&self) -> MutexGuard<'_, Inner> {
        self.inner.lock().unwrap_or_else(|p| p.into_inner())
    }

    pub(crate) fn create(
        &self,
        version: ProtocolVersion,
        client_info: Value,
        client_capabilities: Value,
    ) -> Arc<Session> {
        let session = Arc::new(Session {
            id: new_session_id(),
            version,
            client_info,
            client_capabilities,
            created_at: Utc::now(),
            state: Mutex::new(State::default()),
            wake: watch::channel(()).0,
            max_queued: self.max_queued,
        });
        let mut inner = self.inner();
        inner.by_id.insert(session.id.clone(), session.clone());
        inner.order.push_back(session.id.clone());
        while inner.by_id.len() > self.max_sessions {
            let Some(oldest) = inner.order.pop_front() else {
                break;
            };
            if let Some(evicted) = inner.by_id.remove(&oldest) {
                evicted.end();
            }
        }
        session
    }

    pub(crate) fn get(&self, id: &str) -> Option<Arc<Session>> {
        self.inner().by_id.get(id).cloned()
    }

    /// Ends a session: its streams close and its id answers 404 from now on.
    pub(crate) fn remove(&self, id: &str) -> bool {
        let mut inner = self.inner();
        let Some(session) = inner.by_id.remove(id) else {
            return false;
        };
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
    use rand::RngCore;
    let mut bytes = [0u8; 16];
    rand::rng().fill_bytes(&mut bytes);
    bytes.iter().map(|b| format!("{b:02x}")).collect()
}

#[cfg(test)]
mod tests {
    use super::*;
    use serde_json::json;

    #[test]
    fn the_oldest_session_ends_when_the_limit_is_reached() {
        let sessions = Sessions::new(2, 10);
        let a = sessions.create(ProtocolVersion::V2025_11_25, json!({}), json!({}));
        let b = sessions.create(ProtocolVersion::V2025_11_25, json!({}), json!({}));
        let c = sessions.create(ProtocolVersion::V2025_11_25, json!({}), json!({}));
        assert!(sessions.get(&a.id).is_none());
        assert!(sessions.get(&b.id).is_some() && sessions.get(&c.id).is_some());
        assert_ne!(b.id, c.id);
        assert!(b.id.chars().all(|ch| ('\x21'..='\x7e').contains(&ch)));
    }

    #[test]
    fn a_queue_without_a_stream_keeps_the_newest_messages() {
        let sessions = Sessions::new(10, 2);
        let s = sessions.create(ProtocolVersion::V2025_11_25, json!({}), json!({}));
        for n in 0..3 {
            s.send(json!(n));
        }
        let (generation, _wake) = s.open_stream();
        assert!(matches!(s.poll_stream(generation), Next::Message(v) if v == json!(1)));
        assert!(matches!(s.poll_stream(generation), Next::Message(v) if v == json!(2)));
        assert!(matches!(s.poll_stream(generation), Next::Wait));
        let (newer, _wake2) = s.open_stream();
        assert!(matches!(s.poll_stream(generation), Next::Closed));
        assert!(matches!(s.poll_stream(newer), Next::Wait));
    }
}
