//! OAuth in the web UI (product guide, "Test an OAuth client"), in a real headless Chromium
//! against the real binary and the real rmcp auth client; see `tests/ui/pages.rs`.

use crate::common;
use crate::common::browser;

use browser::ui::Ui;
use common::text;
use reqwest::StatusCode;
use serde_json::json;

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
