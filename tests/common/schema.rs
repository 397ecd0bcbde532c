//! Checks that what a decoy sent validates against the MCP JSON schema of its era, shipped in
//! `schema/`: 2025-11-25 for legacy-era records, 2026-07-28 for modern-era ones (the `era` of
//! each `mcp` record). Covered: every response to a client request (envelope and the result
//! type of its method), every notification or request the server pushed to the client, and
//! every JSON error body the transport sent without an `mcp` record.
//!
//! Validators are compiled once per test binary, one per schema definition, so calling the
//! check at the end of every test costs a lookup and a validation per message.

#![allow(
    dead_code,
    reason = "each test binary compiles this module and uses only part of it"
)]

use std::collections::{HashMap, HashSet};
use std::fmt::Write as _;
use std::sync::{Arc, LazyLock, Mutex, PoisonError};

use jsonschema::Validator;

// A file of its own beside this one (some tests include this module alone, by path).
#[path = "tasks_schema.rs"]
mod tasks_schema;
use mcp_decoy::log::{Direction, Entry, Era, Log, RpcKind, RpcMessage};
use serde_json::Value;

/// The schemas the decoy ships, byte-identical to the specification's `schema.json` files.
const MCP_2025_11_25: &str = include_str!("../../schema/mcp-2025-11-25.json");
const MCP_2026_07_28: &str = include_str!("../../schema/mcp-2026-07-28.json");

static LEGACY_ROOT: LazyLock<Value> = LazyLock::new(|| {
    serde_json::from_str(MCP_2025_11_25).expect("schema/mcp-2025-11-25.json is not JSON")
});

static MODERN_ROOT: LazyLock<Value> = LazyLock::new(|| {
    let root: Value =
        serde_json::from_str(MCP_2026_07_28).expect("schema/mcp-2026-07-28.json is not JSON");
    tasks_schema::with_extension(root)
});

/// Which schema a message is checked against: the one of the era it belongs to.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash)]
pub enum Revision {
    /// 2025-11-25, for legacy-era records (sessions opened by `initialize`).
    Legacy,
    /// 2026-07-28, for modern-era records (stateless requests with `_meta`).
    Modern,
}

impl Revision {
    /// The revision of a captured message: modern when the capture says so.
    pub fn of(message: &RpcMessage) -> Revision {
        if message.era == Some(Era::Modern) {
            Revision::Modern
        } else {
            Revision::Legacy
        }
    }

    /// The revision a request header names, legacy unless it is 2026-07-28 or later.
    fn of_header(version: Option<&str>) -> Revision {
        match version.map(str::trim) {
            Some(v) if v >= "2026-07-28" && v.len() == 10 => Revision::Modern,
            _ => Revision::Legacy,
        }
    }

    /// The wire form of the revision.
    pub fn name(self) -> &'static str {
        match self {
            Revision::Legacy => "2025-11-25",
            Revision::Modern => "2026-07-28",
        }
    }

    fn root(self) -> &'static Value {
        match self {
            Revision::Legacy => &LEGACY_ROOT,
            Revision::Modern => &MODERN_ROOT,
        }
    }

    /// Whether the schema has a definition named `definition`.
    fn defines(self, definition: &str) -> bool {
        self.root()["$defs"].get(definition).is_some()
    }
}

/// Compiled validators by revision and definition name.
type Validators = HashMap<(Revision, String), Arc<Validator>>;

static VALIDATORS: LazyLock<Mutex<Validators>> = LazyLock::new(|| Mutex::new(HashMap::new()));

/// The compiled validator of `#/$defs/<definition>` of `revision`, compiled on first use.
fn validator(revision: Revision, definition: &str) -> Arc<Validator> {
    // A test that panicked elsewhere cannot leave the map half-written: inserts are atomic.
    let mut validators = VALIDATORS.lock().unwrap_or_else(PoisonError::into_inner);
    let key = (revision, definition.to_string());
    if let Some(validator) = validators.get(&key) {
        return validator.clone();
    }
    assert!(
        revision.defines(definition),
        "the MCP schema has no definition named {definition} (in revision {})",
        revision.name()
    );
    // The whole document with a root `$ref`, so the definition's own `$ref`s resolve.
    let mut root = revision.root().clone();
    root["$ref"] = Value::String(format!("#/$defs/{definition}"));
    let validator = jsonschema::validator_for(&root).unwrap_or_else(|e| {
        panic!(
            "the MCP {} schema's {definition} does not compile: {e}",
            revision.name()
        )
    });
    let validator = Arc::new(validator);
    validators.insert(key, validator.clone());
    validator
}

