//! The session the cassette tests record and replay: one rmcp client that lists and calls
//! tools (one with progress, one that asks the client's model), reads a resource and gets
//! a prompt, and the mock server it first runs against. What the client saw comes back as
//! JSON, so a replay can be compared with the recording.

use std::time::Duration;

use mcp_decoy::spec::AskMethod;
use mcp_decoy::{MockMcpServer, MockMcpServerBuilder, Prompt, PromptArgument, Resource, Tool};
use rmcp::model::{GetPromptRequestParams, ReadResourceRequestParams};
use serde_json::{Value, json};

use super::{Answers, Heard, PATIENCE, call_with, connect_answering};

/// The recorded server: a forecast tool, a tool that reports progress, one that asks the
/// client's model, a resource and a prompt.
pub fn weather_server() -> MockMcpServerBuilder {
    MockMcpServer::builder()
        .name("weather")
        .version("2.1.0")
        .instructions("Ask for a city's forecast.")
        .tool(
            Tool::new("get_forecast")
                .description("The forecast of a city.")
                .input_schema(json!({
                    "type": "object",
                    "properties": { "city": { "type": "string" }, "requestedAt": { "type": "string" } },
                    "required": ["city"]
                }))
                .respond_with(json!({ "content": [{ "type": "text", "text": "Forecast for ${args.city}: 14°C" }] })),
        )
        .tool(
            Tool::new("slow_report")
                .progress(1.0, Some(2.0), Some("halfway"))
                .delay(Duration::from_millis(20))
                .progress(2.0, Some(2.0), None)
                .respond_with(json!({ "content": [{ "type": "text", "text": "report ready" }] })),
        )
        .tool(
            Tool::new("ask_model")
                .ask(
                    "reply",
                    AskMethod::Sampling,
                    json!({
                        "messages": [{ "role": "user", "content": { "type": "text", "text": "${args.prompt}" } }],
                        "maxTokens": 50
                    }),
                )
                .respond_with(json!({ "content": [{ "type": "text", "text": "model said ${answers.reply.content.text}" }] })),
        )
        .resource(Resource::text("memo://readme", "Bring an umbrella."))
        .prompt(
            Prompt::new("greet")
                .argument(PromptArgument::new("name"))
                .respond_with(json!([{ "role": "user", "content": { "type": "text", "text": "Hello ${args.name}" } }])),
        )
}

/// The client's answers: it has a model that says `Paris`.
pub fn answers() -> Answers {
    Answers {
        capabilities: json!({ "sampling": {} }),
        sampling: Some(json!({
            "role": "assistant",
            "content": { "type": "text", "text": "Paris" },
            "model": "test-model",
            "stopReason": "endTurn"
        })),
        ..Answers::default()
    }
}

/// Runs the session against `url` and returns what the client saw.
pub async fn session(url: &str) -> Value {
    let (client, mut heard) = connect_answering(url, answers()).await;
    let tools = within(client.list_all_tools()).await;
    let forecast = call_with(&client, "get_forecast", json!({ "city": "Paris" })).await;
    let report = call_with(&client, "slow_report", json!({})).await;
    let asked = call_with(
        &client,
        "ask_model",
        json!({ "prompt": "Capital of France?" }),
    )
    .await;
    let resources = within(client.list_all_resources()).await;
    let readme =
        within(client.read_resource(ReadResourceRequestParams::new("memo://readme"))).await;
    let prompts = within(client.list_all_prompts()).await;
    let mut name = serde_json::Map::new();
    name.insert("name".into(), json!("Ada"));
    let greeting =
        within(client.get_prompt(GetPromptRequestParams::new("greet").with_arguments(name))).await;
    let heard: Vec<Value> = heard
        .rest()
        .await
        .into_iter()
        .map(|h| match h {
            Heard::Progress(p) => {
                json!({ "progress": p["progress"], "total": p["total"], "message": p["message"] })
            }
            Heard::Log(p) => json!({ "log": p }),
            Heard::Asked { method, params } => json!({ "asked": method, "params": params }),
        })
        .collect();
    let info = client
        .peer_info()
        .map(|i| serde_json::to_value(i).unwrap_or_default());
    let _ = client.cancel().await;
    json!({
        "server": info.map(|i| json!({ "serverInfo": i["serverInfo"], "instructions": i["instructions"] })),
        "tools": tools.iter().map(|t| t.name.to_string()).collect::<Vec<_>>(),
        "forecast": serde_json::to_value(&forecast).unwrap_or_default(),
        "report": serde_json::to_value(&report).unwrap_or_default(),
        "asked": serde_json::to_value(&asked).unwrap_or_default(),
        "resources": resources.iter().map(|r| r.uri.clone()).collect::<Vec<_>>(),
        "readme": serde_json::to_value(&readme).unwrap_or_default(),
        "prompts": prompts.iter().map(|p| p.name.clone()).collect::<Vec<_>>(),
        "greeting": serde_json::to_value(&greeting).unwrap_or_default(),
        "heard": heard,
    })
}

async fn within<T, E: std::fmt::Display>(step: impl Future<Output = Result<T, E>>) -> T {
    match tokio::time::timeout(PATIENCE, step).await {
        Ok(Ok(value)) => value,
        Ok(Err(error)) => panic!("the client's request failed: {error}"),
        Err(_) => panic!("the client's request took longer than {PATIENCE:?}"),
    }
}
