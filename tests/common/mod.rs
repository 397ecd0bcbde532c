//! Helpers shared by the integration tests: an rmcp client connected to a decoy, a handler
//! that records `notifications/tools/list_changed`, and raw HTTP for what rmcp will not send.
//!
//! Every helper panics with a message naming the step that failed, so a broken test says
//! where it broke instead of showing a bare `unwrap` on `None`.

#![allow(
    dead_code,
    reason = "each test binary (one per area) uses only part of these helpers"
)]

use std::time::Duration;

use rmcp::model::{
    CallToolRequestParams, CallToolResult, ClientCapabilities, ClientConfig, Implementation,
    ProtocolVersion,
};
use rmcp::service::{NotificationContext, RunningService};
use rmcp::transport::StreamableHttpClientTransport;
use rmcp::{ClientHandler, RoleClient, ServiceExt};
use serde_json::Value;
use tokio::sync::mpsc;

/// How long a step that should succeed may take before the test gives up. Generous, so a
/// loaded CI machine does not fail a correct test; a hang still ends with a clear message.
pub const PATIENCE: Duration = Duration::from_secs(10);

/// How long to wait for a notification that must *not* arrive. Only used after a positive
/// control has proven the channel delivers, so a short wait is enough.
pub const QUIET: Duration = Duration::from_millis(300);

/// The `clientInfo` the tests send: fixed, so snapshots do not change with rmcp's version.
pub const CLIENT_NAME: &str = "decoy-tests";

/// The client's `initialize` params: pinned to the newest revision that still has an
/// `initialize` handshake (rmcp's default, 2026-07-28, has none), as a session-based client
/// would send.
pub fn client_config() -> ClientConfig {
    ClientConfig::new(
        ClientCapabilities::default(),
        Implementation::new(CLIENT_NAME, "1.0.0"),
    )
    .with_protocol_version(ProtocolVersion::LATEST_WITH_INITIALIZE)
}

/// A `ClientHandler` that forwards every `notifications/tools/list_changed` to a channel.
#[derive(Debug)]
pub struct Recorder {
    config: ClientConfig,
    list_changed: mpsc::UnboundedSender<()>,
}

impl ClientHandler for Recorder {
    fn get_info(&self) -> ClientConfig {
        self.config.clone()
    }

    async fn on_tool_list_changed(&self, _context: NotificationContext<RoleClient>) {
        // The receiver may be gone when a test ignores notifications; that is fine.
        let _ = self.list_changed.send(());
    }
}

/// An rmcp client session with a decoy.
pub type Client = RunningService<RoleClient, Recorder>;

/// The `tools/list_changed` notifications one client received, in arrival order.
#[derive(Debug)]
pub struct ListChanged {
    rx: mpsc::UnboundedReceiver<()>,
}

impl ListChanged {
    /// Waits for the next notification; panics naming `after` if none comes in time.
    pub async fn expect_one(&mut self, after: &str) {
        match tokio::time::timeout(PATIENCE, self.rx.recv()).await {
            Ok(Some(())) => {}
            Ok(None) => panic!("the client stopped before list_changed arrived after {after}"),
            Err(_) => {
                panic!("no notifications/tools/list_changed within {PATIENCE:?} after {after}")
            }
        }
    }

    /// Whether no notification arrives within [`QUIET`].
    pub async fn stays_quiet(&mut self) -> bool {
        tokio::time::timeout(QUIET, self.rx.recv()).await.is_err()
    }
}

/// Connects an rmcp client to `url` with the legacy `initialize` handshake.
pub async fn connect(url: &str) -> Client {
    connect_watching(url).await.0
}

/// Connects like [`connect`], keeping the channel of `list_changed` notifications.
pub async fn connect_watching(url: &str) -> (Client, ListChanged) {
    connect_with(url, client_config()).await
}

/// Connects with the given `initialize` params.
pub async fn connect_with(url: &str, config: ClientConfig) -> (Client, ListChanged) {
    let transport = StreamableHttpClientTransport::from_uri(url.to_string());
    connect_over(transport, config, url).await
}

/// Connects rmcp's client to `server` over an in-memory duplex (the stdio framing), keeping
/// the channel of `list_changed` notifications.
pub async fn connect_duplex(server: &mcp_decoy::MockMcpServer) -> (Client, ListChanged) {
    connect_over(server.connect_duplex(), client_config(), "the duplex").await
}

