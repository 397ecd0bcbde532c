//! OAuth 2.1: the decoy as resource server and authorization server.
//!
//! The first test is the one to copy into a client crate: the real rmcp client with its
//! `auth` feature runs discovery, registration, authorization (auto-approved, no browser),
//! the token exchange and an MCP call; the fixture's clock then expires the access token
//! and rmcp refreshes it; finally every token is revoked and the client authorizes again.
//!
//! The rest walk the protocol with raw HTTP: each bad input gets the error code its RFC
//! names (RFC 6749 section 5.2 for the token endpoint, 4.1.2.1 for the authorization
//! endpoint, RFC 6750 section 3.1 for the resource server, RFC 7591 section 3.2.2 for
//! registration, RFC 8707 section 2 for resource indicators).

mod common;

use std::time::Duration;

use base64::Engine as _;
use base64::engine::general_purpose::{STANDARD, URL_SAFE_NO_PAD};
use common::{PATIENCE, client_config, schema};
use mcp_decoy::oauth::{OAuth, TokenKind};
use mcp_decoy::spec::{Consent, TokenEndpointAuthMethod};
use mcp_decoy::{MockMcpServer, Tool};
use reqwest::StatusCode;
use reqwest::header::{AUTHORIZATION, CONTENT_TYPE, HOST, LOCATION, WWW_AUTHENTICATE};
use rmcp::ServiceExt;
use rmcp::transport::StreamableHttpClientTransport;
use rmcp::transport::auth::{AuthClient, AuthorizationCallback, AuthorizationRequest, OAuthState};
use rmcp::transport::streamable_http_client::StreamableHttpClientTransportConfig;
use serde_json::{Value, json};
use sha2::{Digest, Sha256};

/// Where the client under test says it wants the browser sent back. Nothing listens
/// there: with auto-approve the test reads the code from the redirect's `Location`.
const REDIRECT: &str = "http://127.0.0.1:9/callback";

// ---------------------------------------------------------------------------------------
// The headline test: a client crate's auth test, end to end, with rmcp.
// ---------------------------------------------------------------------------------------

/// Runs the authorization-code flow the way a headless test can: rmcp discovers the
/// authorization server from the 401 challenge, registers (Dynamic Client Registration),
/// and builds the authorization URL with PKCE and `resource`. A browser would follow that
/// URL; the fixture auto-approves, so fetching it without following redirects gives the
/// redirect to `REDIRECT` with `code`, `state` and `iss`, which go back to rmcp.
async fn authorize_with_rmcp(mcp_url: &str) -> AuthClient<reqwest::Client> {
    // 1. Discovery starts from a real 401, as a client would meet it.
    let unauthorized = reqwest::Client::new()
        .post(mcp_url)
        .json(&initialize_request())
        .header("accept", "application/json, text/event-stream")
        .send()
        .await
        .expect("the MCP endpoint answers");
    assert_eq!(unauthorized.status(), StatusCode::UNAUTHORIZED);
    let challenge = header(&unauthorized, WWW_AUTHENTICATE);

    // 2. rmcp: resource metadata → authorization server metadata → registration.
    let mut oauth = OAuthState::new(mcp_url, None)
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

    // 3. The "browser": one request, no redirects followed.
    let location = redirect_of(&authorization_url).await;
    assert!(location.starts_with(REDIRECT), "{location}");

    // 4. rmcp checks `state` and `iss`, then exchanges the code (PKCE verifier, resource).
    oauth
        .handle_callback_url(&location)
        .await
        .expect("rmcp exchanges the code for tokens");
    let manager = oauth
        .into_authorization_manager()
        .expect("the state holds an authorized manager");
    AuthClient::new(reqwest::Client::new(), manager)
}

/// An rmcp MCP client whose requests carry the OAuth tokens (and refresh them).
async fn connect_authorized(
    mcp_url: &str,
    auth: AuthClient<reqwest::Client>,
) -> rmcp::service::RunningService<rmcp::RoleClient, rmcp::model::ClientConfig> {
    let transport = StreamableHttpClientTransport::with_client(
        auth,
        StreamableHttpClientTransportConfig::with_uri(mcp_url.to_string()),
    );
    tokio::time::timeout(PATIENCE, client_config().serve(transport))
        .await
        .expect("initialize in time")
        .expect("the authorized client initializes")
}

async fn echo(
    client: &rmcp::service::RunningService<rmcp::RoleClient, rmcp::model::ClientConfig>,
    message: &str,
) -> Result<String, rmcp::ServiceError> {
    let result = tokio::time::timeout(
        PATIENCE,
        client.call_tool(common::call("echo", json!({ "message": message }))),
    )
    .await
    .expect("tools/call in time")?;
    Ok(common::text(&result).to_string())
}

/// The whole journey of an OAuth client against the decoy, with the real rmcp client:
/// discovery, registration, authorization, token exchange, an MCP call, a refresh after
/// the access token expires, and a new authorization after every token is revoked.
#[tokio::test]
async fn rmcp_authorizes_calls_refreshes_and_recovers_after_revocation() {
    // Arrange: an echo server behind OAuth, auto-approving.
    let server = MockMcpServer::builder()
        .tool(Tool::echo())
        .oauth(OAuth::new())
        .start()
        .await;

    // Act 1: authorize and call.
    let auth = authorize_with_rmcp(&server.url()).await;
    let client = connect_authorized(&server.url(), auth).await;
    assert_eq!(
        echo(&client, "hello").await.expect("an authorized call"),
        "hello"
    );

    // Assert 1: the capture shows the whole flow, in order.
    let paths = http_paths(&server);
    let position = |needle: &str| {
        paths
            .iter()
            .position(|p| p.contains(needle))
            .unwrap_or_else(|| panic!("no request to {needle} in {paths:?}"))
    };
    assert!(
        position("/.well-known/oauth-protected-resource/mcp")
            < position("/.well-known/oauth-authorization-server")
    );
    assert!(position("/oauth/register") < position("/oauth/authorize"));
    assert!(position("/oauth/authorize") < position("/oauth/token"));
    let tokens = server.oauth().tokens();
    assert_eq!(
        tokens.iter().map(|t| t.kind).collect::<Vec<_>>(),
        [TokenKind::Access, TokenKind::Refresh]
    );
    assert_eq!(tokens[0].resource.as_deref(), Some(server.url().as_str()));

    // Act 2: the access token expires (one hour by default); rmcp's next request is
    // refused with `invalid_token`, it refreshes once and retries.
    server.advance_clock(Duration::from_secs(3601));
    assert_eq!(
        echo(&client, "later")
            .await
            .expect("the call after a refresh"),
        "later"
    );

    // Assert 2: a refresh_token grant happened, and the refresh token rotated.
    assert_eq!(
        token_grants(&server),
        ["authorization_code", "refresh_token"]
    );
    let rotated = server.oauth().tokens();
    assert!(
        rotated.iter().all(|t| !tokens.contains(t)),
        "both tokens are new: {rotated:?}"
    );

    // Act 3: revoke everything; the refresh fails too, so rmcp reports that authorization
    // is needed, and the client authorizes again from scratch.
    assert_eq!(server.oauth().revoke_all(), 2);
    let refused = echo(&client, "revoked")
        .await
        .expect_err("a revoked client is refused");
    assert!(
        format!("{refused:?}").to_lowercase().contains("auth"),
        "{refused:?}"
    );
    let auth = authorize_with_rmcp(&server.url()).await;
    let client = connect_authorized(&server.url(), auth).await;
    assert_eq!(
        echo(&client, "back")
            .await
            .expect("the call after re-authorizing"),
        "back"
    );

    // Assert 3: every message the server sent is valid MCP, and no secret is in the log.
    client.cancel().await.expect("the client closes");
    schema::assert_server_messages_valid(&server.log());
    assert_no_secrets(&server);
}

