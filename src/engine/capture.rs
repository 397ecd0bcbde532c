//! The recorder of JSON-RPC messages: one [`Recorder`] per message a client sends, whose
//! drop closes the record (with why no answer came, [`RequestEnd`]), and [`sent`] for each
//! message the server writes on a stream. The only writer of `mcp` records; the transport's
//! own exchange records (`http`) come from its adapter.
//!
//! A message or response larger than the log's cut (`log::clip`, 8 KiB of JSON text) is
//! recorded as a cut copy with `truncated` set; the pipeline and the client keep the whole
//! value. What a later check needs from the whole value is taken here, before the cut: a
//! truncated `tools/call`'s arguments are checked against its tool's `inputSchema`.

use std::sync::Arc;
use std::time::Instant;

use serde_json::Value;

use super::Engine;
use super::protocol::jsonrpc;
use super::protocol::message::Message;
use super::state::session::Session;
use crate::log::{
    ArgumentError, Direction, Entry, Era, Json, MAX_CAPTURED_BYTES, RequestEnd, RpcKind,
    RpcMessage, Transport, clip_json, clip_json_noting, clip_text,
};

/// The id of the transport record (an HTTP exchange) that carried a message, for linking.
#[derive(Debug, Clone, Copy)]
pub(crate) struct ExchangeId(pub(crate) u64);

pub(crate) fn millis(since: Instant) -> f64 {
    since.elapsed().as_secs_f64() * 1000.0
}

/// What the transport knows about a client message when it records it.
pub(crate) struct Arrival<'a> {
    pub(crate) exchange: Option<ExchangeId>,
    pub(crate) transport: Transport,
    pub(crate) session: Option<&'a Session>,
    /// The `Mcp-Session-Id` the request named, recorded even when no live session has it,
    /// so a client that keeps using an ended session shows which one.
    pub(crate) named_session: Option<&'a str>,
    /// For a 2026-07-28 request: the version it asked for (there is no session).
    pub(crate) modern_version: Option<&'a str>,
    pub(crate) kind: RpcKind,
    pub(crate) method: Option<&'a str>,
    pub(crate) message: Message,
    /// `message` as the client sent it, when the transport kept that text whole.
    pub(crate) text: Option<Json>,
    /// The `params` that classifying moved out of `message` ([`jsonrpc::classify_taking`]).
    pub(crate) params: Option<&'a Value>,
}

impl<'a> Arrival<'a> {
    /// A message outside any session; callers set what else they know.
    pub(crate) fn new(
        exchange: Option<ExchangeId>,
        transport: Transport,
        kind: RpcKind,
        method: Option<&'a str>,
        message: Message,
    ) -> Self {
        Arrival {
            exchange,
            transport,
            session: None,
            named_session: None,
            modern_version: None,
            kind,
            method,
            message,
            text: None,
            params: None,
        }
    }
}

/// The record of one message from the client, open until its answer is known. Each way a
/// message can end is one method that consumes the recorder; a recorder dropped before any of
/// them ran (the handler's future was dropped with its connection) ends the record as a
/// closed connection does in its era, so no branch can leave a request's record without its
/// end.
#[derive(Debug)]
pub(crate) struct Recorder {
    engine: Arc<Engine>,
    id: u64,
    started: Instant,
    open: bool,
    /// A 2026-07-28 request, whose client cancels by closing its stream.
    modern: bool,
}

/// What a request's params name: a tool or prompt (`name`), a resource (`uri`), or a task
/// (`taskId`: `log.mcp().method("tasks/get").name(id)` finds its polls), in that order, read
/// in one pass over the params rather than three lookups by name.
fn named(params: &Value) -> Option<&str> {
    let mut found: [Option<&Value>; 3] = [None; 3];
    for (key, value) in params.as_object()? {
        match key.as_str() {
            "name" => found[0] = Some(value),
            "uri" => found[1] = Some(value),
            "taskId" => found[2] = Some(value),
            _ => {}
        }
    }
    found.into_iter().flatten().next()?.as_str()
}

