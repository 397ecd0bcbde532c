//! `subscriptions/listen` (2026-07-28): the long-lived stream of change notifications that
//! replaces the legacy GET stream and `resources/subscribe`, seen the way a client sees it
//! (raw HTTP with reqwest), and through rmcp's subscription API.
//!
//! Spec references are to `/work/shared/spec/2026-07-28/`: `basic/patterns/subscriptions.mdx`
//! ("Acknowledgment", "Receiving Notifications", "Cancellation", "Graceful Closure"),
//! `basic/transports/streamable-http.mdx` ("Receiving Messages") and `basic/index.mdx`.

use std::time::Duration;

use mcp_decoy::log::{Direction, Era, RpcKind};
use mcp_decoy::spec::Listing;
use mcp_decoy::{MockMcpServer, Prompt, Resource, Tool};
use reqwest::StatusCode;
use serde_json::{Value, json};

use raw::{Frame, Stream, listen, listen_with, post};

use crate::common;

/// The modern era over raw HTTP (`common::peer`), and a reader of SSE frames that keeps
/// comments (`common::sse`), which an SSE library would hide.
mod raw {
    use std::time::Duration;

    use reqwest::{Response, StatusCode};
    use serde_json::{Value, json};

    use crate::common::peer::Peer;
    use crate::common::sse::{self, Events};

    /// How long a test waits for a frame that must come.
    pub const WAIT: Duration = Duration::from_secs(10);
    /// How long a test waits for a frame that must not come, after a positive control.
    pub const QUIET: Duration = Duration::from_millis(300);

    pub fn client() -> reqwest::Client {
        reqwest::Client::builder()
            .no_proxy()
            .tcp_nodelay(true)
            .build()
            .expect("build the reqwest client")
    }

    /// POSTs a modern request with every required header (`Mcp-Name` as `name` says: the
    /// one the params name, or none) and `accept` as the `Accept` header.
    pub async fn post_accepting(
        url: &str,
        id: Value,
        method: &str,
        params: Value,
        name: Option<&str>,
        accept: &str,
    ) -> Response {
        let peer = Peer::modern(url, json!({}));
        let body = peer.request(id, method, params);
        peer.post(
            &body,
            &[("accept", accept), ("mcp-name", name.unwrap_or(""))],
        )
        .await
    }

    /// A modern request answered as JSON or as a stream; returns the JSON-RPC response.
    pub async fn post(url: &str, method: &str, params: Value, name: Option<&str>) -> Value {
        let response = post_accepting(
            url,
            json!(90),
            method,
            params,
            name,
            "application/json, text/event-stream",
        )
        .await;
        let is_stream = response
            .headers()
            .get("content-type")
            .and_then(|v| v.to_str().ok())
            .is_some_and(|v| v.starts_with("text/event-stream"));
        if !is_stream {
            return response.json().await.expect("a JSON answer");
        }
        let mut stream = Stream::new(response);
        loop {
            let message = stream.message().await;
            if message.get("id").is_some() {
                return message;
            }
        }
    }

    /// Opens a listen stream for `notifications`; the response, unread.
    pub async fn listen_with(url: &str, id: Value, notifications: Value) -> Response {
        post_accepting(
            url,
            id,
            "subscriptions/listen",
            json!({ "notifications": notifications }),
            None,
            "application/json, text/event-stream",
        )
        .await
    }

    /// Opens a listen stream, checks that it is one, and returns its reader.
    pub async fn listen(url: &str, id: Value, notifications: Value) -> Stream {
        let response = listen_with(url, id, notifications).await;
        assert_eq!(response.status(), StatusCode::OK, "listen status");
        assert_eq!(
            response.headers()["content-type"],
            "text/event-stream",
            "the listen answer is an event stream"
        );
        Stream::new(response)
    }

    /// One SSE frame.
    #[derive(Debug, Clone, PartialEq)]
    pub enum Frame {
        /// A `data:` event, parsed.
        Message(Value),
        /// A comment line (`: …`).
        Comment(String),
        /// An event without data (a legacy stream's priming event).
        Empty,
        /// The server ended the response body.
        End,
    }

    /// Reads SSE frames from a response body, comments included.
    pub struct Stream(Events);

    impl Stream {
        pub fn new(response: Response) -> Self {
            Stream(sse::with_comments(response))
        }

