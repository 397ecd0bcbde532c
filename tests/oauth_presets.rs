//! One test per conformance client auth scenario preset (`OAuth::preset(AuthScenario::…)`),
//! showing what a correct client sees against it: the challenge, the metadata documents,
//! the redirect and the token answer, and where it must stop. Most walk the flow with the
//! raw-`reqwest` reference client of `tests/oauth_presets/reference_client.rs`; the
//! token-endpoint-auth and step-up scenarios also run the real `rmcp` auth client. The
//! assertions read the capture through `server.log().oauth()`, whose secrets are masked.
//!
//! The scenarios are those of `@modelcontextprotocol/conformance` 0.2.0-alpha.11
//! (`src/scenarios/client/auth/**`), listed in the spec pack's README section 8; the rules
//! cited are the 2026-07-28 authorization pages unless a test says otherwise.

mod common;
#[path = "oauth_presets/reference_client.rs"]
mod reference_client;

#[cfg(feature = "oauth-cimd")]
use std::sync::Arc;
#[cfg(feature = "oauth-cimd")]
use std::sync::atomic::{AtomicUsize, Ordering};

use mcp_decoy::log::ClientAuth;
use mcp_decoy::oauth::{AuthScenario, OAuth};
use mcp_decoy::{MockMcpServer, Tool};
use reference_client::{Config, Flow, REDIRECT_URI, Refusal, challenge_param};
use rmcp::ServiceExt;
use rmcp::transport::StreamableHttpClientTransport;
use rmcp::transport::auth::{
    AuthClient, AuthorizationCallback, AuthorizationManager, AuthorizationRequest, OAuthState,
};
use rmcp::transport::streamable_http_client::StreamableHttpClientTransportConfig;
use serde_json::{Value, json};

async fn start(scenario: AuthScenario) -> MockMcpServer {
    MockMcpServer::builder()
        .name("presets")
        .tool(Tool::echo())
        .oauth(OAuth::preset(scenario))
        .start()
        .await
}

/// The whole flow and an MCP session with the token; the flow, for assertions.
async fn completes(server: &MockMcpServer, config: Config) -> Flow {
    let mut flow = Flow::new(&server.url()).with_config(config);
    flow.run()
        .await
        .expect("a correct client completes this scenario");
    let token = flow.token.as_ref().expect("a token answer");
    assert_eq!(
        token.status, 200,
        "the code exchange succeeds: {:?}",
        token.body
    );
    assert_eq!(
        token.header("cache-control"),
        Some("no-store"),
        "RFC 6749 section 5.1"
    );
    let session = flow
        .open_session()
        .await
        .expect("the token opens an MCP session");
    let list = json!({"jsonrpc": "2.0", "id": 2, "method": "tools/list"});
    let tools = flow
        .post_mcp(list, flow.access_token.as_deref(), Some(&session))
        .await;
    assert_eq!(
        tools.status, 200,
        "tools/list with the token: {:?}",
        tools.body
    );
    flow
}

/// The JSON-RPC `result` of an answer, sent as JSON or as one SSE `data:` event.
fn rpc_result(seen: &reference_client::Seen) -> Value {
    let message = match &seen.body {
        Value::String(text) => text
            .lines()
            .filter_map(|line| line.strip_prefix("data:"))
            .filter_map(|data| serde_json::from_str::<Value>(data.trim()).ok())
            .find(|m| m.get("result").is_some() || m.get("error").is_some())
            .unwrap_or(Value::Null),
        body => body.clone(),
    };
    message["result"].clone()
}

fn base(server: &MockMcpServer) -> String {
    server.base_url()
}

fn www_authenticate(seen: &reference_client::Seen) -> String {
    seen.header("www-authenticate")
        .expect("a WWW-Authenticate header")
        .to_string()
}

/// Every `resource` the client sent, all equal to `expected`, to both endpoints.
fn assert_resource_everywhere(server: &MockMcpServer, expected: &str) {
    let oauth = server.log().oauth();
    oauth.assert_resource(expected);
    assert!(
        oauth
            .authorization_requests()
            .iter()
            .all(|a| a.resources() == [expected])
    );
    assert!(
        oauth
            .token_requests()
            .iter()
            .all(|t| t.resources() == [expected])
    );
}

// ---------------------------------------------------------------------------------------
// Metadata discovery: 2026-07-28 `authorization-server-discovery.mdx` "Protected Resource
// Metadata Discovery Requirements" and "Authorization Server Metadata Discovery".
// ---------------------------------------------------------------------------------------

#[tokio::test]
async fn metadata_default_names_the_path_metadata_in_the_challenge_and_the_root_one_is_never_fetched()
 {
    let server = start(AuthScenario::MetadataDefault).await;
    let flow = completes(&server, Config::default()).await;

    // The 401 names the path-form resource metadata and nothing else.
    let challenge = flow.challenge.as_ref().expect("challenge");
    assert_eq!(challenge.status, 401);
    assert_eq!(
        www_authenticate(challenge),
        format!(
            r#"Bearer resource_metadata="{}/.well-known/oauth-protected-resource/mcp""#,
            base(&server)
        )
    );
    let prm = flow.resource_metadata.as_ref().expect("resource metadata");
    assert_eq!(prm.body["resource"], server.url());
    assert_eq!(prm.body["authorization_servers"], json!([base(&server)]));
    let endpoints = flow.endpoints.as_ref().expect("endpoints");
    assert_eq!(endpoints.metadata["issuer"], base(&server));
    assert_eq!(
        endpoints.metadata["code_challenge_methods_supported"],
        json!(["S256"])
    );

    // A correct client followed the header: one metadata fetch each, the root never.
    let oauth = server.log().oauth();
    assert_eq!(
        oauth.discovery(),
        [
            (
                "/.well-known/oauth-protected-resource/mcp".to_string(),
                Some(200)
            ),
            (
                "/.well-known/oauth-authorization-server".to_string(),
                Some(200)
            ),
        ]
    );
    oauth.assert_not_fetched("/.well-known/oauth-protected-resource");
    oauth.assert_registered();
    oauth.assert_pkce_s256();
    assert_resource_everywhere(&server, &server.url());
    let tokens = oauth.token_requests();
    assert_eq!(tokens.len(), 1);
    assert_eq!(tokens[0].grant_type(), Some("authorization_code"));
    assert!(tokens[0].succeeded());
    // The capture is masked: secrets read `[redacted]`, names and the rest are kept.
    assert_eq!(tokens[0].param("code"), Some("[redacted]"));
    assert_eq!(tokens[0].param("code_verifier"), Some("[redacted]"));
    assert_eq!(tokens[0].param("redirect_uri"), Some(REDIRECT_URI));

    // The trap the suite sets: the root document is not served.
    let root = flow
        .get(&format!(
            "{}/.well-known/oauth-protected-resource",
            base(&server)
        ))
        .await;
    assert_eq!(root.status, 404);
    common::schema::assert_server_messages_valid(&server.log());
}

