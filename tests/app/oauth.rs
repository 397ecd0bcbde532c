//! OAuth 2.1 in the `mcp-decoy` app (product guide, "Test an OAuth client", "Where MCP
//! Decoy stores data" and the REST API table), against the real binary.
//!
//! The headline test drives the real rmcp client with its `auth` feature through the app's
//! consent page: turn OAuth on over REST, meet the 401, discover, register, approve on the
//! page, exchange the code, call a tool, list and revoke tokens. The others pin one promise
//! of the guide each, mostly with raw HTTP: the pre-registered client and
//! `client_secret_post`, denying consent, what revokes tokens and closes sessions (and what
//! does not), turning OAuth off, the issuer built from the `Host` the client used, restarts,
//! and the problems the API and `servers.json` report.

use crate::common;
use crate::common::app_process;

use app_process::{Running, Scratch, command_in, free_ports, run_to_exit};
use base64::Engine as _;
use base64::engine::general_purpose::{STANDARD, URL_SAFE_NO_PAD};
use common::{PATIENCE, client_config};
use reqwest::header::{AUTHORIZATION, CONTENT_TYPE, HOST, LOCATION, WWW_AUTHENTICATE};
use reqwest::{Method, StatusCode};
use rmcp::ServiceExt;
use rmcp::transport::StreamableHttpClientTransport;
use rmcp::transport::auth::{AuthClient, AuthorizationRequest, OAuthState};
use rmcp::transport::streamable_http_client::StreamableHttpClientTransportConfig;
use serde_json::{Value, json};
use sha2::{Digest, Sha256};

/// Where the client under test wants the browser sent back. Nothing listens there: the
/// test reads the code from the consent page's redirect.
const REDIRECT: &str = "http://127.0.0.1:9/callback";

/// An rmcp client whose requests carry OAuth tokens.
type AuthorizedClient = rmcp::service::RunningService<rmcp::RoleClient, rmcp::model::ClientConfig>;

/// One running app with a scratch config directory.
struct App {
    app: Running,
    dir: Scratch,
    /// Follows no redirects: the tests read them.
    http: reqwest::Client,
}

impl App {
    fn start(name: &str) -> App {
        let dir = Scratch::new(name);
        let app = Running::start(dir.path());
        App::around(app, dir)
    }

    fn around(app: Running, dir: Scratch) -> App {
        let http = reqwest::Client::builder()
            .redirect(reqwest::redirect::Policy::none())
            .build()
            .expect("a reqwest client");
        App { app, dir, http }
    }

    /// `http://localhost:MCP/s/echo/mcp`.
    fn mcp_url(&self) -> String {
        self.app.mcp_url("echo")
    }

    /// `http://localhost:MCP` + `path`.
    fn mcp_base(&self, path: &str) -> String {
        format!("http://localhost:{}{path}", self.app.mcp_port)
    }

    /// A REST call; the status and the JSON body (`Null` when empty).
    async fn api(&self, method: Method, path: &str, body: Option<Value>) -> (StatusCode, Value) {
        let mut request = self
            .http
            .request(method.clone(), format!("{}{path}", self.app.api()))
            .bearer_auth(&self.app.api_token);
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
        let bytes = response.bytes().await.expect("the API body");
        let body = if bytes.is_empty() {
            Value::Null
        } else {
            serde_json::from_slice(&bytes).unwrap_or_else(|e| {
                panic!(
                    "{method} {path}: not JSON ({e}): {}",
                    String::from_utf8_lossy(&bytes)
                )
            })
        };
        (status, body)
    }

    /// A REST call that must answer `status`; its body.
    async fn expect(
        &self,
        method: Method,
        path: &str,
        body: Option<Value>,
        status: StatusCode,
    ) -> Value {
        let (got, reply) = self.api(method.clone(), path, body).await;
        assert_eq!(got, status, "{method} {path}: {reply}");
        reply
    }

    /// `PATCH /servers/echo` with this `auth` member; the server as answered.
    async fn set_auth(&self, auth: Value) -> Value {
        self.expect(
            Method::PATCH,
            "/servers/echo",
            Some(json!({ "auth": auth })),
            StatusCode::OK,
        )
        .await
    }

    /// `GET /servers/echo/oauth/tokens`.
    async fn tokens(&self) -> Vec<Value> {
        let list = self
            .expect(
                Method::GET,
                "/servers/echo/oauth/tokens",
                None,
                StatusCode::OK,
            )
            .await;
        list.as_array().expect("a token list").clone()
    }

    async fn live_sessions(&self) -> usize {
        let list = self
            .expect(Method::GET, "/servers/echo/sessions", None, StatusCode::OK)
            .await;
        list.as_array().expect("a session list").len()
    }

    /// `servers.json` as it is on disk now.
    fn saved(&self) -> Value {
        let path = self.dir.path().join("servers.json");
        let text = std::fs::read_to_string(&path).expect("read servers.json");
        serde_json::from_str(&text).expect("servers.json is JSON")
    }

    /// POSTs `initialize` to the echo server's MCP endpoint, with a bearer token or not.
    async fn initialize(&self, token: Option<&str>) -> reqwest::Response {
        let mut request = self
            .http
            .post(self.mcp_url())
            .header("accept", "application/json, text/event-stream")
            .json(&initialize_request());
        if let Some(token) = token {
            request = request.bearer_auth(token);
        }
        request.send().await.expect("the MCP endpoint answers")
    }

