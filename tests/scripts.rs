//! Scripted tools: progress, log messages, delays, cancellation, requests to the client
//! (sampling, elicitation, roots), structured output and resumable streams. The rmcp client
//! shows what a real client gets; raw HTTP shows the wire (event order, ids, resumption) and
//! does what rmcp will not (never answer, resume by hand).
//!
//! Spec references are to `/work/shared/spec/2025-11-25/<page>.mdx`, section in quotes.

mod common;

use std::time::Duration;

use common::{
    Answers, Heard, PATIENCE, QUIET, call_with, connect_answering, only_session,
    schema::assert_server_messages_valid,
};
use mcp_decoy::log::{Entry, Log, RpcKind, RpcMessage};
use mcp_decoy::spec::{AskMethod, LogLevel, Step};
use mcp_decoy::{MockMcpServer, Tool};
use reqwest::StatusCode;
use serde_json::{Value, json};

use raw::{Peer, event_stream};

/// The first line of a template failure (README, "Tools and response templates").
const RENDER_FAILURE: &str = "MCP Decoy: the response template of this tool failed to render.";
/// The first line of a call whose script could not get what it asked the client for.
const SCRIPT_FAILURE: &str = "MCP Decoy: this tool's script stopped before its result.";

/// Raw HTTP: sessions with chosen capabilities, POSTs, GETs with `Last-Event-ID`, and an SSE
/// reader that keeps priming events and ids.
mod raw {
    use std::pin::Pin;
    use std::time::Duration;

    use bytes::Bytes;
    use futures::{Stream, StreamExt};
    use mcp_decoy::MockMcpServer;
    use reqwest::header::{ACCEPT, CONTENT_TYPE};
    use reqwest::{Method, RequestBuilder, Response, StatusCode};
    use serde_json::{Value, json};

    pub const ACCEPT_BOTH: &str = "application/json, text/event-stream";

    /// One client session over raw HTTP.
    #[derive(Debug, Clone)]
    pub struct Peer {
        http: reqwest::Client,
        url: String,
        session: String,
        version: String,
    }

    impl Peer {
        /// Initializes a `version` session declaring `capabilities`, then sends
        /// `notifications/initialized`.
        pub async fn initialized(
            server: &MockMcpServer,
            version: &str,
            capabilities: Value,
        ) -> Peer {
            let http = reqwest::Client::builder()
                .no_proxy()
                .build()
                .expect("build the reqwest client");
            let init = json!({
                "jsonrpc": "2.0", "id": 0, "method": "initialize",
                "params": {
                    "protocolVersion": version,
                    "capabilities": capabilities,
                    "clientInfo": { "name": "raw-script-test", "version": "1.0.0" }
                }
            });
            let response = http
                .post(server.url())
                .header(CONTENT_TYPE, "application/json")
                .header(ACCEPT, ACCEPT_BOTH)
                .body(init.to_string())
                .send()
                .await
                .expect("send initialize");
            assert_eq!(response.status(), StatusCode::OK, "initialize status");
            let session = response
                .headers()
                .get("mcp-session-id")
                .expect("initialize answers with Mcp-Session-Id")
                .to_str()
                .expect("the session id is ASCII")
                .to_string();
            let body: Value = response.json().await.expect("initialize answers JSON");
            assert_eq!(
                body["result"]["protocolVersion"], version,
                "negotiated: {body}"
            );
            let peer = Peer {
                http,
                url: server.url(),
                session,
                version: version.to_string(),
            };
            let initialized = peer
                .post(&json!({ "jsonrpc": "2.0", "method": "notifications/initialized" }))
                .await;
            assert_eq!(
                initialized.status(),
                StatusCode::ACCEPTED,
                "initialized status"
            );
            peer
        }

        pub fn session(&self) -> &str {
            &self.session
        }

        fn build(&self, method: Method) -> RequestBuilder {
            self.http
                .request(method, &self.url)
                .header("mcp-session-id", &self.session)
                .header("mcp-protocol-version", &self.version)
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

        /// POSTs a message as a conforming client does (`Accept` lists both types).
        pub async fn post(&self, body: &Value) -> Response {
            self.post_accepting(body, ACCEPT_BOTH).await
        }

        /// A `tools/call` with `id`, asking for progress under `token` when given.
        pub async fn call(
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
            self.post(
                &json!({ "jsonrpc": "2.0", "id": id, "method": "tools/call", "params": params }),
            )
            .await
        }

        /// GET with `Accept: text/event-stream`, resuming after `last_event_id` when given.
        pub async fn get(&self, last_event_id: Option<&str>) -> Response {
            let mut builder = self.build(Method::GET).header(ACCEPT, "text/event-stream");
            if let Some(id) = last_event_id {
                builder = builder.header("last-event-id", id);
            }
            builder.send().await.expect("send GET")
        }
    }

    pub fn content_type(response: &Response) -> String {
        response
            .headers()
            .get(CONTENT_TYPE)
            .map(|v| v.to_str().expect("content-type is ASCII").to_string())
            .unwrap_or_default()
    }

    /// One server-sent event; comment-only blocks (keep-alives) are skipped.
    #[derive(Debug, Clone)]
    pub struct Event {
        pub id: Option<String>,
        pub data: String,
    }

    impl Event {
        /// The priming event (basic/transports, "Sending Messages to the Server"): an id and
        /// empty data.
        pub fn is_priming(&self) -> bool {
            self.id.is_some() && self.data.is_empty()
        }

        pub fn json(&self) -> Value {
            serde_json::from_str(&self.data)
                .unwrap_or_else(|e| panic!("SSE data is not JSON ({e}): {:?}", self.data))
        }

        /// `<stream>-<seq>` split in two.
        pub fn stream_and_seq(&self) -> (u64, u64) {
            let id = self.id.as_deref().expect("the event has an id");
            let (stream, seq) = id
                .split_once('-')
                .unwrap_or_else(|| panic!("event id `{id}` is not <stream>-<seq>"));
            (
                stream.parse().expect("the stream part is a number"),
                seq.parse().expect("the sequence part is a number"),
            )
        }
    }

    type ByteStream = Pin<Box<dyn Stream<Item = reqwest::Result<Bytes>> + Send>>;

    /// The events of one response body, priming events included.
    pub struct Events {
        stream: ByteStream,
        buffer: String,
    }

    pub fn event_stream(response: Response) -> Events {
        Events {
            stream: Box::pin(response.bytes_stream()),
            buffer: String::new(),
        }
    }

    impl Events {
        /// The next event, or `None` when the stream ended; panics if neither happens in time.
        pub async fn next(&mut self, what: &str) -> Option<Event> {
            tokio::time::timeout(Duration::from_secs(10), self.next_event())
                .await
                .unwrap_or_else(|_| {
                    panic!("no SSE event and no end of stream while waiting for {what}")
                })
        }

        /// The next event, panicking if the stream ended first.
        pub async fn expect(&mut self, what: &str) -> Event {
            self.next(what)
                .await
                .unwrap_or_else(|| panic!("the stream ended before {what}"))
        }

        /// Waits up to `wait`; `Err` when nothing came (the stream is still open).
        pub async fn try_next(&mut self, wait: Duration) -> Result<Option<Event>, ()> {
            tokio::time::timeout(wait, self.next_event())
                .await
                .map_err(|_| ())
        }

        /// Every remaining event until the stream ends.
        pub async fn rest(&mut self, what: &str) -> Vec<Event> {
            let mut events = Vec::new();
            while let Some(event) = self.next(what).await {
                events.push(event);
            }
            events
        }

