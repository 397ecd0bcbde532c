//! Misbehaviour on purpose: what a request gets instead of (or on top of) its normal answer,
//! and when. A [`Fault`] is chosen per request, either by one of a tool's
//! [`ResponseSpec`](super::ResponseSpec)s or by a server-level [`FaultRule`]; the transport
//! carries it out and the capture names it.

use serde::{Deserialize, Serialize};
use serde_json::Value;

use super::response::Matcher;

/// What the client gets instead of a well-behaved answer.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
#[cfg_attr(feature = "decoy-cli", derive(schemars::JsonSchema))]
#[serde(tag = "kind", rename_all = "snake_case", deny_unknown_fields)]
#[non_exhaustive]
pub enum Fault {
    /// A JSON-RPC error response with this code, message and optional `data`.
    Error {
        /// The JSON-RPC error code, e.g. `-32603`.
        code: i64,
        /// The error message.
        message: String,
        /// Optional `error.data`.
        #[serde(default, skip_serializing_if = "Option::is_none")]
        data: Option<Value>,
    },
    /// An HTTP status instead of a JSON-RPC answer (500, 502, 503, 429 ...), with an optional
    /// body and headers such as `Retry-After`.
    Http {
        /// The status code, 200-999 (a 1xx cannot end a response).
        status: u16,
        /// The response body, sent as is.
        #[serde(default, skip_serializing_if = "Option::is_none")]
        body: Option<String>,
        /// Extra response headers, as name/value pairs.
        #[serde(default, skip_serializing_if = "Vec::is_empty")]
        headers: Vec<(String, String)>,
    },
    /// `200` with a body (or an event's data) that is not valid JSON: the response with the
    /// quote of its first key removed (`{jsonrpc":"2.0",...`). On an event stream the broken
    /// event has no id, as if garbled in transit: a client that resumes the stream with
    /// `Last-Event-ID` gets the buffered response intact.
    MalformedJson,
    /// An event stream that ends before the response: the messages before it are sent, the
    /// response never is. Answered as JSON: the first half of the body.
    TruncatedStream,
    /// An event stream that stays open and never answers (until the client gives up, the
    /// session ends or the server stops). Answered as JSON: no answer until then (`404` when
    /// the session ends). At most 1,000 hang at once; past that a hang is refused.
    HangingStream,
    /// The TCP connection is reset in the middle of the response: after half the JSON body,
    /// or on an event stream where the response would be written (the response stays
    /// buffered, so a client that resumes with `Last-Event-ID` still gets it).
    CloseConnection,
    /// The response carries an id the client never used: a numeric id plus 1,000,000, a
    /// string id with `-wrong` appended.
    WrongId,
    /// A 2026-07-28 result without its `resultType`, as a server of an earlier revision
    /// sends it (`basic/index.mdx`: a client MUST read an absent `resultType` as
    /// `"complete"`). Does not fire on a legacy session, whose results have none.
    OmitResultType,
    /// The response is sent twice: two events (with distinct ids) on an event stream. A JSON
    /// answer has one body, so the copy goes on the session's GET stream (queued until the
    /// client opens it); a 2026-07-28 request, which has no GET stream, gets a JSON array
    /// holding the response twice.
    DuplicateResponse,
    /// `count` notifications (`notifications/message`) before the response, on an event
    /// stream (the answer is one when the client accepts it; otherwise no flood).
    NotificationFlood {
        /// How many notifications; at most 100,000.
        count: u32,
    },
    /// The session ends with this request, which gets `404`, so the client must
    /// re-initialize (legacy era).
    ExpireSession,
    /// The server closes the event stream after the priming event with a `retry` field; the
    /// response waits for the client to reconnect with `Last-Event-ID` (2025-11-25 SSE
    /// polling, conformance `server-sse-polling`).
    SsePolling {
        /// The `retry` value sent, in milliseconds.
        retry_ms: u64,
    },
    /// stdio only: the server process exits with this status instead of answering (an
    /// in-memory duplex closes). Does not fire over HTTP.
    Exit {
        /// The exit status, 0-255.
        code: i32,
    },
    /// stdio only: the answer's line is written in two parts, `pause_ms` apart, so a client
    /// that takes one read for one message breaks. Does not fire over HTTP.
    SplitMessage {
        /// Milliseconds between the two writes; at most 60,000.
        pause_ms: u64,
    },
    /// stdio only: `bytes` of log lines on stderr before the answer, so a client that does
    /// not drain the child's stderr stalls once the pipe is full (64 KiB on Linux). Does not
    /// fire over HTTP or on an in-memory duplex, which have no stderr.
    StderrFlood {
        /// How many bytes; at most 16 MiB.
        bytes: u32,
    },
}