/// MCP "Step-Up Authorization Flow" with rmcp: a token with `mcp:read` gets 403
/// `insufficient_scope` on a tool that needs `mcp:write`; rmcp asks for the union of its
/// scopes and the challenge's, the fixture approves, and the call succeeds.
#[tokio::test]
async fn rmcp_steps_up_when_a_tool_needs_another_scope() {
    let server = MockMcpServer::builder()
        .tool(Tool::echo())
        .oauth(
            OAuth::new()
                .scopes_supported(["mcp:read", "mcp:write"])
                .tool_scopes("echo", ["mcp:write"]),
        )
        .start()
        .await;
    let mut oauth = OAuthState::new(server.url(), None)
        .await
        .expect("rmcp's OAuth state");
    oauth
        .start_authorization(AuthorizationRequest::new(REDIRECT).with_scopes(["mcp:read"]))
        .await
        .expect("discovery and registration");
    let url = oauth
        .get_authorization_url()
        .await
        .expect("the authorization URL");
    oauth
        .handle_callback_url(&redirect_of(&url).await)
        .await
        .expect("the code exchange");
    let auth = AuthClient::new(
        reqwest::Client::new(),
        oauth
            .into_authorization_manager()
            .expect("an authorized manager"),
    );
    let manager = auth.auth_manager.clone();
    let client = connect_authorized(&server.url(), auth.clone()).await;
    echo(&client, "needs write")
        .await
        .expect_err("mcp:read is not enough for echo");
    let log = server.log();
    let forbidden = log.http().status(403).last().expect("the 403 is captured");
    let challenge = forbidden
        .response_header("www-authenticate")
        .expect("a challenge");
    assert!(
        challenge.contains(r#"error="insufficient_scope""#),
        "{challenge}"
    );
    assert!(
        challenge.contains(r#"scope="mcp:read mcp:write""#),
        "{challenge}"
    );

    // Step up: rmcp builds an authorization URL for the union of scopes.
    let upgrade = manager
        .lock()
        .await
        .request_scope_upgrade("mcp:read mcp:write")
        .await
        .expect("rmcp builds the step-up URL");
    let callback = AuthorizationCallback::from_redirect_url(&redirect_of(&upgrade).await)
        .expect("a callback with code and state");
    manager
        .lock()
        .await
        .exchange_code_for_token_with_issuer(
            &callback.code,
            &callback.csrf_token,
            callback.issuer.as_deref(),
        )
        .await
        .expect("the step-up code exchange");
    let client = connect_authorized(&server.url(), auth).await;
    assert_eq!(
        echo(&client, "now").await.expect("the stepped-up call"),
        "now"
    );
    let scopes: Vec<Vec<String>> = server
        .oauth()
        .tokens()
        .into_iter()
        .map(|t| t.scopes)
        .collect();
    assert!(
        scopes.contains(&vec!["mcp:read".to_string(), "mcp:write".to_string()]),
        "{scopes:?}"
    );
    client.cancel().await.expect("the client closes");
    schema::assert_server_messages_valid(&server.log());
}

// ---------------------------------------------------------------------------------------
// Helpers for the raw-HTTP tests.
// ---------------------------------------------------------------------------------------

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

/// A client that never follows redirects: the test reads them.
fn no_redirects() -> reqwest::Client {
    reqwest::Client::builder()
        .redirect(reqwest::redirect::Policy::none())
        .build()
        .expect("a reqwest client")
}

/// GETs `url` and returns the `Location` of its 302.
async fn redirect_of(url: &str) -> String {
    let response = no_redirects()
        .get(url)
        .send()
        .await
        .expect("the authorization endpoint answers");
    assert_eq!(
        response.status(),
        StatusCode::FOUND,
        "{:?}",
        response.text().await
    );
    header(&response, LOCATION)
}

/// A PKCE pair: (verifier, S256 challenge).
fn pkce() -> (String, String) {
    let verifier = URL_SAFE_NO_PAD.encode(rand_bytes());
    let challenge = URL_SAFE_NO_PAD.encode(Sha256::digest(verifier.as_bytes()));
    (verifier, challenge)
}

fn rand_bytes() -> [u8; 32] {
    use std::sync::atomic::{AtomicU64, Ordering};
    static NEXT: AtomicU64 = AtomicU64::new(1);
    let n = NEXT.fetch_add(1, Ordering::Relaxed);
    let digest = Sha256::digest(format!("verifier-{n}-{:?}", std::time::SystemTime::now()));
    digest.into()
}

/// A query parameter of a URL.
fn param(url: &str, name: &str) -> Option<String> {
    let parsed = url::Url::parse(url).expect("an absolute URL");
    parsed
        .query_pairs()
        .find(|(n, _)| n == name)
        .map(|(_, v)| v.into_owned())
}

/// Raw OAuth calls against one server.
struct Flow<'a> {
    server: &'a MockMcpServer,
    http: reqwest::Client,
}

/// A registered client.
#[derive(Debug, Clone)]
struct Registered {
    id: String,
    secret: Option<String>,
}

/// An authorization's outcome: the code, and the verifier that redeems it.
#[derive(Debug, Clone)]
struct Granted {
    code: String,
    verifier: String,
}

impl<'a> Flow<'a> {
    fn new(server: &'a MockMcpServer) -> Self {
        Flow {
            server,
            http: no_redirects(),
        }
    }

    fn url(&self, path: &str) -> String {
        format!("{}{path}", self.server.base_url())
    }

    /// Dynamic Client Registration with this metadata.
    async fn register_raw(&self, metadata: Value) -> reqwest::Response {
        self.http
            .post(self.url("/oauth/register"))
            .json(&metadata)
            .send()
            .await
            .expect("the registration endpoint answers")
    }

    /// Registers a client with `method` and the default redirect URI.
    async fn register(&self, method: &str) -> Registered {
        let response = self
            .register_raw(json!({
                "client_name": "raw", "redirect_uris": [REDIRECT],
                "token_endpoint_auth_method": method, "application_type": "native"
            }))
            .await;
        assert_eq!(response.status(), StatusCode::CREATED);
        let body: Value = response.json().await.expect("a JSON registration");
        Registered {
            id: body["client_id"].as_str().expect("client_id").to_string(),
            secret: body["client_secret"].as_str().map(str::to_string),
        }
    }

    /// The authorization URL with these parameters (on top of valid defaults; a `None`
    /// value removes the parameter).
    fn authorize_url(
        &self,
        client_id: &str,
        challenge: &str,
        changes: &[(&str, Option<&str>)],
    ) -> String {
        let resource = self.server.url();
        let mut params: Vec<(&str, String)> = vec![
            ("response_type", "code".into()),
            ("client_id", client_id.into()),
            ("redirect_uri", REDIRECT.into()),
            ("code_challenge", challenge.into()),
            ("code_challenge_method", "S256".into()),
            ("state", "s-123".into()),
            ("resource", resource),
        ];
        for (name, value) in changes {
            params.retain(|(n, _)| n != name);
            if let Some(value) = value {
                params.push((name, value.to_string()));
            }
        }
        let mut url = url::Url::parse(&self.url("/oauth/authorize")).expect("a URL");
        url.query_pairs_mut()
            .extend_pairs(params.iter().map(|(n, v)| (*n, v.as_str())));
        url.to_string()
    }

    async fn authorize_raw(
        &self,
        client_id: &str,
        challenge: &str,
        changes: &[(&str, Option<&str>)],
    ) -> reqwest::Response {
        self.http
            .get(self.authorize_url(client_id, challenge, changes))
            .send()
            .await
            .expect("the authorization endpoint answers")
    }

    /// Authorizes `client` (auto-approve) and returns the code with its verifier.
    async fn authorize(&self, client: &Registered) -> Granted {
        let (verifier, challenge) = pkce();
        let response = self.authorize_raw(&client.id, &challenge, &[]).await;
        assert_eq!(response.status(), StatusCode::FOUND);
        let location = header(&response, LOCATION);
        Granted {
            code: param(&location, "code").unwrap_or_else(|| panic!("no code in {location}")),
            verifier,
        }
    }

    /// POSTs a form to the token endpoint.
    async fn token_raw(
        &self,
        form: &[(&str, &str)],
        basic: Option<(&str, &str)>,
    ) -> reqwest::Response {
        let body = form_urlencoded::Serializer::new(String::new())
            .extend_pairs(form)
            .finish();
        let mut request = self
            .http
            .post(self.url("/oauth/token"))
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

    /// The form of a valid code redemption by a public client.
    fn code_form<'f>(
        &self,
        client: &'f Registered,
        granted: &'f Granted,
        resource: &'f str,
    ) -> Vec<(&'f str, &'f str)> {
        vec![
            ("grant_type", "authorization_code"),
            ("code", &granted.code),
            ("redirect_uri", REDIRECT),
            ("code_verifier", &granted.verifier),
            ("client_id", &client.id),
            ("resource", resource),
        ]
    }

    /// Redeems `granted` and returns the token response.
    async fn exchange(&self, client: &Registered, granted: &Granted) -> Value {
        let resource = self.server.url();
        let response = self
            .token_raw(&self.code_form(client, granted, &resource), None)
            .await;
        assert_eq!(response.status(), StatusCode::OK);
        assert_eq!(
            header(&response, reqwest::header::CACHE_CONTROL),
            "no-store"
        );
        response.json().await.expect("a JSON token response")
    }

    /// Registers a public client, authorizes it and returns the token response.
    async fn tokens(&self) -> (Registered, Value) {
        let client = self.register("none").await;
        let granted = self.authorize(&client).await;
        let tokens = self.exchange(&client, &granted).await;
        (client, tokens)
    }

    /// POSTs `initialize` to the MCP endpoint with this bearer token.
    async fn mcp(&self, token: Option<&str>) -> reqwest::Response {
        let mut request = self
            .http
            .post(self.server.url())
            .header("accept", "application/json, text/event-stream")
            .json(&initialize_request());
        if let Some(token) = token {
            request = request.bearer_auth(token);
        }
        request.send().await.expect("the MCP endpoint answers")
    }
}

/// Asserts an OAuth JSON error: status and `error` code, with a description.
async fn assert_error(response: reqwest::Response, status: StatusCode, code: &str) -> String {
    assert_eq!(response.status(), status);
    let body: Value = response.json().await.expect("a JSON error");
    assert_eq!(body["error"], code, "{body}");
    let description = body["error_description"]
        .as_str()
        .expect("a description")
        .to_string();
    assert!(!description.is_empty());
    description
}

/// Asserts a redirect carrying an OAuth error, with `state` and `iss`.
fn assert_error_redirect(response: &reqwest::Response, code: &str, issuer: &str) -> String {
    assert_eq!(response.status(), StatusCode::FOUND);
    let location = header(response, LOCATION);
    assert!(location.starts_with(REDIRECT), "{location}");
    assert_eq!(
        param(&location, "error").as_deref(),
        Some(code),
        "{location}"
    );
    assert_eq!(
        param(&location, "state").as_deref(),
        Some("s-123"),
        "{location}"
    );
    assert_eq!(
        param(&location, "iss").as_deref(),
        Some(issuer),
        "{location}"
    );
    assert_eq!(param(&location, "code"), None);
    param(&location, "error_description").expect("a description")
}

/// Asserts the resource server's refusal: status, and the `error` of the challenge.
fn assert_challenge(
    response: &reqwest::Response,
    status: StatusCode,
    error: Option<&str>,
) -> String {
    assert_eq!(response.status(), status);
    let challenge = header(response, WWW_AUTHENTICATE);
    assert!(challenge.starts_with("Bearer "), "{challenge}");
    match error {
        Some(error) => assert!(
            challenge.contains(&format!(r#"error="{error}""#)),
            "{challenge}"
        ),
        None => assert!(!challenge.contains("error="), "{challenge}"),
    }
    challenge
}

fn http_paths(server: &MockMcpServer) -> Vec<String> {
    let log = server.log();
    log.http().all().iter().map(|h| h.path.clone()).collect()
}

/// The `grant_type` of every token request, in order (the capture keeps form bodies as
/// text, secrets masked).
fn token_grants(server: &MockMcpServer) -> Vec<String> {
    let log = server.log();
    log.http()
        .all()
        .iter()
        .filter(|h| h.path.ends_with("/oauth/token"))
        .filter_map(|h| h.request_body.as_ref()?.as_str().map(str::to_string))
        .filter_map(|form| {
            form_urlencoded::parse(form.as_bytes())
                .find(|(n, _)| n == "grant_type")
                .map(|(_, v)| v.into_owned())
        })
        .collect()
}

const SECRET_NAMES: [&str; 6] = [
    "access_token",
    "refresh_token",
    "code",
    "code_verifier",
    "client_secret",
    "token",
];

/// Every secret parameter of a query string or form body is masked.
fn assert_form_masked(what: &str, text: &str) {
    for (name, value) in form_urlencoded::parse(text.as_bytes()) {
        if SECRET_NAMES.contains(&name.as_ref()) {
            assert_eq!(
                value, "[redacted]",
                "{what}: `{name}` is not masked in {text}"
            );
        }
    }
}

/// Every secret member of a JSON body is masked.
fn assert_json_masked(what: &str, value: &Value) {
    match value {
        Value::Object(map) => {
            for (name, member) in map {
                if SECRET_NAMES.contains(&name.as_str()) && member.is_string() {
                    assert_eq!(member, "[redacted]", "{what}: `{name}` is not masked");
                } else {
                    assert_json_masked(what, member);
                }
            }
        }
        Value::Array(list) => list.iter().for_each(|v| assert_json_masked(what, v)),
        Value::String(text) if text.contains('=') => assert_form_masked(what, text),
        _ => {}
    }
}

/// No token, code, verifier, client secret or credential is readable in the captured HTTP
/// records: not in headers, query strings, bodies, or redirect `Location`s.
fn assert_no_secrets(server: &MockMcpServer) {
    let log = server.log();
    let exchanges = log.http().all();
    assert!(!exchanges.is_empty());
    for exchange in exchanges {
        let what = format!("{} {}", exchange.method, exchange.path);
        for (name, value) in &exchange.request_headers {
            if name == "authorization" {
                let (_, credential) = value.split_once(' ').expect("a scheme");
                assert_eq!(
                    credential, "[redacted]",
                    "{what}: Authorization is not masked"
                );
            }
        }
        if let Some(query) = &exchange.query {
            assert_form_masked(&what, query);
        }
        for body in [&exchange.request_body, &exchange.response_body]
            .into_iter()
            .flatten()
        {
            assert_json_masked(&what, body);
        }
        if let Some(location) = exchange.response_header("location") {
            let query = location.split_once('?').map_or("", |(_, q)| q);
            assert_form_masked(&what, query);
        }
    }
}

// ---------------------------------------------------------------------------------------
// Discovery.
// ---------------------------------------------------------------------------------------

/// MCP 2025-11-25 authorization, "Authorization Server Location": 401 with
/// `WWW-Authenticate: Bearer resource_metadata="…"`; RFC 6750 section 3.1: no `error`
/// when the request carried no token.
#[tokio::test]
async fn a_request_without_a_token_gets_401_naming_the_resource_metadata() {
    let server = MockMcpServer::builder()
        .oauth(OAuth::new().challenge_scope("mcp:read"))
        .start()
        .await;
    let response = Flow::new(&server).mcp(None).await;
    let challenge = assert_challenge(&response, StatusCode::UNAUTHORIZED, None);
    let metadata = format!(
        "{}/.well-known/oauth-protected-resource/mcp",
        server.base_url()
    );
    assert!(
        challenge.contains(&format!(r#"resource_metadata="{metadata}""#)),
        "{challenge}"
    );
    assert!(challenge.contains(r#"scope="mcp:read""#), "{challenge}");
    let body: serde_json::Value = response.json().await.expect("a JSON-RPC error body");
    assert_eq!(
        body["error"]["data"],
        serde_json::json!({ "reason": "missing" })
    );
    schema::assert_server_messages_valid(&server.log());
}

/// RFC 9728 section 3.2 (resource metadata) and RFC 8414 section 2 (authorization server
/// metadata, served at the RFC 8414 and both OpenID Connect discovery paths).
#[tokio::test]
async fn the_metadata_documents_describe_the_resource_and_the_authorization_server() {
    let server = MockMcpServer::builder()
        .oauth(
            OAuth::new()
                .scopes_supported(["mcp:read", "mcp:write"])
                .offline_access(true),
        )
        .start()
        .await;
    let http = reqwest::Client::new();
    let base = server.base_url();
    let prm: Value = http
        .get(format!("{base}/.well-known/oauth-protected-resource/mcp"))
        .send()
        .await
        .expect("PRM answers")
        .json()
        .await
        .expect("PRM is JSON");
    assert_eq!(prm["resource"], server.url());
    assert_eq!(prm["authorization_servers"], json!([base]));
    assert_eq!(prm["scopes_supported"], json!(["mcp:read", "mcp:write"]));
    let root = http
        .get(format!("{base}/.well-known/oauth-protected-resource"))
        .send()
        .await
        .expect("answers");
    assert_eq!(
        root.status(),
        StatusCode::NOT_FOUND,
        "the root document is not served by default"
    );

    for path in [
        "/.well-known/oauth-authorization-server",
        "/.well-known/openid-configuration",
    ] {
        let document: Value = http
            .get(format!("{base}{path}"))
            .send()
            .await
            .expect("AS metadata answers")
            .json()
            .await
            .expect("AS metadata is JSON");
        assert_eq!(document["issuer"], base, "{path}");
        assert_eq!(
            document["authorization_endpoint"],
            format!("{base}/oauth/authorize")
        );
        assert_eq!(document["token_endpoint"], format!("{base}/oauth/token"));
        assert_eq!(
            document["registration_endpoint"],
            format!("{base}/oauth/register")
        );
        assert_eq!(
            document["revocation_endpoint"],
            format!("{base}/oauth/revoke")
        );
        assert_eq!(
            document["code_challenge_methods_supported"],
            json!(["S256"])
        );
        assert_eq!(document["response_types_supported"], json!(["code"]));
        assert_eq!(
            document["grant_types_supported"],
            json!(["authorization_code", "refresh_token"])
        );
        assert_eq!(
            document["token_endpoint_auth_methods_supported"],
            json!(["client_secret_post", "client_secret_basic", "none"])
        );
        assert_eq!(
            document["authorization_response_iss_parameter_supported"],
            true
        );
        assert_eq!(document["client_id_metadata_document_supported"], true);
        assert_eq!(
            document["scopes_supported"],
            json!(["mcp:read", "mcp:write", "offline_access"])
        );
    }
    assert_eq!(server.oauth().issuer(), base);
}

/// The product guide, "Use HTTPS or a public URL": the issuer is built from the address
/// the client used; plain HTTP to a non-loopback host cannot complete OAuth. Behind a
/// tunnel (`X-Forwarded-Proto: https`) the issuer is the tunnel's https URL.
#[tokio::test]
async fn the_issuer_follows_the_host_the_client_used() {
    let server = MockMcpServer::builder()
        // Both pass the DNS-rebinding check, so the issuer rule itself is what refuses LAN.
        .allow_hosts(["mcp.example.com", "192.168.1.20"])
        .oauth(OAuth::new())
        .start()
        .await;
    let http = reqwest::Client::new();
    let metadata = format!(
        "{}/.well-known/oauth-authorization-server",
        server.base_url()
    );
    let lan = http
        .get(&metadata)
        .header(HOST, "192.168.1.20:3000")
        .send()
        .await
        .expect("answers");
    let description = assert_error(lan, StatusCode::BAD_REQUEST, "invalid_request").await;
    assert!(description.contains("https"), "{description}");
    let tunnel: Value = http
        .get(&metadata)
        .header(HOST, "mcp.example.com")
        .header("x-forwarded-proto", "https")
        .send()
        .await
        .expect("answers")
        .json()
        .await
        .expect("JSON");
    assert_eq!(tunnel["issuer"], "https://mcp.example.com");
    assert_eq!(
        tunnel["token_endpoint"],
        "https://mcp.example.com/oauth/token"
    );
}

// ---------------------------------------------------------------------------------------
// The authorization-code flow by hand, and every way to get it wrong.
// ---------------------------------------------------------------------------------------

/// OAuth 2.1 section 4.1: register, authorize (auto-approve), redeem, call.
#[tokio::test]
async fn a_raw_client_completes_the_flow_and_calls_the_endpoint() {
    let server = MockMcpServer::builder()
        .tool(Tool::echo())
        .oauth(OAuth::new())
        .start()
        .await;
    let flow = Flow::new(&server);
    let client = flow.register("none").await;
    let (verifier, challenge) = pkce();
    let response = flow.authorize_raw(&client.id, &challenge, &[]).await;
    // RFC 9207 section 2: the response carries `iss`, with `state` unchanged.
    let location = header(&response, LOCATION);
    assert_eq!(param(&location, "iss"), Some(server.base_url()));
    assert_eq!(param(&location, "state").as_deref(), Some("s-123"));
    let granted = Granted {
        code: param(&location, "code").expect("a code"),
        verifier,
    };
    let tokens = flow.exchange(&client, &granted).await;
    assert_eq!(tokens["token_type"], "Bearer");
    assert_eq!(tokens["expires_in"], 3600);
    assert!(tokens["refresh_token"].is_string());
    let answer = flow.mcp(tokens["access_token"].as_str()).await;
    assert_eq!(answer.status(), StatusCode::OK);
    schema::assert_server_messages_valid(&server.log());
    assert_no_secrets(&server);
}

/// RFC 7636 section 4.6: the verifier must hash to the challenge → `invalid_grant`.
#[tokio::test]
async fn a_wrong_code_verifier_is_invalid_grant() {
    let server = MockMcpServer::builder().oauth(OAuth::new()).start().await;
    let flow = Flow::new(&server);
    let client = flow.register("none").await;
    let mut granted = flow.authorize(&client).await;
    granted.verifier = pkce().0;
    let resource = server.url();
    let response = flow
        .token_raw(&flow.code_form(&client, &granted, &resource), None)
        .await;
    let description = assert_error(response, StatusCode::BAD_REQUEST, "invalid_grant").await;
    assert!(description.contains("code_verifier"), "{description}");
    // Missing or malformed verifiers are malformed requests.
    let form: Vec<_> = flow
        .code_form(&client, &granted, &resource)
        .into_iter()
        .filter(|(n, _)| *n != "code_verifier")
        .collect();
    assert_error(
        flow.token_raw(&form, None).await,
        StatusCode::BAD_REQUEST,
        "invalid_request",
    )
    .await;
    let mut short = flow.code_form(&client, &granted, &resource);
    short.retain(|(n, _)| *n != "code_verifier");
    short.push(("code_verifier", "too-short"));
    assert_error(
        flow.token_raw(&short, None).await,
        StatusCode::BAD_REQUEST,
        "invalid_request",
    )
    .await;
}

/// OAuth 2.1 section 4.1.3: a code is single-use; a second use is `invalid_grant` and
/// revokes the tokens issued from it.
#[tokio::test]
async fn a_reused_code_is_invalid_grant_and_revokes_its_tokens() {
    let server = MockMcpServer::builder().oauth(OAuth::new()).start().await;
    let flow = Flow::new(&server);
    let client = flow.register("none").await;
    let granted = flow.authorize(&client).await;
    let tokens = flow.exchange(&client, &granted).await;
    let access = tokens["access_token"].as_str().expect("a token");
    assert_eq!(flow.mcp(Some(access)).await.status(), StatusCode::OK);

    let resource = server.url();
    let again = flow
        .token_raw(&flow.code_form(&client, &granted, &resource), None)
        .await;
    let description = assert_error(again, StatusCode::BAD_REQUEST, "invalid_grant").await;
    assert!(description.contains("already used"), "{description}");
    assert!(
        server.oauth().tokens().is_empty(),
        "the first exchange's tokens are revoked"
    );
    let refused = flow.mcp(Some(access)).await;
    assert_challenge(&refused, StatusCode::UNAUTHORIZED, Some("invalid_token"));
}

/// Codes are short-lived (60 s by default), by the server's clock.
#[tokio::test]
async fn an_expired_code_is_invalid_grant() {
    let server = MockMcpServer::builder()
        .oauth(OAuth::new().code_lifetime(Duration::from_secs(30)))
        .start()
        .await;
    let flow = Flow::new(&server);
    let client = flow.register("none").await;
    let granted = flow.authorize(&client).await;
    server.advance_clock(Duration::from_secs(31));
    let resource = server.url();
    let response = flow
        .token_raw(&flow.code_form(&client, &granted, &resource), None)
        .await;
    let description = assert_error(response, StatusCode::BAD_REQUEST, "invalid_grant").await;
    assert!(description.contains("expired"), "{description}");
}

/// OAuth 2.1 section 4.1.1 and RFC 6749 section 4.1.2.1: redirect URIs match exactly, and a
/// wrong one is shown, never redirected to; at the token endpoint it is `invalid_grant`.
#[tokio::test]
async fn a_wrong_redirect_uri_is_refused_at_both_endpoints() {
    let server = MockMcpServer::builder().oauth(OAuth::new()).start().await;
    let flow = Flow::new(&server);
    let client = flow.register("none").await;
    let (_, challenge) = pkce();
    for wrong in [
        "http://127.0.0.1:9/callback/",
        "http://127.0.0.1:9/Callback",
        "http://127.0.0.1:9/callback?x=1",
    ] {
        let response = flow
            .authorize_raw(&client.id, &challenge, &[("redirect_uri", Some(wrong))])
            .await;
        assert!(
            response.headers().get(LOCATION).is_none(),
            "{wrong} must not be redirected to"
        );
        assert_error(response, StatusCode::BAD_REQUEST, "invalid_request").await;
    }
    let granted = flow.authorize(&client).await;
    let resource = server.url();
    let mut form = flow.code_form(&client, &granted, &resource);
    form.retain(|(n, _)| *n != "redirect_uri");
    form.push(("redirect_uri", "http://127.0.0.1:9/other"));
    assert_error(
        flow.token_raw(&form, None).await,
        StatusCode::BAD_REQUEST,
        "invalid_grant",
    )
    .await;
}

/// The issuer is built from `Host`, so the OAuth endpoints get the same DNS-rebinding
/// protection as the MCP endpoint (2025-11-25 transports, "Security Warning"): a foreign
/// Host gets 403 and never an issuer of its choosing.
#[tokio::test]
async fn oauth_endpoints_refuse_a_foreign_host() {
    let server = MockMcpServer::builder().oauth(OAuth::new()).start().await;
    let http = reqwest::Client::new();
    for path in [
        "/.well-known/oauth-protected-resource/mcp",
        "/.well-known/oauth-authorization-server",
    ] {
        let url = format!("{}{path}", server.base_url());
        let foreign = http
            .get(&url)
            .header(HOST, "evil.example")
            .send()
            .await
            .expect("metadata request");
        assert_eq!(foreign.status(), StatusCode::FORBIDDEN, "{path}");
        let body = foreign.text().await.expect("body");
        assert!(!body.contains("evil.example/"), "{path}: {body}");
        let local = http.get(&url).send().await.expect("metadata request");
        assert_eq!(local.status(), StatusCode::OK, "{path}");
    }
}

/// A restart drops OAuth state like a restarted process: the old token gets 401
/// `invalid_token`, so the client must authorize again.
#[tokio::test]
async fn a_restart_forgets_every_token() {
    let mut server = MockMcpServer::builder().oauth(OAuth::new()).start().await;
    let access = {
        let flow = Flow::new(&server);
        let (_, tokens) = flow.tokens().await;
        let access = tokens["access_token"]
            .as_str()
            .expect("access_token")
            .to_string();
        assert_eq!(flow.mcp(Some(&access)).await.status(), StatusCode::OK);
        access
    };

    server.restart().await;

    assert!(server.oauth().tokens().is_empty());
    let refused = Flow::new(&server).mcp(Some(&access)).await;
    assert_challenge(&refused, StatusCode::UNAUTHORIZED, Some("invalid_token"));
}

/// OAuth 2.1 section 8.4.2 (RFC 8252 section 7.3): for a loopback IP redirect URI the
/// authorization server MUST allow any port, since native clients listen on an ephemeral one.
#[tokio::test]
async fn a_loopback_redirect_uri_matches_on_another_port() {
    let server = MockMcpServer::builder().oauth(OAuth::new()).start().await;
    let flow = Flow::new(&server);
    let client = flow.register("none").await;
    let (_, challenge) = pkce();
    let other_port = "http://127.0.0.1:54321/callback";
    let response = flow
        .authorize_raw(
            &client.id,
            &challenge,
            &[("redirect_uri", Some(other_port))],
        )
        .await;
    let location = response
        .headers()
        .get(LOCATION)
        .and_then(|v| v.to_str().ok())
        .expect("redirected back to the client");
    assert!(location.starts_with(other_port), "{location}");
    assert!(location.contains("code="), "{location}");
}

/// An unknown client: shown as `invalid_client` at the authorization endpoint (no
/// redirect), `401 invalid_client` at the token endpoint (RFC 6749 section 5.2).
#[tokio::test]
async fn an_unknown_client_is_invalid_client() {
    let server = MockMcpServer::builder().oauth(OAuth::new()).start().await;
    let flow = Flow::new(&server);
    let (verifier, challenge) = pkce();
    let response = flow.authorize_raw("nobody", &challenge, &[]).await;
    assert!(response.headers().get(LOCATION).is_none());
    assert_error(response, StatusCode::BAD_REQUEST, "invalid_client").await;
    let form = [
        ("grant_type", "authorization_code"),
        ("code", "whatever"),
        ("redirect_uri", REDIRECT),
        ("code_verifier", verifier.as_str()),
        ("client_id", "nobody"),
    ];
    assert_error(
        flow.token_raw(&form, None).await,
        StatusCode::UNAUTHORIZED,
        "invalid_client",
    )
    .await;
}

/// RFC 8707 section 2 and MCP "Resource Parameter Implementation": `resource` is required
/// in both requests and must be this server; otherwise `invalid_target`.
#[tokio::test]
async fn a_missing_or_foreign_resource_is_invalid_target() {
    let server = MockMcpServer::builder().oauth(OAuth::new()).start().await;
    let flow = Flow::new(&server);
    let client = flow.register("none").await;
    let issuer = server.oauth().issuer();
    let (_, challenge) = pkce();
    for resource in [
        None,
        Some("https://evil.example.com/mcp"),
        Some(&*format!("{}/", server.url())),
    ] {
        let response = flow
            .authorize_raw(&client.id, &challenge, &[("resource", resource)])
            .await;
        assert_error_redirect(&response, "invalid_target", &issuer);
    }
    let granted = flow.authorize(&client).await;
    for resource in ["", "https://evil.example.com/mcp"] {
        let mut form = flow.code_form(&client, &granted, resource);
        form.retain(|(n, v)| *n != "resource" || !v.is_empty());
        assert_error(
            flow.token_raw(&form, None).await,
            StatusCode::BAD_REQUEST,
            "invalid_target",
        )
        .await;
    }
}

/// OAuth 2.1 section 4.1.1: PKCE is required and `plain` is refused (MCP: S256).
#[tokio::test]
async fn pkce_plain_or_missing_is_invalid_request() {
    let server = MockMcpServer::builder().oauth(OAuth::new()).start().await;
    let flow = Flow::new(&server);
    let client = flow.register("none").await;
    let issuer = server.oauth().issuer();
    let (verifier, challenge) = pkce();
    for (changes, says) in [
        (
            vec![
                ("code_challenge_method", Some("plain")),
                ("code_challenge", Some(verifier.as_str())),
            ],
            "plain",
        ),
        (vec![("code_challenge_method", None)], "S256"),
        (vec![("code_challenge", None)], "PKCE"),
        (vec![("code_challenge", Some("short"))], "43"),
    ] {
        let response = flow.authorize_raw(&client.id, &challenge, &changes).await;
        let description = assert_error_redirect(&response, "invalid_request", &issuer);
        assert!(description.contains(says), "{description}");
    }
}

/// RFC 6749 sections 3.1, 4.1.1, 4.1.3 and 5.2: malformed requests.
#[tokio::test]
async fn malformed_requests_get_the_rfc_error_codes() {
    let server = MockMcpServer::builder().oauth(OAuth::new()).start().await;
    let flow = Flow::new(&server);
    let client = flow.register("none").await;
    let issuer = server.oauth().issuer();
    let (_, challenge) = pkce();

    let response = flow
        .authorize_raw(&client.id, &challenge, &[("response_type", Some("token"))])
        .await;
    assert_error_redirect(&response, "unsupported_response_type", &issuer);
    let response = flow
        .authorize_raw(&client.id, &challenge, &[("response_type", None)])
        .await;
    assert_error_redirect(&response, "invalid_request", &issuer);
    let response = flow
        .authorize_raw(&client.id, &challenge, &[("client_id", None)])
        .await;
    assert_error(response, StatusCode::BAD_REQUEST, "invalid_request").await;
    let twice = format!(
        "{}&state=again",
        flow.authorize_url(&client.id, &challenge, &[])
    );
    let response = flow.http.get(twice).send().await.expect("answers");
    assert_error(response, StatusCode::BAD_REQUEST, "invalid_request").await;

    let json_body = flow
        .http
        .post(flow.url("/oauth/token"))
        .json(&json!({ "grant_type": "authorization_code" }))
        .send()
        .await
        .expect("answers");
    assert_error(json_body, StatusCode::BAD_REQUEST, "invalid_request").await;
    let no_grant = [("client_id", client.id.as_str())];
    assert_error(
        flow.token_raw(&no_grant, None).await,
        StatusCode::BAD_REQUEST,
        "invalid_request",
    )
    .await;
    let password = [
        ("grant_type", "password"),
        ("client_id", client.id.as_str()),
    ];
    assert_error(
        flow.token_raw(&password, None).await,
        StatusCode::BAD_REQUEST,
        "unsupported_grant_type",
    )
    .await;
    let no_code = [
        ("grant_type", "authorization_code"),
        ("client_id", client.id.as_str()),
    ];
    assert_error(
        flow.token_raw(&no_code, None).await,
        StatusCode::BAD_REQUEST,
        "invalid_request",
    )
    .await;
    let unknown_code = [
        ("grant_type", "authorization_code"),
        ("client_id", client.id.as_str()),
        ("code", "nope"),
        ("code_verifier", &pkce().0),
        ("resource", &server.url()),
    ];
    assert_error(
        flow.token_raw(&unknown_code, None).await,
        StatusCode::BAD_REQUEST,
        "invalid_grant",
    )
    .await;
    let get = flow
        .http
        .get(flow.url("/oauth/token"))
        .send()
        .await
        .expect("answers");
    assert_eq!(get.status(), StatusCode::METHOD_NOT_ALLOWED);
}

// ---------------------------------------------------------------------------------------
// Tokens at the resource server.
// ---------------------------------------------------------------------------------------

/// RFC 6750 section 3.1: an expired access token is `invalid_token`; the refresh token
/// gets a new pair, which works (the product guide: refresh tokens rotate).
#[tokio::test]
async fn an_expired_token_is_invalid_token_and_a_refresh_rotates_both() {
    let server = MockMcpServer::builder().oauth(OAuth::new()).start().await;
    let flow = Flow::new(&server);
    let (client, tokens) = flow.tokens().await;
    server.advance_clock(Duration::from_secs(3600));
    let expired = flow.mcp(tokens["access_token"].as_str()).await;
    let challenge = assert_challenge(&expired, StatusCode::UNAUTHORIZED, Some("invalid_token"));
    assert!(challenge.contains("expired"), "{challenge}");

    let refresh = tokens["refresh_token"].as_str().expect("a refresh token");
    let form = [
        ("grant_type", "refresh_token"),
        ("refresh_token", refresh),
        ("client_id", client.id.as_str()),
    ];
    let response = flow.token_raw(&form, None).await;
    assert_eq!(response.status(), StatusCode::OK);
    let fresh: Value = response.json().await.expect("JSON");
    assert_ne!(fresh["refresh_token"], tokens["refresh_token"]);
    assert_eq!(
        flow.mcp(fresh["access_token"].as_str()).await.status(),
        StatusCode::OK
    );
    // The old refresh token was used up.
    let again = flow.token_raw(&form, None).await;
    assert_error(again, StatusCode::BAD_REQUEST, "invalid_grant").await;
}

/// OAuth 2.1 section 4.3.1 (issue 41): a refresh token used a second time was stolen, or
/// its client lost track; the reuse revokes every live token of its grant, the pair its
/// first use issued included.
#[tokio::test]
async fn a_rotated_refresh_token_used_again_revokes_its_grants_tokens() {
    // Arrange: a grant whose refresh token was rotated once.
    let server = MockMcpServer::builder().oauth(OAuth::new()).start().await;
    let flow = Flow::new(&server);
    let (client, tokens) = flow.tokens().await;
    let refresh = tokens["refresh_token"].as_str().expect("a refresh token");
    let form = [
        ("grant_type", "refresh_token"),
        ("refresh_token", refresh),
        ("client_id", client.id.as_str()),
    ];
    let rotated = flow.token_raw(&form, None).await;
    assert_eq!(rotated.status(), StatusCode::OK);
    let fresh: Value = rotated.json().await.expect("JSON");
    assert_eq!(
        flow.mcp(fresh["access_token"].as_str()).await.status(),
        StatusCode::OK
    );

    // Act: the old refresh token again.
    let reused = flow.token_raw(&form, None).await;

    // Assert: refused, and the grant's tokens are gone.
    let description = assert_error(reused, StatusCode::BAD_REQUEST, "invalid_grant").await;
    assert!(description.contains("already used"), "{description}");
    let after = flow.mcp(fresh["access_token"].as_str()).await;
    assert_challenge(&after, StatusCode::UNAUTHORIZED, Some("invalid_token"));
    let fresh_refresh = fresh["refresh_token"].as_str().expect("a refresh token");
    let again = flow
        .token_raw(
            &[
                ("grant_type", "refresh_token"),
                ("refresh_token", fresh_refresh),
                ("client_id", client.id.as_str()),
            ],
            None,
        )
        .await;
    assert_error(again, StatusCode::BAD_REQUEST, "invalid_grant").await;
    assert!(
        server.oauth().tokens().is_empty(),
        "{:?}",
        server.oauth().tokens()
    );
}

/// A revoked token is `invalid_token` (by the handle, or by the client at the RFC 7009
/// revocation endpoint); revoking a refresh token leaves the access token valid.
#[tokio::test]
async fn revoked_tokens_are_invalid_token() {
    let server = MockMcpServer::builder().oauth(OAuth::new()).start().await;
    let flow = Flow::new(&server);
    let (client, tokens) = flow.tokens().await;
    let access = tokens["access_token"].as_str().expect("a token");
    let listed = server.oauth().tokens();
    assert_eq!(listed.len(), 2);
    let refresh_id = &listed
        .iter()
        .find(|t| t.kind == TokenKind::Refresh)
        .expect("a refresh token")
        .id;
    assert!(server.oauth().revoke(refresh_id));
    assert!(!server.oauth().revoke(refresh_id), "already gone");
    assert_eq!(flow.mcp(Some(access)).await.status(), StatusCode::OK);

    // RFC 7009 section 2.1: the client revokes its access token.
    let revoke = |token: String| {
        let form = form_urlencoded::Serializer::new(String::new())
            .extend_pairs([("token", token.as_str()), ("client_id", client.id.as_str())])
            .finish();
        flow.http
            .post(flow.url("/oauth/revoke"))
            .header(CONTENT_TYPE, "application/x-www-form-urlencoded")
            .body(form)
            .send()
    };
    assert_eq!(
        revoke(access.to_string()).await.expect("answers").status(),
        StatusCode::OK
    );
    let refused = flow.mcp(Some(access)).await;
    let challenge = assert_challenge(&refused, StatusCode::UNAUTHORIZED, Some("invalid_token"));
    assert!(challenge.contains("revoked"), "{challenge}");
    // RFC 7009 section 2.2: an unknown token is not an error.
    assert_eq!(
        revoke("unknown".into()).await.expect("answers").status(),
        StatusCode::OK
    );
    assert!(server.oauth().tokens().is_empty());
}

/// RFC 8707 section 2 / MCP "Token Audience Binding": a token bound to another resource
/// (here: obtained through `127.0.0.1`, presented through `localhost`) is refused.
#[tokio::test]
async fn a_token_for_another_audience_is_invalid_token() {
    let server = MockMcpServer::builder().oauth(OAuth::new()).start().await;
    let flow = Flow::new(&server);
    let (_, tokens) = flow.tokens().await;
    let port = server.address().port();
    let response = flow
        .http
        .post(server.url())
        .header(HOST, format!("localhost:{port}"))
        .header("accept", "application/json, text/event-stream")
        .bearer_auth(tokens["access_token"].as_str().expect("a token"))
        .json(&initialize_request())
        .send()
        .await
        .expect("answers");
    let challenge = assert_challenge(&response, StatusCode::UNAUTHORIZED, Some("invalid_token"));
    assert!(challenge.contains("resource"), "{challenge}");
    // Not a bearer token at all: `invalid_request`.
    let basic = flow
        .http
        .post(server.url())
        .header(AUTHORIZATION, "Basic eDp5")
        .json(&initialize_request())
        .send()
        .await
        .expect("answers");
    assert_challenge(&basic, StatusCode::UNAUTHORIZED, Some("invalid_request"));
    let unknown = flow.mcp(Some("made-up")).await;
    assert_challenge(&unknown, StatusCode::UNAUTHORIZED, Some("invalid_token"));
    schema::assert_server_messages_valid(&server.log());
}

// ---------------------------------------------------------------------------------------
// Scopes and step-up.
// ---------------------------------------------------------------------------------------

/// MCP "Runtime Insufficient Scope Errors": a tool needing a scope the token lacks gets
/// 403 `insufficient_scope` with `scope` (granted + needed) and `resource_metadata`; after
/// re-authorizing with that scope the call succeeds.
#[tokio::test]
async fn a_tool_needing_more_scope_gets_403_insufficient_scope_then_works_after_step_up() {
    let server = MockMcpServer::builder()
        .tool(Tool::echo())
        .oauth(
            OAuth::new()
                .scopes_supported(["mcp:read", "mcp:write"])
                .tool_scopes("echo", ["mcp:write"]),
        )
        .start()
        .await;
    let flow = Flow::new(&server);
    let client = flow.register("none").await;
    let call = json!({ "jsonrpc": "2.0", "id": 2, "method": "tools/call", "params": { "name": "echo", "arguments": { "message": "hi" } } });
    let post = |token: String| {
        flow.http
            .post(server.url())
            .header("accept", "application/json, text/event-stream")
            .header("mcp-protocol-version", "2025-11-25")
            .bearer_auth(token)
            .json(&call)
            .send()
    };
    let authorize_with = |scope: &'static str| {
        let flow = &flow;
        let client = client.clone();
        async move {
            let (verifier, challenge) = pkce();
            let response = flow
                .authorize_raw(&client.id, &challenge, &[("scope", Some(scope))])
                .await;
            let location = header(&response, LOCATION);
            let granted = Granted {
                code: param(&location, "code").expect("a code"),
                verifier,
            };
            flow.exchange(&client, &granted).await["access_token"]
                .as_str()
                .expect("a token")
                .to_string()
        }
    };
    let read = authorize_with("mcp:read").await;
    // Stateless enough for this check: the scope check runs before the session check.
    let forbidden = post(read).await.expect("answers");
    let challenge = assert_challenge(
        &forbidden,
        StatusCode::FORBIDDEN,
        Some("insufficient_scope"),
    );
    assert!(
        challenge.contains(r#"scope="mcp:read mcp:write""#),
        "{challenge}"
    );
    assert!(challenge.contains("resource_metadata="), "{challenge}");

    // Unknown scopes are refused at the authorization endpoint.
    let (_, pkce_challenge) = pkce();
    let response = flow
        .authorize_raw(&client.id, &pkce_challenge, &[("scope", Some("admin"))])
        .await;
    assert_error_redirect(&response, "invalid_scope", &server.oauth().issuer());

    let both = authorize_with("mcp:read mcp:write").await;
    let allowed = post(both).await.expect("answers");
    assert_ne!(allowed.status(), StatusCode::FORBIDDEN);
    assert_ne!(allowed.status(), StatusCode::UNAUTHORIZED);
}

/// A refresh can narrow the scopes, never widen them (RFC 6749 section 6: `invalid_scope`).
#[tokio::test]
async fn a_refresh_asking_for_more_scope_is_invalid_scope() {
    let server = MockMcpServer::builder()
        .oauth(OAuth::new().scopes_supported(["a", "b"]))
        .start()
        .await;
    let flow = Flow::new(&server);
    let client = flow.register("none").await;
    let (verifier, challenge) = pkce();
    let response = flow
        .authorize_raw(&client.id, &challenge, &[("scope", Some("a"))])
        .await;
    let granted = Granted {
        code: param(&header(&response, LOCATION), "code").expect("a code"),
        verifier,
    };
    let tokens = flow.exchange(&client, &granted).await;
    assert_eq!(tokens["scope"], "a");
    let refresh = tokens["refresh_token"].as_str().expect("a refresh token");
    let form = [
        ("grant_type", "refresh_token"),
        ("refresh_token", refresh),
        ("client_id", client.id.as_str()),
        ("scope", "a b"),
    ];
    assert_error(
        flow.token_raw(&form, None).await,
        StatusCode::BAD_REQUEST,
        "invalid_scope",
    )
    .await;
}

// ---------------------------------------------------------------------------------------
// Client authentication at the token endpoint.
// ---------------------------------------------------------------------------------------

/// RFC 6749 section 2.3.1: `client_secret_basic` and `client_secret_post`; a wrong secret,
/// a method the server switched off, or two methods at once are refused.
#[tokio::test]
async fn each_token_endpoint_auth_method_works_and_can_be_switched_off() {
    for method in ["client_secret_basic", "client_secret_post", "none"] {
        let server = MockMcpServer::builder().oauth(OAuth::new()).start().await;
        let flow = Flow::new(&server);
        let client = flow.register(method).await;
        assert_eq!(client.secret.is_some(), method != "none", "{method}");
        let granted = flow.authorize(&client).await;
        let resource = server.url();
        let mut form = flow.code_form(&client, &granted, &resource);
        let secret = client.secret.clone().unwrap_or_default();
        let basic = match method {
            "client_secret_basic" => {
                form.retain(|(n, _)| *n != "client_id");
                Some((client.id.as_str(), secret.as_str()))
            }
            "client_secret_post" => {
                form.push(("client_secret", &secret));
                None
            }
            _ => None,
        };
        // A wrong secret first: refused, and the code survives for the right one.
        if let Some((id, _)) = basic {
            let wrong = flow.token_raw(&form, Some((id, "wrong"))).await;
            assert_eq!(
                header(&wrong, WWW_AUTHENTICATE),
                r#"Basic realm="mcp-decoy""#
            );
            assert_error(wrong, StatusCode::UNAUTHORIZED, "invalid_client").await;
        }
        let response = flow.token_raw(&form, basic).await;
        assert_eq!(
            response.status(),
            StatusCode::OK,
            "{method}: {:?}",
            response.text().await
        );
        assert_no_secrets(&server);
    }

    // Only `client_secret_basic`: `post` and `none` are refused at registration and at the
    // token endpoint.
    let server = MockMcpServer::builder()
        .oauth(
            OAuth::new().token_endpoint_auth_methods([TokenEndpointAuthMethod::ClientSecretBasic]),
        )
        .start()
        .await;
    let flow = Flow::new(&server);
    let refused = flow
        .register_raw(json!({ "redirect_uris": [REDIRECT], "token_endpoint_auth_method": "none" }))
        .await;
    assert_error(refused, StatusCode::BAD_REQUEST, "invalid_client_metadata").await;
    let client = flow.register("client_secret_basic").await;
    let secret = client.secret.clone().expect("a secret");
    let granted = flow.authorize(&client).await;
    let resource = server.url();
    let mut form = flow.code_form(&client, &granted, &resource);
    form.push(("client_secret", &secret));
    let post = flow.token_raw(&form, None).await;
    let description = assert_error(post, StatusCode::UNAUTHORIZED, "invalid_client").await;
    assert!(description.contains("client_secret_post"), "{description}");
    let both = flow.token_raw(&form, Some((&client.id, &secret))).await;
    assert_error(both, StatusCode::BAD_REQUEST, "invalid_request").await;
}

/// A pre-registered confidential client (the product guide's "Use the pre-registered
/// client") authenticates with its secret and needs no registration.
#[tokio::test]
async fn a_pre_registered_client_uses_its_secret() {
    let server = MockMcpServer::builder()
        .oauth(
            OAuth::new()
                .dynamic_registration(false)
                .pre_registered_client("app", Some("s3cret"), [REDIRECT]),
        )
        .start()
        .await;
    let flow = Flow::new(&server);
    let metadata: Value = flow
        .http
        .get(flow.url("/.well-known/oauth-authorization-server"))
        .send()
        .await
        .expect("answers")
        .json()
        .await
        .expect("JSON");
    assert!(metadata.get("registration_endpoint").is_none());
    let refused = flow
        .register_raw(json!({ "redirect_uris": [REDIRECT] }))
        .await;
    assert_eq!(refused.status(), StatusCode::NOT_FOUND);
    let client = Registered {
        id: "app".into(),
        secret: Some("s3cret".into()),
    };
    let granted = flow.authorize(&client).await;
    let resource = server.url();
    let form = flow.code_form(&client, &granted, &resource);
    let public = flow.token_raw(&form, None).await;
    assert_error(public, StatusCode::UNAUTHORIZED, "invalid_client").await;
    let mut with_secret = form.clone();
    with_secret.push(("client_secret", "s3cret"));
    assert_eq!(
        flow.token_raw(&with_secret, None).await.status(),
        StatusCode::OK
    );
    assert_eq!(
        server
            .oauth()
            .pre_registered_client()
            .expect("one")
            .client_id,
        "app"
    );
}

// ---------------------------------------------------------------------------------------
// Registration.
// ---------------------------------------------------------------------------------------

/// RFC 7591 section 3.2.2: bad metadata is `invalid_redirect_uri` or
/// `invalid_client_metadata`; 2026-07-28 client registration: `application_type` is
/// `native` or `web`.
#[tokio::test]
async fn bad_client_metadata_is_refused_with_the_rfc_7591_codes() {
    let server = MockMcpServer::builder()
        .oauth(OAuth::new().require_application_type(true))
        .start()
        .await;
    let flow = Flow::new(&server);
    for (metadata, code) in [
        (
            json!({ "client_name": "x", "application_type": "native" }),
            "invalid_redirect_uri",
        ),
        (
            json!({ "redirect_uris": [], "application_type": "native" }),
            "invalid_redirect_uri",
        ),
        (
            json!({ "redirect_uris": ["http://app.example.com/cb"], "application_type": "native" }),
            "invalid_redirect_uri",
        ),
        (
            json!({ "redirect_uris": ["https://app.example.com/cb#f"], "application_type": "native" }),
            "invalid_redirect_uri",
        ),
        (
            json!({ "redirect_uris": [REDIRECT] }),
            "invalid_client_metadata",
        ),
        (
            json!({ "redirect_uris": [REDIRECT], "application_type": "desktop" }),
            "invalid_client_metadata",
        ),
        (
            json!({ "redirect_uris": [REDIRECT], "application_type": "native", "grant_types": ["password"] }),
            "invalid_client_metadata",
        ),
        (
            json!({ "redirect_uris": [REDIRECT], "application_type": "native", "token_endpoint_auth_method": "private_key_jwt" }),
            "invalid_client_metadata",
        ),
        (json!(["not", "an", "object"]), "invalid_client_metadata"),
    ] {
        let response = flow.register_raw(metadata.clone()).await;
        let description = assert_error(response, StatusCode::BAD_REQUEST, code).await;
        assert!(!description.is_empty(), "{metadata}");
    }
    let native = flow
        .register_raw(json!({ "redirect_uris": [REDIRECT, "com.example.app:/cb"], "application_type": "native", "client_name": "app" }))
        .await;
    assert_eq!(native.status(), StatusCode::CREATED);
    let body: Value = native.json().await.expect("JSON");
    assert_eq!(body["application_type"], "native");
    assert_eq!(body["client_name"], "app");
    assert_eq!(
        body["token_endpoint_auth_method"], "client_secret_basic",
        "RFC 7591's default"
    );
}

/// Without the `oauth-cimd` feature nothing is fetched: a URL `client_id` is refused with
/// `invalid_client`, and the description names the feature (run by a plain `cargo test`).
#[cfg(not(feature = "oauth-cimd"))]
#[tokio::test]
async fn a_client_id_metadata_document_needs_the_oauth_cimd_feature() {
    let server = MockMcpServer::builder().oauth(OAuth::new()).start().await;
    let flow = Flow::new(&server);
    let (_, challenge) = pkce();
    let response = flow
        .authorize_raw("http://127.0.0.1:9/client.json", &challenge, &[])
        .await;
    let description = assert_error(response, StatusCode::BAD_REQUEST, "invalid_client").await;
    assert!(
        description.contains("`oauth-cimd` feature"),
        "{description}"
    );
}

/// Client ID Metadata Documents: the `client_id` is a URL the server fetches (loopback
/// http in tests, which the server must allow); its `client_id` must be that URL exactly
/// and its `redirect_uris` must hold the redirect URI.
#[cfg(feature = "oauth-cimd")]
#[tokio::test]
async fn a_client_id_metadata_document_is_fetched_and_checked() {
    let server = MockMcpServer::builder()
        .oauth(OAuth::new().client_metadata_on_loopback(true))
        .start()
        .await;
    let documents = DocumentServer::start().await;
    let good = documents.url("/client.json");
    documents.serve(
        "/client.json",
        json!({ "client_id": good, "client_name": "cimd", "redirect_uris": [REDIRECT] }),
    );
    let flow = Flow::new(&server);
    let client = Registered {
        id: good.clone(),
        secret: None,
    };
    let granted = flow.authorize(&client).await;
    let tokens = flow.exchange(&client, &granted).await;
    // The document is fetched again on each authorization: a change shows at once.
    documents.serve(
        "/client.json",
        json!({ "client_id": good, "client_name": "cimd", "redirect_uris": ["http://127.0.0.1:9/moved"] }),
    );
    let (_, moved) = pkce();
    let refused = flow.authorize_raw(&good, &moved, &[]).await;
    assert_error(refused, StatusCode::BAD_REQUEST, "invalid_request").await;
    assert_eq!(
        flow.mcp(tokens["access_token"].as_str()).await.status(),
        StatusCode::OK
    );

    let (_, challenge) = pkce();
    let wrong_id = documents.url("/wrong-id.json");
    documents.serve("/wrong-id.json", json!({ "client_id": "https://elsewhere.example.com/c.json", "client_name": "x", "redirect_uris": [REDIRECT] }));
    let no_redirects = documents.url("/no-redirects.json");
    documents.serve(
        "/no-redirects.json",
        json!({ "client_id": no_redirects, "client_name": "x" }),
    );
    let other_redirect = documents.url("/other.json");
    documents.serve("/other.json", json!({ "client_id": other_redirect, "client_name": "x", "redirect_uris": ["http://127.0.0.1:9/other"] }));
    for (client_id, says, code) in [
        (wrong_id, "exactly", "invalid_client"),
        (no_redirects, "redirect_uris", "invalid_client"),
        (documents.url("/missing.json"), "404", "invalid_client"),
        (other_redirect, "not registered", "invalid_request"),
        (documents.url("/"), "path", "invalid_client"),
    ] {
        let response = flow.authorize_raw(&client_id, &challenge, &[]).await;
        let description = assert_error(response, StatusCode::BAD_REQUEST, code).await;
        assert!(description.contains(says), "{client_id}: {description}");
    }
    if !cfg!(feature = "decoy-cli") {
        let response = flow
            .authorize_raw("https://app.example.com/client.json", &challenge, &[])
            .await;
        let description = assert_error(response, StatusCode::BAD_REQUEST, "invalid_client").await;
        assert!(description.contains("no TLS"), "{description}");
    }
}

/// Issue 41: the authorization endpoint fetched any loopback `client_id` URL for any web
/// page (a port scan of this machine, blind GETs to the app's REST API). Unless the server
/// allows loopback documents for a test, a `client_id` that leads to this machine or a
/// private network is refused before any fetch, naming the reason.
#[cfg(feature = "oauth-cimd")]
#[tokio::test]
async fn a_client_id_url_on_this_machine_or_a_private_network_is_not_fetched() {
    // Arrange: a document the server could fetch, were it allowed to.
    let server = MockMcpServer::builder().oauth(OAuth::new()).start().await;
    let documents = DocumentServer::start().await;
    let local = documents.url("/client.json");
    documents.serve(
        "/client.json",
        json!({ "client_id": local, "client_name": "local", "redirect_uris": [REDIRECT] }),
    );
    let flow = Flow::new(&server);
    let (_, challenge) = pkce();

    // Act + Assert
    for (client_id, says) in [
        (local.as_str(), "client_metadata_on_loopback"),
        ("https://127.0.0.1:9/client.json", "not a public address"),
        ("https://10.0.0.1/client.json", "not a public address"),
        (
            "https://169.254.169.254/latest/meta-data",
            "not a public address",
        ),
        ("https://[::1]/client.json", "not a public address"),
        ("https://localhost/client.json", "names this machine"),
        ("http://app.example.com/client.json", "https"),
    ] {
        let response = flow.authorize_raw(client_id, &challenge, &[]).await;
        assert_eq!(
            response.headers().get("access-control-allow-origin"),
            None,
            "no other origin reads the authorization endpoint's answer"
        );
        let description = assert_error(response, StatusCode::BAD_REQUEST, "invalid_client").await;
        assert!(description.contains(says), "{client_id}: {description}");
    }
    assert_eq!(documents.fetched(), 0, "nothing was fetched");
}

/// A tiny loopback HTTP server for Client ID Metadata Documents.
#[cfg(feature = "oauth-cimd")]
struct DocumentServer {
    base: String,
    documents: std::sync::Arc<std::sync::Mutex<std::collections::HashMap<String, Value>>>,
    /// Requests it got.
    hits: std::sync::Arc<std::sync::atomic::AtomicUsize>,
}

#[cfg(feature = "oauth-cimd")]
impl DocumentServer {
    async fn start() -> Self {
        let documents: std::sync::Arc<std::sync::Mutex<std::collections::HashMap<String, Value>>> =
            Default::default();
        let shared = documents.clone();
        let hits = std::sync::Arc::new(std::sync::atomic::AtomicUsize::new(0));
        let counted = hits.clone();
        let app = axum::Router::new().fallback(move |uri: axum::http::Uri| {
            let shared = shared.clone();
            counted.fetch_add(1, std::sync::atomic::Ordering::SeqCst);
            async move {
                let found = shared.lock().expect("the map").get(uri.path()).cloned();
                match found {
                    Some(document) => {
                        axum::response::IntoResponse::into_response(axum::Json(document))
                    }
                    None => axum::response::IntoResponse::into_response(
                        axum::http::StatusCode::NOT_FOUND,
                    ),
                }
            }
        });
        let listener = tokio::net::TcpListener::bind("127.0.0.1:0")
            .await
            .expect("a port");
        let base = format!("http://{}", listener.local_addr().expect("an address"));
        tokio::spawn(async move {
            let _ = axum::serve(listener, app).await;
        });
        DocumentServer {
            base,
            documents,
            hits,
        }
    }

    fn fetched(&self) -> usize {
        self.hits.load(std::sync::atomic::Ordering::SeqCst)
    }

    fn url(&self, path: &str) -> String {
        format!("{}{path}", self.base)
    }

    fn serve(&self, path: &str, document: Value) {
        self.documents
            .lock()
            .expect("the map")
            .insert(path.to_string(), document);
    }
}

// ---------------------------------------------------------------------------------------
// Consent.
// ---------------------------------------------------------------------------------------

/// Consent without a browser: `Deny` redirects with `error=access_denied` (RFC 6749
/// section 4.1.2.1), with `state` and `iss`; the handle switches modes live.
#[tokio::test]
async fn denied_consent_redirects_with_access_denied() {
    let server = MockMcpServer::builder()
        .oauth(OAuth::new().consent(Consent::Deny))
        .start()
        .await;
    let flow = Flow::new(&server);
    let client = flow.register("none").await;
    let (_, challenge) = pkce();
    let response = flow.authorize_raw(&client.id, &challenge, &[]).await;
    assert_error_redirect(&response, "access_denied", &server.oauth().issuer());
    server.oauth().set_consent(Consent::Auto);
    assert_eq!(server.oauth().consent(), Consent::Auto);
    flow.authorize(&client).await;
}

/// `Consent::Page`: an HTML page with Approve and Deny buttons that post a form; Approve
/// redirects with a code, Deny with `access_denied`, and an answered page cannot be
/// answered again.
#[tokio::test]
async fn the_consent_page_approves_or_denies() {
    let server = MockMcpServer::builder()
        .oauth(OAuth::new().consent(Consent::Page))
        .start()
        .await;
    let flow = Flow::new(&server);
    let client = flow.register("none").await;
    for (decision, expect_code) in [("approve", true), ("deny", false)] {
        let (_, challenge) = pkce();
        let page = flow.authorize_raw(&client.id, &challenge, &[]).await;
        assert_eq!(page.status(), StatusCode::OK);
        assert!(header(&page, CONTENT_TYPE).starts_with("text/html"));
        let html = page.text().await.expect("a page");
        assert!(
            html.contains(r#"value="approve">Approve</button>"#),
            "{html}"
        );
        assert!(html.contains(r#"value="deny">Deny</button>"#), "{html}");
        let request = html
            .split(r#"name="request" value=""#)
            .nth(1)
            .and_then(|rest| rest.split('"').next())
            .expect("the request id in the form")
            .to_string();
        let form = form_urlencoded::Serializer::new(String::new())
            .extend_pairs([("request", request.as_str()), ("decision", decision)])
            .finish();
        let answer = |form: String| {
            flow.http
                .post(flow.url("/oauth/consent"))
                .header(CONTENT_TYPE, "application/x-www-form-urlencoded")
                .body(form)
                .send()
        };
        let response = answer(form.clone()).await.expect("answers");
        assert_eq!(response.status(), StatusCode::FOUND);
        let location = header(&response, LOCATION);
        assert_eq!(
            param(&location, "code").is_some(),
            expect_code,
            "{location}"
        );
        if !expect_code {
            assert_eq!(param(&location, "error").as_deref(), Some("access_denied"));
        }
        let twice = answer(form).await.expect("answers");
        assert_error(twice, StatusCode::BAD_REQUEST, "invalid_request").await;
    }
}

/// The request id a consent page's form carries.
fn consent_request_id(html: &str) -> String {
    html.split(r#"name="request" value=""#)
        .nth(1)
        .and_then(|rest| rest.split('"').next())
        .expect("the request id in the form")
        .to_string()
}

/// Issue 41: a page of another origin that opened the authorization endpoint itself (so it
/// knows the consent id) cannot answer the consent form, and a flood of authorization
/// requests for one client pushes out that client's pending consents only.
#[tokio::test]
async fn a_consent_is_answered_from_its_own_page_only_and_a_flood_evicts_only_its_own() {
    // Arrange: a consent pending for the victim's client, then 1,000 for another client.
    let server = MockMcpServer::builder()
        .oauth(OAuth::new().consent(Consent::Page))
        .start()
        .await;
    let flow = Flow::new(&server);
    let victim = flow.register("none").await;
    let flooder = flow.register("none").await;
    let (_, challenge) = pkce();
    let page = flow.authorize_raw(&victim.id, &challenge, &[]).await;
    let victims = consent_request_id(&page.text().await.expect("a page"));
    let mut flooded = Vec::new();
    for _ in 0..1_000 {
        let page = flow.authorize_raw(&flooder.id, &challenge, &[]).await;
        flooded.push(consent_request_id(&page.text().await.expect("a page")));
    }
    let answer = |request: &str, origin: Option<&str>| {
        let form = form_urlencoded::Serializer::new(String::new())
            .extend_pairs([("request", request), ("decision", "approve")])
            .finish();
        let mut post = flow
            .http
            .post(flow.url("/oauth/consent"))
            .header(CONTENT_TYPE, "application/x-www-form-urlencoded")
            .body(form);
        if let Some(origin) = origin {
            post = post.header("origin", origin);
        }
        post.send()
    };
    let own_origin = server.base_url();

    // Act + Assert: another origin is refused and leaves the consent pending.
    let foreign = answer(&victims, Some("http://evil.example"))
        .await
        .expect("answers");
    let description = assert_error(foreign, StatusCode::FORBIDDEN, "access_denied").await;
    assert!(description.contains("evil.example"), "{description}");
    let own = answer(&victims, Some(&own_origin)).await.expect("answers");
    assert_eq!(
        own.status(),
        StatusCode::FOUND,
        "the victim's consent survived the flood"
    );
    assert!(param(&header(&own, LOCATION), "code").is_some());
    let oldest = answer(&flooded[0], None).await.expect("answers");
    assert_error(oldest, StatusCode::BAD_REQUEST, "invalid_request").await;
    let newest = answer(&flooded[999], None).await.expect("answers");
    assert_eq!(newest.status(), StatusCode::FOUND);
}

// ---------------------------------------------------------------------------------------
// Configuration and capture.
// ---------------------------------------------------------------------------------------

/// OAuth and API keys both use `Authorization: Bearer`, so a server has one or the other.
#[tokio::test]
async fn oauth_and_api_keys_together_are_refused_at_start() {
    let error = MockMcpServer::builder()
        .api_keys(["k1"])
        .oauth(OAuth::new())
        .try_start()
        .await
        .expect_err("both is a configuration error");
    assert!(error.to_string().contains("OAuth"), "{error}");
}

/// The capture records every OAuth exchange, with secrets masked: tokens, codes,
/// verifiers, client secrets and `Authorization` values are `[redacted]`; parameter names
/// and other values stay readable.
#[tokio::test]
async fn the_capture_masks_every_secret() {
    let server = MockMcpServer::builder().oauth(OAuth::new()).start().await;
    let flow = Flow::new(&server);
    let client = flow.register("client_secret_post").await;
    let granted = flow.authorize(&client).await;
    let resource = server.url();
    let mut form = flow.code_form(&client, &granted, &resource);
    let secret = client.secret.clone().expect("a secret");
    form.push(("client_secret", &secret));
    let tokens: Value = flow
        .token_raw(&form, None)
        .await
        .json()
        .await
        .expect("JSON");
    let access = tokens["access_token"]
        .as_str()
        .expect("a token")
        .to_string();
    flow.mcp(Some(&access)).await;
    flow.mcp(Some("wrong-token")).await;

    assert_no_secrets(&server);
    let log = serde_json::to_string(&server.log().records()).expect("serializes");
    for secret in [
        access.as_str(),
        secret.as_str(),
        granted.code.as_str(),
        granted.verifier.as_str(),
    ] {
        assert!(!log.contains(secret), "a secret is in the log");
    }
    let log = server.log();
    let token_request = log
        .http()
        .path("/oauth/token")
        .first()
        .expect("the token request");
    let body = token_request
        .request_body
        .as_deref()
        .and_then(Value::as_str)
        .expect("a form");
    assert!(body.contains("grant_type=authorization_code"), "{body}");
    assert!(body.contains(&format!("client_id={}", client.id)), "{body}");
    assert!(body.contains("code=[redacted]"), "{body}");
    let rejected = log.http().path("/mcp").status(401).count();
    assert_eq!(rejected, 1, "the refused request is captured too");
}

/// Refresh and revocation are bound to the client the token was issued to: another client
/// gets `invalid_grant` (RFC 6749 section 6) or `invalid_request` (RFC 7009 section 2.1);
/// a refresh token past its lifetime is `invalid_grant`.
#[tokio::test]
async fn refresh_and_revocation_belong_to_the_tokens_client() {
    let server = MockMcpServer::builder()
        .oauth(OAuth::new().refresh_token_lifetime(Duration::from_secs(600)))
        .start()
        .await;
    let flow = Flow::new(&server);
    let (owner, tokens) = flow.tokens().await;
    let intruder = flow.register("none").await;
    let refresh = tokens["refresh_token"].as_str().expect("a refresh token");
    let stolen = [
        ("grant_type", "refresh_token"),
        ("refresh_token", refresh),
        ("client_id", intruder.id.as_str()),
    ];
    assert_error(
        flow.token_raw(&stolen, None).await,
        StatusCode::BAD_REQUEST,
        "invalid_grant",
    )
    .await;
    let form = form_urlencoded::Serializer::new(String::new())
        .extend_pairs([("token", refresh), ("client_id", intruder.id.as_str())])
        .finish();
    let revoke = flow
        .http
        .post(flow.url("/oauth/revoke"))
        .header(CONTENT_TYPE, "application/x-www-form-urlencoded")
        .body(form)
        .send()
        .await
        .expect("answers");
    assert_error(revoke, StatusCode::BAD_REQUEST, "invalid_request").await;
    assert_eq!(server.oauth().tokens().len(), 2, "nothing was revoked");

    server.advance_clock(Duration::from_secs(601));
    let expired = [
        ("grant_type", "refresh_token"),
        ("refresh_token", refresh),
        ("client_id", owner.id.as_str()),
    ];
    let description = assert_error(
        flow.token_raw(&expired, None).await,
        StatusCode::BAD_REQUEST,
        "invalid_grant",
    )
    .await;
    assert!(description.contains("expired"), "{description}");
}

/// The consent page's form answers only `approve` or `deny`, for a request it showed.
#[tokio::test]
async fn a_consent_answer_without_a_known_request_or_decision_is_invalid_request() {
    let server = MockMcpServer::builder()
        .oauth(OAuth::new().consent(Consent::Page))
        .start()
        .await;
    let flow = Flow::new(&server);
    for body in [
        "request=unknown&decision=approve",
        "decision=approve",
        "request=unknown&decision=maybe",
    ] {
        let response = flow
            .http
            .post(flow.url("/oauth/consent"))
            .header(CONTENT_TYPE, "application/x-www-form-urlencoded")
            .body(body)
            .send()
            .await
            .expect("answers");
        assert_error(response, StatusCode::BAD_REQUEST, "invalid_request").await;
    }
}