        async fn next_event(&mut self) -> Option<Event> {
            loop {
                if let Some(end) = self.buffer.find("\n\n") {
                    let block: String = self.buffer.drain(..end + 2).collect();
                    if let Some(event) = parse_block(&block) {
                        return Some(event);
                    }
                    continue;
                }
                match self.stream.next().await {
                    Some(Ok(chunk)) => self
                        .buffer
                        .push_str(&String::from_utf8_lossy(&chunk).replace("\r\n", "\n")),
                    Some(Err(_)) | None => return None,
                }
            }
        }
    }

    fn parse_block(block: &str) -> Option<Event> {
        let mut id = None;
        let mut data: Vec<&str> = Vec::new();
        let mut seen = false;
        for line in block.lines() {
            if line.starts_with(':') {
                continue;
            }
            let (field, value) = line.split_once(':').unwrap_or((line, ""));
            let value = value.strip_prefix(' ').unwrap_or(value);
            match field {
                "id" => id = Some(value.to_string()),
                "data" => data.push(value),
                _ => {}
            }
            seen = true;
        }
        seen.then(|| Event {
            id,
            data: data.join("\n"),
        })
    }
}

// ---------------------------------------------------------------------------------------
// Fixtures: the conformance suite's tools (spec pack README, section 8).

/// `test_tool_with_progress`: progress 0, 50, 100 of 100, then a result.
fn progress_tool() -> Tool {
    Tool::new("test_tool_with_progress")
        .progress(0.0, Some(100.0), None)
        .delay(Duration::from_millis(50))
        .progress(50.0, Some(100.0), Some("halfway"))
        .delay(Duration::from_millis(50))
        .progress(100.0, Some(100.0), None)
        .respond_with(json!({ "content": [{ "type": "text", "text": "Progress test completed" }] }))
}

/// `test_tool_with_logging`: three info messages ~50 ms apart, then a result.
fn logging_tool() -> Tool {
    Tool::new("test_tool_with_logging")
        .log(LogLevel::Info, "Tool execution started")
        .delay(Duration::from_millis(50))
        .log(LogLevel::Info, "Tool processing data")
        .delay(Duration::from_millis(50))
        .log(LogLevel::Info, "Tool execution completed")
        .respond_with(json!({ "content": [{ "type": "text", "text": "Logging test completed" }] }))
}

/// `test_sampling(prompt)`: asks the client's model, answers with its reply.
fn sampling_tool(timeout: Duration) -> Tool {
    Tool::new("test_sampling")
        .ask_with_timeout(
            "reply",
            AskMethod::Sampling,
            json!({
                "messages": [{ "role": "user", "content": { "type": "text", "text": "${args.prompt}" } }],
                "maxTokens": 100
            }),
            timeout,
        )
        .respond_with(json!({
            "content": [{ "type": "text", "text": "LLM response: ${answers.reply.content.text}" }]
        }))
}

/// `test_elicitation(message)`: asks the user through a form, answers with what they did.
fn elicitation_tool() -> Tool {
    Tool::new("test_elicitation")
        .ask(
            "user",
            AskMethod::Elicitation,
            json!({
                "message": "${args.message}",
                "requestedSchema": {
                    "type": "object",
                    "properties": { "username": { "type": "string" } },
                    "required": ["username"]
                }
            }),
        )
        .respond_with(json!({
            "content": [{
                "type": "text",
                "text": "User response: action=${answers.user.action}, username=${answers.user.content.username}"
            }]
        }))
}

/// URL-mode elicitation (client/elicitation, "URL Mode Elicitation Requests").
fn url_elicitation_tool() -> Tool {
    Tool::new("connect_account")
        .ask(
            "link",
            AskMethod::Elicitation,
            json!({
                "mode": "url",
                "message": "Connect your account",
                "url": "https://example.com/connect?session=${args.ticket}",
                "elicitationId": "elicit-${args.ticket}"
            }),
        )
        .respond_with(
            json!({ "content": [{ "type": "text", "text": "action=${answers.link.action}" }] }),
        )
}

/// `roots/list` (client/roots, "Listing Roots").
fn roots_tool() -> Tool {
    Tool::new("show_roots")
        .ask("roots", AskMethod::Roots, Value::Null)
        .respond_with(json!({
            "content": [{ "type": "text", "text": { "$json": { "$eval": "answers.roots.roots" } } }]
        }))
}

/// A tool that takes `seconds` before answering, for cancellation.
fn slow_tool(delay: Duration) -> Tool {
    Tool::new("slow")
        .progress(1.0, None, Some("started"))
        .delay(delay)
        .respond_with(json!({ "content": [{ "type": "text", "text": "finally" }] }))
}

// ---------------------------------------------------------------------------------------
// Log helpers.

/// The server-to-client messages with `method`, oldest first.
fn sent(log: &Log, method: &str) -> Vec<RpcMessage> {
    log.mcp()
        .from_server()
        .method(method)
        .all()
        .into_iter()
        .cloned()
        .collect()
}

/// The `mcp` record of the only `tools/call` of `tool`.
fn the_call(log: &Log, tool: &str) -> RpcMessage {
    let calls = log
        .mcp()
        .method("tools/call")
        .name(tool)
        .kind(RpcKind::Request)
        .all();
    assert_eq!(calls.len(), 1, "expected one call of {tool}: {calls:?}");
    calls[0].clone()
}

/// The text of the only text block of a raw `CallToolResult`.
fn result_text(result: &Value) -> &str {
    result["content"][0]["text"]
        .as_str()
        .unwrap_or_else(|| panic!("the result has no text block: {result}"))
}

// ---------------------------------------------------------------------------------------
// Progress (basic/utilities/progress).

#[tokio::test]
async fn the_rmcp_client_hears_each_progress_step_for_its_token_in_order() {
    // Arrange
    let server = MockMcpServer::builder().tool(progress_tool()).start().await;
    let (client, mut heard) = connect_answering(&server.url(), Answers::default()).await;

    // Act
    let result = call_with(&client, "test_tool_with_progress", json!({})).await;

    // Assert: "The receiver MAY then send progress notifications ... containing the original
    // progress token" (progress page, "Progress Flow").
    assert_eq!(
        result.content[0].as_text().map(|t| t.text.as_str()),
        Some("Progress test completed")
    );
    let log = server.log();
    let call = the_call(&log, "test_tool_with_progress");
    let token = call.params()["_meta"]["progressToken"].clone();
    assert!(
        !token.is_null(),
        "rmcp sends a progress token: {}",
        call.message
    );
    let mut progress = Vec::new();
    for step in ["0", "50", "100"] {
        match heard.next(&format!("progress {step}")).await {
            Heard::Progress(params) => progress.push(params),
            other => panic!("expected progress {step}, heard {other:?}"),
        }
    }
    let values: Vec<(Value, Value, Value)> = progress
        .iter()
        .map(|p| {
            (
                p["progressToken"].clone(),
                p["progress"].clone(),
                p["total"].clone(),
            )
        })
        .collect();
    assert_eq!(
        values,
        [
            (token.clone(), json!(0.0), json!(100.0)),
            (token.clone(), json!(50.0), json!(100.0)),
            (token.clone(), json!(100.0), json!(100.0)),
        ]
    );
    assert_eq!(progress[1]["message"], "halfway");
    // The notifications rode on the call's own POST stream.
    let notes = sent(&log, "notifications/progress");
    assert_eq!(notes.len(), 3);
    assert!(
        notes
            .iter()
            .all(|n| n.carried_by == call.carried_by && n.carried_by.is_some()),
        "carried by the POST of the call ({:?}): {notes:?}",
        call.carried_by
    );
    assert_server_messages_valid(&log);
    client.cancel().await.expect("the client closes");
}

#[tokio::test]
async fn concurrent_calls_each_get_their_own_progress_on_their_own_stream() {
    // Arrange
    let server = MockMcpServer::builder().tool(progress_tool()).start().await;
    let (client, _heard) = connect_answering(&server.url(), Answers::default()).await;

    // Act
    let (a, b) = tokio::join!(
        call_with(&client, "test_tool_with_progress", json!({ "run": "a" })),
        call_with(&client, "test_tool_with_progress", json!({ "run": "b" })),
    );

    // Assert: each message goes on one stream only, the one of the request it relates to
    // (basic/transports, "Multiple Connections" and "Sending Messages to the Server").
    assert_eq!(a.is_error, b.is_error);
    let log = server.log();
    let calls = log.mcp().method("tools/call").kind(RpcKind::Request).all();
    assert_eq!(calls.len(), 2);
    assert_ne!(calls[0].carried_by, calls[1].carried_by, "two POSTs");
    for call in calls {
        let token = &call.params()["_meta"]["progressToken"];
        let mine: Vec<&RpcMessage> = log
            .mcp()
            .from_server()
            .method("notifications/progress")
            .all()
            .into_iter()
            .filter(|n| &n.params()["progressToken"] == token)
            .collect();
        let progress: Vec<&Value> = mine.iter().map(|n| &n.params()["progress"]).collect();
        assert_eq!(progress, [&json!(0.0), &json!(50.0), &json!(100.0)]);
        assert!(
            mine.iter().all(|n| n.carried_by == call.carried_by),
            "on the POST of the call with token {token}"
        );
    }
    assert_server_messages_valid(&log);
    client.cancel().await.expect("the client closes");
}

#[tokio::test]
async fn a_call_without_a_progress_token_gets_no_progress_notifications() {
    // Arrange
    let server = MockMcpServer::builder().tool(progress_tool()).start().await;
    let peer = Peer::initialized(&server, "2025-11-25", json!({})).await;

    // Act: no `_meta.progressToken`.
    let response = peer
        .call(1, "test_tool_with_progress", json!({}), None)
        .await;
    let events = event_stream(response).rest("the result").await;

    // Assert: progress notifications are only for requests that asked with a token
    // (progress page, "Progress Flow").
    let messages: Vec<Value> = events
        .iter()
        .filter(|e| !e.is_priming())
        .map(|e| e.json())
        .collect();
    assert_eq!(messages.len(), 1, "only the result: {messages:?}");
    assert_eq!(messages[0]["id"], 1);
    assert_eq!(
        result_text(&messages[0]["result"]),
        "Progress test completed"
    );
    assert!(sent(&server.log(), "notifications/progress").is_empty());
    assert_server_messages_valid(&server.log());
}

// ---------------------------------------------------------------------------------------
// Event streams in JSON mode.

#[tokio::test]
async fn a_scripted_call_answers_on_an_event_stream_in_json_mode_with_its_notifications_first() {
    // Arrange: the default response mode is JSON.
    let server = MockMcpServer::builder()
        .tool(
            Tool::new("busy")
                .progress(1.0, Some(2.0), None)
                .log(LogLevel::Notice, "working on ${args.job}")
                .progress(2.0, Some(2.0), None)
                .respond_with(
                    json!({ "content": [{ "type": "text", "text": "done ${args.job}" }] }),
                ),
        )
        .tool(Tool::echo())
        .start()
        .await;
    let peer = Peer::initialized(&server, "2025-11-25", json!({})).await;

    // Act
    let response = peer
        .call(5, "busy", json!({ "job": "j1" }), Some("tok-5"))
        .await;
    let plain = peer
        .call(6, "echo", json!({ "message": "hi" }), Some("tok-6"))
        .await;

    // Assert: a stream, so the notifications can come before the result (basic/transports,
    // "Sending Messages to the Server": the server MAY send requests and notifications
    // before the response).
    assert_eq!(
        raw::content_type(&plain),
        "application/json",
        "unscripted calls stay JSON"
    );
    assert_eq!(response.status(), StatusCode::OK);
    assert!(raw::content_type(&response).starts_with("text/event-stream"));
    let events = event_stream(response).rest("the result").await;
    let messages: Vec<Value> = events
        .iter()
        .filter(|e| !e.is_priming())
        .map(|e| e.json())
        .collect();
    let shape: Vec<String> = messages
        .iter()
        .map(|m| match m.get("method") {
            Some(method) => method.as_str().unwrap_or_default().to_string(),
            None => format!("response {}", m["id"]),
        })
        .collect();
    assert_eq!(
        shape,
        [
            "notifications/progress",
            "notifications/message",
            "notifications/progress",
            "response 5"
        ],
        "the result comes last and the stream then ends"
    );
    assert_eq!(
        messages[1]["params"],
        json!({ "level": "notice", "data": "working on j1" })
    );
    assert_eq!(messages[0]["params"]["progressToken"], "tok-5");
    assert_eq!(result_text(&messages[3]["result"]), "done j1");
    assert_server_messages_valid(&server.log());
}

#[tokio::test]
async fn a_client_that_accepts_only_json_gets_the_result_as_json_and_the_notifications_on_its_get_stream()
 {
    // Arrange
    let server = MockMcpServer::builder().tool(logging_tool()).start().await;
    let peer = Peer::initialized(&server, "2025-11-25", json!({})).await;
    let mut get = event_stream(peer.get(None).await);

    // Act
    let request = json!({
        "jsonrpc": "2.0", "id": 3, "method": "tools/call",
        "params": { "name": "test_tool_with_logging", "arguments": {} }
    });
    let response = peer.post_accepting(&request, "application/json").await;

    // Assert
    assert_eq!(raw::content_type(&response), "application/json");
    let body: Value = response.json().await.expect("a JSON body");
    assert_eq!(result_text(&body["result"]), "Logging test completed");
    let mut logs = Vec::new();
    while logs.len() < 3 {
        let event = get.expect("the log messages on the GET stream").await;
        if !event.is_priming() {
            logs.push(event.json()["params"]["data"].clone());
        }
    }
    assert_eq!(
        logs,
        [
            "Tool execution started",
            "Tool processing data",
            "Tool execution completed"
        ]
    );
    assert_server_messages_valid(&server.log());
}

// ---------------------------------------------------------------------------------------
// Logging (server/utilities/logging).

#[tokio::test]
async fn the_logging_tool_sends_three_info_messages_about_50_ms_apart_then_its_result() {
    // Arrange
    let server = MockMcpServer::builder().tool(logging_tool()).start().await;
    let (client, mut heard) = connect_answering(&server.url(), Answers::default()).await;

    // Act
    let result = call_with(&client, "test_tool_with_logging", json!({})).await;

    // Assert
    assert_eq!(
        result.content[0].as_text().map(|t| t.text.as_str()),
        Some("Logging test completed")
    );
    let mut data = Vec::new();
    for n in 0..3 {
        match heard.next(&format!("log message {n}")).await {
            Heard::Log(params) => {
                assert_eq!(params["level"], "info", "{params}");
                data.push(params["data"].clone());
            }
            other => panic!("expected a log message, heard {other:?}"),
        }
    }
    assert_eq!(
        data,
        [
            "Tool execution started",
            "Tool processing data",
            "Tool execution completed"
        ]
    );
    let log = server.log();
    let times: Vec<_> = log
        .mcp()
        .from_server()
        .method("notifications/message")
        .records()
        .iter()
        .map(|(record, _)| record.at)
        .collect();
    assert_eq!(times.len(), 3);
    // Records are stamped when a message is written to the stream, which can lag its step by
    // a few ms on a loaded machine; the 50 ms delays still show as clear gaps.
    for pair in times.windows(2) {
        let gap = (pair[1] - pair[0]).num_milliseconds();
        assert!(gap >= 25, "messages ~50 ms apart, got {gap} ms");
    }
    assert_server_messages_valid(&log);
    client.cancel().await.expect("the client closes");
}

#[tokio::test]
#[allow(
    deprecated,
    reason = "rmcp marks logging deprecated (SEP-2577); 2025-11-25 has it"
)]
async fn set_level_warning_filters_out_info_messages() {
    use rmcp::model::{LoggingLevel, SetLevelRequestParams};

    // Arrange
    let server = MockMcpServer::builder()
        .tool(
            Tool::new("mixed")
                .log(LogLevel::Debug, "debug")
                .log(LogLevel::Info, "info")
                .log(LogLevel::Warning, "warning")
                .log(LogLevel::Error, "error"),
        )
        .start()
        .await;
    let (client, mut heard) = connect_answering(&server.url(), Answers::default()).await;

    // Act: "the server SHOULD only send logs at that level and higher" (logging page,
    // "Setting Log Level").
    tokio::time::timeout(
        PATIENCE,
        client.set_level(SetLevelRequestParams::new(LoggingLevel::Warning)),
    )
    .await
    .expect("logging/setLevel took too long")
    .expect("logging/setLevel failed");
    call_with(&client, "mixed", json!({})).await;

    // Assert
    let levels: Vec<Value> = heard
        .rest()
        .await
        .into_iter()
        .map(|h| match h {
            Heard::Log(params) => params["level"].clone(),
            other => panic!("only log messages expected, heard {other:?}"),
        })
        .collect();
    assert_eq!(levels, ["warning", "error"]);
    assert_server_messages_valid(&server.log());
    client.cancel().await.expect("the client closes");
}

