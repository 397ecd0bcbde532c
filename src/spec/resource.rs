//! Resources and resource templates (spec `Resource`, `ResourceTemplate`).

use std::collections::BTreeMap;

use serde::de::Error as _;
use serde::{Deserialize, Deserializer, Serialize};
use serde_json::{Map, Value, json};

use super::script::Step;

/// What reading a static resource returns.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
#[cfg_attr(feature = "decoy-cli", derive(schemars::JsonSchema))]
#[serde(untagged)]
pub enum ResourceBody {
    /// UTF-8 text (spec `TextResourceContents`).
    Text {
        /// The text.
        text: String,
    },
    /// Binary data, base64-encoded (spec `BlobResourceContents`).
    Blob {
        /// The base64 text.
        blob: String,
    },
}

/// A static resource: listed by `resources/list`, read by `resources/read`.
///
/// Decoding refuses unknown members, like every spec type; a resource has exactly one of
/// `text` and `blob`.
#[derive(Debug, Clone, PartialEq, Serialize)]
#[cfg_attr(feature = "decoy-cli", derive(schemars::JsonSchema))]
// `deny_unknown_fields` is for the JSON Schema (`unevaluatedProperties: false`); decoding
// goes through `ResourceWire`, as serde cannot deny members around a flattened field.
#[serde(rename_all = "camelCase", deny_unknown_fields)]
pub struct ResourceSpec {
    /// The resource's URI, unique on the server.
    pub uri: String,
    /// A programmatic name.
    pub name: String,
    /// A display name.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub title: Option<String>,
    /// What the resource is.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub description: Option<String>,
    /// The MIME type of its contents.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub mime_type: Option<String>,
    /// Its size in bytes, if the listing should say.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub size: Option<u64>,
    /// Spec `Annotations` (audience, priority, lastModified), passed through.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub annotations: Option<Value>,
    /// Spec `Icon`s, passed through.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub icons: Option<Value>,
    /// `_meta`, passed through to the listing and the contents.
    #[serde(default, rename = "_meta", skip_serializing_if = "Option::is_none")]
    pub meta: Option<Value>,
    /// Drafts are neither listed nor readable by clients; `false` makes one (default `true`).
    #[serde(default = "super::yes")]
    pub published: bool,
    /// What `resources/read` returns.
    #[serde(flatten)]
    pub body: ResourceBody,
}

/// [`ResourceSpec`] as it is decoded: its contents spelled out as two members, so that serde
/// can refuse any other (around a flattened field it would see every member as unknown).
#[derive(Deserialize)]
#[serde(rename_all = "camelCase", deny_unknown_fields)]
struct ResourceWire {
    uri: String,
    name: String,
    #[serde(default)]
    title: Option<String>,
    #[serde(default)]
    description: Option<String>,
    #[serde(default)]
    mime_type: Option<String>,
    #[serde(default)]
    size: Option<u64>,
    #[serde(default)]
    annotations: Option<Value>,
    #[serde(default)]
    icons: Option<Value>,
    #[serde(default, rename = "_meta")]
    meta: Option<Value>,
    #[serde(default = "super::yes")]
    published: bool,
    #[serde(default)]
    text: Option<String>,
    #[serde(default)]
    blob: Option<String>,
}

impl<'de> Deserialize<'de> for ResourceSpec {
    fn deserialize<D: Deserializer<'de>>(deserializer: D) -> Result<Self, D::Error> {
        let wire = ResourceWire::deserialize(deserializer)?;
        let body = match (wire.text, wire.blob) {
            (Some(text), None) => ResourceBody::Text { text },
            (None, Some(blob)) => ResourceBody::Blob { blob },
            (Some(_), Some(_)) => {
                return Err(D::Error::custom(
                    "a resource has `text` or `blob`, not both",
                ));
            }
            (None, None) => {
                return Err(D::Error::custom(
                    "a resource needs its contents: `text` (UTF-8) or `blob` (base64)",
                ));
            }
        };
        Ok(ResourceSpec {
            uri: wire.uri,
            name: wire.name,
            title: wire.title,
            description: wire.description,
            mime_type: wire.mime_type,
            size: wire.size,
            annotations: wire.annotations,
            icons: wire.icons,
            meta: wire.meta,
            published: wire.published,
            body,
        })
    }
}

