//! Plain data that describes a decoy server: what the builder collects and what the app's
//! `servers.json` stores. No I/O and no sockets here; the engine checks a spec before it
//! runs it.
//!
//! Three of its types are named so often that their one path is the crate root:
//! [`crate::Fault`], [`crate::FaultRule`] and [`crate::ProtocolVersion`].

mod auth;
// `AuthScenario` is re-exported in `crate::oauth`, its one public path.
pub(crate) mod auth_scenario;
// `Fault` and `FaultRule` are re-exported at the crate root, their one public path.
pub(crate) mod fault;
mod prompt;
mod replay;
mod resource;
mod response;
mod script;
mod skill;
pub(crate) mod stdio;
mod task;
// `ProtocolVersion` is re-exported at the crate root, its one public path.
pub(crate) mod version;

use std::sync::{Arc, LazyLock};

use serde::{Deserialize, Serialize};
use serde_json::{Value, json};

use self::resource::{insert_opt, insert_text};

pub use auth::{
    AuthServerMetadata, Consent, IdentityProvider, IssResponse, JwtBearerIssuer, LegacyDiscovery,
    OAuthSpec, PreRegisteredClient, ResourceMetadataLocation, TokenEndpointAuthMethod,
};
pub(crate) use auth_scenario::AuthScenario;
pub use fault::{Delay, SessionExpiry};
pub(crate) use fault::{Fault, FaultRule};
pub use prompt::{PromptArgumentSpec, PromptSpec, default_prompt_template};
pub use replay::{CassetteSource, ReplaySpec};
pub use resource::{ResourceBody, ResourceSpec, ResourceTemplateSpec};
pub use response::{Comparison, Matcher, ResponseSpec};
pub(crate) use script::MAX_WAIT_MS;
pub use script::{AskMethod, Listing, LogLevel, Step};
pub use skill::{SkillFileSpec, SkillSpec};
pub use stdio::StdioSpec;
pub use task::{
    DEFAULT_POLL_INTERVAL_MS, DEFAULT_TASK_TTL_MS, MAX_TASK_MS, TaskFaults, TaskSpec, TaskSupport,
};
pub(crate) use version::ProtocolVersion;

/// The `serverInfo.version` of a server that sets none. Fixed rather than this crate's
/// version, so upgrading mcp-decoy changes no snapshot of a test's traffic.
pub const DEFAULT_SERVER_VERSION: &str = "0.0.0-mock";

/// The template of a tool created without one: the call's arguments as JSON text
/// (the product guide's default).
pub fn default_template() -> Value {
    json!({ "content": [{ "type": "text", "text": { "$json": { "$eval": "args" } } }] })
}

/// How the server answers a POSTed JSON-RPC request.
#[derive(Debug, Clone, Copy, Default, PartialEq, Eq, Serialize, Deserialize)]
#[cfg_attr(feature = "decoy-cli", derive(schemars::JsonSchema))]
#[serde(rename_all = "lowercase")]
#[non_exhaustive]
pub enum ResponseMode {
    /// One `application/json` body (the default).
    #[default]
    Json,
    /// A `text/event-stream` that carries the response as one `message` event, then ends.
    Sse,
}

/// Behavioural hints a client shows or acts on (spec `ToolAnnotations`).
#[derive(Debug, Clone, Default, PartialEq, Serialize, Deserialize)]
#[cfg_attr(feature = "decoy-cli", derive(schemars::JsonSchema))]
#[serde(rename_all = "camelCase", deny_unknown_fields)]
pub struct ToolAnnotations {
    /// A display title for the tool.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub title: Option<String>,
    /// The tool does not modify its environment.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub read_only_hint: Option<bool>,
    /// The tool may perform destructive updates.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub destructive_hint: Option<bool>,
    /// Calling the tool twice with the same arguments has no additional effect.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub idempotent_hint: Option<bool>,
    /// The tool interacts with an open world of external entities.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub open_world_hint: Option<bool>,
}

impl ToolAnnotations {
    pub(crate) fn is_empty(&self) -> bool {
        *self == ToolAnnotations::default()
    }
}