/// Every way `value` breaks the 2025-11-25 schema definition `definition` (a name under
/// `$defs`, such as `CallToolResult`), as `at <instance path>: <error>` lines; empty when it
/// is valid.
///
/// Panics if the schema has no such definition.
pub fn validate_message(definition: &str, value: &Value) -> Vec<String> {
    validate_in(Revision::Legacy, definition, value)
}

/// [`validate_message`] against the schema of `revision`.
pub fn validate_in(revision: Revision, definition: &str, value: &Value) -> Vec<String> {
    validator(revision, definition)
        .iter_errors(value)
        .map(|error| {
            let at = error.instance_path().to_string();
            let at = if at.is_empty() { "/".to_string() } else { at };
            format!("at {at}: {error}")
        })
        .collect()
}

/// The result definition a client request's method is answered with.
pub fn result_definition(method: &str) -> &'static str {
    match method {
        "initialize" => "InitializeResult",
        "tools/list" => "ListToolsResult",
        "tools/call" => "CallToolResult",
        "resources/list" => "ListResourcesResult",
        "resources/templates/list" => "ListResourceTemplatesResult",
        "resources/read" => "ReadResourceResult",
        "prompts/list" => "ListPromptsResult",
        "prompts/get" => "GetPromptResult",
        "completion/complete" => "CompleteResult",
        "tasks/get" => "GetTaskResult",
        "tasks/result" => "GetTaskPayloadResult",
        "tasks/cancel" => "CancelTaskResult",
        "tasks/list" => "ListTasksResult",
        "ping" | "logging/setLevel" | "resources/subscribe" | "resources/unsubscribe" => {
            "EmptyResult"
        }
        // A method the schema does not know can only be answered with an error; if it was
        // answered with a result, the least the result must be is a `Result`.
        _ => "Result",
    }
}

/// The result definition of a 2026-07-28 answer: by `resultType` first (an interim
/// `input_required` result has its own shape, whatever the method), then by method; `None`
/// for a method 2026-07-28 does not have.
pub fn modern_result_definition(method: &str, result: &Value) -> Option<&'static str> {
    match result.get("resultType").and_then(Value::as_str) {
        Some("input_required") => return Some("InputRequiredResult"),
        // The tasks extension's polymorphic result (`tests/common/tasks.schema.json`).
        Some("task") => return Some("CreateTaskResult"),
        _ => {}
    }
    let definition = match method {
        "server/discover" => "DiscoverResult",
        "subscriptions/listen" => "SubscriptionsListenResult",
        "tasks/get" => "GetTaskResult",
        "tasks/update" | "tasks/cancel" => "TaskAcknowledgment",
        // Removed by the extension: only an error can answer them.
        "tasks/result" | "tasks/list" => return None,
        other => result_definition(other),
    };
    Revision::Modern.defines(definition).then_some(definition)
}

/// The 2026-07-28 definition of a JSON-RPC error by its code: the whole response for the
/// modern codes (`HeaderMismatchError`, ...), the error object for the standard ones.
fn modern_error_definition(code: i64) -> Option<(&'static str, bool)> {
    Some(match code {
        -32020 => ("HeaderMismatchError", true),
        -32021 => ("MissingRequiredClientCapabilityError", true),
        -32022 => ("UnsupportedProtocolVersionError", true),
        -32700 => ("ParseError", false),
        -32600 => ("InvalidRequestError", false),
        -32601 => ("MethodNotFoundError", false),
        -32602 => ("InvalidParamsError", false),
        -32603 => ("InternalError", false),
        _ => return None,
    })
}

/// The problems of a 2026-07-28 error response beyond its envelope: the shape its code
/// prescribes, and no legacy-only code (`basic/index.mdx`, "Error codes").
fn modern_error_problems(response: &Value) -> Vec<String> {
    let code = response["error"]["code"].as_i64().unwrap_or_default();
    match modern_error_definition(code) {
        Some((definition, true)) => validate_in(Revision::Modern, definition, response)
            .into_iter()
            .map(|p| format!("as {definition}: {p}"))
            .collect(),
        Some((definition, false)) => validate_in(Revision::Modern, definition, &response["error"])
            .into_iter()
            .map(|p| format!("error as {definition}: {p}"))
            .collect(),
        // -32002 (resource not found) and -32001 (session not found) are legacy codes:
        // 2026-07-28 reports a missing resource as -32602 with `data.uri`.
        None if code == -32002 || code == -32001 => vec![format!(
            "error code {code} belongs to the legacy era; 2026-07-28 never uses it"
        )],
        None => Vec::new(),
    }
}

/// The member of the union `union` (`ServerNotification`, `ServerRequest`) of `revision`
/// whose `method` is `method`, read from the schema itself so a new revision's members are
/// found too.
fn union_member(revision: Revision, union: &str, method: &str) -> Option<String> {
    let root = revision.root();
    root["$defs"][union]["anyOf"]
        .as_array()?
        .iter()
        .filter_map(|member| member["$ref"].as_str()?.strip_prefix("#/$defs/"))
        .find(|name| root["$defs"][*name]["properties"]["method"]["const"] == method)
        .map(str::to_string)
}

