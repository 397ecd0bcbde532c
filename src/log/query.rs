//! Typed reads of a captured log: filters, tool calls and `assert_*` helpers whose panics
//! print the records that did arrive.

use std::fmt::Write as _;

use serde::Serialize;
use serde_json::Value;

use super::record::{
    Direction, Entry, HttpExchange, HttpKind, Record, RequestEnd, RpcKind, RpcMessage,
};
use super::transcript::Transcript;

/// A point-in-time copy of a server's captured traffic, oldest record first.
///
/// Get one from `MockMcpServer::log`; it does not change as more traffic arrives.
#[derive(Debug, Clone, Default, Serialize)]
#[serde(transparent)]
pub struct Log {
    records: Vec<Record>,
}

impl Log {
    pub(crate) fn new(records: Vec<Record>) -> Self {
        Log { records }
    }

    /// Every record, oldest first.
    pub fn records(&self) -> &[Record] {
        &self.records
    }

    /// The record with this id, if it is still kept.
    pub fn get(&self, id: u64) -> Option<&Record> {
        self.records.iter().find(|r| r.id == id)
    }

    /// The `http` layer: exchanges (stream ends excluded).
    pub fn http(&self) -> HttpQuery<'_> {
        HttpQuery {
            items: self
                .records
                .iter()
                .filter_map(|r| match &r.entry {
                    Entry::Http(h) if h.kind == HttpKind::Exchange => Some((r, h)),
                    _ => None,
                })
                .collect(),
        }
    }

    /// The `mcp` layer: every JSON-RPC message.
    pub fn mcp(&self) -> McpQuery<'_> {
        McpQuery {
            items: self
                .records
                .iter()
                .filter_map(|r| match &r.entry {
                    Entry::Mcp(m) => Some((r, m)),
                    _ => None,
                })
                .collect(),
        }
    }

    /// The `tools/call` requests for `tool`, oldest first, with their outcomes.
    pub fn tool_calls(&self, tool: &str) -> Vec<ToolCall> {
        self.mcp()
            .method("tools/call")
            .name(tool)
            .kind(RpcKind::Request)
            .records()
            .into_iter()
            .map(|(record, message)| ToolCall {
                record: record.id,
                session: message.session.clone(),
                arguments: message
                    .params()
                    .get("arguments")
                    .cloned()
                    .unwrap_or(Value::Object(Default::default())),
                result: message.result().cloned(),
                error: message.error().cloned(),
                truncated: message.truncated,
            })
            .collect()
    }

    /// Every request a fault fired for, oldest first, with the fault's label.
    ///
    /// # Example
    /// ```
    /// # #[tokio::main(flavor = "current_thread")]
    /// # async fn main() {
    /// use mcp_decoy::{Fault, FaultRule, MockMcpServer};
    ///
    /// let server = MockMcpServer::builder()
    ///     .fault(FaultRule::on_method("tools/list").times(1).fault(Fault::http(503)))
    ///     .start().await;
    /// // After the client under test listed tools twice:
    /// for fired in server.log().faults() {
    ///     assert_eq!(fired.label, "http 503");
    /// }
    /// # }
    /// ```
    pub fn faults(&self) -> Vec<FiredFault> {
        self.mcp()
            .faulted()
            .records()
            .into_iter()
            .filter_map(|(record, message)| {
                Some(FiredFault {
                    record: record.id,
                    method: message.method.clone(),
                    name: message.name.clone(),
                    session: message.session.clone(),
                    label: message.fault.clone()?,
                })
            })
            .collect()
    }

    /// The OAuth side of the traffic: discovery fetches, registrations, authorization and
    /// token requests, challenges; see [`OAuthLog`](super::OAuthLog).
    pub fn oauth(&self) -> super::OAuthLog {
        super::OAuthLog::of(&self.records)
    }

    /// A view with session ids, times, durations and ports normalised, for snapshots that
    /// stay the same across runs.
    pub fn transcript(&self) -> Transcript {
        Transcript::of(&self.records)
    }

    /// The JSON-RPC messages of the [`transcript`](Self::transcript) alone, each request
    /// with its answer, without the HTTP exchanges that carried them; see
    /// [`Conversation`](super::Conversation).
    pub fn conversation(&self) -> super::Conversation {
        super::Conversation::of(&self.transcript())
    }
}

