//! One check of a graded scenario, as the conformance suite writes it in `checks.json`.

use chrono::{DateTime, Utc};
use serde::Serialize;
use serde_json::Value;

/// How a check came out, in the suite's words.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash, Serialize)]
#[serde(rename_all = "UPPERCASE")]
#[non_exhaustive]
pub enum CheckStatus {
    /// The client did what the requirement asks.
    Success,
    /// It did not: the scenario fails.
    Failure,
    /// A SHOULD it missed: the scenario fails too, as in the suite's CLI, and the report
    /// lists it apart.
    Warning,
    /// The grader could not judge it, and says why; never counted as a pass.
    Skipped,
    /// A fact for the reader (what the server announced), not a verdict.
    Info,
}

impl CheckStatus {
    /// `SUCCESS`, `FAILURE`, `WARNING`, `SKIPPED` or `INFO`.
    pub fn as_str(self) -> &'static str {
        match self {
            CheckStatus::Success => "SUCCESS",
            CheckStatus::Failure => "FAILURE",
            CheckStatus::Warning => "WARNING",
            CheckStatus::Skipped => "SKIPPED",
            CheckStatus::Info => "INFO",
        }
    }

    /// Whether this status fails its scenario (`FAILURE` or `WARNING`).
    pub fn fails(self) -> bool {
        matches!(self, CheckStatus::Failure | CheckStatus::Warning)
    }
}

/// Where in the specification a check's requirement is written.
#[derive(Debug, Clone, PartialEq, Eq, Serialize)]
#[non_exhaustive]
pub struct SpecReference {
    /// The suite's name for it (`MCP-Lifecycle`).
    pub id: String,
    /// The page.
    pub url: String,
}

impl SpecReference {
    pub(crate) fn new(id: &str, url: &str) -> Self {
        SpecReference {
            id: id.to_string(),
            url: url.to_string(),
        }
    }
}

/// One check, with the suite's id (`mcp-client-initialization`) and status, and for a person
/// what it looked at (`details`) and what went wrong (`error_message`).
#[derive(Debug, Clone, PartialEq, Serialize)]
#[serde(rename_all = "camelCase")]
#[non_exhaustive]
pub struct Check {
    /// The suite's check id.
    pub id: String,
    /// The suite's check name (`MCPClientInitialization`).
    pub name: String,
    /// What the check validates.
    pub description: String,
    /// How it came out.
    pub status: CheckStatus,
    /// When it was judged.
    pub timestamp: DateTime<Utc>,
    /// Where the requirement is written.
    #[serde(skip_serializing_if = "Vec::is_empty")]
    pub spec_references: Vec<SpecReference>,
    /// What the check looked at.
    #[serde(skip_serializing_if = "Value::is_null")]
    pub details: Value,
    /// What went wrong, for a failure, a warning or a skip.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub error_message: Option<String>,
}

impl Check {
    pub(crate) fn new(
        id: &str,
        name: &str,
        description: &str,
        status: CheckStatus,
        reference: SpecReference,
    ) -> Self {
        Check {
            id: id.to_string(),
            name: name.to_string(),
            description: description.to_string(),
            status,
            timestamp: Utc::now(),
            spec_references: vec![reference],
            details: Value::Null,
            error_message: None,
        }
    }

    pub(crate) fn details(mut self, details: Value) -> Self {
        self.details = details;
        self
    }

    /// The check with exactly these references (the suite cites none for some checks).
    pub(crate) fn cited_by(mut self, references: Vec<SpecReference>) -> Self {
        self.spec_references = references;
        self
    }

    pub(crate) fn error(mut self, message: impl Into<String>) -> Self {
        self.error_message = Some(message.into());
        self
    }
}
