//! Where a fixture listens (a free loopback port by default, or an address the test names),
//! and which of the process's fixture threads serves it.

use std::net::{Ipv4Addr, SocketAddr};

mod common;

use mcp_decoy::{Error, MockMcpServer, Tool};

#[tokio::test]
async fn a_default_fixture_listens_on_loopback_and_answers_there() {
    let server = MockMcpServer::builder().start().await;

    let url = server.url();
    let response = reqwest::Client::new()
        .post(&url)
        .header("content-type", "application/json")
        .body(r#"{"jsonrpc":"2.0","id":1,"method":"initialize","params":{"protocolVersion":"2025-11-25","capabilities":{},"clientInfo":{"name":"t","version":"1"}}}"#)
        .send()
        .await
        .expect("the fixture answers on its URL");

    assert!(server.address().ip().is_loopback());
    assert_eq!(
        url,
        format!("http://127.0.0.1:{}/mcp", server.address().port())
    );
    assert_eq!(response.status(), 200);
}

#[tokio::test]
async fn a_fixture_binds_the_port_the_test_names() {
    let port = portpicker::pick_unused_port().expect("a free port");

    let server = MockMcpServer::builder()
        .bind(SocketAddr::from((Ipv4Addr::LOCALHOST, port)))
        .start()
        .await;

    assert_eq!(server.address().port(), port);
    assert_eq!(server.url(), format!("http://127.0.0.1:{port}/mcp"));
}

#[tokio::test]
async fn a_port_in_use_is_a_bind_error_naming_the_address() {
    let first = MockMcpServer::builder().start().await;

    let second = MockMcpServer::builder()
        .bind(first.address())
        .try_start()
        .await;

    match second {
        Err(error @ Error::Bind { .. }) => {
            assert!(
                error.to_string().contains(&first.address().to_string()),
                "{error}"
            );
        }
        other => panic!("expected a bind error, got {other:?}"),
    }
}

#[tokio::test(flavor = "multi_thread")]
async fn after_shutdown_the_same_port_serves_a_new_fixture_with_fresh_state() {
    let first = MockMcpServer::builder()
        .tool(Tool::new("before"))
        .start()
        .await;
    let addr = first.address();
    let client = reqwest::Client::new();
    let before = client
        .post(first.url())
        .header("content-type", "application/json")
        .body(r#"{"jsonrpc":"2.0","id":1,"method":"ping"}"#)
        .send()
        .await
        .expect("the first fixture answers");
    assert_eq!(before.status(), 400, "ping without a session");
    first.shutdown().await;
    let closed = client.post(format!("http://{addr}/mcp")).send().await;
    assert!(
        closed.is_err(),
        "the port is closed after shutdown: {closed:?}"
    );

    let second = MockMcpServer::builder()
        .bind(addr)
        .tool(Tool::new("after"))
        .start()
        .await;

    assert_eq!(second.address(), addr);
    let names: Vec<String> = second.tools().into_iter().map(|t| t.name).collect();
    assert_eq!(names, vec!["after".to_string()]);
    assert_eq!(second.log().records().len(), 0);
}

/// Fixtures on the default address take listeners their runtime bound ahead of time
/// (benches/README.md, "Spare listeners"): each must still get a port of its own, answer
/// as itself there, and close it when dropped.
#[tokio::test]
async fn fixtures_started_back_to_back_and_at_once_each_answer_as_themselves_on_their_own_port() {
    let mut servers = Vec::new();
    for n in 0..6 {
        servers.push(
            MockMcpServer::builder()
                .tool(Tool::new(format!("back_to_back_{n}")))
                .start()
                .await,
        );
    }
    let at_once = futures::future::join_all((0..6).map(|n| {
        MockMcpServer::builder()
            .tool(Tool::new(format!("at_once_{n}")))
            .start()
    }))
    .await;
    servers.extend(at_once);

    let ports: std::collections::HashSet<u16> =
        servers.iter().map(|s| s.address().port()).collect();
    assert_eq!(ports.len(), servers.len(), "one port per fixture");
    for server in &servers {
        let client = common::connect(&server.url()).await;
        let expected = server.tools()[0].name.clone();
        assert_eq!(common::tool_names(&client).await, vec![expected]);
        let _ = client.cancel().await;
    }

    let dropped = servers.remove(0).address();
    drop(servers);
    // Drop only signals the runtime; the port closes a moment later.
    let deadline = tokio::time::Instant::now() + common::PATIENCE;
    loop {
        match tokio::net::TcpStream::connect(dropped).await {
            Err(error) if error.kind() == std::io::ErrorKind::ConnectionRefused => break,
            _ if tokio::time::Instant::now() > deadline => {
                panic!("{dropped} still accepts connections after its fixture was dropped")
            }
            _ => tokio::time::sleep(std::time::Duration::from_millis(10)).await,
        }
    }
}

/// Servers that start with equal tools share one copy of the spec (benches/README.md,
/// "Start-up and memory"); an edit of one server's tool must not reach the other.
#[tokio::test]
async fn an_edit_of_a_tool_two_servers_started_with_reaches_only_the_server_edited() {
    let tool = || Tool::new("shared_spec").description("as started");
    let edited = MockMcpServer::builder().tool(tool()).start().await;
    let other = MockMcpServer::builder().tool(tool()).start().await;

    edited
        .replace_tool(Tool::new("shared_spec").description("edited"))
        .expect("the tool exists");

    let described = |server: &MockMcpServer| server.tools()[0].description.clone();
    assert_eq!(described(&edited).as_deref(), Some("edited"));
    assert_eq!(described(&other).as_deref(), Some("as started"));
    let client = common::connect(&other.url()).await;
    let listed = common::list_tools(&client).await;
    assert_eq!(listed[0].description.as_deref(), Some("as started"));
    let _ = client.cancel().await;
}

#[tokio::test]
async fn a_copy_of_a_served_tool_changed_after_is_served_changed_and_checked_again() {
    // Arrange: one server holds the tool; a copy of the same `Tool` is changed afterwards.
    let tool = Tool::echo();
    let as_started = tool.spec().description.clone();
    let first = MockMcpServer::builder().tool(tool.clone()).start().await;
    let described = tool.clone().description("changed copy");
    let broken = tool.input_schema(serde_json::json!({ "type": "array" }));

    // Act
    let second = MockMcpServer::builder().tool(described).start().await;
    let refused = MockMcpServer::builder().tool(broken).try_start().await;

    // Assert: each server lists its own version, and the broken copy is refused by the
    // start checks, which the unchanged spec passed once.
    let client = common::connect(&second.url()).await;
    let listed = common::list_tools(&client).await;
    assert_eq!(listed[0].description.as_deref(), Some("changed copy"));
    let _ = client.cancel().await;
    assert_eq!(first.tools()[0].description, as_started);
    let error = refused.expect_err("an input schema that is not an object schema");
    assert!(error.to_string().contains("inputSchema"), "{error}");
}

/// A fixture on the default address claims a listener bound ahead and arms it: its server
/// starts when the first client connects (benches/README.md, "Armed listeners, members kept
/// apart"): a client that comes late is served, and a fixture no client ever reached still
/// shuts down and closes its port.
#[tokio::test]
async fn a_fixture_serves_a_late_first_client_and_shuts_down_when_none_came() {
    // Arrange: fixtures that stop leave spares on their runtime.
    for _ in 0..8 {
        let server = MockMcpServer::builder().start().await;
        tokio::time::timeout(common::PATIENCE, server.shutdown())
            .await
            .expect("a fixture no client reached shuts down");
    }
    let late = MockMcpServer::builder().tool(Tool::echo()).start().await;
    let quiet = MockMcpServer::builder().tool(Tool::echo()).start().await;
    let quiet_addr = quiet.address();

    // Act
    tokio::time::sleep(std::time::Duration::from_millis(50)).await;
    let client = common::connect(&late.url()).await;
    let echoed = common::call_ok(&client, "echo", serde_json::json!({ "message": "late" })).await;
    let shut = tokio::time::timeout(common::PATIENCE, quiet.shutdown()).await;

    // Assert
    assert_eq!(common::text(&echoed), "late");
    assert!(
        shut.is_ok(),
        "shutdown of a fixture no client reached returned"
    );
    let after = reqwest::Client::new()
        .post(format!("http://{quiet_addr}/mcp"))
        .header("content-type", "application/json")
        .body(r#"{"jsonrpc":"2.0","id":1,"method":"ping"}"#)
        .send()
        .await;
    assert!(after.is_err(), "nothing answers on {quiet_addr}: {after:?}");
    let _ = client.cancel().await;
}

/// Set in the fresh process that [`fixtures_that_never_overlap_share_one_thread_and_overlapping_ones_spread`]
/// runs itself in.
const FRESH_PROCESS: &str = "MCP_DECOY_TEST_FRESH_PROCESS";

/// The fixture threads of this process: the pool's threads are named `mcp-decoy-N`.
#[cfg(target_os = "linux")]
fn fixture_threads() -> Vec<String> {
    let mut names: Vec<String> = std::fs::read_dir("/proc/self/task")
        .expect("/proc/self/task lists this process's threads")
        .filter_map(|task| std::fs::read_to_string(task.ok()?.path().join("comm")).ok())
        .map(|name| name.trim().to_string())
        .filter(|name| name.starts_with("mcp-decoy-"))
        .collect();
    names.sort();
    names
}

/// Serves one `tools/call` from each fixture to a real client, so each has a running server.
#[cfg(target_os = "linux")]
async fn call_each(servers: &[&MockMcpServer]) {
    for server in servers {
        let client = common::connect(&server.url()).await;
        let echoed = common::call_ok(&client, "echo", serde_json::json!({ "message": "m" })).await;
        assert_eq!(common::text(&echoed), "m");
        let _ = client.cancel().await;
    }
}

/// Fixtures that never overlap (tests run one at a time, or a test alone in its process) all
/// run on one thread, and the process starts no other; fixtures alive at the same time go to
/// threads of their own, up to the machine's cores (at most four). Thread counts are only
/// meaningful in a process with no other test, so the test runs itself in a fresh one.
#[cfg(target_os = "linux")]
#[test]
fn fixtures_that_never_overlap_share_one_thread_and_overlapping_ones_spread() {
    if std::env::var_os(FRESH_PROCESS).is_none() {
        let name = "fixtures_that_never_overlap_share_one_thread_and_overlapping_ones_spread";
        let output = std::process::Command::new(std::env::current_exe().expect("this test binary"))
            .args(["--exact", name, "--test-threads=1", "--nocapture"])
            .env(FRESH_PROCESS, "1")
            .output()
            .expect("the test binary runs again");
        let printed = String::from_utf8_lossy(&output.stdout);
        assert!(
            output.status.success(),
            "the fresh process failed:\n{printed}\n{}",
            String::from_utf8_lossy(&output.stderr)
        );
        assert!(
            printed.contains("1 passed"),
            "the fresh process ran the test: {printed}"
        );
        return;
    }
    let runtime = tokio::runtime::Builder::new_current_thread()
        .enable_all()
        .build()
        .expect("a runtime");
    runtime.block_on(async {
        // Act: five fixtures, one after another, each served and dropped.
        for _ in 0..5 {
            let server = MockMcpServer::builder().tool(Tool::echo()).start().await;
            call_each(&[&server]).await;
        }
        let after_sequential = fixture_threads();

        // Act: four fixtures alive at once, each served.
        let mut alive = Vec::new();
        for _ in 0..4 {
            alive.push(MockMcpServer::builder().tool(Tool::echo()).start().await);
        }
        call_each(&alive.iter().collect::<Vec<_>>()).await;
        let after_overlapping = fixture_threads();

        // Assert
        assert_eq!(after_sequential, ["mcp-decoy-0"]);
        let cores = std::thread::available_parallelism().map_or(1, usize::from);
        let expected: Vec<String> = (0..cores.clamp(1, 4))
            .map(|i| format!("mcp-decoy-{i}"))
            .collect();
        assert_eq!(after_overlapping, expected);
    });
}