/// A family of resources named by an RFC 6570 URI template; `resources/read` of a matching
/// URI renders `template` with json-e over the matched variables.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
#[cfg_attr(feature = "decoy-cli", derive(schemars::JsonSchema))]
#[serde(rename_all = "camelCase", deny_unknown_fields)]
pub struct ResourceTemplateSpec {
    /// The URI template, e.g. `file:///{+path}` or `test://template/{id}/data`.
    pub uri_template: String,
    /// A programmatic name.
    pub name: String,
    /// A display name.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub title: Option<String>,
    /// What the resources are.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub description: Option<String>,
    /// The MIME type of every match.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub mime_type: Option<String>,
    /// Spec `Annotations`, passed through.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub annotations: Option<Value>,
    /// Spec `Icon`s, passed through.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub icons: Option<Value>,
    /// `_meta`, passed through.
    #[serde(default, rename = "_meta", skip_serializing_if = "Option::is_none")]
    pub meta: Option<Value>,
    /// json-e over `{uri, vars}`: a `{"text": ..}` or `{"blob": ..}` object, or an array of
    /// them (spec `ResourceContents`; `uri` and `mimeType` are filled in when missing).
    pub template: Value,
    /// Values offered by `completion/complete` for each variable.
    #[serde(default, skip_serializing_if = "BTreeMap::is_empty")]
    pub completions: BTreeMap<String, Vec<String>>,
    /// Steps run before `template` renders, as a tool's, over `{uri, vars, answers}`: in
    /// 2026-07-28 its `ask` steps answer `input_required` (`resources/read` is one of the
    /// methods multi round-trip requests name), in a legacy session they send requests to
    /// the client; `template` reads the answers as `answers.<key>`.
    #[serde(default, skip_serializing_if = "Vec::is_empty")]
    pub script: Vec<Step>,
    /// Drafts are neither listed nor usable by clients; `false` makes one (default `true`).
    #[serde(default = "super::yes")]
    pub published: bool,
}

impl ResourceSpec {
    /// A resource with its URI, name and contents, and nothing else set.
    ///
    /// # Example
    /// ```
    /// use mcp_decoy::spec::{ResourceBody, ResourceSpec};
    ///
    /// let readme = ResourceSpec::new("memo://readme", "readme", ResourceBody::Text { text: "hi".into() });
    /// assert_eq!(readme.uri, "memo://readme");
    /// assert!(readme.mime_type.is_none());
    /// ```
    pub fn new(uri: impl Into<String>, name: impl Into<String>, body: ResourceBody) -> Self {
        ResourceSpec {
            uri: uri.into(),
            name: name.into(),
            title: None,
            description: None,
            mime_type: None,
            size: None,
            annotations: None,
            icons: None,
            meta: None,
            published: true,
            body,
        }
    }

    /// The resource as `resources/list` shows it.
    pub(crate) fn listing(&self) -> Value {
        let mut out = Map::new();
        out.insert("uri".into(), json!(self.uri));
        out.insert("name".into(), json!(self.name));
        insert_text(&mut out, "title", self.title.as_deref());
        insert_text(&mut out, "description", self.description.as_deref());
        insert_text(&mut out, "mimeType", self.mime_type.as_deref());
        insert_opt(&mut out, "size", self.size.map(|s| json!(s)));
        insert_opt(&mut out, "annotations", self.annotations.clone());
        insert_opt(&mut out, "icons", self.icons.clone());
        insert_opt(&mut out, "_meta", self.meta.clone());
        Value::Object(out)
    }

    /// The contents `resources/read` returns (spec `ReadResourceResult.contents[0]`).
    pub(crate) fn contents(&self) -> Value {
        let mut out = Map::new();
        out.insert("uri".into(), json!(self.uri));
        insert_text(&mut out, "mimeType", self.mime_type.as_deref());
        match &self.body {
            ResourceBody::Text { text } => out.insert("text".into(), json!(text)),
            ResourceBody::Blob { blob } => out.insert("blob".into(), json!(blob)),
        };
        insert_opt(&mut out, "_meta", self.meta.clone());
        Value::Object(out)
    }
}

