//! `mcp-decoy stdio NAME`: a server of `servers.json` as a child process of the client.
//! With an app running on the same config directory the process attaches to it, so the
//! traffic shows in the app's REST log and catalog edits reach the client; without one it
//! serves alone and writes its log to `--log-file`.

use crate::common;
use crate::common::app_process;

use std::path::Path;
use std::process::Stdio;

use app_process::{Running, Scratch};
use rmcp::transport::TokioChildProcess;
use serde_json::{Value, json};

use common::{PATIENCE, call_ok, client_config, connect_over, text, tool_names};

const BINARY: &str = env!("CARGO_BIN_EXE_mcp-decoy");

fn stdio_command(dir: &Path, name: &str, extra: &[&str]) -> tokio::process::Command {
    let mut command = tokio::process::Command::new(BINARY);
    command
        .arg("stdio")
        .arg(name)
        .arg("--config-dir")
        .arg(dir)
        .args(extra)
        // SDKs hand their children a minimal environment: config comes from arguments.
        .env_clear();
    command
}

fn spawn(dir: &Path, name: &str, extra: &[&str]) -> TokioChildProcess {
    TokioChildProcess::new(stdio_command(dir, name, extra)).expect("spawn mcp-decoy stdio")
}

/// Runs `mcp-decoy stdio NAME` to its end with stdin closed, for a failure it must explain:
/// exit status 1, nothing on stdout (it carries JSON-RPC only), and stderr.
async fn fails(dir: &Path, name: &str) -> String {
    let output = stdio_command(dir, name, &[])
        .stdin(Stdio::null())
        .output()
        .await
        .expect("run mcp-decoy stdio");
    assert_eq!(output.status.code(), Some(1), "{output:?}");
    assert!(output.stdout.is_empty(), "{output:?}");
    String::from_utf8_lossy(&output.stderr).into_owned()
}

async fn get(app: &Running, url: &str) -> Value {
    let response = app.api_client().get(url).send().await.expect("GET the API");
    assert!(
        response.status().is_success(),
        "GET {url}: {}",
        response.status()
    );
    response.json().await.expect("JSON")
}

#[tokio::test]
async fn with_the_app_running_the_traffic_shows_in_its_log_and_edits_reach_the_client() {
    // Arrange: the app on a scratch config dir, then a stdio client of its `echo`.
    let dir = Scratch::new("stdio-attached");
    let app = Running::start(dir.path());
    let (client, mut changes) = connect_over(
        spawn(dir.path(), "echo", &[]),
        client_config(),
        "mcp-decoy stdio echo",
    )
    .await;

    // Act
    let answer = call_ok(&client, "echo", json!({ "message": "via stdio" })).await;
    let created = app
        .api_client()
        .post(format!("{}/servers/echo/tools", app.api()))
        .json(&json!({ "name": "added", "published": true }))
        .send()
        .await
        .expect("POST a tool");
    changes.expect_one("a tool added over REST").await;
    let names = tool_names(&client).await;

    // Assert: the app's log holds the stdio session's records, named so.
    assert_eq!(text(&answer), "via stdio");
    assert!(created.status().is_success(), "{}", created.status());
    assert_eq!(names, ["echo", "added"]);
    let logs = get(
        &app,
        &format!("{}/servers/echo/logs?limit=1000&q=via%20stdio", app.api()),
    )
    .await;
    let records = logs["records"].as_array().expect("records");
    assert_eq!(records.len(), 1, "{logs}");
    assert_eq!(records[0]["method"], "tools/call");
    assert_eq!(records[0]["transport"], "stdio");
    let sessions = get(&app, &format!("{}/servers/echo/sessions", app.api())).await;
    assert_eq!(sessions[0]["transport"], "stdio", "{sessions}");
    client.cancel().await.expect("close the client");
}

#[tokio::test]
async fn with_the_app_running_an_unknown_server_is_refused_by_name() {
    let dir = Scratch::new("stdio-attached-unknown");
    let _app = Running::start(dir.path());

    let stderr = fails(dir.path(), "nope").await;

    assert!(stderr.contains("no server named `nope`"), "{stderr}");
    assert!(stderr.contains("echo"), "it lists the servers: {stderr}");
}

