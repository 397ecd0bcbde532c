//! The four kinds of catalog item the REST API serves ([`Kind`]s of `catalog.rs`) and the
//! rules that are each one's own: a new tool starts as a draft and a renamed one keeps its
//! call count; a resource has exactly one of `text` and `blob`, and its subscribers hear of
//! an edit. The first prompt, resource or template of a server that did not declare the
//! capability declares it and ends the server's sessions (the engine's rule, `live::add`).
//!
//! Must not touch: the handlers (all in `catalog.rs`) or engine fields (through `live.rs`).

use serde_json::{Map, Value, json};

use super::ApiError;
use super::body::decode_member;
use super::catalog::{Kind, KindDocs};
use super::live;
use crate::cli::registry::Hosted;
use crate::spec::{PromptSpec, ResourceBody, ResourceSpec, ResourceTemplateSpec, ToolSpec};

/// What creating the first resource, template or prompt of a server does.
const FIRST_ITEM: &str = "A server that started without resources or resource \
    templates does not declare the `resources` capability: adding its first one declares \
    it and closes the server's sessions, so reconnecting clients see the capability.";

/// How every `PATCH` body works.
const PATCH: &str = "Each member given replaces that field whole, `null` resets it to its \
    default; members not given keep their value.";

/// Tools: clients hear `notifications/tools/list_changed` on publish, and on an edit,
/// rename, unpublish or delete of a published tool; never for a draft.
impl Kind for ToolSpec {
    const COLLECTION: &'static str = "tools";
    const PARAM: &'static str = "tool";
    const KEY_FIELD: &'static str = "name";
    const NOUN: &'static str = "tool named";
    // Tests that need spec-breaking headers build them in `servers.json`, not by PATCH.
    const FIXED: &'static [&'static str] = &["allowInvalidHeaders"];
    const DOCS: KindDocs = KindDocs {
        one: "Tool",
        many: "Tools",
        list: ("List tools, drafts included.", None),
        create: (
            "Create a tool.",
            Some(
                "A new tool starts as a draft: `published` defaults to `false` here. Creating \
                 a published tool sends `notifications/tools/list_changed`.",
            ),
        ),
        get: ("Get a tool.", None),
        update: (
            "Update a tool. Set `published` to publish or unpublish it.",
            Some(
                "Sends `notifications/tools/list_changed` when the tool is published, and when \
                 a published tool is edited, renamed or unpublished; changes to a draft send \
                 none.",
            ),
        ),
        delete: (
            "Delete a tool.",
            Some("Deleting a published tool sends `notifications/tools/list_changed`."),
        ),
        patch: PATCH,
    };

    fn create_body(body: &mut Map<String, Value>) -> Result<(), ApiError> {
        // The product: "A new tool starts as a draft." ToolSpec's own default (published) is
        // the library's and servers.json's.
        body.entry("published").or_insert(Value::Bool(false));
        Ok(())
    }

    fn create_schema(spec: Value) -> Value {
        json!({ "allOf": [spec, { "properties": { "published": {
            "type": "boolean", "default": false,
            "description": "Drafts are neither listed nor callable; a new tool is a draft unless this is `true`." } } }] })
    }
}

/// Prompts: edits send `notifications/prompts/list_changed`.
impl Kind for PromptSpec {
    const COLLECTION: &'static str = "prompts";
    const PARAM: &'static str = "prompt";
    const KEY_FIELD: &'static str = "name";
    const NOUN: &'static str = "prompt named";
    const DOCS: KindDocs = KindDocs {
        one: "Prompt",
        many: "Prompts",
        list: ("List prompts.", None),
        create: (
            "Create a prompt.",
            Some(
                "Sends `notifications/prompts/list_changed`. A server that started without \
                 prompts does not declare the `prompts` capability: adding its first prompt \
                 declares it and closes the server's sessions, so reconnecting clients see it.",
            ),
        ),
        get: ("Get a prompt.", None),
        update: (
            "Update a prompt.",
            Some("Sends `notifications/prompts/list_changed`."),
        ),
        delete: ("Delete a prompt.", None),
        patch: PATCH,
    };
}

/// Static resources, addressed by their URI: edits send
/// `notifications/resources/list_changed` (shared with templates), and an edit also sends
/// `notifications/resources/updated` to the sessions subscribed to the resource.
impl Kind for ResourceSpec {
    const COLLECTION: &'static str = "resources";
    const PARAM: &'static str = "uri";
    const KEY_FIELD: &'static str = "uri";
    const NOUN: &'static str = "resource";
    const DOCS: KindDocs = KindDocs {
        one: "Resource",
        many: "Resources",
        list: ("List static resources.", None),
        create: (
            "Create a static resource (with `text` or base64 `blob`).",
            Some(FIRST_ITEM),
        ),
        get: ("Get a static resource by its percent-encoded URI.", None),
        update: (
            "Update a static resource.",
            Some(
                "Sends `notifications/resources/list_changed` to every session and \
                 `notifications/resources/updated` to the sessions subscribed to the URI.",
            ),
        ),
        delete: ("Delete a static resource.", None),
        patch: "Each member given replaces that field, `null` resets it. Giving `text` turns \
            a blob resource into a text one, and the other way round.",
    };

    fn create_body(body: &mut Map<String, Value>) -> Result<(), ApiError> {
        one_body(body)
    }

