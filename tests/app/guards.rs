//! A hosted server's guards and capability manifest in the `mcp-decoy` app, against the real
//! binary: `apiKeys`, `allowedHosts` and `manifest` set over the REST API and in
//! `servers.json`, problems naming the entry at fault, keys that change without ending
//! sessions, a Host check that stays off until hosts are listed (the guide sends tunnels to
//! the MCP port), the manifest at `/s/NAME/.well-known/mcp-server.json`, a UI port that
//! no MCP guard touches, and the connection limits of both listeners (`--header-timeout`,
//! `--idle-timeout`, `--max-connections`).

use crate::common;
use crate::common::app_process;
use crate::common::wire;

use app_process::{Running, Scratch, command_in, free_ports, run_to_exit};
use common::{PATIENCE, call_ok, client_config, connect, text};
use reqwest::header::{AUTHORIZATION, CONTENT_TYPE, HOST};
use reqwest::{Method, StatusCode};
use rmcp::ServiceExt;
use rmcp::transport::StreamableHttpClientTransport;
use rmcp::transport::streamable_http_client::StreamableHttpClientTransportConfig;
use serde_json::{Value, json};
use tokio::time::Instant;
use wire::Wire;

/// One running app and an HTTP client for its API.
struct App {
    app: Running,
    dir: Scratch,
    http: reqwest::Client,
}

impl App {
    fn start(name: &str) -> App {
        let dir = Scratch::new(name);
        let app = Running::start(dir.path());
        let http = app.api_client();
        App { app, dir, http }
    }

    /// Calls the API; returns the status and the JSON body (`null` when empty).
    async fn api(&self, method: Method, path: &str, body: Option<Value>) -> (StatusCode, Value) {
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
            .unwrap_or_else(|_| panic!("{method} {path}: no answer within {PATIENCE:?}"))
            .unwrap_or_else(|e| panic!("{method} {path}: {e}"));
        let status = response.status();
        let bytes = response.bytes().await.expect("read the body");
        let body = if bytes.is_empty() {
            Value::Null
        } else {
            serde_json::from_slice(&bytes).expect("a JSON body")
        };
        (status, body)
    }

    async fn patch(&self, path: &str, body: Value) -> (StatusCode, Value) {
        self.api(Method::PATCH, path, Some(body)).await
    }

    /// The server as `servers.json` holds it now.
    fn saved_server(&self, name: &str) -> Value {
        let path = self.dir.path().join("servers.json");
        let text = std::fs::read_to_string(&path).expect("read servers.json");
        let saved: Value = serde_json::from_str(&text).expect("servers.json is JSON");
        saved["servers"]
            .as_array()
            .expect("a servers array")
            .iter()
            .find(|s| s["name"] == name)
            .cloned()
            .unwrap_or_else(|| panic!("no server `{name}` in servers.json"))
    }

    /// The HTTP statuses the server's log captured, oldest first.
    async fn captured_statuses(&self, server: &str) -> Vec<u64> {
        let (status, body) = self
            .api(
                Method::GET,
                &format!("/servers/{server}/logs?limit=1000"),
                None,
            )
            .await;
        assert_eq!(status, StatusCode::OK, "{body}");
        let mut statuses: Vec<u64> = body["records"]
            .as_array()
            .expect("records")
            .iter()
            .filter(|r| r["layer"] == "http")
            .filter_map(|r| r["status"].as_u64())
            .collect();
        statuses.reverse();
        statuses
    }
}

/// A raw `initialize` POST with extra headers; returns the status.
async fn initialize(url: &str, headers: &[(reqwest::header::HeaderName, &str)]) -> StatusCode {
    let mut request = reqwest::Client::new()
        .post(url)
        .header("content-type", "application/json")
        .header("accept", "application/json, text/event-stream");
    for (name, value) in headers {
        request = request.header(name, *value);
    }
    request
        .body(
            json!({ "jsonrpc": "2.0", "id": 1, "method": "initialize", "params": {
                "protocolVersion": "2025-11-25", "capabilities": {},
                "clientInfo": { "name": "raw", "version": "1" } } })
            .to_string(),
        )
        .send()
        .await
        .expect("the initialize POST is sent")
        .status()
}

