//! Misbehaviour on purpose, decided per request: the only place faults are decided.
//!
//! Before a POSTed request is answered the transport asks for a [`Plan`]: the first
//! server-level [`FaultRule`] that fires for it, else (for `tools/call`) the tool response
//! that `responses::choose` picks. The plan carries a delay, a [`Fault`] and the chosen
//! response; the transport applies them with the helpers here (early HTTP answers, JSON
//! bodies that break, event-stream shapes) and the capture names what fired.
//!
//! Also here: session expiry (`ServerSpec::session_expiry`), measured in requests or on the
//! engine's clock, and the bound on hanging requests.

use std::collections::HashMap;
use std::sync::atomic::{AtomicU64, AtomicUsize, Ordering};
use std::sync::{Arc, Mutex, MutexGuard, RwLock};
use std::time::{Duration, SystemTime};

use axum::body::{Body, Bytes};
use axum::http::{HeaderMap, HeaderName, HeaderValue, StatusCode, header};
use axum::response::{IntoResponse, Response};
use serde_json::{Value, json};

use super::Engine;
use super::capture::{self, Unbuffered};
use super::http::SESSION_HEADER;
use super::jsonrpc::{self, RpcError, code};
use super::responses::{self, Chosen};
use super::session::Session;
use crate::error::Error;
use crate::spec::{Fault, FaultRule, SessionExpiry};

/// The most notifications one [`Fault::NotificationFlood`] sends.
pub(crate) const MAX_FLOOD: u32 = 100_000;

/// The most requests hanging at once ([`Fault::HangingStream`]); past it a hang is refused
/// (JSON: `503`; event stream: it ends without the response), so a client that never
/// closes cannot pile up connections without end.
const MAX_HANGING: usize = 1_000;

/// How far a [`Fault::WrongId`] moves a numeric id: far past any id a test client uses.
const WRONG_ID_OFFSET: i64 = 1_000_000;

/// Rules one server may have: a test that adds rules in a loop must stay bounded.
pub(crate) const MAX_RULES: usize = 1_000;

fn too_many_rules(count: usize) -> Error {
    Error::InvalidConfig {
        field: "faults",
        reason: format!("{count} fault rules; a server has at most {MAX_RULES}"),
    }
}

/// One server's fault state: its rules with their counters, the ages of its sessions (only
/// when sessions expire) and the hanging requests.
#[derive(Debug)]
pub(crate) struct Faults {
    rules: RwLock<Vec<Arc<Rule>>>,
    expiry: Option<SessionExpiry>,
    ages: Mutex<HashMap<String, Age>>,
    hanging: Arc<AtomicUsize>,
}

#[derive(Debug)]
struct Rule {
    spec: FaultRule,
    /// Matching requests seen so far (skipped, fired and let through alike).
    seen: AtomicU64,
}

/// What session expiry needs to know of a session.
#[derive(Debug, Clone, Copy)]
struct Age {
    /// `initialize`, by the engine's clock.
    born: SystemTime,
    /// Requests served in the session, `initialize` not counted.
    requests: u64,
}

impl Faults {
    pub(crate) fn new(rules: &[FaultRule], expiry: Option<SessionExpiry>) -> Self {
        Faults {
            rules: RwLock::new(rules.iter().cloned().map(Rule::new).collect()),
            expiry,
            ages: Mutex::default(),
            hanging: Arc::default(),
        }
    }

