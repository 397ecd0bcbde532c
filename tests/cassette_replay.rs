//! Replaying cassettes with the rmcp client: a request that matches nothing fails loudly
//! (an error to the client, a drop report naming the nearest interaction and where they
//! differ), strict order, ignored pointers, `expect_all_used`, the modern era, bad files,
//! and a recording converted into an editable server.

mod common;

use std::panic::AssertUnwindSafe;

use common::recorded::{session, weather_server};
use common::{call, call_ok, connect};
use mcp_decoy::cassette::{Cassette, Matching};
use mcp_decoy::{MockMcpServer, MockMcpServerBuilder};
use serde_json::{Value, json};

/// A cassette of one rmcp session that calls `get_forecast` once per city, in order.
async fn forecasts(cities: &[Value]) -> Cassette {
    let server = weather_server().start().await;
    let client = connect(&server.url()).await;
    for arguments in cities {
        call_ok(&client, "get_forecast", arguments.clone()).await;
    }
    let _ = client.cancel().await;
    server.log().to_cassette()
}

/// The panic text of `f`, which must panic.
fn panic_text(f: impl FnOnce()) -> String {
    let payload = std::panic::catch_unwind(AssertUnwindSafe(f)).expect_err("it did not panic");
    payload
        .downcast_ref::<String>()
        .cloned()
        .or_else(|| payload.downcast_ref::<&str>().map(|s| s.to_string()))
        .expect("the panic payload is not text")
}

/// The JSON-RPC error message of a call that must fail.
async fn call_error(client: &common::Client, arguments: Value) -> String {
    match client.call_tool(call("get_forecast", arguments)).await {
        Ok(result) => panic!("the call was answered: {result:?}"),
        Err(error) => error.to_string(),
    }
}

async fn replay(builder: MockMcpServerBuilder) -> (MockMcpServer, common::Client) {
    let server = builder.start().await;
    let client = connect(&server.url()).await;
    (server, client)
}

