//! A raw-HTTP MCP client of either era, for what rmcp does not send (2025-11-25 tasks,
//! wrong headers, unknown params): a legacy session opened with `initialize`, or stateless
//! 2026-07-28 requests with the `_meta` and headers a conforming client sends (`Mcp-Name`
//! included, for `tasks/*` the `taskId`). Answers are read whole, or as a stream of
//! messages when the test must act while one is open.

#![allow(
    dead_code,
    reason = "each test binary compiles this module and uses only part of it"
)]

use reqwest::StatusCode;
use serde_json::{Value, json};

use super::{CLIENT_NAME, PATIENCE};

pub const LEGACY: &str = "2025-11-25";
pub const MODERN: &str = "2026-07-28";

/// The era of a [`Peer`].
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Era {
    Legacy,
    Modern,
}

/// One complete answer: HTTP status, the messages before the response, the response.
#[derive(Debug)]
pub struct Answer {
    pub status: u16,
    pub before: Vec<Value>,
    pub response: Value,
}

impl Answer {
    /// The result; panics naming the response when it is an error.
    pub fn result(&self) -> &Value {
        self.response
            .get("result")
            .unwrap_or_else(|| panic!("expected a result, got {}", self.response))
    }

    /// The error's code and message; panics when the response is a result.
    pub fn error(&self) -> (i64, String) {
        let error = &self.response["error"];
        let code = error["code"]
            .as_i64()
            .unwrap_or_else(|| panic!("expected a JSON-RPC error, got {}", self.response));
        (
            code,
            error["message"].as_str().unwrap_or_default().to_string(),
        )
    }
}

/// A raw client of one era.
#[derive(Debug, Clone)]
pub struct Peer {
    pub era: Era,
    pub http: reqwest::Client,
    pub url: String,
    pub session: Option<String>,
    /// Declared in `initialize` (legacy) or in every request's `_meta` (modern).
    pub capabilities: Value,
    /// The `initialize` result (legacy), `null` for a modern peer.
    pub init: Value,
    /// The revision the requests name.
    pub version: String,
}

/// The JSON of each event with data in an SSE text (priming events and comments skipped).
pub fn sse_messages(raw: &str) -> Vec<Value> {
    raw.replace("\r\n", "\n")
        .split("\n\n")
        .filter_map(|block| {
            let data: Vec<&str> = block
                .lines()
                .filter_map(|line| line.strip_prefix("data:"))
                .map(|d| d.strip_prefix(' ').unwrap_or(d))
                .collect();
            let data = data.join("\n");
            (!data.trim().is_empty())
                .then(|| serde_json::from_str(&data).expect("SSE data is JSON"))
        })
        .collect()
}

impl Peer {
    fn client() -> reqwest::Client {
        reqwest::Client::builder()
            .no_proxy()
            .build()
            .expect("build the reqwest client")
    }

    /// A 2025-11-25 session that declared `capabilities`, confirmed with `initialized`.
    pub async fn legacy(url: &str, capabilities: Value) -> Peer {
        Peer::legacy_at(url, LEGACY, capabilities).await
    }

    /// A legacy session at `version`.
    pub async fn legacy_at(url: &str, version: &str, capabilities: Value) -> Peer {
        let mut peer = Peer {
            era: Era::Legacy,
            http: Peer::client(),
            url: url.to_string(),
            session: None,
            capabilities: capabilities.clone(),
            init: Value::Null,
            version: version.to_string(),
        };
        let init = json!({ "jsonrpc": "2.0", "id": "init", "method": "initialize", "params": {
            "protocolVersion": version, "capabilities": capabilities,
            "clientInfo": { "name": CLIENT_NAME, "version": "1.0.0" } } });
        let response = peer.post(&init, &[]).await;
        assert_eq!(response.status(), StatusCode::OK, "initialize");
        peer.session = Some(
            response
                .headers()
                .get("mcp-session-id")
                .expect("initialize answers with a session id")
                .to_str()
                .expect("the session id is ASCII")
                .to_string(),
        );
        let text = response.text().await.expect("read the initialize answer");
        let answer = sse_messages(&text)
            .pop()
            .or_else(|| serde_json::from_str(&text).ok())
            .expect("initialize answered a message");
        peer.init = answer["result"].clone();
        let initialized = json!({ "jsonrpc": "2.0", "method": "notifications/initialized" });
        let response = peer.post(&initialized, &[]).await;
        assert_eq!(response.status(), StatusCode::ACCEPTED, "initialized");
        peer
    }

    /// A client of `era` declaring no capabilities: a legacy session, or stateless requests.
    pub async fn open(url: &str, era: Era) -> Peer {
        match era {
            Era::Legacy => Peer::legacy(url, json!({})).await,
            Era::Modern => Peer::modern(url, json!({})),
        }
    }

