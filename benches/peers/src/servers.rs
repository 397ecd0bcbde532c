//! The servers measured, each answering `initialize` and `tools/call echo` with the text of
//! its `message` argument: the mcp-decoy fixture, rmcp's Streamable HTTP server in its two
//! modes, wiremock, and the bare axum handler of `benches/baseline`.

use std::net::{Ipv4Addr, SocketAddr};

use axum::Router;
use axum::routing::post;
use axum::serve::ListenerExt;
use mcp_decoy::{MockMcpServer, Tool};
use rmcp::model::{
    CallToolRequestParams, CallToolResponse, CallToolResult, ContentBlock, InitializeResult,
    ListToolsResult, PaginatedRequestParams, ServerCapabilities,
};
use rmcp::service::RequestContext;
use rmcp::transport::streamable_http_server::session::local::LocalSessionManager;
use rmcp::transport::streamable_http_server::{StreamableHttpServerConfig, StreamableHttpService};
use rmcp::{ErrorData, RoleServer, ServerHandler};
use serde_json::{Value, json};
use tokio::task::JoinHandle;

use crate::client::{Connection, Failure};

#[allow(dead_code)]
#[path = "../../baseline/mod.rs"]
mod baseline;

/// Which server.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Kind {
    /// `MockMcpServer::builder().tool(Tool::echo()).start()`: its own thread and runtime.
    Fixture,
    /// rmcp 3.11, `legacy_session_mode(false)` + `json_response(true)`.
    RmcpStateless,
    /// rmcp 3.11 defaults: a session per client, answers as event streams.
    RmcpSse,
    /// wiremock 0.6 (`MockServer::start`, pooled) answering `initialize` only.
    Wiremock,
    /// The bare axum handler.
    Axum,
}

impl Kind {
    pub fn parse(name: &str) -> Option<Kind> {
        Some(match name {
            "fixture" => Kind::Fixture,
            "rmcp-stateless" => Kind::RmcpStateless,
            "rmcp-sse" => Kind::RmcpSse,
            "wiremock" => Kind::Wiremock,
            "axum" => Kind::Axum,
            _ => return None,
        })
    }

    pub fn name(self) -> &'static str {
        match self {
            Kind::Fixture => "fixture",
            Kind::RmcpStateless => "rmcp-stateless",
            Kind::RmcpSse => "rmcp-sse",
            Kind::Wiremock => "wiremock",
            Kind::Axum => "axum",
        }
    }
}

/// A started server; dropping it stops it without waiting.
pub enum Running {
    Fixture(MockMcpServer),
    Wiremock(wiremock::MockServer),
    /// rmcp or bare axum, a task on the caller's runtime.
    Task(String, JoinHandle<()>),
}

impl Running {
    pub fn url(&self) -> String {
        match self {
            Running::Fixture(server) => server.url(),
            Running::Wiremock(server) => format!("{}/mcp", server.uri()),
            Running::Task(url, _) => url.clone(),
        }
    }
}

impl Drop for Running {
    fn drop(&mut self) {
        if let Running::Task(_, task) = self {
            task.abort();
        }
    }
}

/// Starts `kind` (rmcp and axum as tasks of the current runtime, as a user's test would).
pub async fn start(kind: Kind) -> Running {
    match kind {
        Kind::Fixture => {
            Running::Fixture(MockMcpServer::builder().tool(Tool::echo()).start().await)
        }
        Kind::Wiremock => {
            use wiremock::matchers::{method, path};
            let server = wiremock::MockServer::start().await;
            wiremock::Mock::given(method("POST"))
                .and(path("/mcp"))
                .respond_with(
                    wiremock::ResponseTemplate::new(200)
                        .insert_header("mcp-session-id", SESSION_ID)
                        .set_body_json(initialize_answer()),
                )
                .mount(&server)
                .await;
            Running::Wiremock(server)
        }
        Kind::Axum => task(Router::new().route("/mcp", post(baseline::handle))).await,
        Kind::RmcpStateless => task(rmcp_router(false)).await,
        Kind::RmcpSse => task(rmcp_router(true)).await,
    }
}

