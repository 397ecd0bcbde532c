//! Fault injection at the transport level, end to end: each fault kind as the rmcp client
//! observes it (an error, a retry, a resumed stream, a re-initialized session) and on the
//! wire with raw HTTP, what the capture names, and that the server keeps serving: every test
//! ends with a normal call on a fresh session.
//!
//! Spec references are to `/work/shared/spec/<revision>/basic/transports.mdx`, section in
//! quotes.

mod common;

use std::time::Duration;

use common::schema::assert_unfaulted_messages_valid;
use common::{PATIENCE, QUIET, call, call_ok, connect, connect_with, text};
use mcp_decoy::spec::{Delay, Listing, ResponseMode, SessionExpiry};
use mcp_decoy::{Fault, FaultRule, MockMcpServer, ProtocolVersion, Tool};
use reqwest::StatusCode;
use rmcp::model::{ClientCapabilities, ClientConfig, Implementation};
use serde_json::{Value, json};

use raw::{Peer, events, request};

/// Raw HTTP: a session-holding peer, and an SSE reader that keeps ids, `retry` and data.
mod raw {
    use std::pin::Pin;
    use std::time::Duration;

    use futures::{Stream, StreamExt};
    use mcp_decoy::MockMcpServer;
    use reqwest::{Method, RequestBuilder, Response, StatusCode};
    use serde_json::{Value, json};

    pub fn request(id: i64, method: &str, params: Value) -> Value {
        json!({ "jsonrpc": "2.0", "id": id, "method": method, "params": params })
    }

    /// One client of one server, with a session once initialized.
    #[derive(Debug, Clone)]
    pub struct Peer {
        http: reqwest::Client,
        pub url: String,
        pub session: Option<String>,
        pub version: String,
    }

    impl Peer {
        /// Initializes a `version` session and sends `notifications/initialized`.
        pub async fn initialized(server: &MockMcpServer, version: &str) -> Peer {
            let mut peer = Peer {
                http: reqwest::Client::builder()
                    .no_proxy()
                    .build()
                    .expect("build the reqwest client"),
                url: server.url(),
                session: None,
                version: version.to_string(),
            };
            let init = request(
                0,
                "initialize",
                json!({ "protocolVersion": version, "capabilities": {},
                        "clientInfo": { "name": "raw-faults", "version": "1.0.0" } }),
            );
            let response = peer.post(&init).await;
            assert_eq!(response.status(), StatusCode::OK, "initialize status");
            let session = response
                .headers()
                .get("mcp-session-id")
                .expect("initialize carries Mcp-Session-Id")
                .to_str()
                .expect("the session id is ASCII")
                .to_string();
            peer.session = Some(session);
            let _ = response.bytes().await;
            let note = json!({ "jsonrpc": "2.0", "method": "notifications/initialized" });
            assert_eq!(peer.post(&note).await.status(), StatusCode::ACCEPTED);
            peer
        }

        pub fn session(&self) -> &str {
            self.session.as_deref().expect("the peer has a session")
        }

        fn build(&self, method: Method) -> RequestBuilder {
            let mut builder = self
                .http
                .request(method, &self.url)
                .header("mcp-protocol-version", &self.version);
            if let Some(session) = &self.session {
                builder = builder.header("mcp-session-id", session);
            }
            builder
        }

        /// POSTs `body` accepting JSON and event streams.
        pub async fn post(&self, body: &Value) -> Response {
            self.try_post(body).await.expect("send the POST")
        }

        /// POSTs `body`; `Err` when the connection broke before the response head.
        pub async fn try_post(&self, body: &Value) -> reqwest::Result<Response> {
            self.build(Method::POST)
                .header("content-type", "application/json")
                .header("accept", "application/json, text/event-stream")
                .body(body.to_string())
                .send()
                .await
        }

        /// GET of an event stream, resuming after `last_event_id` when given.
        pub async fn get(&self, last_event_id: Option<&str>) -> Response {
            let mut builder = self
                .build(Method::GET)
                .header("accept", "text/event-stream");
            if let Some(id) = last_event_id {
                builder = builder.header("last-event-id", id);
            }
            builder.send().await.expect("send the GET")
        }
    }

    /// One server-sent event.
    #[derive(Debug, Clone, Default, PartialEq)]
    pub struct Event {
        pub id: Option<String>,
        pub retry: Option<u64>,
        pub data: String,
    }

    impl Event {
        pub fn json(&self) -> Option<Value> {
            serde_json::from_str(&self.data).ok()
        }

        pub fn is_priming(&self) -> bool {
            self.id.is_some() && self.data.is_empty()
        }
    }

    type Bytes = Pin<Box<dyn Stream<Item = reqwest::Result<bytes::Bytes>> + Send>>;

    /// The events of a response, comments skipped.
    pub struct Events {
        stream: Bytes,
        buffer: String,
        /// The body ended with an error (the connection broke).
        pub broke: bool,
    }

    pub fn events(response: Response) -> Events {
        Events {
            stream: Box::pin(response.bytes_stream()),
            buffer: String::new(),
            broke: false,
        }
    }

    impl Events {
        /// The next event, `None` at the end; panics if neither comes within `wait`.
        pub async fn next(&mut self, wait: Duration) -> Option<Event> {
            tokio::time::timeout(wait, self.next_event())
                .await
                .unwrap_or_else(|_| panic!("no event and no end of stream within {wait:?}"))
        }

        /// Every event until the stream ends.
        pub async fn all(&mut self, wait: Duration) -> Vec<Event> {
            let mut all = Vec::new();
            while let Some(event) = self.next(wait).await {
                all.push(event);
            }
            all
        }

        /// `Err` when nothing (no event, no end) came within `wait`.
        pub async fn try_next(&mut self, wait: Duration) -> Result<Option<Event>, ()> {
            tokio::time::timeout(wait, self.next_event())
                .await
                .map_err(|_| ())
        }

        async fn next_event(&mut self) -> Option<Event> {
            loop {
                if let Some(end) = self.buffer.find("\n\n") {
                    let block: String = self.buffer.drain(..end + 2).collect();
                    if let Some(event) = parse(&block) {
                        return Some(event);
                    }
                    continue;
                }
                match self.stream.next().await {
                    Some(Ok(chunk)) => self.buffer.push_str(&String::from_utf8_lossy(&chunk)),
                    Some(Err(_)) => {
                        self.broke = true;
                        return None;
                    }
                    None => return None,
                }
            }
        }
    }

