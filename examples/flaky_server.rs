//! A flaky server for trying a client's retry logic by hand: `search` answers the first two
//! calls with `503 Service Unavailable` (and `Retry-After: 1`), then works; every call of
//! `search` also takes 50-250 ms, drawn from a seeded generator, so the pauses are the same
//! run after run.
//!
//! The first line of standard output is the MCP URL, so scripts can read it; the server runs
//! until Ctrl+C or SIGTERM, summarising each JSON-RPC message on standard error:
//!
//! ```sh
//! cargo run --example flaky_server            # a free port
//! cargo run --example flaky_server -- 6280    # a fixed port
//! cargo run --example flaky_server -- --demo  # an rmcp client retries against it, then exit
//! ```
//!
//! The demo is the retry loop a client needs (rmcp reports the status and `Retry-After` of
//! the refused POST, and the session stays usable):
//!
//! ```text
//! attempt 1: HTTP 503 (Retry-After: 1)
//! attempt 2: HTTP 503 (Retry-After: 1)
//! attempt 3: Found 3 results for "rust"
//! faults that fired: ["delay 215 ms, http 503", "delay 152 ms, http 503", "delay 171 ms"]
//! ```
//!
//! `tests/fixture/faults.rs` (`a_client_that_retries_on_503_succeeds_on_the_third_attempt`) pins the
//! same scenario.

mod common;

use std::net::{Ipv4Addr, SocketAddr};
use std::time::Duration;

use mcp_decoy::spec::Delay;
use mcp_decoy::{Fault, FaultRule, MockMcpServer, MockMcpServerBuilder, Tool};
use serde_json::json;

/// The flaky server: `search` fails twice with 503, and is a bit slow every time.
fn flaky(port: u16) -> MockMcpServerBuilder {
    let slow = Delay::between(Duration::from_millis(50), Duration::from_millis(250));
    MockMcpServer::builder()
        .name("flaky")
        .seed(2024)
        .tool(
            Tool::new("search")
                .description("Searches the catalogue; fails twice before it works.")
                .input_schema(json!({
                    "type": "object",
                    "properties": { "q": { "type": "string" } },
                    "required": ["q"]
                }))
                .respond_with(json!({
                    "content": [{ "type": "text", "text": "Found 3 results for \"${args.q}\"" }]
                })),
        )
        .fault(
            FaultRule::on_tool("search")
                .times(2)
                .delay(slow)
                .fault(Fault::http(503).with_header("Retry-After", "1")),
        )
        .fault(FaultRule::on_tool("search").delay(slow))
        .bind(SocketAddr::from((Ipv4Addr::LOCALHOST, port)))
}

#[tokio::main(flavor = "current_thread")]
async fn main() {
    let mut port = 0;
    let mut demo = false;
    for arg in std::env::args().skip(1) {
        match arg.as_str() {
            "--demo" => demo = true,
            other => match other.parse::<u16>() {
                Ok(number) => port = number,
                Err(_) => {
                    eprintln!(
                        "usage: flaky_server [PORT] [--demo]  (PORT must be a number from 0 to 65535, got `{other}`)"
                    );
                    std::process::exit(2);
                }
            },
        }
    }
    let server = match flaky(port).try_start().await {
        Ok(server) => server,
        Err(error) => {
            eprintln!("flaky_server: {error}");
            std::process::exit(1);
        }
    };
    if demo {
        if let Err(error) = retry_demo(&server).await {
            eprintln!("flaky_server: the demo failed: {error}");
            std::process::exit(1);
        }
        return;
    }
    common::serve(server).await;
}

/// An rmcp client that retries `search` on 503, waiting as `Retry-After` says.
async fn retry_demo(server: &MockMcpServer) -> Result<(), Box<dyn std::error::Error>> {
    use rmcp::ServiceExt;
    use rmcp::model::{
        CallToolRequestParams, ClientCapabilities, ClientConfig, Implementation, ProtocolVersion,
    };
    use rmcp::transport::StreamableHttpClientTransport;

    let config = ClientConfig::new(
        ClientCapabilities::default(),
        Implementation::new("retry-demo", "1.0.0"),
    )
    .with_protocol_version(ProtocolVersion::LATEST_WITH_INITIALIZE);
    let transport = StreamableHttpClientTransport::from_uri(server.url());
    let client = config.serve(transport).await?;
    let arguments = json!({ "q": "rust" });
    let arguments = arguments.as_object().cloned().unwrap_or_default();
    for attempt in 1..=5 {
        let request = CallToolRequestParams::new("search").with_arguments(arguments.clone());
        match client.call_tool(request).await {
            Ok(result) => {
                let text = result
                    .content
                    .first()
                    .and_then(|c| c.as_text())
                    .map(|t| t.text.clone())
                    .unwrap_or_default();
                println!("attempt {attempt}: {text}");
                break;
            }
            Err(error) => {
                let Some((status, retry_after)) = http_status(&error) else {
                    return Err(error.into());
                };
                let wait = retry_after
                    .as_deref()
                    .and_then(|s| s.parse().ok())
                    .unwrap_or(1);
                let shown = retry_after.as_deref().unwrap_or("none");
                println!("attempt {attempt}: HTTP {status} (Retry-After: {shown})");
                tokio::time::sleep(Duration::from_secs(wait)).await;
            }
        }
    }
    let fired: Vec<String> = server.log().faults().into_iter().map(|f| f.label).collect();
    println!("faults that fired: {fired:?}");
    client.cancel().await?;
    Ok(())
}

/// The HTTP status and `Retry-After` of a POST that rmcp saw refused, if that is the error.
fn http_status(error: &rmcp::ServiceError) -> Option<(u16, Option<String>)> {
    use rmcp::transport::streamable_http_client::StreamableHttpError;
    let rmcp::ServiceError::TransportSend(sent) = error else {
        return None;
    };
    match sent
        .error
        .downcast_ref::<StreamableHttpError<reqwest::Error>>()?
    {
        StreamableHttpError::HttpStatus(status) => {
            Some((status.status, status.retry_after.clone()))
        }
        _ => None,
    }
}