    fn patch_body(current: &Self, patch: &mut Map<String, Value>) -> Result<(), ApiError> {
        contents_patch(current, patch)?;
        // The contents are a flattened enum, whose decode error would name neither member.
        for member in ["text", "blob"] {
            if let Some(value) = patch.get(member).filter(|v| !v.is_null()) {
                decode_member::<String>(member, value)?;
            }
        }
        Ok(())
    }

    fn updated(hosted: &Hosted, _before: &str, next: &Self) {
        live::resource_changed(hosted, &next.uri);
    }
}

/// Resource templates, addressed by their URI template: edits send
/// `notifications/resources/list_changed`.
impl Kind for ResourceTemplateSpec {
    const COLLECTION: &'static str = "resource-templates";
    const PARAM: &'static str = "template";
    const KEY_FIELD: &'static str = "uriTemplate";
    const NOUN: &'static str = "resource template";
    const DOCS: KindDocs = KindDocs {
        one: "ResourceTemplate",
        many: "ResourceTemplates",
        list: ("List resource templates.", None),
        create: ("Create a resource template.", Some(FIRST_ITEM)),
        get: (
            "Get a resource template by its percent-encoded URI template.",
            None,
        ),
        update: ("Update a resource template.", None),
        delete: ("Delete a resource template.", None),
        patch: PATCH,
    };
}

/// A resource has exactly one of `text` and `blob`; say so before serde's untagged-enum
/// message would.
fn one_body(body: &Map<String, Value>) -> Result<(), ApiError> {
    let has = |key: &str| body.get(key).is_some_and(|v| !v.is_null());
    match (has("text"), has("blob")) {
        (true, true) => Err(ApiError::bad_request(
            "blob",
            "a resource has `text` or `blob`, not both",
        )),
        (false, false) => Err(ApiError::bad_request(
            "text",
            "a resource needs its contents: `text` (UTF-8) or `blob` (base64)",
        )),
        _ => Ok(()),
    }
}

/// Makes a patch that gives `text` drop `blob` and the other way round, and refuses one
/// that would leave the resource without contents.
fn contents_patch(current: &ResourceSpec, patch: &mut Map<String, Value>) -> Result<(), ApiError> {
    let given = |key: &str| patch.get(key).is_some_and(|v| !v.is_null());
    match (given("text"), given("blob")) {
        (true, true) => one_body(patch),
        (true, false) => {
            patch.insert("blob".into(), Value::Null);
            Ok(())
        }
        (false, true) => {
            patch.insert("text".into(), Value::Null);
            Ok(())
        }
        (false, false) => {
            let own = match current.body {
                ResourceBody::Text { .. } => "text",
                ResourceBody::Blob { .. } => "blob",
            };
            if patch.get(own).is_some_and(Value::is_null) {
                return Err(ApiError::bad_request(
                    own,
                    format!("`{own}` cannot be cleared: a resource needs `text` or `blob`"),
                ));
            }
            Ok(())
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::cli::api::body::merge;
    use crate::cli::api::openapi::patch_members;

    fn map(value: Value) -> Map<String, Value> {
        match value {
            Value::Object(map) => map,
            other => panic!("not an object: {other}"),
        }
    }

    #[test]
    fn a_patch_may_name_every_member_of_the_spec_but_the_fixed_ones() {
        let tool = patch_members::<ToolSpec>(ToolSpec::FIXED);
        for member in ["name", "inputSchema", "published", "_meta", "responses"] {
            assert!(tool.iter().any(|m| m == member), "{member} in {tool:?}");
        }
        assert!(!tool.iter().any(|m| m == "allowInvalidHeaders"));
        // The contents are flattened from an enum; both members must still be patchable.
        let resource = patch_members::<ResourceSpec>(ResourceSpec::FIXED);
        for member in ["uri", "text", "blob", "mimeType"] {
            assert!(
                resource.iter().any(|m| m == member),
                "{member} in {resource:?}"
            );
        }
    }

    #[test]
    fn a_resource_patch_switches_between_text_and_blob_and_names_a_mistyped_one() {
        let current: ResourceSpec =
            serde_json::from_value(json!({ "uri": "test://a", "name": "a", "text": "hi" }))
                .expect("a resource");
        let members = patch_members::<ResourceSpec>(ResourceSpec::FIXED);
        let mut patch = map(json!({ "blob": "aGk=" }));
        ResourceSpec::patch_body(&current, &mut patch).expect("a valid patch");
        let next: ResourceSpec = merge(&current, patch, &members).expect("merged");
        assert_eq!(
            next.body,
            ResourceBody::Blob {
                blob: "aGk=".into()
            }
        );

        let mut mistyped = map(json!({ "text": 5 }));
        let error = ResourceSpec::patch_body(&current, &mut mistyped).expect_err("mistyped");
        assert_eq!(error.field.as_deref(), Some("text"));
        assert!(
            error.detail.starts_with("`text`: invalid type"),
            "{}",
            error.detail
        );
    }

    #[test]
    fn an_unknown_patch_member_is_named_as_serde_would() {
        let members = patch_members::<ToolSpec>(ToolSpec::FIXED);
        let error = merge::<ToolSpec>(
            &ToolSpec::new("t"),
            map(json!({ "allowInvalidHeaders": true })),
            &members,
        )
        .expect_err("fixed");
        assert_eq!(error.field.as_deref(), Some("allowInvalidHeaders"));
        assert!(error.detail.contains("unknown field"), "{}", error.detail);
    }
}