#[tokio::test]
async fn an_unknown_log_level_is_invalid_params() {
    // Arrange
    let server = MockMcpServer::builder().start().await;
    let peer = Peer::initialized(&server, "2025-11-25", json!({})).await;

    // Act
    let response = peer
        .post(&json!({ "jsonrpc": "2.0", "id": 2, "method": "logging/setLevel", "params": { "level": "loud" } }))
        .await;

    // Assert: "Invalid log level: -32602 (Invalid params)" (logging page, "Error Handling").
    let body: Value = response.json().await.expect("a JSON body");
    assert_eq!(body["error"]["code"], -32602, "{body}");
    let message = body["error"]["message"].as_str().unwrap_or_default();
    assert!(message.contains("loud"), "names the level: {message}");
}

// ---------------------------------------------------------------------------------------
// Requests to the client (client/sampling, client/elicitation, client/roots).

#[tokio::test]
async fn test_sampling_asks_the_clients_model_and_answers_with_its_reply() {
    // Arrange
    let server = MockMcpServer::builder()
        .tool(sampling_tool(PATIENCE))
        .start()
        .await;
    let answers = Answers {
        capabilities: json!({ "sampling": {} }),
        sampling: Some(json!({
            "role": "assistant",
            "content": { "type": "text", "text": "Paris" },
            "model": "test-model",
            "stopReason": "endTurn"
        })),
        ..Answers::default()
    };
    let (client, mut heard) = connect_answering(&server.url(), answers).await;

    // Act
    let result = call_with(
        &client,
        "test_sampling",
        json!({ "prompt": "Capital of France?" }),
    )
    .await;

    // Assert
    assert_eq!(
        result.content[0].as_text().map(|t| t.text.as_str()),
        Some("LLM response: Paris")
    );
    let Heard::Asked { method, params } = heard.next("sampling/createMessage").await else {
        panic!("expected a request");
    };
    assert_eq!(method, "sampling/createMessage");
    assert_eq!(params["maxTokens"], 100);
    assert_eq!(
        params["messages"][0]["content"]["text"],
        "Capital of France?"
    );
    let log = server.log();
    let call = the_call(&log, "test_sampling");
    let asked = sent(&log, "sampling/createMessage");
    assert_eq!(asked.len(), 1);
    assert_eq!(asked[0].kind, RpcKind::Request);
    assert_eq!(
        asked[0].carried_by, call.carried_by,
        "on the call's POST stream"
    );
    // The client's answer arrived as a POSTed response and got 202 (basic/transports,
    // "Sending Messages to the Server" item 4).
    let answer = log
        .mcp()
        .from_client()
        .kind(RpcKind::Response)
        .all()
        .into_iter()
        .find(|m| m.rpc_id() == asked[0].rpc_id())
        .expect("the client's response is logged");
    let exchange = answer
        .carried_by
        .and_then(|id| log.get(id))
        .expect("its POST");
    let Entry::Http(http) = &exchange.entry else {
        panic!("carried_by names an http record");
    };
    assert_eq!(http.status, Some(202));
    assert_server_messages_valid(&log);
    client.cancel().await.expect("the client closes");
}

