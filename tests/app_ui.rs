//! The app's web UI in a real headless Chromium (product guide: "Start MCP Decoy", "Connect a
//! client on another host", "Check the connection", "Define a tool", "Write a response
//! template", "Read the logs", "Test an OAuth client"), against the real binary and a real
//! rmcp client. Elements are found by their `data-testid` (listed in `src/cli/ui/README.md`).
//!
//! Each test takes screenshots of the pages it walks through into `CARGO_TARGET_TMPDIR`, or
//! into the directory `SCREENSHOTS` names (`SCREENSHOTS=docs/screenshots` refreshes the
//! README's pictures).

mod app_process;
mod browser;
mod common;

use std::path::PathBuf;

use app_process::{Running, Scratch};
use browser::Browser;
use common::{call_ok, connect_watching, raw_tools_list, text};
use reqwest::StatusCode;
use serde_json::{Value, json};

/// One running app, a browser on its UI, and an HTTP client for its API.
struct Ui {
    app: Running,
    _dir: Scratch,
    browser: Browser,
    http: reqwest::Client,
}

impl Ui {
    async fn start(name: &str) -> Ui {
        let dir = Scratch::new(name);
        let app = Running::start(dir.path());
        let browser = Browser::start().await;
        let ui = Ui {
            app,
            _dir: dir,
            browser,
            http: reqwest::Client::new(),
        };
        ui.browser.open(&ui.url("")).await;
        ui
    }

    /// `http://localhost:UI/PATH`.
    fn url(&self, path: &str) -> String {
        format!("http://localhost:{}/{path}", self.app.ui_port)
    }

    async fn api_get(&self, path: &str) -> Value {
        let response = self
            .http
            .get(format!("{}{path}", self.app.api()))
            .send()
            .await
            .unwrap_or_else(|e| panic!("GET {path}: {e}"));
        assert_eq!(response.status(), StatusCode::OK, "GET {path}");
        response.json().await.expect("a JSON body")
    }

    async fn shot(&self, name: &str) {
        let dir = std::env::var_os("SCREENSHOTS")
            .map(PathBuf::from)
            .unwrap_or_else(|| PathBuf::from(env!("CARGO_TARGET_TMPDIR")).join("screenshots"));
        self.browser
            .screenshot(&dir.join(format!("{name}.png")))
            .await;
    }

    /// Types `text` into the field `selector`, replacing what was there.
    async fn fill(&self, selector: &str, text: &str) {
        let field = self.browser.css(selector).await;
        field
            .clear()
            .await
            .unwrap_or_else(|e| panic!("clear {selector}: {e}"));
        field
            .send_keys(text)
            .await
            .unwrap_or_else(|e| panic!("type into {selector}: {e}"));
    }

    /// Sets a field's value the way a paste does (typing JSON key by key is slow and the
    /// editor may auto-indent), then fires `input` so the page sees it.
    async fn paste(&self, selector: &str, text: &str) {
        self.browser.css(selector).await;
        let script = format!(
            "const e = document.querySelector({}); e.value = {}; \
             e.dispatchEvent(new Event('input', {{ bubbles: true }}));",
            json!(selector),
            json!(text)
        );
        self.browser.eval(&script).await;
    }
}

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

/// A one-shot HTTP listener standing in for the client's redirect URI: it answers the
/// browser and hands over the URL the browser was sent to.
async fn redirect_listener() -> (String, tokio::sync::oneshot::Receiver<String>) {
    use tokio::io::{AsyncReadExt, AsyncWriteExt};
    let listener = tokio::net::TcpListener::bind("127.0.0.1:0")
        .await
        .expect("bind the redirect listener");
    let port = listener.local_addr().expect("its address").port();
    let base = format!("http://127.0.0.1:{port}/callback");
    let (tx, rx) = tokio::sync::oneshot::channel();
    tokio::spawn(async move {
        let Ok((mut socket, _)) = listener.accept().await else {
            return;
        };
        let mut buffer = vec![0u8; 8192];
        let n = socket.read(&mut buffer).await.unwrap_or(0);
        let request = String::from_utf8_lossy(&buffer[..n]).to_string();
        let target = request.split_whitespace().nth(1).unwrap_or("/").to_string();
        let _ = socket
            .write_all(b"HTTP/1.1 200 OK\r\ncontent-type: text/plain\r\ncontent-length: 10\r\nconnection: close\r\n\r\nauthorized")
            .await;
        let _ = tx.send(format!("http://127.0.0.1:{port}{target}"));
    });
    (base, rx)
}

