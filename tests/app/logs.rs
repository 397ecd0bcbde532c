//! The logs routes of the REST API (product guide, "Read the logs" and the REST table),
//! against the real `mcp-decoy` binary: the list newest first with cursor pagination, the
//! `q` and `carriedBy` filters, one record, clear, the live stream with `after` replay and
//! in-place updates, the JSONL and HAR exports, `--log-limit` shared by every server, and the
//! memory bounds: bodies kept truncated and `--log-bytes`.

use crate::common;
use crate::common::app_process;

use std::collections::BTreeSet;
use std::path::Path;
use std::time::Duration;

use app_process::{Running, Scratch, command_in, free_ports};
use futures::StreamExt;
use reqwest::StatusCode;
use serde_json::{Value, json};

/// How long a step that should succeed may take.
const PATIENCE: Duration = Duration::from_secs(10);

/// `servers.json` with `echo` (the default echo tool plus `slow`, which answers after a
/// second) and a second server `two`.
fn write_echo_and_two(dir: &Path) {
    let servers = json!([
        { "name": "echo", "tools": [
            {
                "name": "echo",
                "inputSchema": { "type": "object", "properties": { "message": { "type": "string" } } },
                "template": { "content": [{ "type": "text", "text": "${args.message}" }] }
            },
            {
                "name": "slow",
                "script": [{ "step": "delay", "ms": 1000 }],
                "template": { "content": [{ "type": "text", "text": "done" }] }
            }
        ] },
        { "name": "two", "tools": [
            {
                "name": "echo",
                "inputSchema": { "type": "object", "properties": { "message": { "type": "string" } } },
                "template": { "content": [{ "type": "text", "text": "${args.message}" }] }
            }
        ] }
    ]);
    app_process::write_servers(dir, servers);
}

/// The app with `echo` and `two`, and extra options.
fn start(dir: &Scratch, extra: &[&str]) -> Running {
    write_echo_and_two(dir.path());
    let (mcp_port, ui_port) = free_ports();
    let mut command = command_in(dir.path(), mcp_port, ui_port);
    command.args(extra);
    Running::spawn(command, mcp_port, ui_port)
}

/// A raw MCP session over reqwest: every request is one JSON POST, so the records it leaves
/// are known exactly (one `http` exchange and one `mcp` message per POST).
struct Session {
    http: reqwest::Client,
    url: String,
    id: String,
    next: u64,
}

impl Session {
    async fn open(url: &str) -> Session {
        let http = reqwest::Client::new();
        let response = http
            .post(url)
            .header("content-type", "application/json")
            .header("accept", "application/json, text/event-stream")
            .body(
                json!({ "jsonrpc": "2.0", "id": 0, "method": "initialize", "params": {
                    "protocolVersion": "2025-11-25",
                    "capabilities": {},
                    "clientInfo": { "name": "logs-test", "version": "1.0.0" }
                } })
                .to_string(),
            )
            .send()
            .await
            .expect("POST initialize");
        assert_eq!(response.status(), StatusCode::OK, "initialize");
        let id = response
            .headers()
            .get("mcp-session-id")
            .expect("initialize answers with Mcp-Session-Id")
            .to_str()
            .expect("the session id is text")
            .to_string();
        let session = Session {
            http,
            url: url.to_string(),
            id,
            next: 1,
        };
        let status = session
            .post(
                json!({ "jsonrpc": "2.0", "method": "notifications/initialized" }),
                &[],
            )
            .await
            .status();
        assert_eq!(status, StatusCode::ACCEPTED, "notifications/initialized");
        session
    }

    async fn post(&self, body: Value, headers: &[(&str, &str)]) -> reqwest::Response {
        let mut request = self
            .http
            .post(&self.url)
            .header("content-type", "application/json")
            .header("accept", "application/json, text/event-stream")
            .header("mcp-session-id", &self.id)
            .header("mcp-protocol-version", "2025-11-25");
        for (name, value) in headers {
            request = request.header(*name, *value);
        }
        request
            .body(body.to_string())
            .send()
            .await
            .expect("POST to the MCP endpoint")
    }

    /// `tools/call` of `tool`; returns the result.
    async fn call(&mut self, tool: &str, arguments: Value, headers: &[(&str, &str)]) -> Value {
        let id = self.next;
        self.next += 1;
        let response = self
            .post(
                json!({ "jsonrpc": "2.0", "id": id, "method": "tools/call",
                    "params": { "name": tool, "arguments": arguments } }),
                headers,
            )
            .await;
        assert_eq!(response.status(), StatusCode::OK, "tools/call {tool}");
        let body: Value = response.json().await.expect("a JSON-RPC response");
        body.get("result")
            .cloned()
            .unwrap_or_else(|| panic!("tools/call {tool} failed: {body}"))
    }
}

/// A REST client for one app.
struct Api {
    http: reqwest::Client,
    base: String,
}

impl Api {
    fn of(app: &Running) -> Api {
        Api {
            http: app.api_client(),
            base: app.api(),
        }
    }