        /// The next frame; panics if none comes within [`WAIT`].
        pub async fn next(&mut self) -> Frame {
            self.next_within(WAIT)
                .await
                .unwrap_or_else(|| panic!("no SSE frame within {WAIT:?}"))
        }

        /// The next message (comments skipped); panics on the end of the stream.
        pub async fn message(&mut self) -> Value {
            loop {
                match self.next().await {
                    Frame::Message(message) => return message,
                    Frame::Comment(_) | Frame::Empty => {}
                    Frame::End => panic!("the stream ended while a message was expected"),
                }
            }
        }

        /// The next message within `wait`, comments skipped; `None` if none came.
        pub async fn message_within(&mut self, wait: Duration) -> Option<Value> {
            let deadline = tokio::time::Instant::now() + wait;
            loop {
                let left = deadline.saturating_duration_since(tokio::time::Instant::now());
                match self.next_within(left).await? {
                    Frame::Message(message) => return Some(message),
                    Frame::Comment(_) | Frame::Empty => {}
                    Frame::End => panic!("the stream ended while a message was awaited"),
                }
            }
        }

        /// The next frame, or `None` after `wait`.
        pub async fn next_within(&mut self, wait: Duration) -> Option<Frame> {
            let event = self.0.try_next(wait).await.ok()?;
            Some(match event {
                None => Frame::End,
                Some(event) => match event.comment {
                    Some(comment) => Frame::Comment(comment),
                    None if event.data.is_empty() => Frame::Empty,
                    None => Frame::Message(event.json()),
                },
            })
        }
    }
}

const SUBSCRIPTION_ID: &str = "io.modelcontextprotocol/subscriptionId";

/// A server with a tool, a prompt and two resources: every listing can change.
async fn full_server() -> MockMcpServer {
    MockMcpServer::builder()
        .tool(Tool::echo())
        .prompt(Prompt::new("greet"))
        .resource(Resource::text("test://watched", "v1"))
        .resource(Resource::text("test://other", "v1"))
        .start()
        .await
}

fn subscription_id(message: &Value) -> &Value {
    message["params"]["_meta"]
        .get(SUBSCRIPTION_ID)
        .unwrap_or_else(|| panic!("no _meta subscriptionId on {message}"))
}

/// Reads the acknowledgment and returns it.
async fn acknowledged(stream: &mut Stream) -> Value {
    let first = stream.message().await;
    assert_eq!(
        first["method"], "notifications/subscriptions/acknowledged",
        "the first message: {first}"
    );
    first
}

#[tokio::test]
async fn the_first_message_is_the_acknowledgment_carrying_the_listen_id_and_the_honoured_filter() {
    // subscriptions.mdx "Acknowledgment": "The server MUST send
    // notifications/subscriptions/acknowledged as the first message carrying the
    // subscription's ID in _meta"; its `notifications` "reflects the subset the server
    // agreed to honor".
    let server = full_server().await;

    let mut stream = listen(
        &server.url(),
        json!("listen-1"),
        json!({
            "toolsListChanged": true,
            "promptsListChanged": true,
            "resourcesListChanged": true,
            "resourceSubscriptions": ["test://watched", "test://watched", "test://nowhere"],
            "someFutureKind": true
        }),
    )
    .await;

    let ack = acknowledged(&mut stream).await;
    assert_eq!(subscription_id(&ack), "listen-1");
    assert_eq!(
        ack["params"]["notifications"],
        json!({
            "toolsListChanged": true,
            "promptsListChanged": true,
            "resourcesListChanged": true,
            "resourceSubscriptions": ["test://watched", "test://nowhere"]
        }),
        "every served kind, duplicates once, unknown kinds left out"
    );
    assert!(
        ack.get("id").is_none(),
        "the acknowledgment is a notification"
    );
}

#[tokio::test]
async fn the_acknowledgment_leaves_out_what_the_server_does_not_serve() {
    // subscriptions.mdx: "Notification types the server does not support are omitted."
    // This server has no prompts and no resources, so it declares neither capability.
    let server = MockMcpServer::builder().tool(Tool::echo()).start().await;

    let mut stream = listen(
        &server.url(),
        json!(7),
        json!({
            "toolsListChanged": true,
            "promptsListChanged": true,
            "resourcesListChanged": true,
            "resourceSubscriptions": ["test://a"]
        }),
    )
    .await;

    let ack = acknowledged(&mut stream).await;
    assert_eq!(subscription_id(&ack), 7, "a numeric id stays a number");
    assert_eq!(
        ack["params"]["notifications"],
        json!({ "toolsListChanged": true })
    );
}

