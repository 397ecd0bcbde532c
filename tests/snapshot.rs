//! `Log::transcript` as a snapshot: one fixed rmcp session (initialize, list, call) recorded
//! with insta, and a check that two runs of it give the same transcript.
//!
//! rmcp opens its GET event stream right after `notifications/initialized`, concurrently
//! with whatever the test does next. The scenario waits until the server has recorded that
//! GET before it lists tools, so the GET always sits at the same place in the transcript.
//! The transcript is taken before the client closes: closing races the DELETE against the
//! end of the GET stream, and their order is not the client's story.

mod common;

use mcp_decoy::log::Transcript;
use mcp_decoy::{MockMcpServer, Tool};
use serde_json::json;

use common::{PATIENCE, call_ok, connect, text, tool_names};

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

    // Act
    let client = connect(&server.url()).await;
    server
        .wait_for(
            |log| {
                log.http()
                    .method("GET")
                    .filter(|h| h.status.is_some())
                    .count()
                    == 1
            },
            PATIENCE,
        )
        .await
        .expect("rmcp opened no GET stream");
    let names = tool_names(&client).await;
    let result = call_ok(&client, "get_forecast", json!({ "city": "Oslo" })).await;
    let transcript = server.log().transcript();
    client.cancel().await.expect("closing the client");
    common::schema::assert_server_messages_valid(&server.log());

    // The scenario itself went as planned, so the snapshot records a working session.
    assert_eq!(names, ["get_forecast"]);
    assert_eq!(text(&result), "Forecast for Oslo: 14°C, light rain");
    transcript
}

#[tokio::test]
async fn transcript_of_initialize_list_and_call() {
    let transcript = initialize_list_call().await;

    insta::assert_json_snapshot!(transcript);
}

#[tokio::test(flavor = "multi_thread")]
async fn two_runs_of_one_scenario_give_the_same_transcript() {
    // Arrange + Act: two fresh servers, two fresh clients, different ports and sessions.
    let first = initialize_list_call().await;
    let second = initialize_list_call().await;

    // Assert
    assert!(!first.entries().is_empty());
    assert_eq!(first, second);
}
