//! The web UI's Timeline tab and Export HAR (issue "The web UI of the standalone app, tested in
//! a real Chromium", "Beyond the guide"), in a real headless Chromium against the real binary
//! and a real rmcp client. Elements are found by their `data-testid` (listed in
//! `src/cli/ui/README.md`).
//!
//! Screenshots go to `CARGO_TARGET_TMPDIR`, or to the directory `SCREENSHOTS` names, as in
//! `tests/ui/pages.rs`.

use crate::common;
use crate::common::browser;

use std::collections::HashMap;
use std::time::{Duration, Instant};

use browser::PATIENCE;
use browser::ui::Ui;
use common::{Client, ListChanged, call_ok, text};
use futures::StreamExt;
use reqwest::StatusCode;
use rmcp::transport::StreamableHttpClientTransport;
use rmcp::transport::streamable_http_client::StreamableHttpClientTransportConfig;
use serde_json::{Value, json};

/// The bearer token and API key the client sends: neither may show in a masked HAR.
const TOKEN: &str = "timeline-secret-token";
const API_KEY: &str = "timeline-api-key";

/// `METHOD path` on the app's API, which must succeed; its JSON body (`null` when empty).
async fn api(ui: &Ui, method: reqwest::Method, path: &str, body: Option<Value>) -> Value {
    let mut request = ui
        .http
        .request(method.clone(), format!("{}{path}", ui.app.api()));
    if let Some(body) = body {
        request = request.json(&body);
    }
    let response = request
        .send()
        .await
        .unwrap_or_else(|e| panic!("{method} {path}: {e}"));
    let status = response.status();
    let text = response.text().await.expect("a body");
    assert!(status.is_success(), "{method} {path}: {status} {text}");
    serde_json::from_str(&text).unwrap_or(Value::Null)
}

/// Every record of `server`, newest first (the test logs stay under one page).
async fn log_records(ui: &Ui, server: &str) -> Vec<Value> {
    let page = ui
        .api_get(&format!("/servers/{server}/logs?limit=1000"))
        .await;
    assert_eq!(page["nextCursor"], Value::Null, "one page holds the log");
    page["records"].as_array().cloned().unwrap_or_default()
}

/// Downloads `url` (a link of the page): its headers, its text and its JSON.
async fn download_json(ui: &Ui, url: &str) -> (reqwest::header::HeaderMap, String, Value) {
    let response = ui
        .http
        .get(url)
        .send()
        .await
        .unwrap_or_else(|e| panic!("GET {url}: {e}"));
    assert_eq!(response.status(), StatusCode::OK, "GET {url}");
    let headers = response.headers().clone();
    let body = response.text().await.expect("the download");
    let value = serde_json::from_str(&body)
        .unwrap_or_else(|e| panic!("the download of {url} is not JSON ({e}): {body}"));
    (headers, body, value)
}

/// The `href` of the link with `data-testid` `id`.
async fn link(ui: &Ui, id: &str) -> String {
    ui.browser
        .testid(id)
        .await
        .prop("href")
        .await
        .unwrap_or_else(|e| panic!("read the href of {id}: {e}"))
        .unwrap_or_else(|| panic!("{id} has an href"))
}

/// The rows of the timeline in the page now, in order: their data and their text.
async fn timeline_rows(ui: &Ui) -> Vec<Value> {
    let rows = ui
        .browser
        .eval(
            "return [...document.querySelectorAll('[data-testid=timeline-row]')]\
             .map((el) => ({ ...el.dataset, text: el.textContent }));",
        )
        .await;
    rows.as_array().cloned().unwrap_or_default()
}

/// An rmcp client on `url` that sends `Authorization: Bearer TOKEN` and `X-API-Key`.
async fn connect_with_credentials(url: &str) -> (Client, ListChanged) {
    let mut headers = HashMap::new();
    headers.insert(
        http::HeaderName::from_static("x-api-key"),
        http::HeaderValue::from_static(API_KEY),
    );
    let config = StreamableHttpClientTransportConfig::with_uri(url.to_string())
        .auth_header(TOKEN)
        .custom_headers(headers);
    let transport = StreamableHttpClientTransport::from_config(config);
    common::connect_over(transport, common::client_config(), url).await
}

/// Waits until `server`'s only session holds its GET stream open (server messages such as
/// `list_changed` travel on it), and returns the session's id.
async fn session_with_stream(ui: &Ui, server: &str) -> String {
    let deadline = Instant::now() + PATIENCE;
    loop {
        let sessions = ui.api_get(&format!("/servers/{server}/sessions")).await;
        if let Some(session) = sessions.as_array().and_then(|s| s.first()) {
            if session["streamOpen"] == true {
                return session["id"].as_str().expect("a session id").to_string();
            }
        }
        assert!(
            Instant::now() < deadline,
            "no session with an open stream: {sessions}"
        );
        tokio::time::sleep(Duration::from_millis(50)).await;
    }
}