    /// Dynamic Client Registration of a public client with [`REDIRECT`]; its `client_id`.
    async fn register(&self) -> String {
        let response = self
            .http
            .post(self.mcp_base("/s/echo/oauth/register"))
            .json(&json!({ "client_name": "raw", "redirect_uris": [REDIRECT],
                "token_endpoint_auth_method": "none" }))
            .send()
            .await
            .expect("the registration endpoint answers");
        assert_eq!(response.status(), StatusCode::CREATED);
        let body: Value = response.json().await.expect("a registration");
        body["client_id"].as_str().expect("client_id").to_string()
    }

    /// The authorization URL for `client_id` with a fresh PKCE pair; (url, verifier).
    fn authorize_url(&self, client_id: &str) -> (String, String) {
        let (verifier, challenge) = pkce();
        let mut url = url::Url::parse(&self.mcp_base("/s/echo/oauth/authorize")).expect("a URL");
        url.query_pairs_mut().extend_pairs([
            ("response_type", "code"),
            ("client_id", client_id),
            ("redirect_uri", REDIRECT),
            ("code_challenge", &challenge),
            ("code_challenge_method", "S256"),
            ("state", "s-1"),
            ("resource", &self.mcp_url()),
        ]);
        (url.to_string(), verifier)
    }

    /// Opens the consent page at `authorization_url` and clicks `decision` (`approve` or
    /// `deny`); the redirect's `Location`.
    async fn consent(&self, authorization_url: &str, decision: &str) -> String {
        let page = self
            .http
            .get(authorization_url)
            .send()
            .await
            .expect("the authorization endpoint answers");
        assert_eq!(page.status(), StatusCode::OK, "the consent page");
        let html = page.text().await.expect("the consent page's HTML");
        assert!(
            html.contains(">Approve</button>"),
            "an Approve button: {html}"
        );
        assert!(html.contains(">Deny</button>"), "a Deny button: {html}");
        let action = between(&html, "action=\"", "\"");
        let request = between(&html, "name=\"request\" value=\"", "\"");
        let answer = self
            .http
            .post(self.mcp_base(&action))
            .header(CONTENT_TYPE, "application/x-www-form-urlencoded")
            .body(format!("request={request}&decision={decision}"))
            .send()
            .await
            .expect("the consent form posts");
        assert_eq!(
            answer.status(),
            StatusCode::FOUND,
            "the consent answer redirects"
        );
        header(&answer, LOCATION)
    }

    /// POSTs a token request form, with `Authorization: Basic` when `basic` is given.
    async fn token_request(
        &self,
        form: &[(&str, &str)],
        basic: Option<(&str, &str)>,
    ) -> reqwest::Response {
        let body = form_urlencoded::Serializer::new(String::new())
            .extend_pairs(form)
            .finish();
        let mut request = self
            .http
            .post(self.mcp_base("/s/echo/oauth/token"))
            .header(CONTENT_TYPE, "application/x-www-form-urlencoded")
            .body(body);
        if let Some((id, secret)) = basic {
            request = request.header(
                AUTHORIZATION,
                format!("Basic {}", STANDARD.encode(format!("{id}:{secret}"))),
            );
        }
        request.send().await.expect("the token endpoint answers")
    }

    /// Registers a public client, approves it on the consent page and redeems the code;
    /// the token response.
    async fn raw_tokens(&self) -> Value {
        let client_id = self.register().await;
        let (url, verifier) = self.authorize_url(&client_id);
        let location = self.consent(&url, "approve").await;
        let code = param(&location, "code").expect("a code");
        let mcp_url = self.mcp_url();
        let response = self
            .token_request(
                &[
                    ("grant_type", "authorization_code"),
                    ("code", &code),
                    ("redirect_uri", REDIRECT),
                    ("code_verifier", &verifier),
                    ("client_id", &client_id),
                    ("resource", &mcp_url),
                ],
                None,
            )
            .await;
        assert_eq!(response.status(), StatusCode::OK);
        response.json().await.expect("a token response")
    }
}

fn initialize_request() -> Value {
    json!({
        "jsonrpc": "2.0", "id": 1, "method": "initialize",
        "params": {
            "protocolVersion": "2025-11-25",
            "capabilities": {},
            "clientInfo": { "name": "raw", "version": "1" }
        }
    })
}

fn header(response: &reqwest::Response, name: reqwest::header::HeaderName) -> String {
    response
        .headers()
        .get(&name)
        .unwrap_or_else(|| panic!("no {name} header"))
        .to_str()
        .expect("a text header")
        .to_string()
}

/// The text between `start` and the next `end` in `text`.
fn between(text: &str, start: &str, end: &str) -> String {
    let from = text
        .find(start)
        .unwrap_or_else(|| panic!("no `{start}` in {text}"))
        + start.len();
    let to = text[from..].find(end).expect("the closing delimiter") + from;
    text[from..to].to_string()
}

/// A PKCE pair: (verifier, S256 challenge).
fn pkce() -> (String, String) {
    use std::sync::atomic::{AtomicU64, Ordering};
    static NEXT: AtomicU64 = AtomicU64::new(1);
    let seed = format!(
        "verifier-{}-{:?}",
        NEXT.fetch_add(1, Ordering::Relaxed),
        std::time::SystemTime::now()
    );
    let verifier = URL_SAFE_NO_PAD.encode(Sha256::digest(seed));
    let challenge = URL_SAFE_NO_PAD.encode(Sha256::digest(verifier.as_bytes()));
    (verifier, challenge)
}