impl Recorder {
    /// Records a message from the client.
    pub(crate) fn arrived(engine: &Arc<Engine>, mut arrival: Arrival<'_>) -> Recorder {
        let started = Instant::now();
        let name = arrival
            .params
            .or_else(|| arrival.message.member("params"))
            .and_then(named)
            .map(str::to_string);
        // The log keeps only a cut copy of a large call's arguments, so
        // `assert_valid_arguments` could not check them later: check the whole ones now.
        // A schema that does not compile is left to that later check, which reports it.
        let mut argument_errors = Vec::new();
        let tool_call = arrival.method == Some("tools/call");
        // Text within the cut is kept as it is, shared, not written out again; otherwise the
        // message is written from its value, whole again.
        let text = arrival
            .text
            .take()
            .filter(|text| text.text_len() <= MAX_CAPTURED_BYTES);
        if let (None, Some(params)) = (&text, arrival.params) {
            jsonrpc::restore_params(&mut arrival.message, params);
        }
        let (message, mut truncated) = match text {
            Some(text) => (text, false),
            None => clip_json_noting(&arrival.message.into_value(), |full| {
                let Some(tool) = name.as_deref().filter(|_| tool_call) else {
                    return;
                };
                // As the plan reads them: a missing or ill-typed `arguments` is an empty object.
                let empty = Value::Object(Default::default());
                let arguments = full
                    .get("params")
                    .and_then(|p| p.get("arguments"))
                    .filter(|a| a.is_object())
                    .unwrap_or(&empty);
                if let Some(Ok(errors)) = engine.argument_violations(tool, arguments) {
                    argument_errors = errors;
                }
            }),
        };
        let (method, cut) = clip_opt(arrival.method.map(str::to_string));
        truncated |= cut;
        let (name, cut) = clip_opt(name);
        truncated |= cut;
        let id = engine.log.push_from(
            engine.source,
            Entry::Mcp(RpcMessage {
                kind: arrival.kind,
                direction: Direction::ClientToServer,
                method,
                name,
                session: arrival
                    .session
                    .map(|s| s.id.clone())
                    .or_else(|| arrival.named_session.map(str::to_string)),
                protocol_version: arrival
                    .modern_version
                    .map(str::to_string)
                    .or_else(|| arrival.session.map(|s| s.version.as_str().to_string())),
                era: Some(if arrival.modern_version.is_some() {
                    Era::Modern
                } else {
                    Era::Legacy
                }),
                transport: arrival.transport,
                carried_by: arrival.exchange.map(|e| e.0),
                message,
                response: None,
                duration_ms: None,
                end: None,
                fault: None,
                response_index: None,
                argument_errors,
                truncated,
            }),
        );
        Recorder {
            engine: engine.clone(),
            id,
            started,
            open: true,
            modern: arrival.modern_version.is_some(),
        }
    }

    fn close(mut self, edit: impl FnOnce(&mut RpcMessage, f64)) {
        self.open = false;
        let duration = millis(self.started);
        self.engine.log.update(self.id, |entry| {
            if let Entry::Mcp(m) = entry {
                edit(m, duration);
            }
        });
    }

    /// Attaches the response; `opened` is the session the request opened (`initialize`).
    /// Gives back the response's JSON text when the record kept it whole, so a transport
    /// can send those bytes instead of writing the response out again.
    pub(crate) fn answered(self, response: &Value, opened: Option<&Session>) -> Option<Json> {
        let (response, truncated) = clip_json(response);
        let whole = (!truncated).then(|| response.clone());
        self.close_answered(response, truncated, opened);
        whole
    }

    /// [`answered`](Self::answered) for a response the pipeline wrote as text: the record
    /// shares the text unless it is over the log's cut. Gives the whole text back, to send.
    pub(crate) fn answered_text(self, text: Vec<u8>, opened: Option<&Session>) -> Json {
        self.answered_written(text, opened, |whole| clip_json(whole.value()))
    }

    /// [`answered_text`](Self::answered_text) for a success response written from its
    /// `value`, which builds the response as a value only when the text is over the log's
    /// cut, to cut it (reading the text back would parse all of it).
    pub(crate) fn answered_result(self, text: Vec<u8>, value: impl FnOnce() -> Value) -> Json {
        self.answered_written(text, None, |_| clip_json(&value()))
    }

    fn answered_written(
        self,
        text: Vec<u8>,
        opened: Option<&Session>,
        cut: impl FnOnce(&Json) -> (Json, bool),
    ) -> Json {
        let whole = Json::from_text(text);
        if whole.text_len() <= MAX_CAPTURED_BYTES {
            self.close_answered(whole.clone(), false, opened);
        } else {
            let (cut, truncated) = cut(&whole);
            self.close_answered(cut, truncated, opened);
        }
        whole
    }

    fn close_answered(self, response: Json, truncated: bool, opened: Option<&Session>) {
        self.close(|m, duration| {
            m.response = Some(response);
            m.truncated |= truncated;
            m.duration_ms = Some(duration);
            m.end = Some(RequestEnd::Answered);
            if let Some(session) = opened {
                m.session = Some(session.id.clone());
                m.protocol_version = Some(session.version.as_str().to_string());
            }
        });
    }