    fn read(&self) -> std::sync::RwLockReadGuard<'_, Vec<Arc<Rule>>> {
        self.rules.read().unwrap_or_else(|p| p.into_inner())
    }

    fn write(&self) -> std::sync::RwLockWriteGuard<'_, Vec<Arc<Rule>>> {
        self.rules.write().unwrap_or_else(|p| p.into_inner())
    }

    fn ages(&self) -> MutexGuard<'_, HashMap<String, Age>> {
        self.ages.lock().unwrap_or_else(|p| p.into_inner())
    }

    /// Adds a rule after the others (checked first by [`check_rule`]), unless the server
    /// already has [`MAX_RULES`].
    pub(crate) fn add(&self, rule: FaultRule) -> Result<(), Error> {
        let mut rules = self.write();
        if rules.len() >= MAX_RULES {
            return Err(too_many_rules(rules.len() + 1));
        }
        rules.push(Rule::new(rule));
        Ok(())
    }

    /// Removes every rule.
    pub(crate) fn clear(&self) {
        self.write().clear();
    }

    /// The rules as they are now.
    pub(crate) fn rules(&self) -> Vec<FaultRule> {
        self.read().iter().map(|r| r.spec.clone()).collect()
    }

    /// Forgets what a restart forgets: the rules' counters and the sessions' ages.
    pub(crate) fn reset(&self) {
        let mut rules = self.write();
        *rules = rules.iter().map(|r| Rule::new(r.spec.clone())).collect();
        drop(rules);
        self.ages().clear();
    }
}

impl Rule {
    fn new(spec: FaultRule) -> Arc<Rule> {
        Arc::new(Rule {
            spec,
            seen: AtomicU64::new(0),
        })
    }

    fn matches(&self, engine: &Engine, method: &str, params: &Value) -> bool {
        let spec = &self.spec;
        if spec.method.as_deref().is_some_and(|m| m != method) {
            return false;
        }
        if let Some(tool) = &spec.tool {
            if method != "tools/call" || params.get("name").and_then(Value::as_str) != Some(tool) {
                return false;
            }
        }
        match &spec.when {
            Some(matcher) => responses::matches(engine, matcher, arguments(params)),
            None => true,
        }
    }

    /// Counts a matching request in; whether the rule fires for it.
    fn fires(&self) -> bool {
        let n = self.seen.fetch_add(1, Ordering::Relaxed);
        n >= self.spec.skip
            && self
                .spec
                .times
                .is_none_or(|times| n - self.spec.skip < times)
    }
}

fn arguments(params: &Value) -> &Value {
    static EMPTY: std::sync::LazyLock<Value> = std::sync::LazyLock::new(|| json!({}));
    match params.get("arguments") {
        Some(args @ Value::Object(_)) => args,
        _ => &EMPTY,
    }
}

/// Where a request is answered, which decides the faults that can apply to it.
#[derive(Debug, Clone, Copy)]
pub(crate) struct Setting {
    /// A legacy session the request belongs to (`ExpireSession` needs one).
    pub(crate) session: bool,
    /// The answer can be an event stream (`NotificationFlood`, `SsePolling` need one).
    pub(crate) stream: bool,
}

/// What happens to one request on its way to its answer.
#[derive(Debug, Default)]
pub(crate) struct Plan {
    pub(crate) fault: Option<Fault>,
    pub(crate) delay: Option<Duration>,
    /// For `tools/call`: the tool response that answers.
    pub(crate) chosen: Option<Chosen>,
}

/// Decides the plan of one request, counting it in the rules it matches and, for
/// `tools/call`, in the tool response chosen. The first rule that fires decides (the rules
/// after it do not see the request); a rule's fault stops the request before the tool, so no
/// tool response is used up by it.
pub(crate) fn plan(engine: &Engine, method: &str, params: &Value, setting: Setting) -> Plan {
    let mut plan = Plan::default();
    {
        let rules = engine.faults.read();
        if let Some(rule) = rules
            .iter()
            .find(|rule| rule.matches(engine, method, params) && rule.fires())
        {
            plan.fault = rule.spec.fault.clone();
            plan.delay = rule
                .spec
                .delay
                .map(|delay| responses::resolve_delay(engine, &delay));
        }
    }
    if plan.fault.is_none() && method == "tools/call" {
        let tool = params
            .get("name")
            .and_then(Value::as_str)
            .and_then(|name| engine.catalog.tools.get(name));
        if let Some(tool) = tool.filter(|tool| !tool.responses.is_empty()) {
            if let Some(chosen) = responses::choose(engine, &tool, arguments(params)) {
                plan.fault = chosen.fault.clone();
                plan.delay = match (plan.delay, chosen.delay) {
                    (Some(a), Some(b)) => Some(a.saturating_add(b)),
                    (a, b) => a.or(b),
                };
                plan.chosen = Some(chosen);
            }
        }
    }
    // A fault that cannot happen here does not fire (and is not named in the capture).
    plan.fault = plan.fault.filter(|fault| match fault {
        Fault::ExpireSession => setting.session,
        Fault::NotificationFlood { .. } | Fault::SsePolling { .. } => setting.stream,
        _ => true,
    });
    plan
}

