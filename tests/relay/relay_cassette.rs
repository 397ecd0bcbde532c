//! Record through a relay, replay offline (issue 14, "Proof"): the rmcp client's session
//! with a real rmcp server, relayed and captured, becomes a cassette file; with the upstream
//! and the relay gone, a replay of that file gives the same client the same answers, and a
//! call the upstream never saw fails loudly.

use crate::common;

use common::upstream::{Mode, rmcp_upstream};
use common::{Answers, Heard, call, connect_answering};
use mcp_decoy::MockMcpServer;
use rmcp::model::{NumberOrString, ProgressToken, RequestMetaObject};
use serde_json::{Value, json};

/// The client's session: tools, an echo, and a call whose progress arrives on its stream.
async fn session(url: &str) -> Value {
    let (client, mut hearing) = connect_answering(url, Answers::default()).await;
    let tools = common::list_tools_with(&client).await;
    let echoed = common::call_with(&client, "echo", json!({ "message": "recorded" })).await;
    let mut work = call("work", json!({}));
    work.meta = Some(RequestMetaObject::with_progress_token(ProgressToken(
        NumberOrString::String("p-1".into()),
    )));
    let done = client.call_tool(work).await.expect("work answers");
    let progress = match hearing.next("the progress notification").await {
        Heard::Progress(params) => params["progress"].clone(),
        other => panic!("expected progress, got {other:?}"),
    };
    client.cancel().await.expect("the client closes");
    json!({
        "tools": tools,
        "echo": common::text(&echoed),
        "work": common::text(&done),
        "progress": progress,
    })
}

#[tokio::test]
async fn a_session_recorded_through_a_relay_replays_with_the_upstream_stopped() {
    // Arrange: the session through a relay to the rmcp upstream, saved as a file.
    let dir = std::env::temp_dir().join(format!("mcp-decoy-relay-cassette-{}", std::process::id()));
    std::fs::create_dir_all(&dir).expect("a scratch folder");
    let path = dir.join("upstream.cassette.json");
    let upstream = rmcp_upstream(Mode::StatefulSse).await;
    let relay = MockMcpServer::builder()
        .relay_to(&upstream.url)
        .start()
        .await;
    let live = session(&relay.url()).await;
    relay
        .log()
        .to_cassette()
        .save(&path)
        .expect("save the cassette");
    relay.shutdown().await;
    drop(upstream);

    // Act: the same client against a replay of the file, nothing upstream.
    let replay = MockMcpServer::from_cassette(&path).start().await;
    let replayed = session(&replay.url()).await;

    // Assert: what the client saw live, it sees replayed.
    assert_eq!(replayed, live);
    assert_eq!(live["echo"], "recorded");
    assert_eq!(live["work"], "done");
    assert_eq!(live["progress"], 50.0);
    let file = std::fs::read_to_string(&path).expect("the cassette file");
    assert!(!file.contains(&replay.url()), "no volatile URL in the file");

    // A call the upstream never answered is an error to the client, not a guess.
    let (client, _) = connect_answering(&replay.url(), Answers::default()).await;
    let missed = client
        .call_tool(call("echo", json!({ "message": "never recorded" })))
        .await;
    assert!(missed.is_err(), "{missed:?}");
    client.cancel().await.expect("the client closes");
    let _ = std::fs::remove_dir_all(&dir);
    // Drop reports the near miss: the recorded echo, and where the two differ.
    let report = std::panic::catch_unwind(std::panic::AssertUnwindSafe(|| drop(replay)))
        .expect_err("drop reports the unmatched call");
    let report = report.downcast_ref::<String>().cloned().unwrap_or_default();
    assert!(
        report.contains(
            r#"differs at /arguments/message: recorded "recorded", got "never recorded""#
        ),
        "{report}"
    );
}
