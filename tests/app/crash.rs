//! Crash safety of `servers.json` (issue 7, "Proof"): SIGKILL the app in the middle of a burst
//! of REST writes; the file must still parse, pass the same checks as at start-up, and hold
//! every write the API acknowledged before the kill. A restart must serve it.

use crate::common::app_process;

use std::collections::BTreeSet;
use std::sync::atomic::{AtomicUsize, Ordering};
use std::sync::{Arc, Mutex};
use std::time::Duration;

use app_process::{Running, Scratch};
use serde_json::{Value, json};

/// Writes fired at the app; the kill comes well before the last one.
const BURST: usize = 200;
/// Writers in flight at once, so the kill can land while several saves are queued.
const WRITERS: usize = 4;

fn tool(name: &str) -> Value {
    json!({
        "name": name,
        "description": format!("Tool {name} of the crash burst"),
        "inputSchema": { "type": "object", "properties": { "n": { "type": "number" } } },
        "template": { "content": [{ "type": "text", "text": "${args.n}" }] },
        "published": true
    })
}

/// The names of the tools of `server` in `file`, after checking the file as start-up does.
fn tools_in(file: &std::path::Path, server: &str) -> BTreeSet<String> {
    let text = std::fs::read_to_string(file).expect("servers.json exists after the kill");
    let document: Value = serde_json::from_str(&text)
        .unwrap_or_else(|e| panic!("servers.json is torn after SIGKILL: {e}\n{text}"));
    let config = mcp_decoy::cli::config::check(&document)
        .unwrap_or_else(|problems| panic!("servers.json is invalid after SIGKILL: {problems:?}"));
    config
        .servers
        .iter()
        .find(|s| s.name == server)
        .unwrap_or_else(|| panic!("no `{server}` server in servers.json"))
        .tools
        .iter()
        .map(|t| t.name.clone())
        .collect()
}

/// What one round saw: the writes acknowledged before the kill, and all acknowledged.
struct Round {
    at_kill: BTreeSet<String>,
    acknowledged: BTreeSet<String>,
}

/// Starts the app on `dir`, fires up to [`BURST`] tool POSTs named `{prefix}{n}` from
/// [`WRITERS`] tasks, and SIGKILLs the process once `kill_after` are acknowledged plus a few
/// hundred microseconds, so the kill lands at a different point of a save each round.
async fn burst_then_kill(
    dir: &std::path::Path,
    http: &reqwest::Client,
    prefix: &str,
    kill_after: usize,
    delay: Duration,
) -> Round {
    let app = Running::start(dir);
    let url = format!("{}/servers/echo/tools", app.api());
    let token = app.api_token.clone();

    // Fail fast, with the API's answer, if the route is missing or refuses the body.
    let first = format!("{prefix}0");
    let response = http
        .post(&url)
        .bearer_auth(&token)
        .json(&tool(&first))
        .send()
        .await
        .expect("POST the first tool");
    let status = response.status();
    assert!(
        status.is_success(),
        "POST {url}: {status} {}",
        response.text().await.unwrap_or_default()
    );

    let acknowledged = Arc::new(Mutex::new(BTreeSet::from([first])));
    let next = Arc::new(AtomicUsize::new(1));
    let writers: Vec<_> = (0..WRITERS)
        .map(|_| {
            let (http, url, token, acknowledged, next, prefix) = (
                http.clone(),
                url.clone(),
                token.clone(),
                acknowledged.clone(),
                next.clone(),
                prefix.to_string(),
            );
            tokio::spawn(async move {
                loop {
                    let n = next.fetch_add(1, Ordering::Relaxed);
                    if n >= BURST {
                        return;
                    }
                    let name = format!("{prefix}{n}");
                    match http
                        .post(&url)
                        .bearer_auth(&token)
                        .json(&tool(&name))
                        .send()
                        .await
                    {
                        Ok(response) if response.status().is_success() => {
                            acknowledged.lock().expect("lock").insert(name);
                        }
                        // The process is gone: whatever was in flight was never acknowledged.
                        _ => return,
                    }
                }
            })
        })
        .collect();

    let deadline = tokio::time::Instant::now() + Duration::from_secs(30);
    while acknowledged.lock().expect("lock").len() < kill_after {
        assert!(
            tokio::time::Instant::now() < deadline,
            "the burst is too slow"
        );
        tokio::time::sleep(Duration::from_millis(1)).await;
    }
    std::thread::sleep(delay);
    app.signal("KILL");
    let at_kill = acknowledged.lock().expect("lock").clone();
    for writer in writers {
        writer.await.expect("writer task");
    }
    let (status, _) = tokio::task::spawn_blocking(move || app.wait())
        .await
        .expect("wait");
    assert!(!status.success(), "the app was killed, not stopped");
    let acknowledged = acknowledged.lock().expect("lock").clone();
    assert!(
        acknowledged.len() < BURST,
        "the kill came after the burst ended ({} of {BURST} acknowledged); nothing was proven",
        acknowledged.len()
    );
    Round {
        at_kill,
        acknowledged,
    }
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn sigkill_during_a_burst_of_writes_keeps_every_acknowledged_write() {
    let dir = Scratch::new("crash");
    let config = dir.path().join("servers.json");
    let http = reqwest::Client::builder()
        .no_proxy()
        .build()
        .expect("client");

    // Each round restarts on the file the last kill left, and kills at another point.
    let mut expected = BTreeSet::from(["echo".to_string()]);
    for (round, (kill_after, delay_us)) in [(20, 0), (35, 150), (50, 400), (30, 900), (45, 1_700)]
        .into_iter()
        .enumerate()
    {
        let prefix = format!("r{round}_t");
        let delay = Duration::from_micros(delay_us);
        let Round {
            at_kill,
            acknowledged,
        } = burst_then_kill(dir.path(), &http, &prefix, kill_after, delay).await;

        // Every write acknowledged before the kill (and any 2xx that raced it) is on disk.
        let on_disk = tools_in(&config, "echo");
        let lost: Vec<_> = acknowledged.difference(&on_disk).collect();
        assert!(
            lost.is_empty(),
            "round {round}: acknowledged but not in servers.json: {lost:?}"
        );
        assert!(at_kill.is_subset(&on_disk));
        // Earlier rounds' tools survived too, and at most the writes in flight at the kill
        // are on disk without an acknowledgement.
        assert!(
            expected.is_subset(&on_disk),
            "round {round}: earlier tools lost"
        );
        let this_round: BTreeSet<_> = on_disk.difference(&expected).cloned().collect();
        let unacknowledged: Vec<_> = this_round.difference(&acknowledged).collect();
        assert!(
            unacknowledged.len() <= WRITERS
                && unacknowledged.iter().all(|name| name.starts_with(&prefix)),
            "round {round}: unexpected tools on disk: {unacknowledged:?}"
        );
        eprintln!(
            "round {round}: {} of {BURST} writes acknowledged ({} before the kill), {} more on disk",
            acknowledged.len(),
            at_kill.len(),
            unacknowledged.len()
        );
        expected = on_disk;
    }

    // The app starts again on that file and serves every tool.
    let again = Running::start(dir.path());
    let listed: Vec<Value> = http
        .get(format!("{}/servers/echo/tools", again.api()))
        .bearer_auth(&again.api_token)
        .send()
        .await
        .expect("GET tools")
        .error_for_status()
        .expect("tools listed after the restart")
        .json()
        .await
        .expect("JSON");
    let listed: BTreeSet<String> = listed
        .iter()
        .filter_map(|t| t["name"].as_str().map(str::to_string))
        .collect();
    assert_eq!(listed, expected);
}
