//! The rmcp client in both eras against the decoy: `Discover` mode (2026-07-28, stateless
//! requests with `_meta`), `Initialize` mode (a legacy session) on the same server, and `Auto`
//! mode, which probes with `server/discover` and falls back to `initialize` only when the
//! server answers with no modern error (`2026-07-28/basic/versioning.mdx`, "Backward
//! Compatibility"; `basic/transports/streamable-http.mdx`, "Backward Compatibility").

use crate::common;

use mcp_decoy::log::Era;
use mcp_decoy::{MockMcpServer, ProtocolVersion, presets};
use rmcp::model::{
    ClientCapabilities, ClientConfig, GetPromptRequestParams, Implementation,
    ProtocolVersion as RmcpVersion, ReadResourceRequestParams, ResourceContents,
};
use rmcp::service::RunningService;
use rmcp::transport::StreamableHttpClientTransport;
use rmcp::{ClientHandler, ClientLifecycleMode, ClientServiceExt, RoleClient};
use serde_json::{Map, Value, json};

use common::{CLIENT_NAME, PATIENCE};

/// A client that only identifies itself.
#[derive(Debug, Clone)]
struct Plain;

impl ClientHandler for Plain {
    fn get_info(&self) -> ClientConfig {
        ClientConfig::new(
            ClientCapabilities::default(),
            Implementation::new(CLIENT_NAME, "1.0.0"),
        )
        .with_protocol_version(RmcpVersion::LATEST_WITH_INITIALIZE)
    }
}

type Client = RunningService<RoleClient, Plain>;

fn discover() -> ClientLifecycleMode {
    ClientLifecycleMode::Discover {
        preferred_versions: vec![RmcpVersion::V_2026_07_28],
    }
}

fn auto() -> ClientLifecycleMode {
    ClientLifecycleMode::Auto {
        preferred_versions: vec![RmcpVersion::V_2026_07_28],
        legacy_version: Some(RmcpVersion::V_2025_11_25),
    }
}

/// Connects an rmcp client to `server` with `lifecycle`.
async fn connect(server: &MockMcpServer, lifecycle: ClientLifecycleMode) -> Client {
    let transport = StreamableHttpClientTransport::from_uri(server.url());
    match tokio::time::timeout(
        PATIENCE,
        Plain.serve_with_lifecycle(transport, lifecycle.clone()),
    )
    .await
    {
        Ok(Ok(client)) => client,
        Ok(Err(error)) => panic!("the rmcp client failed to start in {lifecycle:?}: {error}"),
        Err(_) => panic!("starting in {lifecycle:?} took longer than {PATIENCE:?}"),
    }
}

/// The negotiated protocol version the client holds.
fn negotiated(client: &Client) -> String {
    client
        .peer_info()
        .expect("the client knows its server")
        .protocol_version
        .to_string()
}

/// Lists tools, calls one, reads a resource and gets prompts, asserting each answer.
async fn exercise(client: &Client) {
    let tools: Vec<String> = tokio::time::timeout(PATIENCE, client.list_all_tools())
        .await
        .expect("tools/list in time")
        .expect("tools/list succeeds")
        .into_iter()
        .map(|t| t.name.to_string())
        .collect();
    assert!(tools.contains(&"test_simple_text".to_string()), "{tools:?}");

    let call = common::call_with(client, "test_simple_text", json!({})).await;
    assert_eq!(
        common::text(&call),
        "This is a simple text response for testing."
    );

    let read = tokio::time::timeout(
        PATIENCE,
        client.read_resource(ReadResourceRequestParams::new("test://static-text")),
    )
    .await
    .expect("resources/read in time")
    .expect("resources/read succeeds");
    match &read.contents[..] {
        [ResourceContents::TextResourceContents { text, .. }] => {
            assert_eq!(text, "This is the content of the static text resource.");
        }
        other => panic!("expected one text content, got {other:?}"),
    }

    let mut arguments = Map::new();
    arguments.insert("arg1".into(), json!("hello"));
    arguments.insert("arg2".into(), json!("world"));
    let prompt = tokio::time::timeout(
        PATIENCE,
        client.get_prompt(
            GetPromptRequestParams::new("test_prompt_with_arguments").with_arguments(arguments),
        ),
    )
    .await
    .expect("prompts/get in time")
    .expect("prompts/get succeeds");
    let message = serde_json::to_value(&prompt.messages[0]).expect("a prompt message is JSON");
    assert_eq!(
        message["content"]["text"],
        json!("Prompt with arguments: arg1='hello', arg2='world'")
    );
}

/// The methods the client sent in `era`, in order.
fn methods_in(server: &MockMcpServer, era: Era) -> Vec<String> {
    server
        .log()
        .mcp()
        .from_client()
        .filter(|m| m.era == Some(era))
        .all()
        .into_iter()
        .filter_map(|m| m.method.clone())
        .collect()
}

fn legacy_only() -> [ProtocolVersion; 3] {
    [
        ProtocolVersion::V2025_11_25,
        ProtocolVersion::V2025_06_18,
        ProtocolVersion::V2025_03_26,
    ]
}