#[tokio::test]
async fn test_elicitation_asks_the_user_through_a_form_and_answers_with_their_input() {
    // Arrange: an empty `elicitation` object means form mode (elicitation page, "Capabilities").
    let server = MockMcpServer::builder()
        .tool(elicitation_tool())
        .start()
        .await;
    let answers = Answers {
        capabilities: json!({ "elicitation": {} }),
        elicitation: Some(json!({ "action": "accept", "content": { "username": "ada" } })),
        ..Answers::default()
    };
    let (client, mut heard) = connect_answering(&server.url(), answers).await;

    // Act
    let result = call_with(
        &client,
        "test_elicitation",
        json!({ "message": "Who are you?" }),
    )
    .await;

    // Assert
    assert_eq!(
        result.content[0].as_text().map(|t| t.text.as_str()),
        Some("User response: action=accept, username=ada")
    );
    let Heard::Asked { method, params } = heard.next("elicitation/create").await else {
        panic!("expected a request");
    };
    assert_eq!(method, "elicitation/create");
    assert_eq!(params["message"], "Who are you?");
    assert_eq!(params["requestedSchema"]["required"], json!(["username"]));
    assert_server_messages_valid(&server.log());
    client.cancel().await.expect("the client closes");
}

#[tokio::test]
async fn url_mode_elicitation_reaches_a_client_that_declared_it() {
    // Arrange
    let server = MockMcpServer::builder()
        .tool(url_elicitation_tool())
        .start()
        .await;
    let answers = Answers {
        capabilities: json!({ "elicitation": { "url": {} } }),
        elicitation: Some(json!({ "action": "accept" })),
        ..Answers::default()
    };
    let (client, mut heard) = connect_answering(&server.url(), answers).await;

    // Act
    let result = call_with(&client, "connect_account", json!({ "ticket": "t42" })).await;

    // Assert
    assert_eq!(
        result.content[0].as_text().map(|t| t.text.as_str()),
        Some("action=accept")
    );
    let Heard::Asked { params, .. } = heard.next("elicitation/create").await else {
        panic!("expected a request");
    };
    assert_eq!(params["mode"], "url");
    assert_eq!(params["url"], "https://example.com/connect?session=t42");
    assert_eq!(params["elicitationId"], "elicit-t42");
    assert_server_messages_valid(&server.log());
    client.cancel().await.expect("the client closes");
}

#[tokio::test]
async fn roots_list_answers_render_into_the_result() {
    // Arrange
    let server = MockMcpServer::builder().tool(roots_tool()).start().await;
    let answers = Answers {
        capabilities: json!({ "roots": { "listChanged": true } }),
        roots: Some(json!({ "roots": [{ "uri": "file:///work/project", "name": "project" }] })),
        ..Answers::default()
    };
    let (client, mut heard) = connect_answering(&server.url(), answers).await;

    // Act
    let result = call_with(&client, "show_roots", json!({})).await;

    // Assert
    let text = result.content[0]
        .as_text()
        .map(|t| t.text.clone())
        .unwrap_or_default();
    let roots: Value = serde_json::from_str(&text).expect("the text is the roots as JSON");
    assert_eq!(
        roots,
        json!([{ "uri": "file:///work/project", "name": "project" }])
    );
    assert!(matches!(
        heard.next("roots/list").await,
        Heard::Asked {
            method: "roots/list",
            ..
        }
    ));
    let asked = sent(&server.log(), "roots/list");
    assert!(
        asked[0].message.get("params").is_none(),
        "no params: {}",
        asked[0].message
    );
    assert_server_messages_valid(&server.log());
    client.cancel().await.expect("the client closes");
}

