//! Tasks in the app: a tool's `task` settings in `servers.json` and over the REST API, the
//! tasks a server keeps (`GET /servers/{server}/tasks`), and moving a server's clock
//! (`POST /servers/{server}/clock`) so a task's delays pass without waiting.

use crate::common;
use crate::common::app_process;

use app_process::{Running, Scratch};
use common::PATIENCE;
use common::peer::Peer;
use reqwest::header::CONTENT_TYPE;
use reqwest::{Method, StatusCode};
use serde_json::{Value, json};

const EXTENSION: &str = "io.modelcontextprotocol/tasks";

struct Api {
    app: Running,
    _dir: Scratch,
    http: reqwest::Client,
}

impl Api {
    /// The app with `servers` in its `servers.json`.
    fn start(name: &str, servers: Value) -> Api {
        let dir = Scratch::new(name);
        let config = json!({ "servers": servers });
        std::fs::write(dir.path().join("servers.json"), config.to_string())
            .expect("write servers.json");
        let app = Running::start(dir.path());
        let http = app.api_client();
        Api {
            app,
            _dir: dir,
            http,
        }
    }

    async fn send(&self, method: Method, path: &str, body: Option<Value>) -> (StatusCode, Value) {
        let what = format!("{method} {path}");
        let mut request = self
            .http
            .request(method, format!("{}{path}", self.app.api()));
        if let Some(body) = body {
            request = request
                .header(CONTENT_TYPE, "application/json")
                .body(body.to_string());
        }
        let response = tokio::time::timeout(PATIENCE, request.send())
            .await
            .unwrap_or_else(|_| panic!("{what}: no answer within {PATIENCE:?}"))
            .unwrap_or_else(|e| panic!("{what}: the request failed: {e}"));
        let status = response.status();
        let body = response
            .json()
            .await
            .unwrap_or_else(|e| panic!("{what}: the body is not JSON: {e}"));
        (status, body)
    }
}

fn build_server() -> Value {
    json!([{
        "name": "ci",
        "tools": [{
            "name": "build",
            "task": { "support": "required", "pollIntervalMs": 500 },
            "script": [{ "step": "delay", "ms": 5000 }],
            "template": { "content": [{ "type": "text", "text": "built ${args.target}" }] }
        }]
    }])
}

#[tokio::test]
async fn a_task_tool_from_servers_json_runs_and_the_api_shows_it_and_moves_its_clock() {
    let api = Api::start("app-tasks", build_server());
    let peer = Peer::modern(
        &api.app.mcp_url("ci"),
        json!({ "extensions": { EXTENSION: {} } }),
    );

    let created = peer
        .result(
            1,
            "tools/call",
            json!({ "name": "build", "arguments": { "target": "app" } }),
        )
        .await;
    let id = created["taskId"].as_str().expect("a task").to_string();
    peer.result(2, "tasks/get", json!({ "taskId": id })).await;
    let (status, clock) = api
        .send(
            Method::POST,
            "/servers/ci/clock",
            Some(json!({ "advanceMs": 5000 })),
        )
        .await;
    let done = peer.result(3, "tasks/get", json!({ "taskId": id })).await;
    let (listed, tasks) = api.send(Method::GET, "/servers/ci/tasks", None).await;
    let (one, task) = api
        .send(Method::GET, &format!("/servers/ci/tasks/{id}"), None)
        .await;

    assert_eq!(created["pollIntervalMs"], 500);
    assert_eq!(status, StatusCode::OK, "{clock}");
    assert!(clock["now"].is_string());
    assert_eq!(done["status"], "completed");
    assert_eq!(done["result"]["content"][0]["text"], "built app");
    assert_eq!(listed, StatusCode::OK);
    assert_eq!(tasks.as_array().map(Vec::len), Some(1), "{tasks}");
    assert_eq!(one, StatusCode::OK);
    assert_eq!(task["id"], json!(id));
    assert_eq!(task["tool"], "build");
    assert_eq!(task["era"], "modern");
    assert_eq!(task["status"], "completed");
    assert_eq!(task["pollCount"], 2);
    assert_eq!(task["pollIntervalsMs"].as_array().map(Vec::len), Some(1));
    assert_eq!(task["honouredPollInterval"], true);
}

#[tokio::test]
async fn bad_task_settings_clock_moves_and_unknown_tasks_are_refused_naming_the_field() {
    let api = Api::start("app-tasks-refused", build_server());
    let bad_tool = json!({ "name": "quick", "published": true,
        "task": { "support": "optional", "ttlMs": 0 } });
    let unknown_member = json!({ "name": "quick", "task": { "support": "optional", "speed": 1 } });

    let (created, problem) = api
        .send(Method::POST, "/servers/ci/tools", Some(bad_tool))
        .await;
    let (member, member_problem) = api
        .send(Method::POST, "/servers/ci/tools", Some(unknown_member))
        .await;
    let (zero, zero_problem) = api
        .send(
            Method::POST,
            "/servers/ci/clock",
            Some(json!({ "advanceMs": 0 })),
        )
        .await;
    let (extra, extra_problem) = api
        .send(
            Method::POST,
            "/servers/ci/clock",
            Some(json!({ "advanceMs": 5, "back": true })),
        )
        .await;
    let (missing, missing_problem) = api.send(Method::GET, "/servers/ci/tasks/nope", None).await;

    assert_eq!(created, StatusCode::BAD_REQUEST, "{problem}");
    assert!(
        problem["detail"]
            .as_str()
            .is_some_and(|d| d.contains("task.ttlMs")),
        "{problem}"
    );
    assert_eq!(member, StatusCode::BAD_REQUEST, "{member_problem}");
    assert!(
        member_problem["detail"]
            .as_str()
            .is_some_and(|d| d.contains("speed")),
        "{member_problem}"
    );
    assert_eq!(zero, StatusCode::BAD_REQUEST);
    assert_eq!(zero_problem["field"], "advanceMs");
    assert_eq!(extra, StatusCode::BAD_REQUEST);
    assert!(
        extra_problem["detail"]
            .as_str()
            .is_some_and(|d| d.contains("back")),
        "{extra_problem}"
    );
    assert_eq!(missing, StatusCode::NOT_FOUND);
    assert_eq!(missing_problem["field"], "task");
}
