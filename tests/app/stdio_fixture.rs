//! stdio: a client spawns the fixture's `stdio_command` as its server process (the stdio
//! transport of the 2025-11-25 and 2026-07-28 transports pages: newline-delimited JSON-RPC
//! on stdin and stdout, logs on stderr, shutdown by closing stdin). rmcp's child-process
//! transport for what a real client does; a raw child for the bytes and exit statuses.

use crate::common;

use std::process::Stdio;
use std::time::{Duration, Instant};

use mcp_decoy::log::{RequestEnd, Transport};
use mcp_decoy::spec::AskMethod;
use mcp_decoy::{Fault, FaultRule, MockMcpServer, Tool};
use rmcp::transport::TokioChildProcess;
use serde_json::{Value, json};
use tokio::io::{AsyncBufReadExt, AsyncReadExt, AsyncWriteExt, BufReader};
use tokio::process::{Child, ChildStdin, ChildStdout};

use common::schema::assert_server_messages_valid;
use common::{
    Answers, Heard, PATIENCE, call_ok, call_with, client_config, connect_answering_over,
    connect_over, text, tool_names,
};

const BINARY: &str = env!("CARGO_BIN_EXE_mcp-decoy");

const INITIALIZE: &str = r#"{"jsonrpc":"2.0","id":1,"method":"initialize","params":{"protocolVersion":"2025-11-25","capabilities":{},"clientInfo":{"name":"raw","version":"1"}}}"#;

fn command(server: &MockMcpServer) -> tokio::process::Command {
    let command = server
        .stdio_command_with(BINARY)
        .expect("the fixture opens its attach socket");
    tokio::process::Command::from(command)
}

fn spawn_rmcp(server: &MockMcpServer) -> TokioChildProcess {
    TokioChildProcess::new(command(server)).expect("rmcp spawns the stdio command")
}

async fn until(what: &str, mut done: impl FnMut() -> bool) {
    let deadline = Instant::now() + PATIENCE;
    while !done() {
        assert!(Instant::now() < deadline, "{what} within {PATIENCE:?}");
        tokio::time::sleep(Duration::from_millis(10)).await;
    }
}

/// A spawned stdio command driven by hand: lines in, lines out, its exit status.
struct Raw {
    child: Child,
    stdin: Option<ChildStdin>,
    stdout: BufReader<ChildStdout>,
}

impl Raw {
    /// Spawns with stderr discarded (see [`Raw::spawn_with_stderr`]).
    fn spawn(server: &MockMcpServer) -> Raw {
        Raw::spawn_with_stderr(server, Stdio::null())
    }

    fn spawn_with_stderr(server: &MockMcpServer, stderr: Stdio) -> Raw {
        let mut child = command(server)
            .stdin(Stdio::piped())
            .stdout(Stdio::piped())
            .stderr(stderr)
            .kill_on_drop(true)
            .spawn()
            .expect("spawn the stdio command");
        let stdin = child.stdin.take();
        let stdout = BufReader::new(child.stdout.take().expect("piped stdout"));
        Raw {
            child,
            stdin,
            stdout,
        }
    }

    async fn send(&mut self, line: &str) {
        let stdin = self.stdin.as_mut().expect("stdin still open");
        stdin
            .write_all(line.as_bytes())
            .await
            .expect("write a line");
        stdin.write_all(b"\n").await.expect("write a newline");
        stdin.flush().await.expect("flush stdin");
    }

    async fn send_bytes(&mut self, bytes: &[u8]) {
        let stdin = self.stdin.as_mut().expect("stdin still open");
        stdin.write_all(bytes).await.expect("write bytes");
        stdin.flush().await.expect("flush stdin");
    }

    /// The next line on stdout, as text.
    async fn line(&mut self) -> String {
        let mut line = String::new();
        let read = tokio::time::timeout(PATIENCE, self.stdout.read_line(&mut line))
            .await
            .expect("a line on stdout in time")
            .expect("read stdout");
        assert!(read > 0, "stdout ended before the next line");
        line
    }

    /// The next line on stdout, which must be one JSON message.
    async fn message(&mut self) -> Value {
        let line = self.line().await;
        assert!(line.ends_with('\n'), "a message is a whole line: {line:?}");
        serde_json::from_str(&line).unwrap_or_else(|e| panic!("not JSON ({e}): {line:?}"))
    }

