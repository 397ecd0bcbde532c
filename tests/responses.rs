//! Tool responses seen by a real client (issue 5, "Matchers", "Sequences", "Presets"):
//! conditions on the arguments pick the answer, counted responses make sequences, each
//! response can carry an expectation checked on drop, presets compile to the same engine,
//! random delays reproduce under a seed, and bad specs are refused naming the field. After
//! every test that misbehaves on purpose, a fresh session still gets a normal answer.

mod common;

use std::panic::AssertUnwindSafe;
use std::time::Duration;

use common::{PATIENCE, call, call_ok, connect, text};
use mcp_decoy::matchers::{all, any, arg, args_eq, not, pointer};
use mcp_decoy::{Error, Fault, MockMcpServer, Response, Tool};
use rmcp::ServiceError;
use rmcp::model::CallToolResult;
use serde_json::{Value, json};

fn said(text: &str) -> Value {
    json!({ "content": [{ "type": "text", "text": text }] })
}

/// Calls `tool` expecting a JSON-RPC error; returns its code and message.
async fn call_err(client: &common::Client, tool: &str, arguments: Value) -> (i32, String) {
    let outcome = tokio::time::timeout(PATIENCE, client.call_tool(call(tool, arguments)))
        .await
        .unwrap_or_else(|_| panic!("tools/call {tool} took longer than {PATIENCE:?}"));
    match outcome {
        Err(ServiceError::McpError(error)) => (error.code.0, error.message.to_string()),
        other => panic!("tools/call {tool}: expected a JSON-RPC error, got {other:?}"),
    }
}

/// The response index the capture recorded for each `tools/call` of `tool`, oldest first.
fn picked(server: &MockMcpServer, tool: &str) -> Vec<Option<usize>> {
    let log = server.log();
    log.mcp()
        .method("tools/call")
        .name(tool)
        .records()
        .into_iter()
        .map(|(_, message)| message.response_index)
        .collect()
}

/// Faults never break the server: a new client on a new session still gets `echo`'s answer.
async fn a_fresh_session_still_gets_answers(server: &MockMcpServer) {
    let client = connect(&server.url()).await;
    let result = call_ok(&client, "echo", json!({ "message": "still here" })).await;
    assert_eq!(text(&result), "still here");
    client.cancel().await.expect("closing the fresh client");
}

fn assert_text(result: &CallToolResult, expected: &str) {
    assert_eq!(text(result), expected, "{result:?}");
}

// ---------------------------------------------------------------------------------------
// Matchers
// ---------------------------------------------------------------------------------------

#[tokio::test]
async fn each_matcher_kind_picks_its_response_in_order_and_the_template_is_the_fallback() {
    // Arrange
    let server = MockMcpServer::builder()
        .tool(
            Tool::new("lookup")
                .respond(Response::ok(said("exact")).when(args_eq(json!({ "id": 1 }))))
                .respond(Response::ok(said("paris")).when(arg("city").eq("Paris")))
                .respond(Response::ok(said("nested")).when(pointer("/filter/0/name").eq("price")))
                .respond(Response::ok(said("regex")).when(arg("q").matches("^sel(ect)?\\b")))
                .respond(Response::ok(said("big")).when(arg("n").gt(100)))
                .respond(Response::ok(said("small")).when(arg("n").le(0)))
                .respond(Response::ok(said("has token")).when(arg("token").present()))
                .respond_with(said("template")),
        )
        .tool(Tool::echo())
        .start()
        .await;
    let client = connect(&server.url()).await;

    // Act + Assert
    let cases = [
        (json!({ "id": 1 }), "exact"),
        (json!({ "id": 1.0 }), "exact"),
        (json!({ "id": 1, "city": "Paris" }), "paris"),
        (json!({ "filter": [{ "name": "price" }] }), "nested"),
        (json!({ "q": "select *" }), "regex"),
        (json!({ "q": "sel x" }), "regex"),
        (json!({ "q": "selection" }), "template"),
        (json!({ "n": 101 }), "big"),
        (json!({ "n": 100 }), "template"),
        (json!({ "n": -2.5 }), "small"),
        (json!({ "n": "101" }), "template"),
        (json!({ "token": null }), "has token"),
    ];
    for (arguments, expected) in &cases {
        let result = call_ok(&client, "lookup", arguments.clone()).await;
        assert_eq!(text(&result), *expected, "arguments {arguments}");
    }
    assert_eq!(
        picked(&server, "lookup"),
        [
            Some(0),
            Some(0),
            Some(1),
            Some(2),
            Some(3),
            Some(3),
            None,
            Some(4),
            None,
            Some(5),
            None,
            Some(6)
        ],
        "the capture names the response that answered"
    );
    client.cancel().await.expect("closing the client");
    common::schema::assert_server_messages_valid(&server.log());
}