#[tokio::test]
async fn api_keys_set_over_rest_guard_the_mcp_endpoint_without_ending_sessions() {
    let app = App::start("guards-keys");
    let url = app.app.mcp_url("echo");
    let client = connect(&url).await;
    call_ok(&client, "echo", json!({ "message": "open" })).await;

    let (status, detail) = app
        .patch("/servers/echo", json!({ "apiKeys": ["k1", "k2"] }))
        .await;
    assert_eq!(status, StatusCode::OK, "{detail}");
    assert_eq!(detail["apiKeys"], json!(["k1", "k2"]));
    assert_eq!(
        detail["sessions"],
        json!(1),
        "a change to the keys alone keeps sessions"
    );
    assert_eq!(app.saved_server("echo")["apiKeys"], json!(["k1", "k2"]));

    // The session's next request needs a key now.
    let arguments = json!({ "message": "locked" }).as_object().cloned();
    let refused = client
        .call_tool(
            rmcp::model::CallToolRequestParams::new("echo")
                .with_arguments(arguments.expect("an object")),
        )
        .await
        .expect_err("the keyless client is refused");
    assert!(
        format!("{refused:?}").contains("AuthRequired"),
        "{refused:?}"
    );
    assert_eq!(initialize(&url, &[]).await, StatusCode::UNAUTHORIZED);
    assert_eq!(
        initialize(&url, &[(AUTHORIZATION, "Bearer k3")]).await,
        StatusCode::UNAUTHORIZED
    );

    // A client with a key works; the UI port never asks for one.
    let config = StreamableHttpClientTransportConfig::with_uri(url.clone()).auth_header("k2");
    let keyed = client_config()
        .serve(StreamableHttpClientTransport::from_config(config))
        .await
        .expect("a client with a key connects");
    let result = call_ok_keyed(&keyed, "keyed").await;
    assert_eq!(result, "keyed");
    let (status, _) = app.api(Method::GET, "/servers", None).await;
    assert_eq!(status, StatusCode::OK);

    let statuses = app.captured_statuses("echo").await;
    assert_eq!(
        statuses.iter().filter(|s| **s == 401).count(),
        3,
        "every refusal is in the log: {statuses:?}"
    );

    // `null` turns the check off again.
    let (status, detail) = app.patch("/servers/echo", json!({ "apiKeys": null })).await;
    assert_eq!(status, StatusCode::OK, "{detail}");
    assert_eq!(detail.get("apiKeys"), None);
    assert_eq!(initialize(&url, &[]).await, StatusCode::OK);
    keyed.cancel().await.expect("the client closes");
}

async fn call_ok_keyed(
    client: &rmcp::service::RunningService<rmcp::RoleClient, rmcp::model::ClientConfig>,
    message: &str,
) -> String {
    let arguments = json!({ "message": message }).as_object().cloned();
    let result = client
        .call_tool(
            rmcp::model::CallToolRequestParams::new("echo")
                .with_arguments(arguments.expect("an object")),
        )
        .await
        .expect("the call succeeds");
    result.content[0]
        .as_text()
        .map(|t| t.text.clone())
        .expect("a text block")
}

