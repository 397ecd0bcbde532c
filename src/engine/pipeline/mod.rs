//! The one path every JSON-RPC message takes, whatever carried it. A transport adapter
//! hands the pipeline a parsed message and an [`Inbound`] (what the transport knows besides
//! the body); the pipeline answers with an [`Outcome`]. In between, each message goes
//! through the same stages:
//!
//! 1. **record**: a [`Recorder`] per message, which cannot be
//!    forgotten: its drop closes the record.
//! 2. **admit**: the era ([`protocol::modern::is_modern`](super::protocol::modern::is_modern)),
//!    then the legacy session ([`admit`]) or the 2026-07-28 `_meta` and header rules
//!    ([`stateless`]); `initialize` ([`initialize`]) and batches ([`batch`](mod@batch)) are admitted
//!    here too.
//! 3. **resolve** ([`resolve`]): what the request names, looked up once (the tool, its
//!    arguments, whether the call becomes a task); every later stage reads this value.
//! 4. **plan** ([`plan`]): fault rules, argument checks and the tool response, decided
//!    together, a pure function of the resolved request and the counters.
//! 5. **run** ([`run`]): the plan's delay, cancellation, and the method's handler
//!    (`methods`).
//! 6. **outcome** ([`outcome`]): a JSON answer, an event stream, a refusal, a status that a
//!    fault chose, or nothing; the transport's render step turns it into bytes.
//!
//! The pipeline knows no transport: the only trace of one is the headers map in [`Inbound`],
//! which a transport without headers leaves out. It must not touch sockets, bodies or
//! status codes.

pub(crate) mod admit;
pub(crate) mod batch;
pub(crate) mod initialize;
pub(crate) mod legacy;
pub(crate) mod outcome;
pub(crate) mod plan;
pub(crate) mod resolve;
pub(crate) mod run;
pub(crate) mod stateless;

use std::sync::Arc;

use http::HeaderMap;
use serde_json::Value;

use super::Engine;
use super::capture::{Arrival, ExchangeId, Recorder};
use super::methods::Principal;
use super::protocol::jsonrpc::{self, Incoming, RpcError, code};
use super::protocol::message::Message;
use super::protocol::{McpHeaders, Status, modern};
use super::state::session::Session;
use crate::log::{Json, RpcKind, Transport};
pub(crate) use outcome::Outcome;

/// What a transport knows of one incoming message besides its body.
#[derive(Debug, Default)]
pub(crate) struct Inbound {
    /// The transport's record that carried the message, for linking in the capture.
    pub(crate) exchange: Option<ExchangeId>,
    /// What carried it, as the capture names it.
    pub(crate) transport: Transport,
    /// The transport's headers (Streamable HTTP); `None` for a transport without any, where
    /// only the rules of the message itself apply.
    pub(crate) headers: Option<HeaderMap>,
    /// The two MCP headers among `headers`, noted as the transport read them; `None` with
    /// `headers`.
    pub(crate) mcp: Option<McpHeaders>,
    /// Who the credentials say sent the request (set by the guards).
    pub(crate) principal: Option<Principal>,
    /// The answer may be an event stream (the client accepts `text/event-stream`; a byte
    /// stream always can carry one).
    pub(crate) accepts_stream: bool,
    /// The legacy session a transport without headers holds for its peer (a byte stream has
    /// one session at a time, opened by its `initialize`).
    pub(crate) session: Option<String>,
    /// The text of the one message the request carried, as the transport's capture keeps
    /// it: the message's record shares it instead of writing the message out again.
    pub(crate) text: Option<Json>,
}

impl Inbound {
    /// The legacy session the message names (`Mcp-Session-Id`, or the byte stream's own).
    pub(crate) fn named_session(&self) -> Option<&str> {
        match &self.mcp {
            Some(mcp) => mcp.session.as_ref()?.to_str().ok(),
            None => self.session.as_deref(),
        }
    }

    fn names_a_session(&self) -> bool {
        match &self.mcp {
            Some(mcp) => mcp.session.is_some(),
            None => self.session.is_some(),
        }
    }

    /// The `MCP-Protocol-Version` header, when the transport has headers and it is text.
    pub(crate) fn version_header(&self) -> Option<&str> {
        self.mcp.as_ref()?.version.as_ref()?.to_str().ok()
    }
}

/// Answers one message (not a batch).
pub(crate) async fn message(engine: &Arc<Engine>, inbound: &Inbound, message: Message) -> Outcome {
    if modern::is_modern(&engine.versions, &message, inbound.mcp.as_ref()) {
        stateless::message(engine, inbound, message).await
    } else {
        legacy::message(engine, inbound, message).await
    }
}

/// Answers a JSON array: a batch, in 2025-03-26 sessions only.
pub(crate) async fn batch(
    engine: &Arc<Engine>,
    inbound: &Inbound,
    messages: Vec<Value>,
) -> Outcome {
    batch::answer(engine, inbound, messages).await
}

