//! Hostile templates against the release-shaped app (issue 13, items 1–5): each is refused
//! or stopped by a limit, and while one runs the app keeps answering everyone else, stops on
//! SIGTERM, and stays small. Bounds are generous (seconds): these machines are noisy, and a
//! regression shows as a stall of minutes or a crashed process, not as a slow answer.

use crate::common;
use crate::common::app_process;

use std::time::{Duration, Instant};

use app_process::{Running, Scratch, command_in, free_ports, run_to_exit};
use serde_json::{Value, json};

/// How long the app may take to answer a normal request while a hostile one runs.
const PROMPT: Duration = Duration::from_secs(10);

fn tool(name: &str, template: Value) -> Value {
    json!({ "name": name, "template": template, "published": true })
}

fn nested(open: &str, close: &str, n: usize) -> String {
    format!("{}1{}", open.repeat(n), close.repeat(n))
}

/// The templates that used to abort the process (stack overflow) or hold the write path for
/// minutes (exponential parse), with the limit each one hits.
fn hostile() -> Vec<(Value, &'static str)> {
    vec![
        (
            json!({ "$eval": vec!["1"; 10_000].join("+") }),
            "nests deeper than 128",
        ),
        (
            json!({ "$eval": nested("(", ")", 1_000) }),
            "nests deeper than 128",
        ),
        (
            json!({ "$eval": nested("[", "]", 500) }),
            "nests deeper than 128",
        ),
        (
            json!({ "$eval": nested("{a:", "}", 1_000) }),
            "nests deeper than 128",
        ),
        (
            json!({ "$eval": format!("args{}", ".a".repeat(10_000)) }),
            "nests deeper than 128",
        ),
        (
            json!({ "text": format!("${{{}}}", nested("(", ")", 1_000)) }),
            "nests deeper than 128",
        ),
        (
            json!({ "$map": { "$eval": "range(0, 10000000)" }, "each(x)": "${x}" }),
            "more than 1000000 steps",
        ),
    ]
}