#[tokio::test]
async fn the_stream_asks_proxies_not_to_buffer_it() {
    // streamable-http.mdx "Receiving Messages": "servers SHOULD include the
    // X-Accel-Buffering: no header".
    let server = full_server().await;

    let response = listen_with(&server.url(), json!(1), json!({ "toolsListChanged": true })).await;

    assert_eq!(response.headers()["x-accel-buffering"], "no");
}

#[tokio::test]
async fn a_published_tool_reaches_the_stream_as_tools_list_changed_with_the_subscription_id() {
    // subscriptions.mdx "Receiving Notifications": "All notifications delivered on the
    // stream carry io.modelcontextprotocol/subscriptionId in _meta".
    let server = full_server().await;
    let mut stream = listen(
        &server.url(),
        json!(41),
        json!({ "toolsListChanged": true }),
    )
    .await;
    acknowledged(&mut stream).await;

    server
        .add_tool(Tool::new("fresh"))
        .expect("a new tool name");

    let changed = stream.message().await;
    assert_eq!(changed["method"], "notifications/tools/list_changed");
    assert_eq!(subscription_id(&changed), 41);
}

#[tokio::test]
async fn a_change_the_stream_did_not_opt_in_to_is_not_delivered() {
    // subscriptions.mdx "Opening a Stream": "The server MUST NOT send notification types the
    // client has not explicitly requested." Changes reach a stream in order, so the tools
    // notification arriving first proves that the prompts one was left out.
    let server = full_server().await;
    let mut stream = listen(&server.url(), json!(1), json!({ "toolsListChanged": true })).await;
    acknowledged(&mut stream).await;

    server
        .add_prompt(Prompt::new("summarize"))
        .expect("a new prompt name");
    server
        .add_resource(Resource::text("test://new", "x"))
        .expect("a new URI");
    server.resource_updated("test://watched");
    server
        .add_tool(Tool::new("fresh"))
        .expect("a new tool name");

    let next = stream.message().await;
    assert_eq!(next["method"], "notifications/tools/list_changed", "{next}");
    assert_eq!(stream.message_within(raw::QUIET).await, None);
}

#[tokio::test]
async fn a_prompts_change_reaches_a_stream_that_opted_in_to_prompts() {
    let server = full_server().await;
    let mut stream = listen(
        &server.url(),
        json!(2),
        json!({ "promptsListChanged": true }),
    )
    .await;
    acknowledged(&mut stream).await;

    server
        .add_tool(Tool::new("fresh"))
        .expect("a new tool name");
    server
        .add_prompt(Prompt::new("summarize"))
        .expect("a new prompt name");

    let next = stream.message().await;
    assert_eq!(
        next["method"], "notifications/prompts/list_changed",
        "{next}"
    );
    assert_eq!(subscription_id(&next), 2);
}

#[tokio::test]
async fn resources_updated_reaches_only_the_streams_subscribed_to_that_uri() {
    // The filter's resourceSubscriptions replace `resources/subscribe`: an update for one URI
    // goes to the streams that named it, and to no other.
    let server = full_server().await;
    let url = server.url();
    let mut watched = listen(
        &url,
        json!("w"),
        json!({ "resourceSubscriptions": ["test://watched"] }),
    )
    .await;
    let mut other = listen(
        &url,
        json!("o"),
        json!({ "resourceSubscriptions": ["test://other"] }),
    )
    .await;
    acknowledged(&mut watched).await;
    acknowledged(&mut other).await;

    server.resource_updated("test://other");
    server.resource_updated("test://watched");

    let update = watched.message().await;
    assert_eq!(
        update,
        json!({
            "jsonrpc": "2.0",
            "method": "notifications/resources/updated",
            "params": { "_meta": { SUBSCRIPTION_ID: "w" }, "uri": "test://watched" }
        })
    );
    let update = other.message().await;
    assert_eq!(update["params"]["uri"], "test://other");
    assert_eq!(subscription_id(&update), "o");
    assert_eq!(watched.message_within(raw::QUIET).await, None);
    assert_eq!(other.message_within(raw::QUIET).await, None);
}

