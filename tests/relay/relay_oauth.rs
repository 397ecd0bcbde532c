//! OAuth through a relay, observable end to end as the debug proxy does it
//! (`mcp-debug-proxy.md`, "How the OAuth interception works"): the upstream is a decoy with
//! its own authorization server, run as a separate server; the rmcp auth client completes
//! discovery → registration → authorize → token → call through the relay. Every leg is
//! captured and masked, and the token is bound to the upstream's resource (RFC 8707
//! section 2), not the relay's URL the client was shown.

use crate::common;

use common::PATIENCE;
use mcp_decoy::oauth::OAuth;
use mcp_decoy::spec::IssResponse;
use mcp_decoy::{MockMcpServer, Tool};
use rmcp::ServiceExt;
use rmcp::transport::StreamableHttpClientTransport;
use rmcp::transport::auth::{AuthClient, AuthorizationRequest, OAuthState};
use rmcp::transport::streamable_http_client::StreamableHttpClientTransportConfig;
use serde_json::{Value, json};

const REDIRECT: &str = "http://127.0.0.1:9/callback";

/// The upstream: echo behind OAuth, auto-approving. The authorization response carries no
/// `iss` (RFC 9207): the callback goes from the IdP to the client and never through the
/// relay, so an `iss` would name the real issuer where the client expects the relayed one
/// (see docs/relay.md, "Limits").
async fn oauth_upstream() -> MockMcpServer {
    MockMcpServer::builder()
        .tool(Tool::echo())
        .oauth(
            OAuth::new()
                .iss_advertised(false)
                .iss_in_response(IssResponse::Omitted),
        )
        .start()
        .await
}

fn no_redirects() -> reqwest::Client {
    reqwest::Client::builder()
        .redirect(reqwest::redirect::Policy::none())
        .build()
        .expect("a client")
}

async fn location(client: &reqwest::Client, url: &str) -> String {
    let answer = client.get(url).send().await.expect("the leg answers");
    assert!(
        answer.status().is_redirection(),
        "{url}: {}",
        answer.status()
    );
    answer
        .headers()
        .get("location")
        .and_then(|v| v.to_str().ok())
        .expect("a Location")
        .to_string()
}

#[tokio::test]
async fn rmcp_authorizes_through_the_relay_and_every_leg_is_captured_masked() {
    let upstream = oauth_upstream().await;
    let relay = MockMcpServer::builder()
        .relay_to(upstream.url())
        .start()
        .await;

    // Discovery, from the relayed 401 (MCP authorization, "Authorization Server Location").
    let mut oauth = OAuthState::new(relay.url(), None)
        .await
        .expect("rmcp builds its OAuth state");
    oauth
        .start_authorization(AuthorizationRequest::new(REDIRECT).with_client_name("relay-tests"))
        .await
        .expect("rmcp discovers through the relay and registers");
    let authorization_url = oauth
        .get_authorization_url()
        .await
        .expect("an authorization URL");
    let relay_base = relay.base_url();
    assert!(
        authorization_url.starts_with(&format!("{relay_base}/_authorize/")),
        "the authorize leg bounces through the relay: {authorization_url}"
    );
    // The browser: the bounce patches `resource` back to the real one, then the IdP.
    let browser = no_redirects();
    let real_authorize = location(&browser, &authorization_url).await;
    let issuer = upstream.oauth().issuer();
    assert!(real_authorize.starts_with(&issuer), "{real_authorize}");
    let resource = url::Url::parse(&real_authorize)
        .expect("a URL")
        .query_pairs()
        .find(|(k, _)| k == "resource")
        .map(|(_, v)| v.into_owned());
    assert_eq!(resource.as_deref(), Some(upstream.url().as_str()));
    let callback = location(&browser, &real_authorize).await;
    assert!(callback.starts_with(REDIRECT), "{callback}");

    // Token exchange through the relay, then an MCP call with the token.
    oauth
        .handle_callback_url(&callback)
        .await
        .expect("the token exchange");
    let manager = oauth.into_authorization_manager().expect("authorized");
    let access_token = manager.get_access_token().await.expect("an access token");
    let code = url::Url::parse(&callback)
        .expect("a URL")
        .query_pairs()
        .find(|(k, _)| k == "code")
        .map(|(_, v)| v.into_owned())
        .expect("a code");
    let transport = StreamableHttpClientTransport::with_client(
        AuthClient::new(reqwest::Client::new(), manager),
        StreamableHttpClientTransportConfig::with_uri(relay.url()),
    );
    let client = tokio::time::timeout(PATIENCE, common::client_config().serve(transport))
        .await
        .expect("initialize in time")
        .expect("the authorized client initializes through the relay");
    let echoed = common::call_with(&client, "echo", json!({ "message": "authorized" })).await;
    assert_eq!(common::text(&echoed), "authorized");

    // The token the upstream issued is bound to its own resource, not the relay's URL.
    let tokens = upstream.oauth().tokens();
    assert!(!tokens.is_empty());
    assert!(
        tokens
            .iter()
            .all(|t| t.resource.as_deref() == Some(upstream.url().as_str())),
        "{tokens:?}"
    );

    // Every leg passed through the relay and is in its capture.
    let log = relay.log();
    let paths: Vec<String> = log
        .http()
        .all()
        .into_iter()
        .map(|h| h.path.clone())
        .collect();
    for leg in [
        "/.well-known/oauth-protected-resource",
        "/register",
        "/_authorize/",
        "/token",
    ] {
        assert!(
            paths.iter().any(|p| p.contains(leg)),
            "no {leg} leg in {paths:?}"
        );
    }
    let token_leg = log
        .http()
        .all()
        .into_iter()
        .find(|h| h.path.ends_with("/token"))
        .cloned()
        .expect("the token leg");
    assert_eq!(
        token_leg.upstream.as_ref().and_then(|u| u.status),
        Some(200)
    );
    assert_no_secret_reached_the_capture(&relay, &[access_token, code]);
}