#[tokio::test]
async fn metadata_var1_leaves_the_metadata_out_of_the_challenge_and_serves_only_openid_discovery() {
    let server = start(AuthScenario::MetadataVar1).await;
    let flow = completes(&server, Config::default()).await;

    let challenge = www_authenticate(flow.challenge.as_ref().expect("challenge"));
    assert_eq!(
        challenge_param(&challenge, "resource_metadata"),
        None,
        "{challenge}"
    );
    let metadata = &flow.endpoints.as_ref().expect("endpoints").metadata;
    for field in [
        "jwks_uri",
        "subject_types_supported",
        "id_token_signing_alg_values_supported",
    ] {
        assert!(
            metadata.get(field).is_some(),
            "OpenID discovery has `{field}`: {metadata}"
        );
    }
    // The client probed the path form, then fell back from RFC 8414 to OpenID.
    assert_eq!(
        server.log().oauth().discovery(),
        [
            (
                "/.well-known/oauth-protected-resource/mcp".to_string(),
                Some(200)
            ),
            (
                "/.well-known/oauth-authorization-server".to_string(),
                Some(404)
            ),
            ("/.well-known/openid-configuration".to_string(), Some(200)),
        ]
    );
    server.log().oauth().assert_registered();
    common::schema::assert_server_messages_valid(&server.log());
}

#[tokio::test]
async fn metadata_var2_serves_the_resource_metadata_only_at_the_root_and_a_tenant_issuer() {
    let server = start(AuthScenario::MetadataVar2).await;
    let flow = completes(&server, Config::default()).await;

    let prm = flow.resource_metadata.as_ref().expect("resource metadata");
    assert_eq!(
        prm.url,
        format!("{}/.well-known/oauth-protected-resource", base(&server))
    );
    // RFC 9728 section 3.1: a root document describes the origin.
    assert_eq!(prm.body["resource"], base(&server));
    let issuer = format!("{}/tenant1", base(&server));
    assert_eq!(prm.body["authorization_servers"], json!([issuer]));
    assert_eq!(server.oauth().issuer(), issuer);
    assert_eq!(
        server.log().oauth().discovery(),
        [
            (
                "/.well-known/oauth-protected-resource/mcp".to_string(),
                Some(404)
            ),
            (
                "/.well-known/oauth-protected-resource".to_string(),
                Some(200)
            ),
            (
                "/.well-known/oauth-authorization-server/tenant1".to_string(),
                Some(200)
            ),
        ]
    );
    assert_resource_everywhere(&server, &base(&server));
    // RFC 8414 section 3.1: the well-known part goes before the issuer's path, so the
    // root document (the suite's trap) is not there.
    let root = flow
        .get(&format!(
            "{}/.well-known/oauth-authorization-server",
            base(&server)
        ))
        .await;
    assert_eq!(root.status, 404);
    common::schema::assert_server_messages_valid(&server.log());
}

#[tokio::test]
async fn metadata_var3_names_a_custom_metadata_url_and_appends_openid_discovery_to_the_tenant() {
    let server = start(AuthScenario::MetadataVar3).await;
    let flow = completes(&server, Config::default()).await;

    let custom = format!("{}/custom/metadata/location.json", base(&server));
    let challenge = www_authenticate(flow.challenge.as_ref().expect("challenge"));
    assert_eq!(
        challenge_param(&challenge, "resource_metadata"),
        Some(custom.clone())
    );
    assert_eq!(flow.resource_metadata.as_ref().expect("prm").url, custom);
    let oauth = server.log().oauth();
    assert!(oauth.fetched("/custom/metadata/location.json"));
    oauth.assert_not_fetched("/.well-known/oauth-protected-resource/mcp");
    // The three candidates for a path issuer, in priority order; the appended one answers.
    assert_eq!(
        oauth.discovery(),
        [
            (
                "/.well-known/oauth-authorization-server/tenant1".to_string(),
                Some(404)
            ),
            (
                "/.well-known/openid-configuration/tenant1".to_string(),
                Some(404)
            ),
            (
                "/tenant1/.well-known/openid-configuration".to_string(),
                Some(200)
            ),
        ]
    );
    let metadata = &flow.endpoints.as_ref().expect("endpoints").metadata;
    assert_eq!(metadata["issuer"], format!("{}/tenant1", base(&server)));
    common::schema::assert_server_messages_valid(&server.log());
}

// ---------------------------------------------------------------------------------------
// Registration: `client-registration.mdx` "Client ID Metadata Documents", "Pre-registration".
// ---------------------------------------------------------------------------------------