    async fn get(&self, path: &str) -> (StatusCode, Value) {
        let response = self
            .http
            .get(format!("{}{path}", self.base))
            .send()
            .await
            .unwrap_or_else(|e| panic!("GET {path}: {e}"));
        let status = response.status();
        let text = response.text().await.expect("a response body");
        let body = serde_json::from_str(&text).unwrap_or(Value::String(text));
        (status, body)
    }

    /// `GET path`, which must answer 200.
    async fn ok(&self, path: &str) -> Value {
        let (status, body) = self.get(path).await;
        assert_eq!(status, StatusCode::OK, "GET {path}: {body}");
        body
    }

    /// `GET path`, which must answer `status` with problem details naming `field`.
    async fn problem(&self, path: &str, status: StatusCode, field: &str) {
        let response = self
            .http
            .get(format!("{}{path}", self.base))
            .send()
            .await
            .unwrap_or_else(|e| panic!("GET {path}: {e}"));
        assert_eq!(response.status(), status, "GET {path}");
        assert_eq!(
            response
                .headers()
                .get("content-type")
                .and_then(|v| v.to_str().ok()),
            Some("application/problem+json"),
            "GET {path}"
        );
        let body: Value = response.json().await.expect("problem details");
        assert_eq!(body["status"], status.as_u16(), "GET {path}: {body}");
        assert_eq!(body["field"], field, "GET {path}: {body}");
    }

    /// Every record of `server` the filter `query` matches, newest first, in one page.
    async fn all(&self, server: &str, query: &str) -> Vec<Value> {
        let page = self
            .ok(&format!("/servers/{server}/logs?limit=1000&{query}"))
            .await;
        let records = page["records"].as_array().expect("records").clone();
        assert_eq!(page["total"], records.len(), "total counts the matches");
        assert_eq!(page["nextCursor"], Value::Null, "one page holds them all");
        records
    }
}

fn ids(records: &[Value]) -> Vec<u64> {
    records
        .iter()
        .map(|r| r["id"].as_u64().expect("a numeric id"))
        .collect()
}

/// Whether the record's JSON mentions `text` anywhere (what a `q` match must show).
fn mentions(record: &Value, text: &str) -> bool {
    record
        .to_string()
        .to_lowercase()
        .contains(&text.to_lowercase())
}

#[tokio::test]
async fn the_list_is_newest_first_and_pages_with_a_cursor() {
    let dir = Scratch::new("logs-list");
    let app = start(&dir, &[]);
    let api = Api::of(&app);
    let mut session = Session::open(&app.mcp_url("echo")).await;
    for n in 0..5 {
        session
            .call("echo", json!({ "message": format!("m{n}") }), &[])
            .await;
    }

    let everything = api.all("echo", "").await;
    // initialize, initialized and five calls: one http and one mcp record each.
    assert_eq!(everything.len(), 14, "{everything:#?}");
    let all_ids = ids(&everything);
    assert!(
        all_ids.windows(2).all(|w| w[0] > w[1]),
        "newest first: {all_ids:?}"
    );
    let layers: BTreeSet<&str> = everything
        .iter()
        .map(|r| r["layer"].as_str().expect("a layer"))
        .collect();
    assert_eq!(layers, BTreeSet::from(["http", "mcp"]));

    // The default page is the newest 100.
    let first = api.ok("/servers/echo/logs").await;
    assert_eq!(ids(first["records"].as_array().expect("records")), all_ids);

    let mut paged = Vec::new();
    let mut path = "/servers/echo/logs?limit=3".to_string();
    loop {
        let page = api.ok(&path).await;
        assert_eq!(page["total"], 14, "total ignores the cursor");
        let records = page["records"].as_array().expect("records");
        assert!(records.len() <= 3);
        paged.extend(ids(records));
        match page["nextCursor"].as_u64() {
            Some(cursor) => {
                assert_eq!(
                    Some(cursor),
                    paged.last().copied(),
                    "the cursor is the last id"
                );
                path = format!("/servers/echo/logs?limit=3&cursor={cursor}");
            }
            None => break,
        }
    }
    assert_eq!(paged, all_ids, "the pages together are the whole list");

    // Empty parameters count as absent, as in the guide's `?q=&carriedBy=&cursor=&limit=`.
    let blank = api
        .ok("/servers/echo/logs?q=&carriedBy=&cursor=&limit=")
        .await;
    assert_eq!(blank["total"], 14);
}

#[tokio::test]
async fn bad_numbers_and_unknown_names_are_problems_naming_the_parameter() {
    let dir = Scratch::new("logs-bad");
    let app = start(&dir, &[]);
    let api = Api::of(&app);
    for limit in ["0", "1001", "ten", "-1"] {
        api.problem(
            &format!("/servers/echo/logs?limit={limit}"),
            StatusCode::BAD_REQUEST,
            "limit",
        )
        .await;
    }
    api.ok("/servers/echo/logs?limit=1000").await;
    api.problem(
        "/servers/echo/logs?cursor=x",
        StatusCode::BAD_REQUEST,
        "cursor",
    )
    .await;
    api.problem(
        "/servers/echo/logs?carriedBy=-2",
        StatusCode::BAD_REQUEST,
        "carriedBy",
    )
    .await;
    api.problem("/servers/echo/logs/abc", StatusCode::BAD_REQUEST, "id")
        .await;
    api.problem("/servers/echo/logs/999999", StatusCode::NOT_FOUND, "id")
        .await;
    api.problem(
        "/servers/echo/logs/stream?after=soon",
        StatusCode::BAD_REQUEST,
        "after",
    )
    .await;
    for path in [
        "/servers/nope/logs",
        "/servers/nope/logs/1",
        "/servers/nope/logs/stream",
        "/servers/nope/logs/export",
    ] {
        api.problem(path, StatusCode::NOT_FOUND, "server").await;
    }
}

