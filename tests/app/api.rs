//! The REST API of the `mcp-decoy` app (product guide, "REST API"), against the real binary:
//! every route's happy path, each guard (Host, Origin, Content-Type, malformed JSON, body
//! size), 404 and 409 problems, `servers.json` after every acknowledged write, a rename that
//! moves a server and ends its sessions, `list_changed` exactly when the guide says, closing
//! a session, and an OpenAPI document that covers every route the router serves.
//!
//! The logs routes have their own file (`app_logs.rs`); here they only appear in the
//! OpenAPI coverage check.

use crate::common;
use crate::common::app_process;

use std::collections::BTreeSet;

use app_process::{Running, Scratch};
use common::{PATIENCE, call_ok, connect, connect_watching, raw_tools_list, text, tool_names};
use reqwest::header::{CONTENT_TYPE, HOST, HeaderMap, LOCATION};
use reqwest::{Method, StatusCode};
use serde_json::{Value, json};

/// One running app with a scratch config directory, and an HTTP client for its API.
struct Api {
    app: Running,
    dir: Scratch,
    http: reqwest::Client,
}

/// What the API answered.
#[derive(Debug)]
struct Reply {
    status: StatusCode,
    headers: HeaderMap,
    body: Value,
}

impl Reply {
    /// The body, after checking the status.
    fn expect(self, status: StatusCode, what: &str) -> Value {
        assert_eq!(self.status, status, "{what}: {}", self.body);
        self.body
    }

    /// Checks that this is a problem with `status`, naming `field`; returns its detail.
    fn problem(self, status: StatusCode, field: Option<&str>, what: &str) -> String {
        assert_eq!(self.status, status, "{what}: {}", self.body);
        assert_eq!(
            self.headers.get(CONTENT_TYPE).and_then(|v| v.to_str().ok()),
            Some("application/problem+json"),
            "{what}: a problem's media type"
        );
        assert_eq!(self.body["status"], json!(status.as_u16()), "{what}");
        assert_eq!(
            self.body["field"].as_str(),
            field,
            "{what}: the field at fault in {}",
            self.body
        );
        self.body["detail"]
            .as_str()
            .unwrap_or_else(|| panic!("{what}: a problem has a detail: {}", self.body))
            .to_string()
    }
}

impl Api {
    fn start(name: &str) -> Api {
        let dir = Scratch::new(name);
        let app = Running::start(dir.path());
        let http = app.api_client();
        Api { app, dir, http }
    }

    fn url(&self, path: &str) -> String {
        format!("{}{path}", self.app.api())
    }

    async fn send(&self, request: reqwest::RequestBuilder, what: &str) -> Reply {
        let response = tokio::time::timeout(PATIENCE, request.send())
            .await
            .unwrap_or_else(|_| panic!("{what}: no answer within {PATIENCE:?}"))
            .unwrap_or_else(|e| panic!("{what}: the request failed: {e}"));
        let status = response.status();
        let headers = response.headers().clone();
        let bytes = response
            .bytes()
            .await
            .unwrap_or_else(|e| panic!("{what}: reading the body failed: {e}"));
        let body = if bytes.is_empty() {
            Value::Null
        } else {
            serde_json::from_slice(&bytes).unwrap_or_else(|e| {
                panic!(
                    "{what}: the body is not JSON ({e}): {}",
                    String::from_utf8_lossy(&bytes)
                )
            })
        };
        Reply {
            status,
            headers,
            body,
        }
    }

    async fn call(&self, method: Method, path: &str, body: Option<Value>) -> Reply {
        let what = format!("{method} {path}");
        let mut request = self.http.request(method, self.url(path));
        if let Some(body) = body {
            request = request
                .header(CONTENT_TYPE, "application/json")
                .body(body.to_string());
        }
        self.send(request, &what).await
    }

    async fn get(&self, path: &str) -> Reply {
        self.call(Method::GET, path, None).await
    }

    async fn post(&self, path: &str, body: Value) -> Reply {
        self.call(Method::POST, path, Some(body)).await
    }

    async fn patch(&self, path: &str, body: Value) -> Reply {
        self.call(Method::PATCH, path, Some(body)).await
    }

    async fn delete(&self, path: &str) -> Reply {
        self.call(Method::DELETE, path, None).await
    }

    /// `servers.json` as it is on disk now.
    fn saved(&self) -> Value {
        let path = self.dir.path().join("servers.json");
        let text = std::fs::read_to_string(&path)
            .unwrap_or_else(|e| panic!("cannot read {}: {e}", path.display()));
        serde_json::from_str(&text).unwrap_or_else(|e| panic!("servers.json is not JSON: {e}"))
    }

    /// The server `name` as `servers.json` holds it, if it does.
    fn saved_server(&self, name: &str) -> Option<Value> {
        self.saved()["servers"]
            .as_array()
            .expect("servers.json has a servers array")
            .iter()
            .find(|s| s["name"] == name)
            .cloned()
    }

    /// The tool `tool` of server `server` as `servers.json` holds it, if it does.
    fn saved_tool(&self, server: &str, tool: &str) -> Option<Value> {
        self.saved_server(server)?["tools"]
            .as_array()?
            .iter()
            .find(|t| t["name"] == tool)
            .cloned()
    }

    fn mcp_url(&self, server: &str) -> String {
        self.app.mcp_url(server)
    }

    /// The ids of the server's live sessions, from the API.
    async fn session_ids(&self, server: &str) -> Vec<String> {
        self.get(&format!("/servers/{server}/sessions"))
            .await
            .expect(StatusCode::OK, "list sessions")
            .as_array()
            .expect("sessions are an array")
            .iter()
            .map(|s| s["id"].as_str().expect("a session id").to_string())
            .collect()
    }
}

/// A raw `initialize` POST to `url`, as a client that has not connected yet would send.
async fn raw_initialize(url: &str) -> reqwest::Response {
    reqwest::Client::new()
        .post(url)
        .header("content-type", "application/json")
        .header("accept", "application/json, text/event-stream")
        .body(
            json!({ "jsonrpc": "2.0", "id": 1, "method": "initialize", "params": {
                "protocolVersion": "2025-11-25", "capabilities": {},
                "clientInfo": { "name": "raw", "version": "1" } } })
            .to_string(),
        )
        .send()
        .await
        .expect("the raw initialize POST could not be sent")
}

// ---------------------------------------------------------------------------------------
// The instance and the OpenAPI document

/// Every route the API serves: the guide's table plus resources, resource templates and
/// prompts. The OpenAPI test checks this list both ways against the document and the router.
const ROUTES: &[(&str, &str)] = &[
    ("GET", "/"),
    ("GET", "/openapi.json"),
    ("GET", "/servers"),
    ("POST", "/servers"),
    ("GET", "/servers/{server}"),
    ("PATCH", "/servers/{server}"),
    ("DELETE", "/servers/{server}"),
    ("GET", "/servers/{server}/tools"),
    ("POST", "/servers/{server}/tools"),
    ("GET", "/servers/{server}/tools/{tool}"),
    ("PATCH", "/servers/{server}/tools/{tool}"),
    ("DELETE", "/servers/{server}/tools/{tool}"),
    ("GET", "/servers/{server}/resources"),
    ("POST", "/servers/{server}/resources"),
    ("GET", "/servers/{server}/resources/{uri}"),
    ("PATCH", "/servers/{server}/resources/{uri}"),
    ("DELETE", "/servers/{server}/resources/{uri}"),
    ("GET", "/servers/{server}/resource-templates"),
    ("POST", "/servers/{server}/resource-templates"),
    ("GET", "/servers/{server}/resource-templates/{template}"),
    ("PATCH", "/servers/{server}/resource-templates/{template}"),
    ("DELETE", "/servers/{server}/resource-templates/{template}"),
    ("GET", "/servers/{server}/prompts"),
    ("POST", "/servers/{server}/prompts"),
    ("GET", "/servers/{server}/prompts/{prompt}"),
    ("PATCH", "/servers/{server}/prompts/{prompt}"),
    ("DELETE", "/servers/{server}/prompts/{prompt}"),
    ("GET", "/servers/{server}/sessions"),
    ("DELETE", "/servers/{server}/sessions/{session}"),
    ("GET", "/servers/{server}/tasks"),
    ("GET", "/servers/{server}/tasks/{task}"),
    ("POST", "/servers/{server}/clock"),
    ("GET", "/servers/{server}/cassette"),
    ("POST", "/servers/{server}/cassette/convert"),
    ("POST", "/cassettes/convert"),
    ("GET", "/servers/{server}/oauth/tokens"),
    ("DELETE", "/servers/{server}/oauth/tokens"),
    ("DELETE", "/servers/{server}/oauth/tokens/{token}"),
    ("GET", "/servers/{server}/logs"),
    ("GET", "/servers/{server}/logs/{id}"),
    ("DELETE", "/servers/{server}/logs"),
    ("GET", "/servers/{server}/logs/stream"),
    ("GET", "/servers/{server}/logs/export"),
    ("GET", "/servers/{server}/logs/export.har"),
    ("POST", "/templates/check"),
    ("GET", "/memory"),
];

