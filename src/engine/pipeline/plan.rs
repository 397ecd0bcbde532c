//! The plan stage: what happens to one request on its way to its answer, decided before it
//! runs and from nothing but the request (as resolved: `resolve`) and the server's counters.
//! The first server-level fault rule that fires decides; else, for `tools/call`, arguments
//! that break the tool's schema, or the tool response that answers (`state::responses`). The plan carries a delay, a [`Fault`] and the chosen response; the
//! run stage applies the delay, the render step of the transport applies the fault.
//!
//! No transport types here, so every fault decision is testable without a socket.

use std::borrow::Cow;
use std::time::Duration;

use serde_json::{Value, json};

use super::resolve::{self, Received};
use crate::engine::capture::Recorder;
use crate::engine::methods::tools::Call;
use crate::engine::protocol::garble;
use crate::engine::protocol::jsonrpc::RpcError;
use crate::engine::state::responses::Chosen;
use crate::engine::{Engine, arguments};
use crate::log::{ArgumentError, Json};
use crate::spec::Fault;

/// How far a [`Fault::WrongId`] moves a numeric id: far past any id a test client uses.
const WRONG_ID_OFFSET: i64 = 1_000_000;

/// Where a request is answered, which decides the faults that can apply to it.
#[derive(Debug, Clone, Copy)]
pub(crate) struct Setting {
    /// A legacy session the request belongs to (`ExpireSession` needs one).
    pub(crate) session: bool,
    /// The answer can be an event stream (`NotificationFlood`, `SsePolling` need one).
    pub(crate) stream: bool,
    /// The request came over a byte stream (`Exit`, `SplitMessage`, `StderrFlood` need one).
    pub(crate) byte_stream: bool,
    /// A 2026-07-28 request, whose result has a `resultType` to leave out.
    pub(crate) modern: bool,
}

/// What happens to one request on its way to its answer.
#[derive(Debug, Default)]
pub(crate) struct Plan {
    pub(crate) fault: Option<Fault>,
    pub(crate) delay: Option<Duration>,
    /// For `tools/call`: the tool response that answers.
    pub(crate) chosen: Option<Chosen>,
    /// For `tools/call` on a server that validates arguments: the tool, and how the
    /// arguments break its `inputSchema`; the call is refused with `-32602`.
    pub(crate) invalid: Option<(String, Vec<ArgumentError>)>,
}

/// The plan of a request that no tool answers (`initialize`, a relayed request): the
/// server-level fault rules only.
pub(crate) fn rules(engine: &Engine, method: &str, params: &Value, setting: Setting) -> Plan {
    fired(engine, method, params, resolve::matched(params)).fit(setting)
}

/// Decides the plan of one request, counting it in the rules it matches and, for
/// `tools/call`, in the tool response chosen. A rule's fault stops the request before the
/// tool, so no tool response is used up by it; nor by a call the handler will refuse.
pub(crate) fn plan(engine: &Engine, request: &Received, setting: Setting) -> Plan {
    let call = request.target.call();
    let args = call
        .and_then(Call::matched_arguments)
        .unwrap_or_else(|| resolve::matched(&request.params));
    let mut plan = fired(engine, &request.method, &request.params, args);
    if let Some(call) = call.filter(|_| plan.fault.is_none()) {
        plan.tool_call(engine, call);
    }
    plan.fit(setting)
}

/// The first server-level rule that fires: its fault and delay.
fn fired(engine: &Engine, method: &str, params: &Value, args: &Value) -> Plan {
    let mut plan = Plan::default();
    if let Some(rule) = engine.faults.fire(&engine.responses, method, params, args) {
        plan.fault = rule.fault;
        plan.delay = rule
            .delay
            .map(|delay| engine.responses.resolve_delay(&delay));
    }
    plan
}

impl Plan {
    /// A call's own decisions: arguments that break the tool's `inputSchema` (on a server
    /// that validates them), else the tool response that answers.
    fn tool_call(&mut self, engine: &Engine, call: &Call) {
        let (Ok(tool), Ok(args)) = (&call.tool, &call.arguments) else {
            return;
        };
        // A schema that cannot be compiled (a remote `$ref`) checks nothing rather than
        // refuse every call.
        if engine.spec().validate_arguments {
            let errors = arguments::violations(engine, tool, args).unwrap_or_default();
            if !errors.is_empty() {
                self.invalid = Some((tool.name.clone(), errors));
                return;
            }
        }
        if call.is_refused() {
            return;
        }
        if let Some(chosen) = engine.responses.choose(&engine.catalog, tool, args) {
            self.fault = chosen.fault.clone();
            self.delay = match (self.delay, chosen.delay) {
                (Some(a), Some(b)) => Some(a.saturating_add(b)),
                (a, b) => a.or(b),
            };
            self.chosen = Some(chosen);
        }
    }

    /// A fault that cannot happen here does not fire (and is not named in the capture).
    fn fit(mut self, setting: Setting) -> Plan {
        self.fault = self.fault.filter(|fault| match fault {
            Fault::ExpireSession => setting.session,
            Fault::NotificationFlood { .. } | Fault::SsePolling { .. } => setting.stream,
            Fault::Exit { .. } | Fault::SplitMessage { .. } | Fault::StderrFlood { .. } => {
                setting.byte_stream
            }
            Fault::OmitResultType => setting.modern,
            _ => true,
        });
        self
    }