#[tokio::test]
async fn a_changed_argument_gets_an_error_and_the_drop_report_names_the_nearest_interaction() {
    // Arrange
    let cassette = forecasts(&[
        json!({ "city": "Paris" }),
        json!({ "city": "Rome", "days": 3 }),
    ])
    .await;
    let (server, client) = replay(MockMcpServer::builder().replay(cassette)).await;

    // Act
    let error = call_error(&client, json!({ "city": "Oslo" })).await;
    let _ = client.cancel().await;

    // Assert: the client hears at once, the drop tells the whole story.
    assert!(
        error.contains("no recorded interaction matches this tools/call request")
            && error.contains(r#"nearest: interactions[0], which differs at /arguments/city: recorded "Paris", got "Oslo""#),
        "{error}"
    );
    let report = panic_text(|| drop(server));
    assert!(
        report.starts_with("mcp-decoy replay: 1 request(s) matched no recorded interaction:\n"),
        "{report}"
    );
    assert!(
        report.contains(
            "  - tools/call {\"name\":\"get_forecast\",\"arguments\":{\"city\":\"Oslo\"}}\n    nearest: interactions[0], which differs at /arguments/city: recorded \"Paris\", got \"Oslo\"\n"
        ),
        "{report}"
    );
    assert!(
        report.contains("the replay started at tests/cassette_replay.rs"),
        "{report}"
    );
}

#[tokio::test]
async fn strict_order_answers_only_the_interaction_that_is_due() {
    // Arrange
    let cassette = forecasts(&[json!({ "city": "Paris" }), json!({ "city": "Berlin" })]).await;
    let (any_order, client) = replay(MockMcpServer::builder().replay(cassette.clone())).await;
    // Control: in any order, Berlin first is fine.
    call_ok(&client, "get_forecast", json!({ "city": "Berlin" })).await;
    call_ok(&client, "get_forecast", json!({ "city": "Paris" })).await;
    let _ = client.cancel().await;
    drop(any_order);
    let (strict, client) = replay(
        MockMcpServer::builder()
            .replay(cassette)
            .matching(Matching::default().in_strict_order()),
    )
    .await;

    // Act
    let early = call_error(&client, json!({ "city": "Berlin" })).await;
    let paris = call_ok(&client, "get_forecast", json!({ "city": "Paris" })).await;
    let berlin = call_ok(&client, "get_forecast", json!({ "city": "Berlin" })).await;
    let again = call_error(&client, json!({ "city": "Berlin" })).await;
    let _ = client.cancel().await;

    // Assert
    assert!(
        early.contains("strict order: interactions[0] was due"),
        "{early}"
    );
    assert!(
        early.contains(r#"/arguments/city: recorded "Paris", got "Berlin""#),
        "{early}"
    );
    assert_eq!(common::text(&paris), "Forecast for Paris: 14°C");
    assert_eq!(common::text(&berlin), "Forecast for Berlin: 14°C");
    assert!(
        again.contains("nearest: interactions[1]"),
        "each answers once: {again}"
    );
    let report = panic_text(|| drop(strict));
    assert!(
        report.contains("2 request(s) matched no recorded interaction"),
        "{report}"
    );
}

#[tokio::test]
async fn ignored_pointers_do_not_decide_a_match() {
    let cassette =
        forecasts(&[json!({ "city": "Paris", "requestedAt": "2026-01-01T10:00:00Z" })]).await;
    let later = json!({ "city": "Paris", "requestedAt": "2026-03-09T17:45:12Z" });

    let relaxed = Matching::default().ignore("/arguments/requestedAt");
    let (server, client) = replay(
        MockMcpServer::builder()
            .replay(cassette.clone())
            .matching(relaxed),
    )
    .await;
    let answered = call_ok(&client, "get_forecast", later.clone()).await;
    let _ = client.cancel().await;
    drop(server);

    assert_eq!(common::text(&answered), "Forecast for Paris: 14°C");
    // Control: without the rule the time decides.
    let (server, client) = replay(MockMcpServer::builder().replay(cassette)).await;
    let error = call_error(&client, later).await;
    assert!(error.contains("/arguments/requestedAt"), "{error}");
    let _ = client.cancel().await;
    let _ = panic_text(|| drop(server));
}

#[tokio::test]
async fn expect_all_used_reports_the_interactions_no_request_used() {
    let cassette = forecasts(&[json!({ "city": "Paris" }), json!({ "city": "Lima" })]).await;
    let (server, client) =
        replay(MockMcpServer::builder().replay(cassette).expect_all_used()).await;

    call_ok(&client, "get_forecast", json!({ "city": "Paris" })).await;
    let _ = client.cancel().await;

    let report = panic_text(|| drop(server));
    assert!(
        report.contains(
            "mcp-decoy replay: 1 of 2 recorded interactions were never used:\n  - interactions[1]: tools/call {\"name\":\"get_forecast\",\"arguments\":{\"city\":\"Lima\"}}"
        ),
        "{report}"
    );
}

#[tokio::test]
async fn a_repeated_request_repeats_its_answer_in_any_order() {
    let cassette = forecasts(&[json!({ "city": "Paris" })]).await;
    let (server, client) =
        replay(MockMcpServer::builder().replay(cassette).expect_all_used()).await;

    for _ in 0..3 {
        let answer = call_ok(&client, "get_forecast", json!({ "city": "Paris" })).await;
        assert_eq!(common::text(&answer), "Forecast for Paris: 14°C");
    }
    let _ = client.cancel().await;
    server.verify();
}

#[tokio::test]
async fn a_modern_session_replays_its_discovery_and_calls() {
    // Arrange: a 2026-07-28 client (stateless, `server/discover`).
    let run = |url: String| async move {
        let transport = rmcp::transport::StreamableHttpClientTransport::from_uri(url);
        let client = rmcp::ClientServiceExt::serve_with_lifecycle(
            common::client_config(),
            transport,
            rmcp::ClientLifecycleMode::Discover {
                preferred_versions: vec![rmcp::model::ProtocolVersion::V_2026_07_28],
            },
        )
        .await
        .expect("a 2026-07-28 client discovers the server");
        let tools: Vec<String> = client
            .list_all_tools()
            .await
            .expect("tools/list")
            .into_iter()
            .map(|t| t.name.to_string())
            .collect();
        let answer = client
            .call_tool(call("get_forecast", json!({ "city": "Quito" })))
            .await
            .expect("tools/call");
        let info = client
            .peer_info()
            .and_then(|i| i.server_info.clone())
            .map(|s| s.name);
        let _ = client.cancel().await;
        (
            tools,
            serde_json::to_value(answer).unwrap_or_default(),
            info,
        )
    };
    let original = weather_server().start().await;
    let live = run(original.url()).await;
    let cassette = original.log().to_cassette();
    drop(original);

    // Act
    let server = MockMcpServer::builder()
        .replay(cassette.clone())
        .expect_all_used()
        .start()
        .await;
    let replayed = run(server.url()).await;

    // Assert
    assert_eq!(replayed, live);
    assert_eq!(live.1["content"][0]["text"], "Forecast for Quito: 14°C");
    assert!(cassette.server.discover.is_some(), "{}", cassette.to_json());
    assert_eq!(
        cassette.interactions[0].protocol_version.as_deref(),
        Some("2026-07-28")
    );
    assert_eq!(server.log().mcp().method("server/discover").count(), 1);
}

#[tokio::test]
async fn a_bad_cassette_file_fails_to_start_naming_the_field() {
    let dir = std::env::temp_dir().join(format!("mcp-decoy-bad-cassette-{}", std::process::id()));
    std::fs::create_dir_all(&dir).expect("scratch dir");
    let cases = [
        (
            r#"{ "version": 1, "interactions": [{ "request": { "metod": "tools/list" }, "response": { "result": {} } }] }"#,
            // The file's own text is never quoted (issue 41): the member it does not know is
            // found by its place and what was expected there.
            "`interactions[0].request`: unknown field `(…)`, expected `method` or `params` at line 1 column",
        ),
        (
            r#"{ "version": 2, "interactions": [] }"#,
            "`version`: is 2; this mcp-decoy reads cassettes of version 1",
        ),
        (
            r#"{ "version": 1, "interactions": [{ "request": { "method": "x" }, "response": { "error": { "code": "bad" } } }] }"#,
            "`interactions[0].response.error`: must be an object",
        ),
        (r#"{ "version": 1 } trailing"#, "trailing"),
    ];
    for (n, (text, expected)) in cases.iter().enumerate() {
        let path = dir.join(format!("bad-{n}.json"));
        std::fs::write(&path, text).expect("write");

        let error = MockMcpServer::from_cassette(&path)
            .try_start()
            .await
            .expect_err("a bad cassette starts nothing");

        let shown = error.to_string();
        assert!(
            shown.starts_with(&format!("cassette {}: ", path.display())),
            "{shown}"
        );
        assert!(shown.contains(expected), "{shown}");
    }
    let missing = MockMcpServer::from_cassette(dir.join("none.json"))
        .try_start()
        .await
        .expect_err("no file");
    assert!(missing.to_string().contains("none.json"), "{missing}");
    let bad_pointer = MockMcpServer::builder()
        .replay(Cassette::new())
        .matching(Matching::default().ignore("arguments/at"))
        .try_start()
        .await
        .expect_err("not a pointer");
    assert!(
        bad_pointer.to_string().contains("`replay.matching.ignore`"),
        "{bad_pointer}"
    );
    let _ = std::fs::remove_dir_all(&dir);
}

#[tokio::test]
async fn a_recording_becomes_an_editable_server() {
    // Arrange
    let original = weather_server().start().await;
    let live = session(&original.url()).await;
    let cassette = original.log().to_cassette();
    drop(original);

    // Act: convert, and start the result as plain data, as servers.json would.
    let spec = cassette.to_server_spec("weather-copy");
    let text = serde_json::to_string(&spec).expect("a ServerSpec serializes");
    let spec = serde_json::from_str(&text).expect("and reads back");
    let server = MockMcpServerBuilder::from_spec(spec).start().await;
    let client = connect(&server.url()).await;
    let known = call_ok(&client, "get_forecast", json!({ "city": "Paris" })).await;
    let tools = common::tool_names(&client).await;
    let _ = client.cancel().await;

    // Assert: the same tools and fixed answers.
    assert_eq!(
        serde_json::to_value(&known).unwrap_or_default(),
        live["forecast"]
    );
    assert_eq!(tools, ["get_forecast", "slow_report", "ask_model"]);
    let spec = cassette.to_server_spec("weather-copy");
    assert_eq!(spec.version, "2.1.0");
    assert_eq!(
        spec.instructions.as_deref(),
        Some("Ask for a city's forecast.")
    );
    assert_eq!(spec.resources[0].uri, "memo://readme");
    assert_eq!(spec.prompts[0].name, "greet");
    assert_eq!(spec.tools[0].input_schema["required"], json!(["city"]));
}