    /// A legacy client before its `initialize`: no session headers yet.
    pub fn legacy_unopened(url: &str) -> Peer {
        Peer {
            era: Era::Legacy,
            http: Peer::client(),
            url: url.to_string(),
            session: None,
            capabilities: json!({}),
            init: Value::Null,
            version: LEGACY.to_string(),
        }
    }

    /// A 2026-07-28 client that declares `capabilities` in every request.
    pub fn modern(url: &str, capabilities: Value) -> Peer {
        Peer {
            era: Era::Modern,
            http: Peer::client(),
            url: url.to_string(),
            session: None,
            capabilities,
            init: Value::Null,
            version: MODERN.to_string(),
        }
    }

    /// POSTs `body` with the era's headers; `headers` are added, and replace the era's own
    /// of the same name (an empty value leaves the header out).
    pub async fn post(&self, body: &Value, headers: &[(&str, &str)]) -> reqwest::Response {
        let mut standard: Vec<(String, String)> = vec![
            ("content-type".into(), "application/json".into()),
            (
                "accept".into(),
                "application/json, text/event-stream".into(),
            ),
        ];
        match self.era {
            Era::Legacy => {
                if let Some(session) = &self.session {
                    standard.push(("mcp-session-id".into(), session.clone()));
                    standard.push(("mcp-protocol-version".into(), self.version.clone()));
                }
            }
            Era::Modern => {
                let method = body["method"].as_str().unwrap_or_default();
                standard.push(("mcp-protocol-version".into(), MODERN.into()));
                standard.push(("mcp-method".into(), method.into()));
                let params = &body["params"];
                let name = match method {
                    "tools/call" | "prompts/get" => params["name"].as_str(),
                    "resources/read" => params["uri"].as_str(),
                    "tasks/get" | "tasks/update" | "tasks/cancel" => params["taskId"].as_str(),
                    _ => None,
                };
                if let Some(name) = name {
                    standard.push(("mcp-name".into(), name.into()));
                }
            }
        }
        let mut builder = self.http.post(&self.url);
        for (name, value) in &standard {
            if headers.iter().any(|(n, _)| n.eq_ignore_ascii_case(name)) {
                continue;
            }
            builder = builder.header(name.as_str(), value.as_str());
        }
        for (name, value) in headers.iter().filter(|(_, v)| !v.is_empty()) {
            builder = builder.header(*name, *value);
        }
        tokio::time::timeout(PATIENCE, builder.body(body.to_string()).send())
            .await
            .expect("the POST was answered in time")
            .expect("send the POST")
    }

    /// The JSON-RPC request `method` with `params`, with the modern `_meta` added (unless
    /// `params._meta` is given).
    pub fn request(&self, id: Value, method: &str, params: Value) -> Value {
        let mut params = if params.is_null() { json!({}) } else { params };
        if self.era == Era::Modern && params.get("_meta").is_none() {
            params["_meta"] = json!({
                "io.modelcontextprotocol/protocolVersion": MODERN,
                "io.modelcontextprotocol/clientCapabilities": self.capabilities,
                "io.modelcontextprotocol/clientInfo": { "name": CLIENT_NAME, "version": "1.0.0" }
            });
        }
        json!({ "jsonrpc": "2.0", "id": id, "method": method, "params": params })
    }

    /// Sends a request and reads its whole answer.
    pub async fn send(&self, id: i64, method: &str, params: Value) -> Answer {
        self.send_with(id, method, params, &[]).await
    }

    /// [`send`](Self::send) with extra or replaced headers.
    pub async fn send_with(
        &self,
        id: i64,
        method: &str,
        params: Value,
        headers: &[(&str, &str)],
    ) -> Answer {
        let body = self.request(json!(id), method, params);
        self.send_body(id, &body, headers).await
    }

    /// [`send`](Self::send) with `meta` merged into `params._meta` (beside a modern
    /// request's own members).
    pub async fn send_with_meta(
        &self,
        id: i64,
        method: &str,
        params: Value,
        meta: Value,
    ) -> Answer {
        let mut body = self.request(json!(id), method, params);
        if let Some(from) = meta.as_object() {
            let into = &mut body["params"]["_meta"];
            if into.is_null() {
                *into = json!({});
            }
            if let Some(into) = into.as_object_mut() {
                into.extend(from.clone());
            }
        }
        self.send_body(id, &body, &[]).await
    }

    /// The result of a `tools/call` of `tool` without arguments that must succeed.
    pub async fn call(&self, id: i64, tool: &str) -> Value {
        self.result(id, "tools/call", json!({ "name": tool, "arguments": {} }))
            .await
    }