/// Connects rmcp's client over any transport (`what` names it in failures), keeping the
/// channel of `list_changed` notifications.
pub async fn connect_over<T, E, A>(
    transport: T,
    config: ClientConfig,
    what: &str,
) -> (Client, ListChanged)
where
    T: rmcp::transport::IntoTransport<RoleClient, E, A>,
    E: std::error::Error + Send + Sync + 'static,
{
    let (tx, rx) = mpsc::unbounded_channel();
    let handler = Recorder {
        config,
        list_changed: tx,
    };
    let client = match tokio::time::timeout(PATIENCE, handler.serve(transport)).await {
        Ok(Ok(client)) => client,
        Ok(Err(error)) => panic!("the rmcp client failed to initialize over {what}: {error}"),
        Err(_) => panic!("initialize over {what} took longer than {PATIENCE:?}"),
    };
    (client, ListChanged { rx })
}

/// How many `method` messages the server sent (list changes, requests of a script).
pub fn sent_by_server(log: &mcp_decoy::log::Log, method: &str) -> usize {
    log.mcp()
        .method(method)
        .records()
        .iter()
        .filter(|(_, m)| m.direction == mcp_decoy::log::Direction::ServerToClient)
        .count()
}

/// `tools/call` params for `tool` with `arguments` (a JSON object).
pub fn call(tool: &str, arguments: Value) -> CallToolRequestParams {
    let Value::Object(arguments) = arguments else {
        panic!("tool arguments must be a JSON object, got {arguments}");
    };
    CallToolRequestParams::new(tool.to_string()).with_arguments(arguments)
}

/// Calls `tool` and returns the result, panicking if the call failed at the JSON-RPC level.
pub async fn call_ok(client: &Client, tool: &str, arguments: Value) -> CallToolResult {
    tokio::time::timeout(PATIENCE, client.call_tool(call(tool, arguments)))
        .await
        .unwrap_or_else(|_| panic!("tools/call {tool} took longer than {PATIENCE:?}"))
        .unwrap_or_else(|e| panic!("tools/call {tool} failed: {e}"))
}

/// The text of the result's only content block.
pub fn text(result: &CallToolResult) -> &str {
    assert_eq!(
        result.content.len(),
        1,
        "expected one content block, got {:?}",
        result.content
    );
    &result.content[0]
        .as_text()
        .unwrap_or_else(|| panic!("the content block is not text: {:?}", result.content[0]))
        .text
}

/// The tools the client lists, every page, in listing order.
pub async fn list_tools(client: &Client) -> Vec<rmcp::model::Tool> {
    tokio::time::timeout(PATIENCE, client.list_all_tools())
        .await
        .expect("tools/list took too long")
        .expect("tools/list failed")
}

/// The names of the tools the client lists, in listing order.
pub async fn tool_names(client: &Client) -> Vec<String> {
    list_tools(client)
        .await
        .into_iter()
        .map(|t| t.name.to_string())
        .collect()
}

/// The one session the server has, for tests with a single client.
pub fn only_session(server: &mcp_decoy::MockMcpServer) -> String {
    let sessions = server.sessions();
    assert_eq!(sessions.len(), 1, "expected one live session: {sessions:?}");
    sessions[0].id.clone()
}

