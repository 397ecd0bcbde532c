//! Tool responses in the app: the REST API creates and patches a tool's `responses`, saves
//! them in `servers.json`, serves them to a real client, and refuses a bad one with a
//! problem naming the field; `servers.json` itself is checked the same way.

use crate::common;
use crate::common::app_process;

use app_process::{Running, Scratch};
use common::{PATIENCE, call_ok, connect, text};
use reqwest::header::CONTENT_TYPE;
use reqwest::{Method, StatusCode};
use serde_json::{Value, json};

/// One running app with a scratch config directory.
struct Api {
    app: Running,
    dir: Scratch,
    http: reqwest::Client,
}

impl Api {
    fn start(name: &str) -> Api {
        let dir = Scratch::new(name);
        let app = Running::start(dir.path());
        let http = app.api_client();
        Api { app, dir, http }
    }

    /// Sends `body` to `path` with `method`; returns the status and the JSON body.
    async fn send(&self, method: Method, path: &str, body: Value) -> (StatusCode, Value) {
        let what = format!("{method} {path}");
        let request = self
            .http
            .request(method, format!("{}{path}", self.app.api()))
            .header(CONTENT_TYPE, "application/json")
            .body(body.to_string());
        let response = tokio::time::timeout(PATIENCE, request.send())
            .await
            .unwrap_or_else(|_| panic!("{what}: no answer within {PATIENCE:?}"))
            .unwrap_or_else(|e| panic!("{what}: the request failed: {e}"));
        let status = response.status();
        let body = response
            .json()
            .await
            .unwrap_or_else(|e| panic!("{what}: the body is not JSON: {e}"));
        (status, body)
    }

    /// Checks that the answer is a `400` problem naming `field`; returns its detail.
    async fn refused(&self, method: Method, path: &str, body: Value, field: &str) -> String {
        let (status, problem) = self.send(method, path, body).await;
        assert_eq!(status, StatusCode::BAD_REQUEST, "{problem}");
        assert_eq!(problem["field"], field, "the field at fault: {problem}");
        problem["detail"].as_str().expect("a detail").to_string()
    }

    /// The tool `tool` of server `echo` as `servers.json` holds it.
    fn saved_tool(&self, tool: &str) -> Value {
        let path = self.dir.path().join("servers.json");
        let text = std::fs::read_to_string(&path).expect("read servers.json");
        let saved: Value = serde_json::from_str(&text).expect("servers.json is JSON");
        saved["servers"][0]["tools"]
            .as_array()
            .expect("tools")
            .iter()
            .find(|t| t["name"] == tool)
            .cloned()
            .unwrap_or_else(|| panic!("`{tool}` is not saved: {saved}"))
    }
}

fn text_result(text: &str) -> Value {
    json!({ "content": [{ "type": "text", "text": text }] })
}

#[tokio::test]
async fn responses_created_and_patched_over_rest_are_saved_and_answer_calls() {
    // Arrange
    let api = Api::start("responses-rest");
    let responses = json!([
        { "when": { "equals": { "pointer": "/city", "value": "Paris" } }, "result": text_result("Sunny") },
        { "when": { "all": [
            { "regex": { "pointer": "/city", "pattern": "^O" } },
            { "compare": { "pointer": "/days", "op": "gt", "value": 3.0 } }
        ] }, "result": text_result("Too far ahead") },
    ]);

    // Act
    let (status, created) = api
        .send(
            Method::POST,
            "/servers/echo/tools",
            json!({ "name": "forecast", "published": true, "responses": responses,
                "template": text_result("Rain in ${args.city}") }),
        )
        .await;

    // Assert
    assert_eq!(status, StatusCode::CREATED, "{created}");
    assert_eq!(created["responses"], responses);
    assert_eq!(api.saved_tool("forecast")["responses"], responses);
    let client = connect(&api.app.mcp_url("echo")).await;
    let paris = call_ok(&client, "forecast", json!({ "city": "Paris" })).await;
    assert_eq!(text(&paris), "Sunny");
    let far = call_ok(&client, "forecast", json!({ "city": "Oslo", "days": 5 })).await;
    assert_eq!(text(&far), "Too far ahead");
    let near = call_ok(&client, "forecast", json!({ "city": "Oslo", "days": 1 })).await;
    assert_eq!(
        text(&near),
        "Rain in Oslo",
        "no response holds: the template"
    );

    // Act: a PATCH replaces the responses whole; `null` clears them.
    let patched = json!([{ "times": 1, "result": text_result("First!") }]);
    let (status, body) = api
        .send(
            Method::PATCH,
            "/servers/echo/tools/forecast",
            json!({ "responses": patched }),
        )
        .await;
    assert_eq!(status, StatusCode::OK, "{body}");
    assert_eq!(api.saved_tool("forecast")["responses"], patched);
    let first = call_ok(&client, "forecast", json!({ "city": "Paris" })).await;
    assert_eq!(text(&first), "First!");
    let second = call_ok(&client, "forecast", json!({ "city": "Paris" })).await;
    assert_eq!(text(&second), "Rain in Paris", "used up: the template");
    let (status, body) = api
        .send(
            Method::PATCH,
            "/servers/echo/tools/forecast",
            json!({ "responses": null }),
        )
        .await;
    assert_eq!(status, StatusCode::OK, "{body}");
    assert!(api.saved_tool("forecast").get("responses").is_none());
    client.cancel().await.expect("the client closes");
}