#[tokio::test]
async fn q_matches_the_method_url_headers_and_bodies_case_insensitively() {
    let dir = Scratch::new("logs-q");
    let app = start(&dir, &[]);
    let api = Api::of(&app);
    let mut session = Session::open(&app.mcp_url("echo")).await;
    session
        .call(
            "echo",
            json!({ "message": "Zebra-42" }),
            &[("x-probe", "MarkerValue")],
        )
        .await;
    let everything = api.all("echo", "").await;

    // The method: the tools/call message and the exchange whose body carried it.
    let calls = api.all("echo", "q=TOOLS/CALL").await;
    assert_eq!(calls.len(), 2, "{calls:#?}");
    assert!(calls.iter().all(|r| mentions(r, "tools/call")));
    let layers: Vec<&str> = calls
        .iter()
        .map(|r| r["layer"].as_str().expect("layer"))
        .collect();
    assert_eq!(layers.iter().filter(|l| **l == "http").count(), 1);
    assert_eq!(layers.iter().filter(|l| **l == "mcp").count(), 1);
    let unmatched = everything.len() - calls.len();
    assert_eq!(
        everything
            .iter()
            .filter(|r| !mentions(r, "tools/call"))
            .count(),
        unmatched,
        "every other record lacks tools/call"
    );

    // A request header: only the exchange that sent it.
    let probed = api.all("echo", "q=markervalue").await;
    assert_eq!(probed.len(), 1, "{probed:#?}");
    assert_eq!(probed[0]["layer"], "http");
    // The header's name and value together.
    assert_eq!(api.all("echo", "q=X-Probe:%20markerVALUE").await.len(), 1);

    // A response body: the echoed text is in the call's response and in the exchange body.
    let echoed = api.all("echo", "q=zEbRa-42").await;
    assert_eq!(ids(&echoed), ids(&calls));

    // The URL: every exchange, no message.
    let on_url = api.all("echo", "q=/S/ECHO/MCP").await;
    assert!(!on_url.is_empty());
    assert!(on_url.iter().all(|r| r["layer"] == "http"), "{on_url:#?}");
    assert_eq!(
        on_url.len(),
        everything.iter().filter(|r| r["layer"] == "http").count()
    );

    assert!(api.all("echo", "q=no-such-text-anywhere").await.is_empty());
}

#[tokio::test]
async fn carried_by_links_an_mcp_record_to_the_http_record_that_carried_it() {
    let dir = Scratch::new("logs-carried");
    let app = start(&dir, &[]);
    let api = Api::of(&app);
    // A real client: rmcp also opens the GET stream, so this is the traffic of a real app.
    let client = common::connect(&app.mcp_url("echo")).await;
    common::call_ok(&client, "echo", json!({ "message": "carried" })).await;

    let messages = api.all("echo", "q=tools/call").await;
    let call = messages
        .iter()
        .find(|r| r["layer"] == "mcp" && r["method"] == "tools/call")
        .unwrap_or_else(|| panic!("no tools/call message in {messages:#?}"));
    let carrier = call["carriedBy"]
        .as_u64()
        .expect("the message names its carrier");

    let exchange = api.ok(&format!("/servers/echo/logs/{carrier}")).await;
    assert_eq!(exchange["layer"], "http");
    assert_eq!(exchange["method"], "POST");
    assert_eq!(exchange["requestBody"]["method"], "tools/call");

    let carried = api.all("echo", &format!("carriedBy={carrier}")).await;
    assert!(!carried.is_empty());
    assert!(
        carried
            .iter()
            .all(|r| r["layer"] == "mcp" && r["carriedBy"] == carrier),
        "{carried:#?}"
    );
    assert!(ids(&carried).contains(&call["id"].as_u64().expect("id")));
    // carriedBy and q narrow together.
    assert!(
        api.all("echo", &format!("carriedBy={carrier}&q=no-such-text"))
            .await
            .is_empty()
    );
    drop(client);
}