/// A pause before the answer: fixed, or drawn from a range with the server's seeded random
/// generator so a schedule reproduces run after run.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize, Deserialize)]
#[cfg_attr(feature = "decoy-cli", derive(schemars::JsonSchema))]
#[serde(untagged, deny_unknown_fields)]
#[non_exhaustive]
pub enum Delay {
    /// Exactly `ms` milliseconds.
    Fixed {
        /// Milliseconds.
        ms: u64,
    },
    /// Between `min_ms` and `max_ms` milliseconds, inclusive.
    Random {
        /// The shortest pause, in milliseconds.
        min_ms: u64,
        /// The longest pause, in milliseconds; at least `min_ms`.
        max_ms: u64,
    },
}

/// A server-level fault: requests that match get `fault` (and/or `delay`), after `skip`
/// matching requests passed and for `times` requests (every one when `None`).
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
#[cfg_attr(feature = "decoy-cli", derive(schemars::JsonSchema))]
#[serde(rename_all = "camelCase", deny_unknown_fields)]
pub struct FaultRule {
    /// Only requests of this JSON-RPC method (any when `None`).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub method: Option<String>,
    /// Only `tools/call` requests naming this tool.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub tool: Option<String>,
    /// Only requests whose `params.arguments` match.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub when: Option<Matcher>,
    /// Matching requests let through before the rule fires.
    #[serde(default, skip_serializing_if = "is_zero")]
    pub skip: u64,
    /// How many matching requests the rule fires for; every one when `None`.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub times: Option<u64>,
    /// What the request gets.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub fault: Option<Fault>,
    /// A pause before the answer (or before the fault).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub delay: Option<Delay>,
}

fn is_zero(n: &u64) -> bool {
    *n == 0
}

/// When a legacy session ends on its own, so the client must initialize again.
#[derive(Debug, Clone, Copy, Default, PartialEq, Eq, Serialize, Deserialize)]
#[cfg_attr(feature = "decoy-cli", derive(schemars::JsonSchema))]
#[serde(rename_all = "camelCase", deny_unknown_fields)]
pub struct SessionExpiry {
    /// The session ends after this many requests; the next one gets `404`.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub after_requests: Option<u64>,
    /// The session ends this many milliseconds (of the server's clock) after `initialize`.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub after_ms: Option<u64>,
}

impl Fault {
    /// An HTTP status instead of the JSON-RPC answer, with no body; add one with
    /// [`with_body`](Self::with_body) and headers with [`with_header`](Self::with_header).
    ///
    /// # Example
    /// ```
    /// use mcp_decoy::Fault;
    ///
    /// let busy = Fault::http(429).with_header("Retry-After", "1").with_body("slow down");
    /// assert_eq!(busy.label(), "http 429");
    /// ```
    pub fn http(status: u16) -> Self {
        Fault::Http {
            status,
            body: None,
            headers: Vec::new(),
        }
    }

    /// Adds a response header to an [`Http`](Self::Http) fault (other kinds are returned
    /// unchanged).
    pub fn with_header(mut self, name: impl Into<String>, value: impl Into<String>) -> Self {
        if let Fault::Http { headers, .. } = &mut self {
            headers.push((name.into(), value.into()));
        }
        self
    }

    /// Sets the body of an [`Http`](Self::Http) fault (other kinds are returned unchanged).
    pub fn with_body(mut self, text: impl Into<String>) -> Self {
        if let Fault::Http { body, .. } = &mut self {
            *body = Some(text.into());
        }
        self
    }

    /// A JSON-RPC error response with this code and message; add `data` with
    /// [`with_data`](Self::with_data).
    ///
    /// # Example
    /// ```
    /// use mcp_decoy::Fault;
    /// use serde_json::json;
    ///
    /// let fault = Fault::error(-32603, "the backend is down").with_data(json!({ "retry": true }));
    /// assert_eq!(fault.label(), "error -32603");
    /// ```
    pub fn error(code: i64, message: impl Into<String>) -> Self {
        Fault::Error {
            code,
            message: message.into(),
            data: None,
        }
    }

    /// Sets `error.data` of an [`Error`](Self::Error) fault (other kinds are returned
    /// unchanged).
    pub fn with_data(mut self, value: Value) -> Self {
        if let Fault::Error { data, .. } = &mut self {
            *data = Some(value);
        }
        self
    }

    /// `count` `notifications/message` before the response (at most 100,000).
    pub fn notification_flood(count: u32) -> Self {
        Fault::NotificationFlood { count }
    }

    /// SSE polling (2025-11-25): the stream closes after a priming event carrying
    /// `retry: retry_ms`, and the response waits for the client to resume.
    pub fn sse_polling(retry_ms: u64) -> Self {
        Fault::SsePolling { retry_ms }
    }

    /// stdio: the server process exits with status `code` instead of answering.
    pub fn exit(code: i32) -> Self {
        Fault::Exit { code }
    }

    /// stdio: the answer's line is written in two parts, `pause` apart.
    pub fn split_message(pause: std::time::Duration) -> Self {
        Fault::SplitMessage {
            pause_ms: u64::try_from(pause.as_millis()).unwrap_or(u64::MAX),
        }
    }

    /// stdio: `bytes` of log lines on stderr before the answer.
    pub fn stderr_flood(bytes: u32) -> Self {
        Fault::StderrFlood { bytes }
    }

