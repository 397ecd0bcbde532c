//! What OAuth costs per request: `tools/call` of `echo` on one session of a server behind
//! OAuth (every request carries a bearer token the resource server looks up, checks for
//! expiry and audience, and the capture masks) against the same call on the same fixture
//! without OAuth. Real loopback HTTP with reqwest, 1 or 16 requests in flight, pooled
//! keep-alive connections. The token is obtained once, by the raw authorization-code flow.
//!
//! `cargo bench --bench oauth`; debug: `cargo bench --profile dev --bench oauth`.

use std::hint::black_box;
use std::time::{Duration, Instant};

use base64::Engine as _;
use base64::engine::general_purpose::URL_SAFE_NO_PAD;
use criterion::{BenchmarkId, Criterion, Throughput, criterion_group, criterion_main};
use futures::StreamExt;
use mcp_decoy::oauth::OAuth;
use mcp_decoy::{MockMcpServer, Tool};
use reqwest::header::{ACCEPT, AUTHORIZATION, CONTENT_TYPE, LOCATION};
use serde_json::{Value, json};
use sha2::{Digest, Sha256};

const PROTOCOL: &str = "2025-11-25";
const INITIALIZE: &str = r#"{"jsonrpc":"2.0","id":0,"method":"initialize","params":{"protocolVersion":"2025-11-25","capabilities":{},"clientInfo":{"name":"bench","version":"1.0.0"}}}"#;
const REDIRECT: &str = "http://127.0.0.1:9/callback";

/// The client runs on a current-thread runtime, as under a default `#[tokio::test]`.
fn runtime() -> tokio::runtime::Runtime {
    tokio::runtime::Builder::new_current_thread()
        .enable_all()
        .build()
        .expect("a client runtime")
}

async fn start(oauth: bool) -> MockMcpServer {
    let builder = MockMcpServer::builder()
        .tool(
            Tool::new("echo")
                .respond_with(json!({"content": [{"type": "text", "text": "${args.message}"}]})),
        )
        .log_limit(1_000);
    let builder = if oauth {
        builder.oauth(OAuth::new())
    } else {
        builder
    };
    builder.start().await
}

/// Registers a public client, authorizes it (auto-approve) and redeems the code.
async fn access_token(server: &MockMcpServer) -> String {
    let http = reqwest::Client::builder()
        .no_proxy()
        .redirect(reqwest::redirect::Policy::none())
        .build()
        .expect("a client");
    let base = server.base_url();
    let registered: Value = http
        .post(format!("{base}/oauth/register"))
        .json(&json!({ "redirect_uris": [REDIRECT], "token_endpoint_auth_method": "none" }))
        .send()
        .await
        .expect("registration")
        .json()
        .await
        .expect("a JSON registration");
    let client_id = registered["client_id"].as_str().expect("a client_id");
    let verifier = URL_SAFE_NO_PAD.encode([7u8; 32]);
    let challenge = URL_SAFE_NO_PAD.encode(Sha256::digest(verifier.as_bytes()));
    let resource = server.url();
    let mut authorize = url::Url::parse(&format!("{base}/oauth/authorize")).expect("a URL");
    authorize.query_pairs_mut().extend_pairs([
        ("response_type", "code"),
        ("client_id", client_id),
        ("redirect_uri", REDIRECT),
        ("code_challenge", &challenge),
        ("code_challenge_method", "S256"),
        ("resource", &resource),
    ]);
    let redirect = http.get(authorize).send().await.expect("authorization");
    let location = redirect.headers()[LOCATION].to_str().expect("a Location");
    let code = url::Url::parse(location)
        .expect("a redirect URL")
        .query_pairs()
        .find(|(name, _)| name == "code")
        .map(|(_, value)| value.into_owned())
        .expect("a code");
    let form = form_urlencoded::Serializer::new(String::new())
        .extend_pairs([
            ("grant_type", "authorization_code"),
            ("code", &code),
            ("redirect_uri", REDIRECT),
            ("code_verifier", &verifier),
            ("client_id", client_id),
            ("resource", &resource),
        ])
        .finish();
    let tokens: Value = http
        .post(format!("{base}/oauth/token"))
        .header(CONTENT_TYPE, "application/x-www-form-urlencoded")
        .body(form)
        .send()
        .await
        .expect("token exchange")
        .json()
        .await
        .expect("a JSON token response");
    tokens["access_token"]
        .as_str()
        .expect("an access token")
        .to_string()
}