#[tokio::test]
async fn one_record_is_got_by_id_and_clearing_deletes_only_that_servers_records() {
    let dir = Scratch::new("logs-one");
    let app = start(&dir, &[]);
    let api = Api::of(&app);
    let mut echo = Session::open(&app.mcp_url("echo")).await;
    echo.call("echo", json!({ "message": "one" }), &[]).await;
    let mut two = Session::open(&app.mcp_url("two")).await;
    two.call("echo", json!({ "message": "two" }), &[]).await;

    let echo_records = api.all("echo", "").await;
    let two_records = api.all("two", "").await;
    assert_eq!(echo_records.len(), 6);
    assert_eq!(two_records.len(), 6);
    for record in &echo_records {
        let id = record["id"].as_u64().expect("id");
        assert_eq!(&api.ok(&format!("/servers/echo/logs/{id}")).await, record);
        // Another server's record is not found through this one.
        api.problem(
            &format!("/servers/two/logs/{id}"),
            StatusCode::NOT_FOUND,
            "id",
        )
        .await;
    }

    let cleared = api
        .http
        .delete(format!("{}/servers/echo/logs", api.base))
        .send()
        .await
        .expect("DELETE logs");
    assert_eq!(cleared.status(), StatusCode::NO_CONTENT);
    assert!(api.all("echo", "").await.is_empty());
    assert_eq!(
        api.all("two", "").await,
        two_records,
        "two keeps its records"
    );
    let gone = echo_records[0]["id"].as_u64().expect("id");
    api.problem(
        &format!("/servers/echo/logs/{gone}"),
        StatusCode::NOT_FOUND,
        "id",
    )
    .await;

    echo.call("echo", json!({ "message": "again" }), &[]).await;
    let fresh = api.all("echo", "").await;
    assert_eq!(fresh.len(), 2);
    assert!(
        ids(&fresh).iter().all(|id| *id > gone),
        "ids keep increasing"
    );
}

/// One server-sent event.
#[derive(Debug, Clone)]
struct SseEvent {
    event: Option<String>,
    id: Option<u64>,
    data: Value,
}

/// Reads server-sent events from a streaming response.
struct Events {
    body: futures::stream::BoxStream<'static, reqwest::Result<bytes::Bytes>>,
    buffer: String,
}

impl Events {
    async fn open(api: &Api, path: &str, last_event_id: Option<u64>) -> Events {
        let mut request = api.http.get(format!("{}{path}", api.base));
        if let Some(id) = last_event_id {
            request = request.header("last-event-id", id.to_string());
        }
        let response = request.send().await.expect("open the log stream");
        assert_eq!(response.status(), StatusCode::OK, "GET {path}");
        assert_eq!(
            response
                .headers()
                .get("content-type")
                .and_then(|v| v.to_str().ok()),
            Some("text/event-stream")
        );
        Events {
            body: response.bytes_stream().boxed(),
            buffer: String::new(),
        }
    }

    /// The next event (comments skipped) within `wait`.
    async fn next_within(&mut self, wait: Duration) -> Next {
        let deadline = tokio::time::Instant::now() + wait;
        loop {
            if let Some(end) = self.buffer.find("\n\n") {
                let block: String = self.buffer.drain(..end + 2).collect();
                let mut event = SseEvent {
                    event: None,
                    id: None,
                    data: Value::Null,
                };
                let mut data = String::new();
                for line in block.lines() {
                    if let Some(v) = line.strip_prefix("event:") {
                        event.event = Some(v.trim().to_string());
                    } else if let Some(v) = line.strip_prefix("id:") {
                        event.id = Some(v.trim().parse().expect("a numeric event id"));
                    } else if let Some(v) = line.strip_prefix("data:") {
                        data.push_str(v.strip_prefix(' ').unwrap_or(v));
                    }
                }
                if data.is_empty() && event.event.is_none() {
                    continue; // a keep-alive comment
                }
                event.data = serde_json::from_str(&data).expect("event data is JSON");
                return Next::Event(event);
            }
            match tokio::time::timeout_at(deadline, self.body.next()).await {
                Ok(Some(Ok(chunk))) => {
                    self.buffer
                        .push_str(std::str::from_utf8(&chunk).expect("UTF-8"));
                }
                Ok(Some(Err(_)) | None) => return Next::Ended,
                Err(_) => return Next::Quiet,
            }
        }
    }

    async fn next(&mut self) -> SseEvent {
        match self.next_within(PATIENCE).await {
            Next::Event(event) => event,
            Next::Ended => panic!("the log stream ended"),
            Next::Quiet => panic!("no log event within {PATIENCE:?}"),
        }
    }

    /// Panics unless the stream ends within [`PATIENCE`] (without another event).
    async fn expect_end(&mut self, what: &str) {
        match self.next_within(PATIENCE).await {
            Next::Ended => {}
            Next::Event(event) => panic!("{what}: expected the end, got {event:?}"),
            Next::Quiet => panic!("{what}: the stream is still open after {PATIENCE:?}"),
        }
    }
}

/// What [`Events::next_within`] saw.
#[derive(Debug)]
enum Next {
    Event(SseEvent),
    Ended,
    Quiet,
}