#[tokio::test]
async fn all_and_any_groups_and_not_combine_conditions() {
    // Arrange
    let server = MockMcpServer::builder()
        .tool(
            Tool::new("order")
                .respond(
                    Response::ok(said("bulk discount"))
                        .when(all([arg("sku").matches("^PRO-"), arg("quantity").ge(100)])),
                )
                .respond(
                    Response::ok(said("weekend"))
                        .when(any([arg("day").eq("sat"), arg("day").eq("sun")])),
                )
                .respond(Response::ok(said("no coupon")).when(not(arg("coupon").present())))
                .respond_with(said("coupon ${args.coupon}")),
        )
        .tool(Tool::echo())
        .start()
        .await;
    let client = connect(&server.url()).await;

    // Act + Assert
    for (arguments, expected) in [
        (json!({ "sku": "PRO-1", "quantity": 100 }), "bulk discount"),
        (
            json!({ "sku": "PRO-1", "quantity": 99, "day": "sun" }),
            "weekend",
        ),
        (json!({ "sku": "STD-1", "quantity": 500 }), "no coupon"),
        (json!({ "day": "mon", "coupon": "X1" }), "coupon X1"),
    ] {
        let result = call_ok(&client, "order", arguments.clone()).await;
        assert_eq!(text(&result), expected, "arguments {arguments}");
    }
    client.cancel().await.expect("closing the client");
    common::schema::assert_server_messages_valid(&server.log());
}

// ---------------------------------------------------------------------------------------
// Sequences
// ---------------------------------------------------------------------------------------

#[tokio::test]
async fn fail_twice_then_succeed_and_the_last_response_repeats() {
    // Arrange
    let server = MockMcpServer::builder()
        .tool(Tool::new("fetch").sequence([
            Response::error(-32603, "backend unavailable").times(2),
            Response::ok(said("fetched ${args.url}")),
        ]))
        .tool(Tool::echo())
        .start()
        .await;
    let client = connect(&server.url()).await;
    let url = json!({ "url": "https://example.com" });

    // Act: a client that retries until it succeeds.
    let mut errors = Vec::new();
    let result = loop {
        match client.call_tool(call("fetch", url.clone())).await {
            Ok(result) => break result,
            Err(ServiceError::McpError(error)) if errors.len() < 5 => errors.push(error),
            Err(other) => panic!("fetch failed for another reason: {other}"),
        }
    };
    let again = call_ok(&client, "fetch", url.clone()).await;

    // Assert
    assert_eq!(
        errors.len(),
        2,
        "two failures before the success: {errors:?}"
    );
    assert!(
        errors
            .iter()
            .all(|e| e.code.0 == -32603 && e.message == "backend unavailable"),
        "{errors:?}"
    );
    assert_text(&result, "fetched https://example.com");
    assert_text(&again, "fetched https://example.com");
    assert_eq!(
        picked(&server, "fetch"),
        [Some(0), Some(0), Some(1), Some(1)]
    );
    let fired: Vec<String> = server.log().faults().into_iter().map(|f| f.label).collect();
    assert_eq!(fired, ["error -32603", "error -32603"]);
    client.cancel().await.expect("closing the client");
    common::schema::assert_server_messages_valid(&server.log());
    a_fresh_session_still_gets_answers(&server).await;
}