/// No secret of the flow appears anywhere in the relay's captured log (headers, bodies,
/// forms, queries, `Location`s), while the client got them whole: it called the tool with
/// the token, and the code came back to it.
fn assert_no_secret_reached_the_capture(relay: &MockMcpServer, secrets: &[String]) {
    let log = relay.log();
    let captured = serde_json::to_string(log.records()).expect("the log serializes");
    assert!(captured.contains("[redacted]"), "the capture masks");
    for secret in secrets {
        assert!(secret.len() >= 8, "a real secret: {secret}");
        assert!(
            !captured.contains(secret.as_str()),
            "`{secret}` reached the relay's capture"
        );
    }
}

/// `/_up` reaches only hosts discovery handed out, the upstream's own and the allow-list
/// (`mcp-debug-proxy.md`, "Known limitations": unknown hosts get a 403).
#[tokio::test]
async fn an_auth_leg_to_a_host_nobody_handed_out_is_403() {
    let upstream = oauth_upstream().await;
    let relay = MockMcpServer::builder()
        .relay_to(upstream.url())
        .relay_auth_hosts(["http://127.0.0.1:1"])
        .start()
        .await;
    let http = reqwest::Client::new();
    let base = relay.base_url();
    let refused = http
        .post(format!("{base}/_up/evil.example:443/token"))
        .header("content-type", "application/x-www-form-urlencoded")
        .body("grant_type=client_credentials")
        .send()
        .await
        .expect("the relay answers");
    assert_eq!(refused.status(), 403);
    let body: Value = refused.json().await.expect("JSON");
    assert!(
        body["error_description"]
            .as_str()
            .unwrap_or_default()
            .contains("evil.example:443")
    );
    // RFC 8414 path insertion onto an `/_up` issuer of an unknown host: 403 too.
    let insertion = http
        .get(format!(
            "{base}/.well-known/oauth-authorization-server/_up/evil.example:443"
        ))
        .send()
        .await
        .expect("the relay answers");
    assert_eq!(insertion.status(), 403);
    // The upstream's own host is allowed without discovery.
    let authority = upstream.address().to_string();
    let own = http
        .get(format!(
            "{base}/_up/{authority}/.well-known/oauth-authorization-server"
        ))
        .send()
        .await
        .expect("the relay answers");
    assert_eq!(own.status(), 200);
    let metadata: Value = own.json().await.expect("metadata");
    assert_eq!(
        metadata["token_endpoint"]
            .as_str()
            .map(|t| t.starts_with(&format!("{base}/_up/"))),
        Some(true),
        "{metadata}"
    );
    // An allow-listed host is reachable (nothing listens there: 502, not 403).
    let listed = http
        .get(format!("{base}/_up/127.0.0.1:1/anything"))
        .send()
        .await
        .expect("the relay answers");
    assert_eq!(listed.status(), 502);
}

/// The challenge's `resource_metadata` (RFC 9728 section 5.1) names the relay, and the
/// protected-resource document shows the relay's URL as `resource` to the client.
#[tokio::test]
async fn the_challenge_and_the_resource_metadata_name_the_relay() {
    let upstream = oauth_upstream().await;
    let relay = MockMcpServer::builder()
        .relay_to(upstream.url())
        .start()
        .await;
    let http = reqwest::Client::new();
    let unauthorized = http
        .post(relay.url())
        .header("accept", "application/json, text/event-stream")
        .json(&common::initialize_body())
        .send()
        .await
        .expect("the relay answers");
    assert_eq!(unauthorized.status(), 401);
    let challenge = unauthorized
        .headers()
        .get("www-authenticate")
        .and_then(|v| v.to_str().ok())
        .unwrap_or_default()
        .to_string();
    let base = relay.base_url();
    let metadata_url = challenge
        .split("resource_metadata=\"")
        .nth(1)
        .and_then(|rest| rest.split('"').next())
        .expect("resource_metadata in the challenge");
    assert!(
        metadata_url.starts_with(&format!("{base}/_up/")),
        "{challenge}"
    );
    let document: Value = http
        .get(metadata_url)
        .send()
        .await
        .expect("the document")
        .json()
        .await
        .expect("JSON");
    assert_eq!(document["resource"], relay.url());
    let servers = document["authorization_servers"]
        .as_array()
        .cloned()
        .unwrap_or_default();
    assert!(!servers.is_empty());
    for server in servers {
        assert!(
            server
                .as_str()
                .is_some_and(|s| s.starts_with(&format!("{base}/_up/")))
        );
    }
}