#[tokio::test]
async fn bad_guard_settings_are_problems_naming_the_entry() {
    let app = App::start("guards-problems");

    for (body, field, says) in [
        (
            json!({ "apiKeys": ["ok", "has space"] }),
            "apiKeys[1]",
            "visible ASCII",
        ),
        (
            json!({ "apiKeys": ["same", "same"] }),
            "apiKeys[1]",
            "repeats apiKeys[0]",
        ),
        (
            json!({ "apiKeys": [""] }),
            "apiKeys[0]",
            "must not be empty",
        ),
        (
            json!({ "allowedHosts": ["https://x.test"] }),
            "allowedHosts[0]",
            "URL",
        ),
        (json!({ "apiKeys": "k1" }), "apiKeys", "sequence"),
        (json!({ "manifest": "yes" }), "manifest", "boolean"),
    ] {
        let (status, problem) = app.patch("/servers/echo", body.clone()).await;
        assert_eq!(status, StatusCode::BAD_REQUEST, "{body}: {problem}");
        assert_eq!(problem["field"], json!(field), "{body}: {problem}");
        let detail = problem["detail"].as_str().expect("a detail");
        assert!(detail.contains(says), "{body}: {detail}");
    }
    let (status, problem) = app
        .api(
            Method::POST,
            "/servers",
            Some(json!({ "name": "locked", "allowedHosts": ["a.test", "bad host"] })),
        )
        .await;
    assert_eq!(status, StatusCode::BAD_REQUEST, "{problem}");
    assert_eq!(problem["field"], json!("allowedHosts[1]"));
    assert!(
        app.saved_server("echo").get("apiKeys").is_none(),
        "nothing was saved"
    );
}

// The product guide, "Connect a client on another host": a tunnel in front of the MCP port
// forwards the tunnel's own Host. On a loopback bind the MCP port answers loopback names only
// until the tunnel's name is listed (issue 41: a DNS-rebinding page reached every server,
// and through a relay the upstream's), so conformance `dns-rebinding-protection` holds by
// default.
#[tokio::test]
async fn the_app_refuses_other_hosts_on_loopback_until_a_tunnel_is_listed() {
    let app = App::start("guards-hosts");
    let url = app.app.mcp_url("echo");
    let local = format!("localhost:{}", app.app.mcp_port);

    for (host, expected) in [
        ("abc-def.trycloudflare.com", StatusCode::FORBIDDEN),
        ("evil.example", StatusCode::FORBIDDEN),
        (local.as_str(), StatusCode::OK),
    ] {
        assert_eq!(
            initialize(&url, &[(HOST, host)]).await,
            expected,
            "Host {host} before the tunnel is listed"
        );
    }

    let (status, detail) = app
        .patch(
            "/servers/echo",
            json!({ "allowedHosts": ["*.trycloudflare.com"] }),
        )
        .await;
    assert_eq!(status, StatusCode::OK, "{detail}");
    assert_eq!(
        app.saved_server("echo")["allowedHosts"],
        json!(["*.trycloudflare.com"])
    );
    for (host, expected) in [
        ("abc-def.trycloudflare.com", StatusCode::OK),
        (local.as_str(), StatusCode::OK),
        ("127.0.0.1", StatusCode::OK),
        ("evil.example", StatusCode::FORBIDDEN),
        ("trycloudflare.com", StatusCode::FORBIDDEN),
    ] {
        assert_eq!(
            initialize(&url, &[(HOST, host)]).await,
            expected,
            "Host {host}"
        );
    }
    assert_eq!(
        app.captured_statuses("echo")
            .await
            .iter()
            .filter(|s| **s == 403)
            .count(),
        4
    );
    let (status, _) = app.api(Method::GET, "/servers/echo", None).await;
    assert_eq!(status, StatusCode::OK, "the UI port is untouched");
}

