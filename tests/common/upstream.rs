//! A real upstream for relay tests: the official rmcp server over Streamable HTTP, in
//! either response mode (a stateful session answering on event streams, or stateless JSON).
//! Its tools: `echo` returns `message`; `work` sends a `notifications/progress` to the
//! token the call carries, then answers `done`.

use std::sync::Arc;

use mcp_decoy::log::FailureCause;
use rmcp::model::{
    CallToolRequestParams, CallToolResponse, CallToolResult, ContentBlock, ListToolsResult,
    PaginatedRequestParams, ProgressNotificationParam, ServerCapabilities, ServerConfig, Tool,
};
use rmcp::service::RequestContext;
use rmcp::transport::streamable_http_server::session::local::LocalSessionManager;
use rmcp::transport::streamable_http_server::{StreamableHttpServerConfig, StreamableHttpService};
use rmcp::{ErrorData, RoleServer, ServerHandler};
use serde_json::{Value, json};
use tokio_util::sync::CancellationToken;

/// How the upstream answers POSTed requests.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Mode {
    /// Legacy sessions (`Mcp-Session-Id`), every answer an event stream.
    StatefulSse,
    /// No sessions, `application/json` answers where nothing streams.
    StatelessJson,
}

#[derive(Debug, Clone)]
struct Upstream;

impl ServerHandler for Upstream {
    fn get_info(&self) -> ServerConfig {
        ServerConfig::new(ServerCapabilities::builder().enable_tools().build())
    }

    async fn list_tools(
        &self,
        _request: Option<PaginatedRequestParams>,
        _context: RequestContext<RoleServer>,
    ) -> Result<ListToolsResult, ErrorData> {
        let schema = |value: serde_json::Value| match value {
            serde_json::Value::Object(map) => Arc::new(map),
            _ => Arc::default(),
        };
        Ok(ListToolsResult::with_all_items(vec![
            Tool::new(
                "echo",
                "Returns `message`.",
                schema(
                    json!({ "type": "object", "properties": { "message": { "type": "string" } } }),
                ),
            ),
            Tool::new(
                "work",
                "Reports progress, then answers.",
                schema(json!({ "type": "object" })),
            ),
        ]))
    }

    async fn call_tool(
        &self,
        request: CallToolRequestParams,
        context: RequestContext<RoleServer>,
    ) -> Result<CallToolResponse, ErrorData> {
        let text = match request.name.as_ref() {
            "echo" => request
                .arguments
                .as_ref()
                .and_then(|a| a.get("message"))
                .and_then(|m| m.as_str())
                .unwrap_or_default()
                .to_string(),
            "work" => {
                if let Some(token) = context.meta.get_progress_token() {
                    context
                        .peer
                        .notify_progress(
                            ProgressNotificationParam::new(token, 50.0).with_total(100.0),
                        )
                        .await
                        .map_err(|e| ErrorData::internal_error(e.to_string(), None))?;
                }
                "done".to_string()
            }
            other => return Err(ErrorData::invalid_params(format!("no tool {other}"), None)),
        };
        Ok(CallToolResult::success(vec![ContentBlock::text(text)]).into())
    }
}

/// A running rmcp upstream; stops when dropped.
pub struct RmcpUpstream {
    pub url: String,
    stop: CancellationToken,
}

impl Drop for RmcpUpstream {
    fn drop(&mut self) {
        self.stop.cancel();
    }
}

/// The rmcp server's routes (`/mcp`) answering in `mode`, until `stop` is cancelled; for
/// a test that serves them its own way (TLS, HTTP/2 only).
pub fn rmcp_router(mode: Mode, stop: &CancellationToken) -> axum::Router {
    let config = StreamableHttpServerConfig::default()
        .with_legacy_session_mode(mode == Mode::StatefulSse)
        .with_json_response(mode == Mode::StatelessJson)
        .with_cancellation_token(stop.clone());
    let service: StreamableHttpService<Upstream, LocalSessionManager> =
        StreamableHttpService::new(|| Ok(Upstream), Default::default(), config);
    axum::Router::new().nest_service("/mcp", service)
}

/// Starts an rmcp server at `http://127.0.0.1:PORT/mcp` answering in `mode`.
pub async fn rmcp_upstream(mode: Mode) -> RmcpUpstream {
    let stop = CancellationToken::new();
    let router = rmcp_router(mode, &stop);
    let listener = tokio::net::TcpListener::bind("127.0.0.1:0")
        .await
        .expect("a loopback port for the upstream");
    let addr = listener.local_addr().expect("the upstream's address");
    let until = stop.clone();
    tokio::spawn(async move {
        let _ = axum::serve(listener, router)
            .with_graceful_shutdown(async move { until.cancelled_owned().await })
            .await;
    });
    RmcpUpstream {
        url: format!("http://{addr}/mcp"),
        stop,
    }
}

/// What a client gets when the upstream fails, and the record naming the cause
/// (`mcp-debug-proxy.md`, "Troubleshooting: 502 through the proxy").
pub async fn failure_of(relay: &mcp_decoy::MockMcpServer) -> (Value, FailureCause) {
    let answer = reqwest::Client::new()
        .post(relay.url())
        .header("accept", "application/json, text/event-stream")
        .json(&super::initialize_body())
        .send()
        .await
        .expect("the relay answers even when the upstream does not");
    assert_eq!(answer.status(), 502);
    let body: Value = answer.json().await.expect("a JSON-RPC error body");
    let log = relay.log();
    let exchange = log.http().last().cloned().expect("the exchange");
    let failure = exchange
        .upstream
        .and_then(|u| u.failure)
        .expect("a named failure");
    (body, failure.cause)
}
