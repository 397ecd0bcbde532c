//! `initialize`, through the same stages as any request: record, admit (its version header),
//! plan (faults on `initialize`: no session yet, so no expiry, and a JSON or one-event
//! answer), run (the handshake in `methods::lifecycle`), outcome (the answer, with the new
//! session's id for the transport to hand out).

use std::sync::Arc;

use serde_json::Value;

use super::Inbound;
use super::outcome::{Framing, Outcome, Reply};
use super::plan::{self, Setting};
use crate::engine::Engine;
use crate::engine::capture::{Arrival, Recorder};
use crate::engine::methods::lifecycle::{self, Hello};
use crate::engine::methods::replay;
use crate::engine::protocol::Status;
use crate::engine::protocol::era::versions_list;
use crate::engine::protocol::jsonrpc::{self, RpcError, code};
use crate::engine::protocol::message::Message;
use crate::engine::protocol::method::INITIALIZE;
use crate::log::RpcKind;
use crate::spec::Fault;

pub(crate) async fn answer(
    engine: &Arc<Engine>,
    inbound: &Inbound,
    id: &Value,
    params: Value,
    message: Message,
) -> Outcome {
    // Params read as a handshake stay in the message, as text; they become a value only for
    // faults, which may match on them.
    let hello = message.handshake().map(Hello::of_handshake);
    let params = match message.handshake() {
        Some(handshake) if !engine.faults.is_empty() => handshake.value().clone(),
        _ => params,
    };
    let arrival = Arrival {
        text: inbound.text.clone(),
        params: Some(&params),
        ..Arrival::new(
            inbound.exchange,
            inbound.transport,
            RpcKind::Request,
            Some(INITIALIZE),
            message,
        )
    };
    let record = Recorder::arrived(engine, arrival);
    if let Some(sent) = inbound.version_header() {
        if !engine.versions.iter().any(|v| v.as_str() == sent.trim()) {
            let error = RpcError::new(
                code::INVALID_REQUEST,
                format!(
                    "unsupported MCP-Protocol-Version header `{sent}`: this server supports {}",
                    versions_list(&engine.versions)
                ),
            );
            let response = jsonrpc::error(id, &error);
            record.answered(&response, None);
            return Outcome::json(Status::BadRequest, response);
        }
    }
    let setting = Setting {
        session: false,
        stream: false,
        byte_stream: !inbound.transport.is_http(),
        modern: false,
    };
    let plan = plan::rules(engine, INITIALIZE, &params, setting);
    plan.note(&record);
    if let Some(delay) = plan.delay {
        tokio::time::sleep(delay).await;
    }
    if let Some(Fault::Http {
        status,
        body,
        headers,
    }) = &plan.fault
    {
        record.withheld();
        return Outcome::Status {
            status: *status,
            body: body.clone(),
            headers: headers.clone(),
        };
    }
    if let Some(error) = plan.refusal() {
        let response = jsonrpc::error(id, &error);
        record.answered(&response, None);
        return Outcome::in_mode(response);
    }
    let hello = hello.unwrap_or_else(|| Hello::of_params(params));
    match hello.and_then(|hello| lifecycle::initialize(engine, hello, inbound.transport)) {
        Ok((initialized, session)) => {
            engine.expiry.opened(
                &session.id,
                engine.clock.now(),
                engine.limits.max_sessions,
                |id| engine.sessions.get(id).is_some(),
            );
            // With no fault to shape it and no cassette to fit it to, the answer is written
            // once, as text, which the record shares and the transport sends.
            if plan.fault.is_none()
                && engine.replay().is_none()
                && let Ok(text) = initialized.response_text(id)
            {
                let text = record.answered_text(text, Some(&session));
                return Outcome::Written {
                    text,
                    opened: Some(session.id.clone()),
                    framing: Framing::Mode,
                };
            }
            let mut result = serde_json::to_value(&initialized).unwrap_or_default();
            if let (Some(player), Some(result)) = (engine.replay(), result.as_object_mut()) {
                replay::handshake(player, result);
            }
            let mut response = jsonrpc::result(id, result);
            plan.rewrite(&mut response);
            let text = match plan.shown(&response, false) {
                Some(std::borrow::Cow::Borrowed(shown)) => record.answered(shown, Some(&session)),
                Some(shown) => record.answered(&shown, Some(&session)).and(None),
                None => {
                    record.withheld();
                    None
                }
            };
            let framing = if plan.fault.is_some() {
                Framing::Plain
            } else {
                Framing::Mode
            };
            Outcome::Reply(Reply {
                status: Status::Ok,
                body: response,
                framing,
                opened: Some(session.id.clone()),
                fault: plan.fault.map(|fault| (fault, session)),
                text,
            })
        }
        Err(error) => {
            let response = jsonrpc::error(id, &error);
            record.answered(&response, None);
            // A modern-only server fails a legacy handshake as header validation would, so a
            // client falls back or gives up (2026-07-28 versioning, "Backward compatibility").
            if engine.versions.iter().all(|v| v.is_modern()) {
                return Outcome::json(Status::BadRequest, response);
            }
            Outcome::in_mode(response)
        }
    }
}