#[tokio::test]
async fn bad_responses_are_refused_with_a_problem_naming_the_field() {
    // Arrange
    let api = Api::start("responses-refused");
    let tool = |responses: Value| json!({ "name": "t", "responses": responses });
    let post = Method::POST;
    let tools = "/servers/echo/tools";

    // Act + Assert: the engine's checks.
    let detail = api
        .refused(
            post.clone(),
            tools,
            tool(json!([{ "result": text_result("ok") },
                { "when": { "any": [{ "regex": { "pointer": "/q", "pattern": "(" } }] } }])),
            "responses[1].when.any[0].regex.pattern",
        )
        .await;
    assert!(detail.contains("regular expression"), "{detail}");
    api.refused(
        post.clone(),
        tools,
        tool(json!([{ "when": { "present": "city" } }])),
        "responses[0].when.present",
    )
    .await;
    api.refused(
        post.clone(),
        tools,
        tool(json!([{ "times": 0 }])),
        "responses[0].times",
    )
    .await;
    api.refused(
        post.clone(),
        tools,
        tool(json!([{ "delay": { "min_ms": 9, "max_ms": 1 } }])),
        "responses[0].delay.min_ms",
    )
    .await;
    api.refused(
        post.clone(),
        tools,
        tool(json!([{ "result": text_result("a"), "fault": { "kind": "malformed_json" } }])),
        "responses[0]",
    )
    .await;
    api.refused(
        post.clone(),
        tools,
        tool(json!([{ "result": { "$if": "1 +" } }])),
        "responses[0].result",
    )
    .await;
    let detail = api
        .refused(
            post.clone(),
            tools,
            tool(json!([{ "fault": { "kind": "http", "status": 42 } }])),
            "responses[0].fault.status",
        )
        .await;
    assert!(detail.contains("42"), "{detail}");
    // The shape itself, refused while decoding.
    api.refused(
        post.clone(),
        tools,
        tool(json!([{ "when": { "sounds_like": "/city" } }])),
        "responses[0].when",
    )
    .await;

    // A PATCH is checked the same way and changes nothing when refused.
    let (status, body) = api
        .send(post, tools, json!({ "name": "ok", "published": true }))
        .await;
    assert_eq!(status, StatusCode::CREATED, "{body}");
    let before = api.saved_tool("ok");
    api.refused(
        Method::PATCH,
        "/servers/echo/tools/ok",
        json!({ "responses": [{ "when": { "not": { "compare": { "pointer": "n", "op": "lt", "value": 1 } } } }] }),
        "responses[0].when.not.compare.pointer",
    )
    .await;
    assert_eq!(api.saved_tool("ok"), before);
}

#[test]
fn a_servers_json_with_a_bad_response_names_the_server_tool_and_field() {
    // Arrange
    let document = json!({ "servers": [{ "name": "s", "tools": [
        { "name": "fine" },
        { "name": "search", "responses": [{ "when": { "regex": { "pointer": "/q", "pattern": "[" } } }] }
    ] }] });

    // Act
    let problems = mcp_decoy::cli::config::check(&document).expect_err("a bad pattern");

    // Assert
    let text: Vec<String> = problems.iter().map(ToString::to_string).collect();
    assert!(
        text.iter().any(|p| p.starts_with("/servers/0:")
            && p.contains("tool `search`")
            && p.contains("responses[0].when.regex.pattern")),
        "{text:?}"
    );
}