#[tokio::test]
async fn a_request_the_client_has_no_capability_for_is_never_sent_and_the_tool_says_why() {
    // Arrange: the client declares form elicitation only.
    let server = MockMcpServer::builder()
        .tool(sampling_tool(PATIENCE))
        .tool(url_elicitation_tool())
        .tool(roots_tool())
        .tool(Tool::new("sample_with_tools").ask(
            "reply",
            AskMethod::Sampling,
            json!({
                "messages": [{ "role": "user", "content": { "type": "text", "text": "hi" } }],
                "maxTokens": 10,
                "tools": [{ "name": "get_weather", "inputSchema": { "type": "object" } }]
            }),
        ))
        .start()
        .await;
    let answers = Answers {
        capabilities: json!({ "elicitation": { "form": {} } }),
        ..Answers::default()
    };
    let (client, mut heard) = connect_answering(&server.url(), answers).await;

    // Act
    let mut texts = Vec::new();
    for (tool, arguments) in [
        ("test_sampling", json!({ "prompt": "x" })),
        ("connect_account", json!({ "ticket": "t" })),
        ("show_roots", json!({})),
        ("sample_with_tools", json!({})),
    ] {
        let result = call_with(&client, tool, arguments).await;
        assert_eq!(result.is_error, Some(true), "{tool}: {result:?}");
        texts.push(
            result.content[0]
                .as_text()
                .map(|t| t.text.clone())
                .unwrap_or_default(),
        );
    }

    // Assert: servers MUST NOT send requests the client did not declare (client/sampling and
    // client/roots "Capabilities"; client/elicitation "Capabilities": "MUST NOT send
    // elicitation requests with modes that are not supported").
    for (text, capability) in texts.iter().zip([
        "`sampling`",
        "`elicitation.url`",
        "`roots`",
        "`sampling.tools`",
    ]) {
        assert!(text.starts_with(SCRIPT_FAILURE), "{text}");
        assert!(text.contains(capability), "names {capability}: {text}");
    }
    let log = server.log();
    for method in ["sampling/createMessage", "elicitation/create", "roots/list"] {
        assert!(sent(&log, method).is_empty(), "{method} was sent anyway");
    }
    assert!(heard.rest().await.is_empty(), "the client heard nothing");
    assert_server_messages_valid(&log);
    client.cancel().await.expect("the client closes");
}

#[tokio::test]
async fn a_client_that_answers_with_an_error_gets_a_tool_error_quoting_it() {
    // Arrange: the client declares sampling but has no answer, so rmcp answers an error.
    let server = MockMcpServer::builder()
        .tool(sampling_tool(PATIENCE))
        .start()
        .await;
    let answers = Answers {
        capabilities: json!({ "sampling": {} }),
        ..Answers::default()
    };
    let (client, _heard) = connect_answering(&server.url(), answers).await;

    // Act
    let result = call_with(&client, "test_sampling", json!({ "prompt": "x" })).await;

    // Assert
    assert_eq!(result.is_error, Some(true));
    let text = result.content[0]
        .as_text()
        .map(|t| t.text.clone())
        .unwrap_or_default();
    assert!(text.starts_with(SCRIPT_FAILURE), "{text}");
    assert!(
        text.contains("answered sampling/createMessage with an error")
            && text.contains("the test client has no answer"),
        "quotes the client's error: {text}"
    );
    assert_server_messages_valid(&server.log());
    client.cancel().await.expect("the client closes");
}

#[tokio::test]
async fn a_client_that_never_answers_gets_a_tool_error_naming_the_timeout() {
    // Arrange
    let server = MockMcpServer::builder()
        .tool(sampling_tool(Duration::from_millis(300)))
        .start()
        .await;
    let peer = Peer::initialized(&server, "2025-11-25", json!({ "sampling": {} })).await;

    // Act: read the request, never answer it.
    let response = peer
        .call(9, "test_sampling", json!({ "prompt": "hello?" }), None)
        .await;
    let mut events = event_stream(response);
    let priming = events.expect("the priming event").await;
    let request = events.expect("sampling/createMessage").await.json();
    let cancelled = events
        .expect("the cancellation of the request")
        .await
        .json();
    let result = events.expect("the result").await.json();

    // Assert
    assert!(priming.is_priming());
    assert_eq!(request["method"], "sampling/createMessage");
    assert!(
        request["id"].is_string() || request["id"].is_number(),
        "a request: {request}"
    );
    // The server gives up on its own request and says so (cancellation page: "Either side
    // can send a cancellation notification").
    assert_eq!(cancelled["method"], "notifications/cancelled");
    assert_eq!(cancelled["params"]["requestId"], request["id"]);
    assert_eq!(result["id"], 9);
    assert_eq!(result["result"]["isError"], true);
    let text = result_text(&result["result"]);
    assert!(text.starts_with(SCRIPT_FAILURE), "{text}");
    assert!(
        text.contains("did not answer sampling/createMessage within 300 ms"),
        "names the timeout: {text}"
    );
    assert!(events.next("the end of the stream").await.is_none());
    // A late answer is still accepted (202) and changes nothing.
    let late = peer
        .post(&json!({ "jsonrpc": "2.0", "id": request["id"], "result": { "role": "assistant", "content": { "type": "text", "text": "late" }, "model": "m" } }))
        .await;
    assert_eq!(late.status(), StatusCode::ACCEPTED);
    assert_server_messages_valid(&server.log());
}

#[tokio::test]
async fn server_requests_go_only_on_the_calls_post_stream_and_the_answer_gets_202() {
    // Arrange: a GET stream is open too.
    let server = MockMcpServer::builder()
        .tool(sampling_tool(PATIENCE))
        .start()
        .await;
    let peer = Peer::initialized(&server, "2025-11-25", json!({ "sampling": {} })).await;
    let mut get = event_stream(peer.get(None).await);

    // Act
    let response = peer
        .call(4, "test_sampling", json!({ "prompt": "ping" }), None)
        .await;
    let mut post = event_stream(response);
    post.expect("the priming event").await;
    let request = post.expect("sampling/createMessage").await.json();
    let answer = peer
        .post(&json!({
            "jsonrpc": "2.0",
            "id": request["id"],
            "result": { "role": "assistant", "content": { "type": "text", "text": "pong" }, "model": "m" }
        }))
        .await;
    let result = post.expect("the result").await.json();

    // Assert: messages on a POST stream "SHOULD relate to the originating client request",
    // and the server "MUST NOT broadcast the same message across multiple streams"
    // (basic/transports, "Sending Messages to the Server", "Multiple Connections").
    assert_eq!(request["method"], "sampling/createMessage");
    assert_eq!(answer.status(), StatusCode::ACCEPTED);
    assert_eq!(answer.text().await.expect("a body"), "", "202 has no body");
    assert_eq!(result_text(&result["result"]), "LLM response: pong");
    let on_get = loop {
        match get.try_next(QUIET).await {
            Ok(Some(event)) if event.is_priming() => continue,
            other => break other,
        }
    };
    assert!(on_get.is_err(), "the GET stream stays quiet: {on_get:?}");
    assert_server_messages_valid(&server.log());
}