/// Serves one Client ID Metadata Document on loopback and counts the fetches.
#[cfg(feature = "oauth-cimd")]
async fn host_metadata_document() -> (String, Arc<AtomicUsize>) {
    let listener = tokio::net::TcpListener::bind("127.0.0.1:0")
        .await
        .expect("bind a port for the client metadata document");
    let url = format!(
        "http://{}/client-metadata.json",
        listener.local_addr().expect("local address")
    );
    let fetches = Arc::new(AtomicUsize::new(0));
    let document = json!({
        "client_id": url,
        "client_name": "decoy-preset-tests",
        "redirect_uris": [REDIRECT_URI],
        "grant_types": ["authorization_code", "refresh_token"],
        "response_types": ["code"],
        "token_endpoint_auth_method": "none",
    });
    let counter = fetches.clone();
    let app = axum::Router::new().route(
        "/client-metadata.json",
        axum::routing::get(move || {
            counter.fetch_add(1, Ordering::SeqCst);
            let document = document.clone();
            async move { axum::Json(document) }
        }),
    );
    tokio::spawn(async move {
        let _ = axum::serve(listener, app).await;
    });
    (url, fetches)
}

#[cfg(feature = "oauth-cimd")]
#[tokio::test]
async fn basic_cimd_advertises_metadata_documents_and_a_url_client_id_needs_no_registration() {
    let server = start(AuthScenario::BasicCimd).await;
    let (document_url, fetches) = host_metadata_document().await;
    let config = Config {
        metadata_document: Some(document_url.clone()),
        ..Config::default()
    };
    let flow = completes(&server, config).await;

    let metadata = &flow.endpoints.as_ref().expect("endpoints").metadata;
    assert_eq!(metadata["client_id_metadata_document_supported"], true);
    let oauth = server.log().oauth();
    assert!(
        oauth.registrations().is_empty(),
        "no DCR: {}",
        oauth.describe()
    );
    let authorizations = oauth.authorization_requests();
    assert_eq!(authorizations[0].client_id(), Some(document_url.as_str()));
    assert!(
        fetches.load(Ordering::SeqCst) >= 1,
        "the server fetched the document"
    );
    assert_eq!(oauth.token_requests()[0].client_auth, ClientAuth::None);
    common::schema::assert_server_messages_valid(&server.log());
}

#[tokio::test]
async fn pre_registration_offers_no_registration_and_takes_the_given_credentials_with_basic() {
    let server = start(AuthScenario::PreRegistration).await;
    let config = Config {
        pre_registered: Some((
            AuthScenario::PRE_REGISTERED_CLIENT_ID.into(),
            Some(AuthScenario::PRE_REGISTERED_CLIENT_SECRET.into()),
            "client_secret_basic".into(),
        )),
        ..Config::default()
    };
    let flow = completes(&server, config).await;

    let metadata = &flow.endpoints.as_ref().expect("endpoints").metadata;
    assert!(
        metadata.get("registration_endpoint").is_none(),
        "{metadata}"
    );
    assert!(
        metadata
            .get("client_id_metadata_document_supported")
            .is_none(),
        "{metadata}"
    );
    assert_eq!(
        metadata["token_endpoint_auth_methods_supported"],
        json!(["client_secret_basic"])
    );
    let pre = server
        .oauth()
        .pre_registered_client()
        .expect("the preset's client");
    assert_eq!(pre.client_id, AuthScenario::PRE_REGISTERED_CLIENT_ID);
    assert_eq!(
        pre.redirect_uris,
        AuthScenario::PRE_REGISTERED_REDIRECT_URIS
    );

    let oauth = server.log().oauth();
    assert!(oauth.registrations().is_empty());
    let token = &oauth.token_requests()[0];
    assert_eq!(token.client_auth, ClientAuth::ClientSecretBasic);
    // The Authorization header is masked down to its scheme.
    let header = server
        .log()
        .http()
        .path("/oauth/token")
        .first()
        .expect("token exchange")
        .clone();
    assert_eq!(
        header.request_header("authorization"),
        Some("Basic [redacted]")
    );

    // A client that tried to register anyway is told there is nothing there.
    let register = flow
        .http
        .post(format!("{}/oauth/register", base(&server)))
        .json(&json!({"redirect_uris": [REDIRECT_URI]}))
        .send()
        .await
        .expect("POST register");
    assert_eq!(register.status(), 404);
    common::schema::assert_server_messages_valid(&server.log());
}

// ---------------------------------------------------------------------------------------
// Scope selection: `index.mdx` "Scope Selection Strategy" and "Scope Challenge Handling".
// ---------------------------------------------------------------------------------------

#[tokio::test]
async fn scope_from_www_authenticate_challenges_for_mcp_basic_and_the_client_asks_exactly_that() {
    let server = start(AuthScenario::ScopeFromWwwAuthenticate).await;
    let flow = completes(&server, Config::default()).await;

    let challenge = www_authenticate(flow.challenge.as_ref().expect("challenge"));
    assert_eq!(
        challenge_param(&challenge, "scope").as_deref(),
        Some("mcp:basic")
    );
    let prm = &flow.resource_metadata.as_ref().expect("prm").body;
    assert!(prm.get("scopes_supported").is_none(), "{prm}");
    let requested = server.log().oauth().authorization_requests()[0]
        .param("scope")
        .map(str::to_string);
    assert_eq!(requested.as_deref(), Some("mcp:basic"));
    assert_eq!(server.oauth().tokens()[0].scopes, ["mcp:basic"]);
}

#[tokio::test]
async fn scope_from_scopes_supported_lists_three_scopes_and_the_client_asks_for_all_of_them() {
    let server = start(AuthScenario::ScopeFromScopesSupported).await;
    let flow = completes(&server, Config::default()).await;

    let challenge = www_authenticate(flow.challenge.as_ref().expect("challenge"));
    assert_eq!(challenge_param(&challenge, "scope"), None, "{challenge}");
    let prm = &flow.resource_metadata.as_ref().expect("prm").body;
    assert_eq!(
        prm["scopes_supported"],
        json!(["mcp:basic", "mcp:read", "mcp:write"])
    );
    let oauth = server.log().oauth();
    assert_eq!(
        oauth.authorization_requests()[0].scopes(),
        Some(vec!["mcp:basic", "mcp:read", "mcp:write"])
    );
}