impl ResourceTemplateSpec {
    /// A resource template with its URI template, name and json-e response template, and
    /// nothing else set.
    ///
    /// # Example
    /// ```
    /// use mcp_decoy::spec::ResourceTemplateSpec;
    /// use serde_json::json;
    ///
    /// let item = ResourceTemplateSpec::new("test://item/{id}", "item", json!({ "text": "${vars.id}" }));
    /// assert!(item.completions.is_empty());
    /// ```
    pub fn new(uri_template: impl Into<String>, name: impl Into<String>, template: Value) -> Self {
        ResourceTemplateSpec {
            uri_template: uri_template.into(),
            name: name.into(),
            title: None,
            description: None,
            mime_type: None,
            annotations: None,
            icons: None,
            meta: None,
            template,
            completions: Default::default(),
            script: Vec::new(),
            published: true,
        }
    }

    /// The template as `resources/templates/list` shows it.
    pub(crate) fn listing(&self) -> Value {
        let mut out = Map::new();
        out.insert("uriTemplate".into(), json!(self.uri_template));
        out.insert("name".into(), json!(self.name));
        insert_text(&mut out, "title", self.title.as_deref());
        insert_text(&mut out, "description", self.description.as_deref());
        insert_text(&mut out, "mimeType", self.mime_type.as_deref());
        insert_opt(&mut out, "annotations", self.annotations.clone());
        insert_opt(&mut out, "icons", self.icons.clone());
        insert_opt(&mut out, "_meta", self.meta.clone());
        Value::Object(out)
    }
}

/// Inserts `value` under `key` when it is set: listings leave unset members out, as the
/// spec's optional members are omitted rather than `null`.
pub(crate) fn insert_opt(out: &mut Map<String, Value>, key: &str, value: Option<Value>) {
    if let Some(value) = value {
        out.insert(key.into(), value);
    }
}

/// [`insert_opt`] for a text member (`title`, `description`, `mimeType`).
pub(crate) fn insert_text(out: &mut Map<String, Value>, key: &str, value: Option<&str>) {
    insert_opt(out, key, value.map(|text| json!(text)));
}

#[cfg(test)]
mod tests {
    use super::*;

    fn decode(value: Value) -> Result<ResourceSpec, String> {
        serde_json::from_value(value).map_err(|e| e.to_string())
    }

    #[test]
    fn a_resource_decodes_with_one_of_its_contents_and_no_other_member() {
        let text = decode(
            json!({ "uri": "memo://a", "name": "a", "text": "hi", "mimeType": "text/plain" }),
        )
        .expect("a text resource");
        assert_eq!(text.body, ResourceBody::Text { text: "hi".into() });
        assert_eq!(text.mime_type.as_deref(), Some("text/plain"));
        let blob =
            decode(json!({ "uri": "memo://b", "name": "b", "blob": "aGk=" })).expect("a blob");
        assert_eq!(
            blob.body,
            ResourceBody::Blob {
                blob: "aGk=".into()
            }
        );
        // What serializes decodes again.
        let again = decode(serde_json::to_value(&text).expect("JSON")).expect("round trip");
        assert_eq!(again, text);

        let unknown = decode(json!({ "uri": "memo://a", "name": "a", "text": "hi", "mime": "x" }));
        assert!(
            unknown
                .as_ref()
                .is_err_and(|e| e.contains("unknown field `mime`")),
            "{unknown:?}"
        );
        let both = decode(json!({ "uri": "memo://a", "name": "a", "text": "hi", "blob": "aGk=" }));
        assert!(
            both.as_ref().is_err_and(|e| e.contains("not both")),
            "{both:?}"
        );
        let neither = decode(json!({ "uri": "memo://a", "name": "a" }));
        assert!(
            neither
                .as_ref()
                .is_err_and(|e| e.contains("needs its contents")),
            "{neither:?}"
        );
    }
}