#[tokio::test]
async fn replacing_a_resource_sends_list_changed_and_updated_to_a_stream_that_asked_for_both() {
    let server = full_server().await;
    let mut stream = listen(
        &server.url(),
        json!(3),
        json!({ "resourcesListChanged": true, "resourceSubscriptions": ["test://watched"] }),
    )
    .await;
    acknowledged(&mut stream).await;

    server
        .replace_resource(Resource::text("test://watched", "v2"))
        .expect("a known URI");

    let first = stream.message().await;
    let second = stream.message().await;
    assert_eq!(first["method"], "notifications/resources/list_changed");
    assert_eq!(second["method"], "notifications/resources/updated");
    assert_eq!(second["params"]["uri"], "test://watched");
}

#[tokio::test]
async fn an_idle_stream_sends_keep_alive_comments() {
    // streamable-http.mdx "Receiving Messages": servers "are encouraged to periodically emit
    // an SSE comment line ... as a keep-alive" on the listen stream.
    let server = MockMcpServer::builder()
        .tool(Tool::echo())
        .keep_alive(Duration::from_millis(50))
        .start()
        .await;
    let mut stream = listen(&server.url(), json!(1), json!({ "toolsListChanged": true })).await;
    acknowledged(&mut stream).await;

    assert_eq!(stream.next().await, Frame::Comment("keep-alive".into()));
    assert_eq!(stream.next().await, Frame::Comment("keep-alive".into()));
    server
        .add_tool(Tool::new("fresh"))
        .expect("a new tool name");
    assert_eq!(
        stream.message().await["method"],
        "notifications/tools/list_changed",
        "comments do not disturb the stream"
    );
}

#[tokio::test]
async fn the_keep_alive_interval_applies_to_a_legacy_get_stream_too() {
    // One setting for every idle event stream: the legacy session's GET stream
    // (2025-11-25 transports) keeps alive at the same pace.
    let server = MockMcpServer::builder()
        .tool(Tool::echo())
        .keep_alive(Duration::from_millis(50))
        .start()
        .await;
    let client = raw::client();
    let init = client
        .post(server.url())
        .header("content-type", "application/json")
        .header("accept", "application/json, text/event-stream")
        .body(
            json!({ "jsonrpc": "2.0", "id": 0, "method": "initialize", "params": {
                "protocolVersion": "2025-11-25", "capabilities": {},
                "clientInfo": { "name": "legacy", "version": "1" } } })
            .to_string(),
        )
        .send()
        .await
        .expect("initialize");
    let session = init.headers()["mcp-session-id"]
        .to_str()
        .expect("an ASCII session id")
        .to_string();

    let get = client
        .get(server.url())
        .header("accept", "text/event-stream")
        .header("mcp-session-id", &session)
        .header("mcp-protocol-version", "2025-11-25")
        .send()
        .await
        .expect("GET the session stream");
    assert_eq!(get.status(), StatusCode::OK);
    let mut stream = Stream::new(get);

    let comment = loop {
        match stream.next().await {
            Frame::Comment(text) => break text,
            Frame::Message(_) | Frame::Empty => {}
            Frame::End => panic!("the GET stream ended"),
        }
    };
    assert_eq!(comment, "keep-alive");
}

#[tokio::test]
async fn a_zero_keep_alive_is_refused_naming_the_field() {
    let started = MockMcpServer::builder()
        .keep_alive(Duration::ZERO)
        .try_start()
        .await;

    let error = started.expect_err("a zero interval would spin").to_string();
    assert!(error.contains("keep_alive_ms"), "{error}");
}

#[tokio::test]
async fn closing_the_stream_ends_the_subscription_and_frees_its_place() {
    // subscriptions.mdx "Cancellation": a subscription ends when the client "close[s] the SSE
    // stream (HTTP)". With room for one stream, a second listen works only once the first
    // has ended.
    let server = MockMcpServer::builder()
        .tool(Tool::echo())
        .max_listen_streams(1)
        .start()
        .await;
    let url = server.url();
    let mut first = listen(&url, json!("first"), json!({ "toolsListChanged": true })).await;
    acknowledged(&mut first).await;
    let refused = listen_with(&url, json!("second"), json!({ "toolsListChanged": true })).await;
    assert_eq!(
        refused.status(),
        StatusCode::SERVICE_UNAVAILABLE,
        "the one place is taken"
    );

    drop(first);

    let log = server
        .wait_for(
            |log| {
                log.mcp()
                    .method("subscriptions/listen")
                    .cancelled_by_client()
                    .filter(|m| m.rpc_id() == Some(&json!("first")))
                    .count()
                    == 1
            },
            raw::WAIT,
        )
        .await
        .expect("the capture marks the closed listen cancelled");
    let closed = log
        .mcp()
        .method("subscriptions/listen")
        .filter(|m| m.rpc_id() == Some(&json!("first")))
        .first()
        .expect("the first listen's record")
        .clone();
    assert!(
        closed.response.is_none(),
        "no listen response after the client closed"
    );
    let mut third = listen(&url, json!("third"), json!({ "toolsListChanged": true })).await;
    acknowledged(&mut third).await;
    server
        .add_tool(Tool::new("fresh"))
        .expect("a new tool name");
    assert_eq!(
        third.message().await["method"],
        "notifications/tools/list_changed"
    );
}