/// A concrete path for a route: an unknown server, so no probe changes anything.
fn probe_path(route: &str) -> String {
    route
        .replace("{server}", "no-such-server")
        .replace("{id}", "1")
        .replace(['{', '}'], "")
}

/// Whether the router itself had no such route or method (the handler never ran).
fn unrouted(reply: &Reply) -> bool {
    reply.status == StatusCode::METHOD_NOT_ALLOWED
        || (reply.status == StatusCode::NOT_FOUND
            && reply.body["detail"]
                .as_str()
                .is_some_and(|d| d.starts_with("no API route")))
}

#[tokio::test]
async fn the_root_describes_the_instance() {
    let api = Api::start("api-root");
    for path in ["", "/"] {
        let meta = api.get(path).await.expect(StatusCode::OK, "GET /");
        assert_eq!(meta["version"], env!("CARGO_PKG_VERSION"));
        assert_eq!(meta["uiPort"], api.app.ui_port);
        assert_eq!(meta["mcpPort"], api.app.mcp_port);
        assert_eq!(
            meta["mcpUrlTemplate"],
            format!("http://localhost:{}/s/{{server}}/mcp", api.app.mcp_port)
        );
        let config = api.dir.path().join("servers.json");
        assert_eq!(meta["configPath"], config.display().to_string());
    }
}

