//! The Logs tab's cassette buttons in a real headless Chromium against the real binary and
//! a real rmcp client: **Save cassette** links the server's traffic as a cassette file, and
//! **Convert to mock** creates an editable server from it and opens its Tools tab.

use crate::common;
use crate::common::browser;

use browser::ui::Ui;
use common::{call_ok, connect, text};
use reqwest::StatusCode;
use serde_json::json;

#[tokio::test]
async fn the_logs_tab_saves_a_cassette_and_converts_the_recording_into_a_mock() {
    let ui = Ui::start("ui-cassette").await;
    let b = &ui.browser;
    let response = ui
        .http
        .post(format!("{}/servers/echo/tools", ui.app.api()))
        .json(&json!({ "name": "get_forecast", "published": true, "template": { "content": [{ "type": "text", "text": "Rain in ${args.city}" }] } }))
        .send()
        .await
        .expect("POST a tool");
    assert_eq!(response.status(), StatusCode::CREATED);
    let client = connect(&ui.app.mcp_url("echo")).await;
    assert_eq!(
        text(&call_ok(&client, "get_forecast", json!({ "city": "Paris" })).await),
        "Rain in Paris"
    );
    let _ = client.cancel().await;

    // Save cassette: a download of the server's cassette.
    b.open(&ui.url("#/servers/echo/logs")).await;
    let link = b.testid("save-cassette").await;
    let href = link.prop("href").await.expect("href").expect("an href");
    let download = link
        .attr("download")
        .await
        .expect("download")
        .expect("a file name");
    assert!(href.ends_with("/api/v1/servers/echo/cassette"), "{href}");
    assert_eq!(download, "echo.cassette.json");
    let cassette: serde_json::Value = ui
        .http
        .get(&href)
        .send()
        .await
        .expect("GET")
        .json()
        .await
        .expect("JSON");
    let calls: Vec<&serde_json::Value> = cassette["interactions"]
        .as_array()
        .expect("interactions")
        .iter()
        .filter(|i| i["request"]["method"] == "tools/call")
        .collect();
    assert_eq!(
        calls[0]["request"]["params"]["arguments"],
        json!({ "city": "Paris" })
    );
    ui.shot("logs-cassette").await;

    // Convert to mock: a new server, opened on its Tools tab.
    b.click("cassette-convert").await;
    b.until("the converted server opens", || async {
        b.eval("return location.hash").await == json!("#/servers/echo-recorded/tools")
    })
    .await;
    let detail = ui.api_get("/servers/echo-recorded").await;
    assert_eq!(detail["tools"][0]["name"], "get_forecast", "{detail}");
    let client = connect(&ui.app.mcp_url("echo-recorded")).await;
    assert_eq!(
        text(&call_ok(&client, "get_forecast", json!({ "city": "Paris" })).await),
        "Rain in Paris"
    );
    let _ = client.cancel().await;
    // A second convert names the taken name in the banner.
    b.open(&ui.url("#/servers/echo/logs")).await;
    b.click("cassette-convert").await;
    b.text_until(".error-banner", "the conflict shows", |t| {
        t.contains("echo-recorded")
    })
    .await;
    ui.browser.close().await;
}
