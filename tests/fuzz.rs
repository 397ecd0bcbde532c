//! Fuzzing of the fixture's input surfaces (issue 13, "Proof"): JSON-RPC bodies, headers,
//! OAuth requests and, with `decoy-cli`, `servers.json`. Each case goes over real HTTP to a
//! running fixture, which must answer with a client error or a JSON-RPC error — never a 5xx,
//! a dropped connection or a hang — and keep serving a normal client afterwards.
//! `PROPTEST_CASES` sets the round: CI runs the default 256 per target; a longer round's
//! duration and result are in the closing note of issue 13.

use std::sync::OnceLock;
use std::time::Duration;

use mcp_decoy::oauth::OAuth;
use mcp_decoy::{MockMcpServer, Tool};
use proptest::prelude::*;
use serde_json::{Value, json};

/// One runtime and one fixture per target for the whole round: a case is a request, not a
/// server start.
fn runtime() -> &'static tokio::runtime::Runtime {
    static RUNTIME: OnceLock<tokio::runtime::Runtime> = OnceLock::new();
    RUNTIME.get_or_init(|| {
        tokio::runtime::Builder::new_multi_thread()
            .worker_threads(2)
            .enable_all()
            .build()
            .expect("a runtime")
    })
}

/// Starts a fixture on the shared runtime; call outside `block_on`.
fn start(oauth: bool) -> (MockMcpServer, String) {
    let mut builder = MockMcpServer::builder().tool(Tool::new("echo").respond_with(json!({
        "content": [{ "type": "text", "text": "${args.message}" }]
    })));
    if oauth {
        builder = builder.oauth(OAuth::new());
    }
    let server = runtime().block_on(builder.start());
    let url = server.url();
    (server, url)
}

/// The plain fixture's MCP URL; the first call starts it.
fn url() -> &'static str {
    static SERVER: OnceLock<(MockMcpServer, String)> = OnceLock::new();
    &SERVER.get_or_init(|| start(false)).1
}

/// The MCP URL of a fixture that is also its own OAuth authorization server.
fn oauth_url() -> &'static str {
    static SERVER: OnceLock<(MockMcpServer, String)> = OnceLock::new();
    &SERVER.get_or_init(|| start(true)).1
}

fn http() -> &'static reqwest::Client {
    static HTTP: OnceLock<reqwest::Client> = OnceLock::new();
    HTTP.get_or_init(|| {
        reqwest::Client::builder()
            .timeout(Duration::from_secs(10))
            .build()
            .expect("a client")
    })
}

/// JSON values shaped like JSON-RPC: the right member names with wrong or odd values.
fn json_value() -> impl Strategy<Value = Value> {
    let leaf = prop_oneof![
        Just(Value::Null),
        any::<bool>().prop_map(Value::from),
        any::<i64>().prop_map(Value::from),
        any::<f64>()
            .prop_map(|f| serde_json::Number::from_f64(f).map_or(Value::Null, Value::Number)),
        "[a-z/_$.{}()]{0,12}".prop_map(Value::from),
        prop::sample::select(vec![
            "2.0",
            "initialize",
            "tools/call",
            "tools/list",
            "ping",
            "notifications/initialized",
            "server/discover",
            "2025-11-25",
            "2026-07-28",
            "echo"
        ])
        .prop_map(Value::from),
    ];
    leaf.prop_recursive(4, 32, 6, |inner| {
        prop_oneof![
            prop::collection::vec(inner.clone(), 0..4).prop_map(Value::Array),
            prop::collection::vec(
                (
                    prop::sample::select(vec![
                        "jsonrpc",
                        "id",
                        "method",
                        "params",
                        "name",
                        "arguments",
                        "protocolVersion",
                        "capabilities",
                        "clientInfo",
                        "_meta",
                        "result",
                        "error",
                        "cursor",
                        "x"
                    ]),
                    inner
                ),
                0..6,
            )
            .prop_map(|entries| Value::Object(
                entries
                    .into_iter()
                    .map(|(k, v)| (k.to_owned(), v))
                    .collect()
            )),
        ]
    })
}

/// A body: JSON-RPC-shaped JSON, a batch of it, or raw bytes.
fn body() -> impl Strategy<Value = Vec<u8>> {
    prop_oneof![
        json_value().prop_map(|v| v.to_string().into_bytes()),
        prop::collection::vec(json_value(), 0..4)
            .prop_map(|v| Value::Array(v).to_string().into_bytes()),
        prop::collection::vec(any::<u8>(), 0..64),
    ]
}

fn header_value() -> impl Strategy<Value = String> {
    prop_oneof![
        "[ -~]{0,40}",
        prop::sample::select(vec![
            "application/json",
            "text/event-stream",
            "application/json, text/event-stream",
            "*/*",
            "2025-11-25",
            "2026-07-28",
            ""
        ])
        .prop_map(str::to_owned),
    ]
}

/// Sends one request and checks the fixture answered it as a client error at worst.
async fn survives(request: reqwest::RequestBuilder) -> Result<(), String> {
    let response = request
        .send()
        .await
        .map_err(|e| format!("no answer: {e}"))?;
    let status = response.status();
    // A GET that opened an event stream is a valid answer; do not wait for it to end.
    if status.is_server_error() {
        let text = response.text().await.unwrap_or_default();
        return Err(format!("{status}: {text}"));
    }
    Ok(())
}