/// A query parameter of a URL.
fn param(url: &str, name: &str) -> Option<String> {
    url::Url::parse(url)
        .expect("an absolute URL")
        .query_pairs()
        .find(|(n, _)| n == name)
        .map(|(_, v)| v.into_owned())
}

/// The `resource_metadata` URL of a `WWW-Authenticate: Bearer` challenge.
fn resource_metadata(challenge: &str) -> String {
    between(challenge, "resource_metadata=\"", "\"")
}

/// The pre-registered client of a server as the API answers it: (id, secret, redirect URIs).
fn pre_registered(server: &Value) -> (String, String, Vec<Value>) {
    let client = &server["auth"]["preRegisteredClients"][0];
    (
        client["clientId"].as_str().expect("clientId").to_string(),
        client["clientSecret"]
            .as_str()
            .expect("clientSecret")
            .to_string(),
        client["redirectUris"]
            .as_array()
            .expect("redirectUris")
            .clone(),
    )
}

/// rmcp authorizes against the app: discovery from the 401, Dynamic Client Registration,
/// the authorization URL with PKCE and `resource`; the test plays the browser on the
/// consent page and clicks Approve; rmcp checks `state` and `iss` and redeems the code.
async fn authorize_with_rmcp(app: &App) -> AuthClient<reqwest::Client> {
    let unauthorized = app.initialize(None).await;
    assert_eq!(unauthorized.status(), StatusCode::UNAUTHORIZED);
    let challenge = header(&unauthorized, WWW_AUTHENTICATE);
    let mut oauth = OAuthState::new(app.mcp_url(), None)
        .await
        .expect("rmcp builds its OAuth state");
    oauth
        .start_authorization(
            AuthorizationRequest::new(REDIRECT)
                .with_client_name("decoy-tests")
                .with_challenge(challenge),
        )
        .await
        .expect("rmcp discovers the authorization server and registers");
    let authorization_url = oauth
        .get_authorization_url()
        .await
        .expect("rmcp builds the authorization URL");
    let location = app.consent(&authorization_url, "approve").await;
    assert!(location.starts_with(REDIRECT), "{location}");
    oauth
        .handle_callback_url(&location)
        .await
        .expect("rmcp exchanges the code for tokens");
    let manager = oauth
        .into_authorization_manager()
        .expect("the state holds an authorized manager");
    AuthClient::new(reqwest::Client::new(), manager)
}

async fn connect_authorized(app: &App, auth: AuthClient<reqwest::Client>) -> AuthorizedClient {
    let transport = StreamableHttpClientTransport::with_client(
        auth,
        StreamableHttpClientTransportConfig::with_uri(app.mcp_url()),
    );
    tokio::time::timeout(PATIENCE, client_config().serve(transport))
        .await
        .expect("initialize in time")
        .expect("the authorized client initializes")
}

async fn echo(client: &AuthorizedClient, message: &str) -> Result<String, rmcp::ServiceError> {
    let result = tokio::time::timeout(
        PATIENCE,
        client.call_tool(common::call("echo", json!({ "message": message }))),
    )
    .await
    .expect("tools/call in time")?;
    Ok(common::text(&result).to_string())
}

// ---------------------------------------------------------------------------------------
// The headline: turn OAuth on, authorize rmcp through the consent page, manage tokens.
// ---------------------------------------------------------------------------------------

