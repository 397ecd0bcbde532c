//! Prompts (spec `Prompt`, `PromptArgument`).

use serde::{Deserialize, Serialize};
use serde_json::{Map, Value, json};

use super::resource::{insert_opt, insert_text};
use super::script::Step;

/// One argument of a prompt.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
#[cfg_attr(feature = "decoy-cli", derive(schemars::JsonSchema))]
#[serde(rename_all = "camelCase", deny_unknown_fields)]
pub struct PromptArgumentSpec {
    /// The argument's name.
    pub name: String,
    /// A display name.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub title: Option<String>,
    /// What the argument is for.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub description: Option<String>,
    /// Whether `prompts/get` must carry it (else `-32602` naming it).
    #[serde(default)]
    pub required: bool,
    /// Values offered by `completion/complete`.
    #[serde(default, skip_serializing_if = "Vec::is_empty")]
    pub completions: Vec<String>,
}

/// A prompt: listed by `prompts/list`, rendered by `prompts/get`.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
#[cfg_attr(feature = "decoy-cli", derive(schemars::JsonSchema))]
#[serde(rename_all = "camelCase", deny_unknown_fields)]
pub struct PromptSpec {
    /// Unique on the server.
    pub name: String,
    /// A display name.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub title: Option<String>,
    /// What the prompt does.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub description: Option<String>,
    /// Its arguments, in order.
    #[serde(default, skip_serializing_if = "Vec::is_empty")]
    pub arguments: Vec<PromptArgumentSpec>,
    /// Spec `Icon`s, passed through.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub icons: Option<Value>,
    /// `_meta`, passed through.
    #[serde(default, rename = "_meta", skip_serializing_if = "Option::is_none")]
    pub meta: Option<Value>,
    /// json-e over `{args}`: the `messages` array (spec `PromptMessage`s: text, image, audio,
    /// embedded resource, resource link), or a whole `GetPromptResult`; when missing, the
    /// [`default_prompt_template`].
    #[serde(default = "default_prompt_template")]
    pub template: Value,
    /// Steps run before the template renders, as a tool's: in 2026-07-28 its `ask` steps
    /// answer `input_required` (multi round-trip requests), in a legacy session they send
    /// requests to the client; the template reads the answers as `answers.<key>`.
    #[serde(default, skip_serializing_if = "Vec::is_empty")]
    pub script: Vec<Step>,
    /// Drafts are neither listed nor usable by clients; `false` makes one (default `true`).
    #[serde(default = "super::yes")]
    pub published: bool,
}

/// The template of a prompt created without one: one user text message with the arguments
/// as JSON text (like a tool's default).
pub fn default_prompt_template() -> Value {
    json!([{
        "role": "user",
        "content": { "type": "text", "text": { "$json": { "$eval": "args" } } }
    }])
}

impl PromptSpec {
    /// A prompt with no arguments and the default template ([`default_prompt_template`]).
    pub fn new(name: impl Into<String>) -> Self {
        PromptSpec {
            name: name.into(),
            title: None,
            description: None,
            arguments: Vec::new(),
            icons: None,
            meta: None,
            template: default_prompt_template(),
            script: Vec::new(),
            published: true,
        }
    }

    /// The prompt as `prompts/list` shows it.
    pub(crate) fn listing(&self) -> Value {
        let mut out = Map::new();
        out.insert("name".into(), json!(self.name));
        insert_text(&mut out, "title", self.title.as_deref());
        insert_text(&mut out, "description", self.description.as_deref());
        if !self.arguments.is_empty() {
            let args: Vec<Value> = self
                .arguments
                .iter()
                .map(|a| {
                    let mut arg = Map::new();
                    arg.insert("name".into(), json!(a.name));
                    insert_text(&mut arg, "title", a.title.as_deref());
                    insert_text(&mut arg, "description", a.description.as_deref());
                    arg.insert("required".into(), json!(a.required));
                    Value::Object(arg)
                })
                .collect();
            out.insert("arguments".into(), Value::Array(args));
        }
        insert_opt(&mut out, "icons", self.icons.clone());
        insert_opt(&mut out, "_meta", self.meta.clone());
        Value::Object(out)
    }
}