#[test]
fn a_servers_json_with_responses_passes_the_shipped_schema_and_the_rules() {
    // The README's example, plus the other kinds of condition and delay.
    let document = json!({ "servers": [{ "name": "s", "seed": 7, "tools": [{ "name": "fetch", "responses": [
        { "times": 2, "fault": { "kind": "error", "code": -32603, "message": "backend unavailable" } },
        { "when": { "regex": { "pointer": "/url", "pattern": "^https://" } },
          "delay": { "min_ms": 5, "max_ms": 50 },
          "result": { "content": [{ "type": "text", "text": "fetched ${args.url}" }] } },
        { "when": { "all": [{ "present": "/url" }, { "compare": { "pointer": "/retries", "op": "gt", "value": 3 } }] },
          "fault": { "kind": "http", "status": 429, "headers": [["Retry-After", "2"]] } },
        { "when": { "any": [{ "absent": "/q" }, { "not": { "equals": { "pointer": "", "value": {} } } }] },
          "delay": { "ms": 10 }, "result": text_result("no query") },
        { "when": { "arguments": { "q": "x" } } }
    ] }] }] });
    let config = mcp_decoy::cli::config::check(&document).expect("a valid document");
    assert_eq!(config.servers[0].tools[0].responses.len(), 5);
}

/// Server-level fault rules, session expiry and the seed are server settings over REST too:
/// saved in `servers.json`, served to a real client, and a bad rule is refused naming it.
#[tokio::test]
async fn fault_rules_patched_over_rest_are_saved_and_fire_for_a_real_client() {
    // Arrange
    let api = Api::start("faults-rest");
    let rules = json!([
        { "method": "tools/list", "times": 1, "fault": { "kind": "http", "status": 503 } }
    ]);

    // Act
    let (status, patched) = api
        .send(
            Method::PATCH,
            "/servers/echo",
            json!({ "faults": rules, "seed": 7, "sessionExpiry": { "afterRequests": 100 } }),
        )
        .await;

    // Assert
    assert_eq!(status, StatusCode::OK, "{patched}");
    let file = std::fs::read_to_string(api.dir.path().join("servers.json")).expect("read");
    let saved: Value = serde_json::from_str(&file).expect("servers.json is JSON");
    assert_eq!(saved["servers"][0]["faults"], rules);
    assert_eq!(saved["servers"][0]["seed"], 7);
    assert_eq!(saved["servers"][0]["sessionExpiry"]["afterRequests"], 100);
    let client = connect(&api.app.mcp_url("echo")).await;
    let first = client.list_all_tools().await;
    assert!(
        first.is_err(),
        "the first tools/list gets the 503: {first:?}"
    );
    let second = client.list_all_tools().await.expect("the rule fired once");
    assert!(second.iter().any(|t| t.name == "echo"));
    let echoed = call_ok(&client, "echo", json!({ "message": "still fine" })).await;
    assert_eq!(text(&echoed), "still fine");

    let detail = api
        .refused(
            Method::PATCH,
            "/servers/echo",
            json!({ "faults": [{ "fault": { "kind": "http", "status": 42 } }] }),
            "faults[0].fault.status",
        )
        .await;
    assert!(detail.contains("42"), "{detail}");
}

#[test]
fn a_servers_json_with_a_bad_fault_rule_points_at_the_member() {
    // Arrange
    let document = json!({ "servers": [{ "name": "s", "faults": [
        { "method": "ping" },
        { "fault": { "kind": "http", "status": 503, "headers": [["Retry-After", "1\n2"]] } }
    ] }] });

    // Act
    let problems = mcp_decoy::cli::config::check(&document).expect_err("a bad header value");

    // Assert
    let text: Vec<String> = problems.iter().map(ToString::to_string).collect();
    assert!(
        text.iter()
            .any(|p| p.starts_with("/servers/0/faults/1/fault/headers/0:")
                && p.contains("`faults[1].fault.headers[0]`")),
        "{text:?}"
    );
}

/// Renaming a tool over REST keeps its place in its response sequence, as the fixture's
/// `rename_tool` does: the used-up first response does not answer again.
#[tokio::test]
async fn a_rest_rename_keeps_the_tools_place_in_its_sequence() {
    // Arrange
    let api = Api::start("responses-rename");
    let (status, created) = api
        .send(
            Method::POST,
            "/servers/echo/tools",
            json!({ "name": "flaky", "published": true, "responses": [
                { "times": 1, "result": text_result("first") },
                { "result": text_result("then") }
            ] }),
        )
        .await;
    assert_eq!(status, StatusCode::CREATED, "{created}");
    let client = connect(&api.app.mcp_url("echo")).await;
    assert_eq!(text(&call_ok(&client, "flaky", json!({})).await), "first");

    // Act
    let (status, renamed) = api
        .send(
            Method::PATCH,
            "/servers/echo/tools/flaky",
            json!({ "name": "steady" }),
        )
        .await;

    // Assert
    assert_eq!(status, StatusCode::OK, "{renamed}");
    assert_eq!(text(&call_ok(&client, "steady", json!({})).await), "then");
}
