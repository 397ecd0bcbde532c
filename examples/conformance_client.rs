//! An MCP client written to the conformance suite's client contract, on rmcp: the server URL
//! is its last argument, the scenario is in `MCP_CONFORMANCE_SCENARIO`. It does what each
//! scenario asks (`initialize`: connect and close; `tools_call`: call `add_numbers`), so
//! `mcp-decoy check-client -- target/debug/examples/conformance_client` grades it, as the
//! suite's own CLI would.
//!
//! ```sh
//! cargo build --example conformance_client
//! cargo run --features decoy-cli -- check-client -- target/debug/examples/conformance_client
//! ```

use rmcp::ServiceExt;
use rmcp::model::{CallToolRequestParams, ClientCapabilities, ClientConfig, Implementation};
use rmcp::transport::StreamableHttpClientTransport;
use serde_json::json;

#[tokio::main(flavor = "current_thread")]
async fn main() {
    let (Some(url), Ok(scenario)) = (
        std::env::args().skip(1).last(),
        std::env::var("MCP_CONFORMANCE_SCENARIO"),
    ) else {
        eprintln!("usage: conformance_client URL, with MCP_CONFORMANCE_SCENARIO set");
        std::process::exit(2);
    };
    if let Err(error) = run(&url, &scenario).await {
        eprintln!("conformance_client: {scenario}: {error}");
        std::process::exit(1);
    }
}

async fn run(url: &str, scenario: &str) -> Result<(), Box<dyn std::error::Error>> {
    let client = ClientConfig::new(
        ClientCapabilities::default(),
        Implementation::new("conformance-client", "1.0.0"),
    )
    .with_protocol_version(rmcp::model::ProtocolVersion::V_2025_11_25)
    .serve(StreamableHttpClientTransport::from_uri(url.to_string()))
    .await?;
    match scenario {
        "initialize" => {}
        "tools_call" | "tools-call" => {
            let arguments = json!({ "a": 5, "b": 3 }).as_object().cloned();
            let mut call = CallToolRequestParams::new("add_numbers");
            if let Some(arguments) = arguments {
                call = call.with_arguments(arguments);
            }
            let result = client.call_tool(call).await?;
            let text = result.content.first().and_then(|c| c.as_text());
            println!("{}", text.map(|t| t.text.as_str()).unwrap_or_default());
        }
        other => return Err(format!("no handler for scenario `{other}`").into()),
    }
    client.cancel().await?;
    Ok(())
}