#[tokio::test]
async fn scope_omitted_when_undefined_names_no_scope_and_the_client_sends_none() {
    let server = start(AuthScenario::ScopeOmittedWhenUndefined).await;
    let flow = completes(&server, Config::default()).await;

    let challenge = www_authenticate(flow.challenge.as_ref().expect("challenge"));
    assert_eq!(challenge_param(&challenge, "scope"), None);
    assert!(
        flow.resource_metadata
            .as_ref()
            .expect("prm")
            .body
            .get("scopes_supported")
            .is_none()
    );
    let metadata = &flow.endpoints.as_ref().expect("endpoints").metadata;
    assert!(metadata.get("scopes_supported").is_none(), "{metadata}");
    assert_eq!(
        server.log().oauth().authorization_requests()[0].param("scope"),
        None
    );
}

#[tokio::test]
async fn scope_step_up_refuses_a_call_without_mcp_write_until_the_client_reauthorizes_with_the_union()
 {
    let server = start(AuthScenario::ScopeStepUp).await;
    let mut flow = completes(&server, Config::default()).await;
    let session = flow
        .open_session()
        .await
        .expect("a session with the mcp:basic token");
    let call = json!({"jsonrpc": "2.0", "id": 3, "method": "tools/call",
        "params": {"name": "echo", "arguments": {"message": "hi"}}});

    // The first token holds what the 401 asked for; the call needs more.
    assert_eq!(
        server.log().oauth().authorization_requests()[0].param("scope"),
        Some("mcp:basic")
    );
    let refused = flow
        .post_mcp(call.clone(), flow.access_token.as_deref(), Some(&session))
        .await;
    assert_eq!(refused.status, 403);
    let header = www_authenticate(&refused);
    assert_eq!(
        challenge_param(&header, "error").as_deref(),
        Some("insufficient_scope")
    );
    let needed = challenge_param(&header, "scope").expect("the 403 names the scopes");
    assert!(needed.split(' ').any(|s| s == "mcp:write"), "{header}");
    assert!(
        challenge_param(&header, "resource_metadata").is_some(),
        "{header}"
    );

    // Step-up: re-authorize with the union of what was asked and what is challenged.
    flow.choose_scope(Some("mcp:basic mcp:write"));
    flow.authorize().await.expect("the step-up authorization");
    assert_eq!(flow.exchange_code().await.status, 200);
    let answered = flow
        .post_mcp(call, flow.access_token.as_deref(), Some(&session))
        .await;
    assert_eq!(answered.status, 200, "{:?}", answered.body);
    assert_eq!(rpc_result(&answered)["content"][0]["text"], "hi");

    let oauth = server.log().oauth();
    assert_eq!(oauth.step_up_retries(), 1);
    let second = &oauth.authorization_requests()[1];
    assert_eq!(second.scopes(), Some(vec!["mcp:basic", "mcp:write"]));
    assert_eq!(
        oauth
            .challenges()
            .iter()
            .filter(|c| c.is_insufficient_scope())
            .count(),
        1
    );
    common::schema::assert_server_messages_valid(&server.log());
}

#[tokio::test]
async fn scope_step_up_with_the_rmcp_client_fails_the_call_then_succeeds_after_a_scope_upgrade() {
    let server = start(AuthScenario::ScopeStepUp).await;
    // The spec's priority order: the challenge's scope first (rmcp's default policy would
    // also add the metadata's `scopes_supported`).
    let request = AuthorizationRequest::new(REDIRECT_URI).with_initial_scope_selection();
    let manager = rmcp_authorize(&server, request).await;
    assert_eq!(server.oauth().tokens()[0].scopes, ["mcp:basic"]);
    let auth = AuthClient::new(reqwest::Client::default(), manager);
    let client = rmcp_connect(&server, auth.clone()).await;
    let refused = client
        .call_tool(common::call("echo", json!({"message": "hi"})))
        .await;
    assert!(
        refused.is_err(),
        "the mcp:basic token cannot call a tool: {refused:?}"
    );
    let _ = client.cancel().await;

    // The application asks rmcp for the upgrade; rmcp computes the union itself.
    let challenged = server
        .log()
        .oauth()
        .challenges()
        .last()
        .cloned()
        .expect("the 403");
    assert!(challenged.is_insufficient_scope());
    let needed = challenged.param("scope").expect("the challenged scope");
    let url = auth
        .auth_manager
        .lock()
        .await
        .request_scope_upgrade(&needed)
        .await
        .expect("rmcp builds the step-up authorization URL");
    let callback = AuthorizationCallback::from_redirect_url(&follow(&url).await).expect("callback");
    auth.auth_manager
        .lock()
        .await
        .exchange_code_for_token_with_issuer(
            &callback.code,
            &callback.csrf_token,
            callback.issuer.as_deref(),
        )
        .await
        .expect("the step-up code exchange");
    let client = rmcp_connect(&server, auth).await;
    let result = call_echo(&client).await;
    assert!(!result.is_error.unwrap_or(false));
    let _ = client.cancel().await;

    let oauth = server.log().oauth();
    assert_eq!(oauth.step_up_retries(), 1);
    let last = oauth
        .authorization_requests()
        .last()
        .cloned()
        .expect("two authorizations");
    let scopes = last.scopes().expect("a scope");
    assert!(
        scopes.contains(&"mcp:basic") && scopes.contains(&"mcp:write"),
        "{scopes:?}"
    );
    common::schema::assert_server_messages_valid(&server.log());
}