/// One tool of a server: what `tools/list` shows and how `tools/call` answers.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
#[cfg_attr(feature = "decoy-cli", derive(schemars::JsonSchema))]
#[serde(rename_all = "camelCase", deny_unknown_fields)]
pub struct ToolSpec {
    /// Unique on the server: 1-128 letters, digits, `_`, `-` or `.`.
    pub name: String,
    /// An optional display name.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub title: Option<String>,
    /// What the tool does, for the model behind the client.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub description: Option<String>,
    /// A JSON Schema with `"type": "object"` describing the arguments.
    #[serde(default = "empty_object_schema")]
    pub input_schema: Value,
    /// An optional JSON Schema for `structuredContent`.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub output_schema: Option<Value>,
    /// Behavioural hints.
    #[serde(default, skip_serializing_if = "ToolAnnotations::is_empty")]
    pub annotations: ToolAnnotations,
    /// The json-e template rendered into a `CallToolResult` on every call.
    #[serde(default = "default_template")]
    pub template: Value,
    /// Drafts are neither listed nor callable.
    #[serde(default = "yes")]
    pub published: bool,
    /// Steps run before the template renders (progress, logs, delays, client requests).
    #[serde(default, skip_serializing_if = "Vec::is_empty")]
    pub script: Vec<Step>,
    /// Spec `Icon`s, passed through to `tools/list`.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub icons: Option<Value>,
    /// `_meta`, passed through to `tools/list`.
    #[serde(default, rename = "_meta", skip_serializing_if = "Option::is_none")]
    pub meta: Option<Value>,
    /// Publish `x-mcp-header` annotations that break the spec's rules (for testing that
    /// clients drop the tool); the server checks them otherwise.
    #[serde(default, skip_serializing_if = "std::ops::Not::not")]
    pub allow_invalid_headers: bool,
    /// A 2026-07-28 `input_required` result of this tool carries no `requestState`, which
    /// `basic/patterns/mrtr.mdx` lets a server leave out: the retry's `inputResponses` are
    /// all it gets, so the script's `ask` steps must all come first (one round).
    #[serde(default, skip_serializing_if = "std::ops::Not::not")]
    pub omit_request_state: bool,
    /// Alternative answers chosen per call (conditions, sequences, faults), checked in order
    /// before the tool's own template, which is the fallback.
    #[serde(default, skip_serializing_if = "Vec::is_empty")]
    pub responses: Vec<ResponseSpec>,
    /// Calls may (or must) run as tasks, which run the script on the server's clock; `None`:
    /// never (2025-11-25 `execution.taskSupport` absent).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub task: Option<TaskSpec>,
}

fn yes() -> bool {
    true
}

fn empty_object_schema() -> Value {
    json!({ "type": "object" })
}

/// The process's one `echo` spec ([`ToolSpec::echo_shared`]).
static ECHO: LazyLock<Arc<ToolSpec>> = LazyLock::new(|| {
    Arc::new(ToolSpec {
        description: Some("Returns the `message` argument.".into()),
        input_schema: json!({
            "type": "object",
            "properties": { "message": { "type": "string", "description": "The text to return." } },
            "required": ["message"]
        }),
        template: json!({ "content": [{ "type": "text", "text": "${args.message}" }] }),
        ..ToolSpec::new("echo")
    })
});

impl ToolSpec {
    /// A published tool with an empty object schema and the default template.
    pub fn new(name: impl Into<String>) -> Self {
        ToolSpec {
            name: name.into(),
            title: None,
            description: None,
            input_schema: empty_object_schema(),
            output_schema: None,
            annotations: ToolAnnotations::default(),
            template: default_template(),
            published: true,
            script: Vec::new(),
            icons: None,
            meta: None,
            allow_invalid_headers: false,
            omit_request_state: false,
            responses: Vec::new(),
            task: None,
        }
    }

    /// Whether calls of this tool can run as tasks.
    pub(crate) fn has_tasks(&self) -> bool {
        self.task.as_ref().is_some_and(TaskSpec::allows_tasks)
    }

    /// The product's default tool: `echo` returns its `message` argument.
    pub fn echo() -> Self {
        (*Self::echo_shared()).clone()
    }

    /// `echo`, one copy for the process: a suite starts it in most of its fixtures, and
    /// sharing it costs less than building its JSON again or copying it.
    pub(crate) fn echo_shared() -> Arc<Self> {
        ECHO.clone()
    }

