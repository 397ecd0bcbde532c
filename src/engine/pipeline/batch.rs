//! JSON-RPC batches: allowed in 2025-03-26 sessions only (removed in 2025-06-18). Each
//! message of a batch goes through the same stages as one sent alone (record, plan, run with
//! cancellation), answered as JSON; a fault that shapes the whole answer applies to the
//! batch (the first one that fired).

use std::sync::Arc;

use serde_json::Value;

use super::outcome::Outcome;
use super::plan::{self, Setting, spans_body};
use super::resolve::{Received, Target};
use super::run::{Pending, View};
use super::{Inbound, admit, invalid, record, refused};
use crate::engine::Engine;
use crate::engine::protocol::Status;
use crate::engine::protocol::jsonrpc::{self, Incoming, RpcError, code};
use crate::engine::protocol::message::Message;
use crate::engine::protocol::method::{INITIALIZE, Method};
use crate::engine::{capture, methods};
use crate::spec::Fault;

pub(crate) async fn answer(engine: &Arc<Engine>, inbound: &Inbound, batch: Vec<Value>) -> Outcome {
    let expired = admit::expire_if_due(engine, inbound);
    let session = match admit::session(engine, inbound) {
        Ok(session) => Some(session),
        // A named session that has ended (404) or a bad version header (400) is refused as
        // for a single message; only a missing id falls through to the batch refusal below.
        Err((status, error)) if inbound.names_a_session() => {
            for message in batch {
                let message = Message::from(message);
                let classified = jsonrpc::classify(&message);
                let record = record(engine, inbound, None, &classified, message);
                if expired.is_some() {
                    record.faulted(expired.clone(), None);
                }
                record.answered(&jsonrpc::error(&Value::Null, &error), None);
            }
            return Outcome::json(status, jsonrpc::error(&Value::Null, &error));
        }
        Err(_) => None,
    };
    let refusal = match &session {
        _ if batch.is_empty() => Some("Invalid request: an empty JSON array is not a batch".to_string()),
        Some(s) if s.version.allows_batches() => None,
        Some(s) => Some(format!(
            "Invalid request: JSON-RPC batches are not supported in protocol version {} (batching was removed in 2025-06-18); send one message per POST",
            s.version
        )),
        None => Some("Invalid request: a batch can only be sent in an initialized 2025-03-26 session; initialize must be sent alone".to_string()),
    };
    if let Some(reason) = refusal {
        for message in batch {
            let message = Message::from(message);
            let classified = jsonrpc::classify(&message);
            let record = record(engine, inbound, session.as_deref(), &classified, message);
            let response = jsonrpc::error(
                &Value::Null,
                &RpcError::new(code::INVALID_REQUEST, reason.clone()),
            );
            record.answered(&response, None);
        }
        return refused(Status::BadRequest, code::INVALID_REQUEST, &reason);
    }
    let Some(session) = session else {
        return refused(Status::BadRequest, code::INVALID_REQUEST, "no session");
    };
    let mut responses = Vec::new();
    let mut whole: Option<Fault> = None;
    for message in batch {
        let message = Message::from(message);
        let classified = jsonrpc::classify(&message);
        let reply =
            matches!(classified, Incoming::Response { .. }).then(|| message.clone().into_value());
        let record = record(engine, inbound, Some(&session), &classified, message);
        match classified {
            Incoming::Request { id, method, .. } if method == INITIALIZE => {
                let response = jsonrpc::error(
                    &id,
                    &RpcError::new(
                        code::INVALID_REQUEST,
                        "Invalid request: initialize must not be part of a JSON-RPC batch",
                    ),
                );
                record.answered(&response, None);
                responses.push(response);
            }
            Incoming::Request { id, method, params } => {
                engine.expiry.counted(&session.id);
                let setting = Setting {
                    session: true,
                    stream: false,
                    byte_stream: !inbound.transport.is_http(),
                    modern: false,
                };
                let target = Target::of(engine, Method::parse(&method), &params);
                let request = Received::new(
                    engine,
                    session.clone(),
                    record,
                    (id, method, params),
                    target,
                );
                let plan = plan::plan(engine, &request, setting);
                plan.note(&request.record);
                let fault = plan.fault.clone();
                let pending = Pending::new(engine, inbound, request, plan);
                // A batch's answers all travel in one JSON body; a cancelled request has none.
                // Boxed, as in `run::serve`: a batch is rare, its state need not size every request.
                let Some(response) = Box::pin(pending.run(View::Batch)).await else {
                    continue;
                };
                if matches!(fault, Some(Fault::DuplicateResponse)) {
                    responses.push(response.clone());
                }
                if let Some(fault) = fault.filter(spans_body) {
                    whole.get_or_insert(fault);
                }
                responses.push(response);
            }
            Incoming::Notification { method, params } => {
                record.done();
                if let Some(id) = methods::notification(&session, &method, &params) {
                    capture::cancelled_after_hang_up(engine, &session.id, id);
                }
            }
            Incoming::Response { id } => {
                record.done();
                if let Some(message) = reply {
                    session.deliver_reply(&id, message);
                }
            }
            Incoming::Invalid { id, reason } => {
                let response = jsonrpc::error(&id, &invalid(&reason));
                record.answered(&response, None);
                responses.push(response);
            }
        }
    }
    match whole {
        None if responses.is_empty() => Outcome::Accepted,
        None => Outcome::json(Status::Ok, Value::Array(responses)),
        Some(Fault::Http {
            status,
            body,
            headers,
        }) => Outcome::Status {
            status,
            body,
            headers,
        },
        Some(Fault::ExpireSession) => {
            engine.sessions.remove(&session.id);
            refused(
                Status::NotFound,
                code::SESSION_NOT_FOUND,
                "Session not found: the session ended (expire_session fault); send initialize without an Mcp-Session-Id header to start a new session",
            )
        }
        Some(fault) => Outcome::faulty(Value::Array(responses), Some(fault), &session),
    }
}