#[tokio::test]
async fn the_manifest_is_served_beside_the_server_url_when_on() {
    let app = App::start("guards-manifest");
    let manifest_url = format!(
        "http://localhost:{}/s/echo/.well-known/mcp-server.json",
        app.app.mcp_port
    );
    let off = reqwest::get(&manifest_url).await.expect("GET the manifest");
    assert_eq!(off.status(), StatusCode::NOT_FOUND);

    let (status, detail) = app
        .patch(
            "/servers/echo",
            json!({ "manifest": true, "apiKeys": ["k1"] }),
        )
        .await;
    assert_eq!(status, StatusCode::OK, "{detail}");
    assert_eq!(detail["manifestUrl"], json!(manifest_url));
    assert_eq!(app.saved_server("echo")["manifest"], json!(true));

    // Discovery needs no key.
    let manifest: Value = reqwest::get(&manifest_url)
        .await
        .expect("GET the manifest")
        .json()
        .await
        .expect("a JSON manifest");
    assert_eq!(manifest["serverInfo"]["name"], json!("echo"));
    assert_eq!(
        manifest["transport"],
        json!({ "type": "streamable-http", "endpoint": "/s/echo/mcp", "url": app.app.mcp_url("echo") })
    );
    assert_eq!(manifest["authentication"]["required"], json!(true));
    let names = |m: &Value| -> Vec<String> {
        m["tools"]
            .as_array()
            .expect("tools")
            .iter()
            .map(|t| t["name"].as_str().expect("a name").to_string())
            .collect()
    };
    assert_eq!(names(&manifest), ["echo"]);

    // It follows the catalog: a new published tool appears, a draft does not.
    for (name, published) in [("shout", true), ("draft", false)] {
        let (status, body) = app
            .api(
                Method::POST,
                "/servers/echo/tools",
                Some(json!({ "name": name, "published": published })),
            )
            .await;
        assert_eq!(status, StatusCode::CREATED, "{body}");
    }
    let manifest: Value = reqwest::get(&manifest_url)
        .await
        .expect("GET the manifest")
        .json()
        .await
        .expect("a JSON manifest");
    assert_eq!(names(&manifest), ["echo", "shout"]);

    let unknown = reqwest::get(format!(
        "http://localhost:{}/s/nope/.well-known/mcp-server.json",
        app.app.mcp_port
    ))
    .await
    .expect("GET an unknown server's manifest");
    assert_eq!(unknown.status(), StatusCode::NOT_FOUND);
    let statuses = app.captured_statuses("echo").await;
    assert_eq!(
        statuses,
        [404, 200, 200],
        "the manifest GETs are in the log"
    );
}

#[tokio::test]
async fn the_openapi_document_describes_the_guard_settings() {
    let app = App::start("guards-openapi");
    let (status, document) = app.api(Method::GET, "/openapi.json", None).await;
    assert_eq!(status, StatusCode::OK);
    let schemas = &document["components"]["schemas"];
    for schema in ["ServerPatch", "ServerSpec"] {
        for field in ["apiKeys", "allowedHosts", "manifest"] {
            assert!(
                schemas[schema]["properties"].get(field).is_some(),
                "{schema} documents {field}"
            );
        }
    }
    assert!(
        schemas["ServerDetail"]["properties"]
            .get("manifestUrl")
            .is_some()
    );
}

#[test]
fn a_servers_json_with_a_bad_key_names_its_pointer() {
    let dir = Scratch::new("guards-file");
    let file = json!({ "servers": [
        { "name": "ok" },
        { "name": "locked", "apiKeys": ["fine", "not fine"], "allowedHosts": ["/path"] }
    ] });
    std::fs::write(
        dir.path().join("servers.json"),
        serde_json::to_string_pretty(&file).expect("JSON"),
    )
    .expect("write servers.json");
    let (mcp, ui) = free_ports();

    let out = run_to_exit(command_in(dir.path(), mcp, ui));

    assert!(!out.status.success());
    for says in ["/servers/1/apiKeys/1", "/servers/1/allowedHosts/0"] {
        assert!(out.stderr.contains(says), "{says} in:\n{}", out.stderr);
    }
}

#[tokio::test]
async fn a_keyless_client_of_an_open_server_is_unaffected() {
    let app = App::start("guards-open");
    let client = connect(&app.app.mcp_url("echo")).await;
    let result = call_ok(&client, "echo", json!({ "message": "hi" })).await;
    assert_eq!(text(&result), "hi");
    client.cancel().await.expect("the client closes");
}