#[tokio::test]
async fn past_the_stream_limit_a_listen_gets_503_and_an_error_naming_the_limit() {
    let server = MockMcpServer::builder()
        .tool(Tool::echo())
        .max_listen_streams(2)
        .start()
        .await;
    let url = server.url();
    let mut open = Vec::new();
    for id in 0..2 {
        let mut stream = listen(&url, json!(id), json!({ "toolsListChanged": true })).await;
        acknowledged(&mut stream).await;
        open.push(stream);
    }

    let refused = listen_with(&url, json!(2), json!({ "toolsListChanged": true })).await;

    assert_eq!(refused.status(), StatusCode::SERVICE_UNAVAILABLE);
    let body: Value = refused.json().await.expect("a JSON-RPC error");
    assert_eq!(body["id"], 2, "the error echoes the request id");
    assert_eq!(body["error"]["code"], -32603);
    let message = body["error"]["message"].as_str().expect("a message");
    assert!(message.contains("max_listen_streams = 2"), "{message}");
}

#[tokio::test]
async fn shutting_the_server_down_ends_the_stream_with_the_listen_response() {
    // subscriptions.mdx "Graceful Closure": the server "SHOULD respond to the original
    // subscriptions/listen request with a completion result before closing the stream",
    // carrying the subscriptionId in _meta.
    let server = full_server().await;
    let mut stream = listen(&server.url(), json!(9), json!({ "toolsListChanged": true })).await;
    acknowledged(&mut stream).await;

    server.shutdown().await;

    let last = stream.message().await;
    assert_eq!(last["id"], 9);
    let result = &last["result"];
    assert_eq!(result["resultType"], "complete");
    assert_eq!(result["_meta"][SUBSCRIPTION_ID], 9);
    assert_eq!(
        result["_meta"]["io.modelcontextprotocol/serverInfo"]["name"],
        "mcp-decoy"
    );
    assert_eq!(stream.next().await, Frame::End, "then the stream closes");
}

#[tokio::test]
async fn a_listen_without_a_notifications_filter_is_invalid_params_naming_it() {
    // schema: SubscriptionsListenRequestParams requires `notifications`.
    let server = full_server().await;

    let response = raw::post_accepting(
        &server.url(),
        json!(5),
        "subscriptions/listen",
        json!({}),
        None,
        "application/json, text/event-stream",
    )
    .await;
    let body: Value = response.json().await.expect("a JSON-RPC error");

    assert_eq!(body["id"], 5);
    assert_eq!(body["error"]["code"], -32602);
    let message = body["error"]["message"].as_str().expect("a message");
    assert!(message.contains("params.notifications"), "{message}");

    let response = listen_with(
        &server.url(),
        json!(6),
        json!({ "resourceSubscriptions": ["test://watched", 3] }),
    )
    .await;
    let body: Value = response.json().await.expect("a JSON-RPC error");
    let message = body["error"]["message"].as_str().expect("a message");
    assert!(
        message.contains("params.notifications.resourceSubscriptions[1]"),
        "{message}"
    );
}

#[tokio::test]
async fn a_listen_that_does_not_accept_an_event_stream_gets_406() {
    // streamable-http.mdx "Sending Messages": the client MUST accept both types; the listen
    // answer can only be a stream.
    let server = full_server().await;

    let response = raw::post_accepting(
        &server.url(),
        json!(1),
        "subscriptions/listen",
        json!({ "notifications": { "toolsListChanged": true } }),
        None,
        "application/json",
    )
    .await;

    assert_eq!(response.status(), StatusCode::NOT_ACCEPTABLE);
    let body: Value = response.json().await.expect("a JSON-RPC error");
    assert_eq!(body["id"], 1);
}

