//! Skills: the `io.modelcontextprotocol/skills` extension (SEP-2640). A skill is a folder of
//! files with `SKILL.md` at its root; the server serves each file as a `skill://` resource
//! and describes the skill (its frontmatter, each file's digest and size) in `skills/list`
//! and `skills/get`.

use serde::{Deserialize, Serialize};
use serde_json::Value;

/// One skill the server serves.
///
/// Its URI is `skill://<path>/SKILL.md`; the frontmatter of its `SKILL.md` (YAML between
/// `---` lines, with at least `name` and `description`) is what `skills/list` describes.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
#[cfg_attr(feature = "decoy-cli", derive(schemars::JsonSchema))]
#[serde(rename_all = "camelCase", deny_unknown_fields)]
pub struct SkillSpec {
    /// The skill path of its URIs: `/`-separated segments whose last one is the skill's
    /// name, such as `acme/pdf-processing`. Default: the frontmatter `name`.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub path: Option<String>,
    /// The skill's files, `SKILL.md` among them, each path once.
    pub files: Vec<SkillFileSpec>,
    /// A fault for testing a host's verification: the frontmatter (an object) that
    /// `skills/list` and `skills/get` give instead of the one `SKILL.md` holds.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub listed_frontmatter: Option<Value>,
}

/// One file of a skill: exactly one of `text` and `blob`.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
#[cfg_attr(feature = "decoy-cli", derive(schemars::JsonSchema))]
#[serde(rename_all = "camelCase", deny_unknown_fields)]
pub struct SkillFileSpec {
    /// The path within the skill's folder: `SKILL.md`, `references/FORMS.md`.
    pub path: String,
    /// UTF-8 contents.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub text: Option<String>,
    /// Binary contents, base64-encoded.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub blob: Option<String>,
    /// The MIME type of its resource; default from the file's extension (`text/markdown`
    /// for `.md`).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub mime_type: Option<String>,
    /// A fault for testing a host's verification: the text `resources/read` serves instead
    /// of the contents, while the listing's `digest` and `size` still describe the
    /// contents.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub served_text: Option<String>,
}

impl SkillFileSpec {
    /// A UTF-8 file.
    pub fn text(path: impl Into<String>, text: impl Into<String>) -> Self {
        SkillFileSpec {
            path: path.into(),
            text: Some(text.into()),
            blob: None,
            mime_type: None,
            served_text: None,
        }
    }
}
