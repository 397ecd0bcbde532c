//! `tools/call` answered by a replayed cassette against the same call of a hand-built
//! fixture with the same tool, on one session each, in the same run (issue 14's bench). The
//! cassette is recorded from the fixture itself: 20 calls for 20 cities (`replay_20`), or 200
//! (`replay_200`), so a call's match is found among that many recorded interactions of its
//! method. Real loopback HTTP with reqwest, 1 or 16 requests in flight on pooled keep-alive
//! connections, the body read to its end.
//!
//! `cargo bench --bench replay`; debug: `cargo bench --profile dev --bench replay`.

mod common;

use std::hint::black_box;
use std::time::{Duration, Instant};

use criterion::{BenchmarkId, Criterion, Throughput, criterion_group, criterion_main};
use futures::StreamExt;
use mcp_decoy::cassette::Cassette;
use mcp_decoy::{MockMcpServer, Tool};
use serde_json::{Value, json};

use common::{runtime, session};

/// The bench's one call: `get_forecast` for `city`.
async fn call(client: &reqwest::Client, url: &str, session: &str, city: &str) -> bytes::Bytes {
    let arguments = json!({"city": city, "days": 3});
    common::call(client, url, session, "get_forecast", arguments).await
}

fn fixture() -> mcp_decoy::MockMcpServerBuilder {
    MockMcpServer::builder()
        .tool(Tool::new("get_forecast").respond_with(
            json!({"content": [{"type": "text", "text": "Forecast for ${args.city}: 14°C"}]}),
        ))
        .log_limit(4 * SERVER_SIDE_ROUNDS)
}

/// The city the bench asks for: the last one recorded, so the match is found last.
fn city(n: usize) -> String {
    format!("City {n}")
}

/// A cassette of `calls` calls of the fixture, one per city.
fn record(rt: &tokio::runtime::Runtime, client: &reqwest::Client, calls: usize) -> Cassette {
    let server = rt.block_on(fixture().start());
    let url = server.url();
    let session = rt.block_on(session(client, &url));
    for n in 0..calls {
        black_box(rt.block_on(call(client, &url, &session, &city(n))));
    }
    server.log().to_cassette()
}

fn replay_vs_fixture(c: &mut Criterion) {
    let rt = runtime();
    let client = reqwest::Client::builder()
        .no_proxy()
        .tcp_nodelay(true)
        .build()
        .expect("a client");
    let mut servers = vec![("fixture", rt.block_on(fixture().start()), city(19))];
    for calls in [20, 200] {
        let cassette = record(&rt, &client, calls);
        let server = rt.block_on(
            MockMcpServer::builder()
                .replay(cassette)
                .log_limit(4 * SERVER_SIDE_ROUNDS)
                .start(),
        );
        let name = if calls == 20 {
            "replay_20"
        } else {
            "replay_200"
        };
        servers.push((name, server, city(calls - 1)));
    }
    let sessions: Vec<(&str, String, String, String)> = servers
        .iter()
        .map(|(name, server, city)| {
            let url = server.url();
            let session = rt.block_on(session(&client, &url));
            (*name, url, session, city.clone())
        })
        .collect();

    // Check what is measured: every server answers the same result for its city.
    for (name, url, session, city) in &sessions {
        let answer: Value =
            serde_json::from_slice(&rt.block_on(call(&client, url, session, city))).unwrap();
        assert_eq!(
            answer["result"]["content"][0]["text"],
            format!("Forecast for {city}: 14°C"),
            "{name}: {answer}"
        );
    }

    let mut group = c.benchmark_group("replay");
    group.throughput(Throughput::Elements(1));
    for concurrency in [1usize, 16] {
        for (name, url, session, city) in &sessions {
            group.bench_with_input(
                BenchmarkId::new(*name, format!("c{concurrency}")),
                &concurrency,
                |b, &concurrency| {
                    b.to_async(&rt).iter_custom(|iters| {
                        let (client, url, session, city) =
                            (&client, url.as_str(), session.as_str(), city.as_str());
                        async move {
                            let started = Instant::now();
                            futures::stream::iter(0..iters)
                                .map(|_| call(client, url, session, city))
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

    // The server's own time per call (the capture's `durationMs`), the servers interleaved
    // so load from other processes hits them alike.
    for (_, server, _) in &servers {
        server.clear_log();
    }
    for _ in 0..SERVER_SIDE_ROUNDS {
        for (_, url, session, city) in &sessions {
            black_box(rt.block_on(call(&client, url, session, city)));
        }
    }
    for (name, server, _) in &servers {
        let mut micros: Vec<f64> = server
            .log()
            .mcp()
            .method("tools/call")
            .records()
            .into_iter()
            .filter_map(|(_, message)| message.duration_ms)
            .map(|ms| ms * 1_000.0)
            .collect();
        micros.sort_by(f64::total_cmp);
        let at = |q: f64| micros[((micros.len() - 1) as f64 * q) as usize];
        println!(
            "replay/{name}/server_side  median {:.1} µs  (p10 {:.1}, p90 {:.1}, {} calls)",
            at(0.5),
            at(0.1),
            at(0.9),
            micros.len()
        );
    }
    drop(servers);
}

/// Calls per server for the server-side figures (two records each, within the log limit).
const SERVER_SIDE_ROUNDS: usize = 1_000;

fn config() -> Criterion {
    Criterion::default()
        .sample_size(30)
        .warm_up_time(Duration::from_secs(1))
        .measurement_time(Duration::from_secs(4))
}

criterion_group! { name = benches; config = config(); targets = replay_vs_fixture }
criterion_main!(benches);