/// POSTs a `tools/list` request with `session` as a raw HTTP client would, for requests the
/// rmcp client would not send (it re-initializes on 404).
pub async fn raw_tools_list(url: &str, session: &str) -> reqwest::Response {
    reqwest::Client::new()
        .post(url)
        .header("content-type", "application/json")
        .header("accept", "application/json, text/event-stream")
        .header("mcp-session-id", session)
        .header("mcp-protocol-version", "2025-11-25")
        .body(r#"{"jsonrpc":"2.0","id":99,"method":"tools/list","params":{}}"#)
        .send()
        .await
        .expect("the raw tools/list POST could not be sent")
}

/// The text of `f`'s panic; fails when `f` does not panic.
pub fn panic_text(f: impl FnOnce()) -> String {
    let payload =
        std::panic::catch_unwind(std::panic::AssertUnwindSafe(f)).expect_err("it did not panic");
    payload
        .downcast_ref::<String>()
        .cloned()
        .or_else(|| payload.downcast_ref::<&str>().map(|s| s.to_string()))
        .expect("the panic payload is not text")
}

/// The example `name` (`examples/NAME.rs`), which `cargo test` builds beside the test
/// binaries; fails saying how to build it when it is not there.
pub fn built_example(name: &str) -> std::path::PathBuf {
    let program = std::env::current_exe()
        .ok()
        .and_then(|exe| Some(exe.parent()?.parent()?.join("examples")))
        .expect("the target directory")
        .join(format!("{name}{}", std::env::consts::EXE_SUFFIX));
    assert!(
        program.is_file(),
        "{} is not built: `cargo test` builds it, or `cargo build --example {name}`",
        program.display()
    );
    program
}

/// Checks of what a decoy sent against the MCP JSON schema.
pub mod schema;

/// A raw-HTTP client of either era.
pub mod peer;

/// The 2025-11-25 task tests' tool and requests.
pub mod legacy_tasks;

/// The session the cassette tests record and replay.
pub mod recorded;
/// A real rmcp server over Streamable HTTP, the upstream of relay tests.
pub mod upstream;

/// Raw HTTP/1.1 on a TCP socket, byte by byte, for what no HTTP client will send.
pub mod wire;

/// A legacy session over raw HTTP (reqwest): headers, statuses and bodies as they are.
pub mod raw;

/// Server-sent events read field by field.
pub mod sse;

/// The real `mcp-decoy` binary as a child process.
#[cfg(feature = "decoy-cli")]
pub mod app_process;

/// A real browser (Chromium through chromedriver) driving the app's web UI.
#[cfg(feature = "decoy-cli")]
pub mod browser;

// ---------------------------------------------------------------------------------------
// A client that answers server-initiated requests and hears progress and log notifications.

/// What an [`Answering`] client heard from the server, in the order its handler ran.
#[derive(Debug, Clone, PartialEq)]
pub enum Heard {
    /// The params of a `notifications/progress`.
    Progress(Value),
    /// The params of a `notifications/message`.
    Log(Value),
    /// A request from the server: its method and params.
    Asked {
        /// `sampling/createMessage`, `elicitation/create` or `roots/list`.
        method: &'static str,
        /// Its params (`null` for `roots/list`).
        params: Value,
    },
}

/// What an [`Answering`] client declares and answers. A request without an answer here gets
/// a JSON-RPC error back.
#[derive(Debug, Clone, Default)]
pub struct Answers {
    /// `capabilities` of `initialize` (a `ClientCapabilities` as JSON; `{}` when null).
    pub capabilities: Value,
    /// The `CreateMessageResult` for `sampling/createMessage`.
    pub sampling: Option<Value>,
    /// The `ElicitResult` for `elicitation/create` (form and URL mode alike).
    pub elicitation: Option<Value>,
    /// The `ListRootsResult` for `roots/list`.
    pub roots: Option<Value>,
}

/// A `ClientHandler` that answers sampling, elicitation and roots requests from [`Answers`]
/// and forwards everything it hears to a channel.
#[derive(Debug)]
pub struct Answering {
    config: ClientConfig,
    answers: Answers,
    heard: mpsc::UnboundedSender<Heard>,
}

/// The answer configured for `method`, typed, or the JSON-RPC error a client without one sends.
fn configured<T: serde::de::DeserializeOwned>(
    answer: Option<&Value>,
    method: &str,
) -> Result<T, rmcp::ErrorData> {
    let answer = answer.ok_or_else(|| {
        rmcp::ErrorData::internal_error(format!("the test client has no answer for {method}"), None)
    })?;
    serde_json::from_value(answer.clone()).map_err(|e| {
        rmcp::ErrorData::internal_error(
            format!("the test's answer to {method} is invalid: {e}"),
            None,
        )
    })
}

fn as_json(value: &impl serde::Serialize) -> Value {
    serde_json::to_value(value).expect("rmcp params serialize to JSON")
}

#[allow(
    deprecated,
    reason = "rmcp marks sampling, roots and logging deprecated (SEP-2577); 2025-11-25 has them"
)]
impl ClientHandler for Answering {
    fn get_info(&self) -> ClientConfig {
        self.config.clone()
    }

    async fn on_progress(
        &self,
        params: rmcp::model::ProgressNotificationParam,
        _context: NotificationContext<RoleClient>,
    ) {
        let _ = self.heard.send(Heard::Progress(as_json(&params)));
    }

    async fn on_logging_message(
        &self,
        params: rmcp::model::LoggingMessageNotificationParam,
        _context: NotificationContext<RoleClient>,
    ) {
        let _ = self.heard.send(Heard::Log(as_json(&params)));
    }

    async fn create_message(
        &self,
        params: rmcp::model::CreateMessageRequestParams,
        _context: rmcp::service::RequestContext<RoleClient>,
    ) -> Result<rmcp::model::CreateMessageResult, rmcp::ErrorData> {
        let method = "sampling/createMessage";
        let _ = self.heard.send(Heard::Asked {
            method,
            params: as_json(&params),
        });
        configured(self.answers.sampling.as_ref(), method)
    }

    async fn create_elicitation(
        &self,
        params: rmcp::model::ElicitRequestParams,
        _context: rmcp::service::RequestContext<RoleClient>,
    ) -> Result<rmcp::model::ElicitResult, rmcp::ErrorData> {
        let method = "elicitation/create";
        let _ = self.heard.send(Heard::Asked {
            method,
            params: as_json(&params),
        });
        configured(self.answers.elicitation.as_ref(), method)
    }

    async fn list_roots(
        &self,
        _context: rmcp::service::RequestContext<RoleClient>,
    ) -> Result<rmcp::model::ListRootsResult, rmcp::ErrorData> {
        let method = "roots/list";
        let _ = self.heard.send(Heard::Asked {
            method,
            params: Value::Null,
        });
        configured(self.answers.roots.as_ref(), method)
    }
}