/// A request that a fault fired for (see [`Log::faults`]).
#[derive(Debug, Clone, PartialEq, Serialize)]
#[non_exhaustive]
pub struct FiredFault {
    /// The id of the request's `mcp` record.
    pub record: u64,
    /// The request's method.
    pub method: Option<String>,
    /// The tool, prompt or resource it named.
    pub name: Option<String>,
    /// Its session, if any.
    pub session: Option<String>,
    /// What fired: `http 503`, `delay 120 ms, wrong_id`, `session_expiry`, ... (see
    /// `Fault::label`).
    pub label: String,
}

/// One `tools/call` as the server saw it.
#[derive(Debug, Clone, PartialEq, Serialize)]
#[non_exhaustive]
pub struct ToolCall {
    /// The id of its `mcp` record.
    pub record: u64,
    /// The session that made the call.
    pub session: Option<String>,
    /// `params.arguments` (an empty object when absent), as the log keeps them: cut when
    /// the call is `truncated`.
    pub arguments: Value,
    /// The `CallToolResult` sent back, if the call succeeded at the JSON-RPC level.
    pub result: Option<Value>,
    /// The JSON-RPC error sent back, if any.
    pub error: Option<Value>,
    /// The log keeps the call or its answer cut: a message larger than 8 KiB keeps its
    /// small members whole and the start of its long strings, which end with their length
    /// (`"aaaa... (1048576 bytes)"`); see
    /// [`RpcMessage::truncated`](super::RpcMessage::truncated). The client got it whole.
    pub truncated: bool,
}

impl ToolCall {
    /// Whether the result was a tool error (`isError: true`).
    pub fn is_error(&self) -> bool {
        self.result
            .as_ref()
            .and_then(|r| r.get("isError"))
            .and_then(Value::as_bool)
            .unwrap_or(false)
    }

    /// The text of the result's first text block.
    pub fn text(&self) -> Option<&str> {
        self.result
            .as_ref()?
            .get("content")?
            .as_array()?
            .iter()
            .find(|b| b.get("type").and_then(Value::as_str) == Some("text"))?
            .get("text")?
            .as_str()
    }
}

/// A filter over `mcp` records; every method narrows it.
#[derive(Debug, Clone)]
pub struct McpQuery<'a> {
    items: Vec<(&'a Record, &'a RpcMessage)>,
}

/// The reads [`McpQuery`] and [`HttpQuery`] share, over their `items` (each record with the
/// message or exchange it holds); `$what` names one item in the docs.
macro_rules! shared_reads {
    ($a:lifetime, $item:ty, $what:literal) => {
        fn keep(mut self, pred: impl Fn(&$item) -> bool) -> Self {
            self.items.retain(|(_, item)| pred(item));
            self
        }

        #[doc = concat!("Keeps the ", $what, "s for which `pred` holds.")]
        pub fn filter(self, pred: impl Fn(&$item) -> bool) -> Self {
            self.keep(pred)
        }

        #[doc = concat!("How many ", $what, "s match.")]
        pub fn count(&self) -> usize {
            self.items.len()
        }

        #[doc = concat!("The matching ", $what, "s, oldest first.")]
        pub fn all(&self) -> Vec<&$a $item> {
            self.items.iter().map(|(_, item)| *item).collect()
        }

        #[doc = concat!("The matching ", $what, "s with their records (ids, times).")]
        pub fn records(&self) -> Vec<(&$a Record, &$a $item)> {
            self.items.clone()
        }

        /// The oldest match.
        pub fn first(&self) -> Option<&$a $item> {
            self.items.first().map(|(_, item)| *item)
        }

        /// The newest match.
        pub fn last(&self) -> Option<&$a $item> {
            self.items.last().map(|(_, item)| *item)
        }
    };
}