#[tokio::test]
async fn scope_retry_limit_never_accepts_the_token_and_a_correct_client_stops_after_three_authorizations()
 {
    let server = start(AuthScenario::ScopeRetryLimit).await;
    let mut flow = Flow::new(&server.url());
    flow.run().await.expect("the first authorization");
    let session = flow
        .open_session()
        .await
        .expect("initialize is let through");
    let list = json!({"jsonrpc": "2.0", "id": 2, "method": "tools/list"});

    // A correct client retries the step-up a bounded number of times, then gives up.
    let mut refusals = Vec::new();
    for attempt in 0..3 {
        let answer = flow
            .post_mcp(list.clone(), flow.access_token.as_deref(), Some(&session))
            .await;
        assert_eq!(answer.status, 403, "attempt {attempt}: {:?}", answer.body);
        refusals.push(www_authenticate(&answer));
        if attempt == 2 {
            break;
        }
        flow.choose_scope(Some("mcp:admin"));
        flow.authorize().await.expect("re-authorization");
        assert_eq!(flow.exchange_code().await.status, 200);
    }
    for header in &refusals {
        assert_eq!(
            challenge_param(header, "error").as_deref(),
            Some("insufficient_scope")
        );
        assert_eq!(
            challenge_param(header, "scope").as_deref(),
            Some("mcp:admin")
        );
    }
    // Every token held the scope the server asked for; it never mattered.
    assert!(
        server
            .oauth()
            .tokens()
            .iter()
            .all(|t| t.scopes == ["mcp:admin"])
    );
    let oauth = server.log().oauth();
    assert_eq!(oauth.authorization_requests().len(), 3);
    assert_eq!(oauth.step_up_retries(), 2);
    oauth.assert_step_up_retries_at_most(2);
}

#[tokio::test]
#[should_panic(expected = "expected at most 1 step-up re-authorization(s), found 2")]
async fn the_step_up_assertion_names_how_many_retries_it_found() {
    let server = start(AuthScenario::ScopeRetryLimit).await;
    let mut flow = Flow::new(&server.url());
    flow.run().await.expect("the first authorization");
    let session = flow.open_session().await.expect("session");
    let list = json!({"jsonrpc": "2.0", "id": 2, "method": "tools/list"});
    for _ in 0..2 {
        flow.post_mcp(list.clone(), flow.access_token.as_deref(), Some(&session))
            .await;
        flow.choose_scope(Some("mcp:admin"));
        flow.authorize().await.expect("re-authorization");
        flow.exchange_code().await;
    }
    server.log().oauth().assert_step_up_retries_at_most(1);
}

// ---------------------------------------------------------------------------------------
// Token endpoint authentication and resource indicators (2025-06-18 on): `index.mdx`
// "Resource Parameter Implementation"; RFC 6749 section 2.3.1. Run with the rmcp client,
// which registers as a public client and takes the method the registration answers.
// ---------------------------------------------------------------------------------------

/// Follows one authorization redirect by hand (auto-approve): the `Location`.
async fn follow(url: &str) -> String {
    let http = reqwest::Client::builder()
        .redirect(reqwest::redirect::Policy::none())
        .build()
        .expect("reqwest client");
    let answer = http
        .get(url)
        .send()
        .await
        .expect("GET the authorization URL");
    assert!(
        answer.status().is_redirection(),
        "auto-approve redirects: {}",
        answer.status()
    );
    answer
        .headers()
        .get("location")
        .and_then(|v| v.to_str().ok())
        .expect("a Location")
        .to_string()
}

/// Discovery, registration, authorization (auto-approve) and code exchange with rmcp,
/// seeded with the real 401 challenge as rmcp's reactive flow is.
async fn rmcp_authorize(
    server: &MockMcpServer,
    request: AuthorizationRequest,
) -> AuthorizationManager {
    let challenge = Flow::new(&server.url())
        .unauthenticated_request()
        .await
        .header("www-authenticate")
        .map(str::to_string);
    let mut state = OAuthState::new(server.url(), None)
        .await
        .expect("oauth state");
    let request = match challenge {
        Some(challenge) => request.with_challenge(challenge),
        None => request,
    };
    state
        .start_authorization(request.with_client_name("decoy-preset-tests"))
        .await
        .expect("rmcp starts the authorization");
    let url = state
        .get_authorization_url()
        .await
        .expect("authorization URL");
    state
        .handle_callback_url(&follow(&url).await)
        .await
        .expect("rmcp accepts the callback and exchanges the code");
    state.into_authorization_manager().expect("authorized")
}

async fn rmcp_connect(server: &MockMcpServer, client: AuthClient<reqwest::Client>) -> RmcpClient {
    let config = StreamableHttpClientTransportConfig::with_uri(server.url());
    let transport = StreamableHttpClientTransport::with_client(client, config);
    tokio::time::timeout(common::PATIENCE, common::client_config().serve(transport))
        .await
        .expect("initialize in time")
        .expect("the rmcp client initializes with its token")
}

type RmcpClient = rmcp::service::RunningService<rmcp::RoleClient, rmcp::model::ClientConfig>;

async fn call_echo(client: &RmcpClient) -> rmcp::model::CallToolResult {
    tokio::time::timeout(
        common::PATIENCE,
        client.call_tool(common::call("echo", json!({"message": "hi"}))),
    )
    .await
    .expect("tools/call echo in time")
    .expect("tools/call echo succeeds")
}

async fn token_endpoint_auth(scenario: AuthScenario, method: ClientAuth) {
    let server = start(scenario).await;
    let manager = rmcp_authorize(&server, AuthorizationRequest::new(REDIRECT_URI)).await;
    let client = rmcp_connect(
        &server,
        AuthClient::new(reqwest::Client::default(), manager),
    )
    .await;
    call_echo(&client).await;
    let _ = client.cancel().await;

    let oauth = server.log().oauth();
    let registration = &oauth.registrations()[0];
    // rmcp asks to be a public client; the server answers with the one method it takes.
    assert_eq!(
        registration.field("token_endpoint_auth_method"),
        Some("none")
    );
    let answered = server
        .log()
        .http()
        .path("/oauth/register")
        .first()
        .and_then(|h| h.response_body.clone())
        .expect("the registration answer");
    assert_eq!(answered["token_endpoint_auth_method"], method.as_str());
    assert_eq!(
        answered.get("client_secret").is_some(),
        method != ClientAuth::None
    );

    let tokens = oauth.token_requests();
    assert_eq!(tokens.len(), 1);
    assert_eq!(tokens[0].client_auth, method, "{}", oauth.describe());
    assert!(tokens[0].succeeded());
    // The same canonical resource, without fragment, to both endpoints.
    assert_resource_everywhere(&server, &server.url());
    oauth.assert_pkce_s256();
    common::schema::assert_server_messages_valid(&server.log());
}

