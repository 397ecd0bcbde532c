//! The run stage: a planned request is answered early by its fault (an HTTP status, the
//! session's end), or run: the plan's delay, then its handler, until it answers or is
//! stopped (`notifications/cancelled`, closing a 2026-07-28 stream, the session's end). Its
//! outcome is a JSON answer or a stream of the session that the handler writes to from its
//! own task.

use std::sync::Arc;

use serde_json::Value;

use super::Inbound;
use super::admit::session_gone;
use super::outcome::{Framing, Outcome, Shape, Status, Streamed};
use super::plan::{self, Plan, Setting};
use super::resolve::{Received, Target};
use crate::engine::Engine;
use crate::engine::methods::{self, Principal, RequestCtx, discover};
use crate::engine::protocol::jsonrpc;
use crate::engine::protocol::method::Method;
use crate::engine::state::outbox::Outbox;
use crate::engine::state::session::Session;
use crate::log::Json;
use crate::spec::{Fault, ProtocolVersion, ResponseMode, Step};

/// Plans the request, answers the faults that replace the handler, and otherwise runs it,
/// answering as JSON or on a stream; `legacy_session` tells a legacy session's request from
/// a 2026-07-28 one (detached session).
pub(crate) async fn serve(
    engine: &Arc<Engine>,
    inbound: &Inbound,
    request: Received,
    legacy_session: bool,
) -> Outcome {
    let setting = Setting {
        session: legacy_session,
        stream: inbound.accepts_stream,
        byte_stream: !inbound.transport.is_http(),
        modern: request.session.version.is_modern(),
    };
    let plan = plan::plan(engine, &request, setting);
    plan.note(&request.record);
    if plan.answers_early() {
        return early(engine, request, &plan).await;
    }
    let pending = Pending::new(engine, inbound, request, plan);
    if pending.wants_stream(inbound) {
        pending.stream()
    } else {
        // Boxed: the JSON answer's state would otherwise size every request's future,
        // whatever the method, and every layer above would carry it (benches/README.md,
        // "Smaller request futures").
        Box::pin(pending.json()).await
    }
}

/// The faults answered before the handler runs, after the plan's delay. A `tools/call`
/// stopped here still counts as a call of its tool (it reached the server).
async fn early(engine: &Engine, request: Received, plan: &Plan) -> Outcome {
    if let Some(delay) = plan.delay {
        tokio::time::sleep(delay).await;
    }
    count_tool_call(engine, &request.target);
    match &plan.fault {
        Some(Fault::ExpireSession) => {
            engine.sessions.remove(&request.session.id);
            let response = jsonrpc::error(&request.id, &session_gone(&request.session.id));
            request.record.answered(&response, None);
            Outcome::json(Status::NotFound, response)
        }
        Some(Fault::Http {
            status,
            body,
            headers,
        }) => {
            request.record.withheld();
            Outcome::Status {
                status: *status,
                body: body.clone(),
                headers: headers.clone(),
            }
        }
        // `answers_early` holds only for the two above.
        _ => Outcome::Accepted,
    }
}

/// Counts a `tools/call` of a served tool that a fault answered instead of the tool.
fn count_tool_call(engine: &Engine, target: &Target) {
    if let Some(tool) = target.tool() {
        engine.catalog.count_call(&tool.name);
    }
}

/// Where a request's answer goes, which decides what the capture shows of it.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub(crate) enum View {
    /// Its own JSON body.
    Json,
    /// An event of this stream of the session.
    Stream(u64),
    /// One entry of a batch's body: a fault that breaks the body breaks the whole batch, so
    /// the entry is recorded as the handler made it.
    Batch,
}

/// A request's answer, as [`Pending::answer`] leaves it.
enum Answer {
    /// The response, with its text when the record kept it whole.
    Value(Value, Option<Json>),
    /// A JSON answer no fault shapes, written as text (the record shares it).
    Written(Json),
}

impl Answer {
    fn into_value(self) -> Value {
        match self {
            Answer::Value(response, _) => response,
            Answer::Written(text) => text.into_value(),
        }
    }
}