    /// Whether `tool` is [`echo_shared`](Self::echo_shared)'s very copy.
    pub(crate) fn is_echo_shared(tool: &Arc<Self>) -> bool {
        Arc::ptr_eq(tool, &ECHO)
    }

    /// The tool as a 2025-11-25 session's `tools/list` shows it: with
    /// `execution.taskSupport` when the tool has task settings.
    pub(crate) fn legacy_listing(&self) -> Value {
        let mut tool = self.listing();
        if let (Some(task), Some(object)) = (&self.task, tool.as_object_mut()) {
            object.insert(
                "execution".into(),
                json!({ "taskSupport": task.support.as_str() }),
            );
        }
        tool
    }

    /// The tool as `tools/list` shows it (spec `Tool`).
    pub(crate) fn listing(&self) -> Value {
        let mut tool = serde_json::Map::new();
        tool.insert("name".into(), json!(self.name));
        insert_text(&mut tool, "title", self.title.as_deref());
        insert_text(&mut tool, "description", self.description.as_deref());
        tool.insert("inputSchema".into(), self.input_schema.clone());
        insert_opt(&mut tool, "outputSchema", self.output_schema.clone());
        if !self.annotations.is_empty() {
            tool.insert("annotations".into(), json!(self.annotations));
        }
        insert_opt(&mut tool, "icons", self.icons.clone());
        insert_opt(&mut tool, "_meta", self.meta.clone());
        Value::Object(tool)
    }
}