impl<'a> McpQuery<'a> {
    shared_reads!('a, RpcMessage, "message");

    /// Messages with this method.
    pub fn method(self, method: &str) -> Self {
        self.keep(|m| m.method.as_deref() == Some(method))
    }

    /// Messages naming this tool, prompt or resource.
    pub fn name(self, name: &str) -> Self {
        self.keep(|m| m.name.as_deref() == Some(name))
    }

    /// Messages of this kind.
    pub fn kind(self, kind: RpcKind) -> Self {
        self.keep(|m| m.kind == kind)
    }

    /// Messages sent by the client ([`Direction::ClientToServer`]).
    pub fn from_client(self) -> Self {
        self.keep(|m| m.direction == Direction::ClientToServer)
    }

    /// Messages sent by the server ([`Direction::ServerToClient`]).
    pub fn from_server(self) -> Self {
        self.keep(|m| m.direction == Direction::ServerToClient)
    }

    /// Messages of this session.
    pub fn session(self, session: &str) -> Self {
        self.keep(|m| m.session.as_deref() == Some(session))
    }

    /// Requests answered with a JSON-RPC error.
    pub fn errors(self) -> Self {
        self.keep(|m| m.error().is_some())
    }

    /// Requests a fault fired for (their [`RpcMessage::fault`] is set).
    pub fn faulted(self) -> Self {
        self.keep(|m| m.fault.is_some())
    }

    /// Requests that ended this way ([`RpcMessage::end`]); see the shorthands below.
    ///
    /// # Example
    /// ```
    /// # #[tokio::main(flavor = "current_thread")]
    /// # async fn main() {
    /// use mcp_decoy::MockMcpServer;
    /// use mcp_decoy::log::RequestEnd;
    /// use std::time::Duration;
    ///
    /// let server = MockMcpServer::builder().start().await;
    /// // After the client under test timed out a call: it cancelled it, and did not only
    /// // hang up. This waits for the `notifications/cancelled` that says so, if it is coming.
    /// let cancelled = server
    ///     .wait_for(
    ///         |log| log.mcp().method("tools/call").ended(RequestEnd::CancelledByClient).count() == 1,
    ///         Duration::from_millis(20),
    ///     )
    ///     .await;
    /// # assert!(cancelled.is_err());
    /// # }
    /// ```
    pub fn ended(self, end: RequestEnd) -> Self {
        self.keep(|m| m.end == Some(end))
    }

    /// Requests the server answered ([`RequestEnd::Answered`]).
    pub fn answered(self) -> Self {
        self.ended(RequestEnd::Answered)
    }

    /// Requests the client cancelled ([`RequestEnd::CancelledByClient`]): a legacy
    /// `notifications/cancelled` for them, recorded before this end is, or a 2026-07-28
    /// stream closed before the answer.
    pub fn cancelled_by_client(self) -> Self {
        self.ended(RequestEnd::CancelledByClient)
    }

    /// Legacy requests whose connection closed before the answer, with no
    /// `notifications/cancelled` ([`RequestEnd::ConnectionClosed`]).
    pub fn connection_closed(self) -> Self {
        self.ended(RequestEnd::ConnectionClosed)
    }

    /// Requests the server ended without an answer: a fault withheld it, the session
    /// ended or the server stopped ([`RequestEnd::EndedByServer`]).
    pub fn ended_by_server(self) -> Self {
        self.ended(RequestEnd::EndedByServer)
    }

    /// The client's requests still waiting for their end.
    pub fn pending(self) -> Self {
        self.keep(|m| {
            m.kind == RpcKind::Request
                && m.direction == Direction::ClientToServer
                && m.end.is_none()
        })
    }

    /// Panics, listing the matches, unless exactly `expected` messages match.
    #[track_caller]
    pub fn assert_count(&self, expected: usize) {
        if self.count() != expected {
            panic!(
                "expected {expected} matching mcp message(s), found {}:\n{}",
                self.count(),
                describe_mcp(&self.items)
            );
        }
    }

    /// Panics unless at least one message matches.
    #[track_caller]
    pub fn assert_any(&self) {
        if self.items.is_empty() {
            panic!("expected at least one matching mcp message, found none");
        }
    }
}

/// A filter over `http` exchanges; every method narrows it.
#[derive(Debug, Clone)]
pub struct HttpQuery<'a> {
    items: Vec<(&'a Record, &'a HttpExchange)>,
}

