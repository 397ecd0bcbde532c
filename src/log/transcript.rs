//! A deterministic view of a log for snapshot tests: ids renumbered from 1, session ids
//! replaced by `[session-N]` and registered OAuth client ids by `[client-N]` in order of
//! appearance, times, durations and ports dropped (also inside URLs), volatile headers left
//! out and credentials masked. Records are listed in arrival order, except where one client
//! story can arrive in more than one order (see [`Transcript`]).

use std::collections::HashMap;

use aho_corasick::{AhoCorasick, MatchKind};

use serde::Serialize;
use serde_json::{Map, Value};

use super::headers::Headers;
use super::mask::MASK;
use super::order::canonical;
use super::record::{Entry, HttpKind, Record, RequestEnd, RpcKind, SESSION_HEADER, Transport};

/// The headers a transcript keeps; the others (date, user agent, content length, host with
/// its ephemeral port) vary between runs without telling the client's story.
const KEPT_HEADERS: &[&str] = &[
    "accept",
    "content-type",
    "mcp-session-id",
    "mcp-protocol-version",
    "last-event-id",
    "authorization",
    "www-authenticate",
    "origin",
    "mcp-method",
    "mcp-name",
    "retry-after",
    "location",
];

/// The stable, serializable view returned by `Log::transcript`.
///
/// Entries follow the log's arrival order with two exceptions, both cases where the same
/// client behaviour reaches the server in either order:
///
/// - An event stream opened with `GET` runs beside the session's requests, so when the client
///   opened it is not part of its story: its exchange is listed just before the first message
///   it carried, or else just before its `stream_end`, or else last.
/// - A session's streams end when its `DELETE` ends the session, and a client that closes its
///   streams itself before it sends `DELETE` races that: the `stream_end`s of the session around
///   its `DELETE` are listed just before the `DELETE`, in the order their streams opened.
///
/// And one kind of record is left out: a session's `GET` that carried no message, when its
/// fate is a race with the session's end. A client opens that stream beside its requests and
/// drops it as it closes the session, so whether the server saw it at all, and then opened it
/// (and the `DELETE` ended it), refused it `404` (the session was already gone), or saw its
/// connection close before an answer, is timing. Such a `GET` and its `stream_end` stay in
/// the log ([`Log::http`](super::Log::http)); a `GET` that carried a message, or was refused
/// for a reason of its own (no `Accept`, a session id the log never saw), stays in the
/// transcript.
#[derive(Debug, Clone, PartialEq, Serialize)]
#[serde(transparent)]
pub struct Transcript {
    entries: Vec<TranscriptEntry>,
}

impl Transcript {
    /// The entries, in transcript order (see [`Transcript`]).
    pub fn entries(&self) -> &[TranscriptEntry] {
        &self.entries
    }
}