async fn task(router: Router) -> Running {
    let listener = tokio::net::TcpListener::bind(SocketAddr::from((Ipv4Addr::LOCALHOST, 0)))
        .await
        .expect("bind loopback");
    let url = format!("http://{}/mcp", listener.local_addr().expect("local addr"));
    let listener = listener.tap_io(|tcp| {
        let _ = tcp.set_nodelay(true);
    });
    let served = tokio::spawn(async move {
        let _ = axum::serve(listener, router).await;
    });
    Running::Task(url, served)
}

fn rmcp_router(sessions: bool) -> Router {
    let config = StreamableHttpServerConfig::default()
        .with_legacy_session_mode(sessions)
        .with_json_response(!sessions)
        .with_sse_keep_alive(None);
    let service =
        StreamableHttpService::new(|| Ok(Echo), LocalSessionManager::default().into(), config);
    Router::new().route_service("/mcp", service)
}

/// A session id as long as the fixture's (32 hex digits), so the client reads as many bytes
/// from wiremock's answer as from the fixture's.
const SESSION_ID: &str = "00000000000000000000000000000001";

/// wiremock's canned `initialize` answer: the fixture's own, byte for byte, so that the
/// client's work (reading and parsing the answer) is the same for both and the comparison is
/// of the servers alone (`answers` checks it). The shorter answer it replaced (56 bytes
/// less, a 1-character session id) moved the fixture ÷ wiremock ratio by 1 % in debug
/// (1.193 → 1.179) and not past the noise in release (0.908 → 0.904).
fn initialize_answer() -> Value {
    json!({"jsonrpc": "2.0", "id": 0, "result": {
        "protocolVersion": "2025-11-25",
        "capabilities": {"tools": {"listChanged": true}, "logging": {}, "completions": {}},
        "serverInfo": {"name": "mcp-decoy", "version": "0.0.0-mock"},
    }})
}

/// Checks that wiremock answers `initialize` with the fixture's bytes (`initialize_answer`):
/// the same body and a session id of the same length, so neither start-up figure includes
/// client work the other does not.
pub async fn same_answers() -> Result<(), Failure> {
    let mut answers = Vec::new();
    for kind in [Kind::Fixture, Kind::Wiremock] {
        let server = start(kind).await;
        let mut connection = Connection::open(&server.url()).await?;
        answers.push(connection.initialize_bytes().await?);
    }
    let (fixture, wiremock) = (&answers[0], &answers[1]);
    let length = |session: &Option<String>| session.as_ref().map(String::len);
    if fixture.1 != wiremock.1 || length(&fixture.0) != length(&wiremock.0) {
        return Err(format!(
            "wiremock's canned initialize answer is not the fixture's: fix `initialize_answer`\n fixture:  {:?} {}\n wiremock: {:?} {}",
            fixture.0,
            String::from_utf8_lossy(&fixture.1),
            wiremock.0,
            String::from_utf8_lossy(&wiremock.1),
        )
        .into());
    }
    println!(
        "wiremock answers initialize with the fixture's {} bytes",
        fixture.1.len()
    );
    Ok(())
}

/// rmcp's echo: what a user of the SDK would write for the same tool.
#[derive(Clone)]
struct Echo;

impl ServerHandler for Echo {
    fn get_info(&self) -> rmcp::model::ServerConfig {
        InitializeResult::new(ServerCapabilities::builder().enable_tools().build())
    }

    async fn list_tools(
        &self,
        _request: Option<PaginatedRequestParams>,
        _context: RequestContext<RoleServer>,
    ) -> Result<ListToolsResult, ErrorData> {
        let schema = json!({"type": "object", "properties": {"message": {"type": "string"}}, "required": ["message"]});
        let Value::Object(schema) = schema else {
            unreachable!("a literal object")
        };
        Ok(ListToolsResult::with_all_items(vec![
            rmcp::model::Tool::new("echo", "Returns the `message` argument.", schema),
        ]))
    }

    async fn call_tool(
        &self,
        request: CallToolRequestParams,
        _context: RequestContext<RoleServer>,
    ) -> Result<CallToolResponse, ErrorData> {
        let text = request
            .arguments
            .as_ref()
            .and_then(|arguments| arguments.get("message"))
            .and_then(Value::as_str)
            .unwrap_or_default()
            .to_owned();
        Ok(CallToolResult::success(vec![ContentBlock::text(text)]).into())
    }
}
