//! Access guards in front of the MCP endpoint (API keys, the Host check, the Origin
//! allow-list, the body limit) and the capability manifest, with the rmcp client and raw
//! HTTP. Every rejection is in the capture, and after each one a normal call still succeeds.

mod common;

use common::{PATIENCE, client_config, schema};
use mcp_decoy::{Error, MockMcpServer, Prompt, Resource, ResourceTemplate, Tool};
use reqwest::StatusCode;
use reqwest::header::{AUTHORIZATION, HOST, ORIGIN, WWW_AUTHENTICATE};
use rmcp::RoleClient;
use rmcp::ServiceExt;
use rmcp::model::{CallToolRequestParams, ClientConfig};
use rmcp::service::RunningService;
use rmcp::transport::StreamableHttpClientTransport;
use rmcp::transport::streamable_http_client::StreamableHttpClientTransportConfig;
use serde_json::{Value, json};

type KeyedClient = RunningService<RoleClient, ClientConfig>;

/// Connects an rmcp client that sends `Authorization: Bearer KEY` when `key` is given.
async fn connect_keyed(url: &str, key: Option<&str>) -> Result<KeyedClient, String> {
    let mut config = StreamableHttpClientTransportConfig::with_uri(url.to_string());
    if let Some(key) = key {
        config = config.auth_header(key);
    }
    let transport = StreamableHttpClientTransport::from_config(config);
    match tokio::time::timeout(PATIENCE, client_config().serve(transport)).await {
        Ok(Ok(client)) => Ok(client),
        Ok(Err(error)) => Err(format!("{error:?}")),
        Err(_) => panic!("initialize with {url} took longer than {PATIENCE:?}"),
    }
}

/// Calls `echo` and returns its text, panicking if the call fails.
async fn echo(client: &KeyedClient, message: &str) -> String {
    let arguments = json!({ "message": message })
        .as_object()
        .cloned()
        .expect("an object");
    let result = client
        .call_tool(CallToolRequestParams::new("echo").with_arguments(arguments))
        .await
        .expect("the echo call succeeds");
    result.content[0]
        .as_text()
        .map(|t| t.text.clone())
        .expect("a text block")
}

/// A fresh client with `key` still gets through: the rejection broke nothing.
async fn still_serves(server: &MockMcpServer, key: Option<&str>) {
    let client = connect_keyed(&server.url(), key)
        .await
        .expect("a client with the right credentials connects after the rejection");
    assert_eq!(echo(&client, "still here").await, "still here");
    client.cancel().await.expect("the client closes");
}

fn initialize(id: u64) -> Value {
    json!({ "jsonrpc": "2.0", "id": id, "method": "initialize", "params": {
        "protocolVersion": "2025-11-25", "capabilities": {},
        "clientInfo": { "name": "raw", "version": "1.0.0" } } })
}

/// A raw `initialize` POST with extra headers.
async fn post_initialize(
    url: &str,
    headers: &[(reqwest::header::HeaderName, &str)],
) -> reqwest::Response {
    let mut request = reqwest::Client::new()
        .post(url)
        .header("content-type", "application/json")
        .header("accept", "application/json, text/event-stream");
    for (name, value) in headers {
        request = request.header(name, *value);
    }
    request
        .body(initialize(1).to_string())
        .send()
        .await
        .expect("the POST is sent")
}

/// The error message and `data` of a JSON-RPC error body without id.
async fn rpc_error(response: reqwest::Response) -> (String, Value) {
    let body: Value = response.json().await.expect("a JSON body");
    assert_eq!(body.get("id"), None, "a transport error has no id: {body}");
    let message = body["error"]["message"]
        .as_str()
        .unwrap_or_else(|| panic!("a JSON-RPC error: {body}"))
        .to_string();
    (message, body["error"]["data"].clone())
}

fn echo_server() -> mcp_decoy::MockMcpServerBuilder {
    MockMcpServer::builder().tool(Tool::echo())
}