#[tokio::test]
async fn a_legacy_session_gets_method_not_found_for_subscriptions_listen() {
    // subscriptions/listen is new in 2026-07-28; a legacy session has its GET stream.
    let server = full_server().await;
    let client = raw::client();
    let init = client
        .post(server.url())
        .header("content-type", "application/json")
        .header("accept", "application/json, text/event-stream")
        .body(
            json!({ "jsonrpc": "2.0", "id": 0, "method": "initialize", "params": {
                "protocolVersion": "2025-11-25", "capabilities": {},
                "clientInfo": { "name": "legacy", "version": "1" } } })
            .to_string(),
        )
        .send()
        .await
        .expect("initialize");
    let session = init.headers()["mcp-session-id"]
        .to_str()
        .expect("an ASCII session id")
        .to_string();

    let body: Value = client
        .post(server.url())
        .header("content-type", "application/json")
        .header("accept", "application/json, text/event-stream")
        .header("mcp-session-id", &session)
        .header("mcp-protocol-version", "2025-11-25")
        .body(
            json!({ "jsonrpc": "2.0", "id": 1, "method": "subscriptions/listen",
                "params": { "notifications": { "toolsListChanged": true } } })
            .to_string(),
        )
        .send()
        .await
        .expect("listen in a session")
        .json()
        .await
        .expect("a JSON-RPC answer");

    assert_eq!(body["error"]["code"], -32601, "{body}");
}

#[tokio::test]
async fn discover_declares_list_changed_and_subscribe_which_listen_serves() {
    // subscriptions.mdx / server/discover.mdx: capabilities match what is served.
    let server = full_server().await;

    let discovered = post(&server.url(), "server/discover", json!({}), None).await;

    let capabilities = &discovered["result"]["capabilities"];
    assert_eq!(capabilities["tools"]["listChanged"], true);
    assert_eq!(capabilities["prompts"]["listChanged"], true);
    assert_eq!(capabilities["resources"]["listChanged"], true);
    assert_eq!(capabilities["resources"]["subscribe"], true);
}

#[tokio::test]
async fn the_conformance_trigger_tools_push_list_changed_to_the_streams_that_asked() {
    // Conformance `server-stateless`: `test_trigger_tool_change` / `test_trigger_prompt_change`
    // "MUST push the matching list_changed notification to every open subscriptions/listen
    // stream whose filter asked for it".
    let server = mcp_decoy::presets::conformance().start().await;
    let url = server.url();
    let mut tools = listen(&url, json!(1), json!({ "toolsListChanged": true })).await;
    let mut prompts = listen(&url, json!(2), json!({ "promptsListChanged": true })).await;
    acknowledged(&mut tools).await;
    acknowledged(&mut prompts).await;

    let called = post(
        &url,
        "tools/call",
        json!({ "name": "test_trigger_tool_change", "arguments": {} }),
        Some("test_trigger_tool_change"),
    )
    .await;
    assert_eq!(called["result"]["isError"], Value::Null, "{called}");
    let changed = tools.message().await;
    assert_eq!(changed["method"], "notifications/tools/list_changed");
    assert_eq!(subscription_id(&changed), 1);

    post(
        &url,
        "tools/call",
        json!({ "name": "test_trigger_prompt_change", "arguments": {} }),
        Some("test_trigger_prompt_change"),
    )
    .await;
    let changed = prompts.message().await;
    assert_eq!(changed["method"], "notifications/prompts/list_changed");
    assert_eq!(subscription_id(&changed), 2);
    assert_eq!(
        tools.message_within(raw::QUIET).await,
        None,
        "tools heard no prompts"
    );
}

#[tokio::test]
async fn a_notify_step_reaches_legacy_sessions_too() {
    // The same step serves both eras: a legacy session hears it on its GET stream, as after a
    // live edit. The tool answers as JSON: the step sends nothing on the call's own stream.
    let server = MockMcpServer::builder()
        .tool(Tool::new("trigger").notify(Listing::Tools))
        .start()
        .await;
    let (client, mut changed) = common::connect_watching(&server.url()).await;

    common::call_ok(&client, "trigger", json!({})).await;

    changed.expect_one("the notify step").await;
    client.cancel().await.expect("close the client");
}