#[tokio::test]
async fn the_stream_replays_after_an_id_then_sends_live_records_and_their_updates() {
    let dir = Scratch::new("logs-stream");
    let app = start(&dir, &[]);
    let api = Api::of(&app);
    let mut session = Session::open(&app.mcp_url("echo")).await;
    session
        .call("echo", json!({ "message": "early" }), &[])
        .await;
    // Another server's traffic never shows up in echo's stream.
    let mut two = Session::open(&app.mcp_url("two")).await;
    two.call("echo", json!({ "message": "elsewhere" }), &[])
        .await;

    let before = api.all("echo", "").await;
    let before_ids = ids(&before);
    let after = before_ids[3];
    let mut events = Events::open(
        &api,
        &format!("/servers/echo/logs/stream?after={after}"),
        None,
    )
    .await;
    let mut replayed = Vec::new();
    for _ in 0..3 {
        let event = events.next().await;
        assert_eq!(event.event, None, "replayed records are plain messages");
        assert_eq!(event.id, event.data["id"].as_u64(), "id: is the record id");
        replayed.push(event.id.expect("an id"));
    }
    let expected: Vec<u64> = before_ids
        .iter()
        .rev()
        .copied()
        .filter(|id| *id > after)
        .collect();
    assert_eq!(
        replayed, expected,
        "the kept records after `after`, oldest first"
    );
    let more = events.next_within(Duration::from_millis(300)).await;
    assert!(matches!(more, Next::Quiet), "nothing else yet: {more:?}");

    // A live call to a slow tool: the exchange and the message arrive unanswered, then
    // come again as `update` events once the answer is in.
    let url = app.mcp_url("echo");
    let session_id = session.id.clone();
    let slow = tokio::spawn(async move {
        let mut session = Session {
            http: reqwest::Client::new(),
            url,
            id: session_id,
            next: 100,
        };
        session.call("slow", json!({}), &[]).await
    });
    let mut exchange = None;
    let mut message = None;
    let mut updated = BTreeSet::new();
    while exchange.is_none() || message.is_none() || updated.len() < 2 {
        let event = events.next().await;
        let id = event.id.expect("record events carry the id");
        match event.event.as_deref() {
            None => {
                assert!(id > replayed[2], "live records are newer");
                match event.data["layer"].as_str() {
                    Some("http") => {
                        assert_eq!(event.data.get("status"), None, "not answered yet");
                        exchange = Some(id);
                    }
                    Some("mcp") => {
                        assert_eq!(event.data["method"], "tools/call");
                        assert_eq!(event.data.get("response"), None, "not answered yet");
                        message = Some(id);
                    }
                    other => panic!("unexpected layer {other:?}"),
                }
            }
            Some("update") => {
                assert!(
                    Some(id) == exchange || Some(id) == message,
                    "an update of a sent record"
                );
                if event.data["layer"] == "mcp" && event.data.get("response").is_some() {
                    assert_eq!(
                        event.data["response"]["result"]["content"][0]["text"],
                        "done"
                    );
                    updated.insert(id);
                }
                if event.data["layer"] == "http" && event.data["status"] == 200 {
                    updated.insert(id);
                }
            }
            Some(other) => panic!("unexpected event {other}"),
        }
    }
    slow.await.expect("the slow call finishes");

    // Clearing is an event too.
    let cleared = api
        .http
        .delete(format!("{}/servers/echo/logs", api.base))
        .send()
        .await
        .expect("DELETE logs");
    assert_eq!(cleared.status(), StatusCode::NO_CONTENT);
    loop {
        let event = events.next().await;
        match event.event.as_deref() {
            Some("clear") => break,
            // A last change of the slow call's records may still be on its way.
            Some("update") => continue,
            _ => panic!("expected the clear event, got {event:?}"),
        }
    }
}

#[tokio::test]
async fn the_stream_honours_q_and_last_event_id() {
    let dir = Scratch::new("logs-stream-q");
    let app = start(&dir, &[]);
    let api = Api::of(&app);
    let mut session = Session::open(&app.mcp_url("echo")).await;
    session
        .call("echo", json!({ "message": "Needle-1" }), &[])
        .await;
    let newest = ids(&api.all("echo", "").await)[0];

    // Last-Event-ID (an EventSource reconnecting) wins over the URL's `after`.
    let mut events = Events::open(
        &api,
        "/servers/echo/logs/stream?after=0&q=NEEDLE",
        Some(newest),
    )
    .await;
    session.call("echo", json!({ "message": "hay" }), &[]).await;
    session
        .call("echo", json!({ "message": "needle-2" }), &[])
        .await;
    let mut layers = BTreeSet::new();
    while layers.len() < 2 {
        let event = events.next().await;
        assert!(mentions(&event.data, "needle-2"), "only matches: {event:?}");
        assert!(event.id.expect("id") > newest, "{event:?}");
        if event.event.is_none() {
            layers.insert(event.data["layer"].as_str().expect("layer").to_string());
        }
    }
}

#[tokio::test]
async fn the_stream_ends_when_the_app_shuts_down() {
    let dir = Scratch::new("logs-stream-end");
    let app = start(&dir, &[]);
    let api = Api::of(&app);
    let mut events = Events::open(&api, "/servers/echo/logs/stream", None).await;
    app.signal("TERM");
    events.expect_end("the stream ended").await;
    let (status, stderr) = app.wait();
    assert!(
        status.success(),
        "a clean exit with a stream open: {stderr}"
    );
    // A stream that ignored the shutdown would hold it open until the app gives up on it
    // after two seconds, and says so (no time bound: a busy machine is slow either way).
    assert!(!stderr.contains("still open"), "{stderr}");
}