/// One record of a [`Transcript`].
#[derive(Debug, Clone, PartialEq, Serialize)]
#[serde(
    tag = "layer",
    rename_all = "lowercase",
    rename_all_fields = "camelCase"
)]
#[non_exhaustive]
pub enum TranscriptEntry {
    /// An HTTP exchange or stream end.
    #[non_exhaustive]
    Http {
        /// Position in the transcript, from 1.
        n: usize,
        /// `exchange` or `stream_end`.
        kind: HttpKind,
        /// The request line.
        request: String,
        /// Kept request headers, normalised.
        #[serde(skip_serializing_if = "Map::is_empty")]
        request_headers: Map<String, Value>,
        /// The response status.
        #[serde(skip_serializing_if = "Option::is_none")]
        status: Option<u16>,
        /// Kept response headers, normalised.
        #[serde(skip_serializing_if = "Map::is_empty")]
        response_headers: Map<String, Value>,
        /// The response body (event streams have none).
        #[serde(skip_serializing_if = "Option::is_none")]
        response_body: Option<Value>,
        /// For a stream end: `n` of the exchange that opened it.
        #[serde(skip_serializing_if = "Option::is_none")]
        stream_of: Option<usize>,
        /// The log keeps a body or a header cut (see `HttpExchange::truncated`).
        #[serde(skip_serializing_if = "std::ops::Not::not")]
        truncated: bool,
        /// The connection closed before an answer (see `HttpExchange::unanswered`).
        #[serde(skip_serializing_if = "std::ops::Not::not")]
        unanswered: bool,
    },
    /// A JSON-RPC message.
    #[non_exhaustive]
    Mcp {
        /// Position in the transcript, from 1.
        n: usize,
        /// Request, notification, response or invalid.
        kind: RpcKind,
        /// `client_to_server` or `server_to_client`.
        direction: super::record::Direction,
        /// `[session-N]`.
        #[serde(skip_serializing_if = "Option::is_none")]
        session: Option<String>,
        /// What carried it; left out for HTTP, whose carrier is `carried_by`.
        #[serde(skip_serializing_if = "Transport::is_http")]
        transport: Transport,
        /// `n` of the http entry that carried it.
        #[serde(skip_serializing_if = "Option::is_none")]
        carried_by: Option<usize>,
        /// The message.
        message: Value,
        /// The response, for requests.
        #[serde(skip_serializing_if = "Option::is_none")]
        response: Option<Value>,
        /// Why a request got no response (see `RpcMessage::end`); left out when it was
        /// answered, which `response` shows, and while it is pending.
        #[serde(skip_serializing_if = "Option::is_none")]
        end: Option<RequestEnd>,
        /// The faults that fired for the request (see `RpcMessage::fault`).
        #[serde(skip_serializing_if = "Option::is_none")]
        fault: Option<String>,
        /// The tool response that answered it (see `RpcMessage::response_index`).
        #[serde(skip_serializing_if = "Option::is_none")]
        response_index: Option<usize>,
        /// How its arguments broke the tool's `inputSchema` (see
        /// `RpcMessage::argument_errors`).
        #[serde(skip_serializing_if = "Vec::is_empty")]
        argument_errors: Vec<super::record::ArgumentError>,
        /// The log keeps the message or its response cut (see `RpcMessage::truncated`).
        #[serde(skip_serializing_if = "std::ops::Not::not")]
        truncated: bool,
    },
}

impl Transcript {
    pub(crate) fn of(records: &[Record]) -> Transcript {
        let records = canonical(records);
        let positions: HashMap<u64, usize> = records
            .iter()
            .enumerate()
            .map(|(i, r)| (r.id, i + 1))
            .collect();
        let mut sessions = Sessions::default();
        let scrub = Scrub::of(&records);
        let entries = records
            .iter()
            .enumerate()
            .map(|(i, record)| match &record.entry {
                Entry::Http(h) => {
                    let request = match &h.query {
                        Some(q) => format!("{} {}?{q}", h.method, h.path),
                        None => format!("{} {}", h.method, h.path),
                    };
                    TranscriptEntry::Http {
                        n: i + 1,
                        kind: h.kind,
                        request: scrub.text(&request),
                        request_headers: scrub.headers(sessions.headers(&h.request_headers)),
                        status: h.status,
                        response_headers: scrub.headers(sessions.headers(&h.response_headers)),
                        response_body: h.response_body.as_ref().map(|b| scrub.value(b)),
                        stream_of: h.stream_of.and_then(|id| positions.get(&id).copied()),
                        truncated: h.truncated,
                        unanswered: h.unanswered,
                    }
                }
                Entry::Mcp(m) => TranscriptEntry::Mcp {
                    n: i + 1,
                    kind: m.kind,
                    direction: m.direction,
                    session: m.session.as_deref().map(|s| sessions.label(s)),
                    transport: m.transport,
                    carried_by: m.carried_by.and_then(|id| positions.get(&id).copied()),
                    message: scrub.value(&m.message),
                    response: m.response.as_ref().map(|r| scrub.value(r)),
                    end: m.end.filter(|end| *end != RequestEnd::Answered),
                    fault: m.fault.clone(),
                    response_index: m.response_index,
                    argument_errors: m.argument_errors.clone(),
                    truncated: m.truncated,
                },
            })
            .collect();
        Transcript { entries }
    }
}

#[derive(Default)]
struct Sessions {
    labels: HashMap<String, String>,
}

impl Sessions {
    fn label(&mut self, id: &str) -> String {
        let next = self.labels.len() + 1;
        self.labels
            .entry(id.to_string())
            .or_insert_with(|| format!("[session-{next}]"))
            .clone()
    }

