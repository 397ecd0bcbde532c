//! `tools/call` of a tool answered by its 21st response, after 20 whose conditions do not hold
//! (argument equality, regex, numeric comparison, presence, an ALL group), against the same
//! call of a plain template tool and of a tool whose only response matches (the cost of
//! having responses at all), on one session of one fixture, in the same run (issue 5's
//! bench). Real loopback HTTP with reqwest, 1 or 16 requests in flight on pooled keep-alive
//! connections, the body read to its end.
//!
//! `cargo bench --bench responses`; debug: `cargo bench --profile dev --bench responses`.

mod common;

use std::hint::black_box;
use std::time::{Duration, Instant};

use criterion::{BenchmarkId, Criterion, Throughput, criterion_group, criterion_main};
use futures::StreamExt;
use mcp_decoy::matchers::{all, arg};
use mcp_decoy::spec::Matcher;
use mcp_decoy::{MockMcpServer, Tool, ToolResponse};
use serde_json::{Value, json};

use common::{runtime, session};

async fn call(client: &reqwest::Client, url: &str, session: &str, tool: &str) -> bytes::Bytes {
    let arguments = json!({"message": "hi", "city": "Paris", "days": 3});
    common::call(client, url, session, tool, arguments).await
}

/// The 20 conditions that do not hold for the bench's arguments, four of each kind.
fn misses() -> Vec<Matcher> {
    (0..4)
        .flat_map(|n| {
            [
                arg("city").eq(format!("Nowhere {n}")),
                arg("city").matches(format!("^Lyon{n}$")),
                arg("days").gt(10 + n),
                arg(&format!("missing_{n}")).present(),
                all([arg("city").eq("Paris"), arg("days").lt(n)]),
            ]
        })
        .collect()
}

fn matched_vs_plain(c: &mut Criterion) {
    let rt = runtime();
    let template = json!({"content": [{"type": "text", "text": "${args.message}"}]});
    let mut matched = Tool::new("matched").respond_with(template.clone());
    for (n, when) in misses().into_iter().enumerate() {
        let text = format!("miss {n}");
        matched = matched.respond(
            ToolResponse::ok(json!({"content": [{"type": "text", "text": text}]})).when(when),
        );
    }
    matched = matched.respond(ToolResponse::ok(template.clone()).when(arg("message").eq("hi")));
    let server = rt.block_on(
        MockMcpServer::builder()
            .tool(Tool::new("plain").respond_with(template.clone()))
            .tool(
                Tool::new("one").respond(ToolResponse::ok(template).when(arg("message").eq("hi"))),
            )
            .tool(matched)
            .log_limit(2 * TOOLS.len() * SERVER_SIDE_ROUNDS)
            .start(),
    );
    let client = reqwest::Client::builder()
        .no_proxy()
        .tcp_nodelay(true)
        .build()
        .expect("a client");
    let url = server.url();
    let session = rt.block_on(session(&client, &url));

    // Check what is measured: both answer the same result; the 21st response answered.
    let plain: Value =
        serde_json::from_slice(&rt.block_on(call(&client, &url, &session, "plain"))).unwrap();
    for tool in ["one", "matched"] {
        let answered: Value =
            serde_json::from_slice(&rt.block_on(call(&client, &url, &session, tool))).unwrap();
        assert_eq!(plain["result"], answered["result"], "{tool}: {answered}");
    }
    let log = server.log();
    let calls = log.mcp().method("tools/call").records();
    let (_, last) = calls.last().expect("a call");
    assert_eq!(last.response_index, Some(20), "{last:?}");

    let mut group = c.benchmark_group("responses");
    // One element per call: "thrpt" is requests/s, "time" is wall time per call.
    group.throughput(Throughput::Elements(1));
    for concurrency in [1usize, 16] {
        for tool in TOOLS {
            group.bench_with_input(
                BenchmarkId::new(tool, format!("c{concurrency}")),
                &concurrency,
                |b, &concurrency| {
                    b.to_async(&rt).iter_custom(|iters| {
                        let (client, url, session) = (&client, url.as_str(), session.as_str());
                        async move {
                            let started = Instant::now();
                            futures::stream::iter(0..iters)
                                .map(|_| call(client, url, session, tool))
                                .buffer_unordered(concurrency)
                                .for_each(|body| {
                                    black_box(body);
                                    async {}
                                })
                                .await;
                            started.elapsed()
                        }
                    })
                },
            );
        }
    }
    group.finish();

    // The server's own time per call (the capture's `durationMs`, request parsed to response
    // ready), the three tools interleaved so load from other processes hits them alike.
    // Steadier than the wall time above on a busy machine: no client, no wake-ups.
    server.clear_log();
    for _ in 0..SERVER_SIDE_ROUNDS {
        for tool in TOOLS {
            black_box(rt.block_on(call(&client, &url, &session, tool)));
        }
    }
    let log = server.log();
    for tool in TOOLS {
        let mut micros: Vec<f64> = log
            .mcp()
            .method("tools/call")
            .name(tool)
            .records()
            .into_iter()
            .filter_map(|(_, message)| message.duration_ms)
            .map(|ms| ms * 1_000.0)
            .collect();
        micros.sort_by(f64::total_cmp);
        let at = |q: f64| micros[((micros.len() - 1) as f64 * q) as usize];
        println!(
            "responses/{tool}/server_side  median {:.1} µs  (p10 {:.1}, p90 {:.1}, {} calls)",
            at(0.5),
            at(0.1),
            at(0.9),
            micros.len()
        );
    }
    drop(server);
}

/// The tools compared, in the order they are measured.
const TOOLS: [&str; 3] = ["plain", "one", "matched"];

/// Calls per tool for the server-side figures (two records each, within the log limit).
const SERVER_SIDE_ROUNDS: usize = 1_000;

fn config() -> Criterion {
    Criterion::default()
        .sample_size(30)
        .warm_up_time(Duration::from_secs(1))
        .measurement_time(Duration::from_secs(4))
}

criterion_group! { name = benches; config = config(); targets = matched_vs_plain }
criterion_main!(benches);