/// Issue 41: another local process or user drove the API with nothing to show. Every call
/// now names this run's secret (`runtime.json`'s `apiToken`, owner-only), as a bearer token
/// or as the cookie the UI's page sets; without it, or with another run's, `401` naming
/// `Authorization`.
#[tokio::test]
async fn every_api_call_names_this_runs_secret_and_the_ui_page_hands_it_to_the_browser() {
    // Arrange
    let api = Api::start("api-secret");
    let url = format!("{}/servers", api.app.api());
    let bare = reqwest::Client::new();

    // Act
    let without = bare.get(&url).send().await.expect("an answer");
    let wrong = bare
        .get(&url)
        .bearer_auth("0".repeat(32))
        .send()
        .await
        .expect("an answer");
    let created = bare
        .post(&url)
        .header(CONTENT_TYPE, "application/json")
        .body(r#"{"name":"pwned"}"#)
        .send()
        .await
        .expect("an answer");
    let page = bare
        .get(format!("http://localhost:{}/", api.app.ui_port))
        .send()
        .await
        .expect("the UI page");
    let cookie = page
        .headers()
        .get("set-cookie")
        .and_then(|v| v.to_str().ok())
        .expect("the page sets the API cookie")
        .to_string();
    let with_cookie = bare
        .get(&url)
        .header("cookie", cookie.split(';').next().unwrap_or_default())
        .send()
        .await
        .expect("an answer");

    // Assert
    for (what, reply) in [("no secret", without), ("another secret", wrong)] {
        assert_eq!(reply.status(), StatusCode::UNAUTHORIZED, "{what}");
        let problem: Value = reply.json().await.expect("a problem");
        assert_eq!(problem["field"], "Authorization", "{what}: {problem}");
        assert!(
            problem["detail"]
                .as_str()
                .unwrap_or_default()
                .contains("apiToken"),
            "{what}: {problem}"
        );
    }
    assert_eq!(created.status(), StatusCode::UNAUTHORIZED);
    assert!(api.saved_server("pwned").is_none(), "nothing was created");
    assert!(
        cookie.contains("HttpOnly") && cookie.contains("SameSite=Strict"),
        "{cookie}"
    );
    assert!(cookie.contains("Path=/api/v1"), "{cookie}");
    assert_eq!(
        with_cookie.status(),
        StatusCode::OK,
        "the UI's cookie opens the API"
    );
    let runtime: Value = serde_json::from_str(
        &std::fs::read_to_string(api.dir.path().join("runtime.json")).expect("runtime.json"),
    )
    .expect("JSON");
    assert_eq!(runtime["apiToken"], api.app.api_token.as_str());
    assert_eq!(api.get("/servers").await.status, StatusCode::OK);
}

#[tokio::test]
async fn the_ui_url_serves_the_web_ui_from_the_binary_under_a_strict_policy() {
    // Arrange
    let api = Api::start("api-ui");
    let origin = format!("http://localhost:{}", api.app.ui_port);

    // Act
    let page = reqwest::get(format!("{origin}/"))
        .await
        .expect("GET the UI URL");

    // Assert: the page, with a policy that allows nothing from elsewhere and no inline code.
    assert_eq!(page.status(), StatusCode::OK);
    let header = |response: &reqwest::Response, name: &str| {
        response
            .headers()
            .get(name)
            .and_then(|v| v.to_str().ok())
            .map(str::to_string)
    };
    assert_eq!(
        header(&page, "content-type").as_deref(),
        Some("text/html; charset=utf-8")
    );
    assert_eq!(
        header(&page, "content-security-policy").as_deref(),
        Some(
            "default-src 'none'; script-src 'self'; style-src 'self'; img-src 'self' data:; \
             connect-src 'self'; base-uri 'none'; form-action 'self'; frame-ancestors 'none'"
        )
    );
    assert_eq!(
        header(&page, "x-content-type-options").as_deref(),
        Some("nosniff")
    );
    assert_eq!(header(&page, "cache-control").as_deref(), Some("no-cache"));
    let html = page.text().await.expect("an HTML body");
    // Every file the page names is served by the binary, with its media type.
    for (path, media) in [
        ("/ui/js/app.js", "text/javascript; charset=utf-8"),
        ("/ui/app.css", "text/css; charset=utf-8"),
        ("/ui/favicon.svg", "image/svg+xml"),
    ] {
        assert!(html.contains(path), "the page loads {path}: {html}");
        let file = reqwest::get(format!("{origin}{path}"))
            .await
            .expect("GET a UI file");
        assert_eq!(file.status(), StatusCode::OK, "{path}");
        assert_eq!(
            header(&file, "content-type").as_deref(),
            Some(media),
            "{path}"
        );
        assert_eq!(
            header(&file, "x-content-type-options").as_deref(),
            Some("nosniff")
        );
    }
    let missing = reqwest::get(format!("{origin}/ui/js/nope.js"))
        .await
        .expect("GET a missing UI file");
    assert_eq!(missing.status(), StatusCode::NOT_FOUND);

    // The UI listener's Host check covers the page too: a tunnel to the UI port gets 403.
    let tunnelled = api
        .http
        .get(format!("{origin}/"))
        .header(HOST, format!("tunnel.example:{}", api.app.ui_port))
        .send()
        .await
        .expect("GET with a foreign Host");
    assert_eq!(tunnelled.status(), StatusCode::FORBIDDEN);
}

#[tokio::test]
async fn the_openapi_document_covers_every_route_the_router_serves() {
    let api = Api::start("api-openapi");
    let doc = api
        .get("/openapi.json")
        .await
        .expect(StatusCode::OK, "GET /openapi.json");
    assert_eq!(doc["openapi"], "3.1.0");
    assert_eq!(doc["info"]["version"], env!("CARGO_PKG_VERSION"));
    let paths = doc["paths"].as_object().expect("paths is an object");

    // Every route is documented, and everything documented is a route of this list.
    let documented: BTreeSet<(String, String)> = paths
        .iter()
        .flat_map(|(path, item)| {
            item.as_object()
                .expect("a path item is an object")
                .keys()
                .map(move |method| (method.to_uppercase(), path.clone()))
        })
        .collect();
    let listed: BTreeSet<(String, String)> = ROUTES
        .iter()
        .map(|(m, p)| (m.to_string(), p.to_string()))
        .collect();
    assert_eq!(
        documented.difference(&listed).collect::<Vec<_>>(),
        Vec::<&(String, String)>::new(),
        "documented but not in ROUTES"
    );
    assert_eq!(
        listed.difference(&documented).collect::<Vec<_>>(),
        Vec::<&(String, String)>::new(),
        "served but not documented"
    );

    // Each documented route reaches a handler, and every other method on its path is 405,
    // so the router serves no method the document leaves out.
    for path in paths.keys() {
        for method in ["GET", "POST", "PATCH", "DELETE", "PUT"] {
            let body = matches!(method, "POST" | "PATCH" | "PUT").then(|| json!({}));
            let reply = api
                .call(
                    Method::from_bytes(method.as_bytes()).expect("a method"),
                    &probe_path(path),
                    body,
                )
                .await;
            let is_documented = documented.contains(&(method.to_string(), path.clone()));
            if is_documented {
                assert!(
                    !unrouted(&reply),
                    "{method} {path} is not served: {reply:?}"
                );
            } else {
                assert_eq!(
                    reply.status,
                    StatusCode::METHOD_NOT_ALLOWED,
                    "{method} {path} is served but not documented: {reply:?}"
                );
            }
        }
    }

    // Every operation documents its errors as problem details, and every reference resolves.
    let schemas = doc["components"]["schemas"]
        .as_object()
        .expect("components.schemas");
    assert!(schemas.contains_key("ProblemDetails"));
    for (path, item) in paths {
        for (method, operation) in item.as_object().expect("a path item") {
            let responses = operation["responses"].as_object().expect("responses");
            let forbidden = &responses["403"]["content"]["application/problem+json"]["schema"];
            assert_eq!(
                forbidden["$ref"], "#/components/schemas/ProblemDetails",
                "{method} {path}"
            );
            assert!(
                operation["operationId"].is_string(),
                "{method} {path} has an operationId"
            );
        }
    }
    let text = doc.to_string();
    for reference in text.split("\"$ref\":\"").skip(1) {
        let target = reference.split('"').next().expect("a reference");
        let name = target
            .strip_prefix("#/components/schemas/")
            .unwrap_or_else(|| panic!("a reference outside components: {target}"));
        assert!(schemas.contains_key(name), "unresolved reference {target}");
    }
    // The bodies are the documented serde types.
    for name in [
        "ServerSpec",
        "ServerSummary",
        "ServerDetail",
        "ServerPatch",
        "ToolSpec",
        "ToolPatch",
        "ResourceSpec",
        "ResourceTemplateSpec",
        "PromptSpec",
        "Session",
        "Meta",
    ] {
        assert!(schemas.contains_key(name), "no {name} schema");
    }
    assert_eq!(
        paths["/servers/{server}/tools/{tool}"]["patch"]["requestBody"]["content"]["application/json"]
            ["schema"]["$ref"],
        "#/components/schemas/ToolPatch"
    );
}

// ---------------------------------------------------------------------------------------
// Guards

#[tokio::test]
async fn a_request_with_a_foreign_host_header_is_refused_with_403() {
    let api = Api::start("api-host");
    let foreign = format!("evil.example:{}", api.app.ui_port);
    let reply = api
        .send(
            api.http.get(api.url("/servers")).header(HOST, &foreign),
            "foreign Host",
        )
        .await;
    let detail = reply.problem(StatusCode::FORBIDDEN, Some("Host"), "foreign Host");
    assert!(detail.contains(&foreign), "{detail}");

    let wrong_port = format!("localhost:{}", api.app.mcp_port);
    let reply = api
        .send(
            api.http.get(api.url("/servers")).header(HOST, &wrong_port),
            "the MCP port in Host",
        )
        .await;
    reply.problem(StatusCode::FORBIDDEN, Some("Host"), "wrong port");

    // A write is refused too, and changes nothing.
    let before = api.saved();
    let reply = api
        .send(
            api.http
                .post(api.url("/servers"))
                .header(HOST, &foreign)
                .header(CONTENT_TYPE, "application/json")
                .body(r#"{"name":"evil"}"#),
            "a write with a foreign Host",
        )
        .await;
    reply.problem(StatusCode::FORBIDDEN, Some("Host"), "foreign write");
    assert_eq!(api.saved(), before);

    let local = format!("127.0.0.1:{}", api.app.ui_port);
    api.send(
        api.http.get(api.url("/servers")).header(HOST, &local),
        "127.0.0.1 Host",
    )
    .await
    .expect(StatusCode::OK, "Host 127.0.0.1:UI");
}

#[tokio::test]
async fn a_browser_request_from_another_origin_is_refused_with_403() {
    let api = Api::start("api-origin");
    let reply = api
        .send(
            api.http
                .get(api.url("/servers"))
                .header("origin", "http://evil.example"),
            "foreign Origin",
        )
        .await;
    let detail = reply.problem(StatusCode::FORBIDDEN, Some("Origin"), "foreign Origin");
    assert!(detail.contains("http://evil.example"), "{detail}");

    let reply = api
        .send(
            api.http
                .delete(api.url("/servers/echo"))
                .header("sec-fetch-site", "cross-site"),
            "cross-site fetch",
        )
        .await;
    reply.problem(
        StatusCode::FORBIDDEN,
        Some("Sec-Fetch-Site"),
        "cross-site delete",
    );
    assert!(api.saved_server("echo").is_some(), "echo was not deleted");

    for origin in [
        format!("http://localhost:{}", api.app.ui_port),
        format!("http://127.0.0.1:{}", api.app.ui_port),
    ] {
        api.send(
            api.http
                .get(api.url("/servers"))
                .header("origin", &origin)
                .header("sec-fetch-site", "same-origin"),
            "the UI's origin",
        )
        .await
        .expect(StatusCode::OK, &origin);
    }
}

#[tokio::test]
async fn a_write_without_json_content_type_is_refused_with_415() {
    let api = Api::start("api-415");
    let before = api.saved();
    let reply = api
        .send(
            api.http.post(api.url("/servers")).body(r#"{"name":"x"}"#),
            "POST without Content-Type",
        )
        .await;
    reply.problem(
        StatusCode::UNSUPPORTED_MEDIA_TYPE,
        Some("Content-Type"),
        "no Content-Type",
    );
    let reply = api
        .send(
            api.http
                .patch(api.url("/servers/echo/tools/echo"))
                .header(CONTENT_TYPE, "text/plain")
                .body(r#"{"published":false}"#),
            "PATCH as text/plain",
        )
        .await;
    let detail = reply.problem(
        StatusCode::UNSUPPORTED_MEDIA_TYPE,
        Some("Content-Type"),
        "text/plain",
    );
    assert!(detail.contains("text/plain"), "{detail}");
    assert_eq!(api.saved(), before, "nothing changed");

    let json_utf8 = api
        .send(
            api.http
                .post(api.url("/servers"))
                .header(CONTENT_TYPE, "application/json; charset=utf-8")
                .body(r#"{"name":"x"}"#),
            "JSON with a charset",
        )
        .await;
    json_utf8.expect(StatusCode::CREATED, "application/json; charset=utf-8");
}

#[tokio::test]
async fn malformed_or_mistyped_bodies_are_400_naming_the_problem() {
    let api = Api::start("api-400");
    let before = api.saved();
    let reply = api
        .send(
            api.http
                .post(api.url("/servers/echo/tools"))
                .header(CONTENT_TYPE, "application/json")
                .body(r#"{"name": "t","#),
            "truncated JSON",
        )
        .await;
    let detail = reply.problem(StatusCode::BAD_REQUEST, Some("body"), "truncated JSON");
    assert!(detail.contains("not valid JSON"), "{detail}");

    let detail = api
        .post(
            "/servers/echo/tools",
            json!({ "name": "t", "annotations": { "readOnlyHint": "yes" } }),
        )
        .await
        .problem(
            StatusCode::BAD_REQUEST,
            Some("annotations.readOnlyHint"),
            "a mistyped field",
        );
    assert!(detail.contains("boolean"), "{detail}");

    let detail = api
        .post("/servers/echo/tools", json!(["not", "an", "object"]))
        .await
        .problem(StatusCode::BAD_REQUEST, Some("body"), "an array body");
    assert!(detail.contains("object"), "{detail}");

    let detail = api
        .patch("/servers/echo/tools/echo", json!({ "publishd": true }))
        .await
        .problem(
            StatusCode::BAD_REQUEST,
            Some("publishd"),
            "an unknown member",
        );
    assert!(detail.contains("unknown field"), "{detail}");

    let detail = api
        .post("/servers", json!({ "title": "no name" }))
        .await
        .problem(StatusCode::BAD_REQUEST, Some("body"), "a missing name");
    assert!(detail.contains("`name`"), "{detail}");

    let huge = "x".repeat(5 * 1024 * 1024);
    let detail = api
        .post("/servers", json!({ "name": "big", "instructions": huge }))
        .await
        .problem(StatusCode::PAYLOAD_TOO_LARGE, Some("body"), "a 5 MiB body");
    assert!(detail.contains("4 MiB"), "{detail}");
    assert_eq!(api.saved(), before, "nothing changed");
}

#[tokio::test]
async fn a_body_nested_to_the_limit_is_saved_and_read_back_and_a_deeper_one_is_refused() {
    // Arrange: a tool whose template carries a `_meta` of `levels` nested objects. The
    // body is one level, the template a second, so 62 levels of `_meta` reach the API's
    // limit of 64 (servers.json holds them inside more levels, and its reader stops at 128).
    let api = Api::start("api-depth");
    let tool = |name: &str, levels: usize| {
        let meta = (0..levels).fold(json!(1), |inner, _| json!({ "a": inner }));
        json!({
            "name": name,
            "template": { "content": [{ "type": "text", "text": "deep" }], "_meta": meta },
        })
    };
    let before = api.saved();

    // Act
    let refused = api.post("/servers/echo/tools", tool("deeper", 63)).await;
    let saved = api.post("/servers/echo/tools", tool("deep", 62)).await;

    // Assert: the deeper body is refused naming where, and changed nothing.
    let detail = refused.problem(
        StatusCode::BAD_REQUEST,
        Some("body"),
        "a body 65 levels deep",
    );
    assert!(
        detail.contains("deeper than 64 levels") && detail.contains("template._meta.a.a"),
        "{detail}"
    );
    assert!(api.saved_tool("echo", "deeper").is_none(), "{before}");
    saved.expect(StatusCode::CREATED, "a body 64 levels deep");
    // The next start reads servers.json back, with the deep tool in it.
    let Api { app, dir, .. } = api;
    drop(app);
    let app = Running::start(dir.path());
    let api = Api {
        http: app.api_client(),
        app,
        dir,
    };
    let template = api
        .get("/servers/echo/tools/deep")
        .await
        .expect(StatusCode::OK, "the deep tool after a restart")["template"]
        .clone();
    let mut depth = 0;
    let mut meta = &template["_meta"];
    while let Some(inner) = meta.get("a") {
        depth += 1;
        meta = inner;
    }
    assert_eq!(depth, 62, "{template}");
}

#[tokio::test]
async fn a_post_with_an_unknown_member_is_400_naming_it_on_every_route() {
    // Arrange: each POST route, a body it would take but for one misspelt member (issue 12:
    // these answered 201 and created something other than asked).
    let api = Api::start("api-post-unknown");
    let before = api.saved();
    let cases = [
        (
            "/servers",
            json!({ "name": "weather", "tool": [{ "name": "get_forecast" }] }),
            "tool",
        ),
        (
            "/servers",
            json!({ "name": "weather", "tools": [{ "name": "x", "templat": {} }] }),
            "tools[0].templat",
        ),
        (
            "/servers/echo/tools",
            json!({ "name": "x", "templat": { "content": [] } }),
            "templat",
        ),
        (
            "/servers/echo/tools",
            json!({ "name": "x", "annotations": { "readOnly": true } }),
            "annotations.readOnly",
        ),
        (
            "/servers/echo/tools",
            json!({ "name": "x", "script": [{ "step": "delay", "ms": 5, "unit": "s" }] }),
            "script[0].unit",
        ),
        (
            "/servers/echo/resources",
            json!({ "uri": "memo://a", "name": "a", "text": "hi", "mime": "text/plain" }),
            "mime",
        ),
        (
            "/servers/echo/resource-templates",
            json!({ "uriTemplate": "memo://{id}", "name": "m", "template": { "text": "x" }, "mime": "x" }),
            "mime",
        ),
        (
            "/servers/echo/prompts",
            json!({ "name": "p", "argument": [{ "name": "city" }] }),
            "argument",
        ),
        (
            "/servers/echo/prompts",
            json!({ "name": "p", "arguments": [{ "name": "city", "require": true }] }),
            "arguments[0].require",
        ),
        (
            "/templates/check",
            json!({ "template": {}, "ownr": "tool" }),
            "ownr",
        ),
    ];

    for (path, body, field) in cases {
        // Act
        let detail = api
            .post(path, body)
            .await
            .problem(StatusCode::BAD_REQUEST, Some(field), path);

        // Assert: worded as a PATCH words it.
        let member = field.rsplit(['.', ']']).next().unwrap_or(field);
        assert!(
            detail.contains(&format!("unknown field `{member}`, expected")),
            "{path}: {detail}"
        );
    }
    assert_eq!(api.saved(), before, "nothing was created");
}

#[tokio::test]
async fn unknown_routes_and_methods_answer_problems() {
    let api = Api::start("api-unknown");
    let detail =
        api.get("/no/such/route")
            .await
            .problem(StatusCode::NOT_FOUND, None, "an unknown route");
    assert!(detail.contains("openapi.json"), "{detail}");
    api.call(Method::PUT, "/servers", Some(json!({})))
        .await
        .problem(StatusCode::METHOD_NOT_ALLOWED, None, "PUT /servers");
}

// ---------------------------------------------------------------------------------------
// Servers

#[tokio::test]
async fn servers_are_created_read_updated_and_deleted_and_servers_json_follows_each_change() {
    let api = Api::start("api-servers");

    // Create: a name is enough, and the server has no tools.
    let reply = api
        .post("/servers", json!({ "name": "weather", "title": "Weather" }))
        .await;
    assert_eq!(
        reply.headers.get(LOCATION).and_then(|v| v.to_str().ok()),
        Some("/api/v1/servers/weather")
    );
    let created = reply.expect(StatusCode::CREATED, "create weather");
    assert_eq!(created["url"], api.mcp_url("weather"));
    assert_eq!(created["tools"], json!([]));
    assert_eq!(created["sessions"], 0);
    let saved = api
        .saved_server("weather")
        .expect("weather is in servers.json");
    assert_eq!(saved["title"], "Weather");
    assert_eq!(saved["tools"], json!([]));

    // It serves MCP at once.
    let client = connect(&api.mcp_url("weather")).await;
    assert_eq!(tool_names(&client).await, Vec::<String>::new());

    // List.
    let list = api.get("/servers").await.expect(StatusCode::OK, "list");
    let names: Vec<&str> = list
        .as_array()
        .expect("an array")
        .iter()
        .filter_map(|s| s["name"].as_str())
        .collect();
    assert_eq!(names, ["echo", "weather"]);
    let echo = &list[0];
    assert_eq!(echo["url"], api.mcp_url("echo"));
    assert_eq!(echo["tools"], 1);
    assert_eq!(echo["publishedTools"], 1);
    assert_eq!(echo["oauth"], false);
    assert_eq!(list[1]["sessions"], 1, "the client's session is live");

    // Get.
    let weather = api
        .get("/servers/weather")
        .await
        .expect(StatusCode::OK, "get weather");
    assert_eq!(weather["title"], "Weather");
    assert_eq!(weather["name"], "weather");

    // Update settings; null resets one.
    let updated = api
        .patch(
            "/servers/weather",
            json!({ "instructions": "Ask about rain.", "pageSize": 2, "version": "9.9.9",
                "responseMode": "sse", "protocolVersions": ["2025-06-18", "2025-11-25"] }),
        )
        .await
        .expect(StatusCode::OK, "patch weather");
    assert_eq!(updated["instructions"], "Ask about rain.");
    let saved = api.saved_server("weather").expect("weather is saved");
    assert_eq!(saved["instructions"], "Ask about rain.");
    assert_eq!(saved["pageSize"], 2);
    assert_eq!(saved["version"], "9.9.9");
    assert_eq!(saved["responseMode"], "sse");
    assert_eq!(
        saved["protocolVersions"],
        json!(["2025-06-18", "2025-11-25"])
    );
    let reset = api
        .patch(
            "/servers/weather",
            json!({ "title": null, "pageSize": null }),
        )
        .await
        .expect(StatusCode::OK, "reset title and pageSize");
    assert!(reset.get("title").is_none(), "{reset}");
    let saved = api.saved_server("weather").expect("weather is saved");
    assert!(
        saved.get("title").is_none() && saved.get("pageSize").is_none(),
        "{saved}"
    );
    let fresh = connect(&api.mcp_url("weather")).await;
    let info = fresh.peer_info().expect("the server's initialize result");
    let server_info = info.server_info.as_ref().expect("serverInfo");
    assert_eq!(server_info.version, "9.9.9");
    assert_eq!(info.instructions.as_deref(), Some("Ask about rain."));

    // Delete: the file loses it, the API and MCP URL answer 404.
    api.delete("/servers/weather")
        .await
        .expect(StatusCode::NO_CONTENT, "delete weather");
    assert!(api.saved_server("weather").is_none(), "{}", api.saved());
    api.get("/servers/weather").await.problem(
        StatusCode::NOT_FOUND,
        Some("server"),
        "deleted weather",
    );
    assert_eq!(
        raw_initialize(&api.mcp_url("weather")).await.status(),
        StatusCode::NOT_FOUND
    );
    api.delete("/servers/weather").await.problem(
        StatusCode::NOT_FOUND,
        Some("server"),
        "delete twice",
    );
}

#[tokio::test]
async fn validate_arguments_is_a_server_setting_patched_over_rest_and_kept_in_servers_json() {
    // Arrange: a server whose tool wants an integer `limit`; validation is off by default.
    let api = Api::start("api-validate");
    let tool = json!({
        "name": "search",
        "inputSchema": { "type": "object", "properties": { "limit": { "type": "integer" } } }
    });
    api.post("/servers", json!({ "name": "shop", "tools": [tool] }))
        .await
        .expect(StatusCode::CREATED, "create shop");
    let client = connect(&api.mcp_url("shop")).await;
    let answered = call_ok(&client, "search", json!({ "limit": "5" })).await;
    assert!(
        !answered.is_error.unwrap_or(false),
        "off: answered as usual"
    );
    client.cancel().await.expect("the client closes");

    // Act: turn it on.
    let patched = api
        .patch("/servers/shop", json!({ "validateArguments": true }))
        .await
        .expect(StatusCode::OK, "patch validateArguments");

    // Assert: the setting reads back, is saved, and a reconnecting client is refused.
    assert_eq!(patched["validateArguments"], true);
    assert_eq!(
        api.saved_server("shop").expect("shop is saved")["validateArguments"],
        true
    );
    let client = connect(&api.mcp_url("shop")).await;
    let refused = tokio::time::timeout(
        PATIENCE,
        client.call_tool(common::call("search", json!({ "limit": "5" }))),
    )
    .await
    .expect("the call is answered in time");
    match refused {
        Err(rmcp::ServiceError::McpError(error)) => {
            assert_eq!(error.code.0, -32602);
            assert!(
                error
                    .message
                    .contains(r#"at /limit: "5" is not of type "integer""#),
                "{}",
                error.message
            );
        }
        other => panic!("expected -32602, got {other:?}"),
    }
    client.cancel().await.expect("the client closes");

    // The capture the API serves records the violation on the call.
    let logs = api
        .get("/servers/shop/logs?limit=1000")
        .await
        .expect(StatusCode::OK, "logs");
    let flagged: Vec<&Value> = logs["records"]
        .as_array()
        .expect("records")
        .iter()
        .filter(|r| r.get("argumentErrors").is_some())
        .collect();
    assert_eq!(flagged.len(), 1, "{logs}");
    assert_eq!(flagged[0]["argumentErrors"][0]["pointer"], "/limit");

    // `null` resets it to the default, which servers.json leaves out.
    let reset = api
        .patch("/servers/shop", json!({ "validateArguments": null }))
        .await
        .expect(StatusCode::OK, "reset validateArguments");
    assert!(reset.get("validateArguments").is_none(), "{reset}");
    let saved = api.saved_server("shop").expect("shop is saved");
    assert!(saved.get("validateArguments").is_none(), "{saved}");
}

#[tokio::test]
async fn deleting_a_server_closes_its_sessions() {
    let api = Api::start("api-delete-sessions");
    let _client = connect(&api.mcp_url("echo")).await;
    let sessions = api.session_ids("echo").await;
    assert_eq!(sessions.len(), 1);
    api.delete("/servers/echo")
        .await
        .expect(StatusCode::NO_CONTENT, "delete echo");
    let reply = raw_tools_list(&api.mcp_url("echo"), &sessions[0]).await;
    assert_eq!(reply.status(), StatusCode::NOT_FOUND);
    assert_eq!(api.saved()["servers"], json!([]));
}

#[tokio::test]
async fn server_names_that_are_taken_or_invalid_are_refused() {
    let api = Api::start("api-server-names");
    api.post("/servers", json!({ "name": "other" }))
        .await
        .expect(StatusCode::CREATED, "create other");
    let before = api.saved();

    let detail = api
        .post("/servers", json!({ "name": "echo" }))
        .await
        .problem(StatusCode::CONFLICT, Some("name"), "a taken name");
    assert!(detail.contains("echo"), "{detail}");
    api.post("/servers", json!({ "name": "a/b" }))
        .await
        .problem(StatusCode::BAD_REQUEST, Some("name"), "a slash in the name");
    api.post("/servers", json!({ "name": "x", "pageSize": 0 }))
        .await
        .problem(StatusCode::BAD_REQUEST, Some("pageSize"), "pageSize 0");
    api.post(
        "/servers",
        json!({ "name": "x", "tools": [{ "name": "a" }, { "name": "a" }] }),
    )
    .await
    .problem(StatusCode::CONFLICT, Some("name"), "two tools named a");
    api.patch("/servers/echo", json!({ "name": "other" }))
        .await
        .problem(StatusCode::CONFLICT, Some("name"), "a rename onto other");
    api.patch("/servers/echo", json!({ "name": "bad name" }))
        .await
        .problem(
            StatusCode::BAD_REQUEST,
            Some("name"),
            "a rename to a bad name",
        );
    api.patch("/servers/echo", json!({ "tools": [] }))
        .await
        .problem(
            StatusCode::BAD_REQUEST,
            Some("tools"),
            "tools are not a server setting",
        );
    api.patch("/servers/nope", json!({ "title": "x" }))
        .await
        .problem(StatusCode::NOT_FOUND, Some("server"), "an unknown server");
    assert_eq!(api.saved(), before, "no refused change reached the file");
}

#[tokio::test]
async fn a_rename_moves_the_server_and_ends_its_sessions() {
    let api = Api::start("api-rename");
    let client = connect(&api.mcp_url("echo")).await;
    let old_sessions = api.session_ids("echo").await;
    assert_eq!(old_sessions.len(), 1);

    let renamed = api
        .patch("/servers/echo", json!({ "name": "echo2" }))
        .await
        .expect(StatusCode::OK, "rename echo to echo2");
    assert_eq!(renamed["url"], api.mcp_url("echo2"));
    assert_eq!(renamed["sessions"], 0, "its sessions ended");

    // The file, the API and the MCP URL all moved.
    assert!(api.saved_server("echo").is_none(), "{}", api.saved());
    let saved = api.saved_server("echo2").expect("echo2 is saved");
    assert_eq!(saved["tools"][0]["name"], "echo", "the tools moved along");
    api.get("/servers/echo")
        .await
        .problem(StatusCode::NOT_FOUND, Some("server"), "the old name");
    assert_eq!(
        raw_initialize(&api.mcp_url("echo")).await.status(),
        StatusCode::NOT_FOUND,
        "the old MCP URL"
    );
    for url in [api.mcp_url("echo"), api.mcp_url("echo2")] {
        assert_eq!(
            raw_tools_list(&url, &old_sessions[0]).await.status(),
            StatusCode::NOT_FOUND,
            "the old session at {url}"
        );
    }
    drop(client);

    let moved = connect(&api.mcp_url("echo2")).await;
    let result = call_ok(&moved, "echo", json!({ "message": "still here" })).await;
    assert_eq!(text(&result), "still here");
    let new_sessions = api.session_ids("echo2").await;
    assert_eq!(new_sessions.len(), 1);
    assert_ne!(new_sessions, old_sessions);
}

// ---------------------------------------------------------------------------------------
// Tools

#[tokio::test]
async fn tools_are_created_as_drafts_read_updated_renamed_and_deleted() {
    let api = Api::start("api-tools");

    let reply = api
        .post(
            "/servers/echo/tools",
            json!({ "name": "forecast", "description": "Weather." }),
        )
        .await;
    assert_eq!(
        reply.headers.get(LOCATION).and_then(|v| v.to_str().ok()),
        Some("/api/v1/servers/echo/tools/forecast")
    );
    let tool = reply.expect(StatusCode::CREATED, "create forecast");
    assert_eq!(tool["published"], false, "a new tool starts as a draft");
    assert_eq!(
        tool["template"],
        json!({ "content": [{ "type": "text", "text": { "$json": { "$eval": "args" } } }] }),
        "the default template"
    );
    let saved = api
        .saved_tool("echo", "forecast")
        .expect("forecast is saved");
    assert_eq!(saved["published"], false);

    // A tool created with `published: true` is published.
    api.post(
        "/servers/echo/tools",
        json!({ "name": "live", "published": true }),
    )
    .await
    .expect(StatusCode::CREATED, "create live");
    assert_eq!(
        api.saved_tool("echo", "live").expect("live")["published"],
        true
    );

    // List, drafts included, and get one.
    let tools = api
        .get("/servers/echo/tools")
        .await
        .expect(StatusCode::OK, "list tools");
    let names: Vec<&str> = tools
        .as_array()
        .expect("an array")
        .iter()
        .filter_map(|t| t["name"].as_str())
        .collect();
    assert_eq!(names, ["echo", "forecast", "live"]);
    let one = api
        .get("/servers/echo/tools/forecast")
        .await
        .expect(StatusCode::OK, "get forecast");
    assert_eq!(one["description"], "Weather.");

    // Update fields; each replaces the old value whole.
    let schema = json!({ "type": "object", "properties": { "city": { "type": "string" } } });
    let template = json!({ "content": [{ "type": "text", "text": "Rain in ${args.city}" }] });
    let updated = api
        .patch(
            "/servers/echo/tools/forecast",
            json!({ "title": "Forecast", "inputSchema": schema, "template": template,
                "annotations": { "readOnlyHint": true } }),
        )
        .await
        .expect(StatusCode::OK, "patch forecast");
    assert_eq!(updated["inputSchema"], schema);
    let saved = api
        .saved_tool("echo", "forecast")
        .expect("forecast is saved");
    assert_eq!(saved["title"], "Forecast");
    assert_eq!(saved["template"], template);
    assert_eq!(saved["annotations"], json!({ "readOnlyHint": true }));
    assert_eq!(saved["published"], false, "still a draft");

    // Publish, and a client can call it.
    api.patch("/servers/echo/tools/forecast", json!({ "published": true }))
        .await
        .expect(StatusCode::OK, "publish forecast");
    assert_eq!(
        api.saved_tool("echo", "forecast").expect("forecast")["published"],
        true
    );
    let client = connect(&api.mcp_url("echo")).await;
    let result = call_ok(&client, "forecast", json!({ "city": "Oslo" })).await;
    assert_eq!(text(&result), "Rain in Oslo");

    // Rename.
    api.patch("/servers/echo/tools/forecast", json!({ "name": "weather" }))
        .await
        .expect(StatusCode::OK, "rename forecast");
    assert!(api.saved_tool("echo", "forecast").is_none());
    assert!(api.saved_tool("echo", "weather").is_some());
    api.get("/servers/echo/tools/forecast").await.problem(
        StatusCode::NOT_FOUND,
        Some("tool"),
        "the old name",
    );

    // Delete.
    api.delete("/servers/echo/tools/weather")
        .await
        .expect(StatusCode::NO_CONTENT, "delete weather");
    assert!(
        api.saved_tool("echo", "weather").is_none(),
        "{}",
        api.saved()
    );
    api.delete("/servers/echo/tools/weather").await.problem(
        StatusCode::NOT_FOUND,
        Some("tool"),
        "delete twice",
    );
}

#[tokio::test]
async fn invalid_tool_changes_are_refused_naming_the_field() {
    let api = Api::start("api-tool-errors");
    let before = api.saved();
    api.post("/servers/echo/tools", json!({ "name": "echo" }))
        .await
        .problem(StatusCode::CONFLICT, Some("name"), "a taken tool name");
    api.post("/servers/echo/tools", json!({ "name": "bad name" }))
        .await
        .problem(
            StatusCode::BAD_REQUEST,
            Some("name"),
            "an invalid tool name",
        );
    api.post(
        "/servers/echo/tools",
        json!({ "name": "t", "inputSchema": { "type": "string" } }),
    )
    .await
    .problem(
        StatusCode::BAD_REQUEST,
        Some("inputSchema"),
        "a non-object schema",
    );
    api.post(
        "/servers/echo/tools",
        json!({ "name": "t", "template": { "$if": "1 +" } }),
    )
    .await
    .problem(
        StatusCode::BAD_REQUEST,
        Some("template"),
        "a broken template",
    );
    api.post("/servers/nope/tools", json!({ "name": "t" }))
        .await
        .problem(StatusCode::NOT_FOUND, Some("server"), "an unknown server");
    api.patch("/servers/echo/tools/nope", json!({ "title": "x" }))
        .await
        .problem(StatusCode::NOT_FOUND, Some("tool"), "an unknown tool");
    api.get("/servers/echo/tools/nope").await.problem(
        StatusCode::NOT_FOUND,
        Some("tool"),
        "get an unknown tool",
    );
    api.post("/servers/echo/tools", json!({ "name": "other" }))
        .await
        .expect(StatusCode::CREATED, "create other");
    let before_rename = api.saved();
    api.patch("/servers/echo/tools/other", json!({ "name": "echo" }))
        .await
        .problem(StatusCode::CONFLICT, Some("name"), "a rename onto echo");
    assert_eq!(
        api.saved(),
        before_rename,
        "the refused rename changed nothing"
    );
    assert_ne!(api.saved(), before);
}

#[tokio::test]
async fn publishing_a_draft_sends_list_changed_and_editing_a_draft_does_not() {
    let api = Api::start("api-list-changed");
    let (client, mut changed) = connect_watching(&api.mcp_url("echo")).await;

    // A draft: created and edited without a word to the client.
    api.post("/servers/echo/tools", json!({ "name": "get_forecast" }))
        .await
        .expect(StatusCode::CREATED, "create the draft");
    api.patch(
        "/servers/echo/tools/get_forecast",
        json!({ "description": "Forecast." }),
    )
    .await
    .expect(StatusCode::OK, "edit the draft");
    api.patch(
        "/servers/echo/tools/get_forecast",
        json!({ "name": "forecast" }),
    )
    .await
    .expect(StatusCode::OK, "rename the draft");
    assert!(
        changed.stays_quiet().await,
        "a draft change sent list_changed"
    );
    assert_eq!(tool_names(&client).await, ["echo"]);

    // Publish: exactly one notification, and the tool is listed.
    api.patch("/servers/echo/tools/forecast", json!({ "published": true }))
        .await
        .expect(StatusCode::OK, "publish");
    changed.expect_one("PATCH {\"published\": true}").await;
    assert!(changed.stays_quiet().await, "one publish, one notification");
    assert_eq!(tool_names(&client).await, ["echo", "forecast"]);

    // Publishing again changes nothing and says nothing.
    api.patch("/servers/echo/tools/forecast", json!({ "published": true }))
        .await
        .expect(StatusCode::OK, "publish again");
    assert!(changed.stays_quiet().await, "a no-op sent list_changed");

    // Edit, rename, unpublish of a published tool each notify.
    api.patch(
        "/servers/echo/tools/forecast",
        json!({ "description": "Changed." }),
    )
    .await
    .expect(StatusCode::OK, "edit the published tool");
    changed.expect_one("an edit of a published tool").await;
    api.patch("/servers/echo/tools/forecast", json!({ "name": "weather" }))
        .await
        .expect(StatusCode::OK, "rename the published tool");
    changed.expect_one("a rename of a published tool").await;
    api.patch("/servers/echo/tools/weather", json!({ "published": false }))
        .await
        .expect(StatusCode::OK, "unpublish");
    changed.expect_one("unpublishing").await;
    assert_eq!(tool_names(&client).await, ["echo"]);

    // Deleting a draft is silent; deleting a published tool is not.
    api.delete("/servers/echo/tools/weather")
        .await
        .expect(StatusCode::NO_CONTENT, "delete the draft");
    assert!(
        changed.stays_quiet().await,
        "deleting a draft sent list_changed"
    );
    api.delete("/servers/echo/tools/echo")
        .await
        .expect(StatusCode::NO_CONTENT, "delete the published echo");
    changed.expect_one("deleting a published tool").await;
    assert_eq!(tool_names(&client).await, Vec::<String>::new());
}

// ---------------------------------------------------------------------------------------
// Resources, resource templates and prompts

#[tokio::test]
async fn resources_are_addressed_by_their_percent_encoded_uri() {
    let api = Api::start("api-resources");
    let client = connect(&api.mcp_url("echo")).await;
    let before = api.session_ids("echo").await;

    let reply = api
        .post(
            "/servers/echo/resources",
            json!({ "uri": "test://docs/readme", "name": "readme", "mimeType": "text/plain",
                "text": "hello" }),
        )
        .await;
    assert_eq!(
        reply.headers.get(LOCATION).and_then(|v| v.to_str().ok()),
        Some("/api/v1/servers/echo/resources/test%3A%2F%2Fdocs%2Freadme")
    );
    reply.expect(StatusCode::CREATED, "create a resource");
    let saved = api.saved_server("echo").expect("echo is saved");
    assert_eq!(saved["resources"][0]["uri"], "test://docs/readme");
    assert_eq!(saved["resources"][0]["text"], "hello");

    // The server had no resources capability: it was rebuilt, its session ended, and a
    // client that connects now can read the resource.
    assert_eq!(
        raw_tools_list(&api.mcp_url("echo"), &before[0])
            .await
            .status(),
        StatusCode::NOT_FOUND
    );
    drop(client);
    let client = connect(&api.mcp_url("echo")).await;
    let read = client
        .read_resource(rmcp::model::ReadResourceRequestParams::new(
            "test://docs/readme",
        ))
        .await
        .expect("resources/read");
    assert!(format!("{:?}", read.contents).contains("hello"), "{read:?}");

    let path = "/servers/echo/resources/test%3A%2F%2Fdocs%2Freadme";
    let one = api
        .get(path)
        .await
        .expect(StatusCode::OK, "get the resource");
    assert_eq!(one["name"], "readme");
    let list = api
        .get("/servers/echo/resources")
        .await
        .expect(StatusCode::OK, "list resources");
    assert_eq!(list.as_array().map(Vec::len), Some(1));

    // Giving `blob` replaces `text`.
    let blob = api
        .patch(path, json!({ "blob": "aGk=", "description": "Two bytes." }))
        .await
        .expect(StatusCode::OK, "patch to a blob");
    assert_eq!(blob["blob"], "aGk=");
    assert!(blob.get("text").is_none(), "{blob}");
    let saved = api.saved_server("echo").expect("echo is saved");
    assert_eq!(saved["resources"][0]["blob"], "aGk=");
    assert_eq!(saved["resources"][0]["description"], "Two bytes.");
    api.patch(path, json!({ "blob": null })).await.problem(
        StatusCode::BAD_REQUEST,
        Some("blob"),
        "clearing the contents",
    );
    api.patch(path, json!({ "blob": "not base64!" }))
        .await
        .problem(
            StatusCode::BAD_REQUEST,
            Some("blob"),
            "a blob that is not base64",
        );

    // Errors.
    api.post(
        "/servers/echo/resources",
        json!({ "uri": "test://docs/readme", "name": "again", "text": "x" }),
    )
    .await
    .problem(StatusCode::CONFLICT, Some("uri"), "a URI the server has");
    api.post(
        "/servers/echo/resources",
        json!({ "uri": "test://x", "name": "empty" }),
    )
    .await
    .problem(StatusCode::BAD_REQUEST, Some("text"), "no contents");
    api.get("/servers/echo/resources/test%3A%2F%2Fnope")
        .await
        .problem(StatusCode::NOT_FOUND, Some("uri"), "an unknown URI");

    api.delete(path)
        .await
        .expect(StatusCode::NO_CONTENT, "delete the resource");
    assert!(
        api.saved_server("echo").expect("echo")["resources"].is_null(),
        "{}",
        api.saved()
    );
}

#[tokio::test]
async fn resource_templates_are_created_read_updated_and_deleted() {
    let api = Api::start("api-templates");
    api.post(
        "/servers/echo/resource-templates",
        json!({ "uriTemplate": "test://items/{id}", "name": "item",
            "template": { "text": "item ${vars.id}" } }),
    )
    .await
    .expect(StatusCode::CREATED, "create a template");
    assert_eq!(
        api.saved_server("echo").expect("echo")["resourceTemplates"][0]["uriTemplate"],
        "test://items/{id}"
    );
    let client = connect(&api.mcp_url("echo")).await;
    let read = client
        .read_resource(rmcp::model::ReadResourceRequestParams::new(
            "test://items/7",
        ))
        .await
        .expect("resources/read through the template");
    assert!(
        format!("{:?}", read.contents).contains("item 7"),
        "{read:?}"
    );

    let path = "/servers/echo/resource-templates/test%3A%2F%2Fitems%2F%7Bid%7D";
    api.get(path)
        .await
        .expect(StatusCode::OK, "get the template");
    let updated = api
        .patch(path, json!({ "description": "Items by id." }))
        .await
        .expect(StatusCode::OK, "patch the template");
    assert_eq!(updated["description"], "Items by id.");
    assert_eq!(
        api.saved_server("echo").expect("echo")["resourceTemplates"][0]["description"],
        "Items by id."
    );
    let list = api
        .get("/servers/echo/resource-templates")
        .await
        .expect(StatusCode::OK, "list templates");
    assert_eq!(list.as_array().map(Vec::len), Some(1));
    api.patch(path, json!({ "uriTemplate": "test://items/{" }))
        .await
        .problem(
            StatusCode::BAD_REQUEST,
            Some("uriTemplate"),
            "a broken URI template",
        );
    api.delete(path)
        .await
        .expect(StatusCode::NO_CONTENT, "delete the template");
    assert!(api.saved_server("echo").expect("echo")["resourceTemplates"].is_null());
    api.get(path).await.problem(
        StatusCode::NOT_FOUND,
        Some("template"),
        "a deleted template",
    );
}

#[tokio::test]
async fn prompts_are_created_read_updated_renamed_and_deleted() {
    let api = Api::start("api-prompts");
    let reply = api
        .post(
            "/servers/echo/prompts",
            json!({ "name": "greet", "arguments": [{ "name": "who", "required": true }],
                "template": [{ "role": "user", "content": { "type": "text", "text": "Hello ${args.who}" } }] }),
        )
        .await;
    assert_eq!(
        reply.headers.get(LOCATION).and_then(|v| v.to_str().ok()),
        Some("/api/v1/servers/echo/prompts/greet")
    );
    reply.expect(StatusCode::CREATED, "create greet");
    assert_eq!(
        api.saved_server("echo").expect("echo")["prompts"][0]["name"],
        "greet"
    );

    // The first prompt rebuilt the server with the prompts capability; a second one is
    // added live with prompts/list_changed.
    let client = connect(&api.mcp_url("echo")).await;
    let prompts = client.list_all_prompts().await.expect("prompts/list");
    assert_eq!(prompts.len(), 1);
    api.post("/servers/echo/prompts", json!({ "name": "summarize" }))
        .await
        .expect(StatusCode::CREATED, "create summarize");
    assert_eq!(api.session_ids("echo").await.len(), 1, "added live");

    let updated = api
        .patch(
            "/servers/echo/prompts/greet",
            json!({ "description": "Says hello." }),
        )
        .await
        .expect(StatusCode::OK, "patch greet");
    assert_eq!(
        updated["arguments"][0]["name"], "who",
        "untouched fields stay"
    );
    api.patch("/servers/echo/prompts/greet", json!({ "name": "hello" }))
        .await
        .expect(StatusCode::OK, "rename greet");
    let saved = api.saved_server("echo").expect("echo");
    assert_eq!(saved["prompts"][0]["name"], "hello");
    assert_eq!(saved["prompts"][0]["description"], "Says hello.");
    api.patch(
        "/servers/echo/prompts/hello",
        json!({ "name": "summarize" }),
    )
    .await
    .problem(
        StatusCode::CONFLICT,
        Some("name"),
        "a rename onto summarize",
    );
    api.post("/servers/echo/prompts", json!({ "name": "summarize" }))
        .await
        .problem(StatusCode::CONFLICT, Some("name"), "a taken prompt name");

    let list = api
        .get("/servers/echo/prompts")
        .await
        .expect(StatusCode::OK, "list prompts");
    assert_eq!(list.as_array().map(Vec::len), Some(2));
    api.get("/servers/echo/prompts/hello")
        .await
        .expect(StatusCode::OK, "get hello");
    api.delete("/servers/echo/prompts/hello")
        .await
        .expect(StatusCode::NO_CONTENT, "delete hello");
    api.get("/servers/echo/prompts/hello").await.problem(
        StatusCode::NOT_FOUND,
        Some("prompt"),
        "a deleted prompt",
    );
    assert_eq!(
        api.saved_server("echo").expect("echo")["prompts"]
            .as_array()
            .map(Vec::len),
        Some(1)
    );
}

// ---------------------------------------------------------------------------------------
// Sessions and OAuth

#[tokio::test]
async fn sessions_are_listed_and_a_closed_session_gets_404_on_its_next_request() {
    let api = Api::start("api-sessions");
    let _client = connect(&api.mcp_url("echo")).await;
    let sessions = api
        .get("/servers/echo/sessions")
        .await
        .expect(StatusCode::OK, "list sessions");
    let session = &sessions[0];
    assert_eq!(sessions.as_array().map(Vec::len), Some(1), "{sessions}");
    assert_eq!(session["clientName"], common::CLIENT_NAME);
    assert_eq!(session["clientVersion"], "1.0.0");
    assert_eq!(session["era"], "legacy");
    assert_eq!(session["protocolVersion"], "2025-11-25");
    assert_eq!(session["initialized"], true);
    assert!(session["createdAt"].is_string(), "{session}");
    let id = session["id"].as_str().expect("a session id").to_string();

    // Before: the session answers. After the DELETE: 404.
    let url = api.mcp_url("echo");
    assert_eq!(raw_tools_list(&url, &id).await.status(), StatusCode::OK);
    api.delete(&format!("/servers/echo/sessions/{id}"))
        .await
        .expect(StatusCode::NO_CONTENT, "close the session");
    assert_eq!(
        raw_tools_list(&url, &id).await.status(),
        StatusCode::NOT_FOUND
    );
    assert_eq!(api.session_ids("echo").await, Vec::<String>::new());
    api.delete(&format!("/servers/echo/sessions/{id}"))
        .await
        .problem(StatusCode::NOT_FOUND, Some("session"), "close twice");
    api.get("/servers/nope/sessions").await.problem(
        StatusCode::NOT_FOUND,
        Some("server"),
        "an unknown server",
    );
}

#[tokio::test]
async fn oauth_token_routes_say_the_server_does_not_use_oauth() {
    let api = Api::start("api-oauth");
    for (method, path) in [
        (Method::GET, "/servers/echo/oauth/tokens"),
        (Method::DELETE, "/servers/echo/oauth/tokens"),
        (Method::DELETE, "/servers/echo/oauth/tokens/abc"),
    ] {
        let detail = api.call(method.clone(), path, None).await.problem(
            StatusCode::NOT_FOUND,
            Some("server"),
            path,
        );
        assert_eq!(
            detail, "server `echo` does not use OAuth",
            "{method} {path}"
        );
    }
    let detail = api.get("/servers/nope/oauth/tokens").await.problem(
        StatusCode::NOT_FOUND,
        Some("server"),
        "an unknown server",
    );
    assert!(detail.contains("no server named `nope`"), "{detail}");
}

// ---------------------------------------------------------------------------------------
// The live template check

#[tokio::test]
async fn the_template_check_refuses_exactly_what_saving_the_template_would_refuse() {
    let api = Api::start("api-template-check");
    let check = |template: Value, owner: Option<&str>| {
        let mut body = json!({ "template": template });
        if let Some(owner) = owner {
            body["owner"] = json!(owner);
        }
        api.post("/templates/check", body)
    };

    // A template that renders, and one whose errors only arguments decide (product guide:
    // "Errors that depend on `args`, such as a missing property, appear when a client calls
    // the tool"), both pass.
    let fine = json!({ "content": [{ "type": "text", "text": "Forecast for ${args.city}" }] });
    let verdict = check(fine.clone(), None)
        .await
        .expect(StatusCode::OK, "fine");
    assert_eq!(verdict, json!({ "ok": true }));
    let needs_args =
        json!({ "content": [{ "type": "text", "text": { "$eval": "args.city.length" } }] });
    let verdict = check(needs_args, None).await.expect(StatusCode::OK, "args");
    assert_eq!(verdict, json!({ "ok": true }));
    // The output is not checked as a CallToolResult: only a call does that.
    let not_a_result = json!({ "anything": [1, 2] });
    let verdict = check(not_a_result, None)
        .await
        .expect(StatusCode::OK, "not a result");
    assert_eq!(verdict["ok"], true);

    // Errors no arguments can fix: a syntax error, an unknown name.
    let broken = json!({ "content": [{ "type": "text", "text": "${args.city" }] });
    let verdict = check(broken.clone(), None)
        .await
        .expect(StatusCode::OK, "broken");
    assert_eq!(verdict["ok"], false);
    let error = verdict["error"].as_str().expect("an error");
    assert!(error.contains("unterminated"), "{error}");
    let unknown = json!({ "content": [{ "type": "text", "text": "${vars.id}" }] });
    let verdict = check(unknown.clone(), None)
        .await
        .expect(StatusCode::OK, "unknown");
    assert_eq!(verdict["ok"], false, "{verdict}");

    // Each owner has its own names: `vars` is a resource template's, not a tool's.
    let verdict = check(json!({ "text": "${vars.id}" }), Some("resourceTemplate"))
        .await
        .expect(StatusCode::OK, "resource template");
    assert_eq!(verdict, json!({ "ok": true }));
    let verdict = check(json!({ "text": "${args.x}" }), Some("resourceTemplate"))
        .await
        .expect(StatusCode::OK, "args in a resource template");
    assert_eq!(verdict["ok"], false);
    let verdict = check(json!([]), Some("prompt"))
        .await
        .expect(StatusCode::OK, "prompt");
    assert_eq!(verdict, json!({ "ok": true }));

    // What the check refuses, a save refuses, naming `template`; what it passes, a save takes.
    for template in [broken, unknown] {
        api.post(
            "/servers/echo/tools",
            json!({ "name": "t", "template": template }),
        )
        .await
        .problem(
            StatusCode::BAD_REQUEST,
            Some("template"),
            "save a refused template",
        );
    }
    api.post(
        "/servers/echo/tools",
        json!({ "name": "t", "template": fine }),
    )
    .await
    .expect(StatusCode::CREATED, "save a template the check passes");

    // Bodies are checked like every other POST's.
    api.post("/templates/check", json!({})).await.problem(
        StatusCode::BAD_REQUEST,
        Some("body"),
        "no template",
    );
    api.post(
        "/templates/check",
        json!({ "template": {}, "owner": "tools" }),
    )
    .await
    .problem(StatusCode::BAD_REQUEST, Some("owner"), "an unknown owner");
    let reply = api
        .send(
            api.http
                .post(api.url("/templates/check"))
                .body(r#"{"template": {}}"#),
            "no Content-Type",
        )
        .await;
    reply.problem(
        StatusCode::UNSUPPORTED_MEDIA_TYPE,
        Some("Content-Type"),
        "no Content-Type",
    );
}

/// Resources and prompts have drafts too: `published: false` on create keeps one from clients
/// (no list entry, no `list_changed`), `PATCH {"published": true}` publishes it, and
/// `servers.json` keeps the state. Without the member they are published, as before.
#[tokio::test]
async fn resources_and_prompts_can_be_drafts_published_by_patch() {
    let api = Api::start("api-drafts");
    // A first published prompt gives the server the prompts capability (it rebuilds).
    api.post("/servers/echo/prompts", json!({ "name": "greet" }))
        .await
        .expect(StatusCode::CREATED, "create greet");
    api.post(
        "/servers/echo/resources",
        json!({ "uri": "memo://readme", "name": "readme", "text": "hi" }),
    )
    .await
    .expect(StatusCode::CREATED, "create readme");
    let (client, mut changed) = connect_watching(&api.mcp_url("echo")).await;

    let draft = api
        .post(
            "/servers/echo/prompts",
            json!({ "name": "summarize", "published": false }),
        )
        .await
        .expect(StatusCode::CREATED, "create a draft prompt");
    assert_eq!(draft["published"], false);
    api.post(
        "/servers/echo/resources",
        json!({ "uri": "memo://wip", "name": "wip", "text": "soon", "published": false }),
    )
    .await
    .expect(StatusCode::CREATED, "create a draft resource");
    let prompts: Vec<String> = client
        .list_all_prompts()
        .await
        .expect("prompts/list")
        .into_iter()
        .map(|p| p.name)
        .collect();
    assert_eq!(prompts, ["greet"], "the draft is not listed");
    let resources: Vec<String> = client
        .list_all_resources()
        .await
        .expect("resources/list")
        .into_iter()
        .map(|r| r.uri)
        .collect();
    assert_eq!(resources, ["memo://readme"], "the draft is not listed");
    let saved = api.saved_server("echo").expect("echo");
    assert_eq!(saved["prompts"][1]["published"], false, "{saved}");
    assert_eq!(saved["resources"][1]["published"], false, "{saved}");

    let published = api
        .patch(
            "/servers/echo/resources/memo%3A%2F%2Fwip",
            json!({ "published": true }),
        )
        .await
        .expect(StatusCode::OK, "publish the resource");
    assert_eq!(published["published"], true);
    let resources = client.list_all_resources().await.expect("resources/list");
    assert_eq!(resources.len(), 2, "published now");
    api.patch(
        "/servers/echo/prompts/summarize",
        json!({ "published": true }),
    )
    .await
    .expect(StatusCode::OK, "publish the prompt");
    let prompts = client.list_all_prompts().await.expect("prompts/list");
    assert_eq!(prompts.len(), 2, "published now");
    // The tools' notifications channel stays quiet: these were prompt and resource edits.
    assert!(changed.stays_quiet().await, "no tools/list_changed");
    drop(client);
}

#[tokio::test]
async fn get_memory_reports_every_budget_the_flags_set_and_what_each_evicted() {
    // Arrange: a 1 MiB budget for retained events and 2 MiB for finished tasks.
    let dir = Scratch::new("memory");
    std::fs::write(dir.path().join("servers.json"), app_process::SHOUT_SERVERS)
        .expect("servers.json");
    let (mcp, ui) = app_process::free_ports();
    let mut command = app_process::command_in(dir.path(), mcp, ui);
    command.args(["--retained-event-bytes", "1MiB", "--task-bytes", "2MiB"]);
    command.args(["--max-sessions", "50", "--session-bytes", "1MiB"]);
    let app = Running::spawn(command, mcp, ui);
    let http = app.api_client();
    let memory = async || -> Value {
        let reply = http
            .get(format!("{}/memory", app.api()))
            .send()
            .await
            .expect("GET /memory");
        assert_eq!(reply.status(), StatusCode::OK);
        reply.json().await.expect("JSON")
    };
    let before = memory().await;

    // Act: rmcp streams three 600 KiB answers in one session, which stays open.
    let client = connect(&app.mcp_url("loud")).await;
    common::shout_600_kib_three_times(&client).await;
    let after = memory().await;

    // Assert: the budgets are the flags', and the retained events stayed within theirs.
    assert_eq!(before["retainedEvents"]["evicted"], 0, "{before}");
    let events = &after["retainedEvents"];
    assert_eq!(events["limitBytes"], 1024 * 1024, "{after}");
    assert!(
        events["usedBytes"]
            .as_u64()
            .is_some_and(|b| b <= 1024 * 1024),
        "{after}"
    );
    assert!(
        events["evicted"].as_u64().is_some_and(|n| n >= 1),
        "{after}"
    );
    assert!(
        events["evictedBytes"]
            .as_u64()
            .is_some_and(|b| b >= 600 * 1024),
        "{after}"
    );
    assert_eq!(after["tasks"]["limitBytes"], 2 * 1024 * 1024, "{after}");
    assert_eq!(
        after["capture"]["limitBytes"],
        256 * 1024 * 1024,
        "the default --log-bytes"
    );
    assert!(
        after["capture"]["records"].as_u64().is_some_and(|n| n > 0),
        "{after}"
    );
    assert_eq!(after["sessions"]["live"], 1, "{after}");
    assert_eq!(after["sessions"]["limit"], 50, "{after}");
    assert_eq!(
        after["sessions"]["handshakeLimitBytes"],
        1024 * 1024,
        "{after}"
    );
    client.cancel().await.expect("the client closes");
}

#[test]
fn a_zero_or_tiny_budget_flag_stops_start_up_naming_the_flag() {
    for (flag, value) in [
        ("--retained-event-bytes", "0"),
        ("--task-bytes", "12KiB"),
        ("--session-bytes", "lots"),
        ("--max-sessions", "0"),
    ] {
        let dir = Scratch::new("memory-flags");
        let (mcp, ui) = app_process::free_ports();
        let mut command = app_process::command_in(dir.path(), mcp, ui);
        command.args([flag, value]);

        let exited = app_process::run_to_exit(command);

        assert!(!exited.status.success(), "{flag} {value} must be refused");
        assert!(exited.stderr.contains(flag), "{flag}: {}", exited.stderr);
    }
}