// ---------------------------------------------------------------------------------------
// Cancellation (basic/utilities/cancellation).

/// POSTs `body` (answered as JSON), waits until its `tools/call` arrives, then cancels the
/// request `id`; returns the cancellation's answer and the POST's.
async fn post_then_cancel(
    server: &MockMcpServer,
    peer: &Peer,
    body: Value,
    id: &str,
) -> (reqwest::Response, reqwest::Response) {
    let caller = peer.clone();
    let pending =
        tokio::spawn(async move { caller.post_accepting(&body, "application/json").await });
    server
        .wait_for(|log| log.mcp().method("tools/call").count() == 1, PATIENCE)
        .await
        .expect("the call arrives");
    let cancel = peer
        .post(&json!({ "jsonrpc": "2.0", "method": "notifications/cancelled", "params": { "requestId": id } }))
        .await;
    let response = tokio::time::timeout(PATIENCE, pending)
        .await
        .expect("the POST is answered once its call is cancelled")
        .expect("the POST task");
    (cancel, response)
}

/// The `tools/call` record of `tool` once it is marked cancelled.
async fn wait_cancelled(server: &MockMcpServer, tool: &str) -> RpcMessage {
    let tool = tool.to_string();
    let probe = tool.clone();
    server
        .wait_for(
            move |log| {
                log.mcp()
                    .method("tools/call")
                    .name(&probe)
                    .filter(|m| m.cancelled)
                    .count()
                    == 1
            },
            PATIENCE,
        )
        .await
        .unwrap_or_else(|e| panic!("the call of {tool} was not marked cancelled: {e}"));
    the_call(&server.log(), &tool)
}

#[tokio::test]
async fn an_rmcp_call_dropped_mid_script_is_cancelled_and_gets_no_result() {
    // Arrange
    let server = MockMcpServer::builder()
        .tool(slow_tool(Duration::from_secs(30)))
        .tool(Tool::echo())
        .start()
        .await;
    let (client, mut heard) = connect_answering(&server.url(), Answers::default()).await;

    // Act: rmcp sends notifications/cancelled when a call's future is dropped.
    let call = client.call_tool(common::call("slow", json!({})));
    let mut call = Box::pin(call);
    tokio::select! {
        outcome = &mut call => panic!("the slow call finished: {outcome:?}"),
        heard = heard.next("the first progress") => assert!(matches!(heard, Heard::Progress(_))),
    }
    drop(call);
    let record = wait_cancelled(&server, "slow").await;

    // Assert: "Not send a response for the cancelled request" (cancellation page,
    // "Behavior Requirements").
    assert!(
        record.response.is_none(),
        "no response: {:?}",
        record.response
    );
    let log = server.log();
    let cancels = log
        .mcp()
        .from_client()
        .method("notifications/cancelled")
        .all();
    assert_eq!(cancels.len(), 1);
    assert_eq!(cancels[0].params()["requestId"], record.message["id"]);
    let echo = call_with(&client, "echo", json!({ "message": "still here" })).await;
    assert_eq!(
        echo.content[0].as_text().map(|t| t.text.as_str()),
        Some("still here")
    );
    assert_eq!(server.sessions().len(), 1, "the same session goes on");
    assert_server_messages_valid(&server.log());
    client.cancel().await.expect("the client closes");
}

#[tokio::test]
async fn a_cancelled_call_ends_its_stream_without_a_response_and_the_session_goes_on() {
    // Arrange
    let server = MockMcpServer::builder()
        .tool(slow_tool(Duration::from_secs(30)))
        .tool(Tool::echo())
        .start()
        .await;
    let peer = Peer::initialized(&server, "2025-11-25", json!({})).await;
    let response = peer.call(11, "slow", json!({}), Some("slow-1")).await;
    let mut events = event_stream(response);
    events.expect("the priming event").await;
    let progress = events.expect("the first progress").await.json();
    assert_eq!(progress["method"], "notifications/progress");

    // Act
    let cancel = peer
        .post(&json!({
            "jsonrpc": "2.0",
            "method": "notifications/cancelled",
            "params": { "requestId": 11, "reason": "the user gave up" }
        }))
        .await;

    // Assert
    assert_eq!(cancel.status(), StatusCode::ACCEPTED);
    let rest = events.rest("the end of the cancelled stream").await;
    assert!(rest.is_empty(), "nothing more, no response: {rest:?}");
    let record = wait_cancelled(&server, "slow").await;
    assert!(record.response.is_none());
    let echo = peer
        .call(12, "echo", json!({ "message": "alive" }), None)
        .await;
    let body: Value = echo.json().await.expect("a JSON body");
    assert_eq!(result_text(&body["result"]), "alive");
    assert_eq!(only_session(&server), peer.session());
    assert_server_messages_valid(&server.log());
}

#[tokio::test]
async fn cancelling_a_call_that_waits_for_the_user_cancels_its_elicitation_too() {
    // Arrange
    let server = MockMcpServer::builder()
        .tool(elicitation_tool())
        .start()
        .await;
    let peer = Peer::initialized(&server, "2025-11-25", json!({ "elicitation": {} })).await;
    let mut events = event_stream(
        peer.call(13, "test_elicitation", json!({ "message": "name?" }), None)
            .await,
    );
    events.expect("the priming event").await;
    let elicitation = events.expect("elicitation/create").await.json();
    assert_eq!(elicitation["method"], "elicitation/create");

    // Act
    let cancel = peer
        .post(&json!({ "jsonrpc": "2.0", "method": "notifications/cancelled", "params": { "requestId": 13 } }))
        .await;
    let rest = events.rest("the end of the cancelled stream").await;

    // Assert: the server's own request is cancelled in turn, and the call gets no response.
    assert_eq!(cancel.status(), StatusCode::ACCEPTED);
    let messages: Vec<Value> = rest.iter().map(|e| e.json()).collect();
    assert_eq!(messages.len(), 1, "{messages:?}");
    assert_eq!(messages[0]["method"], "notifications/cancelled");
    assert_eq!(messages[0]["params"]["requestId"], elicitation["id"]);
    assert!(
        wait_cancelled(&server, "test_elicitation")
            .await
            .response
            .is_none()
    );
    // A late answer to the abandoned elicitation is accepted and ignored.
    let late = peer
        .post(
            &json!({ "jsonrpc": "2.0", "id": elicitation["id"], "result": { "action": "cancel" } }),
        )
        .await;
    assert_eq!(late.status(), StatusCode::ACCEPTED);
    assert_server_messages_valid(&server.log());
}

#[tokio::test]
async fn a_cancelled_call_answered_as_json_gets_202_without_a_body() {
    // Arrange
    let server = MockMcpServer::builder()
        .tool(slow_tool(Duration::from_secs(30)))
        .start()
        .await;
    let peer = Peer::initialized(&server, "2025-11-25", json!({})).await;
    let request = json!({
        "jsonrpc": "2.0", "id": "c-1", "method": "tools/call",
        "params": { "name": "slow", "arguments": {} }
    });

    // Act
    let (cancel, response) = post_then_cancel(&server, &peer, request, "c-1").await;

    // Assert
    assert_eq!(cancel.status(), StatusCode::ACCEPTED);
    assert_eq!(response.status(), StatusCode::ACCEPTED);
    assert_eq!(response.text().await.expect("a body"), "");
    assert!(wait_cancelled(&server, "slow").await.response.is_none());
}

