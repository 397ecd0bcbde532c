//! Raw-HTTP tests of the modern era (2026-07-28) on the Streamable HTTP endpoint: the header
//! and `_meta` checks in the order the conformance suite applies them, routing, discovery,
//! caching hints, result envelopes, request-scoped logging and progress, cancellation by
//! closing the stream, and how the modern era sits beside the legacy one (dual-era,
//! modern-only and legacy-only servers).
//!
//! Spec references are to `/work/shared/spec/2026-07-28/<page>.mdx`, section in quotes;
//! `transports` is `basic/transports/streamable-http.mdx`. Every test ends with the schema
//! check, which validates modern records against the 2026-07-28 schema.

use std::time::Duration;

use futures::StreamExt;
use mcp_decoy::log::{Direction, Entry, Era, RequestEnd, RpcMessage};
use mcp_decoy::spec::{AskMethod, LogLevel};
use mcp_decoy::{MockMcpServer, Prompt, ProtocolVersion, Tool, presets};
use reqwest::StatusCode;
use serde_json::{Value, json};
use tokio::io::{AsyncReadExt, AsyncWriteExt};

/// The MCP schema check shared with the rmcp tests, included alone so this file stays
/// independent of the rest of `tests/common`.
use crate::common::schema;

const MODERN: &str = "2026-07-28";
const META_VERSION: &str = "io.modelcontextprotocol/protocolVersion";
const META_CAPABILITIES: &str = "io.modelcontextprotocol/clientCapabilities";
const META_CLIENT_INFO: &str = "io.modelcontextprotocol/clientInfo";
const META_LOG_LEVEL: &str = "io.modelcontextprotocol/logLevel";
const META_SERVER_INFO: &str = "io.modelcontextprotocol/serverInfo";

/// How long a test waits for an answer, an event or the end of a stream.
const WAIT: Duration = Duration::from_secs(5);

/// The `_meta` a conforming modern client sends: version, capabilities, client info.
fn meta() -> Value {
    json!({
        META_VERSION: MODERN,
        META_CAPABILITIES: {},
        META_CLIENT_INFO: { "name": "modern-raw-test", "version": "1.0.0" }
    })
}

/// A modern request: `params` (an object, or null for none) with [`meta`] merged in,
/// unless `params` already carries a `_meta`.
fn request(id: impl Into<Value>, method: &str, params: Value) -> Value {
    let mut params = if params.is_null() { json!({}) } else { params };
    if params.get("_meta").is_none() {
        params["_meta"] = meta();
    }
    json!({ "jsonrpc": "2.0", "id": id.into(), "method": method, "params": params })
}

/// A request exactly as given: no `_meta` added.
fn bare(id: impl Into<Value>, method: &str, params: Value) -> Value {
    let mut message = json!({ "jsonrpc": "2.0", "id": id.into(), "method": method });
    if !params.is_null() {
        message["params"] = params;
    }
    message
}

/// The headers a conforming client derives from `body` (transports, "Request Metadata"):
/// `MCP-Protocol-Version` from `_meta` (or 2026-07-28), `Mcp-Method`, and `Mcp-Name` for
/// `tools/call`, `prompts/get` (`params.name`) and `resources/read` (`params.uri`).
fn standard_headers(body: &Value) -> Vec<(String, String)> {
    let version = body["params"]["_meta"][META_VERSION]
        .as_str()
        .unwrap_or(MODERN);
    let method = body["method"].as_str().unwrap_or_default();
    let mut headers = vec![
        ("MCP-Protocol-Version".to_string(), version.to_string()),
        ("Mcp-Method".to_string(), method.to_string()),
    ];
    let name = match method {
        "tools/call" | "prompts/get" => body["params"]["name"].as_str(),
        "resources/read" => body["params"]["uri"].as_str(),
        _ => None,
    };
    if let Some(name) = name {
        headers.push(("Mcp-Name".to_string(), name.to_string()));
    }
    headers
}

/// `headers` with `name` (any case) replaced by `value`, or removed when `value` is `None`.
fn with_header(
    mut headers: Vec<(String, String)>,
    name: &str,
    value: Option<&str>,
) -> Vec<(String, String)> {
    headers.retain(|(n, _)| !n.eq_ignore_ascii_case(name));
    if let Some(value) = value {
        headers.push((name.to_string(), value.to_string()));
    }
    headers
}

/// A modern client of one server, speaking raw HTTP.
#[derive(Debug, Clone)]
struct Modern {
    http: reqwest::Client,
    url: String,
}

impl Modern {
    fn new(server: &MockMcpServer) -> Modern {
        Modern {
            http: reqwest::Client::builder()
                .no_proxy()
                .build()
                .expect("build the reqwest client"),
            url: server.url(),
        }
    }

    /// POSTs `body` with the standard headers.
    async fn post(&self, body: &Value) -> reqwest::Response {
        self.post_with(body, standard_headers(body)).await
    }

    /// POSTs `body` with exactly `headers` besides `Content-Type` and `Accept`.
    async fn post_with(&self, body: &Value, headers: Vec<(String, String)>) -> reqwest::Response {
        let mut builder = self
            .http
            .post(&self.url)
            .header("content-type", "application/json")
            .header("accept", "application/json, text/event-stream");
        for (name, value) in headers {
            builder = builder.header(name, value);
        }
        tokio::time::timeout(WAIT, builder.body(body.to_string()).send())
            .await
            .expect("the POST was answered in time")
            .expect("send the POST")
    }

    /// Sends a request with the standard headers, asserts 200, and returns the JSON-RPC
    /// response (from a JSON body or the last message of an event stream).
    async fn answer(&self, body: &Value) -> Value {
        let response = self.post(body).await;
        assert_eq!(response.status(), StatusCode::OK, "status of {body}");
        let answer = read(response).await.response;
        assert_eq!(answer["id"], body["id"], "the answer's id: {answer}");
        answer
    }

    /// The `result` of a request that must succeed.
    async fn result(&self, body: &Value) -> Value {
        let answer = self.answer(body).await;
        answer
            .get("result")
            .cloned()
            .unwrap_or_else(|| panic!("{} failed: {answer}", body["method"]))
    }

    /// Sends `body` with `headers`, asserts the HTTP status and the JSON-RPC error code, and
    /// that the error echoes the request id (`basic/index.mdx`, "Error codes"; conformance
    /// `sep-2575-http-server-error-jsonrpc-id`). Returns the `error` member.
    async fn refused(
        &self,
        body: &Value,
        headers: Vec<(String, String)>,
        status: StatusCode,
        code: i64,
    ) -> Value {
        let response = self.post_with(body, headers).await;
        assert_eq!(response.status(), status, "status of {body}");
        let answer: Value = response.json().await.expect("the error body is JSON");
        assert_eq!(
            answer["id"], body["id"],
            "the error echoes the id: {answer}"
        );
        assert_eq!(answer["error"]["code"], json!(code), "error code: {answer}");
        answer["error"].clone()
    }
}