#[tokio::test]
async fn the_stream_ends_when_its_server_is_deleted_or_renamed() {
    let dir = Scratch::new("logs-stream-gone");
    let app = start(&dir, &[]);
    let api = Api::of(&app);
    let mut echo = Session::open(&app.mcp_url("echo")).await;
    echo.call("echo", json!({ "message": "before the rename" }), &[])
        .await;
    let kept = api.all("echo", "").await;
    let mut deleted = Events::open(&api, "/servers/two/logs/stream", None).await;
    let mut renamed = Events::open(&api, "/servers/echo/logs/stream", None).await;

    let response = api
        .http
        .delete(format!("{}/servers/two", api.base))
        .send()
        .await
        .expect("DELETE the server");
    assert_eq!(response.status(), StatusCode::NO_CONTENT);
    // A deleted server's records are dropped with it, which its stream reports as a clear.
    match deleted.next_within(PATIENCE).await {
        Next::Event(event) => assert_eq!(event.event.as_deref(), Some("clear"), "{event:?}"),
        other => panic!("expected the clear of the deleted server's records, got {other:?}"),
    }
    deleted.expect_end("the stream of two ended").await;

    let response = api
        .http
        .patch(format!("{}/servers/echo", api.base))
        .header("content-type", "application/json")
        .body(json!({ "name": "renamed" }).to_string())
        .send()
        .await
        .expect("PATCH the server");
    assert_eq!(
        response.status(),
        StatusCode::OK,
        "{:?}",
        response.text().await
    );
    renamed.expect_end("the stream of echo ended").await;
    // The records follow the server to its new name.
    assert_eq!(api.all("renamed", "").await, kept);
}

#[tokio::test]
async fn the_export_holds_every_record_of_the_server_as_json_lines() {
    let dir = Scratch::new("logs-export");
    let app = start(&dir, &[]);
    let api = Api::of(&app);
    let mut session = Session::open(&app.mcp_url("echo")).await;
    for n in 0..3 {
        session
            .call("echo", json!({ "message": format!("x{n}") }), &[])
            .await;
    }
    let mut two = Session::open(&app.mcp_url("two")).await;
    two.call("echo", json!({ "message": "not exported" }), &[])
        .await;
    let listed = api.all("echo", "").await;

    let response = api
        .http
        .get(format!(
            "{}/servers/echo/logs/export?q=tools/call",
            api.base
        ))
        .send()
        .await
        .expect("GET export");
    assert_eq!(response.status(), StatusCode::OK);
    let header = |name: &str| {
        response
            .headers()
            .get(name)
            .and_then(|v| v.to_str().ok())
            .map(str::to_string)
    };
    assert_eq!(
        header("content-type").as_deref(),
        Some("application/x-ndjson")
    );
    assert_eq!(
        header("content-disposition").as_deref(),
        Some("attachment; filename=\"echo-logs.jsonl\"")
    );
    let text = response.text().await.expect("the export body");
    assert!(text.ends_with('\n'));
    let lines: Vec<Value> = text
        .lines()
        .map(|line| serde_json::from_str(line).expect("each line is one JSON record"))
        .collect();
    assert_eq!(
        lines.len(),
        listed.len(),
        "every record, whatever the filter"
    );
    let oldest_first: Vec<Value> = listed.into_iter().rev().collect();
    assert_eq!(
        lines, oldest_first,
        "the same records as the list, oldest first"
    );
    assert!(!text.contains("not exported"));
}

/// The values of a HAR entry's request headers named `name`.
fn har_header(entry: &Value, name: &str) -> Vec<String> {
    entry["request"]["headers"]
        .as_array()
        .into_iter()
        .flatten()
        .filter(|h| h["name"] == name)
        .filter_map(|h| h["value"].as_str().map(str::to_string))
        .collect()
}