#[tokio::test]
async fn token_endpoint_auth_basic_takes_only_http_basic_and_the_rmcp_client_uses_it() {
    token_endpoint_auth(
        AuthScenario::TokenEndpointAuthBasic,
        ClientAuth::ClientSecretBasic,
    )
    .await;
}

#[tokio::test]
async fn token_endpoint_auth_post_takes_only_the_secret_in_the_body_and_the_rmcp_client_sends_it() {
    token_endpoint_auth(
        AuthScenario::TokenEndpointAuthPost,
        ClientAuth::ClientSecretPost,
    )
    .await;
}

#[tokio::test]
async fn token_endpoint_auth_none_issues_no_secret_and_the_rmcp_client_is_public() {
    token_endpoint_auth(AuthScenario::TokenEndpointAuthNone, ClientAuth::None).await;
}

#[tokio::test]
async fn token_endpoint_auth_presets_advertise_exactly_one_method_and_a_client_that_reads_it_registers_with_it()
 {
    for (scenario, only) in [
        (AuthScenario::TokenEndpointAuthBasic, "client_secret_basic"),
        (AuthScenario::TokenEndpointAuthPost, "client_secret_post"),
        (AuthScenario::TokenEndpointAuthNone, "none"),
    ] {
        let server = start(scenario).await;
        let mut flow = Flow::new(&server.url());
        flow.unauthenticated_request().await;
        flow.discover().await.expect("discovery");
        let metadata = &flow.endpoints.as_ref().expect("endpoints").metadata;
        assert_eq!(
            metadata["token_endpoint_auth_methods_supported"],
            json!([only]),
            "{scenario}"
        );
        // The reference client picks the advertised method and registers with it.
        flow.register().await.expect("registration");
        assert_eq!(
            flow.credentials.as_ref().expect("credentials").auth_method,
            only
        );
    }
}

// ---------------------------------------------------------------------------------------
// 2025-03-26 back-compat: 2025-03-26 `basic/authorization.mdx` "Server Metadata Discovery"
// and "Fallbacks for Servers without Metadata Discovery".
// ---------------------------------------------------------------------------------------

#[tokio::test]
async fn the_2025_03_26_metadata_backcompat_has_no_resource_metadata_and_serves_the_server_metadata_at_the_root()
 {
    let server = start(AuthScenario::LegacyMetadataBackcompat).await;
    let mut flow = Flow::new(&server.url());
    flow.without_resource = true;
    flow.run().await.expect("a 2025-03-26 client completes");
    assert_eq!(flow.token.as_ref().expect("token").status, 200);
    flow.open_session()
        .await
        .expect("the token opens a session");

    let challenge = www_authenticate(flow.challenge.as_ref().expect("challenge"));
    assert_eq!(
        challenge_param(&challenge, "resource_metadata"),
        None,
        "{challenge}"
    );
    assert!(flow.resource_metadata.is_none());
    let metadata = &flow.endpoints.as_ref().expect("endpoints").metadata;
    assert_eq!(metadata["issuer"], base(&server));
    assert_eq!(
        server.log().oauth().discovery(),
        [
            (
                "/.well-known/oauth-protected-resource/mcp".to_string(),
                Some(404)
            ),
            (
                "/.well-known/oauth-protected-resource".to_string(),
                Some(404)
            ),
            (
                "/.well-known/oauth-authorization-server".to_string(),
                Some(200)
            ),
        ]
    );
    let oauth = server.log().oauth();
    oauth.assert_registered();
    assert!(oauth.resource_sent().is_empty());
    common::schema::assert_server_messages_valid(&server.log());
}

#[tokio::test]
async fn the_2025_03_26_endpoint_fallback_serves_no_metadata_and_the_default_endpoints_at_the_root()
{
    let server = start(AuthScenario::LegacyEndpointFallback).await;
    let mut flow = Flow::new(&server.url());
    flow.without_resource = true;
    flow.run().await.expect("a 2025-03-26 client completes");
    assert_eq!(flow.token.as_ref().expect("token").status, 200);
    flow.open_session()
        .await
        .expect("the token opens a session");

    assert!(
        flow.endpoints
            .as_ref()
            .expect("endpoints")
            .metadata
            .is_null(),
        "no metadata"
    );
    let oauth = server.log().oauth();
    assert!(
        oauth
            .discovery()
            .iter()
            .all(|(_, status)| *status == Some(404)),
        "{:?}",
        oauth.discovery()
    );
    assert_eq!(oauth.registrations()[0].path, "/register");
    assert_eq!(oauth.authorization_requests()[0].path, "/authorize");
    assert_eq!(oauth.token_requests()[0].path, "/token");
    common::schema::assert_server_messages_valid(&server.log());
}

// ---------------------------------------------------------------------------------------
// Where a correct client must stop.
// ---------------------------------------------------------------------------------------

#[tokio::test]
async fn resource_mismatch_claims_another_resource_and_a_correct_client_never_authorizes() {
    // `index.mdx` "Canonical Server URI"; RFC 9728 section 3.3.
    let server = start(AuthScenario::ResourceMismatch).await;
    let mut flow = Flow::new(&server.url());
    let refusal = flow.run().await.expect_err("a correct client stops");
    assert_eq!(
        refusal,
        Refusal::ResourceMismatch {
            claimed: "https://evil.example.com/mcp".into()
        }
    );
    let oauth = server.log().oauth();
    assert!(oauth.registrations().is_empty());
    assert!(oauth.authorization_requests().is_empty());
    assert!(oauth.token_requests().is_empty());
}

