//! Cassettes in the app, against the real binary and the rmcp client: a server's captured
//! traffic downloaded as a cassette (`GET /servers/{server}/cassette`), a server created to
//! replay it (`replay` in the body, kept in `servers.json`), a recording converted into an
//! editable server (`POST /servers/{server}/cassette/convert`, `POST /cassettes/convert`),
//! and bad cassettes refused naming the field.

use crate::common;
use crate::common::app_process;

use app_process::{Running, Scratch};
use common::{PATIENCE, call, call_ok, connect, text};
use reqwest::StatusCode;
use reqwest::header::{CONTENT_DISPOSITION, CONTENT_TYPE};
use serde_json::{Value, json};

struct App {
    app: Running,
    dir: Scratch,
    http: reqwest::Client,
}

impl App {
    fn start(name: &str) -> App {
        let dir = Scratch::new(name);
        let app = Running::start(dir.path());
        App {
            http: app.api_client(),
            app,
            dir,
        }
    }

    async fn send(
        &self,
        method: reqwest::Method,
        path: &str,
        body: Option<Value>,
    ) -> (StatusCode, reqwest::header::HeaderMap, Value) {
        let mut request = self
            .http
            .request(method.clone(), format!("{}{path}", self.app.api()));
        if let Some(body) = body {
            request = request
                .header(CONTENT_TYPE, "application/json")
                .body(body.to_string());
        }
        let response = tokio::time::timeout(PATIENCE, request.send())
            .await
            .unwrap_or_else(|_| panic!("{method} {path}: no answer"))
            .unwrap_or_else(|e| panic!("{method} {path}: {e}"));
        let (status, headers) = (response.status(), response.headers().clone());
        let text = response.text().await.expect("a body");
        (
            status,
            headers,
            serde_json::from_str(&text).unwrap_or(Value::Null),
        )
    }

    async fn post(&self, path: &str, body: Value) -> (StatusCode, Value) {
        let (status, _, body) = self.send(reqwest::Method::POST, path, Some(body)).await;
        (status, body)
    }
}

/// A weather server over REST, and one rmcp session against it.
async fn recorded(app: &App) {
    let (status, body) = app
        .post(
            "/servers",
            json!({
                "name": "weather",
                "tools": [{
                    "name": "get_forecast",
                    "inputSchema": { "type": "object", "properties": { "city": { "type": "string" } } },
                    "template": { "content": [{ "type": "text", "text": "Forecast for ${args.city}: 14°C" }] }
                }],
                "resources": [{ "uri": "memo://readme", "name": "readme", "text": "Bring an umbrella." }]
            }),
        )
        .await;
    assert_eq!(status, StatusCode::CREATED, "{body}");
    let client = connect(&app.app.mcp_url("weather")).await;
    assert_eq!(common::tool_names(&client).await, ["get_forecast"]);
    assert_eq!(
        text(&call_ok(&client, "get_forecast", json!({ "city": "Paris" })).await),
        "Forecast for Paris: 14°C"
    );
    let _ = client.cancel().await;
}