    /// The kept headers as an object; a repeated header's values are joined with `, `.
    fn headers(&mut self, headers: &Headers) -> Map<String, Value> {
        let mut kept = Map::new();
        let pairs: Vec<(String, String)> = headers
            .iter()
            .filter(|(name, _)| KEPT_HEADERS.contains(name) || name.starts_with("mcp-param-"))
            .map(|(name, value)| {
                let value = match name {
                    SESSION_HEADER => self.label(value),
                    "authorization" => mask_credentials(value),
                    "origin" => strip_port(value),
                    _ => value.to_string(),
                };
                (name.to_string(), value)
            })
            .collect();
        for (name, value) in pairs {
            let joined = match kept.get(&name).and_then(Value::as_str) {
                Some(before) => format!("{before}, {value}"),
                None => value,
            };
            kept.insert(name, Value::String(joined));
        }
        kept
    }
}

/// Members of OAuth documents that hold the time of the run (RFC 7591 section 3.2.1).
const TIME_MEMBERS: &[&str] = &["client_id_issued_at", "client_secret_expires_at"];

/// Parameters whose values a client or SDK draws at random on every run (OAuth `state`,
/// PKCE, nonces, a DPoP key's thumbprint, a client assertion with its `jti`, pushed
/// request ids, codes where a capture left them unmasked): a transcript names each value
/// `[NAME-N]`, the same value the same placeholder wherever it appears.
const RANDOM_PARAMS: &[&str] = &[
    "state",
    "nonce",
    "code_challenge",
    "code_verifier",
    "code",
    "jti",
    "dpop_jkt",
    "client_assertion",
    "request_uri",
    "request_id",
];

/// Values shorter than this are left alone: a random value is never this short, and a
/// short one (`1`, `abc`) would be replaced inside unrelated text.
const MIN_RANDOM_LEN: usize = 8;

/// What else varies between runs of the same story: the listener's port inside URLs (in
/// bodies, headers and query strings, plain or percent-encoded), the client ids that
/// Dynamic Client Registration generates, replaced by `[client-N]` in order of appearance,
/// and the random values of [`RANDOM_PARAMS`] (in query strings, `Location` headers, form
/// bodies and JSON members alike).
struct Scrub {
    /// Every value to replace, found in one pass (the longest at each place).
    matcher: Option<AhoCorasick>,
    /// What each of the matcher's patterns becomes.
    to: Vec<String>,
}

/// The values to replace and their placeholders, in order of first appearance; each value
/// once, and each placeholder kind (`[client-N]`, `[state-N]`) counted as it is handed out.
#[derive(Default)]
struct Replacements {
    list: Vec<(String, String)>,
    index: HashMap<String, usize>,
    counts: HashMap<String, usize>,
}

impl Replacements {
    /// Adds a replacement unless its value already has one.
    fn push(&mut self, from: String, to: String) {
        if !from.is_empty() && !self.index.contains_key(&from) {
            self.index.insert(from.clone(), self.list.len());
            self.list.push((from, to));
        }
    }

    /// The placeholder of `value` of kind `name`: the one it already has, or the next
    /// `[NAME-N]`.
    fn label(&mut self, name: &str, value: &str) -> String {
        if let Some(&at) = self.index.get(value) {
            return self.list[at].1.clone();
        }
        let count = self.counts.entry(name.to_string()).or_default();
        *count += 1;
        format!("[{name}-{count}]")
    }
}

/// Registers the random values of a query string or form body (`a=1&state=xyz`), both
/// decoded and as written (percent-encoded).
fn random_in_form(replacements: &mut Replacements, text: &str) {
    for pair in text.split('&') {
        let Some((name, value)) = form_urlencoded::parse(pair.as_bytes()).next() else {
            continue;
        };
        if !is_random(&name, &value) {
            continue;
        }
        let label = replacements.label(&name, &value);
        replacements.push(value.into_owned(), label.clone());
        if let Some((_, written)) = pair.split_once('=') {
            replacements.push(written.to_string(), label);
        }
    }
}

/// Registers `value` when parameter `name` is one whose values are random.
fn random_value(replacements: &mut Replacements, name: &str, value: &str) {
    if is_random(name, value) {
        let label = replacements.label(name, value);
        replacements.push(value.to_string(), label);
    }
}