// ---------------------------------------------------------------------------------------
// Connection limits on both listeners

const INITIALIZE: &str = r#"{"jsonrpc":"2.0","id":1,"method":"initialize","params":{"protocolVersion":"2025-11-25","capabilities":{},"clientInfo":{"name":"wire","version":"1"}}}"#;

/// The app in a fresh directory, started with `flags`.
fn start_with(name: &str, flags: &[&str]) -> (Running, Scratch) {
    let dir = Scratch::new(name);
    let (mcp, ui) = free_ports();
    let mut command = command_in(dir.path(), mcp, ui);
    command.args(flags);
    (Running::spawn(command, mcp, ui), dir)
}

#[tokio::test]
async fn the_timeout_flags_close_stalled_and_idle_connections_on_both_listeners() {
    // Arrange
    let (app, _dir) = start_with(
        "conn-timeouts",
        &["--header-timeout", "0.5", "--idle-timeout", "1"],
    );
    let mcp = format!("127.0.0.1:{}", app.mcp_port);
    let ui = format!("127.0.0.1:{}", app.ui_port);

    // Act: half a header on the MCP port; one answered request, then silence, on the UI port.
    let started = Instant::now();
    let mut stalled = Wire::connect(&mcp).await;
    stalled
        .send(b"POST /s/echo/mcp HTTP/1.1\r\nhost: localhost\r\n")
        .await;
    let mut idle = Wire::connect(&ui).await;
    let bearer = format!("Bearer {}", app.api_token);
    idle.request("GET", "/api/v1/servers", &[("authorization", &bearer)], "")
        .await;
    let answer = idle.response().await;
    assert_eq!(answer.status, 200, "{answer:?}");
    let answered = Instant::now();

    // Assert: both closed, not before their timeouts.
    let (_, closed_at) = stalled.closed().await;
    assert!(
        closed_at - started >= std::time::Duration::from_millis(250),
        "the stalled connection closed after {:?}",
        closed_at - started
    );
    let (_, closed_at) = idle.closed().await;
    assert!(
        closed_at - answered >= std::time::Duration::from_millis(500),
        "the idle connection closed after {:?}",
        closed_at - answered
    );
}

#[tokio::test]
async fn max_connections_refuses_a_connection_past_the_cap_with_503_naming_the_flag() {
    // Arrange: two connections hold both places of the MCP listener.
    let (app, _dir) = start_with("conn-cap", &["--max-connections", "2"]);
    let mcp = format!("127.0.0.1:{}", app.mcp_port);
    let mut first = Wire::connect(&mcp).await;
    first.post_json("/s/echo/mcp", &[], INITIALIZE).await;
    assert_eq!(first.response().await.status, 200);
    let mut second = Wire::connect(&mcp).await;
    second.post_json("/s/echo/mcp", &[], INITIALIZE).await;
    assert_eq!(second.response().await.status, 200);

    // Act
    let mut third = Wire::connect(&mcp).await;
    let (refusal, _) = third.closed().await;

    // Assert
    assert!(
        refusal.starts_with("HTTP/1.1 503 Service Unavailable\r\n"),
        "{refusal}"
    );
    assert!(
        refusal.contains("connection: close") && refusal.contains("(--max-connections)"),
        "{refusal}"
    );
    // The UI listener has its own places.
    let mut api = Wire::connect(&format!("127.0.0.1:{}", app.ui_port)).await;
    let bearer = format!("Bearer {}", app.api_token);
    api.request("GET", "/api/v1/servers", &[("authorization", &bearer)], "")
        .await;
    assert_eq!(api.response().await.status, 200);
    // A place frees once a connection closes.
    drop(first);
    let deadline = Instant::now() + wire::PATIENCE;
    loop {
        let mut next = Wire::connect(&mcp).await;
        next.post_json("/s/echo/mcp", &[], INITIALIZE).await;
        let status = next.head().await.status;
        if status == 200 {
            break;
        }
        assert_eq!(status, 503);
        assert!(Instant::now() < deadline, "no place freed");
        tokio::time::sleep(std::time::Duration::from_millis(50)).await;
    }
}