/// What a response carried: the messages before the answer, the answer, and for an event
/// stream its raw text (to inspect event ids).
#[derive(Debug)]
struct Read {
    notifications: Vec<Value>,
    response: Value,
    raw: String,
    streamed: bool,
}

/// Reads a whole JSON or SSE response.
async fn read(response: reqwest::Response) -> Read {
    let streamed = response
        .headers()
        .get("content-type")
        .and_then(|v| v.to_str().ok())
        .is_some_and(|v| v.starts_with("text/event-stream"));
    let raw = tokio::time::timeout(WAIT, response.text())
        .await
        .expect("the response ended in time")
        .expect("read the response body");
    if !streamed {
        let response = serde_json::from_str(&raw).expect("the JSON body parses");
        return Read {
            notifications: Vec::new(),
            response,
            raw,
            streamed,
        };
    }
    let mut messages = crate::common::peer::sse_messages(&raw);
    let response = messages
        .pop()
        .expect("the event stream carries the response");
    assert!(
        response.get("id").is_some() && response.get("method").is_none(),
        "the stream ends with the response: {raw}"
    );
    Read {
        notifications: messages,
        response,
        raw,
        streamed,
    }
}

fn methods(notifications: &[Value]) -> Vec<&str> {
    notifications
        .iter()
        .map(|n| n["method"].as_str().unwrap_or("(no method)"))
        .collect()
}

fn assert_mentions(message: &Value, needles: &[&str]) {
    let text = message["message"].as_str().unwrap_or_default();
    for needle in needles {
        assert!(
            text.contains(needle),
            "message `{text}` does not mention `{needle}`"
        );
    }
}

/// The `mcp` record of the client request with JSON-RPC id `id`.
fn record_of(server: &MockMcpServer, id: &Value) -> RpcMessage {
    server
        .log()
        .mcp()
        .from_client()
        .filter(|m| m.rpc_id() == Some(id))
        .first()
        .cloned()
        .unwrap_or_else(|| panic!("no mcp record for the request with id {id}"))
}

/// The conformance preset, which serves tools, resources, templates and prompts, plus the
/// tools these tests need.
async fn server() -> MockMcpServer {
    presets::conformance()
        .tool(
            Tool::new("levelled_logs")
                .description("Logs at debug, info and error, then answers.")
                .log(LogLevel::Debug, "debug line")
                .log(LogLevel::Info, "info line")
                .log(LogLevel::Error, "error line")
                .respond_with(json!({ "content": [{ "type": "text", "text": "logged" }] })),
        )
        .tool(
            Tool::new("slow_with_progress")
                .description("Reports progress, then waits long before answering.")
                .progress(1.0, None, None)
                .delay(Duration::from_secs(3))
                .respond_with(json!({ "content": [{ "type": "text", "text": "too late" }] })),
        )
        .tool(
            Tool::new("needs_sampling")
                .description("Asks the client's model.")
                .ask(
                    "answer",
                    AskMethod::Sampling,
                    json!({ "messages": [], "maxTokens": 10 }),
                )
                .respond_with(json!({ "content": [{ "type": "text", "text": "sampled" }] })),
        )
        .prompt(
            Prompt::new("=?base64?cGFydGlhbA")
                .description("A name that only looks like the start of a Base64 wrapper.")
                .respond_with(
                    json!([{ "role": "user", "content": { "type": "text", "text": "literal" } }]),
                ),
        )
        .start()
        .await
}

fn legacy_versions() -> [ProtocolVersion; 3] {
    [
        ProtocolVersion::V2025_11_25,
        ProtocolVersion::V2025_06_18,
        ProtocolVersion::V2025_03_26,
    ]
}

// ---------------------------------------------------------------------------------------------
// Request metadata: headers and _meta, in the conformance suite's order
// ---------------------------------------------------------------------------------------------

// transports, "Protocol Version Header": every POST MUST include MCP-Protocol-Version;
// "Server Validation": a missing required standard header is a HeaderMismatch (400/-32020).
#[tokio::test]
async fn a_request_without_the_version_header_is_refused_with_400_header_mismatch() {
    let server = server().await;
    let client = Modern::new(&server);
    let body = request(1, "tools/list", Value::Null);

    let error = client
        .refused(
            &body,
            with_header(standard_headers(&body), "MCP-Protocol-Version", None),
            StatusCode::BAD_REQUEST,
            -32020,
        )
        .await;

    assert_mentions(&error, &["MCP-Protocol-Version"]);
    schema::assert_server_messages_valid(&server.log());
}

// basic/index.mdx, "Per-request protocol fields": a request missing a required `_meta` field
// is malformed: -32602, and on HTTP 400. Conformance `sep-2575-request-meta-invalid-*`.
#[tokio::test]
async fn a_request_without_meta_or_its_required_keys_is_refused_with_400_invalid_params() {
    let server = server().await;
    let client = Modern::new(&server);
    let cases = [
        ("no _meta", json!({}), META_VERSION),
        (
            "no protocolVersion",
            json!({ "_meta": { META_CAPABILITIES: {}, META_CLIENT_INFO: { "name": "c", "version": "1" } } }),
            META_VERSION,
        ),
        (
            "no clientCapabilities",
            json!({ "_meta": { META_VERSION: MODERN, META_CLIENT_INFO: { "name": "c", "version": "1" } } }),
            META_CAPABILITIES,
        ),
    ];

    for (n, (case, params, named)) in cases.into_iter().enumerate() {
        let body = bare(100 + n as i64, "server/discover", params);
        let error = client
            .refused(
                &body,
                standard_headers(&body),
                StatusCode::BAD_REQUEST,
                -32602,
            )
            .await;
        assert!(
            error["message"]
                .as_str()
                .unwrap_or_default()
                .contains(named),
            "{case}: the error names `{named}`: {error}"
        );
    }
    schema::assert_server_messages_valid(&server.log());
}

// basic/index.mdx, "Per-request protocol fields": clientInfo is not required (SHOULD).
// Conformance `sep-2575-request-meta-client-info-optional`.
#[tokio::test]
async fn client_info_is_optional() {
    let server = server().await;
    let client = Modern::new(&server);
    let body = bare(
        1,
        "server/discover",
        json!({ "_meta": { META_VERSION: MODERN, META_CAPABILITIES: {} } }),
    );

    let result = client.result(&body).await;

    assert!(result["supportedVersions"].is_array(), "{result}");
    schema::assert_server_messages_valid(&server.log());
}

