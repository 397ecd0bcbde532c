//! One 2026-07-28 request: checked against its `_meta` (and, over Streamable HTTP, its
//! headers) by `protocol::modern`, then answered by the same handlers as a legacy request,
//! in a detached session that lives as long as the request. `subscriptions/listen` is
//! answered with its stream.

use std::sync::Arc;

use serde_json::Value;

use super::outcome::{Listening, Outcome, Status};
use super::resolve::{Received, Target};
use super::run;
use super::{Inbound, invalid, kind_of, params_of};
use crate::engine::Engine;
use crate::engine::capture::{Arrival, Recorder};
use crate::engine::methods::listen::{self, Refused};
use crate::engine::protocol::jsonrpc::{self, Incoming, RpcError, code};
use crate::engine::protocol::message::Message;
use crate::engine::protocol::method::Method;
use crate::engine::protocol::modern::{self, Declared, Served};
use crate::engine::state::session::Session;
use crate::log::Transport;

pub(crate) async fn message(
    engine: &Arc<Engine>,
    inbound: &Inbound,
    mut message: Message,
) -> Outcome {
    let requested = message
        .member("params")
        .and_then(|p| jsonrpc::member(p, "_meta"))
        .and_then(|m| jsonrpc::member(m, modern::META_VERSION))
        .and_then(Value::as_str)
        .map(str::to_string)
        .or_else(|| inbound.version_header().map(|v| v.trim().to_string()));
    let classified = jsonrpc::classify_taking(&mut message);
    let (kind, method) = kind_of(&classified);
    let arrival = Arrival {
        modern_version: Some(requested.as_deref().unwrap_or("")),
        text: inbound.text.clone(),
        params: params_of(&classified),
        ..Arrival::new(inbound.exchange, inbound.transport, kind, method, message)
    };
    let record = Recorder::arrived(engine, arrival);
    let refuse = |record: Recorder, status: Status, id: &Value, error: RpcError| {
        let response = jsonrpc::error(id, &error);
        record.answered(&response, None);
        Outcome::json(status, response)
    };
    match classified {
        // Header rules for notifications are undefined; accept them (transport page).
        Incoming::Notification { .. } => {
            record.done();
            Outcome::Accepted
        }
        Incoming::Response { id } => refuse(
            record,
            Status::BadRequest,
            &id,
            RpcError::new(
                code::INVALID_REQUEST,
                "Invalid request: a 2026-07-28 server sends no requests, so clients POST no responses",
            ),
        ),
        Incoming::Invalid { id, reason } => {
            refuse(record, Status::BadRequest, &id, invalid(&reason))
        }
        Incoming::Request { id, method, params } => {
            let kind = Method::parse(&method);
            let target = Target::of(engine, kind, &params);
            let declared = match admit(engine, inbound, &method, &params, &target) {
                Ok(declared) => declared,
                Err((status, error)) => {
                    let error = modern::explain_initialize(&engine.versions, &method, error);
                    return refuse(record, status, &id, error);
                }
            };
            let session = session_for(engine, &declared, inbound.transport);
            if kind == Some(Method::SubscriptionsListen) {
                return listen_answer(engine, inbound, session, record, id, &params);
            }
            let request = Received::new(engine, session, record, (id, method, params), target);
            run::serve(engine, inbound, request, false).await
        }
    }
}

/// The checks of `protocol::modern`, with what this server serves.
fn admit(
    engine: &Engine,
    inbound: &Inbound,
    method: &str,
    params: &Value,
    target: &Target,
) -> Result<Declared, modern::Refusal> {
    let asking = match target {
        Target::Prompt(prompt) => Some(("prompt", prompt.name.as_str(), prompt.script.as_slice())),
        Target::Template(template) => Some((
            "resource template",
            template.uri_template.as_str(),
            template.script.as_slice(),
        )),
        Target::Call(_) | Target::Nothing => None,
    };
    let declares_method = if method.starts_with("prompts/") {
        engine.serves_prompts()
    } else if method.starts_with("resources/") {
        engine.serves_resources()
    } else if method.starts_with("tasks/") {
        engine.serves_tasks()
    } else {
        true
    };
    let served = Served {
        versions: &engine.versions,
        tool: target.tool().map(|tool| &**tool),
        asking,
        declares_method,
        routing_headers: !engine.spec().lenient_routing_headers,
    };
    modern::check(served, inbound.headers.as_ref(), method, params)
}

/// The detached session of one modern request.
fn session_for(engine: &Engine, declared: &Declared, transport: Transport) -> Arc<Session> {
    let session = engine.sessions.detached(
        declared.version,
        declared.client_info.clone().into(),
        declared.capabilities.clone().into(),
        transport,
    );
    session.log_only_at(declared.log_level);
    session
}

/// `subscriptions/listen`: an event stream whatever the response mode, since its answer is
/// the stream (`methods::listen`). The listen request's record gets the listen response when
/// the server ends the stream, or is marked cancelled when the client closes it (2026-07-28
/// cancellation).
fn listen_answer(
    engine: &Arc<Engine>,
    inbound: &Inbound,
    session: Arc<Session>,
    record: Recorder,
    id: Value,
    params: &Value,
) -> Outcome {
    let refuse = |record: Recorder, status: Status, error: RpcError| {
        let response = jsonrpc::error(&id, &error);
        record.answered(&response, None);
        Outcome::json(status, response)
    };
    if !inbound.accepts_stream {
        return refuse(
            record,
            Status::NotAcceptable,
            RpcError::new(
                code::INVALID_REQUEST,
                "subscriptions/listen answers with an event stream: send `Accept: application/json, text/event-stream`",
            ),
        );
    }
    match listen::open(engine, &id, params) {
        Ok(subscription) => Outcome::Listen(Box::new(Listening {
            session,
            subscription,
            record,
        })),
        Err(Refused::Invalid(error)) => refuse(record, Status::Ok, error),
        Err(Refused::Missing(error)) => refuse(record, Status::BadRequest, error),
        Err(Refused::Busy(error)) => refuse(record, Status::Unavailable, error),
    }
}