impl Plan {
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

    /// The answer must go on an event stream (when the client accepts one).
    pub(crate) fn needs_stream(&self) -> bool {
        matches!(
            self.fault,
            Some(Fault::NotificationFlood { .. } | Fault::SsePolling { .. })
        )
    }

    /// The JSON-RPC error that replaces the handler, for [`Fault::Error`].
    pub(crate) fn refusal(&self) -> Option<RpcError> {
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

    /// Changes the response itself ([`Fault::WrongId`]).
    pub(crate) fn rewrite(&self, response: &mut Value) {
        if matches!(self.fault, Some(Fault::WrongId)) {
            if let Some(id) = response.get_mut("id") {
                *id = wrong_id(id);
            }
        }
    }

    /// What the capture records as the response: what the client could read. `None` when
    /// the fault kept it from the client; the broken text for a broken JSON body.
    pub(crate) fn shown(&self, response: &Value, streamed: bool) -> Option<Value> {
        match (&self.fault, streamed) {
            (Some(Fault::HangingStream), _) | (Some(Fault::TruncatedStream), true) => None,
            (Some(Fault::CloseConnection), false) => None,
            (Some(Fault::MalformedJson), _) => Some(Value::String(malformed(response))),
            (Some(Fault::TruncatedStream), false) => Some(Value::String(half(response))),
            _ => Some(response.clone()),
        }
    }
}

/// Names what fired on the request's record.
pub(crate) fn note(engine: &Engine, record: u64, plan: &Plan) {
    if !plan.is_quiet() {
        capture::faulted(
            engine,
            record,
            plan.label(),
            plan.chosen.as_ref().map(|c| c.index),
        );
    }
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

/// The response with the quote of its first key removed (`{jsonrpc":"2.0",...`): unmistakably
/// not JSON, and still readable in a capture.
pub(crate) fn malformed(response: &Value) -> String {
    let text = response.to_string();
    text.replacen('"', "", 1)
}

/// The first half of the response's text.
fn half(response: &Value) -> String {
    let text = response.to_string();
    let mut end = text.len() / 2;
    while !text.is_char_boundary(end) {
        end -= 1;
    }
    text[..end].to_string()
}

/// The faults answered before the handler runs, after the plan's delay: an HTTP status
/// ([`Fault::Http`]) or the end of the session ([`Fault::ExpireSession`], `404`). `None` when
/// the request goes on to its handler. A `tools/call` stopped here still counts as a call of
/// its tool (it reached the server), like one the tool answers.
#[expect(
    clippy::too_many_arguments,
    reason = "the request's parts as the transport holds them; a struct would only rename them"
)]
pub(crate) async fn early(
    engine: &Engine,
    session: &Session,
    id: &Value,
    method: &str,
    params: &Value,
    plan: &Plan,
    record: u64,
    started: std::time::Instant,
) -> Option<Response> {
    if !matches!(plan.fault, Some(Fault::Http { .. } | Fault::ExpireSession)) {
        return None;
    }
    if let Some(delay) = plan.delay {
        tokio::time::sleep(delay).await;
    }
    count_tool_call(engine, method, params);
    match &plan.fault {
        Some(Fault::Http {
            status,
            body,
            headers,
        }) => {
            capture::withheld(engine, record, started);
            Some(http_fault(*status, body.as_deref(), headers))
        }
        Some(Fault::ExpireSession) => {
            engine.sessions.remove(&session.id);
            let response = jsonrpc::error(id, &session_gone(&session.id));
            capture::answered(engine, record, &response, started, None);
            Some((StatusCode::NOT_FOUND, axum::Json(response)).into_response())
        }
        _ => None,
    }
}