// transports, "Protocol Version Header": the header MUST match `_meta` protocolVersion, else
// 400 + HeaderMismatch. The captured record's error names the header and both values.
#[tokio::test]
async fn a_version_header_that_differs_from_meta_is_refused_with_header_mismatch() {
    let server = server().await;
    let client = Modern::new(&server);
    let body = request(7, "tools/list", Value::Null);

    let error = client
        .refused(
            &body,
            with_header(
                standard_headers(&body),
                "MCP-Protocol-Version",
                Some("2025-11-25"),
            ),
            StatusCode::BAD_REQUEST,
            -32020,
        )
        .await;

    assert_mentions(&error, &["MCP-Protocol-Version", "2025-11-25", MODERN]);
    let record = record_of(&server, &json!(7));
    assert_eq!(record.era, Some(Era::Modern));
    let logged = record.error().expect("the record holds the error").clone();
    assert_mentions(&logged, &["MCP-Protocol-Version", "2025-11-25", MODERN]);
    schema::assert_server_messages_valid(&server.log());
}

// basic/versioning.mdx, "Protocol Version Negotiation" and transports, "Protocol Version
// Header": an unsupported version gets 400 + UnsupportedProtocolVersionError whose `supported`
// lists served versions (a subset of server/discover's) and `requested` echoes the ask.
#[tokio::test]
async fn an_unsupported_version_is_refused_with_the_supported_ones() {
    let server = server().await;
    let client = Modern::new(&server);
    let discovered = client
        .result(&request(1, "server/discover", Value::Null))
        .await;
    let discovered: Vec<&str> = discovered["supportedVersions"]
        .as_array()
        .expect("supportedVersions is an array")
        .iter()
        .map(|v| v.as_str().expect("a version is a string"))
        .collect();

    for (id, asked) in [(2, "v999.0.0"), (3, "1900-01-01")] {
        let mut body = request(id, "server/discover", Value::Null);
        body["params"]["_meta"][META_VERSION] = json!(asked);
        let error = client
            .refused(
                &body,
                standard_headers(&body),
                StatusCode::BAD_REQUEST,
                -32022,
            )
            .await;
        assert_eq!(error["data"]["requested"], json!(asked), "{error}");
        let supported = error["data"]["supported"]
            .as_array()
            .expect("data.supported is an array");
        assert!(!supported.is_empty(), "{error}");
        for version in supported {
            let version = version.as_str().expect("a supported version is a string");
            assert!(
                discovered.contains(&version),
                "`{version}` is not in discover's {discovered:?}"
            );
        }
        assert!(supported.contains(&json!(MODERN)), "{error}");
    }
    schema::assert_server_messages_valid(&server.log());
}

// transports, "Standard Request Headers" and "Server Validation": Mcp-Method is required on
// every request and must equal `method`; values are case-sensitive, so `TOOLS/LIST` is a
// mismatch. Conformance `http-header-validation`.
#[tokio::test]
async fn a_missing_or_different_mcp_method_is_refused_with_header_mismatch() {
    let server = server().await;
    let client = Modern::new(&server);

    let body = request(1, "tools/list", Value::Null);
    let missing = client
        .refused(
            &body,
            with_header(standard_headers(&body), "Mcp-Method", None),
            StatusCode::BAD_REQUEST,
            -32020,
        )
        .await;
    assert_mentions(&missing, &["Mcp-Method"]);

    for (id, sent) in [(2, "prompts/list"), (3, "TOOLS/LIST")] {
        let body = request(id, "tools/list", Value::Null);
        let error = client
            .refused(
                &body,
                with_header(standard_headers(&body), "Mcp-Method", Some(sent)),
                StatusCode::BAD_REQUEST,
                -32020,
            )
            .await;
        assert_mentions(&error, &["Mcp-Method", sent, "tools/list"]);
        let logged = record_of(&server, &json!(id))
            .error()
            .expect("the record holds the error")
            .clone();
        assert_mentions(&logged, &["Mcp-Method", sent, "tools/list"]);
    }
    schema::assert_server_messages_valid(&server.log());
}

/// Sends a raw HTTP/1.1 POST with the header names exactly as written and returns the status
/// and body; reqwest would send them lower-cased.
async fn raw_post(server: &MockMcpServer, headers: &[(&str, &str)], body: &Value) -> (u16, Value) {
    let body = body.to_string();
    let mut text = format!(
        "POST /mcp HTTP/1.1\r\nHost: {}\r\nConnection: close\r\nContent-Type: application/json\r\nAccept: application/json, text/event-stream\r\nContent-Length: {}\r\n",
        server.address(),
        body.len()
    );
    for (name, value) in headers {
        text.push_str(&format!("{name}: {value}\r\n"));
    }
    text.push_str("\r\n");
    text.push_str(&body);
    let mut stream = tokio::net::TcpStream::connect(server.address())
        .await
        .expect("connect to the decoy");
    stream
        .write_all(text.as_bytes())
        .await
        .expect("write the request");
    let mut answer = Vec::new();
    tokio::time::timeout(WAIT, stream.read_to_end(&mut answer))
        .await
        .expect("the answer came in time")
        .expect("read the answer");
    let answer = String::from_utf8_lossy(&answer).into_owned();
    let status = answer
        .split(' ')
        .nth(1)
        .and_then(|s| s.parse().ok())
        .expect("an HTTP status line");
    let (_, payload) = answer
        .split_once("\r\n\r\n")
        .expect("headers end with an empty line");
    (
        status,
        serde_json::from_str(payload).unwrap_or(Value::String(payload.to_string())),
    )
}

// transports, "Case Sensitivity": header names are case-insensitive, so any spelling of the
// standard header names is accepted.
#[tokio::test]
async fn header_names_are_accepted_in_any_case() {
    let server = server().await;
    let spellings: [[&str; 3]; 3] = [
        ["MCP-PROTOCOL-VERSION", "MCP-METHOD", "MCP-NAME"],
        ["mcp-protocol-version", "mcp-method", "mcp-name"],
        ["mCp-PrOtOcOl-VeRsIoN", "mCp-MeThOd", "mCp-NaMe"],
    ];

    for (id, [version, method, name]) in spellings.into_iter().enumerate() {
        let body = request(
            id as i64,
            "tools/call",
            json!({ "name": "test_simple_text" }),
        );
        let (status, answer) = raw_post(
            &server,
            &[
                (version, MODERN),
                (method, "tools/call"),
                (name, "test_simple_text"),
            ],
            &body,
        )
        .await;
        assert_eq!(status, 200, "{version}/{method}/{name}: {answer}");
        assert_eq!(
            answer["result"]["resultType"],
            json!("complete"),
            "{answer}"
        );
    }
    schema::assert_server_messages_valid(&server.log());
}