/// What was wrong with one message, for the panic report.
struct Broken {
    record: u64,
    what: String,
    problems: Vec<String>,
}

/// The problems of the response the server sent to a client message.
fn response_problems(message: &RpcMessage, response: &Value) -> Vec<String> {
    let revision = Revision::of(message);
    let method = message.method.as_deref().unwrap_or_default();
    let mut problems = Vec::new();
    if response.get("error").is_some() {
        problems.extend(validate_in(revision, "JSONRPCErrorResponse", response));
        if revision == Revision::Modern {
            problems.extend(modern_error_problems(response));
        }
    } else if let Some(result) = response.get("result") {
        problems.extend(validate_in(revision, "JSONRPCResultResponse", response));
        let definition = match revision {
            // A task-augmented call answers a CreateTaskResult (2025-11-25 tasks).
            Revision::Legacy if method == "tools/call" && result.get("task").is_some() => {
                Some("CreateTaskResult")
            }
            Revision::Legacy => Some(result_definition(method)),
            Revision::Modern => modern_result_definition(method, result),
        };
        match definition {
            Some(definition) => problems.extend(
                validate_in(revision, definition, result)
                    .into_iter()
                    .map(|p| format!("result as {definition}: {p}")),
            ),
            None => problems.push(format!(
                "a result to {method:?}, which {} does not have",
                revision.name()
            )),
        }
    } else {
        problems.extend(validate_in(revision, "JSONRPCResponse", response));
    }
    // Not a schema rule but the point of an id (2025-11-25 basic/index.mdx "Responses"): a
    // response names the request it answers. An error may have no id: the transport refuses
    // a whole POST (a batch, say) with one "error response that has no `id`"
    // (basic/transports.mdx "Sending Messages to the Server"), and each request's record
    // keeps that refusal.
    let id = response.get("id");
    if message.kind == RpcKind::Request && id.is_some() && id != message.rpc_id() {
        problems.push(format!(
            "the response's id {} is not the request's id {}",
            id.unwrap_or(&Value::Null),
            message.rpc_id().unwrap_or(&Value::Null)
        ));
    }
    problems
}

/// The problems of one JSON-RPC message the server sent as an HTTP body.
fn body_problems(revision: Revision, message: &Value) -> Vec<String> {
    let definition = if message.get("error").is_some() {
        "JSONRPCErrorResponse"
    } else if message.get("result").is_some() {
        "JSONRPCResultResponse"
    } else {
        "JSONRPCMessage"
    };
    validate_in(revision, definition, message)
}

/// The problems of a notification or request the server pushed to the client.
fn pushed_problems(message: &RpcMessage) -> Vec<String> {
    let revision = Revision::of(message);
    let method = message.method.as_deref().unwrap_or_default();
    let (envelope, union) = match message.kind {
        RpcKind::Request => ("JSONRPCRequest", "ServerRequest"),
        RpcKind::Notification => ("JSONRPCNotification", "ServerNotification"),
        // The capture records no other kind from the server (its responses sit on the
        // requests' records); should it ever, the envelope is all there is to check.
        RpcKind::Response | RpcKind::Invalid => {
            return validate_in(revision, "JSONRPCMessage", &message.message);
        }
    };
    let mut problems = validate_in(revision, envelope, &message.message);
    match union_member(revision, union, method) {
        Some(definition) => problems.extend(
            validate_in(revision, &definition, &message.message)
                .into_iter()
                .map(|p| format!("as {definition}: {p}")),
        ),
        None => {
            problems.push(format!(
                "no {union} in the {} schema has the method {method:?}",
                revision.name()
            ));
        }
    }
    problems
}

/// Each message the server sent in `log` that breaks the schema, with its problems.
fn mcp_problems(log: &Log) -> Vec<Broken> {
    let mut invalid = Vec::new();
    for record in log.records() {
        let Entry::Mcp(message) = &record.entry else {
            continue;
        };
        let problems = match message.direction {
            Direction::ClientToServer => match &message.response {
                Some(response) => response_problems(message, response),
                None => continue,
            },
            Direction::ServerToClient => pushed_problems(message),
        };
        if problems.is_empty() {
            continue;
        }
        let method = message.method.as_deref().unwrap_or("an invalid message");
        let name = message
            .name
            .as_deref()
            .map(|name| format!(" {name}"))
            .unwrap_or_default();
        let era = Revision::of(message).name();
        let what = match message.direction {
            Direction::ClientToServer => format!(
                "({era}) the response to {method}{name}: {}",
                message.response.as_deref().unwrap_or(&Value::Null)
            ),
            Direction::ServerToClient => format!(
                "({era}) the server's {:?} {method}: {}",
                message.kind, message.message
            ),
        };
        invalid.push(Broken {
            record: record.id,
            what,
            problems,
        });
    }
    invalid
}

