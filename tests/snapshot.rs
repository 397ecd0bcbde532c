//! `Log::transcript` as a snapshot: one fixed rmcp session (initialize, list, call, then the
//! client closes its own session) recorded with insta, and a check that thirty runs of it
//! give the same transcript.
//!
//! The scenario is a client that runs its whole story and closes, as a user's client
//! function does, so nothing here waits for the server: rmcp opens its GET stream
//! concurrently with the list and the call, and on close it drops that stream and sends
//! `DELETE`, which the server may see first. The transcript's ordering rules make every one
//! of those arrival orders one transcript. A raw client then plays each fate that GET can
//! meet, one by one, so the rule is proven without waiting for the race to show.

mod common;
#[path = "common/wire.rs"]
mod wire;

use mcp_decoy::log::Transcript;
use mcp_decoy::{MockMcpServer, Tool};
use serde_json::json;

use common::{call_ok, connect, text, tool_names};

/// Runs the scenario on a fresh server and returns its transcript.
async fn initialize_list_call() -> Transcript {
    // Arrange: everything that shows in the transcript is fixed here, including the
    // versions, so neither this crate's nor rmcp's version changes the snapshot.
    let server = MockMcpServer::builder()
        .name("weather")
        .version("1.0.0")
        .instructions("Ask for a city's forecast.")
        .tool(
            Tool::new("get_forecast")
                .description("Get the forecast for a city")
                .input_schema(json!({
                    "type": "object",
                    "properties": { "city": { "type": "string" } },
                    "required": ["city"]
                }))
                .read_only(true)
                .respond_with(json!({
                    "content": [{ "type": "text", "text": "Forecast for ${args.city}: 14°C, light rain" }]
                })),
        )
        .start()
        .await;

    // Act: the client's whole story, closed by the client itself.
    let client = connect(&server.url()).await;
    let names = tool_names(&client).await;
    let result = call_ok(&client, "get_forecast", json!({ "city": "Oslo" })).await;
    client.cancel().await.expect("closing the client");
    let transcript = server.log().transcript();
    common::schema::assert_server_messages_valid(&server.log());

    // The scenario itself went as planned, so the snapshot records a working session.
    assert_eq!(names, ["get_forecast"]);
    assert_eq!(text(&result), "Forecast for Oslo: 14°C, light rain");
    transcript
}

#[tokio::test]
async fn transcript_of_a_session_the_client_closes() {
    let transcript = initialize_list_call().await;

    insta::assert_json_snapshot!(transcript);
}

/// How many runs must agree: issue 12's Proof asks for 200, and the old arrival-order
/// transcript (15 differing runs in 100) could not pass them (about 15 s in a debug build).
/// `MCP_DECOY_TRANSCRIPT_RUNS` asks for more (`benches/contention.sh` runs 1,000 with every
/// core busy).
const RUNS: usize = 200;

#[tokio::test(flavor = "multi_thread")]
async fn every_run_of_a_client_that_closes_its_own_session_gives_the_same_transcript() {
    let runs = std::env::var("MCP_DECOY_TRANSCRIPT_RUNS")
        .ok()
        .map(|n| {
            n.parse::<usize>()
                .unwrap_or_else(|_| panic!("MCP_DECOY_TRANSCRIPT_RUNS={n:?} is not a count"))
        })
        .unwrap_or(RUNS);
    // Arrange + Act: fresh servers, fresh clients, different ports and sessions; every run
    // is compared, so a failure counts all that differ.
    let pretty = |t: &Transcript| serde_json::to_string_pretty(t).expect("JSON");
    let first = pretty(&initialize_list_call().await);
    let mut differing: Vec<(usize, String)> = Vec::new();
    for run in 2..=runs {
        let next = pretty(&initialize_list_call().await);
        if next != first {
            differing.push((run, next));
        }
    }
    eprintln!("{runs} runs, {} differing transcripts", differing.len());

    // Assert: whole transcripts, every layer; the first that differs shown beside run 1.
    if let Some((run, next)) = differing.first() {
        let runs_differing: Vec<usize> = differing.iter().map(|(run, _)| *run).collect();
        panic!(
            "{} of {runs} runs differ from run 1 ({runs_differing:?}); run {run}:\n{next}\nrun 1:\n{first}",
            differing.len()
        );
    }
    assert!(first.contains("tools/call"), "{first}");
}