// transports, "Server Validation": Mcp-Name must equal params.name (tools/call, prompts/get)
// or params.uri (resources/read); a missing or different one is a HeaderMismatch, and the
// capture names the header and both values.
#[tokio::test]
async fn a_missing_or_different_mcp_name_is_refused_with_header_mismatch() {
    let server = server().await;
    let client = Modern::new(&server);
    let cases = [
        (
            1,
            "tools/call",
            json!({ "name": "test_simple_text" }),
            "test_simple_text",
        ),
        (
            2,
            "prompts/get",
            json!({ "name": "test_simple_prompt" }),
            "test_simple_prompt",
        ),
        (
            3,
            "resources/read",
            json!({ "uri": "test://static-text" }),
            "test://static-text",
        ),
    ];

    for (id, method, params, expected) in cases {
        let body = request(id, method, params);
        let error = client
            .refused(
                &body,
                with_header(standard_headers(&body), "Mcp-Name", Some("wrong_name")),
                StatusCode::BAD_REQUEST,
                -32020,
            )
            .await;
        assert_mentions(&error, &["Mcp-Name", "wrong_name", expected]);
        let logged = record_of(&server, &json!(id))
            .error()
            .expect("the record holds the error")
            .clone();
        assert_mentions(&logged, &["Mcp-Name", "wrong_name", expected]);

        let body = request(id + 10, method, body["params"].clone());
        let missing = client
            .refused(
                &body,
                with_header(standard_headers(&body), "Mcp-Name", None),
                StatusCode::BAD_REQUEST,
                -32020,
            )
            .await;
        assert_mentions(&missing, &["Mcp-Name"]);
    }
    schema::assert_server_messages_valid(&server.log());
}

// transports, "Value Encoding": a value with surrounding whitespace is not what the client
// meant; RFC 9110 field parsing excludes it. Conformance `ServerAcceptsWhitespaceHeaderValue`.
#[tokio::test]
async fn an_mcp_name_with_surrounding_whitespace_is_accepted() {
    let server = server().await;
    let client = Modern::new(&server);
    let body = request(1, "tools/call", json!({ "name": "test_simple_text" }));

    let response = client
        .post_with(
            &body,
            with_header(
                standard_headers(&body),
                "Mcp-Name",
                Some("  test_simple_text \t"),
            ),
        )
        .await;

    assert_eq!(response.status(), StatusCode::OK);
    let answer = read(response).await.response;
    assert_eq!(
        answer["result"]["resultType"],
        json!("complete"),
        "{answer}"
    );
    schema::assert_server_messages_valid(&server.log());
}

// transports, "Value Encoding": servers MUST decode `=?base64?…?=` before comparing; the
// wrapper is exact, so a value without the whole wrapper is compared literally.
#[tokio::test]
async fn a_base64_mcp_name_is_decoded_and_a_partial_wrapper_is_literal() {
    let server = server().await;
    let client = Modern::new(&server);

    // "test_simple_text", Base64.
    let body = request(1, "tools/call", json!({ "name": "test_simple_text" }));
    let response = client
        .post_with(
            &body,
            with_header(
                standard_headers(&body),
                "Mcp-Name",
                Some("=?base64?dGVzdF9zaW1wbGVfdGV4dA==?="),
            ),
        )
        .await;
    assert_eq!(response.status(), StatusCode::OK, "the wrapper is decoded");

    // The prompt's name starts like a wrapper but has no `?=`: sent as is, it matches.
    let body = request(2, "prompts/get", json!({ "name": "=?base64?cGFydGlhbA" }));
    let literal = client.result(&body).await;
    assert_eq!(literal["resultType"], json!("complete"), "{literal}");

    // The same bytes without the suffix are not decoded, so they do not match the tool.
    let body = request(3, "tools/call", json!({ "name": "test_simple_text" }));
    let error = client
        .refused(
            &body,
            with_header(
                standard_headers(&body),
                "Mcp-Name",
                Some("=?base64?dGVzdF9zaW1wbGVfdGV4dA=="),
            ),
            StatusCode::BAD_REQUEST,
            -32020,
        )
        .await;
    assert_mentions(&error, &["=?base64?dGVzdF9zaW1wbGVfdGV4dA=="]);
    schema::assert_server_messages_valid(&server.log());
}

// transports, "Value Encoding" and "Server Validation": a wrapper whose Base64 is invalid
// (bad padding, characters outside the alphabet) is rejected with HeaderMismatch.
#[tokio::test]
async fn an_mcp_name_with_invalid_base64_is_refused_with_header_mismatch() {
    let server = server().await;
    let client = Modern::new(&server);

    for (id, sent) in [
        (1, "=?base64?dGVzdF9zaW1wbGVfdGV4dA?="),
        (2, "=?base64?dGVzdF9*aW1wbGVfdGV4dA==?="),
    ] {
        let body = request(id, "tools/call", json!({ "name": "test_simple_text" }));
        let error = client
            .refused(
                &body,
                with_header(standard_headers(&body), "Mcp-Name", Some(sent)),
                StatusCode::BAD_REQUEST,
                -32020,
            )
            .await;
        assert_mentions(&error, &["Mcp-Name", "base64"]);
    }
    schema::assert_server_messages_valid(&server.log());
}

// ---------------------------------------------------------------------------------------------
// Routing and capabilities
// ---------------------------------------------------------------------------------------------

// transports, "Protocol Version Header": an unimplemented method gets 404 + -32601; the
// methods 2026-07-28 removed (deprecated.mdx) are unknown like any other. Conformance
// `sep-2575-http-server-method-not-found-404-*`.
#[tokio::test]
async fn removed_and_unknown_methods_get_404_method_not_found() {
    let server = server().await;
    let client = Modern::new(&server);
    let methods = [
        "initialize",
        "ping",
        "logging/setLevel",
        "resources/subscribe",
        "resources/unsubscribe",
        "unknown/method",
    ];

    for (id, method) in methods.into_iter().enumerate() {
        let body = request(
            format!("req-{id}"),
            method,
            json!({ "uri": "test://static-text" }),
        );
        let error = client
            .refused(
                &body,
                standard_headers(&body),
                StatusCode::NOT_FOUND,
                -32601,
            )
            .await;
        assert_mentions(&error, &[method]);
    }
    schema::assert_server_messages_valid(&server.log());
}