/// Product guide, "Turn on OAuth", "Authorize a client", "Revoke tokens": the whole journey
/// with the real rmcp client, managed over the REST API.
#[tokio::test]
async fn rmcp_authorizes_through_the_consent_page_and_the_api_lists_and_revokes_its_tokens() {
    // Arrange: the default echo server, OAuth turned on over REST.
    let app = App::start("oauth-headline");
    let server = app.set_auth(json!({})).await;
    let (client_id, client_secret, redirect_uris) = pre_registered(&server);
    assert!(
        redirect_uris.is_empty(),
        "no redirect URIs until the user adds some"
    );
    let saved = &app.saved()["servers"][0]["auth"]["preRegisteredClients"][0];
    assert_eq!(
        saved["clientId"],
        client_id.as_str(),
        "servers.json holds the client"
    );
    assert_eq!(
        saved["clientSecret"],
        client_secret.as_str(),
        "servers.json holds the secret"
    );
    assert!(app.tokens().await.is_empty());

    // Act: rmcp authorizes (DCR, consent page, token exchange) and calls a tool.
    let auth = authorize_with_rmcp(&app).await;
    let access_token = auth
        .get_access_token()
        .await
        .expect("rmcp holds an access token");
    let client = connect_authorized(&app, auth).await;
    let answered = echo(&client, "hello").await.expect("an authorized call");

    // Assert: the call went through, and the API lists both tokens without their values.
    assert_eq!(answered, "hello");
    let tokens = app.tokens().await;
    let kinds: Vec<&str> = tokens
        .iter()
        .map(|t| t["kind"].as_str().expect("kind"))
        .collect();
    assert_eq!(kinds, ["access", "refresh"], "{tokens:?}");
    for token in &tokens {
        assert!(token["id"].is_string(), "{token}");
        assert!(token["clientId"].is_string(), "{token}");
        assert_ne!(
            token["clientId"],
            client_id.as_str(),
            "a registered client, not the pre-registered one"
        );
        assert!(token["scopes"].is_array(), "{token}");
        assert!(
            token.get("accessToken").is_none() && token.get("token").is_none(),
            "no value: {token}"
        );
    }
    assert!(tokens[0]["expiresAt"].is_string(), "access tokens expire");
    assert!(tokens[1].get("expiresAt").is_none(), "refresh tokens don't");
    assert_eq!(tokens[0]["resource"], app.mcp_url().as_str());

    // The server's logs hold the whole handshake, root-level discovery included, with the
    // secrets masked (product guide, "Authorize a client" and "Read the logs").
    let export = app
        .http
        .get(format!("{}/servers/echo/logs/export", app.app.api()))
        .bearer_auth(&app.app.api_token)
        .send()
        .await
        .expect("the log export")
        .text()
        .await
        .expect("JSONL");
    for path in [
        "/.well-known/oauth-protected-resource/s/echo/mcp",
        "/.well-known/oauth-authorization-server/s/echo",
        "/s/echo/oauth/register",
        "/s/echo/oauth/authorize",
        "/s/echo/oauth/consent",
        "/s/echo/oauth/token",
    ] {
        assert!(export.contains(path), "no {path} in the logs");
    }
    assert!(
        !export.contains(&access_token),
        "the access token is masked in the logs"
    );

    // Revoke all: the refresh fails too, so the client must authorize again.
    app.expect(
        Method::DELETE,
        "/servers/echo/oauth/tokens",
        None,
        StatusCode::NO_CONTENT,
    )
    .await;
    assert!(app.tokens().await.is_empty());
    let refused = echo(&client, "revoked")
        .await
        .expect_err("a revoked client is refused");
    assert!(
        format!("{refused:?}").to_lowercase().contains("auth"),
        "{refused:?}"
    );
    let auth = authorize_with_rmcp(&app).await;
    let client = connect_authorized(&app, auth).await;
    assert_eq!(
        echo(&client, "back")
            .await
            .expect("the call after re-authorizing"),
        "back"
    );
    client.cancel().await.expect("the client closes");
}

/// Product guide, "Revoke tokens": revoking one access token makes its next request a
/// `401`; revoking only the refresh token leaves the access token valid. An unknown id is a
/// `404` naming it.
#[tokio::test]
async fn revoking_one_token_by_id_refuses_exactly_that_token() {
    let app = App::start("oauth-revoke-one");
    app.set_auth(json!({})).await;
    let granted = app.raw_tokens().await;
    let access = granted["access_token"].as_str().expect("an access token");
    assert_eq!(app.initialize(Some(access)).await.status(), StatusCode::OK);
    let tokens = app.tokens().await;
    let id_of = |kind: &str| {
        tokens
            .iter()
            .find(|t| t["kind"] == kind)
            .and_then(|t| t["id"].as_str())
            .unwrap_or_else(|| panic!("a {kind} token in {tokens:?}"))
            .to_string()
    };
    let (access_id, refresh_id) = (id_of("access"), id_of("refresh"));

    // The refresh token alone: the access token still works.
    app.expect(
        Method::DELETE,
        &format!("/servers/echo/oauth/tokens/{refresh_id}"),
        None,
        StatusCode::NO_CONTENT,
    )
    .await;
    assert_eq!(app.initialize(Some(access)).await.status(), StatusCode::OK);

    // The access token: the next request is a 401 `invalid_token`.
    app.expect(
        Method::DELETE,
        &format!("/servers/echo/oauth/tokens/{access_id}"),
        None,
        StatusCode::NO_CONTENT,
    )
    .await;
    let refused = app.initialize(Some(access)).await;
    assert_eq!(refused.status(), StatusCode::UNAUTHORIZED);
    assert!(header(&refused, WWW_AUTHENTICATE).contains("invalid_token"));
    assert!(app.tokens().await.is_empty());

    // Revoked again, or never issued: 404 naming the token.
    let (status, problem) = app
        .api(
            Method::DELETE,
            &format!("/servers/echo/oauth/tokens/{access_id}"),
            None,
        )
        .await;
    assert_eq!(status, StatusCode::NOT_FOUND);
    assert_eq!(problem["field"], "token");
    assert!(
        problem["detail"]
            .as_str()
            .expect("detail")
            .contains(&access_id),
        "{problem}"
    );
}

// ---------------------------------------------------------------------------------------
// Discovery and the issuer.
// ---------------------------------------------------------------------------------------