    /// A short, stable name of the fault, as the capture shows it: `http 503`,
    /// `error -32603`, `malformed_json`, `notification_flood 1000`, `sse_polling 500 ms`, ...
    pub fn label(&self) -> String {
        match self {
            Fault::Error { code, .. } => format!("error {code}"),
            Fault::Http { status, .. } => format!("http {status}"),
            Fault::MalformedJson => "malformed_json".into(),
            Fault::TruncatedStream => "truncated_stream".into(),
            Fault::HangingStream => "hanging_stream".into(),
            Fault::CloseConnection => "close_connection".into(),
            Fault::WrongId => "wrong_id".into(),
            Fault::OmitResultType => "omit_result_type".into(),
            Fault::DuplicateResponse => "duplicate_response".into(),
            Fault::NotificationFlood { count } => format!("notification_flood {count}"),
            Fault::ExpireSession => "expire_session".into(),
            Fault::SsePolling { retry_ms } => format!("sse_polling {retry_ms} ms"),
            Fault::Exit { code } => format!("exit {code}"),
            Fault::SplitMessage { pause_ms } => format!("split_message {pause_ms} ms"),
            Fault::StderrFlood { bytes } => format!("stderr_flood {bytes} bytes"),
        }
    }
}

impl Delay {
    /// Exactly this long (millisecond precision).
    pub fn fixed(pause: std::time::Duration) -> Self {
        Delay::Fixed {
            ms: u64::try_from(pause.as_millis()).unwrap_or(u64::MAX),
        }
    }

    /// Between `min` and `max` inclusive, drawn with the server's seeded random generator
    /// (see `MockMcpServerBuilder::seed`), so the same seed gives the same schedule.
    pub fn between(min: std::time::Duration, max: std::time::Duration) -> Self {
        let ms = |d: std::time::Duration| u64::try_from(d.as_millis()).unwrap_or(u64::MAX);
        Delay::Random {
            min_ms: ms(min),
            max_ms: ms(max),
        }
    }
}

impl FaultRule {
    /// A rule for every request; narrow it with [`method`](Self::method),
    /// [`tool`](Self::tool) or [`when`](Self::when).
    pub fn any() -> Self {
        FaultRule {
            method: None,
            tool: None,
            when: None,
            skip: 0,
            times: None,
            fault: None,
            delay: None,
        }
    }

    /// A rule for requests of one JSON-RPC method (`tools/list`, `resources/read`, ...).
    ///
    /// # Example
    /// ```
    /// use mcp_decoy::{Fault, FaultRule};
    ///
    /// // The first two tools/list requests get 503, later ones are answered.
    /// let rule = FaultRule::on_method("tools/list").times(2).fault(Fault::http(503));
    /// assert_eq!(rule.times, Some(2));
    /// ```
    pub fn on_method(method: impl Into<String>) -> Self {
        FaultRule::any().method(method)
    }

    /// A rule for `tools/call` requests naming `tool`.
    ///
    /// # Example
    /// ```
    /// use mcp_decoy::FaultRule;
    /// use mcp_decoy::spec::Delay;
    /// use std::time::Duration;
    ///
    /// // Every call of `search` after the first is 200 ms slow.
    /// let rule = FaultRule::on_tool("search").skip(1).delay(Delay::fixed(Duration::from_millis(200)));
    /// assert_eq!(rule.method.as_deref(), Some("tools/call"));
    /// ```
    pub fn on_tool(tool: impl Into<String>) -> Self {
        FaultRule {
            tool: Some(tool.into()),
            ..FaultRule::on_method("tools/call")
        }
    }

    setters! {
        /// Only requests of this method.
        pub fn method(method: impl Into<String>) => method = Some(method.into());

        /// Only `tools/call` requests naming this tool.
        pub fn tool(tool: impl Into<String>) => tool = Some(tool.into());

        /// Only requests whose `params.arguments` match.
        pub fn when(matcher: Matcher) => when = Some(matcher);

        /// Lets `n` matching requests through before the rule fires.
        pub fn skip(n: u64) => skip = n;

        /// Fires for `n` matching requests (after the skipped ones), then lets every later one
        /// through.
        pub fn times(n: u64) => times = Some(n);

        /// What matching requests get.
        pub fn fault(fault: Fault) => fault = Some(fault);

        /// A pause before the answer (or before the fault).
        pub fn delay(delay: Delay) => delay = Some(delay);
    }
}

impl SessionExpiry {
    /// Sessions end after `n` requests (`initialize` not counted); request `n + 1` gets
    /// `404`.
    pub fn after_requests(n: u64) -> Self {
        SessionExpiry {
            after_requests: Some(n),
            after_ms: None,
        }
    }

    /// Sessions end this long after `initialize`, by the server's clock (which
    /// `MockMcpServer::advance_clock` moves forward without sleeping).
    pub fn after(age: std::time::Duration) -> Self {
        SessionExpiry {
            after_requests: None,
            after_ms: Some(u64::try_from(age.as_millis()).unwrap_or(u64::MAX)),
        }
    }
}
