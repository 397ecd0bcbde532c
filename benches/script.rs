//! `tools/call` of a tool with a 3-step script (progress, log, result) answered over an SSE
//! stream, against the same call of a plain tool answered as JSON, on one session of one
//! fixture, in the same run (issue 3's bench). Real loopback HTTP with reqwest; each call
//! carries a progress token, so the scripted one sends a progress and a log notification
//! before its result, and the body is read to its end.
//!
//! `cargo bench --bench script`; debug: `cargo bench --profile dev --bench script`.

mod common;

use std::hint::black_box;
use std::time::Duration;

use criterion::{Criterion, Throughput, criterion_group, criterion_main};
use mcp_decoy::spec::LogLevel;
use mcp_decoy::{MockMcpServer, Tool};
use serde_json::json;

use common::{runtime, session};

/// One call; returns the body, which for the scripted tool holds three SSE events.
async fn call(client: &reqwest::Client, url: &str, session: &str, tool: &str) -> bytes::Bytes {
    let params =
        json!({"name": tool, "arguments": {"message": "hi"}, "_meta": {"progressToken": 7}});
    common::call_with(client, url, session, params).await
}

fn scripted_vs_plain(c: &mut Criterion) {
    let rt = runtime();
    let template = json!({"content": [{"type": "text", "text": "${args.message}"}]});
    let server = rt.block_on(
        MockMcpServer::builder()
            .tool(Tool::new("plain").respond_with(template.clone()))
            .tool(
                Tool::new("scripted")
                    .progress(50.0, Some(100.0), None)
                    .log(LogLevel::Info, "halfway")
                    .respond_with(template),
            )
            .log_limit(1_000)
            .start(),
    );
    let client = reqwest::Client::builder()
        .no_proxy()
        .tcp_nodelay(true)
        .build()
        .expect("a client");
    let url = server.url();
    let session = rt.block_on(session(&client, &url));

    // Check what is measured: the scripted call streams progress, log, then the result.
    let scripted = rt.block_on(call(&client, &url, &session, "scripted"));
    let text = String::from_utf8_lossy(&scripted);
    let progress = text
        .find("notifications/progress")
        .expect("a progress event");
    let log = text.find("notifications/message").expect("a log event");
    let result = text.find("\"result\"").expect("the result event");
    assert!(progress < log && log < result, "{text}");
    let plain = rt.block_on(call(&client, &url, &session, "plain"));
    assert!(plain.starts_with(b"{"), "the plain call answers JSON");

    let mut group = c.benchmark_group("script");
    group.throughput(Throughput::Elements(1));
    for tool in ["plain", "scripted"] {
        group.bench_function(tool, |b| {
            b.to_async(&rt)
                .iter(|| async { black_box(call(&client, &url, &session, tool).await) })
        });
    }
    group.finish();
    drop(server);
}

fn config() -> Criterion {
    Criterion::default()
        .sample_size(30)
        .warm_up_time(Duration::from_secs(1))
        .measurement_time(Duration::from_secs(4))
}

criterion_group! { name = benches; config = config(); targets = scripted_vs_plain }
criterion_main!(benches);