/// Product guide, "Authorize a client" step 1 and "Use HTTPS or a public URL"; RFC 9728
/// section 3.1 and RFC 8414 section 3.1 put the documents at the root, with the server's
/// path after the well-known part. The issuer follows the `Host` the client used.
#[tokio::test]
async fn discovery_starts_at_the_root_well_known_paths_and_the_issuer_follows_the_host() {
    let app = App::start("oauth-discovery");
    app.set_auth(json!({})).await;

    // The 401 names the root-level resource metadata of this server.
    let unauthorized = app.initialize(None).await;
    assert_eq!(unauthorized.status(), StatusCode::UNAUTHORIZED);
    let metadata_url = resource_metadata(&header(&unauthorized, WWW_AUTHENTICATE));
    assert_eq!(
        metadata_url,
        app.mcp_base("/.well-known/oauth-protected-resource/s/echo/mcp")
    );

    // Resource metadata → authorization server → its metadata, all consistent.
    let resource: Value = app
        .http
        .get(&metadata_url)
        .send()
        .await
        .expect("PRM")
        .json()
        .await
        .expect("JSON");
    assert_eq!(resource["resource"], app.mcp_url().as_str());
    let issuer = app.mcp_base("/s/echo");
    assert_eq!(resource["authorization_servers"], json!([issuer]));
    for path in [
        "/.well-known/oauth-authorization-server/s/echo",
        "/.well-known/openid-configuration/s/echo",
        "/s/echo/.well-known/openid-configuration",
    ] {
        let response = app
            .http
            .get(app.mcp_base(path))
            .send()
            .await
            .expect("AS metadata");
        assert_eq!(response.status(), StatusCode::OK, "{path}");
        let document: Value = response.json().await.expect("JSON");
        assert_eq!(document["issuer"], issuer.as_str(), "{path}");
        assert_eq!(
            document["authorization_endpoint"],
            format!("{issuer}/oauth/authorize")
        );
        assert_eq!(document["token_endpoint"], format!("{issuer}/oauth/token"));
        assert_eq!(
            document["registration_endpoint"],
            format!("{issuer}/oauth/register")
        );
        assert_eq!(
            document["token_endpoint_auth_methods_supported"],
            json!(["client_secret_post", "none"]),
            "the app never offers Basic"
        );
        assert_eq!(
            document["code_challenge_methods_supported"],
            json!(["S256"])
        );
    }

    // Another loopback name gives another issuer.
    let by_ip = app
        .http
        .get(&metadata_url)
        .header(HOST, format!("127.0.0.1:{}", app.app.mcp_port))
        .send()
        .await
        .expect("PRM by IP");
    let by_ip: Value = by_ip.json().await.expect("JSON");
    assert_eq!(
        by_ip["authorization_servers"],
        json!([format!("http://127.0.0.1:{}/s/echo", app.app.mcp_port)])
    );

    // A tunnel says https: the issuer is the tunnel's https origin (its name is listed, as
    // a loopback bind lets no other name in).
    let (status, detail) = app
        .api(
            Method::PATCH,
            "/servers/echo",
            Some(json!({ "allowedHosts": ["*.trycloudflare.com"] })),
        )
        .await;
    assert_eq!(status, StatusCode::OK, "{detail}");
    let tunnelled: Value = app
        .http
        .get(&metadata_url)
        .header(HOST, "abc.trycloudflare.com")
        .header("x-forwarded-proto", "https")
        .send()
        .await
        .expect("PRM through a tunnel")
        .json()
        .await
        .expect("JSON");
    assert_eq!(
        tunnelled["resource"],
        "https://abc.trycloudflare.com/s/echo/mcp"
    );

    // Well-known paths of servers that don't exist or don't use OAuth: 404.
    for path in [
        "/.well-known/oauth-protected-resource/s/nope/mcp",
        "/.well-known/oauth-authorization-server/s/nope",
        "/.well-known/oauth-protected-resource",
    ] {
        let response = app
            .http
            .get(app.mcp_base(path))
            .send()
            .await
            .expect("a 404");
        assert_eq!(response.status(), StatusCode::NOT_FOUND, "{path}");
    }
}

/// Product guide, "Use HTTPS or a public URL": plain HTTP to a LAN address can't complete
/// OAuth, and the client is told why.
#[tokio::test]
async fn plain_http_to_a_lan_address_is_refused_with_the_reason() {
    // A LAN client reaches the app bound to every interface (the test connects over
    // loopback, naming a LAN address as such a client does).
    let dir = Scratch::new("oauth-lan");
    let (mcp, ui) = free_ports();
    let mut command = command_in(dir.path(), mcp, ui);
    command.args(["--host", "0.0.0.0"]);
    let app = App::around(Running::spawn(command, mcp, ui), dir);
    app.set_auth(json!({})).await;
    let lan = format!("192.168.1.20:{}", app.app.mcp_port);

    let metadata = app
        .http
        .get(app.mcp_base("/.well-known/oauth-protected-resource/s/echo/mcp"))
        .header(HOST, &lan)
        .send()
        .await
        .expect("PRM");
    assert_eq!(metadata.status(), StatusCode::BAD_REQUEST);
    let body: Value = metadata.json().await.expect("an OAuth error");
    assert_eq!(body["error"], "invalid_request");
    let reason = body["error_description"].as_str().expect("a description");
    assert!(
        reason.contains(&lan) && reason.contains("https"),
        "{reason}"
    );

    let mcp = app
        .http
        .post(app.mcp_url())
        .header(HOST, &lan)
        .header("accept", "application/json, text/event-stream")
        .json(&initialize_request())
        .send()
        .await
        .expect("the MCP endpoint answers");
    assert_eq!(mcp.status(), StatusCode::UNAUTHORIZED);
    let challenge = header(&mcp, WWW_AUTHENTICATE);
    assert!(challenge.contains("https"), "{challenge}");
}

// ---------------------------------------------------------------------------------------
// Consent and the pre-registered client.
// ---------------------------------------------------------------------------------------

/// Product guide, "Authorize a client" step 3: Deny redirects with `error=access_denied`.
#[tokio::test]
async fn deny_on_the_consent_page_redirects_with_access_denied() {
    let app = App::start("oauth-deny");
    app.set_auth(json!({})).await;
    let client_id = app.register().await;
    let (url, _verifier) = app.authorize_url(&client_id);

    let location = app.consent(&url, "deny").await;

    assert!(location.starts_with(REDIRECT), "{location}");
    assert_eq!(param(&location, "error").as_deref(), Some("access_denied"));
    assert_eq!(param(&location, "state").as_deref(), Some("s-1"));
    assert_eq!(param(&location, "code"), None);
    assert!(app.tokens().await.is_empty());
}