/// Each JSON response body on the `http` layer that is not a JSON-RPC message, skipping the
/// exchanges whose answers `mcp` records hold (they are checked there, by method).
fn http_problems(log: &Log) -> Vec<Broken> {
    let answered: HashSet<u64> = log
        .records()
        .iter()
        .filter_map(|record| match &record.entry {
            Entry::Mcp(m) if m.direction == Direction::ClientToServer && m.response.is_some() => {
                m.carried_by
            }
            _ => None,
        })
        .collect();
    let mut invalid = Vec::new();
    for record in log.records() {
        let Entry::Http(exchange) = &record.entry else {
            continue;
        };
        let json = exchange
            .response_header("content-type")
            .is_some_and(|t| t.starts_with("application/json"));
        // Other routes on the listener (the capability manifest, OAuth metadata) answer
        // their own JSON documents, not JSON-RPC.
        // (`/.well-known/oauth-protected-resource/mcp` ends like an MCP endpoint.)
        let mcp_endpoint =
            exchange.path.ends_with("/mcp") && !exchange.path.starts_with("/.well-known/");
        if !json || !mcp_endpoint || answered.contains(&record.id) {
            continue;
        }
        let Some(body) = exchange.response_body.as_deref() else {
            continue;
        };
        let messages = match body {
            Value::Array(batch) => batch.iter().collect(),
            single => vec![single],
        };
        let revision = Revision::of_header(exchange.request_header("mcp-protocol-version"));
        for message in messages {
            let problems = body_problems(revision, message);
            if !problems.is_empty() {
                invalid.push(Broken {
                    record: record.id,
                    what: format!(
                        "({}) the body of {} {} → {}: {message}",
                        revision.name(),
                        exchange.method,
                        exchange.path,
                        exchange.status.unwrap_or_default()
                    ),
                    problems,
                });
            }
        }
    }
    invalid
}

/// Panics with one entry per message (record id, what it was, each instance path and
/// error) unless `invalid` is empty.
fn report(invalid: &[Broken]) {
    if invalid.is_empty() {
        return;
    }
    let mut report = format!(
        "{} server message(s) break the MCP schema of their era:\n",
        invalid.len()
    );
    for message in invalid {
        let _ = writeln!(report, "- record {}: {}", message.record, message.what);
        for problem in &message.problems {
            let _ = writeln!(report, "    {problem}");
        }
    }
    panic!("{report}");
}

/// Panics, listing each message, unless everything the server sent in `log` validates
/// against the MCP schema of its era (2025-11-25 for legacy records, 2026-07-28 for modern
/// ones, whose errors must also have the shape their code prescribes):
/// - the response to each client request or invalid message: a `JSONRPCResultResponse`
///   (whose `result` is also checked against the method's result type, e.g. `tools/call` →
///   `CallToolResult`) or a `JSONRPCErrorResponse`, with the request's id (or none, for a
///   refusal of the whole POST);
/// - each notification the server sent: its `ServerNotification` member by method;
/// - each request the server sent: its `ServerRequest` member by method;
/// - each JSON body of an HTTP exchange that no `mcp` record answers (parse errors, refused
///   headers, oversized bodies), as in [`assert_http_bodies_are_json_rpc`].
///
/// Pending and cancelled requests have no response and are skipped.
pub fn assert_server_messages_valid(log: &Log) {
    let mut invalid = mcp_problems(log);
    invalid.extend(http_problems(log));
    report(&invalid);
}

/// [`assert_server_messages_valid`] for a log in which faults fired: the requests a fault
/// fired for, and the HTTP exchanges that carried them, hold what the fault made of them (a
/// broken body, a wrong id), so they are skipped; everything else must still validate.
pub fn assert_unfaulted_messages_valid(log: &Log) {
    let faulted: HashSet<u64> = log
        .records()
        .iter()
        .filter_map(|record| match &record.entry {
            Entry::Mcp(m) if m.fault.is_some() => Some([Some(record.id), m.carried_by]),
            _ => None,
        })
        .flatten()
        .flatten()
        .collect();
    let mut invalid = mcp_problems(log);
    invalid.extend(http_problems(log));
    invalid.retain(|broken| !faulted.contains(&broken.record));
    report(&invalid);
}

/// Panics, listing each exchange, unless every JSON body the server answered on the `http`
/// layer without an `mcp` record holding it is a JSON-RPC message (or a batch of them):
/// the errors the transport sends before any method runs.
pub fn assert_http_bodies_are_json_rpc(log: &Log) {
    report(&http_problems(log));
}