fn rss_kib(pid: u32) -> u64 {
    let status = std::fs::read_to_string(format!("/proc/{pid}/status")).expect("procfs");
    status
        .lines()
        .find_map(|l| l.strip_prefix("VmRSS:"))
        .and_then(|v| v.split_whitespace().next())
        .and_then(|v| v.parse().ok())
        .expect("VmRSS in /proc/PID/status")
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn hostile_templates_over_rest_are_400_naming_the_tool_and_the_limit() {
    let dir = Scratch::new("hostile-rest");
    let app = Running::start(dir.path());
    let http = app.api_client();
    let url = format!("{}/servers/echo/tools", app.api());
    // The nested-parentheses template took 20 s in json-e: it must not hold other writes.
    let started = Instant::now();
    for (n, (template, limit)) in hostile().into_iter().enumerate() {
        let name = format!("hostile_{n}");
        let reply = http
            .post(&url)
            .json(&tool(&name, template))
            .send()
            .await
            .expect("the app answers");
        assert_eq!(reply.status(), 400, "{name}");
        let problem: Value = reply.json().await.expect("a JSON problem");
        let text = problem.to_string();
        assert!(
            text.contains(&name) && text.contains(limit),
            "{name}: {text}"
        );
    }
    assert!(started.elapsed() < PROMPT * 2, "{:?}", started.elapsed());
    let created = http
        .post(format!("{}/servers", app.api()))
        .json(&json!({ "name": "after" }))
        .send()
        .await
        .expect("the app still answers");
    assert_eq!(created.status(), 201);
    // Still alive, and nothing was written for the refused tools.
    let tools: Value = http
        .get(&url)
        .send()
        .await
        .expect("list")
        .json()
        .await
        .expect("JSON");
    assert!(!tools.to_string().contains("hostile_"), "{tools}");
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn a_looping_call_ends_with_a_limit_error_while_other_clients_are_served() {
    // Arrange: a tool whose loop size comes from the arguments, so only a call can run it.
    let dir = Scratch::new("hostile-call");
    let app = Running::start(dir.path());
    let template = json!({ "content": { "$map": { "$eval": "range(0, args.n)" },
                                        "each(x)": { "type": "text", "text": "${x}" } } });
    let created = app
        .api_client()
        .post(format!("{}/servers/echo/tools", app.api()))
        .json(
            &json!({ "name": "spin", "template": template, "published": true,
                       "inputSchema": { "type": "object" } }),
        )
        .send()
        .await
        .expect("create");
    assert_eq!(created.status(), 201, "{:?}", created.text().await);
    let before = rss_kib(app.pid());

    // Act: two clients run the loop ten million times each, at once.
    let url = app.mcp_url("echo");
    let spin = |url: String| async move {
        let client = common::connect(&url).await;
        let result = client
            .call_tool(common::call("spin", json!({ "n": 10_000_000 })))
            .await
            .expect("an answer, not a dropped connection");
        client.cancel().await.expect("close");
        result
    };
    let spinning = [
        tokio::spawn(spin(url.clone())),
        tokio::spawn(spin(url.clone())),
    ];
    let started = Instant::now();
    let other = common::connect(&url).await;
    let echoed = common::call_ok(&other, "echo", json!({ "message": "still here" })).await;
    let served_in = started.elapsed();

    // Assert
    assert_eq!(common::text(&echoed), "still here");
    assert!(served_in < PROMPT, "a fresh client waited {served_in:?}");
    for spinning in spinning {
        let result = spinning.await.expect("the task ends");
        assert_eq!(result.is_error, Some(true));
        let text = common::text(&result);
        assert!(
            text.contains("LimitError") && text.contains("steps"),
            "{text}"
        );
    }
    let after = rss_kib(app.pid());
    assert!(
        after < before + 100 * 1024,
        "RSS {before} KiB -> {after} KiB"
    );
    other.cancel().await.expect("close");
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn sigterm_stops_the_app_while_a_looping_render_runs() {
    let dir = Scratch::new("hostile-term");
    let app = Running::start(dir.path());
    // A loop that spends its whole time budget building small values.
    let template = json!({ "content": [{ "type": "text", "text": { "$json": {
        "$map": { "$eval": "range(0, args.n)" },
        "each(x)": { "$map": { "$eval": "range(0, args.n)" }, "each(y)": "${x}" } } } }] });
    let created = app
        .api_client()
        .post(format!("{}/servers/echo/tools", app.api()))
        .json(&tool("slow", template))
        .send()
        .await
        .expect("create");
    assert_eq!(created.status(), 201);
    let client = common::connect(&app.mcp_url("echo")).await;
    let call = tokio::spawn(async move {
        client
            .call_tool(common::call("slow", json!({ "n": 900 })))
            .await
    });
    tokio::time::sleep(Duration::from_millis(200)).await;

    let started = Instant::now();
    app.signal("TERM");
    let (status, stderr) = tokio::task::spawn_blocking(move || app.wait())
        .await
        .expect("wait");
    assert!(status.success(), "{status:?}: {stderr}");
    assert!(started.elapsed() < PROMPT, "{:?}", started.elapsed());
    // The client's call lost its server; it may retry forever, so it is not awaited.
    call.abort();
}

#[test]
fn hostile_templates_in_servers_json_stop_start_up_naming_the_pointer() {
    for (n, (template, limit)) in hostile().into_iter().enumerate() {
        let dir = Scratch::new(&format!("hostile-file-{n}"));
        let document = json!({ "servers": [ { "name": "h", "tools": [ tool("t", template) ] } ] });
        std::fs::write(dir.path().join("servers.json"), document.to_string()).expect("write");
        let (mcp_port, ui_port) = free_ports();
        let started = Instant::now();
        let out = run_to_exit(command_in(dir.path(), mcp_port, ui_port));
        assert_eq!(out.status.code(), Some(1), "case {n}: {}", out.stderr);
        assert!(
            out.stderr.contains("/servers/0/tools/0/template") && out.stderr.contains(limit),
            "case {n}: {}",
            out.stderr
        );
        assert!(
            started.elapsed() < PROMPT,
            "case {n}: {:?}",
            started.elapsed()
        );
    }
}