/// Product guide, "Use the pre-registered client": it works only once redirect URIs are
/// saved, authenticates with `client_secret_post`, and `Authorization: Basic` is refused.
#[tokio::test]
async fn the_pre_registered_client_works_with_client_secret_post_once_it_has_redirect_uris() {
    let app = App::start("oauth-pre-registered");
    let server = app.set_auth(json!({})).await;
    let (client_id, secret, _) = pre_registered(&server);

    // No redirect URIs yet: the authorization endpoint refuses to send the browser anywhere.
    let (url, _) = app.authorize_url(&client_id);
    let refused = app.http.get(&url).send().await.expect("authorize answers");
    assert_eq!(refused.status(), StatusCode::BAD_REQUEST);
    let body: Value = refused.json().await.expect("an OAuth error");
    assert!(
        body["error_description"]
            .as_str()
            .expect("why")
            .contains(REDIRECT),
        "{body}"
    );

    // Save redirect URIs (the shorthand); the client keeps its id and secret.
    let server = app.set_auth(json!({ "redirectUris": [REDIRECT] })).await;
    assert_eq!(
        pre_registered(&server),
        (client_id.clone(), secret.clone(), vec![json!(REDIRECT)])
    );
    assert_eq!(
        app.saved()["servers"][0]["auth"]["preRegisteredClients"][0]["redirectUris"],
        json!([REDIRECT])
    );

    // Authorize and redeem with client_secret_post.
    let (url, verifier) = app.authorize_url(&client_id);
    let location = app.consent(&url, "approve").await;
    let code = param(&location, "code").expect("a code");
    let mcp_url = app.mcp_url();
    let form = [
        ("grant_type", "authorization_code"),
        ("code", code.as_str()),
        ("redirect_uri", REDIRECT),
        ("code_verifier", verifier.as_str()),
        ("resource", mcp_url.as_str()),
    ];

    // Basic first: refused, and the code stays unspent.
    let basic = app.token_request(&form, Some((&client_id, &secret))).await;
    assert_eq!(basic.status(), StatusCode::UNAUTHORIZED);
    let body: Value = basic.json().await.expect("an OAuth error");
    assert_eq!(body["error"], "invalid_client");
    assert!(
        body["error_description"]
            .as_str()
            .expect("why")
            .contains("client_secret_basic"),
        "{body}"
    );

    let mut post_form = form.to_vec();
    post_form.extend([
        ("client_id", client_id.as_str()),
        ("client_secret", secret.as_str()),
    ]);
    let granted = app.token_request(&post_form, None).await;
    assert_eq!(granted.status(), StatusCode::OK);
    let granted: Value = granted.json().await.expect("tokens");
    let access = granted["access_token"].as_str().expect("an access token");
    assert_eq!(app.initialize(Some(access)).await.status(), StatusCode::OK);
    let tokens = app.tokens().await;
    assert!(
        tokens.iter().all(|t| t["clientId"] == client_id.as_str()),
        "{tokens:?}"
    );
}

// ---------------------------------------------------------------------------------------
// What revokes tokens and closes sessions, and what does not.
// ---------------------------------------------------------------------------------------

/// Product guide, "Revoke tokens": changing the redirect URIs revokes every token and
/// closes the live sessions; a change that leaves OAuth alone keeps the tokens.
#[tokio::test]
async fn changing_the_redirect_uris_revokes_every_token_and_closes_the_sessions() {
    let app = App::start("oauth-redirect-change");
    app.set_auth(json!({})).await;
    let granted = app.raw_tokens().await;
    let access = granted["access_token"].as_str().expect("an access token");
    assert_eq!(app.initialize(Some(access)).await.status(), StatusCode::OK);
    assert_eq!(app.live_sessions().await, 1);

    // Sending the same settings again changes nothing.
    app.set_auth(json!({})).await;
    assert_eq!(
        app.tokens().await.len(),
        2,
        "an unchanged auth keeps the tokens"
    );
    assert_eq!(app.live_sessions().await, 1, "and the session");

    // A change that leaves OAuth alone rebuilds the server (sessions end, as for any such
    // PATCH) but keeps the tokens.
    app.expect(
        Method::PATCH,
        "/servers/echo",
        Some(json!({ "title": "Echo" })),
        StatusCode::OK,
    )
    .await;
    assert_eq!(app.tokens().await.len(), 2, "a new title keeps the tokens");
    assert_eq!(app.initialize(Some(access)).await.status(), StatusCode::OK);

    // New redirect URIs: every token revoked, every session closed.
    app.set_auth(json!({ "redirectUris": ["http://localhost:3000/callback"] }))
        .await;
    assert!(app.tokens().await.is_empty());
    assert_eq!(app.live_sessions().await, 0);
    assert_eq!(
        app.initialize(Some(access)).await.status(),
        StatusCode::UNAUTHORIZED
    );
}