/// An rmcp client session whose handler is [`Answering`].
pub type AnsweringClient = RunningService<RoleClient, Answering>;

/// What an [`Answering`] client heard, in order.
#[derive(Debug)]
pub struct Hearing {
    rx: mpsc::UnboundedReceiver<Heard>,
}

impl Hearing {
    /// The next thing heard; panics naming `what` if nothing comes within [`PATIENCE`].
    pub async fn next(&mut self, what: &str) -> Heard {
        match tokio::time::timeout(PATIENCE, self.rx.recv()).await {
            Ok(Some(heard)) => heard,
            Ok(None) => panic!("the client stopped before it heard {what}"),
            Err(_) => panic!("the client did not hear {what} within {PATIENCE:?}"),
        }
    }

    /// Everything heard until nothing more arrives for [`QUIET`].
    pub async fn rest(&mut self) -> Vec<Heard> {
        let mut heard = Vec::new();
        while let Ok(Some(next)) = tokio::time::timeout(QUIET, self.rx.recv()).await {
            heard.push(next);
        }
        heard
    }
}

/// Connects an [`Answering`] client to `url` (legacy `initialize`, 2025-11-25) that declares
/// and answers what `answers` says.
pub async fn connect_answering(url: &str, answers: Answers) -> (AnsweringClient, Hearing) {
    let transport = StreamableHttpClientTransport::from_uri(url.to_string());
    connect_answering_over(transport, answers, url).await
}

/// [`connect_answering`] over any transport (`what` names it in failures).
pub async fn connect_answering_over<T, E, A>(
    transport: T,
    answers: Answers,
    what: &str,
) -> (AnsweringClient, Hearing)
where
    T: rmcp::transport::IntoTransport<RoleClient, E, A>,
    E: std::error::Error + Send + Sync + 'static,
{
    let capabilities: ClientCapabilities = if answers.capabilities.is_null() {
        ClientCapabilities::default()
    } else {
        serde_json::from_value(answers.capabilities.clone())
            .unwrap_or_else(|e| panic!("Answers::capabilities is not ClientCapabilities: {e}"))
    };
    let config = ClientConfig::new(capabilities, Implementation::new(CLIENT_NAME, "1.0.0"))
        .with_protocol_version(ProtocolVersion::LATEST_WITH_INITIALIZE);
    let (tx, rx) = mpsc::unbounded_channel();
    let handler = Answering {
        config,
        answers,
        heard: tx,
    };
    let client = match tokio::time::timeout(PATIENCE, handler.serve(transport)).await {
        Ok(Ok(client)) => client,
        Ok(Err(error)) => panic!("the rmcp client failed to initialize over {what}: {error}"),
        Err(_) => panic!("initialize over {what} took longer than {PATIENCE:?}"),
    };
    (client, Hearing { rx })
}

/// [`call_ok`] for a client with any handler.
pub async fn call_with<H: ClientHandler>(
    client: &RunningService<RoleClient, H>,
    tool: &str,
    arguments: Value,
) -> CallToolResult {
    tokio::time::timeout(PATIENCE, client.call_tool(call(tool, arguments)))
        .await
        .unwrap_or_else(|_| panic!("tools/call {tool} took longer than {PATIENCE:?}"))
        .unwrap_or_else(|e| panic!("tools/call {tool} failed: {e}"))
}

/// The names `tools/list` shows a client with any handler.
pub async fn list_tools_with<H: ClientHandler>(
    client: &RunningService<RoleClient, H>,
) -> Vec<String> {
    tokio::time::timeout(PATIENCE, client.list_all_tools())
        .await
        .unwrap_or_else(|_| panic!("tools/list took longer than {PATIENCE:?}"))
        .unwrap_or_else(|e| panic!("tools/list failed: {e}"))
        .into_iter()
        .map(|tool| tool.name.to_string())
        .collect()
}

/// A legacy `initialize` request body (2025-06-18), for raw HTTP.
pub fn initialize_body() -> Value {
    serde_json::json!({
        "jsonrpc": "2.0", "id": 1, "method": "initialize",
        "params": { "protocolVersion": "2025-06-18", "capabilities": {},
                    "clientInfo": { "name": CLIENT_NAME, "version": "1.0.0" } },
    })
}

/// Calls `shout` (of `app_process::SHOUT_SERVERS`) three times with 600 KiB, each answered
/// whole on an event stream: past a 1 MiB budget of retained events.
pub async fn shout_600_kib_three_times(client: &Client) {
    for _ in 0..3 {
        let result = call_ok(
            client,
            "shout",
            serde_json::json!({ "message": "m".repeat(600 * 1024) }),
        )
        .await;
        assert_eq!(text(&result).len(), 600 * 1024);
    }
}