/// A request of a session, received and planned, not yet answered.
#[derive(Debug)]
pub(crate) struct Pending {
    engine: Arc<Engine>,
    request: Received,
    plan: Plan,
    principal: Option<Principal>,
}

impl Pending {
    pub(crate) fn new(
        engine: &Arc<Engine>,
        inbound: &Inbound,
        request: Received,
        plan: Plan,
    ) -> Pending {
        Pending {
            engine: engine.clone(),
            request,
            plan,
            principal: inbound.principal.clone(),
        }
    }

    /// Runs the handler until it answers or the request is stopped (the client cancelled
    /// it, its session ended); `None` when stopped, and then nothing is sent
    /// (basic/utilities/cancellation page: receivers "SHOULD NOT send a response"). Dropped
    /// before either, the recorder ends the request as its era reads a closed connection:
    /// in 2026-07-28 that is how a client cancels, in a legacy session it is a hang-up.
    pub(crate) async fn run(self, view: View) -> Option<Value> {
        self.answer(view).await.map(Answer::into_value)
    }

    /// [`run`](Self::run), with the response's text when a JSON answer's record kept it whole.
    async fn answer(self, view: View) -> Option<Answer> {
        let Pending {
            engine,
            request,
            mut plan,
            principal,
        } = self;
        let Received {
            session,
            id,
            method,
            params,
            record,
            target,
        } = request;
        let refusal = plan.refusal();
        if refusal.is_some() {
            count_tool_call(&engine, &target);
        }
        let call = match target {
            Target::Call(call) => Some(call),
            _ => None,
        };
        let cancelled = session.begin_request(&id);
        // Unregisters on every path, including a JSON-mode handler dropped with its connection.
        let _in_flight = InFlight {
            session: &session,
            id: &id,
        };
        let stream = match view {
            View::Stream(stream) => Some(stream),
            View::Json | View::Batch => None,
        };
        let ctx = RequestCtx {
            engine: engine.clone(),
            session: session.clone(),
            id: id.clone(),
            params,
            outbox: Outbox::new(session.clone(), stream),
            call,
            chosen: plan.chosen.take(),
            principal,
        };
        let delay = plan.delay;
        // The delay sits inside the cancellable part: a client that gives up on a slow
        // request and cancels it sees it cancelled, as for a slow handler.
        let work = async {
            if let Some(delay) = delay {
                tokio::time::sleep(delay).await;
            }
            match refusal {
                Some(error) => Err(error),
                None => methods::request(&ctx, &method).await,
            }
        };
        let outcome = tokio::select! {
            outcome = work => Ok(outcome),
            why = cancelled.fired() => Err(why),
        };
        let outcome = match outcome {
            Ok(outcome) => outcome,
            Err(why) => {
                record.ended(why);
                return None;
            }
        };
        let outcome = match outcome {
            Ok(result) if session.version.is_modern() => {
                Ok(discover::finish_result(&engine, &method, result))
            }
            other => other,
        };
        let mut response = match outcome {
            // With no fault to shape it, a JSON answer is written once, as text, which the
            // record shares and the transport sends.
            Ok(result) if matches!(view, View::Json) && plan.fault.is_none() => {
                let text = jsonrpc::result_text(&id, &result);
                let text = record.answered_result(text, || jsonrpc::result(&id, result));
                return Some(Answer::Written(text));
            }
            Ok(result) => jsonrpc::result(&id, result),
            Err(error) => jsonrpc::error(&id, &error),
        };
        plan.rewrite(&mut response);
        // The capture shows what the client could read, not what the handler made.
        let text = match view {
            View::Batch => record.answered(&response, None).and(None),
            View::Json => plan.record(record, &response, false),
            View::Stream(_) => plan.record(record, &response, true).and(None),
        };
        Some(Answer::Value(response, text))
    }