#[tokio::test]
async fn a_sequence_then_fallback_hands_over_to_the_template_and_the_first_call_is_slow() {
    // Arrange
    let server = MockMcpServer::builder()
        .tool(
            Tool::echo()
                .sequence([
                    Response::template().delay(Duration::from_millis(30)),
                    Response::tool_error("warming up"),
                ])
                .then_fallback(),
        )
        .start()
        .await;
    let client = connect(&server.url()).await;

    // Act
    let slow = call_ok(&client, "echo", json!({ "message": "one" })).await;
    let warming = call_ok(&client, "echo", json!({ "message": "two" })).await;
    let normal = call_ok(&client, "echo", json!({ "message": "three" })).await;

    // Assert
    assert_text(&slow, "one");
    assert_eq!(warming.is_error, Some(true));
    assert_text(&warming, "warming up");
    assert_text(&normal, "three");
    assert_eq!(picked(&server, "echo"), [Some(0), Some(1), None]);
    let fired: Vec<String> = server.log().faults().into_iter().map(|f| f.label).collect();
    assert_eq!(fired, ["delay 30 ms"], "only the first call waited");
    client.cancel().await.expect("closing the client");
    common::schema::assert_server_messages_valid(&server.log());
    a_fresh_session_still_gets_answers(&server).await;
}

#[tokio::test]
async fn replacing_a_tool_keeps_its_place_in_a_sequence_unless_its_responses_change() {
    // Arrange
    let sequence = || {
        Tool::new("step").sequence([
            Response::ok(said("first")),
            Response::ok(said("second")),
            Response::ok(said("rest")),
        ])
    };
    let server = MockMcpServer::builder()
        .tool(sequence())
        .tool(Tool::echo())
        .start()
        .await;
    let client = connect(&server.url()).await;
    assert_text(&call_ok(&client, "step", json!({})).await, "first");

    // Act + Assert: the same responses, a new title: the sequence goes on.
    server
        .replace_tool(sequence().title("Step"))
        .expect("step exists");
    assert_text(&call_ok(&client, "step", json!({})).await, "second");

    // Renamed: it still goes on.
    server.rename_tool("step", "pace").expect("step exists");
    assert_text(&call_ok(&client, "pace", json!({})).await, "rest");

    // Other responses: the sequence starts over.
    server
        .replace_tool(Tool::new("pace").sequence([
            Response::ok(said("new first")),
            Response::ok(said("new rest")),
        ]))
        .expect("pace exists");
    assert_text(&call_ok(&client, "pace", json!({})).await, "new first");
    assert_text(&call_ok(&client, "pace", json!({})).await, "new rest");
    client.cancel().await.expect("closing the client");
    common::schema::assert_server_messages_valid(&server.log());
}

// ---------------------------------------------------------------------------------------
// Expectations per response
// ---------------------------------------------------------------------------------------

#[tokio::test]
async fn met_response_expectations_let_the_server_drop_quietly() {
    // Arrange
    let server = MockMcpServer::builder()
        .tool(
            Tool::new("fetch")
                .respond(Response::error(-32603, "down").times(1).expect(1))
                .respond(
                    Response::ok(said("paris"))
                        .when(arg("city").eq("Paris"))
                        .expect(1..),
                )
                .respond(
                    Response::ok(said("never"))
                        .when(arg("city").eq("Atlantis"))
                        .expect(..=0),
                )
                .respond_with(said("other")),
        )
        .tool(Tool::echo())
        .start()
        .await;
    let client = connect(&server.url()).await;

    // Act
    call_err(&client, "fetch", json!({ "city": "Paris" })).await;
    call_ok(&client, "fetch", json!({ "city": "Paris" })).await;
    call_ok(&client, "fetch", json!({ "city": "Oslo" })).await;
    client.cancel().await.expect("closing the client");

    // Assert
    server.verify();
    common::schema::assert_server_messages_valid(&server.log());
    a_fresh_session_still_gets_answers(&server).await;
}