// -----------------------------------------------------------------------------------------
// API keys
// -----------------------------------------------------------------------------------------

#[tokio::test]
async fn a_client_without_an_api_key_gets_401_and_the_capture_shows_it() {
    let server = echo_server().api_key("k1").start().await;

    let refused = connect_keyed(&server.url(), None)
        .await
        .expect_err("a client without a key cannot initialize");
    assert!(refused.contains("AuthRequired"), "{refused}");
    let response = post_initialize(&server.url(), &[]).await;
    assert_eq!(response.status(), StatusCode::UNAUTHORIZED);
    assert_eq!(
        response
            .headers()
            .get(WWW_AUTHENTICATE)
            .and_then(|v| v.to_str().ok()),
        Some(r#"Bearer realm="mcp-decoy""#)
    );
    let (message, data) = rpc_error(response).await;
    assert!(message.contains("no Authorization header"), "{message}");
    assert_eq!(data["reason"], json!("missing"));

    let log = server.log();
    let refusals = log.http().status(401).all();
    assert_eq!(refusals.len(), 2, "both refused POSTs are captured");
    assert!(
        refusals
            .iter()
            .all(|h| h.method == "POST" && h.path == "/mcp")
    );
    assert_eq!(
        log.mcp().method("initialize").count(),
        0,
        "no refused message ran"
    );
    still_serves(&server, Some("k1")).await;
    schema::assert_server_messages_valid(&server.log());
}

#[tokio::test]
async fn a_wrong_key_or_scheme_gets_401_saying_which() {
    let server = echo_server().api_key("k1").start().await;

    let wrong = post_initialize(&server.url(), &[(AUTHORIZATION, "Bearer k2")]).await;
    assert_eq!(wrong.status(), StatusCode::UNAUTHORIZED);
    assert_eq!(
        wrong
            .headers()
            .get(WWW_AUTHENTICATE)
            .and_then(|v| v.to_str().ok()),
        Some(r#"Bearer realm="mcp-decoy", error="invalid_token""#)
    );
    let (message, data) = rpc_error(wrong).await;
    assert!(
        message.contains("not an API key this server accepts"),
        "{message}"
    );
    assert_eq!(data["reason"], json!("unknown_key"));

    let basic = post_initialize(&server.url(), &[(AUTHORIZATION, "Basic azE6")]).await;
    assert_eq!(basic.status(), StatusCode::UNAUTHORIZED);
    let (message, data) = rpc_error(basic).await;
    assert!(message.contains("not `Bearer API_KEY`"), "{message}");
    assert_eq!(data["reason"], json!("not_bearer"));

    // The scheme is case-insensitive (RFC 9110 §11.1).
    let lower = post_initialize(&server.url(), &[(AUTHORIZATION, "bearer k1")]).await;
    assert_eq!(lower.status(), StatusCode::OK);

    assert_eq!(server.log().http().status(401).count(), 2);
    still_serves(&server, Some("k1")).await;
    schema::assert_server_messages_valid(&server.log());
}

#[tokio::test]
async fn each_of_several_keys_lets_a_client_in() {
    let server = echo_server()
        .api_keys(["team-a", "team-b"])
        .api_key("ci")
        .start()
        .await;

    for key in ["team-a", "team-b", "ci"] {
        let client = connect_keyed(&server.url(), Some(key))
            .await
            .unwrap_or_else(|e| panic!("key {key} is accepted: {e}"));
        assert_eq!(echo(&client, key).await, key);
        client.cancel().await.expect("the client closes");
    }
    assert_eq!(server.api_keys(), ["team-a", "team-b", "ci"]);
    assert_eq!(server.log().http().status(401).count(), 0);
    schema::assert_server_messages_valid(&server.log());
}

#[tokio::test]
async fn a_revoked_key_gets_401_on_the_next_request_of_a_live_session() {
    let server = echo_server().api_keys(["old", "other"]).start().await;
    let client = connect_keyed(&server.url(), Some("old"))
        .await
        .expect("the key is accepted");
    assert_eq!(echo(&client, "before").await, "before");

    assert!(server.revoke_api_key("old"));
    assert!(!server.revoke_api_key("old"), "already revoked");
    let arguments = json!({ "message": "after" }).as_object().cloned();
    let refused = client
        .call_tool(CallToolRequestParams::new("echo").with_arguments(arguments.expect("an object")))
        .await
        .expect_err("the revoked key no longer works, even on its session");
    assert!(
        format!("{refused:?}").contains("AuthRequired"),
        "{refused:?}"
    );
    assert_eq!(server.log().http().status(401).count(), 1);
    assert_eq!(
        server.log().tool_calls("echo").len(),
        1,
        "the refused call never ran"
    );

    server.add_api_key("new").expect("a valid key");
    assert_eq!(server.api_keys(), ["other", "new"]);
    still_serves(&server, Some("new")).await;
    still_serves(&server, Some("other")).await;
    schema::assert_server_messages_valid(&server.log());
}

#[tokio::test]
async fn revoking_the_last_key_locks_the_server_instead_of_opening_it() {
    let server = echo_server().api_key("only").start().await;
    assert!(server.revoke_api_key("only"));

    let anonymous = post_initialize(&server.url(), &[]).await;
    assert_eq!(anonymous.status(), StatusCode::UNAUTHORIZED);
    let revoked = post_initialize(&server.url(), &[(AUTHORIZATION, "Bearer only")]).await;
    assert_eq!(revoked.status(), StatusCode::UNAUTHORIZED);

    server.add_api_key("again").expect("a valid key");
    still_serves(&server, Some("again")).await;
    schema::assert_server_messages_valid(&server.log());
}

#[tokio::test]
async fn a_server_added_a_key_at_run_time_starts_requiring_one() {
    let server = echo_server().start().await;
    still_serves(&server, None).await;

    server.add_api_key("late").expect("a valid key");
    let anonymous = post_initialize(&server.url(), &[]).await;
    assert_eq!(anonymous.status(), StatusCode::UNAUTHORIZED);
    still_serves(&server, Some("late")).await;
}

#[tokio::test]
async fn invalid_keys_and_hosts_are_refused_naming_the_entry() {
    let keys = MockMcpServer::builder()
        .api_keys(["fine", "has space"])
        .try_start()
        .await
        .expect_err("a key with a space");
    assert!(
        matches!(
            keys,
            Error::InvalidConfig {
                field: "api_keys",
                ..
            }
        ),
        "{keys:?}"
    );
    assert!(keys.to_string().contains("`api_keys[1]` has ' '"), "{keys}");

    let twice = MockMcpServer::builder()
        .api_keys(["same", "same"])
        .try_start()
        .await
        .expect_err("a repeated key");
    assert!(
        twice
            .to_string()
            .contains("`api_keys[1]` repeats api_keys[0]"),
        "{twice}"
    );

    let long = MockMcpServer::builder()
        .api_key("k".repeat(513))
        .try_start()
        .await
        .expect_err("a key past 512 bytes");
    assert!(long.to_string().contains("513 bytes"), "{long}");

    let url = MockMcpServer::builder()
        .allow_hosts(["https://decoy.test"])
        .try_start()
        .await
        .expect_err("a URL is not a host");
    assert!(url.to_string().contains("`allowed_hosts[0]`"), "{url}");

    let server = echo_server().start().await;
    let error = server.add_api_key("").expect_err("an empty key");
    assert!(error.to_string().contains("must not be empty"), "{error}");
    assert!(server.api_keys().is_empty());
}

// -----------------------------------------------------------------------------------------
// Host check (DNS rebinding)
// -----------------------------------------------------------------------------------------

// Conformance scenario `dns-rebinding-protection` (/work/shared/spec/README.md, server
// scenarios, 11-25–): a localhost server answers a foreign Host with 4xx and `localhost`,
// `127.0.0.1` and `[::1]` with 2xx; 2025-11-25/basic/transports.mdx, "Security Warning",
// and basic/security_best_practices.mdx, "Local MCP Server Compromise" (DNS rebinding).
#[tokio::test]
async fn a_foreign_host_gets_403_and_loopback_names_pass() {
    let server = echo_server().start().await;
    let port = server.address().port();

    for host in [
        format!("localhost:{port}"),
        format!("127.0.0.1:{port}"),
        format!("[::1]:{port}"),
        "LOCALHOST".to_string(),
        "127.0.0.1".to_string(),
    ] {
        let response = post_initialize(&server.url(), &[(HOST, &host)]).await;
        assert_eq!(response.status(), StatusCode::OK, "Host {host}");
    }
    let rebinding = [
        "evil.example".to_string(),
        format!("evil.example:{port}"),
        format!("localhost.evil.example:{port}"),
        "10.0.0.1".to_string(),
        "localhost:notaport".to_string(),
    ];
    for host in &rebinding {
        let response = post_initialize(&server.url(), &[(HOST, host)]).await;
        assert_eq!(response.status(), StatusCode::FORBIDDEN, "Host {host}");
        let (message, _) = rpc_error(response).await;
        assert!(
            message.contains(&format!("Host `{host}` is not allowed")),
            "{message}"
        );
        assert!(message.contains("DNS-rebinding"), "{message}");
    }

    let refused = server.log().http().status(403).all().len();
    assert_eq!(refused, rebinding.len(), "each refusal is captured");
    assert_eq!(
        server.sessions().len(),
        5,
        "only the loopback names opened sessions"
    );
    still_serves(&server, None).await;
    schema::assert_server_messages_valid(&server.log());
}

#[tokio::test]
async fn allowed_hosts_reach_the_server_and_others_are_told_the_list() {
    let server = echo_server()
        .allow_hosts(["decoy.test", "*.tunnel.test", "pinned.test:8443"])
        .start()
        .await;

    for host in [
        "decoy.test",
        "decoy.test:1234",
        "abc.tunnel.test",
        "pinned.test:8443",
    ] {
        let response = post_initialize(&server.url(), &[(HOST, host)]).await;
        assert_eq!(response.status(), StatusCode::OK, "Host {host}");
    }
    for host in ["tunnel.test", "pinned.test:80", "other.test"] {
        let response = post_initialize(&server.url(), &[(HOST, host)]).await;
        assert_eq!(response.status(), StatusCode::FORBIDDEN, "Host {host}");
        let (message, _) = rpc_error(response).await;
        assert!(
            message.contains("decoy.test, *.tunnel.test, pinned.test:8443"),
            "{message}"
        );
    }
    still_serves(&server, None).await;
}

#[tokio::test]
async fn a_fixture_on_all_interfaces_leaves_the_host_to_the_test() {
    let server = echo_server()
        .bind(std::net::SocketAddr::from(([0, 0, 0, 0], 0)))
        .start()
        .await;
    let url = format!("http://127.0.0.1:{}/mcp", server.address().port());

    let response = post_initialize(&url, &[(HOST, "192.168.1.20:6280")]).await;
    assert_eq!(response.status(), StatusCode::OK, "a LAN name reaches it");
}

// -----------------------------------------------------------------------------------------
// Origin and body size
// -----------------------------------------------------------------------------------------

// 2025-11-25/basic/transports.mdx, "Security Warning" 1: servers MUST validate Origin on all
// incoming connections; a present and invalid Origin gets 403. Checked on POST, GET and
// DELETE, behind the API key.
#[tokio::test]
async fn a_foreign_origin_gets_403_on_post_get_and_delete_and_is_captured() {
    let server = echo_server().api_key("k1").start().await;
    let opened = post_initialize(&server.url(), &[(AUTHORIZATION, "Bearer k1")]).await;
    assert_eq!(opened.status(), StatusCode::OK);
    let session = opened
        .headers()
        .get("mcp-session-id")
        .and_then(|v| v.to_str().ok())
        .expect("a session id")
        .to_string();

    let http = reqwest::Client::new();
    for method in [
        reqwest::Method::POST,
        reqwest::Method::GET,
        reqwest::Method::DELETE,
    ] {
        let mut request = http
            .request(method.clone(), server.url())
            .header(AUTHORIZATION, "Bearer k1")
            .header(ORIGIN, "https://evil.example")
            .header("mcp-session-id", &session)
            .header("mcp-protocol-version", "2025-11-25")
            .header("accept", "application/json, text/event-stream");
        if method == reqwest::Method::POST {
            request = request
                .header("content-type", "application/json")
                .body(r#"{"jsonrpc":"2.0","id":2,"method":"ping"}"#);
        }
        let response = request.send().await.expect("the request is sent");
        assert_eq!(response.status(), StatusCode::FORBIDDEN, "{method}");
        let (message, _) = rpc_error(response).await;
        assert!(
            message.contains("https://evil.example"),
            "{method}: {message}"
        );
    }

    let refused: Vec<String> = server
        .log()
        .http()
        .status(403)
        .all()
        .iter()
        .map(|h| h.method.clone())
        .collect();
    assert_eq!(refused, ["POST", "GET", "DELETE"]);
    assert_eq!(
        server.sessions().len(),
        1,
        "the refused DELETE ended nothing"
    );
    still_serves(&server, Some("k1")).await;
    schema::assert_server_messages_valid(&server.log());
}

#[tokio::test]
async fn an_oversized_body_gets_413_and_is_captured() {
    let server = echo_server().max_body_bytes(1024).start().await;

    let padding = "x".repeat(2048);
    let response = reqwest::Client::new()
        .post(server.url())
        .header("content-type", "application/json")
        .header("accept", "application/json, text/event-stream")
        .body(
            json!({ "jsonrpc": "2.0", "id": 1, "method": "ping", "params": { "pad": padding } })
                .to_string(),
        )
        .send()
        .await
        .expect("the POST is sent");
    assert_eq!(response.status(), StatusCode::PAYLOAD_TOO_LARGE);
    let (message, _) = rpc_error(response).await;
    assert!(message.contains("1024 bytes"), "{message}");

    assert_eq!(server.log().http().status(413).count(), 1);
    still_serves(&server, None).await;
    schema::assert_server_messages_valid(&server.log());
}

#[tokio::test]
async fn a_malformed_chunked_body_gets_400_naming_it_not_413() {
    use tokio::io::{AsyncReadExt, AsyncWriteExt};

    let server = echo_server().start().await;
    let url = reqwest::Url::parse(&server.url()).expect("the server's URL");
    let authority = format!("127.0.0.1:{}", url.port().expect("a port"));

    // A chunk whose size line is no hex number: the body cannot be framed.
    let mut tcp = tokio::net::TcpStream::connect(&authority)
        .await
        .expect("connect");
    tcp.write_all(
        format!(
            "POST /mcp HTTP/1.1\r\nhost: {authority}\r\ncontent-type: application/json\r\n\
             accept: application/json, text/event-stream\r\ntransfer-encoding: chunked\r\n\r\n\
             zz\r\n{{}}\r\n0\r\n\r\n"
        )
        .as_bytes(),
    )
    .await
    .expect("send");
    let mut answer = Vec::new();
    tokio::time::timeout(PATIENCE, tcp.read_to_end(&mut answer))
        .await
        .expect("the server answers and closes within the patience")
        .expect("read");
    let answer = String::from_utf8_lossy(&answer);

    assert!(answer.starts_with("HTTP/1.1 400 "), "{answer}");
    assert!(
        answer.contains("the request body could not be read"),
        "{answer}"
    );
    assert_eq!(server.log().http().status(400).count(), 1);
    still_serves(&server, None).await;
}

// -----------------------------------------------------------------------------------------
// Capability manifest
// -----------------------------------------------------------------------------------------

/// A raw legacy session that sends `key`, for comparing the manifest with list results.
struct Raw {
    url: String,
    key: &'static str,
    session: String,
    next_id: u64,
}

impl Raw {
    async fn open(url: &str, key: &'static str) -> (Raw, Value) {
        let bearer = format!("Bearer {key}");
        let response = post_initialize(url, &[(AUTHORIZATION, &bearer)]).await;
        assert_eq!(response.status(), StatusCode::OK);
        let session = response
            .headers()
            .get("mcp-session-id")
            .and_then(|v| v.to_str().ok())
            .expect("a session id")
            .to_string();
        let body: Value = response.json().await.expect("a JSON body");
        let raw = Raw {
            url: url.to_string(),
            key,
            session,
            next_id: 10,
        };
        raw.notify_initialized().await;
        (raw, body["result"].clone())
    }

    async fn notify_initialized(&self) {
        let status = self
            .post(json!({ "jsonrpc": "2.0", "method": "notifications/initialized" }))
            .await
            .status();
        assert_eq!(status, StatusCode::ACCEPTED);
    }

    async fn post(&self, body: Value) -> reqwest::Response {
        reqwest::Client::new()
            .post(&self.url)
            .header("content-type", "application/json")
            .header("accept", "application/json, text/event-stream")
            .header(AUTHORIZATION, format!("Bearer {}", self.key))
            .header("mcp-session-id", &self.session)
            .header("mcp-protocol-version", "2025-11-25")
            .body(body.to_string())
            .send()
            .await
            .expect("the POST is sent")
    }

    async fn result(&mut self, method: &str) -> Value {
        self.next_id += 1;
        let response = self
            .post(json!({ "jsonrpc": "2.0", "id": self.next_id, "method": method, "params": {} }))
            .await;
        let body: Value = response.json().await.expect("a JSON body");
        body["result"].clone()
    }
}

async fn manifest_of(server: &MockMcpServer) -> Value {
    let response = reqwest::get(server.manifest_url())
        .await
        .expect("the manifest GET is sent");
    assert_eq!(response.status(), StatusCode::OK);
    assert_eq!(
        response
            .headers()
            .get("cache-control")
            .and_then(|v| v.to_str().ok()),
        Some("no-store")
    );
    // Public discovery data: a web page on another origin may read it.
    assert_eq!(
        response
            .headers()
            .get("access-control-allow-origin")
            .and_then(|v| v.to_str().ok()),
        Some("*")
    );
    response.json().await.expect("a JSON manifest")
}

#[tokio::test]
async fn the_manifest_is_the_live_catalog_as_the_list_methods_show_it() {
    let server = MockMcpServer::builder()
        .name("weather")
        .title("Weather")
        .instructions("Ask for a city.")
        .manifest(true)
        .api_key("k1")
        .tool(Tool::echo())
        .tool(Tool::new("hidden").draft())
        .resource(Resource::text("memo://readme", "hello").mime_type("text/plain"))
        .resource_template(ResourceTemplate::new("file:///{+path}", "files"))
        .prompt(Prompt::new("greet").description("Say hello"))
        .start()
        .await;
    let (mut raw, initialized) = Raw::open(&server.url(), "k1").await;

    let manifest = manifest_of(&server).await;
    assert_eq!(manifest["serverInfo"], initialized["serverInfo"]);
    assert_eq!(manifest["capabilities"], initialized["capabilities"]);
    assert_eq!(manifest["instructions"], json!("Ask for a city."));
    assert_eq!(manifest["protocolVersion"], json!("2026-07-28"));
    assert!(
        manifest["supportedVersions"]
            .as_array()
            .is_some_and(|v| v.contains(&json!("2025-11-25"))),
        "{manifest}"
    );
    assert_eq!(
        manifest["transport"],
        json!({ "type": "streamable-http", "endpoint": "/mcp", "url": server.url() })
    );
    assert_eq!(
        manifest["authentication"],
        json!({ "required": true, "schemes": ["bearer"] })
    );
    assert_eq!(manifest["tools"], raw.result("tools/list").await["tools"]);
    assert_eq!(
        manifest["tools"].as_array().map(Vec::len),
        Some(1),
        "drafts are left out"
    );
    assert_eq!(
        manifest["resources"],
        raw.result("resources/list").await["resources"]
    );
    assert_eq!(
        manifest["resourceTemplates"],
        raw.result("resources/templates/list").await["resourceTemplates"]
    );
    assert_eq!(
        manifest["prompts"],
        raw.result("prompts/list").await["prompts"]
    );

    // After an edit, the manifest follows.
    server
        .add_tool(Tool::new("get_forecast").description("Forecast for a city"))
        .expect("a new tool");
    server.publish_tool("hidden").expect("the draft exists");
    server
        .remove_resource("memo://readme")
        .expect("the resource exists");
    let edited = manifest_of(&server).await;
    assert_eq!(edited["tools"], raw.result("tools/list").await["tools"]);
    assert_eq!(edited["tools"].as_array().map(Vec::len), Some(3));
    assert_eq!(edited["resources"], json!([]));

    // The manifest needs no key, and its GETs are captured like any exchange.
    let fetched = server
        .log()
        .http()
        .path("/.well-known/mcp-server.json")
        .status(200)
        .count();
    assert_eq!(fetched, 2);
    schema::assert_server_messages_valid(&server.log());
}

#[tokio::test]
async fn the_manifest_of_an_open_server_lists_only_what_it_serves() {
    let server = echo_server().manifest(true).start().await;
    let manifest = manifest_of(&server).await;
    assert_eq!(
        manifest["authentication"],
        json!({ "required": false, "schemes": [] })
    );
    assert_eq!(manifest["tools"][0]["name"], json!("echo"));
    assert_eq!(
        manifest.get("resources"),
        None,
        "no resources capability, no list"
    );
    assert_eq!(manifest.get("prompts"), None);
}

#[tokio::test]
async fn the_manifest_is_404_when_off_and_still_checks_the_host() {
    let server = echo_server().start().await;
    let off = reqwest::get(server.manifest_url())
        .await
        .expect("the manifest GET is sent");
    assert_eq!(off.status(), StatusCode::NOT_FOUND);
    let body: Value = off.json().await.expect("a JSON body");
    assert!(
        body["error"]
            .as_str()
            .is_some_and(|e| e.contains("manifest")),
        "{body}"
    );
    assert_eq!(server.log().http().status(404).count(), 1);

    let on = echo_server().manifest(true).start().await;
    let rebinding = reqwest::Client::new()
        .get(on.manifest_url())
        .header(HOST, "evil.example")
        .send()
        .await
        .expect("the manifest GET is sent");
    assert_eq!(rebinding.status(), StatusCode::FORBIDDEN);
    assert_eq!(on.log().http().status(403).count(), 1);
    manifest_of(&on).await;
    still_serves(&on, None).await;
}

/// A crate built without the `relay` feature (as a dependent builds it by default) refuses a
/// spec with an upstream, naming the feature, instead of serving a server that relays nothing.
#[cfg(not(feature = "relay"))]
#[tokio::test]
async fn an_upstream_without_the_relay_feature_is_refused_naming_it() {
    let mut spec = mcp_decoy::spec::ServerSpec::new("relay");
    spec.upstream = Some("https://example.com/mcp".into());

    let refused = mcp_decoy::MockMcpServerBuilder::from_spec(spec)
        .try_start()
        .await;

    let Err(Error::InvalidConfig { field, reason }) = refused else {
        panic!("an upstream needs the relay feature");
    };
    assert_eq!(field, "upstream");
    assert!(reason.contains("`relay` cargo feature"), "{reason}");
}
