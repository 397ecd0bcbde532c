//! `tools/call` through a relay against the same call sent straight to its upstream, in the
//! same run (issue 14's bench): what a relay adds per call (a second loopback hop, the
//! upstream's response read and recorded in both layers). The upstream is a decoy with a
//! template `echo`; real loopback HTTP with reqwest, one request in flight, the body read to
//! its end.
//!
//! `cargo bench --features relay --bench relay`; debug: add `--profile dev`.

mod common;

use std::hint::black_box;
use std::time::Duration;

use criterion::{Criterion, Throughput, criterion_group, criterion_main};
use mcp_decoy::{MockMcpServer, Tool};
use serde_json::json;

use common::{runtime, session};

/// The bench's one call: `echo` with `{"message": "hi"}`.
async fn call(client: &reqwest::Client, url: &str, session: &str) -> bytes::Bytes {
    common::call(client, url, session, "echo", json!({"message": "hi"})).await
}

fn relay_vs_direct(c: &mut Criterion) {
    let rt = runtime();
    let template = json!({"content": [{"type": "text", "text": "${args.message}"}]});
    let upstream = rt.block_on(
        MockMcpServer::builder()
            .tool(Tool::new("echo").respond_with(template))
            .log_limit(1_000)
            .start(),
    );
    let relay = rt.block_on(
        MockMcpServer::builder()
            .relay_to(upstream.url())
            .log_limit(1_000)
            .start(),
    );
    let client = reqwest::Client::builder()
        .no_proxy()
        .tcp_nodelay(true)
        .build()
        .expect("a client");

    let mut group = c.benchmark_group("relay");
    group.throughput(Throughput::Elements(1));
    for (name, server) in [("direct", &upstream), ("relayed", &relay)] {
        let url = server.url();
        let session = rt.block_on(session(&client, &url));
        // Check what is measured: the call is answered, and through the relay it was
        // recorded with the upstream's status.
        let body = rt.block_on(call(&client, &url, &session));
        assert!(
            body.starts_with(br#"{"jsonrpc":"2.0","id":1,"result""#),
            "{body:?}"
        );
        if name == "relayed" {
            let log = relay.log();
            let leg = log.http().last().and_then(|h| h.upstream.clone());
            assert_eq!(leg.and_then(|u| u.status), Some(200));
        }
        group.bench_function(name, |b| {
            b.to_async(&rt)
                .iter(|| async { black_box(call(&client, &url, &session).await) })
        });
    }
    group.finish();
}

fn config() -> Criterion {
    Criterion::default()
        .sample_size(30)
        .warm_up_time(Duration::from_secs(1))
        .measurement_time(Duration::from_secs(4))
}

criterion_group! {
    name = benches;
    config = config();
    targets = relay_vs_direct
}
criterion_main!(benches);