#[tokio::test]
async fn the_har_export_has_one_entry_per_exchange_with_secrets_masked_unless_asked() {
    // Arrange: a call with a cookie and an API key, a POST with a secret in its query, a
    // form body with a client secret, and traffic of another server.
    let dir = Scratch::new("logs-har");
    let app = start(&dir, &[]);
    let api = Api::of(&app);
    let url = app.mcp_url("echo");
    let mut session = Session::open(&url).await;
    session
        .call(
            "echo",
            json!({ "message": "hello" }),
            &[
                ("cookie", "sid=abc123; theme=dark"),
                ("x-api-key", "key-123"),
            ],
        )
        .await;
    let queried = session
        .http
        .post(format!("{url}?code=c0de&x=1"))
        .header("content-type", "application/json")
        .header("accept", "application/json, text/event-stream")
        .header("mcp-session-id", &session.id)
        .header("mcp-protocol-version", "2025-11-25")
        .body(json!({ "jsonrpc": "2.0", "id": 90, "method": "ping" }).to_string())
        .send()
        .await
        .expect("POST with a query");
    assert_eq!(queried.status(), StatusCode::OK);
    let form = session
        .http
        .post(&url)
        .header("content-type", "application/x-www-form-urlencoded")
        .body("grant_type=client_credentials&client_secret=shh")
        .send()
        .await
        .expect("POST a form");
    assert!(form.status().is_client_error(), "{}", form.status());
    let mut two = Session::open(&app.mcp_url("two")).await;
    two.call("echo", json!({ "message": "not exported" }), &[])
        .await;
    let exchanges: Vec<Value> = api
        .all("echo", "")
        .await
        .into_iter()
        .rev()
        .filter(|r| r["layer"] == "http")
        .collect();

    // Act
    let response = api
        .http
        .get(format!("{}/servers/echo/logs/export.har", api.base))
        .send()
        .await
        .expect("GET export.har");

    // Assert: a HAR 1.2 document, one entry per exchange, oldest first.
    assert_eq!(response.status(), StatusCode::OK);
    assert_eq!(
        response
            .headers()
            .get("content-disposition")
            .and_then(|v| v.to_str().ok()),
        Some("attachment; filename=\"echo.har\"")
    );
    let text = response.text().await.expect("the HAR");
    let har: Value = serde_json::from_str(&text).expect("the HAR is JSON");
    assert_eq!(har["log"]["version"], "1.2");
    let entries = har["log"]["entries"].as_array().expect("entries");
    assert_eq!(
        entries.iter().map(|e| e["_id"].clone()).collect::<Vec<_>>(),
        exchanges
            .iter()
            .map(|r| r["id"].clone())
            .collect::<Vec<_>>(),
        "one entry per http record, oldest first"
    );
    for (entry, record) in entries.iter().zip(&exchanges) {
        assert_eq!(entry["request"]["method"], record["method"]);
        assert_eq!(entry["response"]["status"], record["status"]);
        assert_eq!(entry["timings"]["wait"], record["durationMs"]);
        assert_eq!(entry["time"], record["durationMs"], "no stream ended");
        assert!(
            entry["startedDateTime"]
                .as_str()
                .is_some_and(|t| t.ends_with('Z') && t.len() == 24),
            "{entry}"
        );
    }
    let call = &entries[2];
    assert_eq!(har_header(call, "cookie"), ["********"]);
    assert_eq!(har_header(call, "x-api-key"), ["********"]);
    assert_eq!(
        call["request"]["cookies"],
        json!([{ "name": "sid", "value": "********" }, { "name": "theme", "value": "********" }])
    );
    let result: Value = serde_json::from_str(
        call["response"]["content"]["text"]
            .as_str()
            .expect("the response as text"),
    )
    .expect("the response text is the JSON-RPC answer");
    assert_eq!(result["result"]["content"][0]["text"], "hello");
    assert_eq!(call["response"]["statusText"], "OK");
    let ping = &entries[3];
    assert!(
        ping["request"]["url"]
            .as_str()
            .is_some_and(|u| u.ends_with("/s/echo/mcp?code=********&x=1")),
        "{ping}"
    );
    assert_eq!(
        ping["request"]["queryString"],
        json!([{ "name": "code", "value": "********" }, { "name": "x", "value": "1" }])
    );
    assert_eq!(
        entries[4]["request"]["postData"],
        json!({ "mimeType": "application/x-www-form-urlencoded",
            "text": "grant_type=client_credentials&client_secret=********" })
    );
    for secret in ["abc123", "key-123", "c0de", "shh", "not exported"] {
        assert!(!text.contains(secret), "{secret} is not in the HAR");
    }

    // With secrets=true the query and form secrets are there; cookie and API-key values
    // never were (the log masks them as it captures, issue 41).
    let (status, revealed) = api.get("/servers/echo/logs/export.har?secrets=true").await;
    assert_eq!(status, StatusCode::OK);
    let entries = revealed["log"]["entries"].as_array().expect("entries");
    assert_eq!(
        har_header(&entries[2], "cookie"),
        ["sid=[redacted]; theme=[redacted]"]
    );
    assert_eq!(har_header(&entries[2], "x-api-key"), ["[redacted]"]);
    let raw = serde_json::to_string(&revealed).expect("JSON");
    for secret in ["abc123", "key-123"] {
        assert!(!raw.contains(secret), "{secret} was captured");
    }
    assert!(
        entries[3]["request"]["url"]
            .as_str()
            .is_some_and(|u| u.ends_with("?code=c0de&x=1"))
    );
    assert_eq!(
        entries[4]["request"]["postData"]["text"],
        "grant_type=client_credentials&client_secret=shh"
    );

    // Problems name what is wrong.
    api.problem(
        "/servers/echo/logs/export.har?secrets=maybe",
        StatusCode::BAD_REQUEST,
        "secrets",
    )
    .await;
    api.problem(
        "/servers/nope/logs/export.har",
        StatusCode::NOT_FOUND,
        "server",
    )
    .await;
}