#[tokio::test]
#[should_panic(
    expected = "tool `fetch`, response #1 (`recovery`): expected exactly 2 call(s), received 1"
)]
async fn an_unmet_response_expectation_panics_on_drop_naming_the_tool_and_response() {
    // Arrange
    let server = MockMcpServer::builder()
        .tool(Tool::new("fetch").sequence([
            Response::error(-32603, "down"),
            Response::ok(said("up")).named("recovery").expect(2),
        ]))
        .start()
        .await;
    let client = connect(&server.url()).await;

    // Act
    call_err(&client, "fetch", json!({})).await;
    call_ok(&client, "fetch", json!({})).await;
    client.cancel().await.expect("closing the client");
    common::schema::assert_server_messages_valid(&server.log());

    // Assert: the drop at the end of the test panics.
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

#[tokio::test]
async fn verify_reports_every_unmet_response_with_the_calls_that_arrived() {
    // Arrange
    let server = MockMcpServer::builder()
        .name("shop")
        .tool(
            Tool::new("order")
                .respond(
                    Response::ok(said("bulk"))
                        .when(arg("quantity").gt(10))
                        .expect(..=1),
                )
                .respond(
                    Response::error(-32001, "sold out")
                        .when(arg("sku").eq("X"))
                        .expect(1),
                ),
        )
        .start()
        .await;
    let client = connect(&server.url()).await;
    call_ok(&client, "order", json!({ "quantity": 20 })).await;
    call_ok(&client, "order", json!({ "quantity": 30 })).await;

    // Act
    let report = panic_text(|| server.verify());

    // Assert
    assert!(
        report.contains("mcp-decoy server `shop` (started at tests/responses.rs:")
            && report.contains("): verification failed:"),
        "{report}"
    );
    assert!(
        report.contains("tool `order`, response #0: expected between 0 and 1 call(s), received 2"),
        "{report}"
    );
    assert!(
        report.contains("tool `order`, response #1: expected exactly 1 call(s), received 0"),
        "{report}"
    );
    assert!(
        report.contains(r#"tools/call order {"quantity":30} -> ok (response #0)"#),
        "the report lists the calls and which response answered each: {report}"
    );

    // Meet what can still be met, then let the drop check pass: the expect(..=1) stays broken,
    // so the drop must still panic, naming it alone.
    call_err(&client, "order", json!({ "sku": "X" })).await;
    client.cancel().await.expect("closing the client");
    let report = panic_text(move || drop(server));
    assert!(report.contains("tool `order`, response #0:"), "{report}");
    assert!(!report.contains("tool `order`, response #1:"), "{report}");
    assert!(
        report.contains(r#"{"sku":"X"} -> error -32001 (response #1)"#),
        "{report}"
    );
}

#[tokio::test]
async fn a_response_that_got_too_few_calls_says_which_condition_failed_at_which_pointer() {
    // Arrange: the test expects big searches; the client under test sends small ones.
    let server = MockMcpServer::builder()
        .name("shop")
        .tool(
            Tool::new("search")
                .respond(
                    Response::ok(said("many"))
                        .when(all([arg("query").present(), arg("limit").gt(100)]))
                        .named("big")
                        .expect(1..),
                )
                .respond(Response::ok(said("none")).when(arg("region").eq("eu")))
                .respond_with(said("fallback")),
        )
        .start()
        .await;
    let client = connect(&server.url()).await;

    // Act
    call_ok(&client, "search", json!({ "query": "rust", "limit": 5 })).await;
    call_ok(&client, "search", json!({ "limit": 500 })).await;
    client.cancel().await.expect("closing the client");
    let report = panic_text(move || drop(server));

    // Assert: each call the response did not answer, with the condition that failed, its
    // pointer and what was there, written as the test wrote the condition.
    let lines: Vec<&str> = report.lines().collect();
    let at = lines
        .iter()
        .position(|l| l.starts_with("- tool `search`, response #0 (`big`)"))
        .unwrap_or_else(|| panic!("the unmet response is reported: {report}"));
    assert_eq!(
        lines[at],
        "- tool `search`, response #0 (`big`): expected at least 1 call(s), received 0"
    );
    assert_eq!(lines[at + 1], "  calls received:");
    assert!(
        lines[at + 2].ends_with(r#"request tools/call search {"query":"rust","limit":5} -> ok"#),
        "{report}"
    );
    assert_eq!(
        lines[at + 3],
        r#"      response #0: `arg("limit").gt(100)` failed at /limit: 5 is not > 100"#
    );
    assert!(
        lines[at + 4].ends_with(r#"request tools/call search {"limit":500} -> ok"#),
        "{report}"
    );
    assert_eq!(
        lines[at + 5],
        r#"      response #0: `arg("query").present()` failed at /query: nothing there"#
    );
    assert_eq!(lines.len(), at + 6, "nothing else is reported: {report}");
}

#[tokio::test]
async fn a_response_that_got_too_many_calls_explains_no_condition() {
    // Arrange: a condition that holds for every call, expected at most once.
    let server = MockMcpServer::builder()
        .tool(
            Tool::new("search").respond(
                Response::ok(said("many"))
                    .when(arg("limit").gt(1))
                    .expect(..=1),
            ),
        )
        .start()
        .await;
    let client = connect(&server.url()).await;
    call_ok(&client, "search", json!({ "limit": 5 })).await;
    call_ok(&client, "search", json!({ "limit": 6 })).await;
    call_ok(&client, "search", json!({ "limit": 0 })).await;
    client.cancel().await.expect("closing the client");

    // Act
    let report = panic_text(move || drop(server));

    // Assert: too many is about the calls it answered; the one it did not answer is listed
    // without an explanation, which would only be noise here.
    assert!(
        report.contains("expected between 0 and 1 call(s), received 2"),
        "{report}"
    );
    assert!(report.contains(r#"{"limit":0} -> ok"#), "{report}");
    assert!(!report.contains("failed at"), "{report}");
}

// ---------------------------------------------------------------------------------------
// Presets
// ---------------------------------------------------------------------------------------

#[tokio::test]
async fn presets_answer_like_mock_mcp_studio_describes_them() {
    // Arrange
    let server = MockMcpServer::builder()
        .tool(Tool::fixed("price", said("costs ${price}, always")))
        .tool(
            Tool::new("forecast")
                .respond(
                    Response::ok(said("Sunny in ${args.city}"))
                        .when(arg("city").one_of(["Paris", "Nice"])),
                )
                .respond(
                    Response::ok(said("Too far ahead"))
                        .when(all([arg("days").gt(7), arg("days").lt(30)])),
                )
                .respond_with(said("Rain")),
        )
        .tool(Tool::failing(
            "lookup",
            Fault::error(-32603, "internal error"),
        ))
        .tool(Tool::failing(
            "search",
            Fault::http(503).with_header("Retry-After", "2"),
        ))
        .tool(Tool::echo())
        .start()
        .await;
    let client = connect(&server.url()).await;

    // Act + Assert: fixed, literally.
    let price = call_ok(&client, "price", json!({ "price": 3 })).await;
    assert_text(&price, "costs ${price}, always");

    // Conditional: ordered rules, then the fallback.
    let nice = call_ok(&client, "forecast", json!({ "city": "Nice" })).await;
    assert_text(&nice, "Sunny in Nice");
    let far = call_ok(&client, "forecast", json!({ "city": "Oslo", "days": 10 })).await;
    assert_text(&far, "Too far ahead");
    let other = call_ok(&client, "forecast", json!({ "city": "Oslo", "days": 1 })).await;
    assert_text(&other, "Rain");

    // Simulate failure: a JSON-RPC error, and an HTTP 503.
    let (code, message) = call_err(&client, "lookup", json!({})).await;
    assert_eq!((code, message.as_str()), (-32603, "internal error"));
    let outcome = tokio::time::timeout(PATIENCE, client.call_tool(call("search", json!({}))))
        .await
        .expect("search answers in time");
    assert!(outcome.is_err(), "a 503 is no result: {outcome:?}");
    let fired: Vec<(Option<String>, String)> = server
        .log()
        .faults()
        .into_iter()
        .map(|f| (f.name, f.label))
        .collect();
    assert_eq!(
        fired,
        [
            (Some("lookup".into()), "error -32603".into()),
            (Some("search".into()), "http 503".into())
        ]
    );
    let _ = client.cancel().await;
    a_fresh_session_still_gets_answers(&server).await;
}

#[tokio::test]
async fn a_preset_is_the_same_tool_spec_as_its_long_form() {
    let failing = Tool::failing("t", Fault::error(1, "x"));
    let long = Tool::new("t").respond(Response::fault(Fault::error(1, "x")));
    assert_eq!(failing.spec(), long.spec());
}

// ---------------------------------------------------------------------------------------
// Seeded random delays
// ---------------------------------------------------------------------------------------

/// The delays a server with `seed` gives six calls in a row, as the capture names them.
async fn delay_schedule(seed: u64) -> Vec<String> {
    let server = MockMcpServer::builder()
        .seed(seed)
        .tool(Tool::echo().respond(
            Response::template().random_delay(Duration::from_millis(1), Duration::from_millis(25)),
        ))
        .start()
        .await;
    let client = connect(&server.url()).await;
    for n in 0..6 {
        call_ok(&client, "echo", json!({ "message": format!("call {n}") })).await;
    }
    client.cancel().await.expect("closing the client");
    common::schema::assert_server_messages_valid(&server.log());
    server.log().faults().into_iter().map(|f| f.label).collect()
}

#[tokio::test]
async fn a_seeded_random_delay_reproduces_the_same_schedule_twice() {
    // Act
    let first = delay_schedule(7).await;
    let second = delay_schedule(7).await;
    let other = delay_schedule(8).await;

    // Assert
    assert_eq!(first.len(), 6, "every call waited: {first:?}");
    assert!(
        first.iter().all(|label| label.starts_with("delay ")),
        "{first:?}"
    );
    assert_eq!(first, second, "the same seed, the same schedule");
    assert_ne!(first, other, "another seed, another schedule");
}

// ---------------------------------------------------------------------------------------
// Bad specs
// ---------------------------------------------------------------------------------------

/// The error `try_start` returns for a server with `tool` (which must be refused).
async fn refused(tool: Tool) -> Error {
    match MockMcpServer::builder().tool(tool).try_start().await {
        Ok(_) => panic!("the server started with a bad response"),
        Err(error) => error,
    }
}

#[tokio::test]
async fn bad_responses_are_refused_at_start_naming_the_tool_and_field() {
    let cases = [
        (
            Tool::new("search").respond(Response::template().when(arg("q").matches("(unclosed"))),
            "tool `search`: `responses[0].when.regex.pattern` is not a valid regular expression",
        ),
        (
            Tool::new("search").respond(Response::template().when(pointer("q").present())),
            "tool `search`: `responses[0].when.present` `q` is not a JSON pointer",
        ),
        (
            Tool::new("search")
                .respond(Response::template())
                .respond(Response::template().times(0)),
            "tool `search`: `responses[1].times` must be at least 1",
        ),
        (
            Tool::new("search").respond(
                Response::template()
                    .random_delay(Duration::from_millis(50), Duration::from_millis(10)),
            ),
            "tool `search`: `responses[0].delay.min_ms` is 50, more than max_ms (10)",
        ),
        (
            Tool::new("search").respond(Response::ok(json!({ "$if": "1 +" }))),
            "tool `search`: `responses[0].result` does not parse",
        ),
    ];
    for (tool, expected) in cases {
        let error = refused(tool).await;
        assert!(matches!(error, Error::InvalidResponse { .. }), "{error:?}");
        assert!(error.to_string().starts_with(expected), "{error}");
    }
}

#[tokio::test]
async fn a_live_edit_with_a_bad_response_is_refused_and_changes_nothing() {
    // Arrange
    let server = MockMcpServer::builder().tool(Tool::echo()).start().await;

    // Act
    let error = server
        .add_tool(
            Tool::new("bad").respond(Response::template().when(not(any([arg("x").matches("[")])))),
        )
        .expect_err("a bad pattern");

    // Assert
    assert!(
        error
            .to_string()
            .contains("`responses[0].when.not.any[0].regex.pattern`"),
        "{error}"
    );
    assert_eq!(server.tools().len(), 1);
    a_fresh_session_still_gets_answers(&server).await;
}