#[tokio::test]
async fn a_servers_traffic_downloads_as_a_cassette_that_a_new_server_replays() {
    // Arrange
    let app = App::start("cassette-replay");
    recorded(&app).await;

    // Act: download, save to a file, host a replay of the file.
    let (status, headers, cassette) = app
        .send(reqwest::Method::GET, "/servers/weather/cassette", None)
        .await;
    assert_eq!(status, StatusCode::OK, "{cassette}");
    let path = app.dir.path().join("weather.cassette.json");
    std::fs::write(
        &path,
        serde_json::to_string_pretty(&cassette).expect("JSON"),
    )
    .expect("save");
    let path = path.to_string_lossy().into_owned();
    let (status, body) = app
        .post(
            "/servers",
            json!({ "name": "replayed", "replay": { "cassette": path } }),
        )
        .await;
    assert_eq!(status, StatusCode::CREATED, "{body}");
    let client = connect(&app.app.mcp_url("replayed")).await;
    let answer = call_ok(&client, "get_forecast", json!({ "city": "Paris" })).await;
    let missed = client
        .call_tool(call("get_forecast", json!({ "city": "Oslo" })))
        .await;
    let _ = client.cancel().await;

    // Assert
    assert_eq!(
        headers
            .get(CONTENT_DISPOSITION)
            .and_then(|v| v.to_str().ok()),
        Some("attachment; filename=\"weather.cassette.json\"")
    );
    assert_eq!(cassette["version"], 1);
    assert_eq!(
        cassette["server"]["initialize"]["serverInfo"]["name"],
        "weather"
    );
    assert_eq!(
        cassette["interactions"][1]["request"]["method"],
        "tools/call"
    );
    assert_eq!(text(&answer), "Forecast for Paris: 14°C");
    let error = missed.expect_err("Oslo was never recorded").to_string();
    assert!(
        error.contains(r#"/arguments/city: recorded "Paris", got "Oslo""#),
        "{error}"
    );
    let saved: Value = serde_json::from_str(
        &std::fs::read_to_string(app.dir.path().join("servers.json")).expect("servers.json"),
    )
    .expect("JSON");
    let replayed = saved["servers"]
        .as_array()
        .and_then(|s| s.iter().find(|s| s["name"] == "replayed"))
        .cloned();
    assert_eq!(
        replayed.map(|s| s["replay"].clone()),
        Some(json!({ "cassette": path }))
    );
}

#[tokio::test]
async fn a_recording_converts_into_an_editable_server() {
    // Arrange
    let app = App::start("cassette-convert");
    recorded(&app).await;

    // Act
    let (status, spec) = app
        .post(
            "/servers/weather/cassette/convert",
            json!({ "name": "weather-mock" }),
        )
        .await;
    let client = connect(&app.app.mcp_url("weather-mock")).await;
    let answer = call_ok(&client, "get_forecast", json!({ "city": "Paris" })).await;
    let _ = client.cancel().await;

    // Assert: the tool answers the recorded call, and is an ordinary tool to edit.
    assert_eq!(status, StatusCode::CREATED, "{spec}");
    assert_eq!(text(&answer), "Forecast for Paris: 14°C");
    assert_eq!(
        spec["tools"][0]["responses"][0]["when"],
        json!({ "arguments": { "city": "Paris" } })
    );
    let (status, _, tool) = app
        .send(
            reqwest::Method::GET,
            "/servers/weather-mock/tools/get_forecast",
            None,
        )
        .await;
    assert_eq!(status, StatusCode::OK, "{tool}");
    assert_eq!(tool["inputSchema"]["properties"]["city"]["type"], "string");
    // An uploaded cassette converts too; a taken name is a conflict.
    let (_, _, cassette) = app
        .send(reqwest::Method::GET, "/servers/weather/cassette", None)
        .await;
    let (status, body) = app
        .post(
            "/cassettes/convert",
            json!({ "name": "uploaded", "cassette": cassette }),
        )
        .await;
    assert_eq!(status, StatusCode::CREATED, "{body}");
    let (status, body) = app
        .post(
            "/cassettes/convert",
            json!({ "name": "uploaded", "cassette": cassette }),
        )
        .await;
    assert_eq!(status, StatusCode::CONFLICT, "{body}");
}

#[tokio::test]
async fn bad_cassettes_are_refused_naming_the_field() {
    let app = App::start("cassette-bad");

    let (status, missing) = app
        .post(
            "/servers",
            json!({ "name": "gone", "replay": { "cassette": "/nonexistent/weather.json" } }),
        )
        .await;
    let (inline_status, inline) = app
        .post(
            "/servers",
            json!({ "name": "inline", "replay": { "cassette": { "version": 1, "tapes": [] } } }),
        )
        .await;
    let (convert_status, convert) = app
        .post(
            "/cassettes/convert",
            json!({ "name": "x", "cassette": { "version": 3 } }),
        )
        .await;
    let (member_status, member) = app
        .post("/cassettes/convert", json!({ "name": "x", "cassete": {} }))
        .await;
    // A device would be read forever and a FIFO would block the open (and with it every
    // later write to the config): neither is read.
    let fifo = std::env::temp_dir().join(format!("mcp-decoy-cassette-fifo-{}", std::process::id()));
    let _ = std::fs::remove_file(&fifo);
    let made = std::process::Command::new("mkfifo")
        .arg(&fifo)
        .status()
        .expect("run mkfifo");
    assert!(made.success(), "mkfifo {}", fifo.display());
    let mut not_files = Vec::new();
    for (name, path) in [
        ("zero", "/dev/zero"),
        ("fifo", fifo.to_str().expect("utf-8")),
    ] {
        let (status, body) = app
            .post(
                "/servers",
                json!({ "name": name, "replay": { "cassette": path } }),
            )
            .await;
        not_files.push((path.to_string(), status, body));
    }
    let _ = std::fs::remove_file(&fifo);

    assert_eq!(status, StatusCode::BAD_REQUEST, "{missing}");
    assert_eq!(missing["field"], "replay.cassette", "{missing}");
    assert!(
        missing["detail"].as_str().is_some_and(
            |d| d.contains("/nonexistent/weather.json") && d.contains("cannot be read")
        ),
        "{missing}"
    );
    assert_eq!(inline_status, StatusCode::BAD_REQUEST, "{inline}");
    assert!(
        inline["detail"]
            .as_str()
            .is_some_and(|d| d.contains("unknown field `tapes`")),
        "{inline}"
    );
    assert_eq!(convert_status, StatusCode::BAD_REQUEST, "{convert}");
    assert_eq!(convert["field"], "cassette.version", "{convert}");
    assert_eq!(member_status, StatusCode::BAD_REQUEST, "{member}");
    assert!(
        member["detail"]
            .as_str()
            .is_some_and(|d| d.contains("cassete")),
        "{member}"
    );
    for (path, status, body) in not_files {
        assert_eq!(status, StatusCode::BAD_REQUEST, "{path}: {body}");
        assert_eq!(body["field"], "replay.cassette", "{path}: {body}");
        assert!(
            body["detail"]
                .as_str()
                .is_some_and(|d| d.contains(&path) && d.contains("not a regular file")),
            "{path}: {body}"
        );
    }
    let (_, _, servers) = app.send(reqwest::Method::GET, "/servers", None).await;
    assert_eq!(
        servers.as_array().map(Vec::len),
        Some(1),
        "nothing was created: {servers}"
    );
}

#[tokio::test]
async fn a_server_in_servers_json_replays_its_cassette_file() {
    // Arrange: a cassette recorded with the library, and a servers.json that replays it.
    let dir = Scratch::new("cassette-file");
    let original = mcp_decoy::MockMcpServer::builder()
        .tool(mcp_decoy::Tool::new("get_forecast").respond_with(
            json!({ "content": [{ "type": "text", "text": "Rain in ${args.city}" }] }),
        ))
        .start()
        .await;
    let client = connect(&original.url()).await;
    call_ok(&client, "get_forecast", json!({ "city": "Bergen" })).await;
    let _ = client.cancel().await;
    let cassette = dir.path().join("bergen.json");
    original.log().to_cassette().save(&cassette).expect("save");
    drop(original);
    let servers = json!({ "servers": [{
        "name": "replayed",
        "replay": { "cassette": cassette.to_string_lossy(), "matching": { "order": "strict" } }
    }] });
    std::fs::write(dir.path().join("servers.json"), servers.to_string()).expect("servers.json");

    // Act
    let app = Running::start(dir.path());
    let client = connect(&app.mcp_url("replayed")).await;
    let answer = call_ok(&client, "get_forecast", json!({ "city": "Bergen" })).await;
    let again = client
        .call_tool(call("get_forecast", json!({ "city": "Bergen" })))
        .await;
    let _ = client.cancel().await;

    // Assert: strict order answers each interaction once.
    assert_eq!(text(&answer), "Rain in Bergen");
    let error = again.expect_err("strict order answers once").to_string();
    assert!(error.contains("no recorded interaction matches"), "{error}");
}