/// Everything that defines one decoy server.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
#[cfg_attr(feature = "decoy-cli", derive(schemars::JsonSchema))]
#[serde(rename_all = "camelCase", deny_unknown_fields)]
pub struct ServerSpec {
    /// `serverInfo.name`.
    pub name: String,
    /// `serverInfo.version` (default `0.0.0-mock`: fixed, so upgrading mcp-decoy changes no
    /// snapshot).
    #[serde(default = "default_version")]
    pub version: String,
    /// `serverInfo.title`.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub title: Option<String>,
    /// `instructions` in the `initialize` result.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub instructions: Option<String>,
    /// Tools, drafts included, in listing order.
    #[serde(default)]
    pub tools: Vec<ToolSpec>,
    /// Static resources, in listing order.
    #[serde(default, skip_serializing_if = "Vec::is_empty")]
    pub resources: Vec<ResourceSpec>,
    /// Resource templates, in listing order.
    #[serde(default, skip_serializing_if = "Vec::is_empty")]
    pub resource_templates: Vec<ResourceTemplateSpec>,
    /// Prompts, in listing order.
    #[serde(default, skip_serializing_if = "Vec::is_empty")]
    pub prompts: Vec<PromptSpec>,
    /// Skills (the `io.modelcontextprotocol/skills` extension), in listing order: each file
    /// is a `skill://` resource, and the server declares the extension and answers
    /// `skills/list` and `skills/get`. Set when the server starts.
    #[serde(default, skip_serializing_if = "Vec::is_empty")]
    pub skills: Vec<SkillSpec>,
    /// Declare the skills extension's optional `directoryRead` and answer
    /// `resources/directory/read` with the direct children of a skill's folder (its
    /// subfolders as `inode/directory`). Off by default, as the extension's own default.
    #[serde(default, skip_serializing_if = "std::ops::Not::not")]
    pub skills_directory_read: bool,
    /// Items per page of every list method; `None` lists everything on one page.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub page_size: Option<usize>,
    /// How POSTed requests are answered.
    #[serde(default)]
    pub response_mode: ResponseMode,
    /// Revisions the server accepts; empty means all of [`ProtocolVersion::ALL`].
    #[serde(default, skip_serializing_if = "Vec::is_empty")]
    pub protocol_versions: Vec<ProtocolVersion>,
    /// Server-level faults, checked in order for every request.
    #[serde(default, skip_serializing_if = "Vec::is_empty")]
    pub faults: Vec<FaultRule>,
    /// When legacy sessions end on their own.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub session_expiry: Option<SessionExpiry>,
    /// Seed of the random delays, so a schedule reproduces; a fixed default when `None`.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub seed: Option<u64>,
    /// API keys accepted as `Authorization: Bearer KEY` on the MCP endpoint; when any is
    /// set, requests without one of them get `401` with `WWW-Authenticate: Bearer`. Each is
    /// 1-512 bytes of visible ASCII, no two alike. The capability manifest needs none.
    #[serde(default, skip_serializing_if = "Vec::is_empty")]
    pub api_keys: Vec<String>,
    /// `Host` names accepted besides `localhost`, `127.0.0.1` and `[::1]` (DNS-rebinding
    /// protection): `name` (any port), `name:port`, or `*.example.com` (any subdomain).
    /// Listing any turns the Host check on, and requests naming another host get `403`.
    /// Without a list, a test fixture on a loopback address checks anyway, and the app
    /// does not (its guide sends tunnels, which name their own host, to the MCP port).
    #[serde(default, skip_serializing_if = "Vec::is_empty")]
    pub allowed_hosts: Vec<String>,
    /// Serve the capability manifest beside the MCP endpoint, at
    /// `/.well-known/mcp-server.json` (the app: `/s/NAME/.well-known/mcp-server.json`).
    #[serde(default, skip_serializing_if = "std::ops::Not::not")]
    pub manifest: bool,
    /// OAuth 2.1: the MCP endpoint needs a bearer token from the server's own authorization
    /// server; `None`: no authorization.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub auth: Option<OAuthSpec>,
    /// How the server behaves as a process on stdio (slow start, ignoring EOF).
    #[serde(default, skip_serializing_if = "StdioSpec::is_default")]
    pub stdio: StdioSpec,
    /// Check each `tools/call`'s `arguments` against its tool's `inputSchema`: a call that
    /// breaks it gets `-32602` naming the JSON pointer of each violation, and its `mcp`
    /// record lists them (`argumentErrors`). Off by default: the decoy answers whatever
    /// arrives, as a server under test of a client should unless asked.
    #[serde(default, skip_serializing_if = "std::ops::Not::not")]
    pub validate_arguments: bool,
    /// Keep OAuth codes, tokens, client secrets, PKCE verifiers and `Authorization` header
    /// values unmasked in the capture. Off by default: a log, a snapshot or the app's UI
    /// shows `[redacted]`; a grader that must check a PKCE verifier or a Basic credential
    /// turns it on.
    #[serde(default, skip_serializing_if = "std::ops::Not::not")]
    pub capture_secrets: bool,
    /// Answer 2026-07-28 requests whose `Mcp-Method`, `Mcp-Name` or `Mcp-Param-*` headers
    /// are missing or wrong instead of refusing them (`-32020`), as the conformance suite's
    /// scenario servers do; the grader's servers turn it on so a client gets the answers it
    /// gets from the suite. Off by default: the headers are a MUST of 2026-07-28.
    #[serde(default, skip_serializing_if = "std::ops::Not::not")]
    pub lenient_routing_headers: bool,
    /// Replay a recorded session (a cassette) instead of serving the catalog: requests are
    /// answered as the recorded server answered them; see [`ReplaySpec`].
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub replay: Option<ReplaySpec>,
    /// Relay: the `http(s)://` MCP endpoint of a real server that every request is
    /// forwarded to (both layers captured); `None`: a mock. A relay has no catalog of its
    /// own, no `auth` (OAuth is the upstream's, relayed) and only `error` and `http`
    /// faults. Needs the `relay` cargo feature (on in the app).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub upstream: Option<String>,
    /// Relay: authorization-server hosts (`host`, `host:port`, or an origin such as
    /// `http://127.0.0.1:8080`) the OAuth legs may reach besides those discovery handed
    /// out and the upstream's own host; any other gets `403`. A bare host means `https`.
    #[serde(default, skip_serializing_if = "Vec::is_empty")]
    pub upstream_auth_hosts: Vec<String>,
    /// Relay: milliseconds the upstream has to connect and send its response head (and,
    /// for a response that is no event stream, its body); default 30,000, at most 600,000.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub upstream_timeout_ms: Option<u64>,
    /// Relay: a PEM file (path relative to the working directory) of one or more
    /// certificates the relay trusts for the upstream and its OAuth hosts besides the
    /// system's roots: a private or corporate CA, or a server's self-signed certificate.
    /// Read when the server starts; a file that cannot be read or holds no certificate is
    /// refused.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub upstream_ca_file: Option<String>,
}

