//! Where a fixture listens: a free loopback port by default, or an address the test names.

use std::net::{Ipv4Addr, SocketAddr};

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
