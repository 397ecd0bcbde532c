//! The README's first example, run as a test, and a check that the README shows this
//! file's code as it is (a `#[tokio::test]` does not run as a doctest).

use mcp_decoy::{MockMcpServer, Tool};
use rmcp::ServiceExt;
use rmcp::model::{CallToolRequestParams, ClientCapabilities, ClientConfig, Implementation};
use rmcp::transport::StreamableHttpClientTransport;
use serde_json::json;

#[tokio::test]
async fn the_client_asks_for_the_forecast_once() {
    // Arrange: a decoy with one tool that must be called exactly once.
    let server = MockMcpServer::builder()
        .name("weather")
        .tool(
            Tool::new("get_forecast")
                .description("Get the forecast for a city")
                .input_schema(json!({"type": "object", "properties": {"city": {"type": "string"}}}))
                .respond_with(json!({"content": [{"type": "text", "text": "Forecast for ${args.city}: 14°C"}]}))
                .expect(1),
        )
        .start()
        .await;

    // Act: the client under test (here rmcp itself) talks to `server.url()`.
    let client = ClientConfig::new(
        ClientCapabilities::default(),
        Implementation::new("my-client", "1.0.0"),
    )
    .serve(StreamableHttpClientTransport::from_uri(server.url()))
    .await
    .expect("the client connects");
    let args = json!({"city": "Oslo"})
        .as_object()
        .cloned()
        .expect("an object");
    let result = client
        .call_tool(CallToolRequestParams::new("get_forecast").with_arguments(args))
        .await
        .expect("the call succeeds");
    client
        .cancel()
        .await
        .expect("the client closes its session");

    // Assert: on what the client got and on what the server saw.
    assert_eq!(
        result.content[0].as_text().map(|t| t.text.as_str()),
        Some("Forecast for Oslo: 14°C")
    );
    let calls = server.log().tool_calls("get_forecast");
    assert_eq!(calls[0].arguments["city"], "Oslo");
    // The whole conversation, ids, session ids, times and ports normalised, the same on
    // every run: `insta::assert_json_snapshot!(server.log().transcript());`
    assert!(!server.log().transcript().entries().is_empty());
} // dropping `server` stops it and checks `.expect(1)`, naming this file and line if not met

// ---- the README's example ends here ----

#[test]
fn the_readme_shows_this_test_as_it_is() {
    let readme = include_str!("../README.md");
    let this = include_str!("readme.rs");
    let start = this
        .find("use mcp_decoy")
        .expect("the example's first line");
    let end = this
        .find("\n// ---- the README's example ends here")
        .expect("the marker");
    let example = &this[start..end];
    assert!(
        readme.contains(&format!("```rust,ignore\n{example}```")),
        "README.md's first example differs from tests/readme.rs; copy the file's example into it"
    );
}