// server/discover.mdx and server/index.mdx: capabilities match handlers, so methods of a
// capability the server does not declare are unknown methods (404 + -32601).
#[tokio::test]
async fn methods_of_an_undeclared_capability_get_404_method_not_found() {
    let server = MockMcpServer::builder().tool(Tool::echo()).start().await;
    let client = Modern::new(&server);
    let capabilities = client
        .result(&request(1, "server/discover", Value::Null))
        .await["capabilities"]
        .clone();
    assert!(capabilities.get("prompts").is_none(), "{capabilities}");
    assert!(capabilities.get("resources").is_none(), "{capabilities}");

    for (id, method) in [
        (2, "prompts/list"),
        (3, "resources/list"),
        (4, "resources/templates/list"),
    ] {
        let body = request(id, method, Value::Null);
        client
            .refused(
                &body,
                standard_headers(&body),
                StatusCode::NOT_FOUND,
                -32601,
            )
            .await;
    }
    schema::assert_server_messages_valid(&server.log());
}

// basic/index.mdx, "Per-request protocol fields": a request that needs a client capability
// not declared in this request's `_meta` gets 400 + -32021 whose requiredCapabilities is a
// ClientCapabilities object. Conformance `sep-2575-server-rejects-undeclared-capability`.
#[tokio::test]
async fn a_tool_that_needs_sampling_is_refused_without_the_sampling_capability() {
    let server = server().await;
    let client = Modern::new(&server);
    let body = request(41, "tools/call", json!({ "name": "needs_sampling" }));

    let error = client
        .refused(
            &body,
            standard_headers(&body),
            StatusCode::BAD_REQUEST,
            -32021,
        )
        .await;

    assert_eq!(
        error["data"]["requiredCapabilities"],
        json!({ "sampling": {} })
    );
    assert_eq!(
        server.call_count("needs_sampling"),
        0,
        "the tool did not run"
    );
    schema::assert_server_messages_valid(&server.log());
}

// transports, "Backward Compatibility" / "Earlier Streamable HTTP Revisions": there is no
// GET stream and no session to DELETE: 405.
#[tokio::test]
async fn get_and_delete_are_405_for_modern_clients() {
    let server = server().await;
    let http = reqwest::Client::new();

    for method in [reqwest::Method::GET, reqwest::Method::DELETE] {
        let response = http
            .request(method.clone(), server.url())
            .header("MCP-Protocol-Version", MODERN)
            .header("accept", "text/event-stream")
            .send()
            .await
            .expect("send the request");
        assert_eq!(
            response.status(),
            StatusCode::METHOD_NOT_ALLOWED,
            "{method}"
        );
    }
    schema::assert_server_messages_valid(&server.log());
}

// transports, "Earlier Streamable HTTP Revisions": an Mcp-Session-Id on a modern request is
// ignored, never minted or echoed.
#[tokio::test]
async fn a_session_id_on_a_modern_request_is_ignored_and_never_echoed() {
    let server = server().await;
    let client = Modern::new(&server);
    let body = request(1, "tools/list", Value::Null);

    let response = client
        .post_with(
            &body,
            with_header(
                standard_headers(&body),
                "Mcp-Session-Id",
                Some("not-a-session"),
            ),
        )
        .await;

    assert_eq!(response.status(), StatusCode::OK);
    assert!(response.headers().get("mcp-session-id").is_none());
    let answer = read(response).await.response;
    assert!(answer["result"]["tools"].is_array(), "{answer}");
    assert!(server.sessions().is_empty(), "no session was opened");
    schema::assert_server_messages_valid(&server.log());
}

// transports, "Sending Messages" 5: an accepted notification POST gets 202 and no body
// (header rules for notification POSTs are undefined, so none are required).
#[tokio::test]
async fn a_notification_is_accepted_with_202() {
    let server = server().await;
    let client = Modern::new(&server);
    let body = json!({
        "jsonrpc": "2.0",
        "method": "notifications/cancelled",
        "params": { "requestId": 1, "_meta": meta() }
    });

    let response = client
        .post_with(&body, vec![("MCP-Protocol-Version".into(), MODERN.into())])
        .await;

    assert_eq!(response.status(), StatusCode::ACCEPTED);
    assert!(response.text().await.expect("read the body").is_empty());
    schema::assert_server_messages_valid(&server.log());
}

// ---------------------------------------------------------------------------------------------
// Results: discover, envelopes, caching hints
// ---------------------------------------------------------------------------------------------

// server/discover.mdx, "Response": supportedVersions (legacy ones too, versioning.mdx example
// `["2026-07-28", "2025-11-25"]`), capabilities matching handlers, serverInfo in `_meta`,
// resultType, and caching hints (caching.mdx).
#[tokio::test]
async fn discover_names_versions_capabilities_and_the_server() {
    let server = server().await;
    let client = Modern::new(&server);

    let result = client
        .result(&request(1, "server/discover", Value::Null))
        .await;

    assert_eq!(result["resultType"], json!("complete"));
    assert_eq!(
        result["supportedVersions"],
        json!(["2026-07-28", "2025-11-25", "2025-06-18", "2025-03-26"])
    );
    let capabilities = &result["capabilities"];
    for served in ["tools", "resources", "prompts", "completions"] {
        assert!(capabilities[served].is_object(), "{served}: {capabilities}");
    }
    assert_eq!(
        result["_meta"][META_SERVER_INFO]["name"],
        json!("mcp-decoy-conformance")
    );
    assert!(result["_meta"][META_SERVER_INFO]["version"].is_string());
    assert!(result["ttlMs"].as_u64().is_some(), "{result}");
    assert!(
        ["public", "private"].contains(&result["cacheScope"].as_str().unwrap_or_default()),
        "{result}"
    );
    // Each declared capability works (server/discover.mdx: capabilities match handlers).
    for (id, method) in [
        (2, "tools/list"),
        (3, "resources/list"),
        (4, "prompts/list"),
    ] {
        client.result(&request(id, method, Value::Null)).await;
    }
    schema::assert_server_messages_valid(&server.log());
}

// basic/index.mdx, "Responses": every result has `resultType` and SHOULD carry
// `_meta["io.modelcontextprotocol/serverInfo"]`.
#[tokio::test]
async fn every_result_is_complete_and_names_the_server() {
    let server = server().await;
    let client = Modern::new(&server);
    let requests = [
        request(1, "server/discover", Value::Null),
        request(2, "tools/list", Value::Null),
        request(3, "tools/call", json!({ "name": "test_simple_text" })),
        request(4, "resources/list", Value::Null),
        request(5, "resources/templates/list", Value::Null),
        request(6, "resources/read", json!({ "uri": "test://static-text" })),
        request(
            7,
            "resources/read",
            json!({ "uri": "test://template/123/data" }),
        ),
        request(8, "prompts/list", Value::Null),
        request(9, "prompts/get", json!({ "name": "test_simple_prompt" })),
        request(
            10,
            "completion/complete",
            json!({ "ref": { "type": "ref/prompt", "name": "test_prompt_with_arguments" },
                    "argument": { "name": "arg1", "value": "pa" } }),
        ),
    ];

    for body in &requests {
        let result = client.result(body).await;
        assert_eq!(
            result["resultType"],
            json!("complete"),
            "{}: {result}",
            body["method"]
        );
        assert_eq!(
            result["_meta"][META_SERVER_INFO]["name"],
            json!("mcp-decoy-conformance"),
            "{}: {result}",
            body["method"]
        );
    }
    schema::assert_server_messages_valid(&server.log());
}

