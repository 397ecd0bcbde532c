//! The `mcp` records of relayed traffic, written with the same recorder as a mock's: each
//! message the client POSTs opens a record, the upstream's response (a JSON body or an event
//! on its stream) closes it, and the requests and notifications the upstream sends on a
//! stream are recorded as server-to-client messages. What reads the log (assertions,
//! snapshots, transcripts, the UI, cassettes) cannot tell a relay's records from a mock's.

use std::sync::Arc;

use http::HeaderMap;
use serde_json::Value;

use crate::engine::Engine;
use crate::engine::capture::{self, Arrival, ExchangeId, Recorder, Sent};
use crate::engine::protocol::jsonrpc::{self, Incoming};
use crate::engine::protocol::message::{Body, Message};
use crate::engine::protocol::modern::{self, META_VERSION};
use crate::engine::protocol::{McpHeaders, SESSION_HEADER, VERSION_HEADER};
use crate::log::{RpcKind, Transport};

/// The relay's records of one exchange: its requests still waiting for their response.
#[derive(Debug)]
pub(crate) struct Exchange {
    engine: Arc<Engine>,
    exchange: Option<ExchangeId>,
    /// The legacy session the request named, or the one its `initialize` opened.
    session: Option<String>,
    /// The revision in force: the request's header or `_meta`, or what `initialize` chose.
    version: Option<String>,
    modern: bool,
    pending: Vec<Pending>,
}

#[derive(Debug)]
struct Pending {
    id: Value,
    initialize: bool,
    recorder: Recorder,
}

impl Exchange {
    /// An exchange that carries no client message (a GET stream, a DELETE).
    pub(crate) fn quiet(
        engine: &Arc<Engine>,
        exchange: Option<ExchangeId>,
        headers: &HeaderMap,
    ) -> Exchange {
        Exchange {
            engine: engine.clone(),
            exchange,
            session: text(headers, SESSION_HEADER),
            version: text(headers, VERSION_HEADER),
            modern: false,
            pending: Vec::new(),
        }
    }

    /// Records the message (or batch) a client POSTed.
    pub(crate) fn posted(
        engine: &Arc<Engine>,
        exchange: Option<ExchangeId>,
        headers: &HeaderMap,
        body: &[u8],
    ) -> Exchange {
        let mut this = Exchange::quiet(engine, exchange, headers);
        let messages = match Body::parse(body) {
            Ok(Body::Batch(batch)) => batch.into_iter().map(Message::from).collect(),
            Ok(Body::One(message)) => vec![message],
            Err(_) => {
                let text =
                    Message::Other(Value::String(String::from_utf8_lossy(body).into_owned()));
                let arrival = Arrival::new(exchange, Transport::Http, RpcKind::Invalid, None, text);
                Recorder::arrived(engine, arrival).done();
                return this;
            }
        };
        for message in messages {
            this.arrived(headers, message);
        }
        this
    }

    fn arrived(&mut self, headers: &HeaderMap, message: Message) {
        let modern = modern::is_modern(
            &self.engine.versions,
            &message,
            Some(&McpHeaders::of(headers)),
        );
        let meta_version = message
            .member("params")
            .and_then(|p| p.get("_meta"))
            .and_then(|m| m.get(META_VERSION))
            .and_then(Value::as_str)
            .map(str::to_string);
        if modern {
            self.modern = true;
            self.version = meta_version.or(self.version.take());
        }
        let classified = jsonrpc::classify(&message);
        let (kind, method, id) = match &classified {
            Incoming::Request { id, method, .. } => {
                (RpcKind::Request, Some(method.as_str()), Some(id))
            }
            Incoming::Notification { method, .. } => {
                (RpcKind::Notification, Some(method.as_str()), None)
            }
            Incoming::Response { .. } => (RpcKind::Response, None, None),
            Incoming::Invalid { .. } => (RpcKind::Invalid, None, None),
        };
        let initialize = method == Some("initialize");
        let legacy_version = (!modern && !initialize)
            .then(|| self.version.clone())
            .flatten();
        let arrival = Arrival {
            named_session: self.session.as_deref(),
            modern_version: modern.then_some(self.version.as_deref()).flatten(),
            ..Arrival::new(
                self.exchange,
                Transport::Http,
                kind,
                method,
                message.clone(),
            )
        };
        let recorder = Recorder::arrived(&self.engine, arrival);
        if let Some(version) = legacy_version {
            recorder.versioned(version);
        }
        match id {
            Some(id) => self.pending.push(Pending {
                id: id.clone(),
                initialize,
                recorder,
            }),
            None => recorder.done(),
        }
    }

    /// The one request of the exchange, when it carries exactly one (faults apply to it).
    pub(crate) fn single(&self) -> Option<&Recorder> {
        match self.pending.as_slice() {
            [one] => Some(&one.recorder),
            _ => None,
        }
    }

    /// The id of the single request, for a fault's JSON-RPC error.
    pub(crate) fn single_id(&self) -> Option<&Value> {
        match self.pending.as_slice() {
            [one] => Some(&one.id),
            _ => None,
        }
    }

    /// The upstream's answer head: a session its `initialize` opened.
    pub(crate) fn answered_with(&mut self, headers: &HeaderMap) {
        if let Some(session) = text(headers, SESSION_HEADER) {
            self.session = Some(session);
        }
    }

    /// A JSON body from the upstream: the responses it holds close their requests.
    pub(crate) fn json(&mut self, body: &[u8]) {
        match serde_json::from_slice::<Value>(body) {
            Ok(Value::Array(batch)) => batch.into_iter().for_each(|m| self.message(m)),
            Ok(message) => self.message(message),
            Err(_) => {}
        }
    }

    /// The data of one event of the upstream's stream.
    pub(crate) fn event(&mut self, data: &[u8]) {
        if let Ok(message) = serde_json::from_slice::<Value>(data) {
            self.message(message);
        }
    }

    fn message(&mut self, message: Value) {
        if message.get("method").is_some() {
            let on = Sent {
                session: (!self.modern).then_some(self.session.as_deref()).flatten(),
                version: self.version.as_deref(),
                modern: self.modern,
                transport: Transport::Http,
            };
            capture::sent_on(&self.engine, &on, self.exchange, &message);
            return;
        }
        let Some(id) = message.get("id") else {
            return;
        };
        let Some(at) = self.pending.iter().position(|p| &p.id == id) else {
            return;
        };
        let pending = self.pending.swap_remove(at);
        if !pending.initialize {
            pending.recorder.relayed(&message, None, None);
            return;
        }
        let version = message
            .get("result")
            .and_then(|r| r.get("protocolVersion"))
            .and_then(Value::as_str)
            .map(str::to_string);
        if version.is_some() {
            self.version.clone_from(&version);
        }
        pending
            .recorder
            .relayed(&message, self.session.clone(), version);
    }

    /// The exchange is over: requests that got no response close without one (a fault or
    /// an upstream failure withheld it).
    pub(crate) fn finish(self) {
        for pending in self.pending {
            pending.recorder.withheld();
        }
    }

    /// The exchange broke off (the client went away): open requests are marked cancelled.
    pub(crate) fn abandon(self) {
        drop(self);
    }

    /// Closes the single request with the error a fault answered.
    pub(crate) fn faulted_with(&mut self, response: &Value) {
        if let Some(pending) = self.pending.pop() {
            pending.recorder.relayed(response, None, None);
        }
    }
}

fn text(headers: &HeaderMap, name: &str) -> Option<String> {
    headers
        .get(name)
        .and_then(|v| v.to_str().ok())
        .map(|v| v.trim().to_string())
}
