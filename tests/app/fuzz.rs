//! Fuzzing of the app's REST API (issue 13, "Proof"): random bodies on every write route of
//! one running app, which must answer each with a 2xx or a 4xx problem (never a 5xx or a
//! dropped connection), keep `servers.json` valid, and keep serving its MCP endpoint.
//! `PROPTEST_CASES` sets the round (CI: 64, each case is a few HTTP requests to a process).

use crate::common::app_process;

use std::sync::OnceLock;
use std::time::Duration;

use app_process::{Running, Scratch};
use proptest::prelude::*;
use proptest::test_runner::TestRunner;
use serde_json::Value;

fn runtime() -> &'static tokio::runtime::Runtime {
    static RUNTIME: OnceLock<tokio::runtime::Runtime> = OnceLock::new();
    RUNTIME.get_or_init(|| tokio::runtime::Runtime::new().expect("a runtime"))
}

fn http() -> &'static reqwest::Client {
    static HTTP: OnceLock<reqwest::Client> = OnceLock::new();
    HTTP.get_or_init(|| {
        reqwest::Client::builder()
            .timeout(Duration::from_secs(10))
            .build()
            .expect("a client")
    })
}

fn json_value() -> impl Strategy<Value = Value> {
    let leaf = prop_oneof![
        Just(Value::Null),
        any::<bool>().prop_map(Value::from),
        any::<i32>().prop_map(Value::from),
        "[a-z_${}().]{0,10}".prop_map(Value::from),
        prop::sample::select(vec!["echo", "t", "${args.x}", "memo://{id}", "text/plain"])
            .prop_map(Value::from),
    ];
    leaf.prop_recursive(3, 24, 5, |inner| {
        prop_oneof![
            prop::collection::vec(inner.clone(), 0..3).prop_map(Value::Array),
            prop::collection::vec(
                (
                    prop::sample::select(vec![
                        "name",
                        "title",
                        "description",
                        "template",
                        "published",
                        "inputSchema",
                        "annotations",
                        "uri",
                        "uriTemplate",
                        "text",
                        "blob",
                        "mimeType",
                        "arguments",
                        "messages",
                        "tools",
                        "resources",
                        "prompts",
                        "auth",
                        "responses",
                        "faults",
                        "script",
                        "validateArguments",
                        "content",
                        "x",
                    ]),
                    inner,
                ),
                0..5,
            )
            .prop_map(|e| Value::Object(e.into_iter().map(|(k, v)| (k.to_owned(), v)).collect())),
        ]
    })
}

#[test]
fn rest_bodies_get_a_2xx_or_a_problem() {
    // One app for the whole round, stopped when the test ends (a static would outlive it).
    let dir = Scratch::new("fuzz-rest");
    let app = Running::start(dir.path());
    let file = dir.path().join("servers.json");
    let cases = std::env::var("PROPTEST_CASES")
        .ok()
        .and_then(|c| c.parse().ok())
        .unwrap_or(64);
    let config = ProptestConfig {
        cases,
        failure_persistence: None,
        ..ProptestConfig::default()
    };
    let mut runner = TestRunner::new(config);
    let routes = prop::sample::select(vec![
        ("POST", "/servers"),
        ("PATCH", "/servers/echo"),
        ("POST", "/servers/echo/tools"),
        ("PATCH", "/servers/echo/tools/echo"),
        ("POST", "/servers/echo/resources"),
        ("POST", "/servers/echo/resource-templates"),
        ("POST", "/servers/echo/prompts"),
        ("PATCH", "/servers/echo/auth"),
    ]);
    let result = runner.run(&(routes, json_value()), |((method, path), body)| {
        let outcome: Result<(), String> = runtime().block_on(async {
            let url = format!("{}{path}", app.api());
            let verb = reqwest::Method::from_bytes(method.as_bytes()).map_err(|e| e.to_string())?;
            let reply = http()
                .request(verb, &url)
                .bearer_auth(&app.api_token)
                .json(&body)
                .send()
                .await
                .map_err(|e| format!("no answer: {e}"))?;
            if reply.status().is_server_error() {
                return Err(format!(
                    "{}: {}",
                    reply.status(),
                    reply.text().await.unwrap_or_default()
                ));
            }
            // The echo server may have been renamed or edited; the app must still answer.
            let root = http()
                .get(app.api())
                .bearer_auth(&app.api_token)
                .send()
                .await
                .map_err(|e| format!("the API stopped answering: {e}"))?;
            if root.status() != 200 {
                return Err(format!("GET /api/v1: {}", root.status()));
            }
            // Whatever the write did, servers.json still loads as at start-up.
            let text = std::fs::read_to_string(&file).map_err(|e| format!("servers.json: {e}"))?;
            let document: Value =
                serde_json::from_str(&text).map_err(|e| format!("servers.json is torn: {e}"))?;
            mcp_decoy::cli::config::check(&document)
                .map_err(|problems| format!("servers.json is invalid: {problems:?}"))?;
            Ok(())
        });
        prop_assert!(outcome.is_ok(), "{method} {path} {body}: {outcome:?}");
        Ok(())
    });
    if let Err(failure) = result {
        panic!("{failure}");
    }
}