    /// Attaches a response that a relay's upstream sent; `session` and `version` are what an
    /// upstream `initialize` opened (`Mcp-Session-Id`, `protocolVersion`).
    #[cfg(feature = "relay")]
    pub(crate) fn relayed(
        self,
        response: &Value,
        session: Option<String>,
        version: Option<String>,
    ) {
        let (response, truncated) = clip_json(response);
        self.close(|m, duration| {
            m.response = Some(response);
            m.truncated |= truncated;
            m.duration_ms = Some(duration);
            m.end = Some(RequestEnd::Answered);
            if session.is_some() {
                m.session = session;
            }
            if version.is_some() {
                m.protocol_version = version;
            }
        });
    }

    /// Sets the revision a relayed request ran under (its `MCP-Protocol-Version` header).
    #[cfg(feature = "relay")]
    pub(crate) fn versioned(&self, version: String) {
        self.engine.log.update(self.id, |entry| {
            if let Entry::Mcp(m) = entry {
                m.protocol_version = Some(version);
            }
        });
    }

    /// Closes a request's record that got no response the client could read (a fault
    /// withheld it): the server ended it.
    pub(crate) fn withheld(self) {
        self.ended(RequestEnd::EndedByServer);
    }

    /// Closes the record of a request that ends without a response, saying why.
    pub(crate) fn ended(self, why: RequestEnd) {
        self.close(|m, duration| {
            m.end = Some(why);
            m.duration_ms = Some(duration);
        });
    }

    /// Closes the record of a message that is never answered (a notification, a response
    /// of the client) as it is.
    pub(crate) fn done(mut self) {
        self.open = false;
    }

    /// Names the faults that fired for the request (`label`, see `Fault::label`) and the
    /// tool response that answered it.
    pub(crate) fn faulted(&self, label: Option<String>, response_index: Option<usize>) {
        self.engine.log.update(self.id, |entry| {
            if let Entry::Mcp(m) = entry {
                m.fault = label;
                m.response_index = response_index;
            }
        });
    }
}

impl Recorder {
    /// Lists how the request's arguments break its tool's `inputSchema` (the plan found them).
    pub(crate) fn invalid_arguments(&self, errors: &[ArgumentError]) {
        self.engine.log.update(self.id, |entry| {
            if let Entry::Mcp(m) = entry {
                m.argument_errors = errors.to_vec();
            }
        });
    }
}

impl Drop for Recorder {
    fn drop(&mut self) {
        if self.open {
            // The handler's future went with its connection: the server's own stop, or the
            // client's hang-up, which only 2026-07-28 counts as a cancellation.
            let why = if self.engine.is_stopping() {
                RequestEnd::EndedByServer
            } else if self.modern {
                RequestEnd::CancelledByClient
            } else {
                RequestEnd::ConnectionClosed
            };
            let duration = millis(self.started);
            self.engine.log.update(self.id, |entry| {
                if let Entry::Mcp(m) = entry {
                    // A cancellation that arrived as the connection closed already said so.
                    m.end.get_or_insert(why);
                    m.duration_ms = Some(duration);
                }
            });
        }
    }
}

/// How far back [`cancelled_after_hang_up`] looks for the request a `notifications/cancelled`
/// names: cancellations are rare, and this bounds what a flood of them can cost.
const CANCEL_LOOKBACK: usize = 1_000;

/// A legacy `notifications/cancelled` (already recorded) names request `id` of `session`,
/// which was no longer being handled: if its connection had closed first (or is closing
/// now, its record not yet ended), the client did cancel it after all. A request still
/// being handled is ended by its handler instead, after this notification; one answered
/// meanwhile keeps its answer.
pub(crate) fn cancelled_after_hang_up(engine: &Engine, session: &str, id: &Value) {
    engine.log.update_newest(
        engine.source,
        CANCEL_LOOKBACK,
        |entry| match entry {
            Entry::Mcp(m) => {
                m.kind == RpcKind::Request
                    && m.direction == Direction::ClientToServer
                    && m.session.as_deref() == Some(session)
                    && m.rpc_id() == Some(id)
            }
            Entry::Http(_) => false,
        },
        |entry| {
            if let Entry::Mcp(m) = entry
                && matches!(m.end, None | Some(RequestEnd::ConnectionClosed))
            {
                m.end = Some(RequestEnd::CancelledByClient);
            }
        },
    );
}