/// What became of the client's idle GET stream in one run: the ways the race between that
/// stream and the client's `DELETE` can end.
#[derive(Debug, Clone, Copy)]
enum Fate {
    /// It reached the server first and was open until the `DELETE` ended it.
    Opened,
    /// It reached the server after the `DELETE` was answered: `404`.
    AfterTheDelete,
    /// Its connection ended right after its head reached the server.
    HungUp,
    /// The client dropped it before it was sent.
    NeverSent,
}

/// A raw client's story (initialize, one call, DELETE) with its GET meeting `fate`, held by
/// the client until that fate is sure; the transcript once the DELETE is answered.
async fn story_with_a_get_that(fate: Fate) -> Transcript {
    let server = MockMcpServer::builder()
        .name("weather")
        .version("1.0.0")
        .tool(Tool::new("get_forecast").respond_with(json!({
            "content": [{ "type": "text", "text": "Forecast for ${args.city}: 14°C" }]
        })))
        .start()
        .await;
    let at = wire::authority(&server.url());
    let mut posts = wire::Wire::connect(&at).await;
    let session = wire::initialize(&mut posts).await;
    let headers = [
        ("mcp-session-id", session.as_str()),
        ("mcp-protocol-version", "2025-11-25"),
    ];
    let mut stream = wire::Wire::connect(&at).await;
    let get = stream.session_get_text(&session);
    match fate {
        Fate::Opened => {
            stream.send(get.as_bytes()).await;
            assert_eq!(stream.head().await.status, 200, "the GET stream opens");
        }
        Fate::HungUp => {
            stream.send_and_hang_up(get.as_bytes()).await;
            server
                .wait_for(|log| log.http().method("GET").count() == 1, wire::PATIENCE)
                .await
                .expect("the GET is recorded");
        }
        Fate::AfterTheDelete | Fate::NeverSent => {}
    }
    posts
        .post_json(
            "/mcp",
            &headers,
            r#"{"jsonrpc":"2.0","id":2,"method":"tools/call","params":{"name":"get_forecast","arguments":{"city":"Oslo"}}}"#,
        )
        .await;
    let call = posts.response().await;
    assert!(call.body.contains("Forecast for Oslo"), "{call:?}");
    posts.request("DELETE", "/mcp", &headers, "").await;
    assert_eq!(posts.head().await.status, 200, "DELETE");
    if let Fate::AfterTheDelete = fate {
        stream.send(get.as_bytes()).await;
        assert_eq!(stream.head().await.status, 404, "the GET after the DELETE");
        server
            .wait_for(|log| log.http().status(404).count() == 1, wire::PATIENCE)
            .await
            .expect("the refused GET is recorded");
    }
    let log = server.log();
    match fate {
        Fate::NeverSent => log.http().method("GET").assert_count(0),
        _ => log.http().method("GET").assert_count(1),
    }
    log.transcript()
}

/// Issue 40: each fate the race can give the client's idle GET stream, played on purpose,
/// gives the transcript of the others (a GET whose connection ended right after its head
/// used to leave no record, and so a different transcript).
#[cfg(target_os = "linux")]
#[tokio::test]
async fn every_fate_of_an_idle_get_that_races_the_delete_gives_one_transcript() {
    // Arrange + Act
    let mut transcripts = Vec::new();
    for fate in [
        Fate::NeverSent,
        Fate::Opened,
        Fate::AfterTheDelete,
        Fate::HungUp,
    ] {
        transcripts.push((fate, story_with_a_get_that(fate).await));
    }

    // Assert: the same transcript, which holds the call and the DELETE.
    let pretty = |t: &Transcript| serde_json::to_string_pretty(t).expect("JSON");
    let (_, first) = &transcripts[0];
    for (fate, transcript) in &transcripts[1..] {
        assert_eq!(pretty(transcript), pretty(first), "{fate:?}");
    }
    let requests: Vec<String> = first
        .entries()
        .iter()
        .filter_map(|e| match serde_json::to_value(e).expect("JSON") {
            serde_json::Value::Object(e) => e.get("request").map(|r| r.to_string()),
            _ => None,
        })
        .collect();
    assert_eq!(
        requests,
        [
            r#""POST /mcp""#,
            r#""POST /mcp""#,
            r#""POST /mcp""#,
            r#""DELETE /mcp""#
        ],
        "{}",
        pretty(first)
    );
}
