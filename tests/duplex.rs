//! The in-memory duplex: rmcp's client over `MockMcpServer::connect_duplex`, with the stdio
//! framing of the 2025-11-25 transports page ("stdio": newline-delimited JSON-RPC, one message
//! per line), no socket and no process; captured, expected and faulted like an HTTP session.

mod common;

use mcp_decoy::{Fault, FaultRule, MockMcpServer, Tool};
use serde_json::{Value, json};
use tokio::io::{AsyncBufReadExt, AsyncWriteExt, BufReader};

use common::schema::assert_server_messages_valid;
use common::{PATIENCE, call_ok, connect_duplex, text, tool_names};

#[tokio::test]
async fn rmcp_lists_calls_and_hears_list_changed_over_the_duplex() {
    // Arrange
    let server = MockMcpServer::builder()
        .tool(Tool::echo().expect(1))
        .start()
        .await;
    let (client, mut changes) = connect_duplex(&server).await;

    // Act
    let names = tool_names(&client).await;
    let answer = call_ok(&client, "echo", json!({ "message": "over the duplex" })).await;
    server.add_tool(Tool::new("late")).expect("a new tool");
    changes.expect_one("add_tool").await;

    // Assert: one session, every message captured, both directions.
    assert_eq!(names, ["echo"]);
    assert_eq!(text(&answer), "over the duplex");
    assert_eq!(server.sessions().len(), 1);
    let log = server.log();
    assert_eq!(log.tool_calls("echo").len(), 1);
    assert_eq!(log.mcp().method("initialize").count(), 1);
    assert_eq!(
        common::sent_by_server(&log, "notifications/tools/list_changed"),
        1
    );
    assert_server_messages_valid(&log);
}

#[tokio::test]
async fn a_fault_rule_applies_over_the_duplex() {
    // Arrange
    let server = MockMcpServer::builder()
        .tool(Tool::echo())
        .fault(
            FaultRule::on_method("tools/call")
                .times(1)
                .fault(Fault::error(-32001, "busy")),
        )
        .start()
        .await;
    let (client, _changes) = connect_duplex(&server).await;

    // Act
    let first = client
        .call_tool(common::call("echo", json!({ "message": "one" })))
        .await;
    let second = call_ok(&client, "echo", json!({ "message": "two" })).await;

    // Assert
    let error = first.expect_err("the first call is refused by the rule");
    assert!(error.to_string().contains("busy"), "{error}");
    assert_eq!(text(&second), "two");
    assert_eq!(server.log().faults().len(), 1);
}

/// A raw peer: writes lines, reads lines.
async fn exchange(server: &MockMcpServer, lines: &[&str]) -> Vec<Value> {
    let (read, mut write) = tokio::io::split(server.connect_duplex());
    for line in lines {
        write
            .write_all(line.as_bytes())
            .await
            .expect("write a line");
        write.write_all(b"\n").await.expect("write a newline");
    }
    let mut reader = BufReader::new(read).lines();
    let mut answers = Vec::new();
    while answers.len() < lines.len() {
        let line = tokio::time::timeout(PATIENCE, reader.next_line())
            .await
            .expect("an answer in time")
            .expect("read a line")
            .expect("the server keeps the stream open");
        answers.push(serde_json::from_str(&line).expect("every line the server writes is JSON"));
    }
    answers
}

// stdio transport: a line that is not JSON, or not a JSON-RPC message, gets its JSON-RPC
// error, and the stream goes on serving.
#[tokio::test]
async fn bad_lines_get_their_json_rpc_errors_and_the_stream_goes_on() {
    let server = MockMcpServer::builder().tool(Tool::echo()).start().await;
    let initialize = r#"{"jsonrpc":"2.0","id":1,"method":"initialize","params":{"protocolVersion":"2025-11-25","capabilities":{},"clientInfo":{"name":"raw","version":"1"}}}"#;

    let answers = exchange(
        &server,
        &[
            "this is not json",
            initialize,
            r#"{"jsonrpc":"2.0","id":2}"#,
            r#"{"jsonrpc":"2.0","id":3,"method":"tools/list"}"#,
        ],
    )
    .await;

    assert_eq!(answers[0]["error"]["code"], -32700, "{}", answers[0]);
    assert_eq!(answers[1]["result"]["protocolVersion"], "2025-11-25");
    assert_eq!(answers[2]["error"]["code"], -32600, "{}", answers[2]);
    assert_eq!(answers[3]["result"]["tools"][0]["name"], "echo");
}

#[tokio::test]
async fn a_line_over_the_body_limit_is_refused_and_the_next_one_served() {
    let server = MockMcpServer::builder()
        .tool(Tool::echo())
        .max_body_bytes(1024)
        .start()
        .await;
    let long = format!(
        r#"{{"jsonrpc":"2.0","id":1,"method":"ping","params":{{"pad":"{}"}}}}"#,
        "x".repeat(4096)
    );
    let initialize = r#"{"jsonrpc":"2.0","id":2,"method":"initialize","params":{"protocolVersion":"2025-11-25","capabilities":{},"clientInfo":{"name":"raw","version":"1"}}}"#;

    let answers = exchange(&server, &[&long, initialize]).await;

    assert_eq!(answers[0]["error"]["code"], -32600, "{}", answers[0]);
    assert!(
        answers[0]["error"]["message"]
            .as_str()
            .is_some_and(|m| m.contains("1024 bytes")),
        "{}",
        answers[0]
    );
    assert_eq!(answers[1]["id"], 2);
}

#[tokio::test]
async fn dropping_the_client_end_ends_the_session() {
    let server = MockMcpServer::builder().tool(Tool::echo()).start().await;
    let (client, _changes) = connect_duplex(&server).await;
    assert_eq!(server.sessions().len(), 1);

    client.cancel().await.expect("closing the client");

    let deadline = tokio::time::Instant::now() + PATIENCE;
    while !server.sessions().is_empty() {
        assert!(
            tokio::time::Instant::now() < deadline,
            "the session outlived its stream"
        );
        tokio::time::sleep(std::time::Duration::from_millis(10)).await;
    }
}

/// A fixture's HTTP server starts when its first client connects; a fixture that only ever
/// served the duplex still ends it when dropped, since its stop starts that server to end
/// everything the fixture served.
#[tokio::test]
async fn dropping_a_fixture_no_http_client_reached_ends_its_duplex() {
    let server = MockMcpServer::builder().tool(Tool::echo()).start().await;
    let (read, mut write) = tokio::io::split(server.connect_duplex());
    let ping = r#"{"jsonrpc":"2.0","id":1,"method":"ping"}"#;
    write
        .write_all(format!("{ping}\n").as_bytes())
        .await
        .expect("write a line");
    let mut reader = BufReader::new(read).lines();
    let answered = tokio::time::timeout(PATIENCE, reader.next_line()).await;
    assert!(
        matches!(answered, Ok(Ok(Some(_)))),
        "the duplex answers: {answered:?}"
    );

    drop(server);
    let ended = tokio::time::timeout(PATIENCE, reader.next_line()).await;

    assert!(
        matches!(ended, Ok(Ok(None))),
        "the duplex ends with its fixture: {ended:?}"
    );
}
