//! One message of a legacy session (2025-03-26 … 2025-11-25): `initialize` opens a session,
//! everything else names one. Requests go on to the plan and run stages; notifications and
//! the client's responses are handled here and answered with nothing.

use std::sync::Arc;

use serde_json::Value;

use super::outcome::Outcome;
use super::resolve::{Received, Target};
use super::run;
use super::{Inbound, admit, initialize, invalid, record};
use crate::engine::Engine;
use crate::engine::protocol::Status;
use crate::engine::protocol::jsonrpc::{self, Incoming};
use crate::engine::protocol::message::Message;
use crate::engine::protocol::method::{INITIALIZE, Method};
use crate::engine::{capture, methods};

pub(crate) async fn message(
    engine: &Arc<Engine>,
    inbound: &Inbound,
    mut message: Message,
) -> Outcome {
    let classified = match jsonrpc::classify_leaving_handshake(&mut message) {
        Incoming::Request { id, method, params } if method == INITIALIZE => {
            return initialize::answer(engine, inbound, &id, params, message).await;
        }
        classified => classified,
    };
    let expired = admit::expire_if_due(engine, inbound);
    let session = match admit::session(engine, inbound) {
        Ok(session) => session,
        Err((status, error)) => {
            let record = record(engine, inbound, None, &classified, message);
            if expired.is_some() {
                record.faulted(expired, None);
            }
            return match classified {
                Incoming::Request { id, .. } | Incoming::Invalid { id, .. } => {
                    let response = jsonrpc::error(&id, &error);
                    record.answered(&response, None);
                    Outcome::json(status, response)
                }
                _ => {
                    record.done();
                    Outcome::json(status, jsonrpc::error(&Value::Null, &error))
                }
            };
        }
    };
    let reply =
        matches!(classified, Incoming::Response { .. }).then(|| message.clone().into_value());
    let record = record(engine, inbound, Some(&session), &classified, message);
    match classified {
        Incoming::Request { id, method, params } => {
            engine.expiry.counted(&session.id);
            let target = Target::of(engine, Method::parse(&method), &params);
            let request = Received::new(engine, session, record, (id, method, params), target);
            run::serve(engine, inbound, request, true).await
        }
        Incoming::Notification { method, params } => {
            record.done();
            if let Some(id) = methods::notification(&session, &method, &params) {
                capture::cancelled_after_hang_up(engine, &session.id, id);
            }
            Outcome::Accepted
        }
        Incoming::Response { id } => {
            record.done();
            if let Some(message) = reply {
                if !session.deliver_reply(&id, message) {
                    tracing::debug!(%id, "a response for no pending server request");
                }
            }
            Outcome::Accepted
        }
        Incoming::Invalid { id, reason } => {
            let response = jsonrpc::error(&id, &invalid(&reason));
            record.answered(&response, None);
            Outcome::json(Status::BadRequest, response)
        }
    }
}