    /// POSTs `body` (a request with `id`) and reads its whole answer.
    async fn send_body(&self, id: i64, body: &Value, headers: &[(&str, &str)]) -> Answer {
        let method = body["method"].as_str().unwrap_or_default().to_string();
        let response = self.post(body, headers).await;
        let status = response.status().as_u16();
        let streamed = response
            .headers()
            .get("content-type")
            .and_then(|v| v.to_str().ok())
            .is_some_and(|v| v.starts_with("text/event-stream"));
        let text = tokio::time::timeout(PATIENCE, response.text())
            .await
            .unwrap_or_else(|_| panic!("the answer to {method} did not end in time"))
            .expect("read the answer");
        let mut messages = if streamed {
            sse_messages(&text)
        } else {
            vec![serde_json::from_str(&text).unwrap_or_else(|e| panic!("{method}: {e}: {text}"))]
        };
        let at = messages
            .iter()
            .position(|m| m.get("method").is_none() && m.get("id") == Some(&json!(id)))
            .unwrap_or_else(|| panic!("{method}: no response ({status}): {text}"));
        let response = messages.remove(at);
        Answer {
            status,
            before: messages,
            response,
        }
    }

    /// The result of a request that must succeed.
    pub async fn result(&self, id: i64, method: &str, params: Value) -> Value {
        self.send(id, method, params).await.result().clone()
    }

    /// Sends a request and returns its answer as a stream to read message by message.
    pub async fn stream(&self, id: i64, method: &str, params: Value) -> Events {
        let body = self.request(json!(id), method, params);
        Events::of(self.post(&body, &[]).await)
    }

    /// Opens the legacy session's GET stream.
    pub async fn get_stream(&self) -> Events {
        let session = self.session.as_deref().expect("a legacy session");
        let response = tokio::time::timeout(
            PATIENCE,
            self.http
                .get(&self.url)
                .header("accept", "text/event-stream")
                .header("mcp-session-id", session)
                .header("mcp-protocol-version", self.version.as_str())
                .send(),
        )
        .await
        .expect("the GET was answered in time")
        .expect("send the GET");
        assert_eq!(response.status(), StatusCode::OK, "the GET stream opens");
        Events::of(response)
    }

    /// POSTs the client's `result` for the server's request `id` (legacy); expects 202.
    pub async fn respond(&self, id: &Value, result: Value) {
        let body = json!({ "jsonrpc": "2.0", "id": id, "result": result });
        let response = self.post(&body, &[]).await;
        assert_eq!(
            response.status(),
            StatusCode::ACCEPTED,
            "the response is accepted"
        );
    }
}

/// An answer read as it arrives: one JSON-RPC message at a time.
#[derive(Debug)]
pub struct Events {
    response: reqwest::Response,
    buffer: String,
    ready: std::collections::VecDeque<Value>,
}

impl Events {
    fn of(response: reqwest::Response) -> Events {
        Events {
            response,
            buffer: String::new(),
            ready: std::collections::VecDeque::new(),
        }
    }

    /// The HTTP status.
    pub fn status(&self) -> u16 {
        self.response.status().as_u16()
    }

    /// The next message; `None` when the stream ended. Panics naming `what` if nothing comes
    /// within [`PATIENCE`].
    pub async fn next(&mut self, what: &str) -> Option<Value> {
        loop {
            if let Some(message) = self.ready.pop_front() {
                return Some(message);
            }
            let chunk = tokio::time::timeout(PATIENCE, self.response.chunk())
                .await
                .unwrap_or_else(|_| {
                    panic!("nothing arrived within {PATIENCE:?} while waiting for {what}")
                })
                .expect("read the stream");
            let Some(chunk) = chunk else {
                return self.flush();
            };
            self.buffer
                .push_str(&String::from_utf8_lossy(&chunk).replace("\r\n", "\n"));
            while let Some(end) = self.buffer.find("\n\n") {
                let block: String = self.buffer.drain(..end + 2).collect();
                self.ready.extend(sse_messages(&block));
            }
        }
    }

    fn flush(&mut self) -> Option<Value> {
        let rest = std::mem::take(&mut self.buffer);
        self.ready.extend(sse_messages(&rest));
        if self.ready.is_empty() && !rest.trim().is_empty() && !rest.contains("data:") {
            // A JSON body, not a stream.
            if let Ok(value) = serde_json::from_str(&rest) {
                return Some(value);
            }
        }
        self.ready.pop_front()
    }

    /// The next message that is a notification with `method`, skipping others.
    pub async fn next_notification(&mut self, method: &str) -> Value {
        loop {
            let message = self
                .next(method)
                .await
                .unwrap_or_else(|| panic!("the stream ended before {method}"));
            if message["method"] == method && message.get("id").is_none() {
                return message;
            }
        }
    }
}