    /// Whether anything fired.
    pub(crate) fn is_quiet(&self) -> bool {
        self.fault.is_none() && self.delay.is_none() && self.chosen.is_none()
    }

    /// `delay 120 ms, http 503`: what fired, as the capture shows it.
    pub(crate) fn label(&self) -> Option<String> {
        let delay = self.delay.map(|d| format!("delay {} ms", d.as_millis()));
        let fault = self.fault.as_ref().map(Fault::label);
        match (delay, fault) {
            (Some(d), Some(f)) => Some(format!("{d}, {f}")),
            (d, f) => d.or(f),
        }
    }

    /// Names what fired on the request's record.
    pub(crate) fn note(&self, record: &Recorder) {
        if !self.is_quiet() {
            record.faulted(self.label(), self.chosen.as_ref().map(|c| c.index));
        }
        if let Some((_, errors)) = &self.invalid {
            record.invalid_arguments(errors);
        }
    }

    /// The answer must go on an event stream (when the client accepts one).
    pub(crate) fn needs_stream(&self) -> bool {
        matches!(
            self.fault,
            Some(Fault::NotificationFlood { .. } | Fault::SsePolling { .. })
        )
    }

    /// The fault answers before the handler runs: an HTTP status, or the session's end.
    pub(crate) fn answers_early(&self) -> bool {
        matches!(self.fault, Some(Fault::Http { .. } | Fault::ExpireSession))
    }

    /// The JSON-RPC error that replaces the handler, for [`Fault::Error`] or arguments that
    /// break the tool's `inputSchema` (`-32602` naming each pointer, listed in `data` too).
    pub(crate) fn refusal(&self) -> Option<RpcError> {
        if let Some((tool, errors)) = &self.invalid {
            return Some(
                RpcError::invalid_params(arguments::message(tool, errors))
                    .with_data(json!({ "argumentErrors": errors })),
            );
        }
        match &self.fault {
            Some(Fault::Error {
                code,
                message,
                data,
            }) => {
                let error = RpcError::new(*code, message.clone());
                Some(match data {
                    Some(data) => error.with_data(data.clone()),
                    None => error,
                })
            }
            _ => None,
        }
    }

    /// Changes the response itself ([`Fault::WrongId`], [`Fault::OmitResultType`]).
    pub(crate) fn rewrite(&self, response: &mut Value) {
        match self.fault {
            Some(Fault::WrongId) => {
                if let Some(id) = response.get_mut("id") {
                    *id = wrong_id(id);
                }
            }
            Some(Fault::OmitResultType) => {
                if let Some(result) = response.get_mut("result").and_then(Value::as_object_mut) {
                    result.remove("resultType");
                }
            }
            _ => {}
        }
    }

    /// What the capture records as the response: what the client could read. `None` when
    /// the fault kept it from the client; the broken text for a broken JSON body.
    pub(crate) fn shown<'r>(&self, response: &'r Value, streamed: bool) -> Option<Cow<'r, Value>> {
        let broken = |text: String| Some(Cow::Owned(Value::String(text)));
        match (&self.fault, streamed) {
            (Some(Fault::HangingStream), _) | (Some(Fault::TruncatedStream), true) => None,
            (Some(Fault::CloseConnection), false) | (Some(Fault::Exit { .. }), _) => None,
            (Some(Fault::MalformedJson), _) => broken(garble::malformed(response)),
            (Some(Fault::TruncatedStream), false) => broken(garble::half(response)),
            _ => Some(Cow::Borrowed(response)),
        }
    }

    /// Records the response as the client can read it (or that it was withheld); gives back
    /// its text when that is the response itself, kept whole.
    pub(crate) fn record(
        &self,
        record: Recorder,
        response: &Value,
        streamed: bool,
    ) -> Option<Json> {
        match self.shown(response, streamed) {
            Some(Cow::Borrowed(shown)) => record.answered(shown, None),
            Some(shown) => {
                record.answered(&shown, None);
                None
            }
            None => {
                record.withheld();
                None
            }
        }
    }
}

/// Whether a fault shapes the whole answer (a status, a broken body, a hang, the session's
/// end) rather than one JSON-RPC response: in a batch it applies to the batch.
pub(crate) fn spans_body(fault: &Fault) -> bool {
    matches!(
        fault,
        Fault::Http { .. }
            | Fault::MalformedJson
            | Fault::TruncatedStream
            | Fault::CloseConnection
            | Fault::HangingStream
            | Fault::ExpireSession
            | Fault::Exit { .. }
    )
}

/// An id the client never used: a number moved far away, or a string with a suffix.
fn wrong_id(id: &Value) -> Value {
    match id {
        Value::Number(n) => match n.as_i64() {
            Some(n) => json!(n.wrapping_add(WRONG_ID_OFFSET)),
            None => json!(format!("{n}-wrong")),
        },
        Value::String(s) => json!(format!("{s}-wrong")),
        _ => json!("wrong"),
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn wrong_ids_differ_from_the_ones_sent() {
        assert_eq!(wrong_id(&json!(7)), json!(1_000_007));
        assert_eq!(wrong_id(&json!("a")), json!("a-wrong"));
    }

    #[test]
    fn labels_name_the_delay_then_the_fault() {
        let plan = Plan {
            fault: Some(Fault::http(503)),
            delay: Some(Duration::from_millis(120)),
            ..Plan::default()
        };
        assert_eq!(plan.label().as_deref(), Some("delay 120 ms, http 503"));
    }
}