/// Counts a `tools/call` that a fault answered instead of the tool.
pub(crate) fn count_tool_call(engine: &Engine, method: &str, params: &Value) {
    if method != "tools/call" {
        return;
    }
    if let Some(name) = params.get("name").and_then(Value::as_str) {
        if engine.catalog.tools.get(name).is_some() {
            engine.catalog.count_call(name);
        }
    }
}

/// The `404` error of an ended session, worded as for an unknown one.
fn session_gone(id: &str) -> RpcError {
    RpcError::new(
        code::SESSION_NOT_FOUND,
        format!(
            "Session not found: `{id}` has ended or never existed; send initialize without an Mcp-Session-Id header to start a new session"
        ),
    )
}

/// A [`Fault::Http`] response: the status, the body as is (`text/plain` unless a
/// `Content-Type` is among the headers), and the headers.
pub(crate) fn http_fault(
    status: u16,
    body: Option<&str>,
    headers: &[(String, String)],
) -> Response {
    let status = StatusCode::from_u16(status).unwrap_or(StatusCode::INTERNAL_SERVER_ERROR);
    let mut response = Response::new(Body::from(body.unwrap_or_default().to_string()));
    *response.status_mut() = status;
    if body.is_some() {
        response.headers_mut().insert(
            header::CONTENT_TYPE,
            HeaderValue::from_static("text/plain; charset=utf-8"),
        );
    }
    for (name, value) in headers {
        // Checked at start (`check`); a rule added live with a bad header skips it.
        if let (Ok(name), Ok(value)) = (
            HeaderName::from_bytes(name.as_bytes()),
            HeaderValue::from_str(value),
        ) {
            if name == header::CONTENT_TYPE {
                response.headers_mut().insert(name, value);
            } else {
                response.headers_mut().append(name, value);
            }
        }
    }
    response
}

/// The answer of a request answered as JSON, shaped by its fault: a body that is not JSON,
/// cut in half, or broken off with the connection; a duplicate; or no answer at all until
/// the session ends. `response` may be a batch's array.
pub(crate) async fn json_reply(
    engine: &Engine,
    session: &Session,
    fault: Option<&Fault>,
    response: Value,
) -> Response {
    let json_text = |text: String| {
        (
            [(header::CONTENT_TYPE, "application/json")],
            Body::from(text),
        )
            .into_response()
    };
    match fault {
        Some(Fault::MalformedJson) => json_text(malformed(&response)),
        Some(Fault::TruncatedStream) => json_text(half(&response)),
        Some(Fault::CloseConnection) => {
            let first = Bytes::from(half(&response));
            let chunks: Vec<Result<Bytes, std::io::Error>> = vec![
                Ok(first),
                Err(std::io::Error::other(
                    "mcp-decoy: the close_connection fault cut the connection",
                )),
            ];
            let mut reply = Response::new(Body::from_stream(futures::stream::iter(chunks)));
            reply.headers_mut().insert(
                header::CONTENT_TYPE,
                HeaderValue::from_static("application/json"),
            );
            reply.extensions_mut().insert(Unbuffered);
            reply
        }
        Some(Fault::DuplicateResponse) if session.version.is_modern() => {
            // No other channel in 2026-07-28: the body carries it twice.
            axum::Json(json!([response.clone(), response])).into_response()
        }
        Some(Fault::DuplicateResponse) => {
            // The closest honest duplicate in JSON mode: the body, and a copy on the
            // session's GET stream (queued until the client opens it).
            session.send(response.clone());
            axum::Json(response).into_response()
        }
        Some(Fault::HangingStream) => {
            let Some(_permit) = hang_permit(engine) else {
                return too_many_hanging();
            };
            // Until the client gives up (the future is dropped with its connection), the
            // session ends, or the server stops (its runtime drops every connection).
            if session.version.is_modern() {
                return std::future::pending().await;
            }
            session.ended().await;
            let error = session_gone(&session.id);
            (
                StatusCode::NOT_FOUND,
                axum::Json(jsonrpc::error(&Value::Null, &error)),
            )
                .into_response()
        }
        _ => axum::Json(response).into_response(),
    }
}