    /// Whether to answer on an event stream: the server is in SSE mode, or the call's script
    /// sends messages that must arrive before the result; and the client accepts streams.
    fn wants_stream(&self, inbound: &Inbound) -> bool {
        if !inbound.accepts_stream {
            return false;
        }
        if self.engine.spec.response_mode == ResponseMode::Sse || self.plan.needs_stream() {
            return true;
        }
        let request = &self.request;
        if let Some(player) = self.engine.replay() {
            return player.talks(&request.method, &request.params);
        }
        let modern = request.session.version.is_modern();
        // In 2026-07-28 an ask becomes an input_required result, not a message.
        let talks = request
            .target
            .script()
            .iter()
            .any(|step| step.talks() && !(modern && matches!(step, Step::Ask { .. })));
        // A waiting `tasks/result` carries the task's requests to the client (2025-11-25
        // "Input Required Status").
        talks || (Method::parse(&request.method) == Some(Method::TasksResult) && !modern)
    }

    async fn json(self) -> Outcome {
        let fault = self.plan.fault.clone();
        let session = self.request.session.clone();
        match self.answer(View::Json).await {
            Some(Answer::Written(text)) => Outcome::Written {
                text,
                opened: None,
                framing: Framing::Plain,
            },
            Some(Answer::Value(response, text)) if fault.is_none() => {
                Outcome::json_with_text(Status::Ok, response, text)
            }
            Some(Answer::Value(response, _)) => Outcome::faulty(response, fault, &session),
            // Cancelled: the request still needs an answer, and it carries no result.
            None => Outcome::Accepted,
        }
    }

    /// Answers on a new stream of the session: a priming event (2025-11-25), the messages the
    /// handler sends, then the response. The handler runs on its own task, so a dropped
    /// connection does not stop it and the client can resume with `Last-Event-ID`.
    fn stream(self) -> Outcome {
        let session = self.request.session.clone();
        let fault = self.plan.fault.as_ref();
        let mut shape = Shape::of(fault);
        let mut delivery = Delivery::of(fault);
        let mut hang = None;
        if delivery == Delivery::Held {
            hang = self.engine.faults.hang_permit();
            if hang.is_none() {
                // Too many hang already: this stream ends without its response instead.
                (shape, delivery) = (Shape::Normal, Delivery::Dropped);
            }
        }
        let stream = session.open_stream();
        // SSE polling needs an event id to resume from, whatever the legacy revision.
        let polled = matches!(shape, Shape::Poll { .. }) && !session.version.is_modern();
        if session.version == ProtocolVersion::V2025_11_25 || polled {
            session.push(stream, None);
        }
        let Ok(reader) = session.attach(stream, None) else {
            return super::refused(
                Status::Internal,
                jsonrpc::code::INVALID_REQUEST,
                "the stream vanished",
            );
        };
        let writer = session.clone();
        tokio::spawn(async move {
            if let Some(response) = self.run(View::Stream(stream)).await {
                match delivery {
                    Delivery::Once => writer.push(stream, Some(response)),
                    Delivery::Twice => {
                        writer.push(stream, Some(response.clone()));
                        writer.push(stream, Some(response));
                    }
                    Delivery::Dropped | Delivery::Held => {}
                }
            }
            if delivery != Delivery::Held {
                writer.finish_stream(stream);
            }
        });
        Outcome::Stream(Streamed {
            session,
            reader,
            shape,
            hang,
        })
    }
}

/// What happens to the response of a request answered on an event stream.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
enum Delivery {
    /// Pushed once, and the stream ends.
    Once,
    /// Pushed twice (two events, two ids), and the stream ends.
    Twice,
    /// Never pushed; the stream ends (truncated).
    Dropped,
    /// Never pushed; the stream stays open (hanging).
    Held,
}

impl Delivery {
    fn of(fault: Option<&Fault>) -> Delivery {
        match fault {
            Some(Fault::DuplicateResponse) => Delivery::Twice,
            Some(Fault::TruncatedStream | Fault::Exit { .. }) => Delivery::Dropped,
            Some(Fault::HangingStream) => Delivery::Held,
            _ => Delivery::Once,
        }
    }
}

struct InFlight<'a> {
    session: &'a Session,
    id: &'a Value,
}

impl Drop for InFlight<'_> {
    fn drop(&mut self) {
        self.session.end_request(self.id);
    }
}