fn default_version() -> String {
    DEFAULT_SERVER_VERSION.to_string()
}

impl ServerSpec {
    /// A server with no tools.
    pub fn new(name: impl Into<String>) -> Self {
        ServerSpec {
            name: name.into(),
            version: default_version(),
            title: None,
            instructions: None,
            tools: Vec::new(),
            resources: Vec::new(),
            resource_templates: Vec::new(),
            prompts: Vec::new(),
            skills: Vec::new(),
            skills_directory_read: false,
            page_size: None,
            response_mode: ResponseMode::Json,
            protocol_versions: Vec::new(),
            faults: Vec::new(),
            session_expiry: None,
            seed: None,
            api_keys: Vec::new(),
            allowed_hosts: Vec::new(),
            manifest: false,
            auth: None,
            stdio: StdioSpec::default(),
            validate_arguments: false,
            capture_secrets: false,
            lenient_routing_headers: false,
            replay: None,
            upstream: None,
            upstream_auth_hosts: Vec::new(),
            upstream_timeout_ms: None,
            upstream_ca_file: None,
        }
    }

    /// The product's default server: `echo`, with the published `echo` tool.
    pub fn echo() -> Self {
        ServerSpec {
            tools: vec![ToolSpec::echo()],
            ..ServerSpec::new("echo")
        }
    }

    /// The revisions served, newest first.
    pub(crate) fn versions_newest_first(&self) -> Vec<ProtocolVersion> {
        let mut versions = if self.protocol_versions.is_empty() {
            ProtocolVersion::ALL.to_vec()
        } else {
            self.protocol_versions.clone()
        };
        versions.sort();
        versions.dedup();
        versions.reverse();
        versions
    }
}

/// Limits that keep a server bounded; the defaults suit tests and the app alike. The builder
/// sets them one by one (`max_body_bytes`, `max_sessions`, ...), so users never name this.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize, Deserialize)]
#[cfg_attr(feature = "decoy-cli", derive(schemars::JsonSchema))]
#[serde(rename_all = "camelCase")]
pub(crate) struct Limits {
    /// Largest accepted request body; larger ones get `413`.
    pub(crate) max_body_bytes: usize,
    /// Live sessions kept; past it the oldest session ends (its client gets `404`).
    pub(crate) max_sessions: usize,
    /// Bytes of `clientInfo` and `capabilities` the live sessions keep from their clients'
    /// `initialize`; past it the oldest sessions end, as past `max_sessions`.
    pub(crate) max_session_bytes: usize,
    /// Server-to-client messages queued per session while no GET stream is open.
    pub(crate) max_queued_messages: usize,
    /// Bytes of events the sessions keep for resumption (`Last-Event-ID`), all sessions
    /// together; past it the oldest events of any session are evicted.
    pub(crate) max_retained_event_bytes: usize,
    /// Bytes of finished tasks (results, arguments) kept for `tasks/get` and
    /// `tasks/result`; past it the oldest finished tasks are forgotten.
    pub(crate) max_task_bytes: usize,
    /// Open `subscriptions/listen` streams allowed at once; past it a new one is refused with
    /// `503` (0 refuses every listen).
    pub(crate) max_listen_streams: usize,
    /// Milliseconds an idle event stream (a legacy GET stream, a `subscriptions/listen`
    /// stream) waits before sending a `: keep-alive` comment; at least 1.
    pub(crate) keep_alive_ms: u64,
    /// Tasks kept at once (live, finished or expired); past it the oldest finished one is
    /// forgotten, and a call that would start one more live task is refused.
    pub(crate) max_tasks: usize,
}

impl Default for Limits {
    fn default() -> Self {
        Limits {
            max_body_bytes: 4 * 1024 * 1024,
            max_sessions: 10_000,
            max_session_bytes: 64 * 1024 * 1024,
            max_queued_messages: 1_000,
            max_retained_event_bytes: 64 * 1024 * 1024,
            max_task_bytes: 64 * 1024 * 1024,
            max_listen_streams: 1_000,
            keep_alive_ms: 15_000,
            max_tasks: 1_000,
        }
    }
}
