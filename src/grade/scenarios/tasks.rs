//! `tasks-client-poll`, mcp-decoy's own (the suite has no tasks client scenario,
//! conformance#374): a tool that runs only as a task; the client calls it, polls the task to
//! its end keeping the interval it was given, and stops. Both generations: 2025-11-25
//! (`params.task`, `tasks/get`, `tasks/result`; `basic/utilities/tasks`) and the 2026-07-28
//! extension (`CreateTaskResult`, `tasks/get` with `Mcp-Name`; `extensions/tasks`).

use std::time::Duration;

use chrono::{DateTime, Utc};
use serde_json::{Value, json};

use crate::grade::check::{Check, CheckStatus, SpecReference};
use crate::log::{Entry, Log, Transport};
use crate::spec::{TaskSpec, TaskSupport};
use crate::{MockMcpServer, MockMcpServerBuilder, ProtocolVersion, Tool};

const TOOL: &str = "slow_job";
/// The interval the task asks for; short, so a run takes about half a second.
const POLL_INTERVAL_MS: u64 = 100;
/// Network jitter a poll may arrive early by and still have kept the interval.
const SLACK: Duration = Duration::from_millis(5);
const TERMINAL: [&str; 3] = ["completed", "failed", "cancelled"];

pub(super) fn server() -> MockMcpServerBuilder {
    MockMcpServer::builder()
        .name("tasks-client-poll-server")
        .tool(
            Tool::new(TOOL)
                .description("A job that runs only as a task, for about half a second")
                .task_with(TaskSpec {
                    poll_interval_ms: POLL_INTERVAL_MS,
                    ..TaskSpec::new(TaskSupport::Required)
                })
                .delay(Duration::from_millis(500))
                .respond_with(json!({ "content": [{ "type": "text", "text": "job done" }] })),
        )
}

fn reference(version: ProtocolVersion) -> SpecReference {
    if version.is_modern() {
        SpecReference::new(
            "MCP-Tasks-Extension",
            "https://modelcontextprotocol.io/extensions/tasks/overview",
        )
    } else {
        SpecReference::new(
            "MCP-Tasks",
            "https://modelcontextprotocol.io/specification/2025-11-25/basic/utilities/tasks",
        )
    }
}

/// The task the client's call created: its id and the interval it was asked to keep.
struct Created {
    id: String,
    interval: Duration,
}

/// One `tasks/get` of the task: when it arrived, the status it was answered, and its
/// `Mcp-Name` header (HTTP only).
struct Poll {
    at: DateTime<Utc>,
    status: Option<String>,
    mcp_name: Option<String>,
    over_http: bool,
}

fn created(log: &Log) -> Option<Created> {
    log.mcp()
        .from_client()
        .method("tools/call")
        .all()
        .into_iter()
        .filter(|m| m.params()["name"] == TOOL)
        .find_map(|call| {
            let result = &call.response.as_ref()?.value()["result"];
            // 2026-07-28: the task itself, flattened; 2025-11-25: under `task`.
            let (task, interval) = if result["resultType"] == "task" {
                (result, &result["pollIntervalMs"])
            } else {
                (&result["task"], &result["task"]["pollInterval"])
            };
            Some(Created {
                id: task["taskId"].as_str()?.to_string(),
                interval: Duration::from_millis(interval.as_u64().unwrap_or(POLL_INTERVAL_MS)),
            })
        })
}

fn polls(log: &Log, id: &str) -> Vec<Poll> {
    log.mcp()
        .from_client()
        .method("tasks/get")
        .records()
        .into_iter()
        .filter(|(_, m)| m.params()["taskId"] == id)
        .map(|(record, m)| {
            let header = m
                .carried_by
                .and_then(|http| log.get(http))
                .and_then(|r| match &r.entry {
                    Entry::Http(h) => h.request_headers.get("mcp-name").map(str::to_string),
                    _ => None,
                });
            Poll {
                at: record.at,
                status: m
                    .response
                    .as_ref()
                    .and_then(|r| r.value()["result"]["status"].as_str())
                    .map(str::to_string),
                mcp_name: header,
                over_http: m.transport == Transport::Http,
            }
        })
        .collect()
}

/// Whether a `tasks/result` (2025-11-25) of the task was answered with its result.
fn result_fetched(log: &Log, id: &str) -> bool {
    log.mcp()
        .from_client()
        .method("tasks/result")
        .all()
        .into_iter()
        .any(|m| {
            m.params()["taskId"] == id
                && m.response
                    .as_ref()
                    .is_some_and(|r| r.value().get("result").is_some())
        })
}