impl<'a> HttpQuery<'a> {
    shared_reads!('a, HttpExchange, "exchange");

    /// Exchanges with this HTTP method.
    pub fn method(self, method: &str) -> Self {
        self.keep(|h| h.method.eq_ignore_ascii_case(method))
    }

    /// Exchanges answered with this status.
    pub fn status(self, status: u16) -> Self {
        self.keep(|h| h.status == Some(status))
    }

    /// Exchanges on this path.
    pub fn path(self, path: &str) -> Self {
        self.keep(|h| h.path == path)
    }

    /// Exchanges whose connection closed before the server answered
    /// ([`HttpExchange::unanswered`]): a client that hung up on a slow call, say.
    ///
    /// ```
    /// # #[tokio::main(flavor = "current_thread")]
    /// # async fn main() {
    /// use mcp_decoy::MockMcpServer;
    ///
    /// let server = MockMcpServer::builder().start().await;
    /// // ... the client under test runs, and must wait for every answer ...
    /// server.log().http().unanswered().assert_count(0);
    /// # }
    /// ```
    pub fn unanswered(self) -> Self {
        self.keep(|h| h.unanswered)
    }

    /// Panics, listing the matches, unless exactly `expected` exchanges match.
    #[track_caller]
    pub fn assert_count(&self, expected: usize) {
        if self.count() != expected {
            let mut text = String::new();
            for (record, h) in &self.items {
                let _ = writeln!(
                    text,
                    "  #{} {} {} -> {}",
                    record.id,
                    h.method,
                    h.path,
                    h.status.map_or("pending".into(), |s| s.to_string())
                );
            }
            panic!(
                "expected {expected} matching http exchange(s), found {}:\n{text}",
                self.count()
            );
        }
    }
}

/// How many messages a failure report lists; the rest are counted, so a log of 10,000
/// records still gives a report one can read (the whole log is `server.log()`).
pub(crate) const MAX_DESCRIBED: usize = 20;

/// One line per message, at most [`MAX_DESCRIBED`], for failure reports.
pub(crate) fn describe_mcp(items: &[(&Record, &RpcMessage)]) -> String {
    describe_with(items, |_| None)
}

/// [`describe_mcp`] with a note after the lines `note` has one for.
pub(crate) fn describe_with(
    items: &[(&Record, &RpcMessage)],
    note: impl Fn(&RpcMessage) -> Option<String>,
) -> String {
    describe_detailed(items, note, |_| None)
}

/// [`describe_with`], with a line under each message `detail` has one for.
pub(crate) fn describe_detailed(
    items: &[(&Record, &RpcMessage)],
    note: impl Fn(&RpcMessage) -> Option<String>,
    detail: impl Fn(&RpcMessage) -> Option<String>,
) -> String {
    if items.is_empty() {
        return "  (none)\n".into();
    }
    let mut text = String::new();
    for (record, m) in items.iter().take(MAX_DESCRIBED) {
        let _ = write!(text, "  #{} {}", record.id, summary(m));
        if let Some(note) = note(m) {
            let _ = write!(text, " ({note})");
        }
        text.push('\n');
        if let Some(detail) = detail(m) {
            let _ = writeln!(text, "      {detail}");
        }
    }
    if items.len() > MAX_DESCRIBED {
        let _ = writeln!(
            text,
            "  ... and {} more (see `server.log()`)",
            items.len() - MAX_DESCRIBED
        );
    }
    text
}

/// How much of a call's arguments a report line shows.
const MAX_ARGUMENTS: usize = 200;

/// The JSON text of `value`, cut after [`MAX_ARGUMENTS`] characters.
pub(crate) fn bounded(value: &Value) -> String {
    let text = value.to_string();
    match text.char_indices().nth(MAX_ARGUMENTS) {
        Some((cut, _)) => format!("{}... ({} bytes)", &text[..cut], text.len()),
        None => text,
    }
}

/// `tools/call get_forecast {"city":"Oslo"} -> ok` style summary of a message.
fn summary(m: &RpcMessage) -> String {
    let kind = match m.kind {
        RpcKind::Request => "request",
        RpcKind::Notification => "notification",
        RpcKind::Response => "response",
        RpcKind::Invalid => "invalid",
    };
    let mut text = format!("{kind} {}", m.method.as_deref().unwrap_or("-"));
    if let Some(name) = &m.name {
        let _ = write!(text, " {name}");
    }
    if let Some(args) = m.params().get("arguments") {
        let _ = write!(text, " {}", bounded(args));
    }
    if m.kind == RpcKind::Request {
        let outcome = match (m.result(), m.error()) {
            (Some(r), _) if r.get("isError") == Some(&Value::Bool(true)) => "isError".to_string(),
            (Some(_), _) => "ok".into(),
            (None, Some(e)) => format!("error {}", e.get("code").unwrap_or(&Value::Null)),
            (None, None) => match m.end {
                Some(end) => format!("no response: {end}"),
                None => "pending".into(),
            },
        };
        let _ = write!(text, " -> {outcome}");
        // Which of the tool's responses answered, and what misbehaved, so a failed
        // expectation says why a call went where it did.
        if let Some(index) = m.response_index {
            let _ = write!(text, " (response #{index})");
        }
        if let Some(fault) = &m.fault {
            let _ = write!(text, " [fault: {fault}]");
        }
    }
    text
}

#[cfg(test)]
mod tests {
    use super::*;
    use chrono::Utc;
    use serde_json::json;