#[tokio::test]
async fn offline_access_scope_is_listed_by_the_authorization_server_and_a_refresh_token_follows() {
    // `index.mdx` "Refresh Tokens" (SEP-2207).
    let server = start(AuthScenario::OfflineAccessScope).await;
    let mut flow = completes(&server, Config::default()).await;

    let prm = &flow.resource_metadata.as_ref().expect("prm").body;
    assert_eq!(
        prm["scopes_supported"],
        json!(["mcp:basic"]),
        "never offline_access here"
    );
    let metadata = &flow.endpoints.as_ref().expect("endpoints").metadata;
    assert_eq!(
        metadata["scopes_supported"],
        json!(["mcp:basic", "offline_access"])
    );
    assert!(
        metadata["grant_types_supported"]
            .as_array()
            .expect("grants")
            .iter()
            .any(|g| g == "refresh_token")
    );
    assert_eq!(metadata["client_id_metadata_document_supported"], true);
    let oauth = server.log().oauth();
    assert_eq!(
        oauth.authorization_requests()[0].scopes(),
        Some(vec!["mcp:basic", "offline_access"])
    );
    assert!(
        oauth.registrations()[0]
            .grant_types()
            .contains(&"refresh_token")
    );
    assert!(oauth.token_requests()[0].issued_refresh_token);

    assert_eq!(flow.refresh().await.status, 200);
    assert!(server.log().oauth().refreshed());
}

#[tokio::test]
async fn offline_access_not_supported_lists_no_offline_access_and_a_correct_client_does_not_ask() {
    let server = start(AuthScenario::OfflineAccessNotSupported).await;
    let flow = completes(&server, Config::default()).await;

    let metadata = &flow.endpoints.as_ref().expect("endpoints").metadata;
    assert_eq!(
        metadata["scopes_supported"],
        json!(["mcp:basic", "mcp:read"])
    );
    let authorizations = server.log().oauth().authorization_requests();
    let scopes = authorizations[0].scopes().expect("a scope");
    assert_eq!(scopes, ["mcp:basic", "mcp:read"]);
    assert!(!scopes.contains(&"offline_access"));
}

#[tokio::test]
async fn authorization_server_migration_moves_to_a_new_issuer_and_a_correct_client_registers_again()
{
    // `client-registration.mdx` "Authorization Server Binding" (SEP-2352).
    let server = start(AuthScenario::AuthorizationServerMigration).await;
    let first = completes(&server, Config::default()).await;
    let old_client = first.credentials.clone().expect("first client").client_id;
    let old_issuer = base(&server);
    assert_eq!(
        first
            .endpoints
            .as_ref()
            .expect("endpoints")
            .issuer
            .as_deref(),
        Some(old_issuer.as_str())
    );

    // The first request accepted with a token (`completes`' tools/list) moved the resource
    // to a new issuer; the old token is refused from then on.
    let new_issuer = server.oauth().issuer();
    assert_eq!(new_issuer, format!("{old_issuer}/as2"));
    let refused = first
        .post_mcp(
            reference_client::initialize(),
            first.access_token.as_deref(),
            None,
        )
        .await;
    assert_eq!(refused.status, 401, "{:?}", refused.body);
    let challenge = www_authenticate(&refused);
    assert_eq!(
        challenge_param(&challenge, "error").as_deref(),
        Some("invalid_token")
    );
    let prm = first
        .get(&format!(
            "{}/.well-known/oauth-protected-resource/mcp",
            base(&server)
        ))
        .await;
    assert_eq!(prm.body["authorization_servers"], json!([new_issuer]));

    // A correct client starts over: rediscovery, a new registration, a new token.
    let mut second = Flow::new(&server.url());
    second
        .run()
        .await
        .expect("the flow against the new authorization server");
    assert_eq!(
        second
            .endpoints
            .as_ref()
            .expect("endpoints")
            .issuer
            .as_deref(),
        Some(new_issuer.as_str())
    );
    let new_client = second.credentials.clone().expect("second client").client_id;
    assert_ne!(new_client, old_client);
    let session = second
        .open_session()
        .await
        .expect("the new token opens a session");
    let list = json!({"jsonrpc": "2.0", "id": 9, "method": "tools/list"});
    let answered = second
        .post_mcp(list, second.access_token.as_deref(), Some(&session))
        .await;
    assert_eq!(answered.status, 200, "{:?}", answered.body);

    let oauth = server.log().oauth();
    assert_eq!(oauth.registrations().len(), 2);
    let after = &oauth.authorization_requests()[1];
    assert_eq!(
        after.client_id(),
        Some(new_client.as_str()),
        "no credential reuse"
    );
    // The old client is unknown to the new authorization server.
    let mut stale = Flow::new(&server.url());
    stale.unauthenticated_request().await;
    stale.discover().await.expect("discovery");
    let endpoint = stale
        .endpoints
        .as_ref()
        .expect("endpoints")
        .authorization
        .clone();
    let answer = stale
        .get(&format!(
            "{endpoint}?response_type=code&client_id={old_client}&redirect_uri={REDIRECT_URI}"
        ))
        .await;
    assert_eq!(answer.status, 400);
    assert_eq!(answer.body["error"], "invalid_client");
    common::schema::assert_server_messages_valid(&server.log());
}

// ---------------------------------------------------------------------------------------
// `iss` (RFC 9207): `index.mdx` "Authorization Response Validation", its four-row table.
// ---------------------------------------------------------------------------------------

