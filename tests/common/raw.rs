//! A legacy session over raw HTTP (reqwest, no MCP client), for what a conforming client
//! will not send or does not show: wrong headers, odd bodies, event ids, resumption, the
//! status of each response. [`super::peer`] speaks both eras at the JSON-RPC level; this
//! one stays at the HTTP level.

use std::time::Duration;

use mcp_decoy::MockMcpServer;
use reqwest::header::{ACCEPT, CONTENT_TYPE, HeaderMap, HeaderValue};
use reqwest::{Method, RequestBuilder, Response, StatusCode};
use serde_json::{Value, json};

use super::sse;

/// What a conforming client puts in `Accept` on POST.
pub const ACCEPT_BOTH: &str = "application/json, text/event-stream";
pub const SESSION: &str = "Mcp-Session-Id";
pub const VERSION: &str = "MCP-Protocol-Version";

/// How long a test waits for an event or the end of a stream.
pub const WAIT: Duration = Duration::from_secs(5);

pub fn client() -> reqwest::Client {
    reqwest::Client::builder()
        .no_proxy()
        .build()
        .expect("build the reqwest client")
}

/// A request; `params` left out when `null`.
pub fn request(id: impl Into<Value>, method: &str, params: Value) -> Value {
    let mut message = json!({ "jsonrpc": "2.0", "id": id.into(), "method": method });
    if !params.is_null() {
        message["params"] = params;
    }
    message
}

pub fn notification(method: &str) -> Value {
    json!({ "jsonrpc": "2.0", "method": method })
}

pub fn init_params(version: &str) -> Value {
    init_params_with(version, json!({}))
}

pub fn init_params_with(version: &str, capabilities: Value) -> Value {
    json!({
        "protocolVersion": version,
        "capabilities": capabilities,
        "clientInfo": { "name": "raw-http-test", "version": "1.0.0" }
    })
}

pub fn init_request(version: &str) -> Value {
    request(0, "initialize", init_params(version))
}

/// One client of one server: a session id and a version header once initialized.
#[derive(Debug, Clone)]
pub struct Peer {
    pub http: reqwest::Client,
    pub url: String,
    pub session: Option<String>,
    pub version: Option<String>,
}

impl Peer {
    /// A client with no session yet.
    pub fn new(server: &MockMcpServer) -> Peer {
        Peer {
            http: client(),
            url: server.url(),
            session: None,
            version: None,
        }
    }

    /// [`initialized_with`](Self::initialized_with) declaring no capabilities.
    pub async fn initialized(server: &MockMcpServer, version: &str) -> (Peer, Value) {
        Peer::initialized_with(server, version, json!({})).await
    }

    /// Initializes a `version` session declaring `capabilities` (asserting 200 and a session
    /// id), sends `notifications/initialized`, and from then on
    /// sends the session id and, except in 2025-03-26 sessions (whose clients predate it),
    /// the `MCP-Protocol-Version` header. Gives back the `initialize` result too.
    pub async fn initialized_with(
        server: &MockMcpServer,
        version: &str,
        capabilities: Value,
    ) -> (Peer, Value) {
        let mut peer = Peer::new(server);
        let init = request(0, "initialize", init_params_with(version, capabilities));
        let response = peer.post(&init).await;
        assert_eq!(response.status(), StatusCode::OK, "initialize status");
        let session = response
            .headers()
            .get(SESSION)
            .expect("initialize response carries Mcp-Session-Id")
            .to_str()
            .expect("session id is ASCII")
            .to_string();
        let body = rpc_body(response).await;
        let result = body
            .get("result")
            .cloned()
            .unwrap_or_else(|| panic!("initialize failed: {body}"));
        let negotiated = result["protocolVersion"]
            .as_str()
            .expect("result.protocolVersion is a string")
            .to_string();
        peer.session = Some(session);
        if negotiated != "2025-03-26" {
            peer.version = Some(negotiated);
        }
        let initialized = peer.post(&notification("notifications/initialized")).await;
        assert_eq!(
            initialized.status(),
            StatusCode::ACCEPTED,
            "notifications/initialized status"
        );
        (peer, result)
    }

    pub fn session(&self) -> &str {
        self.session.as_deref().expect("peer has a session")
    }