/// A server on this machine that records every request it gets and answers 200: the app's
/// REST API, say, which a hostile upstream would have the relay reach.
async fn victim() -> (String, std::sync::Arc<std::sync::Mutex<Vec<String>>>) {
    let seen = std::sync::Arc::new(std::sync::Mutex::new(Vec::new()));
    let record = seen.clone();
    let app = axum::Router::new().fallback(move |request: axum::extract::Request| {
        let record = record.clone();
        async move {
            record.lock().expect("the victim's list").push(format!(
                "{} {}",
                request.method(),
                request.uri()
            ));
            "ok"
        }
    });
    let listener = tokio::net::TcpListener::bind("127.0.0.1:0")
        .await
        .expect("a loopback port");
    let authority = listener.local_addr().expect("its address").to_string();
    tokio::spawn(async move {
        let _ = axum::serve(listener, app).await;
    });
    (authority, seen)
}

/// An upstream whose resource metadata names `authorization_server` and whose MCP endpoint
/// asks for a token, as a hostile one would.
async fn naming_upstream(authorization_server: String) -> String {
    let metadata = move || {
        let authorization_server = authorization_server.clone();
        async move {
            axum::Json(json!({
                "resource": "http://upstream.invalid/mcp",
                "authorization_servers": [authorization_server],
            }))
        }
    };
    let app = axum::Router::new()
        .route(
            "/.well-known/oauth-protected-resource/mcp",
            axum::routing::get(metadata.clone()),
        )
        .route(
            "/.well-known/oauth-protected-resource",
            axum::routing::get(metadata),
        );
    let listener = tokio::net::TcpListener::bind("127.0.0.1:0")
        .await
        .expect("a loopback port");
    let url = format!("http://{}/mcp", listener.local_addr().expect("its address"));
    tokio::spawn(async move {
        let _ = axum::serve(listener, app).await;
    });
    url
}

/// Issue 41: hosts an upstream's documents name join the `/_up` allow-list only when they
/// are public; one on this machine (here standing for the app's REST API on its UI port)
/// gets no leg, and the document keeps its URL as the upstream wrote it.
#[tokio::test]
async fn an_upstream_that_names_a_host_on_this_machine_gets_no_leg_to_it() {
    // Arrange
    let (victim, seen) = victim().await;
    let upstream = naming_upstream(format!("http://{victim}")).await;
    let relay = MockMcpServer::builder().relay_to(&upstream).start().await;
    let http = reqwest::Client::new();
    let base = relay.base_url();

    // Act: discovery through the relay, then the leg a rewrite would have opened.
    let document: Value = http
        .get(format!("{base}/.well-known/oauth-protected-resource/mcp"))
        .send()
        .await
        .expect("the relay answers")
        .json()
        .await
        .expect("JSON");
    let leg = http
        .post(format!("{base}/_up/{victim}/api/v1/servers"))
        .header("content-type", "application/json")
        .body(r#"{"name":"pwned"}"#)
        .send()
        .await
        .expect("the relay answers");

    // Assert
    assert_eq!(
        document["authorization_servers"],
        json!([format!("http://{victim}")]),
        "not rewritten to an /_up leg"
    );
    assert_eq!(leg.status(), 403);
    assert!(
        seen.lock().expect("the victim's list").is_empty(),
        "the victim was reached: {:?}",
        seen.lock().expect("the victim's list")
    );
}

/// The same host listed by the user in `upstream_auth_hosts` is reached: the check guards
/// against the upstream, not against the user.
#[tokio::test]
async fn a_host_on_this_machine_the_user_listed_is_reached() {
    // Arrange
    let (victim, seen) = victim().await;
    let upstream = naming_upstream(format!("http://{victim}")).await;
    let relay = MockMcpServer::builder()
        .relay_to(&upstream)
        .relay_auth_hosts([format!("http://{victim}")])
        .start()
        .await;

    // Act
    let leg = reqwest::Client::new()
        .get(format!(
            "{}/_up/{victim}/.well-known/oauth-authorization-server",
            relay.base_url()
        ))
        .send()
        .await
        .expect("the relay answers");

    // Assert
    assert_eq!(leg.status(), 200);
    assert_eq!(
        seen.lock().expect("the victim's list").as_slice(),
        ["GET /.well-known/oauth-authorization-server"]
    );
}