// server/utilities/caching.mdx, "Cacheable Results": complete results of the listed methods
// MUST carry ttlMs (integer >= 0) and cacheScope; tools/call is not cacheable.
#[tokio::test]
async fn cacheable_results_carry_ttl_and_scope_and_tool_calls_do_not() {
    let server = server().await;
    let client = Modern::new(&server);
    let cacheable = [
        request(1, "tools/list", Value::Null),
        request(2, "prompts/list", Value::Null),
        request(3, "resources/list", Value::Null),
        request(4, "resources/templates/list", Value::Null),
        request(5, "resources/read", json!({ "uri": "test://static-text" })),
        request(6, "server/discover", Value::Null),
    ];

    for body in &cacheable {
        let result = client.result(body).await;
        assert!(
            result["ttlMs"].as_u64().is_some(),
            "{}: {result}",
            body["method"]
        );
        assert!(
            ["public", "private"].contains(&result["cacheScope"].as_str().unwrap_or_default()),
            "{}: {result}",
            body["method"]
        );
    }
    let call = client
        .result(&request(
            7,
            "tools/call",
            json!({ "name": "test_simple_text" }),
        ))
        .await;
    assert!(call.get("ttlMs").is_none(), "{call}");
    assert!(call.get("cacheScope").is_none(), "{call}");
    schema::assert_server_messages_valid(&server.log());
}

// server/resources.mdx, "Error Handling": an unknown URI is -32602
// with `data.uri`, never an empty `contents` (-32002 is legacy only). Conformance
// `sep-2164-resource-not-found`.
#[tokio::test]
async fn an_unknown_resource_is_invalid_params_naming_the_uri() {
    let server = server().await;
    let client = Modern::new(&server);

    let answer = client
        .answer(&request(
            1,
            "resources/read",
            json!({ "uri": "test://missing" }),
        ))
        .await;

    assert_eq!(answer["error"]["code"], json!(-32602), "{answer}");
    assert_eq!(
        answer["error"]["data"]["uri"],
        json!("test://missing"),
        "{answer}"
    );
    schema::assert_server_messages_valid(&server.log());
}

// ---------------------------------------------------------------------------------------------
// Request-scoped streams: logging, progress, event ids, cancellation
// ---------------------------------------------------------------------------------------------

// server/utilities/logging.mdx, "Per-request log level": no notifications/message without
// `_meta` logLevel; with it, only at or above that level, and only on the response stream of
// the request that set it. Conformance `sep-2575-server-no-log-without-loglevel`.
#[tokio::test]
async fn logs_come_only_at_the_requested_level_on_the_request_own_stream() {
    let server = server().await;
    let client = Modern::new(&server);
    let quiet = request(1, "tools/call", json!({ "name": "levelled_logs" }));
    let mut loud = request(2, "tools/call", json!({ "name": "levelled_logs" }));
    loud["params"]["_meta"][META_LOG_LEVEL] = json!("info");

    // Both at once: each stream carries only what its own request asked for.
    let (quiet, loud) = tokio::join!(client.post(&quiet), client.post(&loud));
    let (quiet, loud) = tokio::join!(read(quiet), read(loud));

    assert!(quiet.notifications.is_empty(), "{:?}", quiet.notifications);
    assert_eq!(quiet.response["result"]["resultType"], json!("complete"));
    assert_eq!(
        methods(&loud.notifications),
        ["notifications/message", "notifications/message"]
    );
    let levels: Vec<&Value> = loud
        .notifications
        .iter()
        .map(|n| &n["params"]["level"])
        .collect();
    assert_eq!(levels, [&json!("info"), &json!("error")]);
    assert_eq!(loud.response["id"], json!(2));
    let sent = server.log().mcp().from_server().count();
    assert_eq!(sent, 2, "only the two log lines were sent");
    schema::assert_server_messages_valid(&server.log());
}

// server/utilities/logging.mdx, "Error Handling": an unrecognised logLevel is -32602.
#[tokio::test]
async fn an_unknown_log_level_is_invalid_params() {
    let server = server().await;
    let client = Modern::new(&server);
    let mut body = request(1, "tools/call", json!({ "name": "levelled_logs" }));
    body["params"]["_meta"][META_LOG_LEVEL] = json!("chatty");

    let error = client
        .refused(
            &body,
            standard_headers(&body),
            StatusCode::BAD_REQUEST,
            -32602,
        )
        .await;

    assert_mentions(&error, &[META_LOG_LEVEL, "chatty"]);
    schema::assert_server_messages_valid(&server.log());
}

// basic/patterns/progress.mdx, "Progress Flow": progress only for a request that sent a
// progressToken, with that token and increasing values.
#[tokio::test]
async fn progress_comes_only_with_a_progress_token() {
    let server = server().await;
    let client = Modern::new(&server);
    let without = request(
        1,
        "tools/call",
        json!({ "name": "test_tool_with_progress" }),
    );
    let mut with = request(
        2,
        "tools/call",
        json!({ "name": "test_tool_with_progress" }),
    );
    with["params"]["_meta"]["progressToken"] = json!("p-1");

    let without = read(client.post(&without).await).await;
    let with = read(client.post(&with).await).await;

    assert!(
        without.notifications.is_empty(),
        "{:?}",
        without.notifications
    );
    assert_eq!(methods(&with.notifications), ["notifications/progress"; 3]);
    let progress: Vec<f64> = with
        .notifications
        .iter()
        .map(|n| {
            assert_eq!(n["params"]["progressToken"], json!("p-1"), "{n}");
            n["params"]["progress"]
                .as_f64()
                .expect("progress is a number")
        })
        .collect();
    assert_eq!(progress, [0.0, 50.0, 100.0]);
    schema::assert_server_messages_valid(&server.log());
}