/// Product guide, "Turn on OAuth" and "Revoke tokens": turning OAuth off deletes the
/// pre-registered client, revokes the tokens, closes the sessions and opens the MCP
/// endpoint again; the token routes then answer `404`. Turning it on again gives new
/// credentials.
#[tokio::test]
async fn turning_oauth_off_deletes_the_credentials_and_opens_the_endpoint() {
    let app = App::start("oauth-off");
    let on = app.set_auth(json!({})).await;
    let granted = app.raw_tokens().await;
    let access = granted["access_token"].as_str().expect("an access token");
    assert_eq!(app.initialize(Some(access)).await.status(), StatusCode::OK);

    let off = app.set_auth(Value::Null).await;

    assert!(off.get("auth").is_none(), "{off}");
    assert!(
        app.saved()["servers"][0].get("auth").is_none(),
        "servers.json has no auth"
    );
    assert_eq!(app.live_sessions().await, 0);
    assert_eq!(
        app.initialize(None).await.status(),
        StatusCode::OK,
        "open again"
    );
    let (status, problem) = app
        .api(Method::GET, "/servers/echo/oauth/tokens", None)
        .await;
    assert_eq!(status, StatusCode::NOT_FOUND);
    assert!(
        problem["detail"]
            .as_str()
            .expect("detail")
            .contains("does not use OAuth"),
        "{problem}"
    );
    let metadata = app
        .http
        .get(app.mcp_base("/.well-known/oauth-protected-resource/s/echo/mcp"))
        .send()
        .await
        .expect("PRM");
    assert_eq!(metadata.status(), StatusCode::NOT_FOUND);

    // On again: new credentials, and the old token is worthless.
    let again = app.set_auth(json!({})).await;
    assert_ne!(pre_registered(&again).0, pre_registered(&on).0);
    assert_ne!(pre_registered(&again).1, pre_registered(&on).1);
    assert_eq!(
        app.initialize(Some(access)).await.status(),
        StatusCode::UNAUTHORIZED
    );
}

// ---------------------------------------------------------------------------------------
// Creating servers, restarts, and the problems the API and servers.json report.
// ---------------------------------------------------------------------------------------

/// Product guide, "Turn on OAuth" (select OAuth 2.1 when you create the server) and "OAuth
/// state and restarts": a server created with `auth` has a client; a restart keeps the
/// client from `servers.json` and drops the tokens.
#[tokio::test]
async fn a_restart_keeps_the_pre_registered_client_and_discards_the_tokens() {
    let app = App::start("oauth-restart");
    let created = app
        .expect(
            Method::POST,
            "/servers",
            Some(json!({ "name": "weather", "auth": { "redirectUris": [REDIRECT] } })),
            StatusCode::CREATED,
        )
        .await;
    let client = pre_registered(&created);
    assert_eq!(client.2, [json!(REDIRECT)]);
    assert_eq!(created["auth"]["consent"], "page");
    app.set_auth(json!({})).await;
    app.raw_tokens().await;
    assert_eq!(app.tokens().await.len(), 2);

    // Restart on the same directory and ports.
    let App {
        app: running, dir, ..
    } = app;
    let (mcp_port, ui_port) = (running.mcp_port, running.ui_port);
    drop(running);
    let app = App::around(
        Running::spawn(command_in(dir.path(), mcp_port, ui_port), mcp_port, ui_port),
        dir,
    );

    assert!(app.tokens().await.is_empty(), "tokens are in memory only");
    let weather = app
        .expect(Method::GET, "/servers/weather", None, StatusCode::OK)
        .await;
    assert_eq!(pre_registered(&weather), client, "the client persists");
}

/// The REST API names the field at fault in `auth`, and changes nothing.
#[tokio::test]
async fn bad_auth_settings_are_problems_naming_the_field() {
    let app = App::start("oauth-problems");
    for (auth, field) in [
        (json!({ "redirectUri": [REDIRECT] }), "auth.redirectUri"),
        (
            json!({ "redirectUris": ["http://192.168.1.2/cb"] }),
            "auth.preRegisteredClients[0].redirectUris[0]",
        ),
        (
            json!({ "redirectUris": [REDIRECT, "https://app.example/#frag"] }),
            "auth.preRegisteredClients[0].redirectUris[1]",
        ),
        (json!({ "consent": "maybe" }), "auth.consent"),
        (json!({ "redirectUris": [7] }), "auth.redirectUris[0]"),
        (json!(true), "auth"),
        (
            json!({ "preRegisteredClients": [{ "clientId": "a" }, { "clientId": "b", "clientSecret": "c", "redirectUris": [] }] }),
            "auth.preRegisteredClients",
        ),
    ] {
        let (status, problem) = app
            .api(
                Method::PATCH,
                "/servers/echo",
                Some(json!({ "auth": auth })),
            )
            .await;
        assert_eq!(status, StatusCode::BAD_REQUEST, "{auth}: {problem}");
        assert_eq!(problem["field"], field, "{auth}: {problem}");
    }
    let (status, problem) = app
        .api(
            Method::PATCH,
            "/servers/echo",
            Some(json!({ "auth": {}, "apiKeys": ["k"] })),
        )
        .await;
    assert_eq!(status, StatusCode::BAD_REQUEST, "{problem}");
    assert!(
        app.saved()["servers"][0].get("auth").is_none(),
        "nothing was saved"
    );

    // Token routes of unknown servers and of servers without OAuth.
    let (status, problem) = app
        .api(Method::GET, "/servers/nope/oauth/tokens", None)
        .await;
    assert_eq!(
        (status, problem["field"].clone()),
        (StatusCode::NOT_FOUND, json!("server"))
    );
    let (status, problem) = app
        .api(Method::DELETE, "/servers/echo/oauth/tokens/at-1", None)
        .await;
    assert_eq!(status, StatusCode::NOT_FOUND);
    assert!(
        problem["detail"]
            .as_str()
            .expect("detail")
            .contains("does not use OAuth"),
        "{problem}"
    );
}