// basic/utilities/cancellation.mdx: a legacy client may also give up on a call answered as JSON
// by closing its connection. The handler stops, and the capture marks the call cancelled with no
// response, as it does in 2026-07-28.
#[tokio::test]
async fn a_legacy_json_call_whose_connection_closes_is_recorded_cancelled() {
    // Arrange
    let server = MockMcpServer::builder()
        .tool(slow_tool(Duration::from_secs(30)))
        .start()
        .await;
    let peer = Peer::initialized(&server, "2025-11-25", json!({})).await;
    let request = json!({
        "jsonrpc": "2.0", "id": "d-1", "method": "tools/call",
        "params": { "name": "slow", "arguments": {} }
    });

    // Act: the client stops waiting, which drops its connection.
    let gave_up = tokio::time::timeout(
        Duration::from_millis(300),
        peer.post_accepting(&request, "application/json"),
    )
    .await;

    // Assert
    assert!(gave_up.is_err(), "the slow call answered within 300 ms");
    let record = wait_cancelled(&server, "slow").await;
    assert!(record.response.is_none(), "{record:?}");
    assert!(
        record.duration_ms.is_some(),
        "the record is closed: {record:?}"
    );
}

// 2025-03-26 basic/utilities/cancellation: a request inside a batch is a request like any
// other, so `notifications/cancelled` stops it; the batch's answer then holds the others only.
#[tokio::test]
async fn a_request_inside_a_batch_can_be_cancelled() {
    // Arrange: batches exist in 2025-03-26 sessions only.
    let server = MockMcpServer::builder()
        .tool(slow_tool(Duration::from_secs(30)))
        .start()
        .await;
    let peer = Peer::initialized(&server, "2025-03-26", json!({})).await;
    let batch = json!([
        { "jsonrpc": "2.0", "id": "b-1", "method": "tools/call",
          "params": { "name": "slow", "arguments": {} } },
        { "jsonrpc": "2.0", "id": "b-2", "method": "ping" }
    ]);

    // Act
    let (cancel, response) = post_then_cancel(&server, &peer, batch, "b-1").await;

    // Assert
    assert_eq!(cancel.status(), StatusCode::ACCEPTED);
    assert_eq!(response.status(), StatusCode::OK);
    let answers: Value = response.json().await.expect("a JSON batch answer");
    assert_eq!(
        answers,
        json!([{ "jsonrpc": "2.0", "id": "b-2", "result": {} }])
    );
    assert!(wait_cancelled(&server, "slow").await.response.is_none());
}

// ---------------------------------------------------------------------------------------
// Structured output (server/tools, "Structured Content", "Output Schema").

fn weather_schema() -> Value {
    json!({
        "type": "object",
        "properties": {
            "temperature": { "type": "number" },
            "conditions": { "type": "string" }
        },
        "required": ["temperature", "conditions"]
    })
}

#[tokio::test]
async fn a_tool_with_an_output_schema_returns_structured_content_and_its_json_as_text() {
    // Arrange
    let server = MockMcpServer::builder()
        .tool(
            Tool::new("get_weather_data")
                .output_schema(weather_schema())
                .respond_with(json!({
                    "structuredContent": { "temperature": 22.5, "conditions": "${args.sky}" }
                })),
        )
        .start()
        .await;
    let (client, _heard) = connect_answering(&server.url(), Answers::default()).await;

    // Act
    let result = call_with(&client, "get_weather_data", json!({ "sky": "cloudy" })).await;

    // Assert: "a tool that returns structured content SHOULD also return the serialized JSON
    // in a TextContent block" (server/tools, "Structured Content").
    let structured = json!({ "temperature": 22.5, "conditions": "cloudy" });
    assert_eq!(result.structured_content, Some(structured.clone()));
    assert_eq!(result.content.len(), 1);
    let text = result.content[0]
        .as_text()
        .map(|t| t.text.clone())
        .unwrap_or_default();
    assert_eq!(
        serde_json::from_str::<Value>(&text).expect("JSON text"),
        structured
    );
    assert_ne!(result.is_error, Some(true));
    assert_server_messages_valid(&server.log());
    client.cancel().await.expect("the client closes");
}

#[tokio::test]
async fn structured_content_that_violates_the_output_schema_answers_a_render_failure_naming_each_violation()
 {
    // Arrange
    let server = MockMcpServer::builder()
        .tool(
            Tool::new("get_weather_data")
                .output_schema(weather_schema())
                .respond_with(json!({ "structuredContent": { "temperature": "warm" } })),
        )
        .start()
        .await;
    let (client, _heard) = connect_answering(&server.url(), Answers::default()).await;

    // Act
    let result = call_with(&client, "get_weather_data", json!({})).await;

    // Assert: "Servers MUST provide structured results that conform to this schema"
    // (server/tools, "Output Schema").
    assert_eq!(result.is_error, Some(true));
    assert!(result.structured_content.is_none());
    let text = result.content[0]
        .as_text()
        .map(|t| t.text.clone())
        .unwrap_or_default();
    let mut lines = text.lines();
    assert_eq!(lines.next(), Some(RENDER_FAILURE));
    let details: Vec<&str> = lines.collect();
    assert_eq!(details.len(), 2, "one line per violation: {details:?}");
    assert!(
        details
            .iter()
            .any(|d| d.contains("/temperature") && d.contains("number")),
        "{details:?}"
    );
    assert!(
        details.iter().any(|d| d.contains("conditions")),
        "{details:?}"
    );
    assert_server_messages_valid(&server.log());
    client.cancel().await.expect("the client closes");
}

// ---------------------------------------------------------------------------------------
// Resumability (basic/transports, "Resumability and Redelivery").

/// A tool whose events arrive over `pause`: progress, a pause, progress, the result.
fn resumable_tool(pause: Duration) -> Tool {
    Tool::new("long_job")
        .progress(1.0, Some(2.0), None)
        .delay(pause)
        .progress(2.0, Some(2.0), None)
        .respond_with(json!({ "content": [{ "type": "text", "text": "job done" }] }))
}

#[tokio::test]
async fn a_dropped_post_stream_resumes_with_get_and_last_event_id_up_to_the_result() {
    // Arrange
    let server = MockMcpServer::builder()
        .tool(resumable_tool(Duration::from_millis(300)))
        .start()
        .await;
    let peer = Peer::initialized(&server, "2025-11-25", json!({})).await;

    // Act: read the priming event and the first progress, then drop the connection.
    let response = peer.call(21, "long_job", json!({}), Some("job")).await;
    let mut events = event_stream(response);
    let priming = events.expect("the priming event").await;
    let first = events.expect("the first progress").await;
    drop(events);
    let last_seen = first.id.clone().expect("events carry ids");
    let resumed = peer.get(Some(&last_seen)).await;
    assert_eq!(resumed.status(), StatusCode::OK);
    let rest = event_stream(resumed).rest("the resumed stream").await;

    // Assert: "The server SHOULD immediately send an SSE event consisting of an event ID and
    // an empty data field" (basic/transports, "Sending Messages to the Server").
    assert!(priming.is_priming(), "{priming:?}");
    let (stream, seq) = priming.stream_and_seq();
    assert_eq!(first.stream_and_seq(), (stream, seq + 1));
    assert_eq!(first.json()["params"]["progress"], 1.0);
    let replayed: Vec<Value> = rest.iter().map(|e| e.json()).collect();
    assert_eq!(
        replayed.len(),
        2,
        "the second progress and the result: {replayed:?}"
    );
    assert_eq!(replayed[0]["params"]["progress"], 2.0);
    assert_eq!(replayed[1]["id"], 21);
    assert_eq!(result_text(&replayed[1]["result"]), "job done");
    let ids: Vec<(u64, u64)> = rest.iter().map(|e| e.stream_and_seq()).collect();
    assert_eq!(
        ids,
        [(stream, seq + 2), (stream, seq + 3)],
        "the same stream, in order"
    );
    assert_server_messages_valid(&server.log());
}

