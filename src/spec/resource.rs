//! Resources and resource templates (spec `Resource`, `ResourceTemplate`).

use std::collections::BTreeMap;

use serde::{Deserialize, Serialize};
use serde_json::{Map, Value, json};

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
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
#[cfg_attr(feature = "decoy-cli", derive(schemars::JsonSchema))]
#[serde(rename_all = "camelCase")]
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
    /// What `resources/read` returns.
    #[serde(flatten)]
    pub body: ResourceBody,
}

/// A family of resources named by an RFC 6570 URI template; `resources/read` of a matching
/// URI renders `template` with json-e over the matched variables.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
#[cfg_attr(feature = "decoy-cli", derive(schemars::JsonSchema))]
#[serde(rename_all = "camelCase")]
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