// 2025-11-25/basic/transports.mdx, "Listening for Messages from the Server" 2: a GET must
// list `text/event-stream` in `Accept`; without the header it opens no stream.
#[tokio::test]
async fn a_get_without_an_accept_header_gets_406_in_the_app() {
    let app = App::start("conn-accept");
    let mcp = format!("127.0.0.1:{}", app.app.mcp_port);
    let mut wire = Wire::connect(&mcp).await;
    wire.post_json("/s/echo/mcp", &[], INITIALIZE).await;
    let answer = wire.response().await;
    let session = answer
        .header("mcp-session-id")
        .expect("a session id")
        .to_string();

    wire.request(
        "GET",
        "/s/echo/mcp",
        &[
            ("mcp-session-id", &session),
            ("mcp-protocol-version", "2025-11-25"),
        ],
        "",
    )
    .await;
    let answer = wire.response().await;

    assert_eq!(answer.status, 406, "{answer:?}");
    assert!(
        answer.body.contains("Accept") && answer.body.contains("text/event-stream"),
        "{}",
        answer.body
    );
}

// ---------------------------------------------------------------------------------------
// Files that hold secrets (issue 41, item 4)

/// The permission bits of `path`.
#[cfg(unix)]
fn mode(path: &std::path::Path) -> u32 {
    use std::os::unix::fs::PermissionsExt;
    std::fs::metadata(path)
        .unwrap_or_else(|e| panic!("{}: {e}", path.display()))
        .permissions()
        .mode()
        & 0o777
}

/// `servers.json` holds client secrets and API keys: its owner's alone, in a directory that
/// is too, and a save keeps a mode the user made stricter (it used to be 0644, and a save
/// undid a `chmod 600`).
#[cfg(unix)]
#[tokio::test]
async fn servers_json_and_its_directory_are_their_owners_alone_after_every_save() {
    use std::os::unix::fs::PermissionsExt;
    // Arrange: a config directory the app creates itself.
    let scratch = Scratch::new("guards-modes");
    let dir = scratch.path().join("config");
    let (mcp, ui) = free_ports();
    let running = Running::spawn(command_in(&dir, mcp, ui), mcp, ui);
    let app = App {
        http: running.api_client(),
        app: running,
        dir: scratch,
    };
    let servers = dir.join("servers.json");
    assert_eq!(mode(&dir), 0o700, "the config directory");
    assert_eq!(mode(&servers), 0o600, "servers.json as first written");

    // Act: a save, then a stricter mode by hand and another save.
    let (status, detail) = app
        .api(
            Method::PATCH,
            "/servers/echo",
            Some(json!({ "apiKeys": ["k1"] })),
        )
        .await;
    assert_eq!(status, StatusCode::OK, "{detail}");
    let after_save = mode(&servers);
    std::fs::set_permissions(&servers, std::fs::Permissions::from_mode(0o400)).expect("chmod 400");
    let (status, detail) = app
        .api(
            Method::PATCH,
            "/servers/echo",
            Some(json!({ "apiKeys": ["k2"] })),
        )
        .await;
    assert_eq!(status, StatusCode::OK, "{detail}");

    // Assert
    assert_eq!(after_save, 0o600, "servers.json after a PATCH");
    assert_eq!(
        mode(&servers),
        0o400,
        "a stricter mode survives the next save"
    );
    let text = std::fs::read_to_string(&servers).expect("servers.json");
    assert!(text.contains("k2"), "the second save landed: {text}");
}
