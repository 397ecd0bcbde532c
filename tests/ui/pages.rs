//! The app's web UI in a real headless Chromium (product guide: "Start MCP Decoy", "Connect a
//! client on another host", "Check the connection", "Define a tool", "Write a response
//! template", "Read the logs", "Test an OAuth client"), against the real binary and a real
//! rmcp client. Elements are found by their `data-testid` (listed in `src/cli/ui/README.md`).
//!
//! Each test takes screenshots of the pages it walks through into `CARGO_TARGET_TMPDIR`, or
//! into the directory `SCREENSHOTS` names (`SCREENSHOTS=docs/screenshots` refreshes the
//! README's pictures).

use crate::common;
use crate::common::app_process;
use crate::common::browser;

use browser::ui::Ui;
use common::{call_ok, connect_watching, raw_tools_list, text};
use reqwest::StatusCode;
use serde_json::json;

/// The guide's first hour in the UI: the header's tunnel command, the Servers page and its
/// live Sessions column, a new server, a draft tool whose template error shows while typing,
/// publishing it (the connected rmcp client gets `list_changed` and calls it), the call in
/// the Logs tab through search, its details and its HTTP carrier and back, Pause and Resume
/// losing nothing, the export, and closing the session from the Connections tab.
#[tokio::test]
async fn a_tool_defined_in_the_ui_reaches_a_connected_client_and_its_traffic_shows_in_the_logs() {
    let ui = Ui::start("ui-walkthrough").await;
    let b = &ui.browser;

    // Header: the version and the tunnel command for this app's MCP port.
    let meta = ui.api_get("/").await;
    let version = meta["version"].as_str().expect("the API names its version");
    b.text_until("[data-testid=version]", "shows the version", |t| {
        t.contains(version)
    })
    .await;
    b.click("tunnel-button").await;
    let command = format!(
        "cloudflared tunnel --url http://localhost:{}",
        ui.app.mcp_port
    );
    b.text_until(
        "[data-testid=tunnel-command]",
        "shows the cloudflared command",
        |t| t.trim() == command,
    )
    .await;
    b.text_until(
        "[data-testid=tunnel-url]",
        "shows the public URL form",
        |t| t.contains("https://TUNNEL_HOST/s/") && t.contains("/mcp"),
    )
    .await;
    ui.shot("header-tunnel").await;
    b.eval("document.activeElement && document.activeElement.blur(); document.dispatchEvent(new KeyboardEvent('keydown', {key: 'Escape'}));")
        .await;

    // Servers page: the default echo server with its URL and no session yet.
    let echo_row = "tr[data-server=\"echo\"]";
    b.text_until(
        &format!("{echo_row} [data-testid=server-url]"),
        "shows echo's URL",
        |t| t.contains(&ui.app.mcp_url("echo")),
    )
    .await;
    b.text_until(
        &format!("{echo_row} [data-testid=server-sessions]"),
        "shows 0 live",
        |t| t.trim() == "0 live",
    )
    .await;

    // A new server, created in the form.
    b.click("new-server").await;
    ui.fill("[data-testid=server-form] input[name=name]", "weather")
        .await;
    b.click("server-save").await;
    let weather_row = "tr[data-server=\"weather\"]";
    b.css(weather_row).await;
    let created = ui.api_get("/servers/weather").await;
    assert_eq!(created["name"], "weather", "{created}");

    // A client connects; the Sessions column follows without a reload.
    let weather_url = ui.app.mcp_url("weather");
    let (client, mut list_changed) = connect_watching(&weather_url).await;
    b.text_until(
        &format!("{weather_row} [data-testid=server-sessions]"),
        "shows 1 live after the client connected",
        |t| t.trim() == "1 live",
    )
    .await;
    ui.shot("servers").await;

    // Tools tab: a draft with a broken template shows the error while typing.
    b.css(&format!("{weather_row} [data-testid=server-open]"))
        .await
        .click()
        .await
        .expect("open the server");
    b.click("tab-tools").await;
    b.click("new-tool").await;
    ui.fill("input[name=name]", "get_forecast").await;
    ui.paste(
        "textarea[name=template]",
        r#"{"content": [{"type": "text", "text": "Forecast for ${args.city"}]}"#,
    )
    .await;
    let error = b
        .text_until(
            "[data-testid=template-error]",
            "shows the syntax error",
            |t| !t.trim().is_empty(),
        )
        .await;
    assert!(
        error.to_lowercase().contains("error"),
        "the message says what is wrong: {error}"
    );
    b.eval("document.querySelector('[data-testid=template-error]').scrollIntoView({ block: 'center' })")
        .await;
    ui.shot("tool-template-error").await;
    ui.paste(
        "textarea[name=template]",
        r#"{"content": [{"type": "text", "text": "Forecast for ${args.city}: 14°C"}]}"#,
    )
    .await;
    b.text_until("[data-testid=template-error]", "clears the error", |t| {
        t.trim().is_empty()
    })
    .await;
    b.click("save-draft").await;
    b.text_until(
        "[data-tool=\"get_forecast\"] [data-testid=tool-state]",
        "lists the draft",
        |t| t.trim() == "draft",
    )
    .await;
    assert!(
        list_changed.stays_quiet().await,
        "a draft sends no list_changed (guide, Define a tool)"
    );

    // Publishing reaches the client.
    b.css("[data-tool=\"get_forecast\"]")
        .await
        .click()
        .await
        .expect("open the draft");
    b.click("publish").await;
    list_changed.expect_one("Publish tool").await;
    b.text_until(
        "[data-tool=\"get_forecast\"] [data-testid=tool-state]",
        "shows published",
        |t| t.trim() == "published",
    )
    .await;
    ui.shot("tools").await;
    let result = call_ok(&client, "get_forecast", json!({ "city": "Paris" })).await;
    assert_eq!(text(&result), "Forecast for Paris: 14°C");

    // Logs: search finds the call; the count follows the filter.
    b.click("tab-logs").await;
    b.css("[data-testid=log-row][data-name=\"tools/call\"]")
        .await;
    ui.paste("[data-testid=log-search]", "Paris").await;
    let api_count = {
        let page = ui.api_get("/servers/weather/logs?q=Paris&limit=500").await;
        page["total"]
            .as_u64()
            .expect("the page counts what matches") as usize
    };
    assert!(
        api_count >= 2,
        "the call and its HTTP carrier match `Paris`"
    );
    b.until("the list shows only what matches", || async {
        b.all("[data-testid=log-row]").await.len() == api_count
    })
    .await;
    b.text_until(
        "[data-testid=log-count]",
        "counts the filtered entries",
        |t| t.contains(&api_count.to_string()),
    )
    .await;

    // Details of the call, its carrier, and back.
    b.css("[data-testid=log-row][data-layer=mcp][data-name=\"tools/call\"]")
        .await
        .click()
        .await
        .expect("select the call");
    b.text_until("[data-testid=log-details]", "shows the call's JSON", |t| {
        t.contains("get_forecast") && t.contains("Paris")
    })
    .await;
    ui.shot("log-details").await;
    b.click("carrier-link").await;
    b.text_until("[data-testid=log-details]", "shows the HTTP carrier", |t| {
        t.contains("POST") && t.to_lowercase().contains("content-type")
    })
    .await;
    b.click("carried-link").await;
    b.text_until("[data-testid=log-details]", "is back on the call", |t| {
        t.contains("get_forecast")
    })
    .await;

    // Pause holds the list still; Resume catches up with what arrived meanwhile.
    ui.paste("[data-testid=log-search]", "").await;
    b.until("the unfiltered list is back", || async {
        b.all("[data-testid=log-row]").await.len() > api_count
    })
    .await;
    b.click("log-pause").await;
    b.text_until("[data-testid=log-pause]", "offers Resume", |t| {
        t.trim() == "Resume"
    })
    .await;
    let before = b.all("[data-testid=log-row]").await.len();
    call_ok(&client, "get_forecast", json!({ "city": "Oslo" })).await;
    tokio::time::sleep(common::QUIET).await;
    assert_eq!(
        b.all("[data-testid=log-row]").await.len(),
        before,
        "a paused list does not move"
    );
    b.click("log-pause").await;
    b.until("Resume shows the call made while paused", || async {
        b.all("[data-testid=log-row]").await.len() > before
    })
    .await;
    let oslo = b
        .all("[data-testid=log-row][data-layer=mcp][data-name=\"tools/call\"]")
        .await
        .len();
    assert_eq!(oslo, 2, "both calls are listed after Resume");
    ui.shot("logs").await;

    // Export: every entry, whatever the filter.
    ui.paste("[data-testid=log-search]", "Oslo").await;
    let href = b
        .testid("log-export")
        .await
        .prop("href")
        .await
        .expect("read the export link")
        .expect("the export link has an href");
    let exported = ui
        .http
        .get(&href)
        .send()
        .await
        .expect("download the export")
        .text()
        .await
        .expect("the export body");
    let all = ui.api_get("/servers/weather/logs?limit=500").await;
    let total = all["total"].as_u64().expect("the page counts every record") as usize;
    assert!(
        exported.lines().count() >= total,
        "the export has every entry ({total}), not only the filtered ones"
    );

    // Connections: the session is listed; Close ends it, and its next request gets 404.
    b.click("tab-connections").await;
    let row = b.css("[data-testid=session-row]").await;
    let session = row
        .attr("data-session")
        .await
        .expect("read data-session")
        .expect("the row names its session");
    // The name and version the client sent in `initialize`.
    let info = common::client_config().client_info;
    b.text_until(
        "[data-testid=session-row]",
        "shows the client's name and version",
        |t| t.contains(&info.name) && t.contains(&info.version),
    )
    .await;
    ui.shot("connections").await;
    b.click("session-close").await;
    b.until("the session row goes away", || async {
        b.all("[data-testid=session-row]").await.is_empty()
    })
    .await;
    let after = raw_tools_list(&weather_url, &session).await;
    assert_eq!(
        after.status(),
        StatusCode::NOT_FOUND,
        "a closed session is gone"
    );
    // Back on the Servers page, the column followed the session's end.
    b.open(&ui.url("")).await;
    b.text_until(
        &format!("{weather_row} [data-testid=server-sessions]"),
        "shows 0 live after Close",
        |t| t.trim() == "0 live",
    )
    .await;
    client.cancel().await.ok();
    ui.browser.close().await;
}