// transports, "Receiving Messages": "Resumable SSE streams via Last-Event-ID are not
// supported" — a modern stream has no event ids and no priming event.
#[tokio::test]
async fn modern_streams_have_no_event_ids() {
    let server = server().await;
    let client = Modern::new(&server);
    let mut body = request(
        1,
        "tools/call",
        json!({ "name": "test_tool_with_progress" }),
    );
    body["params"]["_meta"]["progressToken"] = json!(7);

    let response = client.post(&body).await;
    assert_eq!(
        response
            .headers()
            .get("x-accel-buffering")
            .map(|v| v.as_bytes()),
        Some(&b"no"[..]),
        "transports: SSE responses SHOULD send X-Accel-Buffering: no"
    );
    let read = read(response).await;

    assert!(read.streamed, "a call that reports progress streams");
    assert!(
        !read.raw.lines().any(|line| line.starts_with("id:")),
        "an event id on a modern stream: {}",
        read.raw
    );
    assert_eq!(
        read.notifications.len(),
        3,
        "no priming event: {}",
        read.raw
    );
    schema::assert_server_messages_valid(&server.log());
}

// transports, "Cancellation" and basic/patterns/cancellation.mdx: closing the response
// stream cancels the request; the server sends nothing more for it.
#[tokio::test]
async fn closing_a_modern_stream_cancels_the_call() {
    let server = server().await;
    let client = Modern::new(&server);
    let mut body = request(31, "tools/call", json!({ "name": "slow_with_progress" }));
    body["params"]["_meta"]["progressToken"] = json!("slow");

    let response = client.post(&body).await;
    let mut stream = response.bytes_stream();
    let first = tokio::time::timeout(WAIT, stream.next())
        .await
        .expect("the first event came in time")
        .expect("the stream has an event")
        .expect("read the first event");
    assert!(
        String::from_utf8_lossy(&first).contains("notifications/progress"),
        "{first:?}"
    );
    drop(stream);

    let deadline = tokio::time::Instant::now() + WAIT;
    loop {
        let record = record_of(&server, &json!(31));
        if record.end == Some(RequestEnd::CancelledByClient) {
            assert!(record.response.is_none(), "no response after cancellation");
            break;
        }
        assert!(
            tokio::time::Instant::now() < deadline,
            "the call was not cancelled: {record:?}"
        );
        tokio::time::sleep(Duration::from_millis(20)).await;
    }
    schema::assert_server_messages_valid(&server.log());
}

// Conformance `server-stateless`: the preset carries its diagnostic tools.
// `test_missing_capability` needs sampling (-32021 without it), `test_streaming_elicitation`
// streams no server request, and `test_logging_tool` logs only when asked.
#[tokio::test]
async fn the_conformance_preset_serves_the_server_stateless_diagnostic_tools() {
    let server = presets::conformance().start().await;
    let client = Modern::new(&server);

    let body = request(
        401,
        "tools/call",
        json!({ "name": "test_missing_capability", "arguments": {} }),
    );
    let error = client
        .refused(
            &body,
            standard_headers(&body),
            StatusCode::BAD_REQUEST,
            -32021,
        )
        .await;
    assert_eq!(
        error["data"]["requiredCapabilities"],
        json!({ "sampling": {} })
    );

    let mut streaming = request(
        2,
        "tools/call",
        json!({ "name": "test_streaming_elicitation", "arguments": {} }),
    );
    streaming["params"]["_meta"]["progressToken"] = json!("token-abc");
    let streamed = read(client.post(&streaming).await).await;
    assert!(
        streamed.notifications.iter().all(|n| n.get("id").is_none()),
        "no request on the stream: {:?}",
        streamed.notifications
    );
    assert_eq!(methods(&streamed.notifications), ["notifications/progress"]);
    assert_eq!(
        streamed.response["result"]["content"][0]["text"],
        json!("Streaming complete")
    );

    let quiet = read(
        client
            .post(&request(
                3,
                "tools/call",
                json!({ "name": "test_logging_tool", "arguments": {} }),
            ))
            .await,
    )
    .await;
    assert!(quiet.notifications.is_empty(), "{:?}", quiet.notifications);
    let mut loud = request(
        4,
        "tools/call",
        json!({ "name": "test_logging_tool", "arguments": {} }),
    );
    loud["params"]["_meta"][META_LOG_LEVEL] = json!("debug");
    let loud = read(client.post(&loud).await).await;
    assert_eq!(methods(&loud.notifications), ["notifications/message"]);
    schema::assert_server_messages_valid(&server.log());
}

// basic/patterns/cancellation.mdx, "Transport-Specific Cancellation": on Streamable HTTP a
// client disconnect is cancellation; a call answered as JSON has no stream, so closing its
// connection cancels it too, and the capture says so.
#[tokio::test]
async fn dropping_the_connection_of_a_json_answer_cancels_the_call() {
    let server = MockMcpServer::builder()
        .tool(
            Tool::new("slow")
                .delay(Duration::from_secs(3))
                .respond_with(json!({ "content": [{ "type": "text", "text": "too late" }] })),
        )
        .start()
        .await;
    let body = request(51, "tools/call", json!({ "name": "slow" }));
    let mut builder = reqwest::Client::new()
        .post(server.url())
        .header("content-type", "application/json")
        .header("accept", "application/json")
        .timeout(Duration::from_millis(300));
    for (name, value) in standard_headers(&body) {
        builder = builder.header(name, value);
    }

    let sent = builder.body(body.to_string()).send().await;

    assert!(sent.is_err_and(|e| e.is_timeout()), "the client gave up");
    let deadline = tokio::time::Instant::now() + WAIT;
    loop {
        let record = record_of(&server, &json!(51));
        if record.end == Some(RequestEnd::CancelledByClient) {
            assert!(record.response.is_none(), "{record:?}");
            break;
        }
        assert!(
            tokio::time::Instant::now() < deadline,
            "the call was not cancelled: {record:?}"
        );
        tokio::time::sleep(Duration::from_millis(20)).await;
    }
    schema::assert_server_messages_valid(&server.log());
}

// ---------------------------------------------------------------------------------------------
// Eras side by side
// ---------------------------------------------------------------------------------------------