// server/discover.mdx and basic/index.mdx: a modern client discovers, then sends every
// request with its `_meta` and headers, and no session exists.
#[tokio::test]
async fn an_rmcp_client_in_discover_mode_lists_calls_reads_and_gets_a_prompt() {
    let server = presets::conformance().start().await;

    let client = connect(&server, discover()).await;
    exercise(&client).await;

    assert_eq!(negotiated(&client), "2026-07-28");
    let info = client.peer_info().expect("the client knows its server");
    assert_eq!(
        info.server_info.as_ref().map(|i| i.name.as_str()),
        Some("mcp-decoy-conformance")
    );
    let modern = methods_in(&server, Era::Modern);
    assert_eq!(modern.first().map(String::as_str), Some("server/discover"));
    for method in ["tools/list", "tools/call", "resources/read", "prompts/get"] {
        assert!(modern.iter().any(|m| m == method), "{method} in {modern:?}");
    }
    assert!(methods_in(&server, Era::Legacy).is_empty());
    assert!(
        server.sessions().is_empty(),
        "the modern era has no sessions"
    );
    let failures: Vec<Value> = server
        .log()
        .mcp()
        .from_client()
        .all()
        .into_iter()
        .filter_map(|m| m.error().cloned())
        .collect();
    assert!(failures.is_empty(), "refused requests: {failures:?}");
    client.cancel().await.expect("stop the client");
    common::schema::assert_server_messages_valid(&server.log());
}

// basic/versioning.mdx, "Backward Compatibility": a dual-era server serves a legacy client
// (initialize) and a modern one on the same endpoint at the same time.
#[tokio::test]
async fn an_rmcp_client_in_initialize_mode_works_on_the_same_server() {
    let server = presets::conformance().start().await;

    let modern = connect(&server, discover()).await;
    let legacy = connect(&server, ClientLifecycleMode::Initialize).await;
    exercise(&legacy).await;
    exercise(&modern).await;

    assert_eq!(negotiated(&legacy), "2025-11-25");
    assert_eq!(negotiated(&modern), "2026-07-28");
    let legacy_methods = methods_in(&server, Era::Legacy);
    assert_eq!(
        legacy_methods.first().map(String::as_str),
        Some("initialize")
    );
    assert_eq!(
        server.sessions().len(),
        1,
        "only the legacy client has a session"
    );
    let legacy_session = common::only_session(&server);
    for message in server.log().mcp().from_client().all() {
        match message.era {
            Some(Era::Legacy) => {
                assert_eq!(message.session.as_deref(), Some(legacy_session.as_str()));
                assert_eq!(message.protocol_version.as_deref(), Some("2025-11-25"));
            }
            Some(Era::Modern) => {
                assert!(message.session.is_none(), "{message:?}");
                assert_eq!(message.protocol_version.as_deref(), Some("2026-07-28"));
            }
            None => panic!("a client message without an era: {message:?}"),
            Some(era) => panic!("an era this test does not know: {era:?}"),
        }
    }
    legacy.cancel().await.expect("stop the legacy client");
    modern.cancel().await.expect("stop the modern client");
    common::schema::assert_server_messages_valid(&server.log());
}

// basic/versioning.mdx, "Compatibility Matrix" (Dual-era client, Legacy server): the probe
// gets no recognised modern error, so the client falls back to `initialize`.
#[tokio::test]
async fn an_rmcp_client_in_auto_mode_falls_back_to_initialize_on_a_legacy_only_server() {
    let server = presets::conformance()
        .protocol_versions(legacy_only())
        .start()
        .await;

    let client = connect(&server, auto()).await;
    exercise(&client).await;

    assert_eq!(negotiated(&client), "2025-11-25");
    let methods: Vec<String> = server
        .log()
        .mcp()
        .from_client()
        .all()
        .into_iter()
        .filter_map(|m| m.method.clone())
        .collect();
    assert_eq!(
        &methods[..2],
        ["server/discover", "initialize"],
        "the probe, then the fallback: {methods:?}"
    );
    assert!(methods_in(&server, Era::Modern).is_empty(), "{methods:?}");
    assert_eq!(server.sessions().len(), 1);
    client.cancel().await.expect("stop the client");
    common::schema::assert_server_messages_valid(&server.log());
}

// basic/versioning.mdx, "Compatibility Matrix" (Dual-era client, Modern server): discovery
// succeeds and the client stays modern.
#[tokio::test]
async fn an_rmcp_client_in_auto_mode_stays_modern_on_a_modern_only_server() {
    let server = presets::conformance()
        .protocol_versions([ProtocolVersion::V2026_07_28])
        .start()
        .await;

    let client = connect(&server, auto()).await;
    exercise(&client).await;

    assert_eq!(negotiated(&client), "2026-07-28");
    assert!(methods_in(&server, Era::Legacy).is_empty());
    assert!(
        !methods_in(&server, Era::Modern).contains(&"initialize".to_string()),
        "no initialize on a modern server"
    );
    assert!(server.sessions().is_empty());
    client.cancel().await.expect("stop the client");
    common::schema::assert_server_messages_valid(&server.log());
}

// basic/versioning.mdx, "Compatibility Matrix" (Dual-era client, Dual-era server): the
// modern probe succeeds, so the client never initializes.
#[tokio::test]
async fn an_rmcp_client_in_auto_mode_prefers_the_modern_era_of_a_dual_era_server() {
    let server = presets::conformance().start().await;

    let client = connect(&server, auto()).await;
    exercise(&client).await;

    assert_eq!(negotiated(&client), "2026-07-28");
    assert!(methods_in(&server, Era::Legacy).is_empty());
    let pushed = server.log().mcp().from_server().count();
    assert_eq!(
        pushed, 0,
        "nothing was pushed to a client that asked for nothing"
    );
    client.cancel().await.expect("stop the client");
    common::schema::assert_server_messages_valid(&server.log());
}
