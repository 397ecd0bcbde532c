//! Editing and reading in the web UI beyond the guide's walkthrough: drafts of the other
//! catalog kinds, responses and fault rules as JSON, the Logs tab's keyboard, a 1920×1080
//! window. A real headless Chromium against the real binary; see `tests/ui/pages.rs`.

use crate::common;
use crate::common::browser;

use browser::Browser;
use browser::ui::Ui;
use common::call_ok;
use serde_json::json;

/// Prompts (and resources and templates, which share the tab's code) are drafts until
/// published, as tools are: Save draft keeps one from clients, Publish shows it.
#[tokio::test]
async fn a_prompt_is_saved_as_a_draft_and_published_in_the_ui() {
    let ui = Ui::start("ui-prompt-draft").await;
    let b = &ui.browser;
    b.open(&ui.url("#/servers/echo/prompts")).await;
    b.click("new-prompt").await;
    ui.fill("[data-testid=prompt-form] input[name=name]", "summarize")
        .await;
    b.click("save-draft").await;
    let state = "[data-prompt=\"summarize\"] [data-testid=prompt-state]";
    b.text_until(state, "lists the draft", |t| t.trim() == "draft")
        .await;
    let saved = ui.api_get("/servers/echo/prompts/summarize").await;
    assert_eq!(saved["published"], false, "{saved}");

    b.css("[data-prompt=\"summarize\"] a")
        .await
        .click()
        .await
        .expect("open the draft");
    b.click("publish").await;
    b.text_until(state, "shows published", |t| t.trim() == "published")
        .await;
    let saved = ui.api_get("/servers/echo/prompts/summarize").await;
    assert_eq!(saved["published"], true, "{saved}");
    ui.shot("prompts").await;
    ui.browser.close().await;
}

/// A tool's responses and a server's fault rules are edited as JSON; what the API refuses
/// shows next to the field, naming the entry at fault, and nothing is saved.
#[tokio::test]
async fn responses_and_fault_rules_are_edited_as_json_with_errors_that_name_the_field() {
    let ui = Ui::start("ui-json-fields").await;
    let b = &ui.browser;

    // A response whose regex does not compile.
    b.open(&ui.url("#/servers/echo/tools/echo")).await;
    ui.paste(
        "textarea[name=responses]",
        r#"[{ "when": { "regex": { "pointer": "/message", "pattern": "(" } }, "result": { "content": [] } }]"#,
    )
    .await;
    b.click("save-changes").await;
    let error = b
        .text_until("[data-testid=form-error]", "shows the API's problem", |t| {
            t.contains("responses[0]")
        })
        .await;
    assert!(
        error.contains("regex") || error.contains("pattern"),
        "{error}"
    );
    let tool = ui.api_get("/servers/echo/tools/echo").await;
    assert!(tool.get("responses").is_none(), "nothing saved: {tool}");

    // A fault rule with a status no HTTP answer has.
    b.open(&ui.url("")).await;
    b.css("tr[data-server=\"echo\"] [data-testid=server-rename]")
        .await
        .click()
        .await
        .expect("edit echo");
    ui.paste(
        "[data-testid=server-form] textarea[name=faults]",
        r#"[{ "method": "tools/call", "fault": { "kind": "http", "status": 42 } }]"#,
    )
    .await;
    b.click("server-save").await;
    let error = b
        .text_until("[data-testid=form-error]", "shows the API's problem", |t| {
            t.contains("faults[0]")
        })
        .await;
    assert!(!error.is_empty());
    let server = ui.api_get("/servers/echo").await;
    assert!(
        server.get("faults").is_none_or(|f| f == &json!([])),
        "nothing saved: {server}"
    );
    ui.shot("server-faults-error").await;
    ui.browser.close().await;
}