/// After a case, a normal client still initializes.
async fn still_serves() -> Result<(), String> {
    let reply = http()
        .post(url())
        .header("content-type", "application/json")
        .header("accept", "application/json, text/event-stream")
        .body(
            json!({ "jsonrpc": "2.0", "id": 1, "method": "initialize", "params": {
            "protocolVersion": "2025-11-25", "capabilities": {},
            "clientInfo": { "name": "fuzz", "version": "0" } } })
            .to_string(),
        )
        .send()
        .await
        .map_err(|e| format!("no answer after the case: {e}"))?;
    if reply.status() != 200 {
        return Err(format!("initialize after the case: {}", reply.status()));
    }
    Ok(())
}

proptest! {
    #![proptest_config(ProptestConfig { failure_persistence: None, ..ProptestConfig::default() })]

    #[test]
    fn json_rpc_bodies_never_break_the_server(body in body(), session in any::<bool>()) {
        let url = url();
        let outcome: Result<(), String> = runtime().block_on(async {
            let mut request = http()
                .post(url)
                .header("content-type", "application/json")
                .header("accept", "application/json, text/event-stream")
                .body(body);
            if session {
                request = request.header("mcp-session-id", "not-a-session");
            }
            survives(request).await?;
            still_serves().await
        });
        prop_assert!(outcome.is_ok(), "{outcome:?}");
    }

    #[test]
    fn headers_never_break_the_server(
        method in prop::sample::select(vec!["GET", "POST", "DELETE", "PUT", "OPTIONS"]),
        headers in prop::collection::vec((prop::sample::select(vec!["content-type", "accept",
            "mcp-session-id", "mcp-protocol-version", "origin", "host", "last-event-id",
            "authorization", "mcp-method", "mcp-name", "content-length-x"]), header_value()), 0..6),
        body in body(),
    ) {
        let url = url();
        let outcome: Result<(), String> = runtime().block_on(async {
            let method = reqwest::Method::from_bytes(method.as_bytes()).map_err(|e| e.to_string())?;
            let mut request = http().request(method, url).body(body);
            for (name, value) in headers {
                request = request.header(name, value);
            }
            // Event streams stay open: a stream answer is fine, and the timeout ends it.
            match tokio::time::timeout(Duration::from_secs(5), survives(request)).await {
                Ok(result) => result?,
                Err(_) => return Err("no response head within 5 s".into()),
            }
            still_serves().await
        });
        prop_assert!(outcome.is_ok(), "{outcome:?}");
    }

    #[test]
    fn oauth_requests_never_break_the_server(
        path in prop::sample::select(vec!["/oauth/token", "/oauth/register", "/oauth/authorize",
            "/oauth/revoke", "/.well-known/oauth-authorization-server",
            "/.well-known/oauth-protected-resource/mcp"]),
        form in prop::collection::vec((prop::sample::select(vec!["grant_type", "code",
            "redirect_uri", "client_id", "client_secret", "code_verifier", "refresh_token",
            "resource", "scope", "response_type", "state", "code_challenge",
            "code_challenge_method", "token"]), "[ -~]{0,24}"), 0..8),
        json_body in json_value(),
        as_json in any::<bool>(),
    ) {
        let base = oauth_url();
        let outcome: Result<(), String> = runtime().block_on(async {
            let origin = base.trim_end_matches("/mcp");
            let url = format!("{origin}{path}");
            let request = if as_json {
                http().post(&url).json(&json_body)
            } else {
                http()
                    .post(&url)
                    .header("content-type", "application/x-www-form-urlencoded")
                    .body(encoded(&form))
            };
            survives(request).await?;
            survives(http().get(format!("{url}?{}", encoded(&form)))).await?;
            let metadata = http()
                .get(format!("{origin}/.well-known/oauth-authorization-server"))
                .send()
                .await
                .map_err(|e| format!("no metadata after the case: {e}"))?;
            if metadata.status() != 200 {
                return Err(format!("metadata after the case: {}", metadata.status()));
            }
            Ok(())
        });
        prop_assert!(outcome.is_ok(), "{outcome:?}");
    }
}

/// `form` as `application/x-www-form-urlencoded`, every byte of a value escaped.
fn encoded(form: &[(&str, String)]) -> String {
    form.iter()
        .map(|(k, v)| {
            format!(
                "{k}={}",
                v.bytes().map(|b| format!("%{b:02X}")).collect::<String>()
            )
        })
        .collect::<Vec<_>>()
        .join("&")
}

#[cfg(feature = "decoy-cli")]
proptest! {
    #![proptest_config(ProptestConfig { failure_persistence: None, ..ProptestConfig::default() })]

    /// Any document, including one shaped like servers.json with odd values, is accepted or
    /// refused with problems; the check never panics.
    #[test]
    fn servers_json_documents_are_checked_without_panicking(
        servers in prop::collection::vec(json_value(), 0..3),
        tools in prop::collection::vec(json_value(), 0..3),
        template in json_value(),
    ) {
        let mut servers = servers;
        let tools: Vec<Value> = tools
            .into_iter()
            .chain([json!({ "name": "t", "template": template })])
            .collect();
        servers.push(json!({ "name": "fuzz", "tools": tools }));
        let document = json!({ "servers": servers });
        let _ = mcp_decoy::cli::config::check(&document);
    }
}
