//! A graded scenario's checks and its verdict, as the suite's CLI decides it: the scenario
//! fails on any `FAILURE` or `WARNING` check.

use std::fmt::Write as _;

use serde::Serialize;

use super::check::{Check, CheckStatus};
use super::client::ClientRun;
use crate::ProtocolVersion;
use crate::log::{Log, describe_mcp};

/// The checks of one scenario run, with what the client sent, for the failure message.
#[derive(Debug, Clone, Serialize)]
#[serde(rename_all = "camelCase")]
#[non_exhaustive]
pub struct Report {
    /// The scenario's name.
    pub scenario: String,
    /// The spec revision it was graded at.
    pub spec_version: ProtocolVersion,
    /// The checks, in the suite's order (the scenario's own, then `wire-schema-valid` where
    /// the suite has it).
    pub checks: Vec<Check>,
    /// How the client's process ran, when the grader ran it ([`Graded::run`](super::Graded::run)).
    #[serde(skip_serializing_if = "Option::is_none")]
    pub client: Option<ClientRun>,
    #[serde(skip)]
    sent: String,
    /// The scenario expects a client that gives up: its error exit fails nothing alone.
    #[serde(skip)]
    pub(super) allow_client_error: bool,
}

impl Report {
    pub(super) fn new(
        scenario: &str,
        spec_version: ProtocolVersion,
        checks: Vec<Check>,
        client: Option<ClientRun>,
        log: Log,
    ) -> Report {
        Report {
            scenario: scenario.to_string(),
            spec_version,
            checks,
            client,
            sent: describe_mcp(&log.mcp().from_client().records()),
            allow_client_error: false,
        }
    }

    /// Whether the scenario passed: no check is a `FAILURE` or a `WARNING`, and the
    /// client's process, when the grader ran it, had no [problem](Self::client_problem).
    pub fn passed(&self) -> bool {
        !self.checks.iter().any(|c| c.status.fails()) && self.client_problem().is_none()
    }

    /// What went wrong with the client's process, when the grader ran it: it could not
    /// start, timed out, left processes running, or exited with an error (unless the
    /// scenario expects it to give up, as `http-invalid-tool-headers` does).
    pub fn client_problem(&self) -> Option<String> {
        self.client.as_ref()?.problem(self.allow_client_error)
    }

    /// The checks that fail the scenario, failures first, then warnings.
    pub fn failures(&self) -> Vec<&Check> {
        let of = |status| self.checks.iter().filter(move |c| c.status == status);
        of(CheckStatus::Failure)
            .chain(of(CheckStatus::Warning))
            .collect()
    }

    /// The checks of `status`.
    pub fn with_status(&self, status: CheckStatus) -> Vec<&Check> {
        self.checks.iter().filter(|c| c.status == status).collect()
    }

    /// One line per check (`FAILURE  tool-add-numbers  …`), under a verdict line.
    pub fn table(&self) -> String {
        let count = |status| self.with_status(status).len();
        let mut text = format!(
            "{} at {}: {} ({} passed, {} failed, {} warnings, {} skipped)\n",
            self.scenario,
            self.spec_version.as_str(),
            if self.passed() { "PASSED" } else { "FAILED" },
            count(CheckStatus::Success),
            count(CheckStatus::Failure),
            count(CheckStatus::Warning),
            count(CheckStatus::Skipped),
        );
        if let Some(problem) = self.client_problem() {
            let _ = writeln!(text, "  {:<8} {:<28} {problem}", "CLIENT", "process");
        }
        for check in &self.checks {
            let _ = write!(
                text,
                "  {:<8} {:<28} {}",
                check.status.as_str(),
                check.id,
                check.description
            );
            if let Some(error) = &check.error_message {
                let _ = write!(text, ": {error}");
            }
            text.push('\n');
        }
        text
    }

    /// Panics unless the scenario passed, with the table and what the client sent.
    #[track_caller]
    pub fn assert_passed(&self) {
        if !self.passed() {
            let stderr = self
                .client
                .as_ref()
                .filter(|c| !c.stderr.is_empty())
                .map(|c| format!("its stderr:\n{}\n", c.stderr))
                .unwrap_or_default();
            panic!(
                "the client failed conformance scenario {}:\n{}what the client sent:\n{}{stderr}",
                self.scenario,
                self.table(),
                self.sent
            );
        }
    }
}
