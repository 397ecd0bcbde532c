//! What a tool does before it answers: progress, log messages, delays, and requests to the
//! client (sampling, elicitation, roots).

use serde::{Deserialize, Serialize};
use serde_json::Value;

/// A `notifications/message` severity (spec `LoggingLevel`, RFC 5424 order).
#[derive(Debug, Clone, Copy, PartialEq, Eq, PartialOrd, Ord, Hash, Serialize, Deserialize)]
#[cfg_attr(feature = "decoy-cli", derive(schemars::JsonSchema))]
#[serde(rename_all = "lowercase")]
pub enum LogLevel {
    /// Detailed debugging information.
    Debug,
    /// Informational messages.
    Info,
    /// Normal but significant events.
    Notice,
    /// Warning conditions.
    Warning,
    /// Error conditions.
    Error,
    /// Critical conditions.
    Critical,
    /// Action must be taken immediately.
    Alert,
    /// The system is unusable.
    Emergency,
}

impl LogLevel {
    /// Parses the wire form (`"info"`, ...).
    pub fn parse(text: &str) -> Option<Self> {
        serde_json::from_value(Value::String(text.to_string())).ok()
    }
}

/// The client request an [`Step::Ask`] sends.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize, Deserialize)]
#[cfg_attr(feature = "decoy-cli", derive(schemars::JsonSchema))]
#[non_exhaustive]
pub enum AskMethod {
    /// `sampling/createMessage`; needs the client's `sampling` capability.
    #[serde(rename = "sampling/createMessage")]
    Sampling,
    /// `elicitation/create`; needs `elicitation` (and `elicitation.url` for URL mode).
    #[serde(rename = "elicitation/create")]
    Elicitation,
    /// `roots/list`; needs `roots`.
    #[serde(rename = "roots/list")]
    Roots,
}

impl AskMethod {
    /// The JSON-RPC method name.
    pub fn method(self) -> &'static str {
        match self {
            AskMethod::Sampling => "sampling/createMessage",
            AskMethod::Elicitation => "elicitation/create",
            AskMethod::Roots => "roots/list",
        }
    }
}

/// A list a client can be told has changed (a `notifications/…/list_changed`).
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash, Serialize, Deserialize)]
#[cfg_attr(feature = "decoy-cli", derive(schemars::JsonSchema))]
#[serde(rename_all = "lowercase")]
#[non_exhaustive]
pub enum Listing {
    /// `notifications/tools/list_changed`.
    Tools,
    /// `notifications/resources/list_changed` (resources and resource templates share it).
    Resources,
    /// `notifications/prompts/list_changed`.
    Prompts,
}

fn default_ask_timeout() -> u64 {
    30_000
}

/// One step of a tool's script, run in order before the template renders.
///
/// String fields and `data`/`params` are json-e templates over `{args, answers}`.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
#[cfg_attr(feature = "decoy-cli", derive(schemars::JsonSchema))]
#[serde(
    tag = "step",
    rename_all = "camelCase",
    rename_all_fields = "camelCase",
    deny_unknown_fields
)]
#[non_exhaustive]
pub enum Step {
    /// `notifications/progress`, sent only when the call carried a progress token.
    Progress {
        /// Progress so far; must increase from step to step.
        progress: f64,
        /// The total, if known.
        #[serde(default, skip_serializing_if = "Option::is_none")]
        total: Option<f64>,
        /// A human-readable message.
        #[serde(default, skip_serializing_if = "Option::is_none")]
        message: Option<String>,
    },
    /// `notifications/message`, sent when the level passes the session's `logging/setLevel`.
    Log {
        /// The severity.
        level: LogLevel,
        /// The logger name.
        #[serde(default, skip_serializing_if = "Option::is_none")]
        logger: Option<String>,
        /// The payload (any JSON).
        data: Value,
    },
    /// Waits before the next step.
    Delay {
        /// Milliseconds.
        ms: u64,
    },
    /// Waits before the next step for as long as the call says: `ms` is a json-e template
    /// over `{args, answers}` that renders to a whole number of milliseconds (at most one
    /// day), such as `{"$eval": "args.seconds * 1000"}`.
    Wait {
        /// The template of the milliseconds.
        ms: Value,
    },
    /// Sends a request to the client and keeps its result as `answers.<key>`. In 2026-07-28
    /// requests nothing is sent: consecutive asks form one multi round-trip round, answered
    /// by an `input_required` result the client retries with its answers.
    Ask {
        /// Where the template finds the result.
        key: String,
        /// Which request.
        method: AskMethod,
        /// Its params.
        #[serde(default)]
        params: Value,
        /// How long to wait for the client.
        #[serde(default = "default_ask_timeout")]
        timeout_ms: u64,
        /// When the client did not declare the capability the request needs, skip the step
        /// (the template finds no `answers.<key>`) instead of failing the call; a tool that
        /// adapts to what each client supports.
        #[serde(default, skip_serializing_if = "std::ops::Not::not")]
        optional: bool,
    },
    /// Tells clients that a list changed, as a live edit would: legacy sessions on their GET
    /// stream, 2026-07-28 clients on the `subscriptions/listen` streams that opted in. Nothing
    /// changes; the conformance suite's `test_trigger_tool_change` is a tool with this step.
    /// Skipped for prompts or resources on a server that does not declare them.
    Notify {
        /// Which list.
        listing: Listing,
    },
    /// Ends the script with a JSON-RPC error instead of the template's result: the call
    /// answers it, and a task fails with it (2026-07-28 `failed` is for JSON-RPC errors
    /// only; a result with `isError` completes the task).
    Fail {
        /// The error code, such as `-32603`.
        code: i64,
        /// The message, a json-e template string over `{args, answers}`.
        message: String,
        /// `error.data`, a json-e template; none when `None`.
        #[serde(default, skip_serializing_if = "Option::is_none")]
        data: Option<Value>,
    },
}

/// The longest a [`Step::Wait`] may wait: one day.
pub(crate) const MAX_WAIT_MS: u64 = 86_400_000;

impl Step {
    /// Whether the step sends a message to the client (and so needs an event stream).
    pub(crate) fn talks(&self) -> bool {
        // A notify step talks to other streams, never on the call's own.
        !matches!(
            self,
            Step::Delay { .. } | Step::Wait { .. } | Step::Notify { .. } | Step::Fail { .. }
        )
    }
}