/// A body that is not JSON: recorded as the text it is, answered with a parse error.
pub(crate) fn unparsable(
    engine: &Arc<Engine>,
    inbound: &Inbound,
    text: String,
    reason: &str,
) -> Outcome {
    let arrival = Arrival {
        named_session: inbound.named_session(),
        ..Arrival::new(
            inbound.exchange,
            inbound.transport,
            RpcKind::Invalid,
            None,
            Message::Other(Value::String(text)),
        )
    };
    Recorder::arrived(engine, arrival).done();
    refused(
        Status::BadRequest,
        code::PARSE_ERROR,
        &format!("Parse error: the body is not valid JSON ({reason})"),
    )
}

/// An id-less JSON-RPC error, as the transports page allows for refusals.
pub(crate) fn refused(status: Status, code: i64, message: &str) -> Outcome {
    Outcome::json(
        status,
        jsonrpc::error(&Value::Null, &RpcError::new(code, message)),
    )
}

/// Records a legacy message as it arrived.
fn record(
    engine: &Arc<Engine>,
    inbound: &Inbound,
    session: Option<&Session>,
    classified: &Incoming,
    message: Message,
) -> Recorder {
    let (kind, method) = kind_of(classified);
    let arrival = Arrival {
        session,
        named_session: inbound.named_session(),
        text: inbound.text.clone(),
        params: params_of(classified),
        ..Arrival::new(inbound.exchange, inbound.transport, kind, method, message)
    };
    Recorder::arrived(engine, arrival)
}

/// A request's or a notification's `params` (which `classify_taking` moves out of the
/// message).
fn params_of(classified: &Incoming) -> Option<&Value> {
    match classified {
        Incoming::Request { params, .. } | Incoming::Notification { params, .. } => Some(params),
        Incoming::Response { .. } | Incoming::Invalid { .. } => None,
    }
}

fn kind_of(classified: &Incoming) -> (RpcKind, Option<&str>) {
    match classified {
        Incoming::Request { method, .. } => (RpcKind::Request, Some(method.as_str())),
        Incoming::Notification { method, .. } => (RpcKind::Notification, Some(method.as_str())),
        Incoming::Response { .. } => (RpcKind::Response, None),
        Incoming::Invalid { .. } => (RpcKind::Invalid, None),
    }
}

/// The `Invalid request` error of a message that is no JSON-RPC message.
fn invalid(reason: &str) -> RpcError {
    RpcError::new(code::INVALID_REQUEST, format!("Invalid request: {reason}"))
}

#[cfg(test)]
mod tests {
    //! The pipeline without a transport: what a byte-stream adapter (stdio) will see. No
    //! HTTP types here, only messages in and outcomes out.

    use super::*;
    use crate::log::Entry;
    use crate::spec::{Fault, FaultRule, ServerSpec, ToolSpec};
    use serde_json::json;

    fn engine(faults: Vec<FaultRule>) -> Arc<Engine> {
        let spec = ServerSpec {
            tools: vec![ToolSpec::echo()],
            faults,
            ..ServerSpec::new("seam")
        };
        Engine::for_tests(spec)
    }

    fn call(id: u64) -> Value {
        json!({
            "jsonrpc": "2.0", "id": id, "method": "tools/call",
            "params": {
                "name": "echo", "arguments": { "message": "hi" },
                "_meta": {
                    "io.modelcontextprotocol/protocolVersion": "2026-07-28",
                    "io.modelcontextprotocol/clientCapabilities": {},
                },
            },
        })
    }

    fn reply(outcome: Outcome) -> Value {
        match outcome {
            Outcome::Reply(reply) => reply.body,
            Outcome::Written { text, .. } => text.into_value(),
            other => panic!("expected a JSON reply, got {other:?}"),
        }
    }

    #[tokio::test]
    async fn a_stateless_call_runs_without_any_transport_and_is_recorded() {
        let engine = engine(Vec::new());
        let inbound = Inbound::default();

        let answer = reply(message(&engine, &inbound, call(1).into()).await);

        assert_eq!(answer["id"], 1);
        assert_eq!(answer["result"]["content"][0]["text"], "hi");
        assert_eq!(answer["result"]["resultType"], "complete");
        let records = engine.log.records();
        let Some(Entry::Mcp(record)) = records.last().map(|r| &r.entry) else {
            panic!("no mcp record: {records:?}");
        };
        assert_eq!(record.method.as_deref(), Some("tools/call"));
        assert_eq!(record.response.as_deref(), Some(&answer));
        assert_eq!(record.end, Some(crate::log::RequestEnd::Answered));
    }

    #[tokio::test]
    async fn a_fault_rule_answers_through_the_same_stages_without_http() {
        let rule = FaultRule::on_method("tools/call")
            .times(1)
            .fault(Fault::error(-32001, "busy"));
        let engine = engine(vec![rule]);
        let inbound = Inbound::default();

        let first = reply(message(&engine, &inbound, call(1).into()).await);
        let second = reply(message(&engine, &inbound, call(2).into()).await);

        assert_eq!(first["error"]["code"], -32001);
        assert_eq!(second["result"]["content"][0]["text"], "hi");
        assert_eq!(
            engine.catalog.calls("echo"),
            2,
            "a refused call still reached the tool"
        );
    }
}