    fn call(id: u64, arguments: Value) -> Record {
        // Decoded rather than built, so a field added to `RpcMessage` (with its default)
        // does not break this test.
        let message: RpcMessage = serde_json::from_value(json!({
            "kind": "request",
            "direction": "client_to_server",
            "method": "tools/call",
            "name": "echo",
            "message": { "jsonrpc": "2.0", "id": id, "method": "tools/call",
                "params": { "name": "echo", "arguments": arguments } },
        }))
        .expect("an RpcMessage");
        Record {
            id,
            source: 0,
            revision: id,
            size: 0,
            at: Utc::now(),
            entry: Entry::Mcp(message),
        }
    }

    #[test]
    fn a_report_lists_a_bounded_number_of_calls_with_bounded_arguments() {
        // Arrange: more calls than a report lists, one with long arguments.
        let mut records = vec![call(1, json!({ "text": "x".repeat(1_000) }))];
        records.extend((2..=30).map(|id| call(id, json!({ "n": id }))));
        let log = Log::new(records);

        // Act
        let text = describe_mcp(&log.mcp().records());

        // Assert
        let lines: Vec<&str> = text.lines().collect();
        assert_eq!(lines.len(), MAX_DESCRIBED + 1, "{text}");
        assert!(lines[0].len() < 300, "the arguments are cut: {}", lines[0]);
        assert!(lines[0].contains("... (1011 bytes)"), "{}", lines[0]);
        assert_eq!(
            lines[1],
            r#"  #2 request tools/call echo {"n":2} -> pending"#
        );
        assert_eq!(
            lines[MAX_DESCRIBED],
            "  ... and 10 more (see `server.log()`)"
        );
    }
}
