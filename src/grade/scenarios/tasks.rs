//! mcp-decoy's own tasks scenarios (the suite has none, conformance#374), each a tool that
//! runs only as a task: `tasks-client-poll` (poll it to its end keeping the interval, then
//! stop), `tasks-client-input` (answer the input it asks for mid-task),
//! `tasks-client-cancel` (cancel one that never ends). Both generations: 2025-11-25
//! (`params.task`, `tasks/get`, `tasks/result`, `tasks/cancel`; `basic/utilities/tasks`)
//! and the 2026-07-28 extension (`CreateTaskResult`, `tasks/get`, `tasks/update`,
//! `tasks/cancel`, with `Mcp-Name`; `extensions/tasks`), judged from the capture.

use std::time::Duration;

use chrono::{DateTime, Utc};
use serde_json::{Value, json};

use crate::grade::check::{Check, CheckStatus, SpecReference};
use crate::log::{Entry, Log, Transport};
use crate::spec::{AskMethod, TaskFaults, TaskSpec, TaskSupport};
use crate::{MockMcpServer, MockMcpServerBuilder, ProtocolVersion, Tool};

const TOOL: &str = "slow_job";
const INPUT_TOOL: &str = "confirm_job";
const CANCEL_TOOL: &str = "endless_job";
/// The interval the task asks for; short, so a run takes about half a second.
const POLL_INTERVAL_MS: u64 = 100;
/// Network jitter a poll may arrive early by and still have kept the interval.
const SLACK: Duration = Duration::from_millis(5);
const TERMINAL: [&str; 3] = ["completed", "failed", "cancelled"];

fn task_only() -> TaskSpec {
    TaskSpec {
        poll_interval_ms: POLL_INTERVAL_MS,
        ..TaskSpec::new(TaskSupport::Required)
    }
}

pub(super) fn server() -> MockMcpServerBuilder {
    MockMcpServer::builder()
        .name("tasks-client-poll-server")
        .tool(
            Tool::new(TOOL)
                .description("A job that runs only as a task, for about half a second")
                .task_with(task_only())
                .delay(Duration::from_millis(500))
                .respond_with(json!({ "content": [{ "type": "text", "text": "job done" }] })),
        )
}

pub(super) fn input_server() -> MockMcpServerBuilder {
    MockMcpServer::builder()
        .name("tasks-client-input-server")
        .tool(
            Tool::new(INPUT_TOOL)
                .description("A job that runs only as a task and asks for a confirmation mid-task")
                .task_with(task_only())
                .ask(
                    "confirm",
                    AskMethod::Elicitation,
                    json!({ "message": "Go on with the job?", "requestedSchema": { "type": "object",
                    "properties": { "confirmed": { "type": "boolean", "default": true } },
                    "required": ["confirmed"] } }),
                )
                .respond_with(json!({ "content": [{ "type": "text",
                "text": "confirmed: ${answers.confirm.content.confirmed}" }] })),
        )
}