    fn parse(block: &str) -> Option<Event> {
        let mut event = Event::default();
        let mut fields = 0;
        for line in block.lines() {
            let (field, value) = line.split_once(':').unwrap_or((line, ""));
            let value = value.strip_prefix(' ').unwrap_or(value);
            match field {
                "id" => event.id = Some(value.to_string()),
                "retry" => event.retry = value.parse().ok(),
                "data" => {
                    if fields > 0 && !event.data.is_empty() {
                        event.data.push('\n');
                    }
                    event.data.push_str(value);
                }
                "event" => {}
                _ => continue,
            }
            fields += 1;
        }
        (fields > 0).then_some(event)
    }
}

/// How long a raw read waits for an event that must come.
const WAIT: Duration = Duration::from_secs(5);

fn echo_text(text: &str) -> Value {
    json!({ "text": text })
}

/// The proof that a fault did not break the server: a new rmcp session lists the tools and
/// calls `echo`.
async fn fresh_session_works(server: &MockMcpServer) {
    let client = connect(&server.url()).await;
    let result = call_ok(&client, "echo", echo_text("still here")).await;
    assert_eq!(text(&result), r#"{"text":"still here"}"#);
    client.cancel().await.expect("close the fresh client");
}

/// An rmcp client pinned to `version` (2025-06-18 has no priming event, so a stream that
/// ends without an event id is final, not resumable).
async fn connect_at(url: &str, version: rmcp::model::ProtocolVersion) -> common::Client {
    let config = ClientConfig::new(
        ClientCapabilities::default(),
        Implementation::new(common::CLIENT_NAME, "1.0.0"),
    )
    .with_protocol_version(version);
    connect_with(url, config).await.0
}

/// The labels of the faults that fired, oldest first.
fn fired(server: &MockMcpServer) -> Vec<String> {
    server.log().faults().into_iter().map(|f| f.label).collect()
}

// ---------------------------------------------------------------------------------------
// JSON-RPC errors and HTTP statuses

#[tokio::test]
async fn an_error_fault_reaches_the_client_with_its_code_message_and_data() {
    // Arrange
    let server =
        MockMcpServer::builder()
            .tool(Tool::new("echo"))
            .fault(FaultRule::on_tool("echo").times(1).fault(
                Fault::error(-32050, "the backend is down").with_data(json!({ "retry": true })),
            ))
            .start()
            .await;
    let client = connect(&server.url()).await;

    // Act
    let failed = client
        .call_tool(call("echo", echo_text("a")))
        .await
        .expect_err("the first call gets the error");
    let second = call_ok(&client, "echo", echo_text("b")).await;

    // Assert
    let rmcp::ServiceError::McpError(error) = failed else {
        panic!("expected a JSON-RPC error, got {failed:?}");
    };
    assert_eq!(error.code.0, -32050);
    assert_eq!(error.message, "the backend is down");
    assert_eq!(error.data, Some(json!({ "retry": true })));
    assert_eq!(text(&second), r#"{"text":"b"}"#);
    assert_eq!(fired(&server), ["error -32050"]);
    assert_eq!(
        server.call_count("echo"),
        2,
        "a faulted call still reached the tool"
    );
    assert_unfaulted_messages_valid(&server.log());
    fresh_session_works(&server).await;
}

#[tokio::test]
async fn a_client_that_retries_on_503_succeeds_on_the_third_attempt() {
    // Arrange: the first two calls of `search` get 503 with Retry-After.
    let server = MockMcpServer::builder()
        .tool(Tool::new("echo"))
        .tool(Tool::new("search").expect(3))
        .fault(
            FaultRule::on_tool("search")
                .times(2)
                .fault(Fault::http(503).with_header("Retry-After", "0")),
        )
        .start()
        .await;
    let client = connect(&server.url()).await;

    // Act: retry on 503 as a careful client would.
    let mut failures = Vec::new();
    let result = loop {
        match client
            .call_tool(call("search", json!({ "q": "rust" })))
            .await
        {
            Ok(result) => break result,
            Err(error) if failures.len() < 5 => failures.push(error.to_string()),
            Err(error) => panic!("still failing after 5 attempts: {error}"),
        }
    };

    // Assert: rmcp reports the status (and keeps the session) for each 503.
    assert_eq!(failures.len(), 2, "{failures:?}");
    for failure in &failures {
        assert!(
            failure.contains("503"),
            "rmcp's error names the status: {failure}"
        );
    }
    assert!(!result.is_error.unwrap_or(false));
    assert_eq!(fired(&server), ["http 503", "http 503"]);
    let log = server.log();
    let refused = log.http().status(503).all();
    assert_eq!(refused.len(), 2);
    assert_eq!(refused[0].response_header("retry-after"), Some("0"));
    assert_eq!(server.sessions().len(), 1, "503 does not end the session");
    assert_unfaulted_messages_valid(&log);
    fresh_session_works(&server).await;
} // drop: `search` was expected 3 times, faulted calls included

#[tokio::test]
async fn a_429_carries_its_body_and_retry_after_header() {
    // Arrange
    let server = MockMcpServer::builder()
        .tool(Tool::new("echo"))
        .fault(
            FaultRule::on_method("tools/list").times(1).fault(
                Fault::http(429)
                    .with_header("Retry-After", "7")
                    .with_body("slow down"),
            ),
        )
        .start()
        .await;
    let peer = Peer::initialized(&server, "2025-11-25").await;

    // Act
    let refused = peer.post(&request(1, "tools/list", json!({}))).await;
    let status = refused.status();
    let retry_after = refused.headers().get("retry-after").cloned();
    let body = refused.text().await.expect("a body");
    let listed = peer.post(&request(2, "tools/list", json!({}))).await;

    // Assert
    assert_eq!(status, StatusCode::TOO_MANY_REQUESTS);
    assert_eq!(
        retry_after.as_ref().and_then(|v| v.to_str().ok()),
        Some("7")
    );
    assert_eq!(body, "slow down");
    assert_eq!(listed.status(), StatusCode::OK, "the rule fired once");
    let record = server.log().mcp().method("tools/list").first().cloned();
    let record = record.expect("the refused tools/list is captured");
    assert_eq!(record.fault.as_deref(), Some("http 429"));
    assert_eq!(
        record.response, None,
        "no JSON-RPC response reached the client"
    );
    fresh_session_works(&server).await;
}

// ---------------------------------------------------------------------------------------
// Broken bodies

#[tokio::test]
async fn malformed_json_fails_the_call_and_the_capture_shows_the_text_sent() {
    // Arrange
    let server = MockMcpServer::builder()
        .tool(Tool::new("echo"))
        .fault(
            FaultRule::on_tool("echo")
                .times(1)
                .fault(Fault::MalformedJson),
        )
        .start()
        .await;
    let client = connect(&server.url()).await;

    // Act
    let failed = client.call_tool(call("echo", echo_text("a"))).await;
    let second = call_ok(&client, "echo", echo_text("b")).await;

    // Assert
    let error = failed.expect_err("rmcp cannot parse the body");
    assert!(error.to_string().contains("parse"), "{error}");
    assert_eq!(text(&second), r#"{"text":"b"}"#);
    let log = server.log();
    let call = log
        .mcp()
        .method("tools/call")
        .first()
        .cloned()
        .expect("captured");
    assert_eq!(call.fault.as_deref(), Some("malformed_json"));
    let sent = call.response.expect("what was sent is captured");
    let sent = sent.as_str().expect("the broken text, as a string");
    assert!(serde_json::from_str::<Value>(sent).is_err(), "{sent}");
    assert!(sent.starts_with("{jsonrpc\""), "{sent}");
    assert_unfaulted_messages_valid(&log);
    fresh_session_works(&server).await;
}

#[tokio::test]
async fn malformed_json_on_an_event_stream_is_an_event_whose_data_is_not_json() {
    // Arrange
    let server = MockMcpServer::builder()
        .response_mode(ResponseMode::Sse)
        .tool(Tool::new("echo"))
        .fault(FaultRule::on_tool("echo").fault(Fault::MalformedJson))
        .start()
        .await;
    let peer = Peer::initialized(&server, "2025-11-25").await;

    // Act
    let answer = peer
        .post(&request(
            1,
            "tools/call",
            json!({ "name": "echo", "arguments": {} }),
        ))
        .await;
    let all = events(answer).all(WAIT).await;

    // Assert: the priming event, then the broken response without an id.
    assert_eq!(all.len(), 2, "{all:?}");
    assert!(all[0].is_priming());
    assert_eq!(all[1].json(), None, "data is not JSON: {}", all[1].data);
    assert_eq!(all[1].id, None, "no id, as if garbled in transit");
    fresh_session_works(&server).await;
}

#[tokio::test]
async fn rmcp_resumes_past_a_malformed_event_and_gets_the_response_intact() {
    // Arrange: 2025-11-25, so the stream starts with a priming event rmcp can resume from.
    let server = MockMcpServer::builder()
        .response_mode(ResponseMode::Sse)
        .tool(Tool::new("echo"))
        .fault(
            FaultRule::on_tool("echo")
                .times(1)
                .fault(Fault::MalformedJson),
        )
        .start()
        .await;
    let client = connect(&server.url()).await;

    // Act: rmcp skips the event it cannot parse, the stream ends, rmcp resumes.
    let result = call_ok(&client, "echo", echo_text("garbled")).await;

    // Assert
    assert_eq!(text(&result), r#"{"text":"garbled"}"#);
    let resumed = server
        .log()
        .http()
        .method("GET")
        .filter(|h| h.request_header("last-event-id").is_some())
        .count();
    assert_eq!(resumed, 1);
    fresh_session_works(&server).await;
}

#[tokio::test]
async fn a_truncated_json_body_is_the_first_half_of_the_response() {
    // Arrange
    let server = MockMcpServer::builder()
        .tool(Tool::new("echo"))
        .fault(
            FaultRule::on_method("tools/list")
                .times(1)
                .fault(Fault::TruncatedStream),
        )
        .start()
        .await;
    let peer = Peer::initialized(&server, "2025-11-25").await;

    // Act
    let cut = peer.post(&request(1, "tools/list", json!({}))).await;
    let status = cut.status();
    let body = cut.text().await.expect("a body");
    let whole = peer.post(&request(2, "tools/list", json!({}))).await;
    let whole = whole.text().await.expect("a body");

    // Assert
    assert_eq!(status, StatusCode::OK);
    assert!(serde_json::from_str::<Value>(&body).is_err(), "{body}");
    let expected = whole.replace("\"id\":2", "\"id\":1");
    assert!(expected.starts_with(&body) && body.len() * 2 <= expected.len() + 1);
    fresh_session_works(&server).await;
}

#[tokio::test]
async fn a_truncated_stream_sends_what_came_before_the_response_then_ends() {
    // Arrange: a tool that logs before its result, on an event stream.
    let server = MockMcpServer::builder()
        .response_mode(ResponseMode::Sse)
        .tool(Tool::new("echo"))
        .tool(
            Tool::new("slow")
                .log(mcp_decoy::spec::LogLevel::Info, "working")
                .respond_with(json!({ "content": [{ "type": "text", "text": "done" }] })),
        )
        .fault(FaultRule::on_tool("slow").fault(Fault::TruncatedStream))
        .fault(
            FaultRule::on_tool("echo")
                .times(1)
                .fault(Fault::TruncatedStream),
        )
        .start()
        .await;
    let peer = Peer::initialized(&server, "2025-11-25").await;

    // Act
    let answer = peer
        .post(&request(
            1,
            "tools/call",
            json!({ "name": "slow", "arguments": {} }),
        ))
        .await;
    let all = events(answer).all(WAIT).await;
    // rmcp on 2025-06-18 (no priming event): a stream that ends with no event id and no
    // response fails the call.
    let client = connect_at(&server.url(), rmcp::model::ProtocolVersion::V_2025_06_18).await;
    let failed = client.call_tool(call("echo", echo_text("a"))).await;

    // Assert
    let methods: Vec<Value> = all
        .iter()
        .filter_map(|e| e.json())
        .map(|m| m["method"].clone())
        .collect();
    assert_eq!(methods, [json!("notifications/message")], "{all:?}");
    let error = failed.expect_err("the stream ended without the response");
    assert!(error.to_string().contains("closed"), "{error}");
    let log = server.log();
    let slow = log.tool_calls("slow");
    assert_eq!(
        slow[0].result, None,
        "the capture shows no response was sent"
    );
    assert_eq!(fired(&server), ["truncated_stream", "truncated_stream"]);
    fresh_session_works(&server).await;
}

// ---------------------------------------------------------------------------------------
// Connections that hang or break

#[tokio::test]
async fn a_hanging_stream_stays_open_until_the_client_leaves_and_the_server_serves_on() {
    // Arrange
    let server = MockMcpServer::builder()
        .response_mode(ResponseMode::Sse)
        .tool(Tool::new("echo"))
        .fault(
            FaultRule::on_tool("echo")
                .times(1)
                .fault(Fault::HangingStream),
        )
        .start()
        .await;
    let peer = Peer::initialized(&server, "2025-11-25").await;

    // Act: the handler answers (the capture shows it), the stream never carries it.
    let answer = peer
        .post(&request(
            1,
            "tools/call",
            json!({ "name": "echo", "arguments": {} }),
        ))
        .await;
    let mut stream = events(answer);
    let priming = stream.next(WAIT).await.expect("the priming event");
    server
        .wait_for(
            |log| {
                log.mcp()
                    .method("tools/call")
                    .faulted()
                    .filter(|m| m.duration_ms.is_some())
                    .count()
                    == 1
            },
            PATIENCE,
        )
        .await
        .expect("the hanging call was handled");
    let silent = stream.try_next(QUIET).await;
    drop(stream);

    // Assert
    assert!(priming.is_priming());
    assert!(
        silent.is_err(),
        "nothing after the priming event: {silent:?}"
    );
    let call = server.log().tool_calls("echo");
    assert_eq!(call[0].result, None, "no response reached the client");
    fresh_session_works(&server).await;
}

#[tokio::test]
async fn a_hanging_request_ends_when_its_session_ends_and_when_the_server_stops() {
    // Arrange: JSON mode, every tools/list hangs.
    let server = MockMcpServer::builder()
        .tool(Tool::new("echo"))
        .fault(FaultRule::on_method("tools/list").fault(Fault::HangingStream))
        .start()
        .await;
    let first = Peer::initialized(&server, "2025-11-25").await;
    let second = Peer::initialized(&server, "2025-11-25").await;
    let hang = |peer: Peer| {
        tokio::spawn(async move { peer.try_post(&request(1, "tools/list", json!({}))).await })
    };
    let closed_by_session = hang(first.clone());
    let closed_by_stop = hang(second.clone());
    server
        .wait_for(
            |log| log.mcp().method("tools/list").faulted().count() == 2,
            PATIENCE,
        )
        .await
        .expect("both requests arrived");

    // Act 1: the session ends (as on DELETE or expiry).
    assert!(server.close_session(first.session()));
    let ended = tokio::time::timeout(PATIENCE, closed_by_session)
        .await
        .expect("the hang ends with its session")
        .expect("the task ran")
        .expect("a response");

    // Assert 1
    assert_eq!(ended.status(), StatusCode::NOT_FOUND);
    fresh_session_works(&server).await;

    // Act 2: the server stops.
    server.shutdown().await;
    let stopped = tokio::time::timeout(PATIENCE, closed_by_stop)
        .await
        .expect("the hang ends when the server stops")
        .expect("the task ran");

    // Assert 2: the connection closed without a response.
    assert!(stopped.is_err(), "{stopped:?}");
}

#[tokio::test]
async fn close_connection_breaks_a_json_body_mid_response() {
    // Arrange
    let server = MockMcpServer::builder()
        .tool(Tool::new("echo"))
        .fault(
            FaultRule::on_tool("echo")
                .times(1)
                .fault(Fault::CloseConnection),
        )
        .start()
        .await;
    let peer = Peer::initialized(&server, "2025-11-25").await;
    let client = connect(&server.url()).await;

    // Act
    let raw = match peer
        .try_post(&request(
            1,
            "tools/call",
            json!({ "name": "echo", "arguments": {} }),
        ))
        .await
    {
        Ok(response) => response.bytes().await.map(|_| ()),
        Err(error) => Err(error),
    };
    let rmcp_call = call_ok(&client, "echo", echo_text("after")).await;

    // Assert
    assert!(raw.is_err(), "the body broke off: {raw:?}");
    assert_eq!(
        text(&rmcp_call),
        r#"{"text":"after"}"#,
        "the rule fired once"
    );
    let log = server.log();
    let record = log
        .mcp()
        .method("tools/call")
        .first()
        .cloned()
        .expect("captured");
    assert_eq!(record.fault.as_deref(), Some("close_connection"));
    assert_eq!(record.response, None);
    fresh_session_works(&server).await;
}

#[tokio::test]
async fn rmcp_resumes_a_cut_stream_with_last_event_id_and_gets_the_result() {
    // Arrange: 2025-11-25 streams start with a priming event, so a cut one can be resumed
    // (transports, "Resumability and Redelivery").
    let server = MockMcpServer::builder()
        .response_mode(ResponseMode::Sse)
        .tool(Tool::new("echo"))
        .fault(
            FaultRule::on_tool("echo")
                .times(1)
                .fault(Fault::CloseConnection),
        )
        .start()
        .await;
    let client = connect(&server.url()).await;

    // Act
    let result = call_ok(&client, "echo", echo_text("resumed")).await;

    // Assert
    assert_eq!(text(&result), r#"{"text":"resumed"}"#);
    let log = server.log();
    let resumed = log
        .http()
        .method("GET")
        .filter(|h| h.request_header("last-event-id").is_some())
        .count();
    assert_eq!(resumed, 1, "one GET with Last-Event-ID");
    assert_eq!(fired(&server), ["close_connection"]);
    fresh_session_works(&server).await;
}

// ---------------------------------------------------------------------------------------
// Wrong, duplicate and flooded answers

#[tokio::test]
async fn a_wrong_id_answers_an_id_the_client_never_used() {
    // Arrange
    let server = MockMcpServer::builder()
        .tool(Tool::new("echo"))
        .fault(FaultRule::on_method("ping").fault(Fault::WrongId))
        .start()
        .await;
    let peer = Peer::initialized(&server, "2025-11-25").await;

    // Act
    let number: Value = peer
        .post(&request(4, "ping", json!({})))
        .await
        .json()
        .await
        .expect("JSON");

    // Assert
    assert_eq!(number["id"], json!(1_000_004));
    assert_eq!(number["result"], json!({}));
    let record = server
        .log()
        .mcp()
        .method("ping")
        .first()
        .cloned()
        .expect("ping");
    assert_eq!(record.fault.as_deref(), Some("wrong_id"));
    assert_eq!(record.response.expect("sent")["id"], json!(1_000_004));
    fresh_session_works(&server).await;
}

#[tokio::test]
async fn a_duplicate_response_comes_twice_and_rmcp_takes_the_first() {
    // Arrange
    let server = MockMcpServer::builder()
        .response_mode(ResponseMode::Sse)
        .tool(Tool::new("echo"))
        .fault(FaultRule::on_tool("echo").fault(Fault::DuplicateResponse))
        .start()
        .await;
    let peer = Peer::initialized(&server, "2025-11-25").await;
    let client = connect(&server.url()).await;

    // Act
    let answer = peer
        .post(&request(
            1,
            "tools/call",
            json!({ "name": "echo", "arguments": {} }),
        ))
        .await;
    let all = events(answer).all(WAIT).await;
    let result = call_ok(&client, "echo", echo_text("twice")).await;

    // Assert: two events with the same message and distinct ids.
    let responses: Vec<&raw::Event> = all.iter().filter(|e| e.json().is_some()).collect();
    assert_eq!(responses.len(), 2, "{all:?}");
    assert_eq!(responses[0].data, responses[1].data);
    assert_ne!(responses[0].id, responses[1].id);
    assert_eq!(text(&result), r#"{"text":"twice"}"#);
    fresh_session_works(&server).await;
}

#[tokio::test]
async fn a_duplicate_json_response_is_repeated_on_the_get_stream() {
    // Arrange: JSON mode has one body per request, so the copy goes on the GET stream.
    let server = MockMcpServer::builder()
        .tool(Tool::new("echo"))
        .fault(FaultRule::on_method("ping").fault(Fault::DuplicateResponse))
        .start()
        .await;
    let peer = Peer::initialized(&server, "2025-11-25").await;

    // Act
    let body: Value = peer
        .post(&request(3, "ping", json!({})))
        .await
        .json()
        .await
        .expect("JSON");
    let mut stream = events(peer.get(None).await);
    let copy = stream.next(WAIT).await.expect("the copy");

    // Assert
    assert_eq!(body, json!({ "jsonrpc": "2.0", "id": 3, "result": {} }));
    assert_eq!(copy.json(), Some(body));
    drop(stream);
    fresh_session_works(&server).await;
}

#[tokio::test]
async fn a_notification_flood_arrives_before_the_result() {
    // Arrange
    let server = MockMcpServer::builder()
        .tool(Tool::new("echo"))
        .fault(
            FaultRule::on_tool("echo")
                .times(1)
                .fault(Fault::notification_flood(1_000)),
        )
        .start()
        .await;
    let (client, mut heard) =
        common::connect_answering(&server.url(), common::Answers::default()).await;

    // Act: JSON mode, but the flood needs a stream and rmcp accepts one.
    let result = common::call_with(&client, "echo", echo_text("after the flood")).await;
    let mut logs = 0;
    while logs < 1_000 {
        match heard.next("the flood").await {
            common::Heard::Log(_) => logs += 1,
            other => panic!("unexpected {other:?}"),
        }
    }

    // Assert
    assert_eq!(text(&result), r#"{"text":"after the flood"}"#);
    assert_eq!(fired(&server), ["notification_flood 1000"]);
    let log = server.log();
    assert_eq!(
        log.mcp()
            .from_server()
            .method("notifications/message")
            .count(),
        0,
        "the flood is named by its label, not captured message by message"
    );
    assert_unfaulted_messages_valid(&log);
    fresh_session_works(&server).await;
}

// ---------------------------------------------------------------------------------------
// Sessions that end

#[tokio::test]
async fn expire_session_gets_404_and_rmcp_initializes_again_and_retries() {
    // Arrange
    let server = MockMcpServer::builder()
        .tool(Tool::new("echo"))
        .fault(
            FaultRule::on_method("tools/list")
                .times(1)
                .fault(Fault::ExpireSession),
        )
        .start()
        .await;
    let client = connect(&server.url()).await;
    let old = common::only_session(&server);

    // Act: rmcp re-initializes transparently on 404 and sends tools/list again.
    let tools = common::tool_names(&client).await;

    // Assert
    assert_eq!(tools, ["echo"]);
    let log = server.log();
    assert_eq!(log.mcp().method("initialize").count(), 2);
    let expired = log
        .mcp()
        .method("tools/list")
        .first()
        .cloned()
        .expect("captured");
    assert_eq!(expired.fault.as_deref(), Some("expire_session"));
    assert_eq!(expired.error().expect("a 404 error")["code"], json!(-32001));
    // rmcp opens its GET stream in the background once initialized; when that GET comes
    // after the expiry it is refused too, so only the POSTs' 404s are counted.
    assert_eq!(log.http().method("POST").status(404).count(), 1);
    assert_eq!(
        log.http()
            .status(404)
            .filter(|h| h.request_header("mcp-session-id") != Some(old.as_str()))
            .count(),
        0,
        "only the expired session is refused"
    );
    assert!(
        server.sessions().iter().all(|s| s.id != old),
        "the old session ended"
    );
    assert_unfaulted_messages_valid(&log);
    fresh_session_works(&server).await;
}

#[tokio::test]
async fn sessions_expire_after_n_requests_and_rmcp_carries_on_in_a_new_one() {
    // Arrange
    let server = MockMcpServer::builder()
        .tool(Tool::new("echo"))
        .session_expiry(SessionExpiry::after_requests(2))
        .start()
        .await;
    let client = connect(&server.url()).await;

    // Act: requests 1 and 2 are served, the third gets 404 and rmcp starts over.
    for n in 0..3 {
        call_ok(&client, "echo", json!({ "n": n })).await;
    }

    // Assert
    let log = server.log();
    assert_eq!(log.mcp().method("initialize").count(), 2);
    assert_eq!(fired(&server), ["session_expiry after 2 requests"]);
    let calls = log.tool_calls("echo");
    assert_eq!(calls.len(), 4, "the third call, refused, then sent again");
    assert!(calls[2].error.is_some() && calls[3].result.is_some());
    assert_ne!(calls[0].session, calls[3].session);
    fresh_session_works(&server).await;
}

#[tokio::test]
async fn sessions_expire_by_age_on_the_servers_clock() {
    // Arrange
    let server = MockMcpServer::builder()
        .tool(Tool::new("echo"))
        .session_expiry(SessionExpiry::after(Duration::from_secs(60)))
        .start()
        .await;
    let peer = Peer::initialized(&server, "2025-11-25").await;
    let young = peer.post(&request(1, "ping", json!({}))).await.status();

    // Act: a minute passes without the test sleeping.
    server.advance_clock(Duration::from_secs(61));
    let old = peer.post(&request(2, "ping", json!({}))).await.status();

    // Assert
    assert_eq!(young, StatusCode::OK);
    assert_eq!(old, StatusCode::NOT_FOUND);
    assert_eq!(fired(&server), ["session_expiry after 60000 ms"]);
    fresh_session_works(&server).await;
}

#[tokio::test]
async fn sse_polling_closes_the_stream_after_a_retry_and_the_result_comes_on_resume() {
    // Arrange: the conformance scenario `server-sse-polling` (SEP-1699; transports,
    // "Resumability and Redelivery": the server MAY close the stream after an event with an
    // id, SHOULD send `retry` first; the client resumes with GET and Last-Event-ID).
    let server = mcp_decoy::presets::conformance().start().await;
    let peer = Peer::initialized(&server, "2025-11-25").await;

    // Act
    let posted = peer
        .post(&request(
            1,
            "tools/call",
            json!({ "name": "test_reconnection", "arguments": {} }),
        ))
        .await;
    let before = events(posted).all(WAIT).await;
    let last = before
        .last()
        .and_then(|e| e.id.clone())
        .expect("an event id");
    let resumed = events(peer.get(Some(&last)).await).all(WAIT).await;

    // Assert
    assert_eq!(before.len(), 1, "only the priming event: {before:?}");
    assert!(before[0].is_priming());
    assert_eq!(before[0].retry, Some(500));
    let response = resumed
        .iter()
        .find_map(|e| e.json())
        .expect("the response on the resumed stream");
    assert_eq!(response["id"], json!(1));
    assert_eq!(response["result"]["isError"], Value::Null);
    assert_eq!(fired(&server), ["sse_polling 500 ms"]);
    common::schema::assert_server_messages_valid(&server.log());
}

#[tokio::test]
async fn rmcp_follows_sse_polling_and_gets_its_result() {
    // Arrange
    let server = MockMcpServer::builder()
        .tool(Tool::new("echo"))
        .fault(
            FaultRule::on_tool("echo")
                .times(1)
                .fault(Fault::sse_polling(10)),
        )
        .start()
        .await;
    let client = connect(&server.url()).await;

    // Act
    let result = call_ok(&client, "echo", echo_text("polled")).await;

    // Assert
    assert_eq!(text(&result), r#"{"text":"polled"}"#);
    let resumed = server
        .log()
        .http()
        .method("GET")
        .filter(|h| h.request_header("last-event-id").is_some())
        .count();
    assert_eq!(resumed, 1);
    fresh_session_works(&server).await;
}

#[tokio::test]
async fn a_rule_with_a_matcher_fires_only_for_the_arguments_it_names() {
    // Arrange
    let server = MockMcpServer::builder()
        .tool(Tool::new("echo"))
        .fault(
            FaultRule::on_tool("echo")
                .when(mcp_decoy::matchers::arg("limit").gt(100))
                .fault(Fault::error(-32602, "limit too high")),
        )
        .start()
        .await;
    let client = connect(&server.url()).await;

    // Act
    let small = call_ok(&client, "echo", json!({ "limit": 5 })).await;
    let large = client
        .call_tool(call("echo", json!({ "limit": 500 })))
        .await;

    // Assert
    assert_eq!(text(&small), r#"{"limit":5}"#);
    let error = large.expect_err("the matcher holds");
    assert!(error.to_string().contains("limit too high"), "{error}");
    assert_eq!(fired(&server), ["error -32602"]);
    fresh_session_works(&server).await;
}

#[tokio::test]
async fn a_tools_own_responses_carry_transport_faults_and_the_capture_names_the_response() {
    // Arrange: "fail twice with 503, then succeed", as a tool's response sequence.
    let server = MockMcpServer::builder()
        .tool(Tool::new("echo"))
        .tool(Tool::new("fetch").sequence([
            mcp_decoy::Response::fault(Fault::http(503)).times(2),
            mcp_decoy::Response::template(),
        ]))
        .start()
        .await;
    let client = connect(&server.url()).await;

    // Act
    let mut attempts = 0;
    let result = loop {
        attempts += 1;
        match client.call_tool(call("fetch", json!({ "url": "x" }))).await {
            Ok(result) => break result,
            Err(error) if attempts < 5 => assert!(error.to_string().contains("503"), "{error}"),
            Err(error) => panic!("still failing: {error}"),
        }
    };

    // Assert
    assert_eq!(attempts, 3);
    assert_eq!(text(&result), r#"{"url":"x"}"#);
    let log = server.log();
    let picked: Vec<Option<usize>> = log
        .mcp()
        .method("tools/call")
        .name("fetch")
        .all()
        .iter()
        .map(|m| m.response_index)
        .collect();
    assert_eq!(picked, [Some(0), Some(0), Some(1)]);
    assert_eq!(fired(&server), ["http 503", "http 503"]);
    assert_eq!(server.call_count("fetch"), 3);
    fresh_session_works(&server).await;
}

// ---------------------------------------------------------------------------------------
// Delays and the seeded schedule

#[tokio::test]
async fn a_delay_is_named_in_the_capture() {
    // Arrange
    let server = MockMcpServer::builder()
        .tool(Tool::new("echo"))
        .fault(
            FaultRule::on_tool("echo")
                .times(1)
                .delay(Delay::fixed(Duration::from_millis(30)))
                .fault(Fault::error(-32000, "slow and wrong")),
        )
        .start()
        .await;
    let client = connect(&server.url()).await;

    // Act
    let failed = client.call_tool(call("echo", json!({}))).await;

    // Assert
    assert!(failed.is_err());
    assert_eq!(fired(&server), ["delay 30 ms, error -32000"]);
    fresh_session_works(&server).await;
}

/// The delays a server with `seed` draws for five calls, as the capture names them.
async fn schedule(seed: u64) -> Vec<String> {
    let server = MockMcpServer::builder()
        .seed(seed)
        .tool(Tool::new("echo"))
        .fault(
            FaultRule::on_tool("echo")
                .delay(Delay::between(Duration::ZERO, Duration::from_millis(20))),
        )
        .start()
        .await;
    let client = connect(&server.url()).await;
    for n in 0..5 {
        call_ok(&client, "echo", json!({ "n": n })).await;
    }
    client.cancel().await.expect("close the client");
    fired(&server)
}

#[tokio::test]
async fn the_same_seed_gives_the_same_random_delays() {
    // Act
    let first = schedule(7).await;
    let again = schedule(7).await;
    let other = schedule(8).await;

    // Assert: read from the capture, not the wall clock.
    assert_eq!(first.len(), 5);
    assert!(first.iter().all(|l| l.starts_with("delay ")), "{first:?}");
    assert_eq!(first, again);
    assert_ne!(first, other, "another seed, another schedule");
}

// ---------------------------------------------------------------------------------------
// Restart, list changes at a chosen moment, live rules

#[tokio::test]
async fn a_restart_keeps_the_port_and_catalog_and_rmcp_initializes_again() {
    // Arrange
    let mut server = MockMcpServer::builder()
        .tool(Tool::new("echo"))
        .start()
        .await;
    let client = connect(&server.url()).await;
    call_ok(&client, "echo", json!({ "n": 1 })).await;
    let url = server.url();

    // Act
    server.restart().await;
    let after = call_ok(&client, "echo", json!({ "n": 2 })).await;

    // Assert
    assert_eq!(server.url(), url);
    assert_eq!(text(&after), r#"{"n":2}"#);
    let log = server.log();
    assert_eq!(
        log.mcp().method("initialize").count(),
        2,
        "the log survives"
    );
    assert_eq!(server.sessions().len(), 1, "only the new session");
    assert_eq!(
        log.tool_calls("echo").len(),
        3,
        "the refused call was sent again"
    );
    assert_eq!(
        server.call_count("echo"),
        2,
        "the refused call never reached the tool"
    );
    fresh_session_works(&server).await;
}

#[tokio::test]
async fn a_restart_resets_fault_counters() {
    // Arrange
    let mut server = MockMcpServer::builder()
        .tool(Tool::new("echo"))
        .fault(
            FaultRule::on_method("ping")
                .times(1)
                .fault(Fault::http(500)),
        )
        .start()
        .await;
    let peer = Peer::initialized(&server, "2025-11-25").await;
    assert_eq!(
        peer.post(&request(1, "ping", json!({}))).await.status(),
        500
    );
    assert_eq!(
        peer.post(&request(2, "ping", json!({}))).await.status(),
        200
    );

    // Act
    server.restart().await;
    let peer = Peer::initialized(&server, "2025-11-25").await;
    let status = peer.post(&request(3, "ping", json!({}))).await.status();

    // Assert
    assert_eq!(
        status,
        StatusCode::INTERNAL_SERVER_ERROR,
        "the rule fires again"
    );
    fresh_session_works(&server).await;
}

#[tokio::test]
async fn list_changes_fire_when_the_test_says() {
    // Arrange
    let server = MockMcpServer::builder()
        .tool(Tool::new("echo"))
        .start()
        .await;
    let (client, mut changes) = common::connect_watching(&server.url()).await;
    common::list_tools(&client).await;

    // Act
    server.notify_list_changed(Listing::Tools);

    // Assert
    changes.expect_one("notify_list_changed(Tools)").await;
    fresh_session_works(&server).await;
}

#[tokio::test]
async fn rules_added_live_fire_and_cleared_rules_stop() {
    // Arrange
    let server = MockMcpServer::builder()
        .tool(Tool::new("echo"))
        .start()
        .await;
    let peer = Peer::initialized(&server, "2025-11-25").await;

    // Act
    server
        .add_fault(FaultRule::on_method("ping").fault(Fault::http(502)))
        .expect("a valid rule");
    let faulted = peer.post(&request(1, "ping", json!({}))).await.status();
    server.clear_faults();
    let cleared = peer.post(&request(2, "ping", json!({}))).await.status();
    let refused = server.add_fault(FaultRule::any().fault(Fault::http(42)));

    // Assert
    assert_eq!(faulted, StatusCode::BAD_GATEWAY);
    assert_eq!(cleared, StatusCode::OK);
    let error = refused.expect_err("42 is no status");
    assert!(
        error.to_string().contains("`rule.fault.status` is 42"),
        "{error}"
    );
    fresh_session_works(&server).await;
}

// ---------------------------------------------------------------------------------------
// Where faults apply: initialize, batches, 2026-07-28, validation

#[tokio::test]
async fn initialize_can_fail_once_and_the_next_attempt_connects() {
    // Arrange
    let server = MockMcpServer::builder()
        .tool(Tool::new("echo"))
        .fault(
            FaultRule::on_method("initialize")
                .times(1)
                .fault(Fault::http(503)),
        )
        .start()
        .await;

    // Act
    let transport = rmcp::transport::StreamableHttpClientTransport::from_uri(server.url());
    let first = rmcp::ServiceExt::serve(common::client_config(), transport).await;

    // Assert
    let error = first.expect_err("the first initialize gets 503");
    assert!(error.to_string().contains("503"), "{error}");
    fresh_session_works(&server).await;
}

#[tokio::test]
async fn in_a_batch_an_error_fault_answers_its_entry_and_a_status_the_whole_post() {
    // Arrange: batches exist in 2025-03-26 sessions only.
    let server = MockMcpServer::builder()
        .tool(Tool::new("echo"))
        .fault(
            FaultRule::on_method("tools/list")
                .times(1)
                .fault(Fault::error(-32001, "no")),
        )
        .fault(
            FaultRule::on_method("tools/list")
                .times(1)
                .fault(Fault::http(503)),
        )
        .start()
        .await;
    let peer = Peer::initialized(&server, "2025-03-26").await;
    let batch = json!([
        request(1, "ping", json!({})),
        request(2, "tools/list", json!({}))
    ]);

    // Act
    let first: Value = peer.post(&batch).await.json().await.expect("a JSON batch");
    let second = peer.post(&batch).await.status();
    let third: Value = peer.post(&batch).await.json().await.expect("a JSON batch");

    // Assert
    assert_eq!(first[0]["result"], json!({}));
    assert_eq!(first[1]["error"]["code"], json!(-32001));
    assert_eq!(second, StatusCode::SERVICE_UNAVAILABLE);
    assert!(third[1]["result"]["tools"].is_array());
    fresh_session_works(&server).await;
}

#[tokio::test]
async fn faults_fire_on_stateless_2026_07_28_requests_too() {
    // Arrange
    let server = MockMcpServer::builder()
        .tool(Tool::new("echo"))
        .fault(
            FaultRule::on_method("tools/list")
                .times(1)
                .fault(Fault::http(503)),
        )
        .start()
        .await;
    let lifecycle = rmcp::ClientLifecycleMode::Discover {
        preferred_versions: vec![rmcp::model::ProtocolVersion::V_2026_07_28],
    };
    let transport = rmcp::transport::StreamableHttpClientTransport::from_uri(server.url());
    let client =
        rmcp::ClientServiceExt::serve_with_lifecycle(common::client_config(), transport, lifecycle)
            .await
            .expect("a 2026-07-28 client discovers the server");

    // Act
    let failed = client.list_tools(None).await;
    let listed: Vec<String> = client
        .list_all_tools()
        .await
        .expect("the second tools/list is answered")
        .into_iter()
        .map(|t| t.name.to_string())
        .collect();

    // Assert
    let error = failed.expect_err("503");
    assert!(error.to_string().contains("503"), "{error}");
    assert_eq!(listed, ["echo"]);
    let record = server.log().faults();
    assert_eq!(record.len(), 1);
    assert_eq!(record[0].session, None, "no session in 2026-07-28");
}

#[tokio::test]
async fn bad_faults_are_refused_at_start_naming_the_field() {
    let refused = |builder: mcp_decoy::MockMcpServerBuilder| async move {
        builder
            .try_start()
            .await
            .map(|_| ())
            .expect_err("an invalid fault")
            .to_string()
    };
    let status =
        refused(MockMcpServer::builder().fault(FaultRule::any().fault(Fault::http(1000)))).await;
    assert!(
        status.contains("`faults[0].fault.status`") && status.contains("1000"),
        "{status}"
    );
    let flood = refused(
        MockMcpServer::builder().fault(FaultRule::any().fault(Fault::notification_flood(100_001))),
    )
    .await;
    assert!(flood.contains("100000"), "{flood}");
    let never = refused(MockMcpServer::builder().fault(FaultRule::any().times(0))).await;
    assert!(never.contains("`faults[0].times`"), "{never}");
    let expiry = refused(MockMcpServer::builder().session_expiry(SessionExpiry::default())).await;
    assert!(expiry.contains("session_expiry"), "{expiry}");
    let delay = refused(
        MockMcpServer::builder().fault(FaultRule::any().delay(Delay::between(
            Duration::from_secs(2),
            Duration::from_secs(1),
        ))),
    )
    .await;
    assert!(delay.contains("min_ms"), "{delay}");
}

#[tokio::test]
async fn the_transcript_shows_what_fired_for_each_request() {
    // Arrange
    let server = MockMcpServer::builder()
        .tool(Tool::new("echo"))
        .fault(
            FaultRule::on_tool("echo")
                .times(1)
                .fault(Fault::http(503).with_header("Retry-After", "1")),
        )
        .fault(FaultRule::on_method("ping").fault(Fault::WrongId))
        .start()
        .await;
    let peer = Peer::initialized(&server, "2025-11-25").await;

    // Act
    let echo = json!({ "name": "echo", "arguments": { "x": 1 } });
    let _ = peer.post(&request(1, "tools/call", echo.clone())).await;
    let _ = peer.post(&request(2, "tools/call", echo)).await;
    let _ = peer.post(&request(3, "ping", json!({}))).await;

    // Assert: from the first tools/call on (initialize names the crate's version).
    let transcript = server.log().transcript();
    let calls: Vec<&mcp_decoy::log::TranscriptEntry> =
        transcript.entries().iter().skip(4).collect();
    insta::assert_json_snapshot!(calls);
}

#[tokio::test]
async fn a_stream_answer_of_an_older_revision_has_the_flood_first() {
    // Arrange: 2025-06-18 has no priming event, so the flood opens the stream.
    let server = MockMcpServer::builder()
        .protocol_versions([ProtocolVersion::V2025_06_18])
        .tool(Tool::new("echo"))
        .fault(FaultRule::on_tool("echo").fault(Fault::notification_flood(3)))
        .start()
        .await;
    let peer = Peer::initialized(&server, "2025-06-18").await;

    // Act
    let answer = peer
        .post(&request(
            1,
            "tools/call",
            json!({ "name": "echo", "arguments": {} }),
        ))
        .await;
    let all = events(answer).all(WAIT).await;

    // Assert
    let data: Vec<Value> = all.iter().map(|e| e.json().expect("JSON data")).collect();
    assert_eq!(data.len(), 4, "{all:?}");
    for (n, note) in data[..3].iter().enumerate() {
        assert_eq!(note["method"], "notifications/message");
        assert_eq!(note["params"]["data"], format!("flood {} of 3", n + 1));
    }
    assert_eq!(data[3]["id"], json!(1));
}

/// A delay is waited, not only labelled: a fault rule's delay holds `tools/list` back and a
/// response's delay holds its call back, each at least as long as asked (a lower bound only:
/// a busy machine can only add to it).
#[tokio::test]
async fn a_fault_delay_and_a_response_delay_hold_the_answer_back() {
    const WAIT: Duration = Duration::from_millis(300);
    let server = MockMcpServer::builder()
        .tool(Tool::echo().respond(mcp_decoy::Response::template().delay(WAIT)))
        .fault(FaultRule::on_method("tools/list").delay(Delay::fixed(WAIT)))
        .start()
        .await;
    let client = connect(&server.url()).await;

    let listing = std::time::Instant::now();
    client.list_all_tools().await.expect("tools/list");
    let listed_after = listing.elapsed();
    let calling = std::time::Instant::now();
    let result = call_ok(&client, "echo", json!({ "message": "late" })).await;
    let called_after = calling.elapsed();

    assert!(
        listed_after >= WAIT,
        "tools/list answered after {listed_after:?}"
    );
    assert!(
        called_after >= WAIT,
        "tools/call answered after {called_after:?}"
    );
    assert_eq!(text(&result), "late");
    client.cancel().await.expect("the client closes");
}