fn is_random(name: &str, value: &str) -> bool {
    RANDOM_PARAMS.contains(&name) && value.len() >= MIN_RANDOM_LEN && !value.contains(MASK)
}

/// Registers the random values of JSON members named in [`RANDOM_PARAMS`], at any depth.
fn random_in_json(replacements: &mut Replacements, value: &Value) {
    match value {
        Value::Object(map) => {
            for (name, member) in map {
                match member {
                    Value::String(text) => random_value(replacements, name, text),
                    other => random_in_json(replacements, other),
                }
            }
        }
        Value::Array(items) => items.iter().for_each(|v| random_in_json(replacements, v)),
        _ => {}
    }
}

/// A body as the capture keeps it: a form body is a JSON string, a JSON body its value.
fn random_in_body(replacements: &mut Replacements, body: &Value) {
    match body {
        Value::String(text) if text.contains('=') => random_in_form(replacements, text),
        other => random_in_json(replacements, other),
    }
}

impl Scrub {
    fn of(records: &[&Record]) -> Scrub {
        let mut replacements = Replacements::default();
        for record in records {
            let Entry::Http(h) = &record.entry else {
                continue;
            };
            if let Some(query) = &h.query {
                random_in_form(&mut replacements, query);
            }
            for (name, value) in &h.response_headers {
                if name == "location"
                    && let Some((_, after)) = value.split_once(['?', '#'])
                {
                    after
                        .split(['?', '#'])
                        .for_each(|part| random_in_form(&mut replacements, part));
                }
            }
            for body in [&h.request_body, &h.response_body].into_iter().flatten() {
                random_in_body(&mut replacements, body);
            }
            for (name, value) in &h.request_headers {
                if name != "host" {
                    continue;
                }
                if let Some((host, port)) = value.rsplit_once(':')
                    && !port.is_empty()
                    && port.chars().all(|c| c.is_ascii_digit())
                {
                    replacements.push(value.to_string(), format!("{host}:[port]"));
                    replacements.push(format!("{host}%3A{port}"), format!("{host}%3A[port]"));
                }
            }
            if h.path.ends_with("/register")
                && let Some(id) = h
                    .response_body
                    .as_ref()
                    .and_then(|b| b.get("client_id"))
                    .and_then(Value::as_str)
            {
                let label = replacements.label("client", id);
                replacements.push(id.to_string(), label);
            }
        }
        let (from, to): (Vec<String>, Vec<String>) = replacements.list.into_iter().unzip();
        // At each place the longest value, so one that contains another is replaced whole.
        let matcher = AhoCorasick::builder()
            .match_kind(MatchKind::LeftmostLongest)
            .build(&from)
            .ok()
            .filter(|_| !from.is_empty());
        Scrub { matcher, to }
    }

    fn text(&self, text: &str) -> String {
        match &self.matcher {
            Some(matcher) => matcher.replace_all(text, &self.to),
            None => text.to_string(),
        }
    }

    fn value(&self, value: &Value) -> Value {
        match value {
            Value::String(s) => Value::String(self.text(s)),
            Value::Array(items) => Value::Array(items.iter().map(|v| self.value(v)).collect()),
            Value::Object(map) => Value::Object(
                map.iter()
                    .map(|(k, v)| {
                        let v = if TIME_MEMBERS.contains(&k.as_str()) && v.is_number() {
                            Value::String("[time]".into())
                        } else {
                            self.value(v)
                        };
                        (k.clone(), v)
                    })
                    .collect(),
            ),
            other => other.clone(),
        }
    }

    fn headers(&self, headers: Map<String, Value>) -> Map<String, Value> {
        headers
            .into_iter()
            .map(|(k, v)| (k, self.value(&v)))
            .collect()
    }
}

fn mask_credentials(value: &str) -> String {
    match value.split_once(' ') {
        Some((scheme, _)) => format!("{scheme} [redacted]"),
        None => "[redacted]".into(),
    }
}

fn strip_port(origin: &str) -> String {
    match origin.rsplit_once(':') {
        Some((head, port)) if head.contains("//") && port.chars().all(|c| c.is_ascii_digit()) => {
            format!("{head}:[port]")
        }
        _ => origin.to_string(),
    }
}