fn find<'a>(rows: &'a [Value], what: &str, want: impl Fn(&Value) -> bool) -> (usize, &'a Value) {
    rows.iter()
        .enumerate()
        .find(|(_, row)| want(row))
        .unwrap_or_else(|| {
            let seen: Vec<String> = rows
                .iter()
                .map(|r| format!("{} {} {}", r["kind"], r["method"], r["direction"]))
                .collect();
            panic!("the timeline has no {what}; rows: {seen:#?}")
        })
}

fn is(row: &Value, kind: &str, method: &str, direction: &str) -> bool {
    row["kind"] == kind && row["method"] == method && row["direction"] == direction
}

/// The values of the headers named `name` in a HAR entry's request.
fn har_headers(entry: &Value, name: &str) -> Vec<String> {
    entry["request"]["headers"]
        .as_array()
        .into_iter()
        .flatten()
        .filter(|h| {
            h["name"]
                .as_str()
                .is_some_and(|n| n.eq_ignore_ascii_case(name))
        })
        .filter_map(|h| h["value"].as_str().map(str::to_string))
        .collect()
}

/// A real client connects, a tool published over REST makes the server send
/// `notifications/tools/list_changed` (which the client never answers with `tools/list`), and
/// a call meets a delay fault. The Timeline shows the `initialize` request and response, the
/// notification from server to client marked as never answered, and the faulted call with its
/// result, in that order, with their HTTP carriers; an arrow opens its log entry. Export HAR
/// then has one entry per HTTP exchange, `Authorization` and `X-API-Key` masked, and "Include
/// secrets" brings back the key (the bearer token the log never kept).
#[tokio::test]
async fn the_timeline_shows_the_handshake_the_unanswered_list_change_and_the_call_and_har_exports_them()
 {
    let ui = Ui::start("ui-timeline").await;
    let b = &ui.browser;
    api(
        &ui,
        reqwest::Method::PATCH,
        "/servers/echo",
        Some(json!({ "faults": [{ "method": "tools/call", "times": 1, "delay": { "ms": 40 } }] })),
    )
    .await;

    // Traffic: the handshake, a list change, a call that meets the fault.
    let echo_url = ui.app.mcp_url("echo");
    let (client, mut list_changed) = connect_with_credentials(&echo_url).await;
    let session = session_with_stream(&ui, "echo").await;
    api(
        &ui,
        reqwest::Method::POST,
        "/servers/echo/tools",
        Some(json!({ "name": "get_forecast", "published": true,
            "template": { "content": [{ "type": "text", "text": "Rain in ${args.city}" }] } })),
    )
    .await;
    list_changed
        .expect_one("publishing get_forecast over REST")
        .await;
    let result = call_ok(&client, "get_forecast", json!({ "city": "Paris" })).await;
    assert_eq!(text(&result), "Rain in Paris");

    // The Timeline picks the newest session: the client's.
    b.open(&ui.url("#/servers/echo/timeline")).await;
    b.click("tab-timeline").await;
    b.until("the picker selects the client's session", || async {
        b.eval("return document.querySelector('[data-testid=timeline-session]')?.value ?? null")
            .await
            == json!(session)
    })
    .await;
    b.text_until("[data-testid=timeline-client]", "names the client", |t| {
        t.contains(common::CLIENT_NAME)
    })
    .await;
    b.css("[data-testid=timeline-row][data-kind=response][data-method=\"tools/call\"]")
        .await;
    let rows = timeline_rows(&ui).await;
    let (init, _) = find(&rows, "initialize request", |r| {
        is(r, "request", "initialize", "client-to-server")
    });
    let (init_answer, _) = find(&rows, "initialize response", |r| {
        is(r, "response", "initialize", "server-to-client")
    });
    let (changed, notification) = find(&rows, "list_changed from server to client", |r| {
        is(
            r,
            "notification",
            "notifications/tools/list_changed",
            "server-to-client",
        )
    });
    let (call, call_row) = find(&rows, "tools/call request", |r| {
        is(r, "request", "tools/call", "client-to-server")
    });
    let (call_answer, _) = find(&rows, "tools/call response", |r| {
        is(r, "response", "tools/call", "server-to-client")
    });
    assert!(
        init < init_answer && init_answer < changed && changed < call && call < call_answer,
        "in time order: {rows:#?}"
    );
    assert_eq!(
        notification["relisted"], "false",
        "the client never listed the tools again: {notification}"
    );
    assert!(
        notification["text"]
            .as_str()
            .is_some_and(|t| t.contains("never listed tools again")),
        "{notification}"
    );
    assert!(
        call_row["fault"]
            .as_str()
            .is_some_and(|f| f.contains("delay 40 ms")),
        "the call is marked with its fault: {call_row}"
    );
    let carriers = rows.iter().filter(|r| r["kind"] == "http").count();
    assert!(carriers >= 4, "the HTTP carriers are drawn: {rows:#?}");
    let count = b
        .text_until("[data-testid=timeline-count]", "counts messages", |t| {
            t.contains("messages")
        })
        .await;
    assert!(count.contains("HTTP exchange"), "{count}");
    b.until("the axis has a bar", || async {
        b.all("[data-testid=timeline-axis] rect").await.len() > 1
    })
    .await;
    ui.shot("timeline").await;

    // An arrow opens its log entry.
    let changed_selector = "[data-testid=timeline-row][data-kind=notification][data-method=\"notifications/tools/list_changed\"]";
    let id = notification["id"]
        .as_str()
        .expect("the row has its id")
        .to_string();
    b.css(changed_selector)
        .await
        .click()
        .await
        .expect("click the list_changed arrow");
    b.until("the hash names the log entry", || async {
        b.eval("return location.hash").await == json!(format!("#/servers/echo/logs/{id}"))
    })
    .await;
    b.text_until("[data-testid=log-details]", "shows the notification", |t| {
        t.contains("notifications/tools/list_changed")
    })
    .await;

    // Export HAR: one entry per HTTP exchange, credentials masked.
    let href = link(&ui, "export-har").await;
    assert!(
        href.ends_with("/api/v1/servers/echo/logs/export.har"),
        "{href}"
    );
    let (headers, body, har) = download_json(&ui, &href).await;
    let records = log_records(&ui, "echo").await;
    let exchanges = records
        .iter()
        .filter(|r| r["layer"] == "http" && r["kind"] == "exchange")
        .count();
    let http_records = records.iter().filter(|r| r["layer"] == "http").count();
    assert_eq!(
        http_records, exchanges,
        "no event stream has ended yet, so every http record is an exchange"
    );
    assert_eq!(
        headers
            .get("content-disposition")
            .and_then(|v| v.to_str().ok()),
        Some("attachment; filename=\"echo.har\"")
    );
    assert_eq!(har["log"]["version"], "1.2");
    assert_eq!(har["log"]["creator"]["name"], "mcp-decoy");
    let entries = har["log"]["entries"].as_array().expect("log.entries");
    assert_eq!(entries.len(), http_records, "one entry per http record");
    for entry in entries {
        for key in [
            "startedDateTime",
            "time",
            "request",
            "response",
            "cache",
            "timings",
        ] {
            assert!(entry.get(key).is_some(), "an entry has {key}: {entry}");
        }
        assert!(entry["timings"]["wait"].as_f64().is_some_and(|w| w >= 0.0));
        assert_eq!(
            har_headers(entry, "authorization"),
            ["Bearer ********"],
            "Authorization is masked, keeping its scheme: {entry}"
        );
        assert_eq!(har_headers(entry, "x-api-key"), ["********"]);
        if entry["request"]["method"] == "POST" {
            let text = entry["request"]["postData"]["text"]
                .as_str()
                .expect("a body as text");
            serde_json::from_str::<Value>(text).expect("the posted JSON-RPC text");
        }
    }
    assert!(
        !body.contains(TOKEN) && !body.contains(API_KEY),
        "no credential in the masked HAR"
    );
    let call_entry = entries
        .iter()
        .find(|e| {
            e["request"]["postData"]["text"]
                .as_str()
                .is_some_and(|t| t.contains("tools/call"))
        })
        .expect("the call's exchange");
    assert_eq!(call_entry["response"]["status"], 200);
    if call_entry["response"]["content"]["mimeType"] == "application/json" {
        assert!(
            call_entry["timings"]["wait"]
                .as_f64()
                .is_some_and(|w| w >= 40.0),
            "the delay shows in the timings of a JSON answer: {call_entry}"
        );
    }

    // Include secrets: neither the API key nor the bearer token was ever in the log.
    b.click("tab-logs").await;
    b.click("har-secrets").await;
    let revealed = link(&ui, "export-har").await;
    assert!(
        revealed.ends_with("/logs/export.har?secrets=true"),
        "{revealed}"
    );
    let (_, body, har) = download_json(&ui, &revealed).await;
    let first = &har["log"]["entries"][0];
    assert_eq!(har_headers(first, "x-api-key"), ["[redacted]"]);
    assert_eq!(har_headers(first, "authorization"), ["Bearer [redacted]"]);
    assert!(!body.contains(TOKEN), "the log never kept the bearer token");
    assert!(!body.contains(API_KEY), "the log never kept the API key");

    // The client leaves: its GET stream ends, and the HAR folds the end into the exchange
    // that opened it instead of adding an entry.
    client.cancel().await.ok();
    let deadline = Instant::now() + PATIENCE;
    let records = loop {
        let records = log_records(&ui, "echo").await;
        if records.iter().any(|r| r["kind"] == "stream_end") {
            break records;
        }
        assert!(Instant::now() < deadline, "the GET stream's end is logged");
        tokio::time::sleep(Duration::from_millis(50)).await;
    };
    let (_, _, har) = download_json(&ui, &href).await;
    let exchanges: Vec<&Value> = records
        .iter()
        .filter(|r| r["layer"] == "http" && r["kind"] == "exchange")
        .collect();
    let entries = har["log"]["entries"].as_array().expect("log.entries");
    assert_eq!(entries.len(), exchanges.len());
    let end = records
        .iter()
        .find(|r| r["kind"] == "stream_end")
        .expect("a stream end");
    let stream = entries
        .iter()
        .find(|e| e["_id"] == end["streamOf"])
        .expect("the stream's exchange");
    assert!(
        stream["timings"]["receive"]
            .as_f64()
            .is_some_and(|r| r > 0.0),
        "the stream's life is its receive time: {stream}"
    );
    b.open(&ui.url(&format!("#/servers/echo/timeline/{session}")))
        .await;
    b.css("[data-testid=timeline-row][data-kind=stream-end]")
        .await;
    ui.browser.close().await;
}

