//! The `conformance` preset serves what the conformance suite's server scenarios call
//! (`shared/spec/README.md`, section 8), to a real client.

mod common;

use common::{call_ok, connect, text};
use rmcp::model::{GetPromptRequestParams, ReadResourceRequestParams, ResourceContents};
use serde_json::{Value, json};

#[tokio::test]
async fn the_conformance_preset_lists_every_fixture_the_scenarios_call() {
    // Arrange
    let server = mcp_decoy::presets::conformance().start().await;
    let client = connect(&server.url()).await;

    // Act
    let tools = client.list_all_tools().await.expect("tools/list");
    let resources = client.list_all_resources().await.expect("resources/list");
    let templates = client
        .list_all_resource_templates()
        .await
        .expect("resources/templates/list");
    let prompts = client.list_all_prompts().await.expect("prompts/list");

    // Assert
    let tool_names: Vec<&str> = tools.iter().map(|t| t.name.as_ref()).collect();
    for expected in [
        "test_simple_text",
        "test_image_content",
        "test_audio_content",
        "test_embedded_resource",
        "test_multiple_content_types",
        "test_tool_with_logging",
        "test_error_handling",
        "test_tool_with_progress",
        "test_sampling",
        "test_elicitation",
        "test_elicitation_sep1034_defaults",
        "test_elicitation_sep1330_enums",
        "json_schema_2020_12_tool",
        // The tasks extension's scenarios (tasks-*).
        "greet",
        "slow_compute",
        "failing_job",
        "protocol_error_job",
        "confirm_delete",
        "multi_input",
        "test_tool_with_task",
    ] {
        assert!(
            tool_names.contains(&expected),
            "{expected} missing from {tool_names:?}"
        );
    }
    // tools-list scenario: every tool has a description and an input schema.
    assert!(tools.iter().all(|t| t.description.is_some()));
    let uris: Vec<&str> = resources.iter().map(|r| r.uri.as_str()).collect();
    assert_eq!(
        uris,
        [
            "test://static-text",
            "test://static-binary",
            "test://watched-resource"
        ]
    );
    assert_eq!(templates[0].uri_template, "test://template/{id}/data");
    let prompt_names: Vec<&str> = prompts.iter().map(|p| p.name.as_str()).collect();
    assert_eq!(
        prompt_names,
        [
            "test_simple_prompt",
            "test_prompt_with_arguments",
            "test_prompt_with_embedded_resource",
            "test_prompt_with_image",
            "test_input_required_result_prompt"
        ]
    );
    common::schema::assert_server_messages_valid(&server.log());
    client.cancel().await.expect("closing the client");
}

#[tokio::test]
async fn the_conformance_preset_answers_as_the_scenarios_expect() {
    // Arrange
    let server = mcp_decoy::presets::conformance().start().await;
    let client = connect(&server.url()).await;

    // Act
    let simple = call_ok(&client, "test_simple_text", json!({})).await;
    let error = call_ok(&client, "test_error_handling", json!({})).await;
    let mixed = call_ok(&client, "test_multiple_content_types", json!({})).await;
    let read = client
        .read_resource(ReadResourceRequestParams::new("test://template/123/data"))
        .await
        .expect("resources/read of the template");
    let prompt = client
        .get_prompt(
            GetPromptRequestParams::new("test_prompt_with_arguments").with_arguments(
                json!({ "arg1": "hello", "arg2": "world" })
                    .as_object()
                    .cloned()
                    .expect("an object"),
            ),
        )
        .await
        .expect("prompts/get");

    // Assert
    assert_eq!(text(&simple), "This is a simple text response for testing.");
    assert_eq!(error.is_error, Some(true));
    assert_eq!(mixed.content.len(), 3);
    let ResourceContents::TextResourceContents { text: data, .. } = &read.contents[0] else {
        panic!("expected text contents, got {:?}", read.contents);
    };
    let data: Value = serde_json::from_str(data).expect("the template renders JSON text");
    assert_eq!(data["id"], "123");
    let rendered = serde_json::to_value(&prompt.messages[0]).expect("serializable");
    assert_eq!(
        rendered["content"]["text"],
        "Prompt with arguments: arg1='hello', arg2='world'"
    );
    common::schema::assert_server_messages_valid(&server.log());
    client.cancel().await.expect("closing the client");
}

#[tokio::test]
async fn the_json_schema_2020_12_tool_keeps_its_input_schema_verbatim() {
    let server = mcp_decoy::presets::conformance().start().await;
    let client = connect(&server.url()).await;

    let tools = client.list_all_tools().await.expect("tools/list");

    let tool = tools
        .iter()
        .find(|t| t.name == "json_schema_2020_12_tool")
        .expect("the tool is listed");
    let listed = serde_json::to_value(tool.input_schema.as_ref()).expect("serializable");
    let configured = server
        .tools()
        .into_iter()
        .find(|t| t.name == "json_schema_2020_12_tool")
        .expect("configured")
        .input_schema;
    assert_eq!(listed, configured);
    assert_eq!(listed["$defs"]["address"]["$anchor"], "address");
    client.cancel().await.expect("closing the client");
}