fn post(client: &reqwest::Client, url: &str, token: Option<&str>) -> reqwest::RequestBuilder {
    let request = client
        .post(url)
        .header(CONTENT_TYPE, "application/json")
        .header(ACCEPT, "application/json, text/event-stream");
    match token {
        Some(token) => request.header(AUTHORIZATION, format!("Bearer {token}")),
        None => request,
    }
}

async fn session(client: &reqwest::Client, url: &str, token: Option<&str>) -> String {
    let response = post(client, url, token)
        .body(INITIALIZE)
        .send()
        .await
        .expect("initialize");
    assert!(response.status().is_success(), "{}", response.status());
    let session = response.headers()["mcp-session-id"]
        .to_str()
        .expect("an ASCII session id")
        .to_string();
    black_box(response.bytes().await.expect("the initialize body"));
    session
}

/// One `tools/call` of `echo`; returns the whole body.
async fn call(
    client: &reqwest::Client,
    url: &str,
    token: Option<&str>,
    session: &str,
    id: u64,
) -> bytes::Bytes {
    let body = json!({ "jsonrpc": "2.0", "id": id, "method": "tools/call",
        "params": { "name": "echo", "arguments": { "message": "hello" } } });
    let response = post(client, url, token)
        .header("mcp-session-id", session)
        .header("mcp-protocol-version", PROTOCOL)
        .body(body.to_string())
        .send()
        .await
        .expect("tools/call");
    assert!(response.status().is_success(), "{}", response.status());
    response.bytes().await.expect("the whole body")
}

/// One server of the comparison with what its calls need.
struct Target {
    name: &'static str,
    server: MockMcpServer,
    token: Option<String>,
    session: String,
}

fn oauth(c: &mut Criterion) {
    let rt = runtime();
    let client = reqwest::Client::builder()
        .no_proxy()
        .tcp_nodelay(true)
        .build()
        .expect("a client");
    let targets: Vec<Target> = [("plain", false), ("oauth", true)]
        .into_iter()
        .map(|(name, with_oauth)| {
            rt.block_on(async {
                let server = start(with_oauth).await;
                let token = if with_oauth {
                    Some(access_token(&server).await)
                } else {
                    None
                };
                let session = session(&client, &server.url(), token.as_deref()).await;
                Target {
                    name,
                    server,
                    token,
                    session,
                }
            })
        })
        .collect();

    // Check what is measured: the same answer on both, and the OAuth server refuses a
    // call without its token.
    let answers: Vec<Value> = targets
        .iter()
        .map(|t| {
            let body = rt.block_on(call(
                &client,
                &t.server.url(),
                t.token.as_deref(),
                &t.session,
                1,
            ));
            serde_json::from_slice(&body).expect("a JSON answer")
        })
        .collect();
    assert_eq!(
        answers[0]["result"]["content"],
        json!([{"type": "text", "text": "hello"}])
    );
    assert_eq!(answers[0]["result"], answers[1]["result"]);
    let refused = rt
        .block_on(
            post(&client, &targets[1].server.url(), None)
                .header("mcp-session-id", &targets[1].session)
                .body(INITIALIZE)
                .send(),
        )
        .expect("an answer");
    assert_eq!(refused.status(), reqwest::StatusCode::UNAUTHORIZED);

    let mut group = c.benchmark_group("oauth");
    // One element per call: "thrpt" is requests/s, "time" is wall time per call.
    group.throughput(Throughput::Elements(1));
    for concurrency in [1usize, 16] {
        for target in &targets {
            group.bench_with_input(
                BenchmarkId::new(target.name, format!("c{concurrency}")),
                &concurrency,
                |b, &concurrency| {
                    b.to_async(&rt).iter_custom(|iters| {
                        let client = &client;
                        let url = target.server.url();
                        async move {
                            let started = Instant::now();
                            futures::stream::iter(0..iters)
                                .map(|i| {
                                    call(
                                        client,
                                        &url,
                                        target.token.as_deref(),
                                        &target.session,
                                        i + 2,
                                    )
                                })
                                .buffer_unordered(concurrency)
                                .for_each(|body| async move {
                                    black_box(body);
                                })
                                .await;
                            started.elapsed()
                        }
                    });
                },
            );
        }
    }
    group.finish();
}

criterion_group! {
    name = benches;
    config = Criterion::default()
        .sample_size(30)
        .warm_up_time(Duration::from_secs(1))
        .measurement_time(Duration::from_secs(4));
    targets = oauth
}
criterion_main!(benches);