#[tokio::test]
async fn the_capture_records_the_listen_request_and_each_notification_as_modern() {
    let server = full_server().await;
    let mut stream = listen(
        &server.url(),
        json!("cap"),
        json!({ "toolsListChanged": true }),
    )
    .await;
    acknowledged(&mut stream).await;
    server
        .add_tool(Tool::new("fresh"))
        .expect("a new tool name");
    stream.message().await;

    let log = server
        .wait_for(|log| log.mcp().from_server().count() >= 2, raw::WAIT)
        .await
        .expect("both notifications captured");

    let request = log
        .mcp()
        .method("subscriptions/listen")
        .first()
        .expect("the listen request")
        .clone();
    assert_eq!(request.kind, RpcKind::Request);
    assert_eq!(request.era, Some(Era::Modern));
    assert_eq!(request.protocol_version.as_deref(), Some("2026-07-28"));
    assert!(request.response.is_none(), "still open: no response yet");
    let sent = log.mcp().from_server().all();
    let methods: Vec<&str> = sent.iter().filter_map(|m| m.method.as_deref()).collect();
    assert_eq!(
        methods,
        [
            "notifications/subscriptions/acknowledged",
            "notifications/tools/list_changed"
        ]
    );
    for message in sent {
        assert_eq!(message.direction, Direction::ServerToClient);
        assert_eq!(message.era, Some(Era::Modern));
        assert_eq!(
            message.session, None,
            "a modern stream belongs to no session"
        );
        assert_eq!(
            message.carried_by, request.carried_by,
            "carried by the listen exchange"
        );
    }

    drop(stream);
    server.shutdown().await;
}

#[tokio::test]
async fn an_rmcp_client_in_discover_mode_hears_list_changed_on_its_subscription() {
    use rmcp::model::{ClientConfig, ProtocolVersion, ServerNotification, SubscriptionFilter};
    use rmcp::transport::StreamableHttpClientTransport;
    use rmcp::{ClientLifecycleMode, ClientServiceExt};

    let server = full_server().await;
    let client = ClientConfig::default()
        .serve_with_lifecycle(
            StreamableHttpClientTransport::from_uri(server.url()),
            ClientLifecycleMode::Discover {
                preferred_versions: vec![ProtocolVersion::V_2026_07_28],
            },
        )
        .await
        .expect("rmcp discovers the server");
    let mut subscription = client
        .listen(SubscriptionFilter::builder().tools_list_changed().build())
        .await
        .expect("rmcp accepts the acknowledgment");

    server
        .add_tool(Tool::new("fresh"))
        .expect("a new tool name");

    let heard = tokio::time::timeout(raw::WAIT, subscription.next())
        .await
        .expect("a notification in time")
        .expect("a valid notification");
    assert!(
        matches!(
            heard,
            Some(ServerNotification::ToolListChangedNotification(_))
        ),
        "{heard:?}"
    );
    subscription
        .cancel()
        .await
        .expect("cancel the subscription");
    client.cancel().await.expect("close the client");
}

#[tokio::test]
async fn an_rmcp_subscription_ends_gracefully_when_the_server_shuts_down() {
    use rmcp::model::{ClientConfig, ProtocolVersion, SubscriptionFilter};
    use rmcp::service::SubscriptionEnd;
    use rmcp::transport::StreamableHttpClientTransport;
    use rmcp::{ClientLifecycleMode, ClientServiceExt};

    let server = full_server().await;
    let client = ClientConfig::default()
        .serve_with_lifecycle(
            StreamableHttpClientTransport::from_uri(server.url()),
            ClientLifecycleMode::Discover {
                preferred_versions: vec![ProtocolVersion::V_2026_07_28],
            },
        )
        .await
        .expect("rmcp discovers the server");
    let mut subscription = client
        .listen(
            SubscriptionFilter::builder()
                .tools_list_changed()
                .resource_subscription("test://watched")
                .build(),
        )
        .await
        .expect("rmcp accepts the acknowledgment");

    server.shutdown().await;

    let next = tokio::time::timeout(raw::WAIT, subscription.next())
        .await
        .expect("the end in time")
        .expect("a clean end");
    assert!(next.is_none());
    assert!(
        matches!(subscription.end(), Some(SubscriptionEnd::Graceful(_))),
        "{:?}",
        subscription.end()
    );
    let _ = client.cancel().await;
}
