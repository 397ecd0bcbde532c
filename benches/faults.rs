//! `tools/call` on a server with 10 server-level fault rules, none of which matches the call
//! (other methods, another tool, an argument matcher that does not hold), against the same
//! call on a server without rules, in the same run (issue 5's bench). What a test pays for
//! fault rules it has but that do not fire. Real loopback HTTP with reqwest, one request in
//! flight, the body read to its end.
//!
//! `cargo bench --bench faults`; debug: `cargo bench --profile dev --bench faults`.

mod common;

use std::hint::black_box;
use std::time::Duration;

use criterion::{Criterion, Throughput, criterion_group, criterion_main};
use mcp_decoy::spec::Matcher;
use mcp_decoy::{Fault, FaultRule, MockMcpServer, MockMcpServerBuilder, Tool};
use serde_json::json;

use common::{runtime, session};

async fn call(client: &reqwest::Client, url: &str, session: &str) -> bytes::Bytes {
    common::call(client, url, session, "echo", json!({"message": "hi"})).await
}

/// Ten rules a `tools/call` of `echo` with `{"message": "hi"}` passes through: four on
/// other methods, four on another tool, two on `echo` whose matcher does not hold.
fn ten_rules(builder: MockMcpServerBuilder) -> MockMcpServerBuilder {
    let mut builder = builder;
    for method in ["tools/list", "resources/read", "prompts/get", "ping"] {
        builder = builder.fault(FaultRule::on_method(method).fault(Fault::http(503)));
    }
    for n in 0..4 {
        builder = builder.fault(
            FaultRule::on_tool("search")
                .skip(n)
                .fault(Fault::error(-32000, "down")),
        );
    }
    let not_hi = Matcher::Equals {
        pointer: "/message".into(),
        value: json!("bye"),
    };
    let long = Matcher::Regex {
        pointer: "/message".into(),
        pattern: "^.{10,}$".into(),
    };
    for matcher in [not_hi, long] {
        builder = builder.fault(
            FaultRule::on_tool("echo")
                .when(matcher)
                .fault(Fault::MalformedJson),
        );
    }
    builder
}

fn rules_vs_none(c: &mut Criterion) {
    let rt = runtime();
    let template = json!({"content": [{"type": "text", "text": "${args.message}"}]});
    let echo = || Tool::new("echo").respond_with(template.clone());
    let plain = rt.block_on(
        MockMcpServer::builder()
            .tool(echo())
            .log_limit(1_000)
            .start(),
    );
    let faulty = rt.block_on(
        ten_rules(MockMcpServer::builder())
            .tool(echo())
            .log_limit(1_000)
            .start(),
    );
    assert_eq!(faulty.fault_rules().len(), 10);
    let client = reqwest::Client::builder()
        .no_proxy()
        .tcp_nodelay(true)
        .build()
        .expect("a client");

    let mut group = c.benchmark_group("faults");
    group.throughput(Throughput::Elements(1));
    for (name, server) in [("no_rules", &plain), ("ten_rules", &faulty)] {
        let url = server.url();
        let session = rt.block_on(session(&client, &url));
        // Check what is measured: the call is answered, and no rule fired.
        let body = rt.block_on(call(&client, &url, &session));
        assert!(
            body.starts_with(br#"{"jsonrpc":"2.0","id":1,"result""#),
            "{body:?}"
        );
        assert!(server.log().faults().is_empty());
        group.bench_function(name, |b| {
            b.to_async(&rt)
                .iter(|| async { black_box(call(&client, &url, &session).await) })
        });
        assert!(
            server.log().faults().is_empty(),
            "no rule fired while measuring"
        );
    }
    group.finish();
}

fn config() -> Criterion {
    Criterion::default()
        .sample_size(30)
        .warm_up_time(Duration::from_secs(1))
        .measurement_time(Duration::from_secs(4))
}

criterion_group! { name = benches; config = config(); targets = rules_vs_none }
criterion_main!(benches);
