//! The app's relays: a server with `"upstream"` (servers.json or REST) forwards everything
//! under `/s/NAME/mcp` to a real MCP server. The rmcp client talks to an rmcp upstream
//! through the app, and the REST logs show both layers with the upstream's status; an OAuth
//! upstream's discovery documents are found at the app's root (RFC 9728 section 3.1 path
//! insertion of `/s/NAME/mcp`) and name the app.

use crate::common;
use crate::common::app_process;

use app_process::{Running, Scratch};
use common::upstream::{Mode, rmcp_upstream};
use mcp_decoy::MockMcpServer;
use mcp_decoy::oauth::OAuth;
use serde_json::{Value, json};

async fn logs(app: &Running, server: &str) -> Vec<Value> {
    let body: Value = app
        .api_client()
        .get(format!("{}/servers/{server}/logs?limit=1000", app.api()))
        .send()
        .await
        .expect("the logs route answers")
        .json()
        .await
        .expect("JSON");
    body["records"].as_array().cloned().unwrap_or_default()
}

#[tokio::test]
async fn rmcp_through_an_app_relay_from_servers_json_and_rest() {
    let upstream = rmcp_upstream(Mode::StatefulSse).await;
    let dir = Scratch::new("relay");
    app_process::write_servers(
        dir.path(),
        json!([{ "name": "real", "upstream": upstream.url }]),
    );
    let app = Running::start(dir.path());

    let client = common::connect(&app.mcp_url("real")).await;
    assert_eq!(common::tool_names(&client).await, ["echo", "work"]);
    let echoed = common::call_ok(&client, "echo", json!({ "message": "via app" })).await;
    assert_eq!(common::text(&echoed), "via app");

    let records = logs(&app, "real").await;
    let call = records
        .iter()
        .find(|r| r["layer"] == "mcp" && r["method"] == "tools/call")
        .expect("the call's mcp record");
    assert_eq!(call["response"]["result"]["content"][0]["text"], "via app");
    let relayed = records
        .iter()
        .filter(|r| r["layer"] == "http" && r["kind"] == "exchange" && r["method"] == "POST")
        .all(|r| r["upstream"]["status"] == r["status"] && r["upstream"]["url"] == upstream.url);
    assert!(relayed, "{records:#?}");

    // REST: a second relay, created and kept in servers.json with its upstream.
    let http = app.api_client();
    let created = http
        .post(format!("{}/servers", app.api()))
        .json(&json!({ "name": "again", "upstream": upstream.url, "upstreamTimeoutMs": 5000 }))
        .send()
        .await
        .expect("REST answers");
    assert_eq!(
        created.status(),
        201,
        "{}",
        created.text().await.unwrap_or_default()
    );
    let saved: Value = serde_json::from_str(
        &std::fs::read_to_string(dir.path().join("servers.json")).expect("servers.json"),
    )
    .expect("JSON");
    let again = saved["servers"]
        .as_array()
        .and_then(|s| s.iter().find(|s| s["name"] == "again"))
        .cloned()
        .expect("saved");
    assert_eq!(again["upstream"], upstream.url);
    let client = common::connect(&app.mcp_url("again")).await;
    assert_eq!(common::tool_names(&client).await, ["echo", "work"]);

    // A relay with tools of its own is refused, naming the field.
    let refused = http
        .post(format!("{}/servers", app.api()))
        .json(&json!({ "name": "bad", "upstream": upstream.url,
                       "tools": [{ "name": "x" }] }))
        .send()
        .await
        .expect("REST answers");
    assert_eq!(refused.status(), 400);
    assert!(
        refused
            .text()
            .await
            .unwrap_or_default()
            .contains("upstream")
    );

    // A CA file that cannot be read is refused naming the field, and nothing is saved.
    let missing = dir.path().join("no-such-ca.pem");
    let refused = http
        .post(format!("{}/servers", app.api()))
        .json(
            &json!({ "name": "dev", "upstream": "https://localhost:8443/mcp",
                       "upstreamCaFile": missing }),
        )
        .send()
        .await
        .expect("REST answers");
    assert_eq!(refused.status(), 400);
    let problem: Value = refused.json().await.expect("a problem document");
    assert_eq!(problem["field"], "upstreamCaFile", "{problem}");
    assert!(
        problem["detail"]
            .as_str()
            .is_some_and(|d| d.starts_with("`upstreamCaFile`: ") && d.contains("no-such-ca.pem")),
        "{problem}"
    );
    let saved = std::fs::read_to_string(dir.path().join("servers.json")).expect("servers.json");
    assert!(!saved.contains("no-such-ca"), "{saved}");
}

#[tokio::test]
async fn an_app_relay_serves_the_upstreams_discovery_at_the_root_naming_itself() {
    let upstream = MockMcpServer::builder().oauth(OAuth::new()).start().await;
    let dir = Scratch::new("relay-oauth");
    app_process::write_servers(
        dir.path(),
        json!([{ "name": "guarded", "upstream": upstream.url() }]),
    );
    let app = Running::start(dir.path());
    let mcp = app.mcp_url("guarded");
    let origin = mcp.trim_end_matches("/s/guarded/mcp").to_string();
    let document: Value = reqwest::get(format!(
        "{origin}/.well-known/oauth-protected-resource/s/guarded/mcp"
    ))
    .await
    .expect("the document")
    .json()
    .await
    .expect("JSON");
    assert_eq!(document["resource"], mcp);
    let server = document["authorization_servers"][0]
        .as_str()
        .unwrap_or_default();
    assert!(
        server.starts_with(&format!("{origin}/s/guarded/_up/")),
        "{document}"
    );
    // RFC 8414 path insertion onto that issuer reaches the upstream's metadata.
    let issuer_path = server.trim_start_matches(&origin);
    let metadata = reqwest::get(format!(
        "{origin}/.well-known/oauth-authorization-server{issuer_path}"
    ))
    .await
    .expect("the metadata");
    assert_eq!(metadata.status(), 200);
    let metadata: Value = metadata.json().await.expect("JSON");
    assert_eq!(metadata["issuer"], server);
}
