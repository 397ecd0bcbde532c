//! `Log::transcript` as a snapshot: one fixed rmcp session (initialize, list, call, then the
//! client closes its own session) recorded with insta, and a check that thirty runs of it
//! give the same transcript.
//!
//! The scenario is a client that runs its whole story and closes, as a user's client
//! function does, so nothing here waits for the server: rmcp opens its GET stream
//! concurrently with the list and the call, and on close it drops that stream and sends
//! `DELETE`, which the server may see first. The transcript's ordering rules make every one
//! of those arrival orders one transcript.

mod common;

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
const RUNS: usize = 200;

#[tokio::test(flavor = "multi_thread")]
async fn every_run_of_a_client_that_closes_its_own_session_gives_the_same_transcript() {
    // Arrange + Act: fresh servers, fresh clients, different ports and sessions.
    let first = initialize_list_call().await;
    for run in 2..=RUNS {
        let next = initialize_list_call().await;

        // Assert: whole transcripts, every layer; JSON text so a failure shows a diff.
        let pretty = |t: &Transcript| serde_json::to_string_pretty(t).expect("JSON");
        assert_eq!(pretty(&next), pretty(&first), "run {run} of {RUNS} differs");
    }
    assert!(!first.entries().is_empty());
}