/// Product guide, "Where MCP Decoy stores data": an invalid `auth` entry stops the start
/// with the file's path and a JSON pointer to each problem.
#[test]
fn an_invalid_auth_entry_in_servers_json_stops_the_start_naming_the_place() {
    let dir = Scratch::new("oauth-invalid-file");
    let path = dir.path().join("servers.json");
    let file = json!({ "servers": [
        { "name": "ok" },
        { "name": "no-client", "auth": {} },
        { "name": "bad-uri", "auth": { "preRegisteredClients": [
            { "clientId": "c", "clientSecret": "s", "redirectUris": ["http://192.168.1.2/cb"] }
        ] } }
    ] });
    std::fs::write(&path, file.to_string()).expect("write servers.json");
    let (mcp, ui) = free_ports();

    let exited = run_to_exit(command_in(dir.path(), mcp, ui));

    assert!(!exited.status.success());
    let text = format!("{}{}", exited.stdout, exited.stderr);
    assert!(text.contains(&path.display().to_string()), "{text}");
    assert!(
        text.contains("/servers/1/auth/preRegisteredClients:"),
        "{text}"
    );
    assert!(
        text.contains("/servers/2/auth/preRegisteredClients/0/redirectUris/0:"),
        "{text}"
    );
}

/// Root-level resource metadata (`/.well-known/oauth-protected-resource`) can belong to one
/// server of the shared MCP listener only: a second server asking for it is refused naming
/// `auth` and the server that has it, and nothing is saved.
#[tokio::test]
async fn two_servers_cannot_share_root_level_oauth_metadata() {
    let app = App::start("oauth-root-conflict");
    let (status, problem) = app
        .api(
            Method::PATCH,
            "/servers/echo",
            Some(json!({ "auth": { "resourceMetadata": "root" } })),
        )
        .await;
    assert_eq!(status, StatusCode::OK, "{problem}");

    let (status, problem) = app
        .api(
            Method::POST,
            "/servers",
            Some(json!({ "name": "second", "auth": { "resourceMetadata": "root" } })),
        )
        .await;

    assert_eq!(status, StatusCode::BAD_REQUEST, "{problem}");
    assert_eq!(problem["field"], "auth", "{problem}");
    let detail = problem["detail"].as_str().expect("detail");
    assert!(
        detail.contains("/.well-known/oauth-protected-resource") && detail.contains("`echo`"),
        "{detail}"
    );
    let saved = app.saved();
    assert_eq!(
        saved["servers"].as_array().map(Vec::len),
        Some(1),
        "{saved}"
    );
    let (status, _) = app
        .api(
            Method::POST,
            "/servers",
            Some(json!({ "name": "second", "auth": {} })),
        )
        .await;
    assert_eq!(
        status,
        StatusCode::CREATED,
        "path-form metadata does not collide"
    );
}

/// `"auth": {"preset": NAME}` gives a server the settings of a conformance client auth
/// scenario, so a client can be tried against the auth matrix in the app too; members beside
/// it apply on top, the settings (not the name) are saved, and an unknown name is a problem
/// naming `auth.preset`.
#[tokio::test]
async fn a_preset_gives_the_server_a_conformance_scenarios_settings() {
    let app = App::start("oauth-preset");

    let server = app
        .set_auth(json!({ "preset": "auth/metadata-var1", "consent": "page" }))
        .await;

    // metadata-var1: the 401 names no metadata URL, and the authorization server is found
    // through OpenID discovery only.
    let challenge = app.initialize(None).await;
    assert_eq!(challenge.status(), StatusCode::UNAUTHORIZED);
    let header = challenge
        .headers()
        .get(WWW_AUTHENTICATE)
        .and_then(|v| v.to_str().ok())
        .unwrap_or_default()
        .to_string();
    assert!(!header.contains("resource_metadata"), "{header}");
    let status = |path: &'static str| {
        let url = app.mcp_base(path);
        let http = app.http.clone();
        async move { http.get(url).send().await.expect("answers").status() }
    };
    assert_eq!(
        status("/.well-known/oauth-protected-resource/s/echo/mcp").await,
        StatusCode::OK
    );
    assert_eq!(
        status("/.well-known/openid-configuration/s/echo").await,
        StatusCode::OK
    );
    assert_eq!(
        status("/.well-known/oauth-authorization-server/s/echo").await,
        StatusCode::NOT_FOUND
    );
    let saved = &app.saved()["servers"][0]["auth"];
    assert_eq!(saved["resourceMetadataInChallenge"], false, "{saved}");
    assert_eq!(saved["consent"], "page", "members beside the preset apply");
    assert!(saved.get("preset").is_none(), "{saved}");
    assert_eq!(
        server["auth"]["preRegisteredClients"]
            .as_array()
            .map(Vec::len),
        Some(1)
    );

    let (status, problem) = app
        .api(
            Method::PATCH,
            "/servers/echo",
            Some(json!({ "auth": { "preset": "auth/nope" } })),
        )
        .await;
    assert_eq!(status, StatusCode::BAD_REQUEST, "{problem}");
    assert_eq!(problem["field"], "auth.preset", "{problem}");
}