// basic/versioning.mdx, "Backward Compatibility": a dual-era server MAY serve both eras on
// one endpoint: `initialize` opens a legacy session, `_meta` requests are stateless. The
// capture records each message's era and version.
#[tokio::test]
async fn a_dual_era_server_serves_a_legacy_session_and_modern_requests_side_by_side() {
    let server = server().await;
    let http = reqwest::Client::new();
    let init = json!({ "jsonrpc": "2.0", "id": "init", "method": "initialize", "params": {
        "protocolVersion": "2025-11-25", "capabilities": {},
        "clientInfo": { "name": "legacy", "version": "1" } } });
    let response = http
        .post(server.url())
        .header("content-type", "application/json")
        .header("accept", "application/json, text/event-stream")
        .body(init.to_string())
        .send()
        .await
        .expect("send initialize");
    assert_eq!(response.status(), StatusCode::OK);
    let session = response
        .headers()
        .get("mcp-session-id")
        .expect("initialize opens a session")
        .to_str()
        .expect("the session id is ASCII")
        .to_string();
    let legacy_list = http
        .post(server.url())
        .header("content-type", "application/json")
        .header("accept", "application/json, text/event-stream")
        .header("mcp-session-id", &session)
        .header("mcp-protocol-version", "2025-11-25")
        .body(json!({ "jsonrpc": "2.0", "id": "legacy-list", "method": "tools/list" }).to_string())
        .send()
        .await
        .expect("send the legacy tools/list");
    assert_eq!(legacy_list.status(), StatusCode::OK);
    let legacy_list: Value = legacy_list.json().await.expect("a JSON answer");
    assert!(legacy_list["result"]["tools"].is_array(), "{legacy_list}");
    assert!(
        legacy_list["result"].get("resultType").is_none(),
        "{legacy_list}"
    );

    let modern = Modern::new(&server)
        .result(&request("modern-list", "tools/list", Value::Null))
        .await;
    assert_eq!(modern["resultType"], json!("complete"));

    let log = server.log();
    for (id, era, version) in [
        ("init", Era::Legacy, "2025-11-25"),
        ("legacy-list", Era::Legacy, "2025-11-25"),
        ("modern-list", Era::Modern, MODERN),
    ] {
        let record = record_of(&server, &json!(id));
        assert_eq!(record.era, Some(era), "{id}");
        assert_eq!(record.protocol_version.as_deref(), Some(version), "{id}");
    }
    assert_eq!(
        server.sessions().len(),
        1,
        "only the legacy client has a session"
    );
    schema::assert_server_messages_valid(&log);
}

// basic/versioning.mdx, "Backward Compatibility" (Legacy client, Modern server): a legacy
// `initialize` fails with 400, and the error SHOULD name the supported versions.
#[tokio::test]
async fn a_modern_only_server_refuses_initialize_naming_its_versions() {
    let server = MockMcpServer::builder()
        .tool(Tool::echo())
        .protocol_versions([ProtocolVersion::V2026_07_28])
        .start()
        .await;
    let http = reqwest::Client::new();
    let init = json!({ "jsonrpc": "2.0", "id": 1, "method": "initialize", "params": {
        "protocolVersion": "2025-11-25", "capabilities": {},
        "clientInfo": { "name": "legacy", "version": "1" } } });

    let response = http
        .post(server.url())
        .header("content-type", "application/json")
        .header("accept", "application/json, text/event-stream")
        .body(init.to_string())
        .send()
        .await
        .expect("send initialize");

    assert_eq!(response.status(), StatusCode::BAD_REQUEST);
    let answer: Value = response.json().await.expect("a JSON error");
    assert_eq!(answer["id"], json!(1), "{answer}");
    assert_mentions(&answer["error"], &[MODERN]);
    assert!(server.sessions().is_empty());
    // Its discover lists only the modern version.
    let discovered = Modern::new(&server)
        .result(&request(2, "server/discover", Value::Null))
        .await;
    assert_eq!(discovered["supportedVersions"], json!([MODERN]));
    schema::assert_server_messages_valid(&server.log());
}

// transports, "Earlier Streamable HTTP Revisions": a server of this revision only answers
// GET and DELETE with 405, whatever headers they carry.
#[tokio::test]
async fn a_modern_only_server_answers_get_and_delete_with_405() {
    let server = MockMcpServer::builder()
        .protocol_versions([ProtocolVersion::V2026_07_28])
        .start()
        .await;
    let http = reqwest::Client::new();

    for method in [reqwest::Method::GET, reqwest::Method::DELETE] {
        let response = http
            .request(method.clone(), server.url())
            .header("accept", "text/event-stream")
            .header("mcp-session-id", "left-over")
            .send()
            .await
            .expect("send the request");
        assert_eq!(
            response.status(),
            StatusCode::METHOD_NOT_ALLOWED,
            "{method}"
        );
    }
    schema::assert_server_messages_valid(&server.log());
}

// basic/versioning.mdx, "Compatibility Matrix" (Dual-era client, Legacy server): the modern
// request gets a 4xx without a recognised modern error, so the client falls back to
// `initialize` (transports, "Backward Compatibility").
#[tokio::test]
async fn a_legacy_only_server_answers_a_modern_request_so_that_clients_fall_back() {
    let server = MockMcpServer::builder()
        .tool(Tool::echo())
        .protocol_versions(legacy_versions())
        .start()
        .await;
    let client = Modern::new(&server);
    let body = request(1, "server/discover", Value::Null);

    let response = client.post(&body).await;

    assert_eq!(response.status(), StatusCode::BAD_REQUEST);
    let answer: Value = response.json().await.expect("a JSON error");
    let code = answer["error"]["code"].as_i64().expect("an error code");
    assert!(
        ![-32020, -32021, -32022, -32601].contains(&code),
        "a legacy server answers no modern error: {answer}"
    );
    assert_mentions(&answer["error"], &["Mcp-Session-Id"]);
    let record = record_of(&server, &json!(1));
    assert_eq!(
        record.era,
        Some(Era::Legacy),
        "the server has no modern era"
    );
    assert!(
        server.log().records().iter().all(
            |r| !matches!(&r.entry, Entry::Mcp(m) if m.direction == Direction::ServerToClient)
        ),
        "nothing was pushed"
    );
    schema::assert_server_messages_valid(&server.log());
}

// The schema check of every test here holds modern records to 2026-07-28: a result shaped
// for 2025-11-25 (no resultType, no caching hints) passes there and fails here.
#[test]
fn the_schema_check_holds_modern_results_to_the_2026_07_28_schema() {
    let legacy_shaped = json!({ "tools": [] });

    let as_legacy = schema::validate_message("ListToolsResult", &legacy_shaped);
    let as_modern =
        schema::validate_in(schema::Revision::Modern, "ListToolsResult", &legacy_shaped);

    assert!(as_legacy.is_empty(), "{as_legacy:?}");
    for field in ["resultType", "ttlMs", "cacheScope"] {
        assert!(
            as_modern.iter().any(|p| p.contains(field)),
            "{field} is required in 2026-07-28: {as_modern:?}"
        );
    }
    assert_eq!(
        schema::modern_result_definition("tools/call", &json!({ "resultType": "input_required" })),
        Some("InputRequiredResult")
    );
    assert_eq!(
        schema::modern_result_definition("initialize", &json!({})),
        None,
        "2026-07-28 has no initialize"
    );
}