/// Every page sends a strict Content-Security-Policy and loads nothing from elsewhere.
#[tokio::test]
async fn the_ui_sends_a_strict_csp_and_serves_every_asset_itself() {
    let ui = Ui::start("ui-csp").await;
    let page = ui.http.get(ui.url("")).send().await.expect("GET /");
    assert_eq!(page.status(), StatusCode::OK);
    let csp = page
        .headers()
        .get("content-security-policy")
        .and_then(|v| v.to_str().ok())
        .expect("a Content-Security-Policy header")
        .to_string();
    for directive in [
        "default-src 'none'",
        "script-src 'self'",
        "frame-ancestors 'none'",
    ] {
        assert!(csp.contains(directive), "{directive} in {csp}");
    }
    let html = page.text().await.expect("the page");
    assert!(
        !html.contains("http://") && !html.contains("https://") && !html.contains("<script>"),
        "no remote asset and no inline script: {html}"
    );
    // The page runs under that policy: its script filled the server list.
    ui.browser.css("tr[data-server=\"echo\"]").await;
}

/// The header's memory gauge (issue 49): the total the app keeps, and once a budget evicted
/// something, how many; its panel lists each budget with its flag.
#[tokio::test]
async fn the_header_shows_memory_and_what_the_budgets_evicted() {
    let ui = Ui::with_setup(
        "ui-memory",
        browser::Browser::start().await,
        Some(app_process::SHOUT_SERVERS),
        &["--retained-event-bytes", "1MiB"],
    )
    .await;
    let b = &ui.browser;
    b.text_until(
        "[data-testid=memory-button]",
        "shows the memory held",
        |t| t.starts_with("Memory ") && !t.contains("evicted"),
    )
    .await;

    // Three streamed 600 KiB answers pass the 1 MiB budget of retained events.
    let (client, _) = connect_watching(&ui.app.mcp_url("loud")).await;
    common::shout_600_kib_three_times(&client).await;
    let evicted = ui.api_get("/memory").await["retainedEvents"]["evicted"]
        .as_u64()
        .expect("a count");
    assert!(evicted >= 1);

    b.text_until("[data-testid=memory-button]", "counts the evictions", |t| {
        t.contains("evicted")
    })
    .await;
    b.click("memory-button").await;
    b.text_until(
        "[data-testid=memory-retainedEvents]",
        "lists the retained events against 1 MiB",
        |t| t.contains("of 1.0 MiB") && t.contains("--retained-event-bytes"),
    )
    .await;
    b.text_until("[data-testid=memory-capture]", "lists the log", |t| {
        t.contains("of 256.0 MiB")
    })
    .await;
    ui.shot("header-memory").await;
    client.cancel().await.ok();
    ui.browser.close().await;
}