fn too_many_hanging() -> Response {
    let error = RpcError::new(
        code::INTERNAL_ERROR,
        format!(
            "mcp-decoy: {MAX_HANGING} requests are already hanging (hanging_stream fault); this one is refused"
        ),
    );
    (
        StatusCode::SERVICE_UNAVAILABLE,
        axum::Json(jsonrpc::error(&Value::Null, &error)),
    )
        .into_response()
}

/// One hanging request's place in the count; given back on drop.
#[derive(Debug)]
pub(crate) struct HangPermit(Arc<AtomicUsize>);

impl Drop for HangPermit {
    fn drop(&mut self) {
        self.0.fetch_sub(1, Ordering::AcqRel);
    }
}

/// A place among the hanging requests, unless [`MAX_HANGING`] already hang.
pub(crate) fn hang_permit(engine: &Engine) -> Option<HangPermit> {
    let hanging = &engine.faults.hanging;
    hanging
        .fetch_update(Ordering::AcqRel, Ordering::Acquire, |n| {
            (n < MAX_HANGING).then_some(n + 1)
        })
        .ok()?;
    Some(HangPermit(hanging.clone()))
}

/// Whether a fault shapes the whole HTTP answer (a status, a broken body, a hang, the
/// session's end) rather than one JSON-RPC response: in a batch it applies to the batch.
pub(crate) fn spans_body(fault: &Fault) -> bool {
    matches!(
        fault,
        Fault::Http { .. }
            | Fault::MalformedJson
            | Fault::TruncatedStream
            | Fault::CloseConnection
            | Fault::HangingStream
            | Fault::ExpireSession
    )
}

/// How a request's event stream misbehaves; the transport's event body carries it out.
#[derive(Debug, Clone, Copy, Default, PartialEq, Eq)]
pub(crate) enum Shape {
    #[default]
    Normal,
    /// The response event's data is not JSON. It carries no id, as if garbled in transit:
    /// a client that resumes gets the buffered response intact.
    Malformed,
    /// The connection breaks where the response would be written; the response stays in the
    /// stream's buffer, so a client that resumes with `Last-Event-ID` still gets it.
    Cut,
    /// The priming event carries `retry`, then the server ends the stream; the response waits
    /// in the buffer for the client's `GET` with `Last-Event-ID`.
    Poll { retry_ms: u64 },
    /// `count` `notifications/message` after the priming event (or first), not captured
    /// one by one (the fault's label says how many).
    Flood { count: u32 },
    /// Never ends on its own; its reader finishes the stream when it goes, so the session
    /// can evict it.
    Hang,
}

impl Shape {
    pub(crate) fn of(fault: Option<&Fault>) -> Shape {
        match fault {
            Some(Fault::MalformedJson) => Shape::Malformed,
            Some(Fault::CloseConnection) => Shape::Cut,
            Some(Fault::SsePolling { retry_ms }) => Shape::Poll {
                retry_ms: *retry_ms,
            },
            Some(Fault::NotificationFlood { count }) => Shape::Flood {
                count: (*count).min(MAX_FLOOD),
            },
            Some(Fault::HangingStream) => Shape::Hang,
            _ => Shape::Normal,
        }
    }
}

/// What happens to the response of a request answered on an event stream.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub(crate) enum Delivery {
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
    pub(crate) fn of(fault: Option<&Fault>) -> Delivery {
        match fault {
            Some(Fault::DuplicateResponse) => Delivery::Twice,
            Some(Fault::TruncatedStream) => Delivery::Dropped,
            Some(Fault::HangingStream) => Delivery::Held,
            _ => Delivery::Once,
        }
    }
}