#[tokio::test]
async fn resuming_while_the_post_is_still_connected_moves_the_stream_to_the_get() {
    // Arrange: a long pause, so the GET surely takes over before the result.
    let server = MockMcpServer::builder()
        .tool(resumable_tool(Duration::from_secs(1)))
        .start()
        .await;
    let peer = Peer::initialized(&server, "2025-11-25", json!({})).await;
    let mut post = event_stream(peer.call(41, "long_job", json!({}), Some("job")).await);
    let priming = post.expect("the priming event").await;

    // Act: resume from the priming event while the POST connection is still open.
    let resumed = peer.get(priming.id.as_deref()).await;
    let replayed = event_stream(resumed).rest("the resumed stream").await;
    let left_on_post = post.rest("the end of the POST stream").await;

    // Assert: every message goes on one connection only (basic/transports, "Multiple
    // Connections"): the GET takes the stream over, and the POST ends without the result.
    let messages: Vec<Value> = replayed.iter().map(|e| e.json()).collect();
    assert_eq!(
        messages.len(),
        3,
        "both progress notifications and the result: {messages:?}"
    );
    assert_eq!(messages[2]["id"], 41);
    assert!(
        left_on_post
            .iter()
            .all(|e| e.json().get("id") != Some(&json!(41))),
        "the result is not also on the POST: {left_on_post:?}"
    );
    assert_server_messages_valid(&server.log());
}

#[tokio::test]
async fn a_get_resuming_another_stream_never_replays_this_ones_events() {
    // Arrange: call A completes; call B's connection drops after its priming event.
    let server = MockMcpServer::builder()
        .tool(resumable_tool(Duration::from_millis(300)))
        .tool(
            Tool::new("quick")
                .log(LogLevel::Info, "quick")
                .respond_with(json!({ "content": [{ "type": "text", "text": "quick done" }] })),
        )
        .start()
        .await;
    let peer = Peer::initialized(&server, "2025-11-25", json!({})).await;
    let a = event_stream(peer.call(31, "quick", json!({}), None).await)
        .rest("call A")
        .await;
    let a_stream = a[0].stream_and_seq().0;
    let mut b = event_stream(peer.call(32, "long_job", json!({}), Some("b")).await);
    let b_priming = b.expect("B's priming event").await;
    let b_stream = b_priming.stream_and_seq().0;
    drop(b);
    assert_ne!(a_stream, b_stream, "each POST has its own stream");

    // Act: resume A from its priming event, and resume a stream that never existed.
    let a_id = a[0].id.clone().expect("an id");
    let replay_a = event_stream(peer.get(Some(&a_id)).await)
        .rest("A replayed")
        .await;
    let mut unknown = event_stream(peer.get(Some("999-0")).await);
    let from_unknown = unknown.try_next(Duration::from_millis(600)).await;

    // Assert: "The server MUST NOT replay messages that would have been delivered on a
    // different stream" (basic/transports, "Resumability and Redelivery").
    assert!(
        replay_a.iter().all(|e| e.stream_and_seq().0 == a_stream),
        "only A's events: {replay_a:?}"
    );
    assert_eq!(
        replay_a.last().map(|e| e.json()["id"].clone()),
        Some(json!(31))
    );
    match from_unknown {
        Err(()) | Ok(None) => {}
        Ok(Some(event)) => assert!(
            event.stream_and_seq().0 != b_stream && !event.data.contains("\"id\":32"),
            "B's events leaked onto another stream: {event:?}"
        ),
    }
    // B's events are still there for B itself.
    let b_rest = event_stream(peer.get(b_priming.id.as_deref()).await)
        .rest("B resumed")
        .await;
    assert_eq!(
        b_rest.last().map(|e| e.json()["id"].clone()),
        Some(json!(32))
    );
    assert_server_messages_valid(&server.log());
}

#[tokio::test]
async fn sessions_of_2025_06_18_get_no_priming_event() {
    // Arrange
    let server = MockMcpServer::builder().tool(progress_tool()).start().await;
    let peer = Peer::initialized(&server, "2025-06-18", json!({})).await;

    // Act
    let response = peer
        .call(1, "test_tool_with_progress", json!({}), Some("p"))
        .await;
    let events = event_stream(response).rest("the result").await;

    // Assert: priming events are new in 2025-11-25; older clients would choke on empty data.
    assert!(!events.is_empty());
    assert!(events.iter().all(|e| !e.is_priming()), "{events:?}");
    assert_eq!(
        events.len(),
        4,
        "three progress notifications and the result"
    );
    assert_eq!(events[3].json()["id"], 1);
}

// ---------------------------------------------------------------------------------------
// The fixture API.

#[tokio::test]
async fn a_step_template_that_does_not_parse_is_rejected_at_start_naming_the_tool() {
    // Act
    let outcome = MockMcpServer::builder()
        .tool(Tool::new("noisy").log(LogLevel::Info, json!("${args.oops")))
        .try_start()
        .await;
    let decreasing = MockMcpServer::builder()
        .tool(
            Tool::new("backwards")
                .progress(50.0, None, None)
                .progress(10.0, None, None),
        )
        .try_start()
        .await;

    // Assert
    let error = outcome
        .expect_err("a broken step template is refused")
        .to_string();
    assert!(
        error.contains("noisy") && error.contains("script"),
        "{error}"
    );
    // "The progress value MUST increase with each notification" (progress page,
    // "Behavior Requirements").
    let error = decreasing
        .expect_err("decreasing progress is refused")
        .to_string();
    assert!(
        error.contains("backwards") && error.contains("progress"),
        "{error}"
    );
}

#[tokio::test]
async fn a_step_template_that_fails_at_call_time_answers_a_render_failure_naming_the_step() {
    // Arrange
    let server = MockMcpServer::builder()
        .tool(
            Tool::new("greet")
                .delay(Duration::from_millis(1))
                .log(LogLevel::Info, json!({ "$eval": "args.user.name" })),
        )
        .start()
        .await;
    let (client, mut heard) = connect_answering(&server.url(), Answers::default()).await;

    // Act: no `user` argument.
    let result = call_with(&client, "greet", json!({})).await;

    // Assert
    assert_eq!(result.is_error, Some(true));
    let text = result.content[0]
        .as_text()
        .map(|t| t.text.clone())
        .unwrap_or_default();
    let mut lines = text.lines();
    assert_eq!(lines.next(), Some(RENDER_FAILURE));
    let detail = lines.next().unwrap_or_default();
    assert!(
        detail.starts_with("script step 1: "),
        "names the step: {detail}"
    );
    assert!(
        heard.rest().await.is_empty(),
        "the failed step sent nothing"
    );
    client.cancel().await.expect("the client closes");
}

#[tokio::test]
async fn steps_round_trip_through_the_spec_as_plain_json() {
    // Arrange
    let tool = Tool::new("t")
        .step(Step::Log {
            level: LogLevel::Warning,
            logger: Some("db".into()),
            data: json!({ "rows": 3 }),
        })
        .delay(Duration::from_millis(20))
        .ask_with_timeout("r", AskMethod::Roots, Value::Null, Duration::from_secs(2));

    // Act
    let json = serde_json::to_value(tool.spec()).expect("the spec serializes");

    // Assert
    assert_eq!(
        json["script"],
        json!([
            { "step": "log", "level": "warning", "logger": "db", "data": { "rows": 3 } },
            { "step": "delay", "ms": 20 },
            { "step": "ask", "key": "r", "method": "roots/list", "params": null, "timeoutMs": 2000 }
        ])
    );
    let back: mcp_decoy::spec::ToolSpec = serde_json::from_value(json).expect("it deserializes");
    assert_eq!(&back, tool.spec());
}