async fn iss_metadata_and_redirect(
    scenario: AuthScenario,
) -> (MockMcpServer, Flow, Result<(), Refusal>) {
    let server = start(scenario).await;
    let mut flow = Flow::new(&server.url());
    flow.unauthenticated_request().await;
    flow.discover().await.expect("discovery");
    flow.register().await.expect("registration");
    flow.choose_scope(None);
    let outcome = flow.authorize().await;
    (server, flow, outcome)
}

fn advertised(flow: &Flow) -> Option<&Value> {
    flow.endpoints
        .as_ref()
        .expect("endpoints")
        .metadata
        .get("authorization_response_iss_parameter_supported")
}

#[tokio::test]
async fn iss_supported_sends_the_exact_issuer_and_a_correct_client_exchanges_the_code() {
    let (server, mut flow, outcome) = iss_metadata_and_redirect(AuthScenario::IssSupported).await;
    outcome.expect("iss matches");
    assert_eq!(advertised(&flow), Some(&json!(true)));
    let authorization = &server.log().oauth().authorization_requests()[0];
    assert_eq!(authorization.redirect_param("iss"), Some(base(&server)));
    assert_eq!(
        authorization.redirect_param("code").as_deref(),
        Some("[redacted]")
    );
    assert_eq!(flow.exchange_code().await.status, 200);
}

#[tokio::test]
async fn iss_not_advertised_sends_no_iss_and_a_correct_client_proceeds() {
    let (server, mut flow, outcome) =
        iss_metadata_and_redirect(AuthScenario::IssNotAdvertised).await;
    outcome.expect("neither advertised nor sent: proceed");
    assert_eq!(advertised(&flow), None);
    assert_eq!(
        server.log().oauth().authorization_requests()[0].redirect_param("iss"),
        None
    );
    assert_eq!(flow.exchange_code().await.status, 200);
}

async fn rejected_at_the_redirect(scenario: AuthScenario, expected: Refusal, advertised_iss: bool) {
    let (server, flow, outcome) = iss_metadata_and_redirect(scenario).await;
    assert_eq!(outcome, Err(expected), "{scenario}");
    assert_eq!(
        advertised(&flow) == Some(&json!(true)),
        advertised_iss,
        "{scenario}"
    );
    let oauth = server.log().oauth();
    assert_eq!(
        oauth.authorization_requests().len(),
        1,
        "{scenario}: the redirect came back"
    );
    assert!(
        oauth.token_requests().is_empty(),
        "{scenario}: the code never reached the token endpoint"
    );
}

#[tokio::test]
async fn iss_supported_missing_advertises_iss_but_sends_none_and_a_correct_client_rejects_it() {
    rejected_at_the_redirect(AuthScenario::IssSupportedMissing, Refusal::IssMissing, true).await;
}

#[tokio::test]
async fn iss_wrong_issuer_sends_another_issuer_and_a_correct_client_rejects_it() {
    let (server, _, outcome) = iss_metadata_and_redirect(AuthScenario::IssWrongIssuer).await;
    assert_eq!(
        outcome,
        Err(Refusal::IssMismatch {
            expected: base(&server),
            received: "https://evil.example.com".into()
        })
    );
    assert!(server.log().oauth().token_requests().is_empty());
}

#[tokio::test]
async fn iss_unexpected_sends_an_unadvertised_wrong_iss_and_a_correct_client_still_compares_and_rejects()
 {
    let (server, flow, outcome) = iss_metadata_and_redirect(AuthScenario::IssUnexpected).await;
    assert_eq!(advertised(&flow), None);
    assert_eq!(
        outcome,
        Err(Refusal::IssMismatch {
            expected: base(&server),
            received: "https://evil.example.com".into()
        })
    );
    assert!(server.log().oauth().token_requests().is_empty());
}

#[tokio::test]
async fn iss_normalized_sends_the_issuer_with_a_trailing_slash_and_a_byte_comparison_rejects_it() {
    let (server, _, outcome) = iss_metadata_and_redirect(AuthScenario::IssNormalized).await;
    assert_eq!(
        outcome,
        Err(Refusal::IssMismatch {
            expected: base(&server),
            received: format!("{}/", base(&server))
        })
    );
    assert!(server.log().oauth().token_requests().is_empty());
}

#[tokio::test]
async fn metadata_issuer_mismatch_claims_another_issuer_and_a_correct_client_uses_none_of_its_endpoints()
 {
    // `authorization-server-discovery.mdx` "Authorization Server Metadata Discovery".
    let server = start(AuthScenario::MetadataIssuerMismatch).await;
    let mut flow = Flow::new(&server.url());
    let refusal = flow.run().await.expect_err("a correct client stops");
    assert_eq!(
        refusal,
        Refusal::MetadataIssuerMismatch {
            expected: base(&server),
            claimed: "https://attacker.example.com".into()
        }
    );
    let oauth = server.log().oauth();
    assert!(oauth.fetched("/.well-known/oauth-authorization-server"));
    assert!(oauth.registrations().is_empty());
    assert!(oauth.authorization_requests().is_empty());
    assert!(oauth.token_requests().is_empty());
}

// ---------------------------------------------------------------------------------------
// The catalogue itself.
// ---------------------------------------------------------------------------------------

#[tokio::test]
async fn every_scenario_has_a_preset_that_starts_and_challenges_a_client_without_a_token() {
    let mut names = std::collections::BTreeSet::new();
    for scenario in AuthScenario::iter() {
        assert!(names.insert(scenario.name()), "{scenario} is listed twice");
        assert_eq!(AuthScenario::from_name(scenario.name()), Some(scenario));
        let server = start(scenario).await;
        let mut flow = Flow::new(&server.url());
        let challenge = flow.unauthenticated_request().await;
        assert_eq!(challenge.status, 401, "{scenario}");
        assert!(
            challenge
                .header("www-authenticate")
                .is_some_and(|h| h.starts_with("Bearer")),
            "{scenario}"
        );
    }
    assert_eq!(names.len(), 27);
}