/// Events `from..to` (1-based) of a flood of `count`, as one chunk of SSE text.
pub(crate) fn flood_chunk(from: u32, to: u32, count: u32) -> Bytes {
    let mut text = String::new();
    for n in from..to {
        let message = jsonrpc::notification(
            "notifications/message",
            Some(json!({
                "level": "info",
                "logger": "mcp-decoy",
                "data": format!("flood {n} of {count}"),
            })),
        );
        text.push_str("event: message\ndata: ");
        text.push_str(&message.to_string());
        text.push_str("\n\n");
    }
    Bytes::from(text)
}

/// Starts the clock of a new session, when sessions expire.
pub(crate) fn opened(engine: &Engine, session: &Session) {
    if engine.faults.expiry.is_none() {
        return;
    }
    let mut ages = engine.faults.ages();
    // Bounded: sessions ended by DELETE or eviction leave entries; drop them in bulk.
    if ages.len() >= engine.limits.max_sessions {
        ages.retain(|id, _| engine.sessions.get(id).is_some());
    }
    ages.insert(
        session.id.clone(),
        Age {
            born: engine.clock.now(),
            requests: 0,
        },
    );
}

/// Counts a request of a session towards its expiry.
pub(crate) fn counted(engine: &Engine, session: &Session) {
    if engine.faults.expiry.is_none() {
        return;
    }
    if let Some(age) = engine.faults.ages().get_mut(&session.id) {
        age.requests += 1;
    }
}

/// Ends the session the request names if it has expired, so the request gets `404` like
/// any request of an ended session. Returns the label for the capture when it did.
pub(crate) fn expire_if_due(engine: &Engine, headers: &HeaderMap) -> Option<String> {
    let expiry = engine.faults.expiry?;
    let id = headers.get(SESSION_HEADER)?.to_str().ok()?;
    let label = {
        let mut ages = engine.faults.ages();
        let age = ages.get(id)?;
        let by_count = expiry
            .after_requests
            .filter(|&limit| age.requests >= limit)
            .map(|limit| format!("session_expiry after {limit} requests"));
        let by_time = expiry.after_ms.and_then(|ms| {
            let due = age.born.checked_add(Duration::from_millis(ms))?;
            (engine.clock.now() >= due).then(|| format!("session_expiry after {ms} ms"))
        });
        let label = by_count.or(by_time)?;
        ages.remove(id);
        label
    };
    engine.sessions.remove(id);
    Some(label)
}

/// What is wrong with a fault: the member at fault (`status`, `headers[1]`, `count`) and why.
pub(crate) fn fault_problem(fault: &Fault) -> Option<(String, String)> {
    match fault {
        Fault::Http {
            status, headers, ..
        } => {
            if !(100..=999).contains(status) {
                return Some((
                    "status".into(),
                    format!("is {status}, not an HTTP status (200-999)"),
                ));
            }
            if (100..200).contains(status) {
                return Some((
                    "status".into(),
                    format!(
                        "is {status}, an informational status (1xx) that cannot be a final response"
                    ),
                ));
            }
            for (n, (name, value)) in headers.iter().enumerate() {
                if HeaderName::from_bytes(name.as_bytes()).is_err() {
                    return Some((
                        format!("headers[{n}]"),
                        format!("names `{name}`, which is not a valid header name"),
                    ));
                }
                if HeaderValue::from_str(value).is_err() {
                    return Some((
                        format!("headers[{n}]"),
                        format!("has the value `{value}`, which is not a valid header value"),
                    ));
                }
            }
            None
        }
        Fault::NotificationFlood { count } if *count > MAX_FLOOD => Some((
            "count".into(),
            format!("is {count}, above the limit of {MAX_FLOOD}"),
        )),
        _ => None,
    }
}