#[tokio::test]
async fn without_an_app_it_serves_alone_and_writes_its_log_file() {
    // Arrange: no servers.json yet, so the default `echo` server.
    let dir = Scratch::new("stdio-alone");
    let log_file = dir.path().join("stdio.jsonl");
    let log_arg = log_file.to_string_lossy().into_owned();
    let (client, _changes) = connect_over(
        spawn(dir.path(), "echo", &["--log-file", &log_arg]),
        client_config(),
        "mcp-decoy stdio echo",
    )
    .await;

    // Act
    let answer = call_ok(&client, "echo", json!({ "message": "alone" })).await;
    client.cancel().await.expect("close the client");

    // Assert: one JSON line per completed record, the call with its response.
    assert_eq!(text(&answer), "alone");
    let deadline = std::time::Instant::now() + PATIENCE;
    let records: Vec<Value> = loop {
        let text = std::fs::read_to_string(&log_file).unwrap_or_default();
        let records: Vec<Value> = text
            .lines()
            .map(|line| serde_json::from_str(line).expect("each line is one JSON record"))
            .collect();
        let called = records.iter().any(|r| r["method"] == "tools/call");
        if called || std::time::Instant::now() > deadline {
            break records;
        }
        tokio::time::sleep(std::time::Duration::from_millis(20)).await;
    };
    let call = records
        .iter()
        .find(|r| r["method"] == "tools/call")
        .unwrap_or_else(|| panic!("the call is in the file: {records:?}"));
    assert_eq!(call["transport"], "stdio");
    assert_eq!(call["response"]["result"]["content"][0]["text"], "alone");
    assert!(records.iter().any(|r| r["method"] == "initialize"));
    let ids: std::collections::BTreeSet<u64> =
        records.iter().filter_map(|r| r["id"].as_u64()).collect();
    assert_eq!(ids.len(), records.len(), "each record is written once");
}

#[tokio::test]
async fn without_an_app_an_unknown_server_names_the_ones_there() {
    let dir = Scratch::new("stdio-alone-unknown");
    app_process::write_servers(dir.path(), json!([{ "name": "weather", "tools": [] }]));

    let stderr = fails(dir.path(), "echo").await;

    assert!(stderr.contains("no server named `echo`"), "{stderr}");
    assert!(stderr.contains("weather"), "{stderr}");
}

#[tokio::test]
async fn a_bad_stdio_member_in_servers_json_is_named_by_its_path() {
    let dir = Scratch::new("stdio-bad-member");
    app_process::write_servers(
        dir.path(),
        json!([{ "name": "echo", "tools": [], "stdio": { "ignoreEOF": true } }]),
    );

    let stderr = fails(dir.path(), "echo").await;

    assert!(stderr.contains("/servers/0/stdio"), "{stderr}");
    assert!(stderr.contains("ignoreEOF"), "{stderr}");
}

#[tokio::test]
async fn servers_json_makes_a_stdio_server_that_ignores_eof() {
    let dir = Scratch::new("stdio-ignore-eof");
    app_process::write_servers(
        dir.path(),
        json!([{ "name": "stubborn", "tools": [], "stdio": { "ignoreEof": true } }]),
    );
    let mut child = stdio_command(dir.path(), "stubborn", &[])
        .stdin(Stdio::piped())
        .stdout(Stdio::null())
        .kill_on_drop(true)
        .spawn()
        .expect("spawn");

    drop(child.stdin.take());
    tokio::time::sleep(std::time::Duration::from_millis(500)).await;
    let ran_on = matches!(child.try_wait(), Ok(None));
    let _ = child.kill().await;

    assert!(ran_on, "the process exited on EOF");
}

// The app's `mcp-decoy stdio --attach` runs the bridge a fixture's `stdio_command` compiles
// on its own: a fixture served through the app's binary works the same, stubborn server
// included (the app's build ignores SIGTERM with its runtime's signal handling).
#[tokio::test]
async fn the_apps_binary_bridges_a_fixture_as_the_built_bridge_does() {
    let server = mcp_decoy::MockMcpServer::builder()
        .tool(mcp_decoy::Tool::echo())
        .start()
        .await;
    let command = server
        .stdio_command_with(BINARY)
        .expect("the fixture opens its attach socket");
    let transport = TokioChildProcess::new(tokio::process::Command::from(command))
        .expect("rmcp spawns the app's binary");
    let (client, _) = connect_over(transport, client_config(), "the app's stdio bridge").await;

    assert_eq!(tool_names(&client).await, ["echo"]);
    let said = call_ok(&client, "echo", json!({ "message": "through the app" })).await;
    assert_eq!(text(&said), "through the app");
    client.cancel().await.expect("the client closes");
    let log = server.log();
    assert_eq!(
        log.mcp()
            .method("tools/call")
            .all()
            .iter()
            .map(|m| m.transport)
            .collect::<Vec<_>>(),
        [mcp_decoy::log::Transport::Stdio]
    );
}