/// The Logs tab's keyboard: `/` focuses the search box, the arrow keys move the selection
/// through the entries, `Esc` closes the details.
#[tokio::test]
async fn the_logs_tab_answers_the_keyboard() {
    use fantoccini::key::Key;

    let ui = Ui::start("ui-keys").await;
    let b = &ui.browser;
    let client = common::connect(&ui.app.mcp_url("echo")).await;
    call_ok(&client, "echo", json!({ "message": "one" })).await;
    b.open(&ui.url("#/servers/echo/logs")).await;
    b.css("[data-testid=log-row][data-name=\"tools/call\"]")
        .await;
    let body = b.css("body").await;

    body.send_keys("/").await.expect("press /");
    let focused = b
        .eval("return document.activeElement.dataset.testid || ''")
        .await;
    assert_eq!(focused, json!("log-search"), "`/` focuses the search box");
    b.eval("document.activeElement.blur()").await;

    let rows = b.all("[data-testid=log-row]").await;
    rows[0].click().await.expect("select the newest entry");
    b.testid("log-details").await;
    let selected = || async {
        b.eval("const r = document.querySelector('[data-testid=log-row].selected'); return r ? r.dataset.id : null")
            .await
    };
    let first = selected().await;
    body.send_keys(&Key::Down.to_string())
        .await
        .expect("press the down arrow");
    b.until("the down arrow selects the next entry", || async {
        let now = selected().await;
        !now.is_null() && now != first
    })
    .await;
    body.send_keys(&Key::Escape.to_string())
        .await
        .expect("press Esc");
    b.until("Esc closes the details", || async {
        b.all("[data-testid=log-details]").await.is_empty()
            || b.eval("const d = document.querySelector('[data-testid=log-details]'); return !d || d.hidden || d.offsetParent === null")
                .await
                == json!(true)
    })
    .await;
    client.cancel().await.ok();
    ui.browser.close().await;
}

/// At 1920×1080 the servers page and a server's Logs tab use the width: the log list and
/// the details sit side by side, and nothing overflows the window horizontally.
#[tokio::test]
async fn the_pages_fit_a_1920_by_1080_window() {
    let ui = Ui::with_browser("ui-1920", Browser::with_size(1920, 1080).await).await;
    let b = &ui.browser;
    for (page, ready) in [
        ("", "tr[data-server=\"echo\"]"),
        ("#/servers/echo/tools/echo", "textarea[name=template]"),
        ("#/servers/echo/logs", "[data-testid=log-search]"),
    ] {
        b.open(&ui.url(page)).await;
        b.css(ready).await;
        let overflow = b
            .eval("return document.documentElement.scrollWidth - window.innerWidth")
            .await;
        assert!(
            overflow.as_i64().is_some_and(|px| px <= 0),
            "{page}: the page is wider than the window by {overflow} px"
        );
    }
    ui.shot("logs-1920").await;
    ui.browser.close().await;
}

/// The server form's Upstream field makes a relay: the new server forwards to the real
/// server (an rmcp upstream), whose tools a client then sees through the app.
#[tokio::test]
async fn a_relay_is_created_in_the_server_form_with_its_upstream() {
    let upstream = common::upstream::rmcp_upstream(common::upstream::Mode::StatelessJson).await;
    let ui = Ui::start("ui-relay").await;
    let b = &ui.browser;
    b.open(&ui.url("#/servers")).await;
    b.click("new-server").await;
    ui.fill("[data-testid=server-form] input[name=name]", "real")
        .await;
    ui.fill(
        "[data-testid=server-form] input[name=upstream]",
        &upstream.url,
    )
    .await;
    b.click("server-save").await;
    b.css("tr[data-server=\"real\"]").await;
    let saved = ui.api_get("/servers/real").await;
    assert_eq!(saved["upstream"], upstream.url.as_str(), "{saved}");
    let client = common::connect(&ui.app.mcp_url("real")).await;
    let echoed = call_ok(&client, "echo", json!({ "message": "relayed" })).await;
    assert_eq!(common::text(&echoed), "relayed");
    ui.browser.close().await;
}