    async fn initialize(&mut self) {
        self.send(INITIALIZE).await;
        let answer = self.message().await;
        assert_eq!(
            answer["result"]["protocolVersion"], "2025-11-25",
            "{answer}"
        );
        self.send(r#"{"jsonrpc":"2.0","method":"notifications/initialized"}"#)
            .await;
    }

    fn close_stdin(&mut self) {
        self.stdin = None;
    }

    async fn exit_status(&mut self) -> std::process::ExitStatus {
        tokio::time::timeout(PATIENCE, self.child.wait())
            .await
            .expect("the process exits in time")
            .expect("wait for the process")
    }

    fn still_running(&mut self) -> bool {
        matches!(self.child.try_wait(), Ok(None))
    }

    fn signal(&self, signal: &str) {
        let pid = self.child.id().expect("a running child has a pid");
        let status = std::process::Command::new("kill")
            .arg(format!("-{signal}"))
            .arg(pid.to_string())
            .status()
            .expect("run kill");
        assert!(status.success(), "kill -{signal} {pid}");
    }
}

fn call_line(id: u64, tool: &str, arguments: Value) -> String {
    json!({
        "jsonrpc": "2.0", "id": id, "method": "tools/call",
        "params": { "name": tool, "arguments": arguments }
    })
    .to_string()
}

// ---------------------------------------------------------------------------------------
// A real client spawning the command.

#[tokio::test]
async fn rmcp_spawns_the_command_lists_calls_and_hears_list_changed() {
    // Arrange
    let server = MockMcpServer::builder()
        .tool(Tool::echo().expect(1))
        .start()
        .await;
    let (client, mut changes) =
        connect_over(spawn_rmcp(&server), client_config(), "a child process").await;

    // Act
    let names = tool_names(&client).await;
    let answer = call_ok(&client, "echo", json!({ "message": "through a child" })).await;
    server.add_tool(Tool::new("late")).expect("a new tool");
    changes.expect_one("add_tool").await;
    let after = tool_names(&client).await;

    // Assert: the child's session is the fixture's, named stdio in sessions and capture.
    assert_eq!(names, ["echo"]);
    assert_eq!(text(&answer), "through a child");
    assert_eq!(after, ["echo", "late"]);
    let sessions = server.sessions();
    assert_eq!(sessions.len(), 1);
    assert_eq!(sessions[0].transport, Transport::Stdio);
    let log = server.log();
    let records = log.mcp().records();
    assert!(records.iter().all(|(_, m)| m.transport == Transport::Stdio));
    assert!(records.iter().all(|(_, m)| m.carried_by.is_none()));
    assert_eq!(log.tool_calls("echo").len(), 1);
    assert_eq!(
        common::sent_by_server(&log, "notifications/tools/list_changed"),
        1
    );
    assert_server_messages_valid(&log);
    client.cancel().await.expect("close the client");
}

#[tokio::test]
async fn a_scripted_sampling_request_reaches_the_spawning_client() {
    // Arrange: the legacy era has server-to-client requests (2025-11-25 sampling).
    let server = MockMcpServer::builder()
        .tool(
            Tool::new("ask_model")
                .ask(
                    "reply",
                    AskMethod::Sampling,
                    json!({
                        "messages": [{ "role": "user", "content": { "type": "text", "text": "${args.prompt}" } }],
                        "maxTokens": 10
                    }),
                )
                .respond_with(json!({
                    "content": [{ "type": "text", "text": "model said ${answers.reply.content.text}" }]
                })),
        )
        .start()
        .await;
    let answers = Answers {
        capabilities: json!({ "sampling": {} }),
        sampling: Some(json!({
            "role": "assistant",
            "content": { "type": "text", "text": "Paris" },
            "model": "test-model"
        })),
        ..Answers::default()
    };
    let (client, mut heard) =
        connect_answering_over(spawn_rmcp(&server), answers, "a child process").await;

    // Act
    let result = call_with(
        &client,
        "ask_model",
        json!({ "prompt": "Capital of France?" }),
    )
    .await;

    // Assert
    assert_eq!(text(&result), "model said Paris");
    match heard.next("the sampling request").await {
        Heard::Asked { method, params } => {
            assert_eq!(method, "sampling/createMessage");
            assert_eq!(
                params["messages"][0]["content"]["text"],
                "Capital of France?"
            );
        }
        other => panic!("expected the sampling request, heard {other:?}"),
    }
    let log = server.log();
    let asked = log.mcp().method("sampling/createMessage").records();
    assert_eq!(asked.len(), 1);
    assert_eq!(asked[0].1.transport, Transport::Stdio);
    client.cancel().await.expect("close the client");
}

#[tokio::test]
async fn each_spawn_is_its_own_session() {
    let server = MockMcpServer::builder().tool(Tool::echo()).start().await;
    let (first, _a) = connect_over(spawn_rmcp(&server), client_config(), "child one").await;
    let (second, _b) = connect_over(spawn_rmcp(&server), client_config(), "child two").await;

    call_ok(&first, "echo", json!({ "message": "1" })).await;
    call_ok(&second, "echo", json!({ "message": "2" })).await;

    assert_eq!(server.sessions().len(), 2);
    first.cancel().await.expect("close the first");
    until("the first child's session ends", || {
        server.sessions().len() == 1
    })
    .await;
    second.cancel().await.expect("close the second");
}

#[tokio::test]
async fn a_modern_client_discovers_and_calls_statelessly_on_the_same_process() {
    // 2026-07-28: `server/discover` then a request carrying its version in `_meta`; no
    // session, no `initialize`.
    let server = MockMcpServer::builder().tool(Tool::echo()).start().await;
    let mut raw = Raw::spawn(&server);
    let meta = json!({
        "io.modelcontextprotocol/protocolVersion": "2026-07-28",
        "io.modelcontextprotocol/clientInfo": { "name": "raw", "version": "1" },
        "io.modelcontextprotocol/clientCapabilities": {}
    });

    raw.send(&json!({ "jsonrpc": "2.0", "id": 1, "method": "server/discover", "params": { "_meta": meta } }).to_string())
        .await;
    let discovered = raw.message().await;
    raw.send(
        &json!({
            "jsonrpc": "2.0", "id": 2, "method": "tools/call",
            "params": { "name": "echo", "arguments": { "message": "modern" }, "_meta": meta }
        })
        .to_string(),
    )
    .await;
    let called = raw.message().await;
    raw.send(INITIALIZE).await;
    let legacy = raw.message().await;

    assert!(
        discovered["result"]["supportedVersions"]
            .as_array()
            .is_some_and(|v| v.contains(&json!("2026-07-28"))),
        "{discovered}"
    );
    assert_eq!(called["result"]["content"][0]["text"], "modern", "{called}");
    assert_eq!(
        legacy["result"]["protocolVersion"], "2025-11-25",
        "{legacy}"
    );
    assert_eq!(
        server.sessions().len(),
        1,
        "only initialize opens a session"
    );
}

// ---------------------------------------------------------------------------------------
// stdio rules.

// stdio transport: "the client closes the input stream to the child process and waits for
// the server to exit". A call still running is cancelled, not waited for.
#[tokio::test]
async fn closing_stdin_ends_the_process_at_once_and_cancels_a_running_call() {
    let server = MockMcpServer::builder()
        .tool(Tool::echo())
        .fault(
            FaultRule::on_tool("echo")
                .delay(mcp_decoy::spec::Delay::fixed(Duration::from_secs(60))),
        )
        .start()
        .await;
    let mut raw = Raw::spawn(&server);
    raw.initialize().await;
    raw.send(&call_line(2, "echo", json!({ "message": "slow" })))
        .await;
    until("the call arrives", || {
        server.log().tool_calls("echo").len() == 1
    })
    .await;

    raw.close_stdin();
    let status = raw.exit_status().await;

    assert!(status.success(), "{status}");
    until("the session ends", || server.sessions().is_empty()).await;
    let log = server.log();
    let calls = log.mcp().method("tools/call").records();
    // The client hung up; it did not cancel the call (no `notifications/cancelled`).
    assert_eq!(
        calls[0].1.end,
        Some(RequestEnd::ConnectionClosed),
        "{:?}",
        calls[0].1
    );
}

#[tokio::test]
async fn bad_bytes_get_the_json_rpc_error_and_the_process_keeps_serving() {
    let server = MockMcpServer::builder()
        .tool(Tool::echo())
        .max_body_bytes(2048)
        .start()
        .await;
    let mut raw = Raw::spawn(&server);

    raw.send("this is not json").await;
    let not_json = raw.message().await;
    raw.send_bytes(b"{\"jsonrpc\":\"2.0\",\"id\":1,\"method\":\"ping\",\"x\":\"\xff\xfe\"}\n")
        .await;
    let not_utf8 = raw.message().await;
    raw.send(&format!(
        r#"{{"jsonrpc":"2.0","id":2,"method":"ping","params":{{"pad":"{}"}}}}"#,
        "x".repeat(4096)
    ))
    .await;
    let too_long = raw.message().await;
    raw.send(r#"{"hello":"world"}"#).await;
    let not_rpc = raw.message().await;
    raw.initialize().await;
    raw.send(&call_line(3, "echo", json!({ "message": "still here" })))
        .await;
    let served = raw.message().await;

    assert_eq!(not_json["error"]["code"], -32700, "{not_json}");
    assert_eq!(not_utf8["error"]["code"], -32700, "{not_utf8}");
    assert!(
        not_utf8["error"]["message"]
            .as_str()
            .is_some_and(|m| m.contains("UTF-8")),
        "{not_utf8}"
    );
    assert_eq!(too_long["error"]["code"], -32600, "{too_long}");
    assert_eq!(not_rpc["error"]["code"], -32600, "{not_rpc}");
    assert_eq!(served["result"]["content"][0]["text"], "still here");
    let invalid = server
        .log()
        .mcp()
        .records()
        .into_iter()
        .filter(|(_, m)| m.kind == mcp_decoy::log::RpcKind::Invalid)
        .count();
    assert!(invalid >= 2, "the unparsable lines are captured: {invalid}");
}

#[tokio::test]
async fn a_client_that_closes_stdout_ends_the_process_and_the_session() {
    let server = MockMcpServer::builder().tool(Tool::echo()).start().await;
    let mut raw = Raw::spawn(&server);
    raw.initialize().await;
    assert_eq!(server.sessions().len(), 1);

    // The client stops reading; the next write of the process fails (EPIPE).
    let Raw {
        mut child,
        mut stdin,
        stdout,
    } = raw;
    drop(stdout);
    if let Some(stdin) = stdin.as_mut() {
        let _ = stdin
            .write_all(format!("{}\n", call_line(2, "echo", json!({ "message": "x" }))).as_bytes())
            .await;
    }
    let status = tokio::time::timeout(PATIENCE, child.wait())
        .await
        .expect("the process exits once its stdout is gone")
        .expect("wait");

    assert!(status.success(), "{status}");
    until("the session ends", || server.sessions().is_empty()).await;
}

#[tokio::test]
async fn the_process_exits_when_its_fixture_drops() {
    let server = MockMcpServer::builder().tool(Tool::echo()).start().await;
    let mut raw = Raw::spawn_with_stderr(&server, Stdio::piped());
    raw.initialize().await;

    drop(server);
    let status = raw.exit_status().await;
    let mut stderr = String::new();
    if let Some(mut pipe) = raw.child.stderr.take() {
        let _ = pipe.read_to_string(&mut stderr).await;
    }

    assert_eq!(status.code(), Some(1), "{status}");
    assert!(stderr.contains("ended"), "{stderr}");
}

#[tokio::test]
async fn a_command_for_a_dropped_fixture_fails_saying_so() {
    let server = MockMcpServer::builder().start().await;
    let command = server.stdio_command_with(BINARY).expect("a command");
    drop(server);
    tokio::time::sleep(Duration::from_millis(100)).await;

    let output = tokio::process::Command::from(command)
        .stdin(Stdio::null())
        .output()
        .await
        .expect("run the command");

    assert_eq!(output.status.code(), Some(1));
    assert!(output.stdout.is_empty(), "nothing but JSON-RPC on stdout");
    let stderr = String::from_utf8_lossy(&output.stderr);
    assert!(stderr.contains("cannot reach"), "{stderr}");
}

/// A command's arguments, as text.
fn args_of(command: &std::process::Command) -> Vec<String> {
    command
        .get_args()
        .map(|a| a.to_string_lossy().into_owned())
        .collect()
}

#[tokio::test]
async fn a_wrong_token_is_refused_by_name() {
    let server = MockMcpServer::builder().start().await;
    let command = server.stdio_command_with(BINARY).expect("a command");
    let args = args_of(&command);

    let output = tokio::process::Command::new(BINARY)
        .args(&args)
        .env("MCP_DECOY_ATTACH_TOKEN", "0".repeat(32))
        .stdin(Stdio::null())
        .output()
        .await
        .expect("run the command");

    assert_eq!(output.status.code(), Some(1));
    let stderr = String::from_utf8_lossy(&output.stderr);
    assert!(stderr.contains("token does not match"), "{stderr}");
    assert!(server.sessions().is_empty());
}

/// Issue 41: 300 idle connections to the attach socket (no hello) locked the real bridge
/// out for as long as they stayed. Now they take no bridge's place, wait for their hello
/// only briefly, and past 32 the oldest is closed: the real child still attaches at once.
#[tokio::test]
async fn idle_connections_to_the_attach_socket_do_not_keep_a_bridge_out() {
    // Arrange: the socket's address, and 300 connections that never say hello.
    let server = MockMcpServer::builder().tool(Tool::echo()).start().await;
    let args = args_of(&server.stdio_command_with(BINARY).expect("a command"));
    let at = args
        .iter()
        .position(|a| a == "--attach")
        .and_then(|i| args.get(i + 1))
        .expect("the attach address")
        .clone();
    let mut idle = Vec::new();
    for _ in 0..300 {
        idle.push(
            tokio::net::TcpStream::connect(&at)
                .await
                .expect("a connection"),
        );
    }

    // Act: the real child, while they are all still open.
    let mut raw = Raw::spawn(&server);
    let attached = tokio::time::timeout(Duration::from_secs(1), raw.initialize()).await;

    // Assert: attached within a second, well inside the idle ones' hello time.
    assert!(
        attached.is_ok(),
        "the bridge was kept out by idle connections"
    );
    assert_eq!(server.sessions().len(), 1);
    drop(idle);
}

/// Issue 41: the attach token travels in the child's environment, not its command line,
/// which every local user can read (`/proc/PID/cmdline`, `ps`).
#[tokio::test]
async fn the_attach_token_is_in_the_environment_not_on_the_command_line() {
    // Arrange + Act
    let server = MockMcpServer::builder().start().await;
    let command = server.stdio_command_with(BINARY).expect("a command");

    // Assert
    let token = command
        .get_envs()
        .find(|(name, _)| *name == "MCP_DECOY_ATTACH_TOKEN")
        .and_then(|(_, value)| value)
        .map(|v| v.to_string_lossy().into_owned())
        .expect("the token in the environment");
    assert_eq!(token.len(), 32, "{token}");
    let args = args_of(&command);
    assert!(!args.iter().any(|a| a.contains(&token)), "{args:?}");
    assert!(!args.iter().any(|a| a == "--token"), "{args:?}");
}

/// A bridge without any token says where it belongs.
#[tokio::test]
async fn an_attach_without_a_token_says_where_it_goes() {
    let server = MockMcpServer::builder().start().await;
    let command = server.stdio_command_with(BINARY).expect("a command");
    let args = args_of(&command);

    let output = tokio::process::Command::new(BINARY)
        .args(&args)
        .env_remove("MCP_DECOY_ATTACH_TOKEN")
        .stdin(Stdio::null())
        .output()
        .await
        .expect("run the command");

    assert_eq!(output.status.code(), Some(2));
    let stderr = String::from_utf8_lossy(&output.stderr);
    assert!(stderr.contains("MCP_DECOY_ATTACH_TOKEN"), "{stderr}");
}

// ---------------------------------------------------------------------------------------
// stdio faults, one builder line each.

#[tokio::test]
async fn an_exit_fault_ends_the_process_with_its_status_mid_call() {
    let server = MockMcpServer::builder()
        .tool(Tool::echo())
        .fault(FaultRule::on_tool("echo").fault(Fault::exit(3)))
        .start()
        .await;
    let mut raw = Raw::spawn(&server);
    raw.initialize().await;

    raw.send(&call_line(2, "echo", json!({ "message": "boom" })))
        .await;
    let mut rest = String::new();
    let _ = tokio::time::timeout(PATIENCE, raw.stdout.read_to_string(&mut rest)).await;
    let status = raw.exit_status().await;

    assert_eq!(status.code(), Some(3), "{status}");
    assert!(rest.is_empty(), "no answer before the exit: {rest:?}");
    let log = server.log();
    let faults = log.faults();
    assert_eq!(faults.len(), 1);
    assert_eq!(faults[0].label, "exit 3");
    until("the session ends", || server.sessions().is_empty()).await;
}

#[tokio::test]
async fn rmcp_sees_the_process_die_mid_call() {
    let server = MockMcpServer::builder()
        .tool(Tool::echo())
        .fault(FaultRule::on_tool("echo").fault(Fault::exit(1)))
        .start()
        .await;
    let (client, _changes) =
        connect_over(spawn_rmcp(&server), client_config(), "a child process").await;

    let outcome = tokio::time::timeout(
        PATIENCE,
        client.call_tool(common::call("echo", json!({ "message": "x" }))),
    )
    .await
    .expect("rmcp notices the dead child in time");

    assert!(outcome.is_err(), "{outcome:?}");
}

#[tokio::test]
async fn a_split_message_arrives_in_two_writes_that_make_one_message() {
    let server = MockMcpServer::builder()
        .tool(Tool::echo())
        .fault(
            FaultRule::on_tool("echo")
                .times(1)
                .fault(Fault::split_message(Duration::from_millis(300))),
        )
        .start()
        .await;
    let mut raw = Raw::spawn(&server);
    raw.initialize().await;

    raw.send(&call_line(2, "echo", json!({ "message": "in two parts" })))
        .await;
    let mut first = vec![0u8; 64 * 1024];
    let n = tokio::time::timeout(PATIENCE, raw.stdout.read(&mut first))
        .await
        .expect("the first part in time")
        .expect("read stdout");
    first.truncate(n);
    let rest = raw.line().await;

    assert!(!first.is_empty() && !first.ends_with(b"\n"), "{first:?}");
    let whole = format!("{}{rest}", String::from_utf8_lossy(&first));
    let answer: Value = serde_json::from_str(&whole).expect("the parts make one message");
    assert_eq!(answer["result"]["content"][0]["text"], "in two parts");
    assert_eq!(server.log().faults()[0].label, "split_message 300 ms");
}

#[tokio::test]
async fn rmcp_reads_a_split_message_as_one() {
    let server = MockMcpServer::builder()
        .tool(Tool::echo())
        .fault(FaultRule::on_tool("echo").fault(Fault::split_message(Duration::from_millis(100))))
        .start()
        .await;
    let (client, _changes) =
        connect_over(spawn_rmcp(&server), client_config(), "a child process").await;

    let answer = call_ok(&client, "echo", json!({ "message": "whole" })).await;

    assert_eq!(text(&answer), "whole");
    client.cancel().await.expect("close the client");
}

#[tokio::test]
async fn a_stderr_flood_stalls_a_client_that_does_not_drain_stderr() {
    // 1 MiB is far past a pipe's buffer (64 KiB on Linux): the answer, written after the
    // flood, cannot come until the client reads stderr.
    let server = MockMcpServer::builder()
        .tool(Tool::echo())
        .fault(FaultRule::on_tool("echo").fault(Fault::stderr_flood(1024 * 1024)))
        .start()
        .await;
    let mut raw = Raw::spawn_with_stderr(&server, Stdio::piped());
    let mut stderr = raw.child.stderr.take().expect("piped stderr");
    raw.initialize().await;

    raw.send(&call_line(
        2,
        "echo",
        json!({ "message": "after the flood" }),
    ))
    .await;
    let mut probe = String::new();
    let stalled =
        tokio::time::timeout(Duration::from_millis(500), raw.stdout.read_line(&mut probe))
            .await
            .is_err();
    let drained = tokio::spawn(async move {
        let mut all = Vec::new();
        let _ = stderr.read_to_end(&mut all).await;
        all.len()
    });
    let answer = if probe.is_empty() {
        raw.message().await
    } else {
        serde_json::from_str(&probe).expect("JSON")
    };
    raw.close_stdin();
    let _ = raw.exit_status().await;
    let flooded = drained.await.expect("the stderr reader");

    assert!(
        stalled,
        "the answer came before stderr was drained: {probe:?}"
    );
    assert_eq!(answer["result"]["content"][0]["text"], "after the flood");
    assert!(flooded >= 1024 * 1024, "{flooded} bytes on stderr");
}

#[tokio::test]
async fn a_garbage_line_and_a_cut_line_then_the_process_serves_on() {
    let server = MockMcpServer::builder()
        .tool(Tool::echo())
        .fault(
            FaultRule::on_tool("echo")
                .times(1)
                .fault(Fault::MalformedJson),
        )
        .fault(
            FaultRule::on_tool("echo")
                .times(1)
                .fault(Fault::TruncatedStream),
        )
        .start()
        .await;
    let mut raw = Raw::spawn(&server);
    raw.initialize().await;

    raw.send(&call_line(2, "echo", json!({ "message": "a" })))
        .await;
    let garbage = raw.line().await;
    raw.send(&call_line(3, "echo", json!({ "message": "b" })))
        .await;
    let cut = raw.line().await;
    raw.send(&call_line(4, "echo", json!({ "message": "c" })))
        .await;
    let fine = raw.message().await;

    assert!(
        serde_json::from_str::<Value>(&garbage).is_err(),
        "{garbage}"
    );
    assert!(serde_json::from_str::<Value>(&cut).is_err(), "{cut}");
    assert_eq!(fine["result"]["content"][0]["text"], "c");
    let labels: Vec<String> = server.log().faults().into_iter().map(|f| f.label).collect();
    assert_eq!(labels, ["malformed_json", "truncated_stream"]);
}

#[tokio::test]
async fn a_hang_before_initialize_times_rmcp_out() {
    let server = MockMcpServer::builder()
        .fault(FaultRule::on_method("initialize").fault(Fault::HangingStream))
        .start()
        .await;
    let handler = client_config();

    let outcome = tokio::time::timeout(
        Duration::from_millis(500),
        rmcp::ServiceExt::serve(handler, spawn_rmcp(&server)),
    )
    .await;

    assert!(outcome.is_err(), "initialize was answered");
    until("the hang is captured", || {
        server.log().faults().first().map(|f| f.label.clone()) == Some("hanging_stream".into())
    })
    .await;
}

#[tokio::test]
async fn a_slow_start_holds_the_first_answer_back() {
    let server = MockMcpServer::builder()
        .tool(Tool::echo())
        .stdio_start_delay(Duration::from_millis(400))
        .start()
        .await;
    let started = Instant::now();
    let mut raw = Raw::spawn(&server);

    raw.initialize().await;

    assert!(
        started.elapsed() >= Duration::from_millis(400),
        "{:?}",
        started.elapsed()
    );
}

#[tokio::test]
async fn a_server_that_ignores_eof_needs_sigterm() {
    let server = MockMcpServer::builder()
        .tool(Tool::echo())
        .stdio_ignore_eof()
        .start()
        .await;
    let mut raw = Raw::spawn(&server);
    raw.initialize().await;

    raw.close_stdin();
    tokio::time::sleep(Duration::from_millis(500)).await;
    let ran_on = raw.still_running();
    raw.signal("TERM");
    let status = raw.exit_status().await;

    assert!(ran_on, "the process exited on EOF");
    assert!(!status.success(), "ended by the signal: {status}");
}

#[tokio::test]
async fn a_server_that_ignores_sigterm_needs_sigkill() {
    let server = MockMcpServer::builder()
        .stdio_ignore_eof()
        .stdio_ignore_sigterm()
        .start()
        .await;
    let mut raw = Raw::spawn(&server);
    raw.initialize().await;

    raw.close_stdin();
    raw.signal("TERM");
    tokio::time::sleep(Duration::from_millis(500)).await;
    let survived = raw.still_running();
    raw.signal("KILL");
    let status = raw.exit_status().await;

    assert!(survived, "SIGTERM stopped it");
    use std::os::unix::process::ExitStatusExt;
    assert_eq!(status.signal(), Some(9), "{status}");
}

#[tokio::test]
async fn rmcp_graceful_shutdown_escalates_to_sigterm() {
    // rmcp follows the stdio shutdown (2025-11-25 lifecycle, "stdio"): close stdin, wait
    // up to 3 s for the exit, then SIGTERM. A decoy that ignores EOF makes it go that far.
    let server = MockMcpServer::builder().stdio_ignore_eof().start().await;
    let mut child = spawn_rmcp(&server);
    let pid = child.id().expect("the child's pid");
    let started = Instant::now();

    let shutdown = tokio::time::timeout(PATIENCE, child.graceful_shutdown()).await;

    assert!(matches!(shutdown, Ok(Ok(()))), "{shutdown:?}");
    // EOF alone did not end it: rmcp waited out its whole grace period before escalating.
    assert!(
        started.elapsed() >= Duration::from_secs(3),
        "the process ended on EOF after {:?}, so no escalation was needed",
        started.elapsed()
    );
    assert!(
        !std::path::Path::new(&format!("/proc/{pid}")).exists(),
        "process {pid} is still there after the shutdown"
    );
}

// ---------------------------------------------------------------------------------------
// Cancellation, the modern era's input requests, stable transcripts.

// 2025-11-25 basic/utilities/cancellation: "The receiver SHOULD NOT send a response for the
// cancelled request".
#[tokio::test]
async fn notifications_cancelled_stops_a_running_call_and_the_next_one_is_served() {
    let server = MockMcpServer::builder()
        .tool(Tool::echo())
        .fault(
            FaultRule::on_tool("echo")
                .times(1)
                .delay(mcp_decoy::spec::Delay::fixed(Duration::from_secs(60))),
        )
        .start()
        .await;
    let mut raw = Raw::spawn(&server);
    raw.initialize().await;

    raw.send(&call_line(7, "echo", json!({ "message": "slow" })))
        .await;
    until("the call arrives", || {
        server.log().tool_calls("echo").len() == 1
    })
    .await;
    raw.send(r#"{"jsonrpc":"2.0","method":"notifications/cancelled","params":{"requestId":7}}"#)
        .await;
    raw.send(&call_line(8, "echo", json!({ "message": "next" })))
        .await;
    let answer = raw.message().await;

    assert_eq!(
        answer["id"], 8,
        "no answer for the cancelled call: {answer}"
    );
    assert_eq!(answer["result"]["content"][0]["text"], "next");
    let log = server.log();
    let calls = log.mcp().method("tools/call").records();
    assert!(
        calls[0].1.end == Some(RequestEnd::CancelledByClient) && calls[0].1.response.is_none(),
        "{:?}",
        calls[0].1
    );
}

// 2026-07-28 basic/patterns/mrtr: a modern request gets `input_required` instead of a
// server-to-client request, on stdio as over HTTP.
#[tokio::test]
async fn a_modern_ask_answers_input_required_and_sends_no_request_to_the_client() {
    let server = MockMcpServer::builder()
        .tool(
            Tool::new("ask_model")
                .ask(
                    "reply",
                    AskMethod::Sampling,
                    json!({ "messages": [{ "role": "user", "content": { "type": "text", "text": "hi" } }], "maxTokens": 5 }),
                )
                .respond_with(json!({ "content": [{ "type": "text", "text": "${answers.reply.content.text}" }] })),
        )
        .start()
        .await;
    let mut raw = Raw::spawn(&server);
    let meta = json!({
        "io.modelcontextprotocol/protocolVersion": "2026-07-28",
        "io.modelcontextprotocol/clientInfo": { "name": "raw", "version": "1" },
        "io.modelcontextprotocol/clientCapabilities": { "sampling": {} }
    });

    raw.send(
        &json!({
            "jsonrpc": "2.0", "id": 1, "method": "tools/call",
            "params": { "name": "ask_model", "arguments": {}, "_meta": meta }
        })
        .to_string(),
    )
    .await;
    let answer = raw.message().await;

    assert_eq!(
        answer["id"], 1,
        "the first line is the answer, no request: {answer}"
    );
    assert_eq!(answer["result"]["resultType"], "input_required", "{answer}");
    assert!(
        answer["result"]["inputRequests"]["reply"].is_object(),
        "{answer}"
    );
    assert_eq!(
        common::sent_by_server(&server.log(), "sampling/createMessage"),
        0
    );
}

#[tokio::test]
async fn the_transcript_of_a_stdio_session_is_the_same_on_every_run() {
    let mut transcripts = Vec::new();
    for _ in 0..5 {
        let server = MockMcpServer::builder().tool(Tool::echo()).start().await;
        let (client, _changes) =
            connect_over(spawn_rmcp(&server), client_config(), "a child process").await;
        tool_names(&client).await;
        call_ok(&client, "echo", json!({ "message": "stable" })).await;
        client.cancel().await.expect("close the client");
        until("the session ends", || server.sessions().is_empty()).await;
        transcripts
            .push(serde_json::to_value(server.log().transcript()).expect("the transcript is JSON"));
    }
    assert!(
        transcripts.windows(2).all(|w| w[0] == w[1]),
        "{transcripts:#?}"
    );
    insta::assert_json_snapshot!(transcripts[0]);
}