pub(super) fn cancel_server() -> MockMcpServerBuilder {
    MockMcpServer::builder()
        .name("tasks-client-cancel-server")
        .tool(
            Tool::new(CANCEL_TOOL)
                .description("A job that runs only as a task and never ends: cancel it")
                .task_with(TaskSpec {
                    faults: TaskFaults {
                        never_finish: true,
                        ..TaskFaults::default()
                    },
                    ..task_only()
                }),
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

/// The task the client's call created: its id, the interval it was asked to keep, and the
/// client's polls of it.
struct Created {
    id: String,
    interval: Duration,
    polls: Vec<Poll>,
}

/// One `tasks/get` of the task: when it arrived, the status it was answered, and its
/// `Mcp-Name` header (HTTP only).
struct Poll {
    at: DateTime<Utc>,
    status: Option<String>,
    mcp_name: Option<String>,
    over_http: bool,
}

fn created(log: &Log, tool: &str) -> Option<Created> {
    log.mcp()
        .from_client()
        .method("tools/call")
        .all()
        .into_iter()
        .filter(|m| m.params()["name"] == tool)
        .find_map(|call| {
            let result = &call.response.as_ref()?.value()["result"];
            // 2026-07-28: the task itself, flattened; 2025-11-25: under `task`.
            let (task, interval) = if result["resultType"] == "task" {
                (result, &result["pollIntervalMs"])
            } else {
                (&result["task"], &result["task"]["pollInterval"])
            };
            let id = task["taskId"].as_str()?.to_string();
            Some(Created {
                polls: polls(log, &id),
                id,
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

/// What every tasks check needs: the capture, the revision, a check with the right reference.
struct Judge<'a> {
    log: &'a Log,
    version: ProtocolVersion,
}

impl Judge<'_> {
    fn check(&self, id: &str, name: &str, description: &str, status: CheckStatus) -> Check {
        Check::new(id, name, description, status, reference(self.version))
    }

    /// `tasks-client-task-created`, and the task; without one, the checks `rest` names are
    /// SKIPPED with the reason.
    fn created(&self, tool: &str, rest: &[(&str, &str)]) -> Result<(Created, Check), Vec<Check>> {
        let check = |status| {
            self.check(
                "tasks-client-task-created",
                "TasksClientTaskCreated",
                "The client calls a tool that runs only as a task as a task",
                status,
            )
        };
        if let Some(task) = created(self.log, tool) {
            let success = check(CheckStatus::Success).details(json!({ "taskId": task.id }));
            return Ok((task, success));
        }
        let why = if super::called(self.log, tool) {
            format!(
                "the client called {tool} but not as a task ({}), so no task was created",
                if self.version.is_modern() {
                    "without declaring the tasks extension in `_meta`"
                } else {
                    "without `params.task`"
                }
            )
        } else {
            format!("the client never called {tool}")
        };
        let mut out = vec![check(CheckStatus::Failure).error(why.clone())];
        for (id, name) in rest {
            out.push(
                self.check(
                    id,
                    name,
                    "Judged on the task the call creates",
                    CheckStatus::Skipped,
                )
                .error(format!("no task to judge: {why}")),
            );
        }
        Err(out)
    }

    /// Followed (or, in 2025-11-25, fetched) to a terminal status.
    fn reached_terminal(&self, task: &Created) -> Check {
        let polls = &task.polls;
        let seen = first_terminal(polls).is_some();
        let fetched = !self.version.is_modern() && result_fetched(self.log, &task.id);
        let last_seen = polls
            .iter()
            .rev()
            .find_map(|p| p.status.clone())
            .unwrap_or_else(|| "none".into());
        let check = self
            .check(
                "tasks-client-reached-terminal",
                "TasksClientReachedTerminal",
                "The client follows the task until it reaches a terminal status (completed, failed or cancelled)",
                if seen || fetched {
                    CheckStatus::Success
                } else {
                    CheckStatus::Failure
                },
            )
            .details(json!({ "polls": polls.len(), "lastStatus": last_seen, "resultFetched": fetched }));
        if seen || fetched {
            check
        } else {
            check.error(format!(
                "the client stopped following task {} before it ended: {} poll(s), last status seen `{last_seen}`",
                task.id,
                polls.len()
            ))
        }
    }

    /// The interval between polls.
    fn poll_interval(&self, task: &Created) -> Check {
        let polls = &task.polls;
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
        let check = self
            .check(
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
        if short.is_empty() {
            check
        } else {
            check.error(format!(
                "{} of {} gaps between polls were shorter than the task's {interval_ms} ms: {short:?} ms",
                short.len(),
                gaps.len()
            ))
        }
    }

    /// No polls after the task ended.
    fn stops_polling(&self, task: &Created) -> Check {
        let polls = &task.polls;
        let after = first_terminal(polls).map_or(0, |at| polls.len() - at - 1);
        let check = self
            .check(
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
        if after == 0 {
            check
        } else {
            check.error(format!(
                "the client polled task {} {after} more time(s) after it had ended",
                task.id
            ))
        }
    }

    /// 2026-07-28: `Mcp-Name` names the task on every `tasks/get`.
    fn mcp_name(&self, task: &Created) -> Check {
        let polls = &task.polls;
        let name = |status| {
            self.check(
                "tasks-client-mcp-name",
                "TasksClientMcpName",
                "A 2026-07-28 client sends Mcp-Name with the taskId on tasks/get",
                status,
            )
        };
        if !self.version.is_modern() {
            return name(CheckStatus::Skipped).error("2025-11-25 has no Mcp-Name header");
        }
        if polls.iter().any(|p| !p.over_http) {
            return name(CheckStatus::Skipped)
                .error("the client polled over stdio, which has no headers");
        }
        if polls.is_empty() {
            return name(CheckStatus::Skipped).error("the client never sent tasks/get");
        }
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
    }
}

fn first_terminal(polls: &[Poll]) -> Option<usize> {
    polls
        .iter()
        .position(|p| p.status.as_deref().is_some_and(|s| TERMINAL.contains(&s)))
}

const REACHED: (&str, &str) = (
    "tasks-client-reached-terminal",
    "TasksClientReachedTerminal",
);
const INTERVAL: (&str, &str) = ("tasks-client-poll-interval", "TasksClientPollInterval");
const STOPS: (&str, &str) = ("tasks-client-stops-polling", "TasksClientStopsPolling");
const NAME: (&str, &str) = ("tasks-client-mcp-name", "TasksClientMcpName");
const ANSWERED: (&str, &str) = ("tasks-client-input-answered", "TasksClientInputAnswered");
const CANCELLED: (&str, &str) = ("tasks-client-cancel-sent", "TasksClientCancelSent");

pub(super) fn checks(log: &Log, version: ProtocolVersion) -> Vec<Check> {
    let judge = Judge { log, version };
    let (task, created) = match judge.created(TOOL, &[REACHED, INTERVAL, STOPS, NAME]) {
        Ok(found) => found,
        Err(checks) => return checks,
    };
    vec![
        created,
        judge.reached_terminal(&task),
        judge.poll_interval(&task),
        judge.stops_polling(&task),
        judge.mcp_name(&task),
    ]
}

pub(super) fn input_checks(log: &Log, version: ProtocolVersion) -> Vec<Check> {
    let judge = Judge { log, version };
    let (task, created) = match judge.created(INPUT_TOOL, &[ANSWERED, REACHED]) {
        Ok(found) => found,
        Err(checks) => return checks,
    };
    // 2026-07-28: `tasks/update` with the key; 2025-11-25: the answer to the request the
    // server sent on the `tasks/result` stream.
    let answered = if version.is_modern() {
        log.mcp()
            .from_client()
            .method("tasks/update")
            .all()
            .into_iter()
            .any(|m| {
                m.params()["taskId"] == task.id.as_str()
                    && m.params()["inputResponses"].get("confirm").is_some()
            })
    } else {
        log.mcp()
            .from_server()
            .method("elicitation/create")
            .all()
            .into_iter()
            .any(|asked| {
                super::answer_to(log, asked)
                    .is_some_and(|a| a.message.value().get("result").is_some())
            })
    };
    let check = judge.check(
        ANSWERED.0,
        ANSWERED.1,
        "The client answers the input a task asks for mid-task (input_required)",
        if answered {
            CheckStatus::Success
        } else {
            CheckStatus::Failure
        },
    );
    let check = if answered {
        check
    } else {
        let asked = log.mcp().from_server().method("elicitation/create").count() > 0;
        check.error(if version.is_modern() {
            format!(
                "the client sent no tasks/update answering `confirm` for task {}",
                task.id
            )
        } else if asked {
            format!(
                "the client did not answer the elicitation task {} sent on its tasks/result stream",
                task.id
            )
        } else {
            format!(
                "the client did not answer the input task {} asked for: it never sent tasks/result, on whose stream the request comes",
                task.id
            )
        })
    };
    vec![created, check, judge.reached_terminal(&task)]
}

pub(super) fn cancel_checks(log: &Log, version: ProtocolVersion) -> Vec<Check> {
    let judge = Judge { log, version };
    let (task, created) = match judge.created(CANCEL_TOOL, &[CANCELLED, STOPS]) {
        Ok(found) => found,
        Err(checks) => return checks,
    };
    let sent = log
        .mcp()
        .from_client()
        .method("tasks/cancel")
        .all()
        .into_iter()
        .any(|m| {
            m.params()["taskId"] == task.id.as_str()
                && m.response
                    .as_ref()
                    .is_some_and(|r| r.value().get("result").is_some())
        });
    let check = judge.check(
        CANCELLED.0,
        CANCELLED.1,
        "The client cancels a task it no longer wants with tasks/cancel",
        if sent {
            CheckStatus::Success
        } else {
            CheckStatus::Failure
        },
    );
    let check = if sent {
        check
    } else {
        check.error(format!(
            "the client never cancelled task {}, which never ends",
            task.id
        ))
    };
    vec![created, check, judge.stops_polling(&task)]
}
