//! Skills in the app: a server created over REST with a skill serves it to a real client,
//! `servers.json` keeps the skill (not its files as resources), and a bad skill is refused
//! naming its field, over REST and in `servers.json`.

use reqwest::header::CONTENT_TYPE;
use reqwest::{Method, StatusCode};
use serde_json::{Value, json};

use crate::common::app_process::{Running, Scratch};
use crate::common::peer::{Era, Peer};
use crate::common::{PATIENCE, connect};

const SKILL_MD: &str =
    "---\nname: release-notes\ndescription: Write release notes\n---\n\nUse TEMPLATE.md.\n";

async fn send(app: &Running, method: Method, path: &str, body: Value) -> (StatusCode, Value) {
    let request = app
        .api_client()
        .request(method, format!("{}{path}", app.api()))
        .header(CONTENT_TYPE, "application/json")
        .body(body.to_string());
    let response = tokio::time::timeout(PATIENCE, request.send())
        .await
        .expect("an answer in time")
        .expect("the request");
    let status = response.status();
    (status, response.json().await.expect("a JSON body"))
}

#[tokio::test]
async fn a_skill_created_over_rest_is_served_and_saved_as_a_skill() {
    let dir = Scratch::new("skills-rest");
    let app = Running::start(dir.path());
    let skill = json!({ "path": "acme/release-notes", "files": [
        { "path": "SKILL.md", "text": SKILL_MD },
        { "path": "TEMPLATE.md", "text": "## Added\n" }
    ] });
    let (status, created) = send(
        &app,
        Method::POST,
        "/servers",
        json!({ "name": "skilled", "skills": [skill] }),
    )
    .await;
    assert_eq!(status, StatusCode::CREATED, "{created}");

    // rmcp sees the skill's files as resources; the skills methods answer a raw client.
    let client = connect(&app.mcp_url("skilled")).await;
    let resources = client.list_all_resources().await.expect("the resources");
    let uris: Vec<&str> = resources.iter().map(|r| r.uri.as_str()).collect();
    assert_eq!(
        uris,
        [
            "skill://acme/release-notes/SKILL.md",
            "skill://acme/release-notes/TEMPLATE.md"
        ]
    );
    client.cancel().await.expect("the client closes");
    for era in [Era::Legacy, Era::Modern] {
        let peer = Peer::open(&app.mcp_url("skilled"), era).await;
        let listed = peer.result(1, "skills/list", json!({})).await;
        assert_eq!(
            listed["skills"][0]["uri"], "skill://acme/release-notes/SKILL.md",
            "{era:?}"
        );
        assert_eq!(listed["skills"][0]["frontmatter"]["name"], "release-notes");
    }

    let saved: Value = serde_json::from_str(
        &std::fs::read_to_string(dir.path().join("servers.json")).expect("servers.json"),
    )
    .expect("JSON");
    let server = saved["servers"]
        .as_array()
        .and_then(|s| s.iter().find(|s| s["name"] == "skilled"))
        .expect("the server is saved");
    assert_eq!(server["skills"][0]["path"], "acme/release-notes");
    assert!(server.get("resources").is_none(), "{server}");
}

#[tokio::test]
async fn a_bad_skill_over_rest_is_refused_naming_the_field() {
    let dir = Scratch::new("skills-refused");
    let app = Running::start(dir.path());
    let (status, problem) = send(
        &app,
        Method::POST,
        "/servers",
        json!({ "name": "bad", "skills": [{ "files": [{ "path": "SKILL.md", "text": "no frontmatter" }] }] }),
    )
    .await;
    assert_eq!(status, StatusCode::BAD_REQUEST, "{problem}");
    assert_eq!(problem["field"], "skills[0].files[0].text");
    let (status, _) = send(&app, Method::GET, "/servers/bad", Value::Null).await;
    assert_eq!(status, StatusCode::NOT_FOUND, "nothing was created");
}

#[test]
fn a_servers_json_with_a_bad_skill_points_at_the_member() {
    let document = json!({ "servers": [{ "name": "s", "skills": [{ "files": [
        { "path": "SKILL.md", "text": SKILL_MD },
        { "path": "../up.md", "text": "x" }
    ] }] }] });
    let problems = mcp_decoy::cli::config::check(&document).expect_err("a path that escapes");
    let text: Vec<String> = problems.iter().map(ToString::to_string).collect();
    assert!(
        text.iter()
            .any(|p| p.starts_with("/servers/0/skills/0/files/1/path:")
                && p.contains("`skills[0].files[1].path`")),
        "{text:?}"
    );
    let unknown = json!({ "servers": [{ "name": "s", "skills": [{ "files": [], "extra": 1 }] }] });
    let problems = mcp_decoy::cli::config::check(&unknown).expect_err("an unknown member");
    assert!(
        problems.iter().any(|p| p.to_string().contains("extra")),
        "{problems:?}"
    );
}