/// Where a message the server sent on a stream belongs: its session (none for a
/// 2026-07-28 request), revision and transport.
pub(crate) struct Sent<'a> {
    pub(crate) session: Option<&'a str>,
    pub(crate) version: Option<&'a str>,
    pub(crate) modern: bool,
    pub(crate) transport: Transport,
}

/// Records a message the server sent on a stream.
pub(crate) fn sent(
    engine: &Engine,
    session: &Session,
    exchange: Option<ExchangeId>,
    message: &Value,
) {
    let modern = session.version.is_modern();
    let on = Sent {
        // A 2026-07-28 request's detached session is no session the client knows.
        session: (!modern).then_some(session.id.as_str()),
        version: Some(session.version.as_str()),
        modern,
        transport: session.transport,
    };
    sent_on(engine, &on, exchange, message);
}

/// Records a message a server sent on a stream: a mock's session or a relay's upstream.
pub(crate) fn sent_on(
    engine: &Engine,
    on: &Sent<'_>,
    exchange: Option<ExchangeId>,
    message: &Value,
) {
    let method = message
        .get("method")
        .and_then(Value::as_str)
        .map(str::to_string);
    // A response on a stream answers a request whose record already holds it.
    if method.is_none() {
        return;
    }
    let (message, mut truncated) = clip_json(message);
    let (method, cut) = clip_opt(method);
    truncated |= cut;
    let kind = if message.get("id").is_some() {
        RpcKind::Request
    } else {
        RpcKind::Notification
    };
    engine.log.push_from(
        engine.source,
        Entry::Mcp(RpcMessage {
            kind,
            direction: Direction::ServerToClient,
            method,
            name: None,
            session: on.session.map(str::to_string),
            protocol_version: on.version.map(str::to_string),
            era: Some(if on.modern { Era::Modern } else { Era::Legacy }),
            transport: on.transport,
            carried_by: exchange.map(|e| e.0),
            message,
            response: None,
            duration_ms: None,
            end: None,
            fault: None,
            response_index: None,
            argument_errors: Vec::new(),
            truncated,
        }),
    );
}

/// [`clip_text`] of an optional text.
fn clip_opt(text: Option<String>) -> (Option<String>, bool) {
    match text.map(clip_text) {
        Some((text, cut)) => (Some(text), cut),
        None => (None, false),
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::spec::ServerSpec;
    use serde_json::json;

    /// A `tools/call` of session `s-1` as it arrives.
    fn request(engine: &Arc<Engine>, id: &str) -> Recorder {
        let message = json!({ "jsonrpc": "2.0", "id": id, "method": "tools/call",
            "params": { "name": "slow" } });
        let arrival = Arrival {
            named_session: Some("s-1"),
            ..Arrival::new(
                None,
                Transport::Http,
                RpcKind::Request,
                Some("tools/call"),
                message.into(),
            )
        };
        Recorder::arrived(engine, arrival)
    }

    fn end_of(engine: &Engine) -> Option<RequestEnd> {
        engine.log.records().iter().find_map(|r| match &r.entry {
            Entry::Mcp(m) => m.end,
            Entry::Http(_) => None,
        })
    }

    #[test]
    fn a_hang_up_is_no_cancellation_until_a_notification_names_it() {
        let engine = Engine::for_tests(ServerSpec::new("s"));
        drop(request(&engine, "a"));
        assert_eq!(end_of(&engine), Some(RequestEnd::ConnectionClosed));

        cancelled_after_hang_up(&engine, "s-1", &json!("other"));
        assert_eq!(end_of(&engine), Some(RequestEnd::ConnectionClosed));
        cancelled_after_hang_up(&engine, "s-1", &json!("a"));
        assert_eq!(end_of(&engine), Some(RequestEnd::CancelledByClient));
    }

    // The notification can be handled between the request leaving the session's in-flight
    // set and its recorder's drop: the drop must not undo it.
    #[test]
    fn a_cancellation_as_the_connection_closes_stays_a_cancellation() {
        let engine = Engine::for_tests(ServerSpec::new("s"));
        let record = request(&engine, "b");
        cancelled_after_hang_up(&engine, "s-1", &json!("b"));
        drop(record);
        assert_eq!(end_of(&engine), Some(RequestEnd::CancelledByClient));
    }

    #[test]
    fn an_answer_wins_over_a_cancellation_that_came_too_late() {
        let engine = Engine::for_tests(ServerSpec::new("s"));
        let record = request(&engine, "c");
        cancelled_after_hang_up(&engine, "s-1", &json!("c"));
        record.answered(&json!({ "jsonrpc": "2.0", "id": "c", "result": {} }), None);
        assert_eq!(end_of(&engine), Some(RequestEnd::Answered));
    }
}
