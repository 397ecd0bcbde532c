//! An OAuth authorization-code flow as an insta snapshot: the transcript masks tokens,
//! codes, secrets and the `Authorization` header, and replaces generated client ids and
//! ports, so the same flow gives the same snapshot on every run.

use base64::Engine as _;
use base64::engine::general_purpose::URL_SAFE_NO_PAD;
use mcp_decoy::log::Transcript;
use mcp_decoy::oauth::OAuth;
use mcp_decoy::{MockMcpServer, Tool};
use reqwest::header::{AUTHORIZATION, CONTENT_TYPE, LOCATION};
use serde_json::{Value, json};
use sha2::{Digest, Sha256};

const REDIRECT: &str = "http://127.0.0.1:9/callback";
/// A fixed verifier, so the challenge in the transcript is the same on every run.
const VERIFIER: &str = "a-fixed-code-verifier-that-is-long-enough-for-rfc-7636-0123456789";

/// Runs discovery, registration, authorization, the token exchange and one MCP request,
/// by hand as a client would, and returns the transcript.
async fn flow() -> Transcript {
    let server = MockMcpServer::builder()
        .name("weather")
        .version("1.0.0")
        .tool(Tool::echo())
        .oauth(OAuth::new().scopes_supported(["mcp:read"]))
        .start()
        .await;
    let base = server.base_url();
    let http = reqwest::Client::builder()
        .redirect(reqwest::redirect::Policy::none())
        .build()
        .expect("a client");
    let initialize = json!({ "jsonrpc": "2.0", "id": 1, "method": "initialize", "params": {
        "protocolVersion": "2025-11-25", "capabilities": {},
        "clientInfo": { "name": "snapshot", "version": "1.0.0" } } });
    let unauthorized = http
        .post(server.url())
        .header(CONTENT_TYPE, "application/json")
        .header("accept", "application/json, text/event-stream")
        .body(initialize.to_string())
        .send()
        .await
        .expect("the MCP endpoint answers");
    assert_eq!(unauthorized.status(), 401);
    for path in [
        "/.well-known/oauth-protected-resource/mcp",
        "/.well-known/oauth-authorization-server",
    ] {
        let document = http
            .get(format!("{base}{path}"))
            .send()
            .await
            .expect("metadata");
        assert_eq!(document.status(), 200, "{path}");
    }
    let registered: Value = http
        .post(format!("{base}/oauth/register"))
        .json(
            &json!({ "client_name": "snapshot", "redirect_uris": [REDIRECT],
            "token_endpoint_auth_method": "none" }),
        )
        .send()
        .await
        .expect("registration")
        .json()
        .await
        .expect("a registration response");
    let client_id = registered["client_id"].as_str().expect("client_id");
    let challenge = URL_SAFE_NO_PAD.encode(Sha256::digest(VERIFIER.as_bytes()));
    let resource = server.url();
    let query = form(&[
        ("response_type", "code"),
        ("client_id", client_id),
        ("redirect_uri", REDIRECT),
        ("code_challenge", &challenge),
        ("code_challenge_method", "S256"),
        ("resource", &resource),
        ("scope", "mcp:read"),
        ("state", "fixed-state"),
    ]);
    let authorize = http
        .get(format!("{base}/oauth/authorize?{query}"))
        .send()
        .await
        .expect("authorization");
    let location = authorize
        .headers()
        .get(LOCATION)
        .and_then(|v| v.to_str().ok())
        .expect("redirected back");
    let code = url_param(location, "code");
    let tokens: Value = http
        .post(format!("{base}/oauth/token"))
        .header(CONTENT_TYPE, "application/x-www-form-urlencoded")
        .body(form(&[
            ("grant_type", "authorization_code"),
            ("code", &code),
            ("redirect_uri", REDIRECT),
            ("code_verifier", VERIFIER),
            ("client_id", client_id),
            ("resource", &resource),
        ]))
        .send()
        .await
        .expect("token exchange")
        .json()
        .await
        .expect("a token response");
    let access = tokens["access_token"].as_str().expect("access_token");
    let answered = http
        .post(server.url())
        .header(CONTENT_TYPE, "application/json")
        .header("accept", "application/json, text/event-stream")
        .header(AUTHORIZATION, format!("Bearer {access}"))
        .body(initialize.to_string())
        .send()
        .await
        .expect("the MCP endpoint answers");
    assert_eq!(answered.status(), 200);
    server.log().transcript()
}

fn form(pairs: &[(&str, &str)]) -> String {
    form_urlencoded::Serializer::new(String::new())
        .extend_pairs(pairs)
        .finish()
}

fn url_param(url: &str, name: &str) -> String {
    let query = url.split_once('?').map(|(_, q)| q).unwrap_or("");
    form_urlencoded::parse(query.as_bytes())
        .find(|(k, _)| k == name)
        .map(|(_, v)| v.into_owned())
        .unwrap_or_else(|| panic!("`{name}` in {url}"))
}

#[tokio::test]
async fn the_oauth_flow_transcript_is_the_same_on_every_run() {
    let first = flow().await;
    let second = flow().await;
    assert_eq!(first, second, "two runs of the same flow differ");
    let text = serde_json::to_string(&first).expect("serializes");
    assert!(text.contains("Bearer [redacted]"), "{text}");
    assert!(text.contains("code=[redacted]"), "{text}");
    assert!(text.contains("[client-1]"), "{text}");
    assert!(!text.contains(VERIFIER), "{text}");
    insta::assert_json_snapshot!(first);
}