/// A session of thousands of messages: the Timeline draws only the rows in view, follows
/// new traffic, and its axis and Newest reach any part of it.
#[tokio::test]
async fn a_session_of_thousands_of_messages_keeps_the_timeline_windowed() {
    const CALLS: usize = 1500;
    let ui = Ui::start("ui-timeline-long").await;
    let b = &ui.browser;
    let client = common::connect(&ui.app.mcp_url("echo")).await;
    let calls = |from: usize, to: usize| {
        futures::stream::iter(from..to)
            .map(|n| {
                let client = &client;
                async move {
                    let message = format!("call {n}");
                    let result = call_ok(client, "echo", json!({ "message": message })).await;
                    assert_eq!(text(&result), message);
                }
            })
            .buffer_unordered(16)
            .collect::<Vec<()>>()
    };
    calls(0, CALLS).await;

    let opened = Instant::now();
    b.open(&ui.url("#/servers/echo/timeline")).await;
    let at_least = 2 * CALLS;
    b.until("the timeline counts every message", || async {
        b.eval("return Number(document.querySelector('[data-testid=timeline-count]')?.dataset.count ?? 0)")
            .await
            .as_u64()
            .is_some_and(|n| n as usize >= at_least)
    })
    .await;
    let loaded = opened.elapsed();
    let shown = b.all("[data-testid=timeline-row]").await.len();
    assert!(
        shown < 120,
        "only the rows in view and a margin are in the page, not {shown}"
    );
    ui.shot("timeline-long").await;

    // It opens at the newest message and follows new traffic.
    let newest_call = b
        .eval(
            "const rows = [...document.querySelectorAll('[data-testid=timeline-row]')]; \
             return rows.some((r) => r.textContent.includes('tools/call result'));",
        )
        .await;
    assert_eq!(newest_call, json!(true), "the view is at the end");
    calls(CALLS, CALLS + 50).await;
    b.until("the count follows the stream", || async {
        b.eval(
            "return Number(document.querySelector('[data-testid=timeline-count]').dataset.count)",
        )
        .await
        .as_u64()
        .is_some_and(|n| n as usize >= 2 * (CALLS + 50))
    })
    .await;

    // The axis jumps to the start; Newest goes back to the end; the page stays small.
    b.eval(
        "const axis = document.querySelector('[data-testid=timeline-axis]'); \
         const box = axis.getBoundingClientRect(); \
         axis.dispatchEvent(new MouseEvent('click', { clientX: box.left + 2, clientY: box.top + 10, bubbles: true }));",
    )
    .await;
    b.css("[data-testid=timeline-row][data-kind=request][data-method=initialize]")
        .await;
    b.click("timeline-newest").await;
    b.until("Newest shows the end again", || async {
        b.all("[data-testid=timeline-row][data-method=initialize]")
            .await
            .is_empty()
    })
    .await;
    let shown = b.all("[data-testid=timeline-row]").await.len();
    assert!(shown < 120, "still windowed: {shown} rows");
    assert!(
        loaded < PATIENCE,
        "loading {at_least} messages took {loaded:?}"
    );
    client.cancel().await.ok();
    ui.browser.close().await;
}