#[tokio::test]
async fn the_log_limit_bounds_all_servers_together_dropping_the_oldest_first() {
    let dir = Scratch::new("logs-limit");
    let app = start(&dir, &["--log-limit", "100"]);
    let api = Api::of(&app);
    let mut echo = Session::open(&app.mcp_url("echo")).await;
    let mut two = Session::open(&app.mcp_url("two")).await;
    for n in 0..40 {
        echo.call("echo", json!({ "message": format!("e{n}") }), &[])
            .await;
        two.call("echo", json!({ "message": format!("t{n}") }), &[])
            .await;
    }
    // 2 * (2 + 40) * 2 = 168 records were written.
    let echo_ids = ids(&api.all("echo", "").await);
    let two_ids = ids(&api.all("two", "").await);
    assert_eq!(echo_ids.len() + two_ids.len(), 100, "at most 100 in all");
    assert!(
        !echo_ids.is_empty() && !two_ids.is_empty(),
        "both servers keep records"
    );
    let kept: BTreeSet<u64> = echo_ids.iter().chain(&two_ids).copied().collect();
    let newest = *kept.last().expect("records");
    let expected: BTreeSet<u64> = (newest - 99..=newest).collect();
    assert_eq!(
        kept, expected,
        "the newest 100 records, whichever server wrote them"
    );
    // The initialize records (the oldest) are gone.
    assert!(api.all("echo", "q=initialize").await.is_empty());
    assert!(api.all("two", "q=initialize").await.is_empty());
}

/// The resident memory of process `pid`, in KiB (`VmRSS` of `/proc/PID/status`).
fn rss_kib(pid: u32) -> u64 {
    let status = std::fs::read_to_string(format!("/proc/{pid}/status"))
        .unwrap_or_else(|e| panic!("read /proc/{pid}/status: {e}"));
    status
        .lines()
        .find_map(|line| line.strip_prefix("VmRSS:"))
        .and_then(|rest| rest.trim().trim_end_matches("kB").trim().parse().ok())
        .unwrap_or_else(|| panic!("no VmRSS in /proc/{pid}/status"))
}

/// Generous: the log's own share of 200 truncated calls is about 7 MiB; the rest is the
/// app, its buffers and what the allocator keeps. Before bodies were cut, 200 calls took
/// 560 MiB.
const MEMORY_BOUND_KIB: u64 = 200 * 1024;

#[tokio::test]
async fn two_hundred_calls_of_1_mib_keep_the_apps_memory_bounded_and_searches_cheap() {
    // Arrange
    let dir = Scratch::new("logs-memory");
    let app = start(&dir, &[]);
    let api = Api::of(&app);
    let mut echo = Session::open(&app.mcp_url("echo")).await;
    let before = rss_kib(app.pid());
    let message = "m".repeat(1024 * 1024);

    // Act
    for _ in 0..200 {
        let result = echo.call("echo", json!({ "message": message }), &[]).await;
        assert_eq!(
            result["content"][0]["text"].as_str().map(str::len),
            Some(message.len()),
            "the client gets the whole echo"
        );
    }
    let after_calls = rss_kib(app.pid());
    let missed = api.ok("/servers/echo/logs?q=no-such-text").await;
    let after_search = rss_kib(app.pid());

    // Assert: a memory bound, not a timing.
    eprintln!(
        "app RSS: {before} KiB at start, {after_calls} KiB after 200 calls, {after_search} KiB after a search"
    );
    assert!(
        after_calls < MEMORY_BOUND_KIB && after_search < MEMORY_BOUND_KIB,
        "RSS {before} KiB at start, {after_calls} KiB after 200 calls of 1 MiB, \
         {after_search} KiB after a search"
    );
    assert_eq!(missed["total"], 0);
    let calls = api.all("echo", "q=tools/call").await;
    assert_eq!(calls.len(), 400, "an http and an mcp record per call");
    for record in &calls {
        assert_eq!(record["truncated"], true, "{}", record["id"]);
        assert!(record.to_string().len() < 32 * 1024, "{}", record["id"]);
    }
    let mcp = calls
        .iter()
        .find(|r| r["layer"] == "mcp")
        .expect("an mcp record");
    let kept = mcp["message"]["params"]["arguments"]["message"]
        .as_str()
        .expect("the message is kept as a string");
    assert!(kept.starts_with("mmmm") && kept.ends_with("... (1048576 bytes)"));
}

#[tokio::test]
async fn log_bytes_drops_the_oldest_records_and_the_list_shows_the_newest() {
    // Arrange: a 1 MiB budget, and calls whose records keep about 16 KiB each.
    let dir = Scratch::new("logs-bytes");
    let app = start(&dir, &["--log-bytes", "1MiB"]);
    let api = Api::of(&app);
    let mut echo = Session::open(&app.mcp_url("echo")).await;

    // Act
    for n in 0..100 {
        let message = format!("call-{n:03}-{}", "m".repeat(20_000));
        echo.call("echo", json!({ "message": message }), &[]).await;
    }

    // Assert
    let records = api.all("echo", "").await;
    assert!(
        (20..200).contains(&records.len()),
        "{} records kept of 202",
        records.len()
    );
    assert!(
        api.all("echo", "q=initialize").await.is_empty(),
        "the oldest left"
    );
    assert!(
        mentions(&records[0], "call-099-") || mentions(&records[1], "call-099-"),
        "the newest call is first"
    );
    let kept = ids(&records);
    assert!(
        kept.windows(2).all(|w| w[0] == w[1] + 1),
        "the newest records, contiguous: {kept:?}"
    );
    let held: usize = records.iter().map(|r| r.to_string().len()).sum();
    assert!(
        held < 1024 * 1024,
        "{held} bytes of JSON under a 1 MiB budget"
    );
}
