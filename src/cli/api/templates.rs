//! `POST /templates/check`: the live check behind the UI's template editors (product guide,
//! "Write a response template": the UI renders the template with empty arguments while you
//! type and reports only errors that no arguments can fix). It is the check a save runs, so
//! what it reports is exactly what creating or updating the item would refuse; it never
//! checks that the output is a valid `CallToolResult`, which only a call decides.
//!
//! Must not touch: servers or their catalogs; the check reads nothing but the body.

use axum::Json;
use serde::{Deserialize, Serialize};
use serde_json::Value;

use super::ApiError;
use super::body::JsonBody;
use super::live;
use super::openapi::{Docs, Operation, Route, Verb};

/// What to check.
#[derive(Debug, Deserialize, schemars::JsonSchema)]
#[serde(rename_all = "camelCase", deny_unknown_fields)]
pub(crate) struct TemplateCheck {
    /// The json-e template, as an item's `template` member holds it.
    pub(crate) template: Value,
    /// Whose template it is, which decides the names it may use: `tool` (the default;
    /// `args` and `answers`), `prompt` (`args`) or `resourceTemplate` (`uri` and `vars`).
    #[serde(default)]
    pub(crate) owner: TemplateOwner,
}

/// The kinds of item that have a template.
#[derive(Debug, Clone, Copy, Default, Deserialize, schemars::JsonSchema)]
#[serde(rename_all = "camelCase")]
pub(crate) enum TemplateOwner {
    /// A tool's response template.
    #[default]
    Tool,
    /// A prompt's messages template.
    Prompt,
    /// A resource template's contents template.
    ResourceTemplate,
}

/// The verdict: always `200`, since a template that fails is an answer, not an error.
#[derive(Debug, Serialize, Deserialize, schemars::JsonSchema)]
pub(crate) struct TemplateVerdict {
    /// Whether saving an item with this template would be accepted.
    pub(crate) ok: bool,
    /// What json-e reported, when `ok` is `false`.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub(crate) error: Option<String>,
}

/// `POST /templates/check`, documented.
pub(crate) fn route(docs: &mut Docs) -> Route {
    Operation::new(
        Verb::Post,
        "/templates/check",
        "checkTemplate",
        "Check a json-e template as saving an item would.",
    )
    .describe(
        "Renders the template with empty arguments and reports only errors that no \
         arguments can fix: a syntax error, an unknown operator or name, a limit an empty \
         render already exceeds. Errors that depend on the arguments (a missing property) \
         pass; they show when a client calls the item. Does not check that the output is a \
         valid `CallToolResult`. Answers `200` either way: `{\"ok\": true}`, or \
         `{\"ok\": false, \"error\": \"...\"}`.",
    )
    .body(docs.schema::<TemplateCheck>())
    .reply(200, docs.schema::<TemplateVerdict>())
    .to(check)
}

async fn check(JsonBody(body): JsonBody<TemplateCheck>) -> Result<Json<TemplateVerdict>, ApiError> {
    let owner = match body.owner {
        TemplateOwner::Tool => live::TemplateOwner::Tool,
        TemplateOwner::Prompt => live::TemplateOwner::Prompt,
        TemplateOwner::ResourceTemplate => live::TemplateOwner::ResourceTemplate,
    };
    let error = live::template_problem(owner, &body.template);
    Ok(Json(TemplateVerdict {
        ok: error.is_none(),
        error,
    }))
}