/// Product guide, "Test an OAuth client": turn OAuth on in the Connections tab, see the
/// pre-registered client, save redirect URIs, authorize the real rmcp client through the
/// consent page in the browser, see its tokens listed live, revoke them all (the client's
/// next request gets 401), and turn OAuth off with a confirmation.
#[tokio::test]
async fn oauth_is_turned_on_consented_and_revoked_in_the_ui() {
    use rmcp::ServiceExt;
    use rmcp::transport::StreamableHttpClientTransport;
    use rmcp::transport::auth::{AuthClient, AuthorizationRequest, OAuthState};
    use rmcp::transport::streamable_http_client::StreamableHttpClientTransportConfig;

    let ui = Ui::start("ui-oauth").await;
    let b = &ui.browser;
    let echo_url = ui.app.mcp_url("echo");
    b.open(&ui.url("#/servers/echo/connections")).await;

    // Turn on: the pre-registered client appears, as the API has it.
    b.click("oauth-switch").await;
    let client_id = b
        .text_until(
            "[data-testid=oauth-client-id]",
            "shows the client id",
            |t| !t.trim().is_empty(),
        )
        .await;
    let server = ui.api_get("/servers/echo").await;
    let pre = &server["auth"]["preRegisteredClients"][0];
    assert_eq!(pre["clientId"], client_id.trim(), "{server}");
    b.text_until(
        "[data-testid=oauth-client-secret]",
        "shows the secret",
        |t| t.trim() == pre["clientSecret"].as_str().unwrap_or("?"),
    )
    .await;

    // Redirect URIs, saved from the field.
    let (redirect, callback) = redirect_listener().await;
    ui.paste("[data-testid=redirect-uris]", &redirect).await;
    b.click("save-redirect-uris").await;
    b.until("the API has the redirect URI", || async {
        let saved = ui.api_get("/servers/echo").await;
        saved["auth"]["preRegisteredClients"][0]["redirectUris"] == json!([redirect])
    })
    .await;
    ui.shot("connections-oauth").await;

    // rmcp registers and sends "the browser" to the consent page: this browser.
    let unauthorized = ui
        .http
        .post(&echo_url)
        .header("accept", "application/json, text/event-stream")
        .json(
            &json!({ "jsonrpc": "2.0", "id": 1, "method": "initialize", "params": {
            "protocolVersion": "2025-11-25", "capabilities": {},
            "clientInfo": { "name": "ui-test", "version": "1" } } }),
        )
        .send()
        .await
        .expect("the MCP endpoint answers");
    assert_eq!(unauthorized.status(), StatusCode::UNAUTHORIZED);
    let challenge = unauthorized
        .headers()
        .get("www-authenticate")
        .and_then(|v| v.to_str().ok())
        .expect("a challenge")
        .to_string();
    let mut oauth = OAuthState::new(echo_url.clone(), None)
        .await
        .expect("rmcp builds its OAuth state");
    oauth
        .start_authorization(
            AuthorizationRequest::new(&redirect)
                .with_client_name("ui-test")
                .with_challenge(challenge),
        )
        .await
        .expect("rmcp discovers and registers");
    let authorization_url = oauth
        .get_authorization_url()
        .await
        .expect("rmcp builds the authorization URL");
    b.open(&authorization_url).await;
    let approve = b.css("button[value=approve]").await;
    ui.shot("consent").await;
    approve.click().await.expect("click Approve");
    let location = tokio::time::timeout(browser::PATIENCE, callback)
        .await
        .expect("the browser follows the redirect in time")
        .expect("the listener saw the redirect");
    assert!(location.contains("code="), "{location}");
    oauth
        .handle_callback_url(&location)
        .await
        .expect("rmcp exchanges the code");
    let manager = oauth
        .into_authorization_manager()
        .expect("an authorized manager");
    let transport = StreamableHttpClientTransport::with_client(
        AuthClient::new(reqwest::Client::new(), manager),
        StreamableHttpClientTransportConfig::with_uri(echo_url.clone()),
    );
    let client = common::client_config()
        .serve(transport)
        .await
        .expect("the authorized client initializes");
    let answered = client
        .call_tool(common::call("echo", json!({ "message": "hi" })))
        .await
        .expect("an authorized call");
    assert_eq!(text(&answered), "hi");

    // The tokens show in the tab without a reload; Revoke all ends them.
    b.open(&ui.url("#/servers/echo/connections")).await;
    b.until("both tokens are listed", || async {
        b.all("[data-testid=token-row]").await.len() == 2
    })
    .await;
    ui.shot("connections-tokens").await;
    b.click("tokens-revoke-all").await;
    b.until("the token list empties", || async {
        b.all("[data-testid=token-row]").await.is_empty()
    })
    .await;
    let tokens = ui.api_get("/servers/echo/oauth/tokens").await;
    assert_eq!(tokens, json!([]), "the API agrees");
    let refused = client
        .call_tool(common::call("echo", json!({ "message": "again" })))
        .await;
    assert!(refused.is_err(), "a revoked token is refused: {refused:?}");

    // Turning OAuth off asks first.
    b.click("oauth-switch").await;
    b.click("confirm-yes").await;
    b.until("the API has no auth", || async {
        ui.api_get("/servers/echo").await["auth"].is_null()
    })
    .await;
    drop(client);
    ui.browser.close().await;
}

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
    let dir = Scratch::new("ui-1920");
    let app = Running::start(dir.path());
    let b = Browser::with_size(1920, 1080).await;
    let ui = Ui {
        app,
        _dir: dir,
        browser: b,
        http: reqwest::Client::new(),
    };
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