    /// A request to the MCP endpoint with the session and version headers, if any.
    pub fn build(&self, method: Method) -> RequestBuilder {
        let mut builder = self.http.request(method, &self.url);
        if let Some(session) = &self.session {
            builder = builder.header(SESSION, session);
        }
        if let Some(version) = &self.version {
            builder = builder.header(VERSION, version);
        }
        builder
    }

    /// A POST with `Content-Type: application/json` and a conforming `Accept`.
    pub fn post_builder(&self) -> RequestBuilder {
        self.build(Method::POST)
            .header(CONTENT_TYPE, "application/json")
            .header(ACCEPT, ACCEPT_BOTH)
    }

    /// [`post`](Self::post) with one header more (a second value when the peer sends that
    /// header already).
    pub async fn post_with(&self, name: &str, value: HeaderValue, body: &Value) -> Response {
        self.post_builder()
            .header(name, value)
            .body(body.to_string())
            .send()
            .await
            .expect("send POST")
    }

    /// POSTs a message with `accept`.
    pub async fn post_accepting(&self, body: &Value, accept: &str) -> Response {
        self.build(Method::POST)
            .header(CONTENT_TYPE, "application/json")
            .header(ACCEPT, accept)
            .body(body.to_string())
            .send()
            .await
            .expect("send POST")
    }

    pub async fn post(&self, body: &Value) -> Response {
        self.post_raw(body.to_string()).await
    }

    /// POSTs `body`; `Err` when the connection broke before the response head.
    pub async fn try_post(&self, body: &Value) -> reqwest::Result<Response> {
        self.post_builder().body(body.to_string()).send().await
    }

    pub async fn post_raw(&self, body: impl Into<reqwest::Body>) -> Response {
        self.post_builder()
            .body(body)
            .send()
            .await
            .expect("send POST")
    }

    /// Sends a request, asserts HTTP 200, and returns the JSON-RPC response.
    pub async fn call(&self, id: i64, method: &str, params: Value) -> Value {
        let response = self.post(&request(id, method, params)).await;
        assert_eq!(response.status(), StatusCode::OK, "{method} status");
        let body = rpc_body(response).await;
        assert_eq!(body["id"], json!(id), "{method}: response id: {body}");
        body
    }

    /// A `tools/call` with `id`, asking for progress under `token` when given.
    pub async fn call_tool(
        &self,
        id: i64,
        tool: &str,
        arguments: Value,
        token: Option<&str>,
    ) -> Response {
        let mut params = json!({ "name": tool, "arguments": arguments });
        if let Some(token) = token {
            params["_meta"] = json!({ "progressToken": token });
        }
        self.post(&request(id, "tools/call", params)).await
    }

    /// GET with `Accept: text/event-stream`, resuming after `last_event_id` when given.
    pub async fn get(&self, last_event_id: Option<&str>) -> Response {
        let mut builder = self.build(Method::GET).header(ACCEPT, "text/event-stream");
        if let Some(id) = last_event_id {
            builder = builder.header("last-event-id", id);
        }
        builder.send().await.expect("send GET")
    }

    /// GET of the session's stream.
    pub async fn get_stream(&self) -> Response {
        self.get(None).await
    }

    pub async fn delete(&self) -> Response {
        self.build(Method::DELETE)
            .send()
            .await
            .expect("send DELETE")
    }
}

pub fn content_type(headers: &HeaderMap) -> String {
    headers
        .get(CONTENT_TYPE)
        .map(|v| v.to_str().expect("content-type is ASCII").to_string())
        .unwrap_or_default()
}

/// The JSON-RPC message of a response: the JSON body, or the data of the first event of an
/// event stream after its priming event.
pub async fn rpc_body(response: Response) -> Value {
    let kind = content_type(response.headers());
    if kind.starts_with("text/event-stream") {
        let mut events = sse::events_after_priming(response);
        let event = events
            .next(WAIT)
            .await
            .expect("the event stream carries a message");
        event.json()
    } else {
        assert!(
            kind.starts_with("application/json"),
            "expected a JSON body, got content-type `{kind}`"
        );
        response.json().await.expect("body is JSON")
    }
}