/// What is wrong with one server-level rule: the field relative to the rule, and why.
fn rule_problem(rule: &FaultRule) -> Option<(String, String)> {
    if let Some(fault) = &rule.fault
        && let Some((member, reason)) = fault_problem(fault)
    {
        return Some((format!("fault.{member}"), reason));
    }
    if let Some(delay) = &rule.delay
        && let Err(problem) = responses::check_delay(delay, "delay")
    {
        return Some(problem);
    }
    if let Some(when) = &rule.when
        && let Err(problem) = responses::check_matcher(when, "when")
    {
        return Some(problem);
    }
    if rule.times == Some(0) {
        return Some((
            "times".into(),
            "is 0, so the rule would never fire; leave `times` out to fire for every matching request".into(),
        ));
    }
    if let (Some(method), Some(_)) = (&rule.method, &rule.tool)
        && method != "tools/call"
    {
        return Some((
            "tool".into(),
            format!("is set while `method` is `{method}`; only `tools/call` names a tool"),
        ));
    }
    None
}

/// Checks one server-level rule added live; the error names `rule.<field>`.
pub(crate) fn check_rule(rule: &FaultRule) -> Result<(), Error> {
    match rule_problem(rule) {
        Some((field, reason)) => Err(Error::InvalidFault {
            field: format!("rule.{field}"),
            reason,
        }),
        None => Ok(()),
    }
}

/// Checks the server's rules and session expiry at start.
pub(crate) fn check_spec(rules: &[FaultRule], expiry: Option<&SessionExpiry>) -> Result<(), Error> {
    if rules.len() > MAX_RULES {
        return Err(too_many_rules(rules.len()));
    }
    for (n, rule) in rules.iter().enumerate() {
        if let Some((field, reason)) = rule_problem(rule) {
            return Err(Error::InvalidFault {
                field: format!("faults[{n}].{field}"),
                reason,
            });
        }
    }
    if let Some(expiry) = expiry {
        let invalid = |reason: &str| Error::InvalidConfig {
            field: "session_expiry",
            reason: reason.into(),
        };
        if expiry.after_requests.is_none() && expiry.after_ms.is_none() {
            return Err(invalid(
                "set `after_requests`, `after_ms` or both; neither would never expire a session",
            ));
        }
        if expiry.after_requests == Some(0) || expiry.after_ms == Some(0) {
            return Err(invalid(
                "must be at least 1: a session that expires at once cannot serve a request",
            ));
        }
    }
    Ok(())
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_rule_fires_after_skip_for_times_then_lets_requests_through() {
        let rule = Rule::new(FaultRule::on_method("ping").skip(1).times(2));
        let fired: Vec<bool> = (0..5).map(|_| rule.fires()).collect();
        assert_eq!(fired, [false, true, true, false, false]);
    }

    #[test]
    fn broken_bodies_are_not_json_and_wrong_ids_differ() {
        let response = json!({ "jsonrpc": "2.0", "id": 7, "result": { "text": "é" } });
        assert!(serde_json::from_str::<Value>(&malformed(&response)).is_err());
        assert!(serde_json::from_str::<Value>(&half(&response)).is_err());
        assert_eq!(wrong_id(&json!(7)), json!(1_000_007));
        assert_eq!(wrong_id(&json!("a")), json!("a-wrong"));
    }

    #[test]
    fn bad_statuses_headers_and_floods_are_refused_naming_the_field() {
        for (fault, member) in [
            (Fault::http(42), "status"),
            (Fault::http(101), "status"),
            (
                Fault::http(503).with_header("bad header", "x"),
                "headers[0]",
            ),
            (Fault::notification_flood(MAX_FLOOD + 1), "count"),
        ] {
            let (field, _) = fault_problem(&fault).expect("refused");
            assert_eq!(field, member);
            let rule = FaultRule::any().fault(fault);
            let error = check_spec(&[rule], None).expect_err("refused");
            assert!(
                error
                    .to_string()
                    .contains(&format!("`faults[0].fault.{member}`")),
                "{error}"
            );
        }
        assert!(fault_problem(&Fault::http(429).with_header("Retry-After", "1")).is_none());
    }

    #[test]
    fn labels_name_the_delay_then_the_fault() {
        let plan = Plan {
            fault: Some(Fault::http(503)),
            delay: Some(Duration::from_millis(120)),
            chosen: None,
        };
        assert_eq!(plan.label().as_deref(), Some("delay 120 ms, http 503"));
    }
}
