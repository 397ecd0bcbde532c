//! Expected failures: the suite's baseline of scenarios (`auth/basic-dcr`) or single checks
//! (`request-metadata:sep-2575-client-sends-client-info`) a client is known to fail, so CI
//! fails only on what changed: a new failure, or an entry that now passes (stale).

use std::collections::BTreeSet;

use super::check::{Check, CheckStatus};
use super::report::Report;

/// One line of a baseline: a whole scenario, or one check of it.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct BaselineEntry {
    /// The scenario's name.
    pub scenario: String,
    /// When set, only this check may fail; the scenario's others stay enforced.
    pub check_id: Option<String>,
}

impl std::fmt::Display for BaselineEntry {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        match &self.check_id {
            Some(id) => write!(f, "{}:{id}", self.scenario),
            None => f.write_str(&self.scenario),
        }
    }
}

/// The expected failures of one client, as the suite's `--expected-failures` file lists
/// them under `client:`.
///
/// # Example
/// ```
/// use mcp_decoy::grade::Baseline;
///
/// let baseline = Baseline::parse(["sse-retry", "request-metadata:sep-2575-client-sends-client-info"])
///     .expect("two valid entries");
/// assert_eq!(baseline.entries().len(), 2);
/// let error = Baseline::parse(["sse-retry", "sse-retry:client-sse-retry-timing"]).unwrap_err();
/// assert!(error.contains("redundant"), "{error}");
/// ```
#[derive(Debug, Clone, Default, PartialEq, Eq)]
pub struct Baseline {
    entries: Vec<BaselineEntry>,
}

/// How a run compares with its baseline.
#[derive(Debug, Clone, Default, PartialEq, Eq)]
#[non_exhaustive]
pub struct BaselineVerdict {
    /// Failures the baseline does not list: the run fails.
    pub unexpected: Vec<String>,
    /// Entries that now pass: the run fails until the baseline drops them.
    pub stale: Vec<String>,
    /// Failures the baseline lists.
    pub expected: Vec<String>,
}

impl BaselineVerdict {
    /// Whether the run is as the baseline says: no unexpected failure, no stale entry.
    pub fn passed(&self) -> bool {
        self.unexpected.is_empty() && self.stale.is_empty()
    }
}

impl Baseline {
    /// Parses entries written `SCENARIO` or `SCENARIO:CHECK-ID` (scenario names hold `/` but
    /// never `:`); an error names the entry and what is wrong with it.
    pub fn parse<S: AsRef<str>>(entries: impl IntoIterator<Item = S>) -> Result<Baseline, String> {
        let mut parsed = Vec::new();
        for entry in entries {
            let text = entry.as_ref();
            let entry = match text.split_once(':') {
                None if text.trim().is_empty() => {
                    return Err(format!(
                        "entry {text:?} is not '<scenario>' or '<scenario>:<check-id>'. This one is empty."
                    ));
                }
                None => BaselineEntry {
                    scenario: text.to_string(),
                    check_id: None,
                },
                Some((scenario, id)) if scenario.is_empty() || id.is_empty() => {
                    return Err(format!(
                        "entry {text:?} is not '<scenario>' or '<scenario>:<check-id>'. Both sides \
                         of the colon are required."
                    ));
                }
                Some((scenario, id)) if id.starts_with(' ') => {
                    return Err(format!(
                        "entry {text:?}: a per-check entry takes no space after the colon: \
                         '{scenario}:{}'",
                        id.trim_start()
                    ));
                }
                Some((scenario, id)) => BaselineEntry {
                    scenario: scenario.to_string(),
                    check_id: Some(id.to_string()),
                },
            };
            parsed.push(entry);
        }
        let wholesale: BTreeSet<&str> = parsed
            .iter()
            .filter(|e| e.check_id.is_none())
            .map(|e| e.scenario.as_str())
            .collect();
        if let Some(redundant) = parsed
            .iter()
            .find(|e| e.check_id.is_some() && wholesale.contains(e.scenario.as_str()))
        {
            return Err(format!(
                "'{}' expects the whole scenario to fail, so '{redundant}' is redundant. Remove \
                 one or the other.",
                redundant.scenario
            ));
        }
        Ok(Baseline { entries: parsed })
    }

    /// Its entries, in the file's order.
    pub fn entries(&self) -> &[BaselineEntry] {
        &self.entries
    }

    /// Compares reports with the baseline, as the suite does: a scenario listed whole is
    /// expected to fail and stale once it passes; a scenario with listed checks has each
    /// failing check judged on its own (a check's repeats collapse to the worst), and a
    /// listed check is stale once it passes (absent or SKIPPED says nothing). A scenario
    /// that failed without a failing check (its client timed out or exited with an error)
    /// is unexpected unless listed whole.
    pub fn evaluate(&self, reports: &[Report]) -> BaselineVerdict {
        let mut verdict = BaselineVerdict::default();
        for report in reports {
            let whole = self
                .entries
                .iter()
                .any(|e| e.scenario == report.scenario && e.check_id.is_none());
            if whole {
                let list = if report.passed() {
                    &mut verdict.stale
                } else {
                    &mut verdict.expected
                };
                list.push(report.scenario.clone());
                continue;
            }
            let listed: BTreeSet<&str> = self
                .entries
                .iter()
                .filter(|e| e.scenario == report.scenario)
                .filter_map(|e| e.check_id.as_deref())
                .collect();
            let collapsed = collapse(&report.checks);
            let failing: Vec<&Check> = collapsed
                .iter()
                .copied()
                .filter(|c| c.status.fails())
                .collect();
            for check in &failing {
                let entry = format!("{}:{}", report.scenario, check.id);
                if listed.contains(check.id.as_str()) {
                    verdict.expected.push(entry);
                } else {
                    verdict.unexpected.push(entry);
                }
            }
            if failing.is_empty() && !report.passed() {
                verdict.unexpected.push(report.scenario.clone());
            }
            for id in listed {
                let passed = collapsed
                    .iter()
                    .find(|c| c.id == id && c.status != CheckStatus::Info)
                    .is_some_and(|c| c.status == CheckStatus::Success);
                if passed {
                    verdict.stale.push(format!("{}:{id}", report.scenario));
                }
            }
        }
        verdict
    }
}

/// One check per id, the most severe of its repeats, in first-seen order.
fn collapse(checks: &[Check]) -> Vec<&Check> {
    let mut kept: Vec<&Check> = Vec::new();
    for check in checks {
        match kept.iter_mut().find(|k| k.id == check.id) {
            None => kept.push(check),
            Some(k) if severity(check.status) > severity(k.status) => *k = check,
            Some(_) => {}
        }
    }
    kept
}

fn severity(status: CheckStatus) -> u8 {
    match status {
        CheckStatus::Failure => 4,
        CheckStatus::Warning => 3,
        CheckStatus::Success => 2,
        CheckStatus::Skipped => 1,
        CheckStatus::Info => 0,
    }
}