pub(super) fn checks(log: &Log, version: ProtocolVersion) -> Vec<Check> {
    let check = |id: &str, name: &str, description: &str, status| {
        Check::new(id, name, description, status, reference(version))
    };
    let created_check = |status| {
        check(
            "tasks-client-task-created",
            "TasksClientTaskCreated",
            "The client calls a tool that runs only as a task as a task",
            status,
        )
    };
    let Some(task) = created(log) else {
        let called = log
            .mcp()
            .from_client()
            .method("tools/call")
            .all()
            .into_iter()
            .any(|m| m.params()["name"] == TOOL);
        let why = if called {
            format!(
                "the client called {TOOL} but not as a task ({}), so no task was created",
                if version.is_modern() {
                    "without declaring the tasks extension in `_meta`"
                } else {
                    "without `params.task`"
                }
            )
        } else {
            format!("the client never called {TOOL}")
        };
        let mut out = vec![created_check(CheckStatus::Failure).error(why.clone())];
        for (id, name) in [
            (
                "tasks-client-reached-terminal",
                "TasksClientReachedTerminal",
            ),
            ("tasks-client-poll-interval", "TasksClientPollInterval"),
            ("tasks-client-stops-polling", "TasksClientStopsPolling"),
            ("tasks-client-mcp-name", "TasksClientMcpName"),
        ] {
            out.push(
                check(
                    id,
                    name,
                    "Judged on the task the call creates",
                    CheckStatus::Skipped,
                )
                .error(format!("no task to judge: {why}")),
            );
        }
        return out;
    };
    let polls = polls(log, &task.id);
    let mut out = vec![created_check(CheckStatus::Success).details(json!({ "taskId": task.id }))];

    // Polled (or, in 2025-11-25, fetched) to a terminal status.
    let first_terminal = polls
        .iter()
        .position(|p| p.status.as_deref().is_some_and(|s| TERMINAL.contains(&s)));
    let fetched = !version.is_modern() && result_fetched(log, &task.id);
    let last_seen = polls
        .iter()
        .rev()
        .find_map(|p| p.status.clone())
        .unwrap_or_else(|| "none".into());
    let reached = check(
        "tasks-client-reached-terminal",
        "TasksClientReachedTerminal",
        "The client follows the task until it reaches a terminal status (completed, failed or cancelled)",
        if first_terminal.is_some() || fetched {
            CheckStatus::Success
        } else {
            CheckStatus::Failure
        },
    )
    .details(json!({ "polls": polls.len(), "lastStatus": last_seen, "resultFetched": fetched }));
    out.push(if first_terminal.is_some() || fetched {
        reached
    } else {
        reached.error(format!(
            "the client stopped following task {} before it ended: {} poll(s), last status seen `{last_seen}`",
            task.id,
            polls.len()
        ))
    });

    // The interval between polls.
    let gaps: Vec<Duration> = polls
        .windows(2)
        .map(|pair| (pair[1].at - pair[0].at).to_std().unwrap_or_default())
        .collect();
    let short: Vec<u128> = gaps
        .iter()
        .filter(|gap| **gap + SLACK < task.interval)
        .map(Duration::as_millis)
        .collect();
    let interval_ms = task.interval.as_millis();
    let interval = check(
        "tasks-client-poll-interval",
        "TasksClientPollInterval",
        "Requestors SHOULD respect the poll interval the task gives when polling",
        if short.is_empty() {
            CheckStatus::Success
        } else {
            CheckStatus::Warning
        },
    )
    .details(json!({
        "intervalMs": interval_ms,
        "gapsMs": gaps.iter().map(Duration::as_millis).collect::<Vec<_>>(),
    }));
    out.push(if short.is_empty() {
        interval
    } else {
        interval.error(format!(
            "{} of {} gaps between polls were shorter than the task's {interval_ms} ms: {short:?} ms",
            short.len(),
            gaps.len()
        ))
    });

    // No polls after the task ended.
    let after = first_terminal.map_or(0, |at| polls.len() - at - 1);
    let stops = check(
        "tasks-client-stops-polling",
        "TasksClientStopsPolling",
        "The client stops polling once the task reached a terminal status",
        if after == 0 {
            CheckStatus::Success
        } else {
            CheckStatus::Warning
        },
    )
    .details(json!({ "pollsAfterTerminal": after }));
    out.push(if after == 0 {
        stops
    } else {
        stops.error(format!(
            "the client polled task {} {after} more time(s) after it had ended",
            task.id
        ))
    });

    // 2026-07-28: `Mcp-Name` names the task on every `tasks/get`.
    let name = |status| {
        check(
            "tasks-client-mcp-name",
            "TasksClientMcpName",
            "A 2026-07-28 client sends Mcp-Name with the taskId on tasks/get",
            status,
        )
    };
    out.push(if !version.is_modern() {
        name(CheckStatus::Skipped).error("2025-11-25 has no Mcp-Name header")
    } else if polls.iter().any(|p| !p.over_http) {
        name(CheckStatus::Skipped).error("the client polled over stdio, which has no headers")
    } else if polls.is_empty() {
        name(CheckStatus::Skipped).error("the client never sent tasks/get")
    } else {
        let wrong: Vec<Value> = polls
            .iter()
            .filter(|p| p.mcp_name.as_deref() != Some(task.id.as_str()))
            .map(|p| json!(p.mcp_name))
            .collect();
        if wrong.is_empty() {
            name(CheckStatus::Success).details(json!({ "polls": polls.len() }))
        } else {
            name(CheckStatus::Failure)
                .details(json!({ "sent": wrong }))
                .error(format!(
                    "{} of {} tasks/get requests did not carry `Mcp-Name: {}`",
                    wrong.len(),
                    polls.len(),
                    task.id
                ))
        }
    });
    out
}
