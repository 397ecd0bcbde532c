//! Checks a spec before an engine runs it, so that every mistake surfaces as a typed
//! [`Error`] naming the tool and field, never at call time.

use std::collections::HashSet;

use serde_json::{Value, json};

use super::headers::header_rules;
use super::known;
use super::script::{steps, steps_with, task};
use crate::engine::schema;
use crate::engine::template;
use crate::engine::uri_template::UriTemplate;
use crate::error::{Error, ItemKind};
use crate::spec::{PromptSpec, ResourceSpec, ResourceTemplateSpec, ServerSpec, Step, ToolSpec};

/// Items of one kind a server may hold: a catalog edited in a loop (or over the app's REST
/// API) must not grow without bound.
pub(crate) const MAX_ITEMS: usize = 10_000;

/// What the catalog needs to know of its items: how they are keyed and checked.
pub(crate) trait Item: Clone {
    const KIND: ItemKind;
    /// The name or URI that identifies the item within its kind.
    fn key(&self) -> &str;
    /// Whether clients can list and use it (`false` for a draft).
    fn visible(&self) -> bool {
        true
    }
    /// Checks the item alone (not uniqueness).
    fn check(&self) -> Result<(), Error>;
}

/// `impl Item` for a spec type: its kind, its key field, its check, and whether it is
/// visible.
macro_rules! item {
    ($spec:ty, $kind:ident, $key:ident, $check:ident $(, visible: $visible:ident)?) => {
        impl Item for $spec {
            const KIND: ItemKind = ItemKind::$kind;
            fn key(&self) -> &str {
                &self.$key
            }
            $(fn visible(&self) -> bool {
                self.$visible
            })?
            fn check(&self) -> Result<(), Error> {
                $check(self)
            }
        }
    };
}

item!(ToolSpec, Tool, name, tool, visible: published);
item!(ResourceSpec, Resource, uri, resource, visible: published);
item!(ResourceTemplateSpec, ResourceTemplate, uri_template, resource_template, visible: published);
item!(PromptSpec, Prompt, name, prompt, visible: published);

/// Checks every item, and that keys are unique within each kind. The tools are `tools`
/// (not `spec.tools`), each with whether it needs its check (a tool a live server holds
/// passed it already).
pub(crate) fn server<'a>(
    spec: &ServerSpec,
    tools: impl ExactSizeIterator<Item = (&'a ToolSpec, bool)>,
) -> Result<(), Error> {
    unique(tools)?;
    unique(spec.resources.iter().map(|item| (item, true)))?;
    unique(spec.resource_templates.iter().map(|item| (item, true)))?;
    unique(spec.prompts.iter().map(|item| (item, true)))?;
    if spec.page_size == Some(0) {
        return Err(Error::InvalidConfig {
            field: "page_size",
            reason: "must be at least 1".into(),
        });
    }
    Ok(())
}

/// `items` with whether each needs its check.
fn unique<'a, T: Item + 'a>(
    items: impl ExactSizeIterator<Item = (&'a T, bool)>,
) -> Result<(), Error> {
    if items.len() > MAX_ITEMS {
        return Err(Error::InvalidConfig {
            field: "catalog",
            reason: format!(
                "{} {}s; a server holds at most {} of each kind",
                items.len(),
                T::KIND,
                MAX_ITEMS
            ),
        });
    }
    let mut seen = HashSet::new();
    for (item, check) in items {
        if check {
            item.check()?;
        }
        if !seen.insert(item.key()) {
            return Err(Error::Duplicate {
                kind: T::KIND,
                name: item.key().to_string(),
            });
        }
    }
    Ok(())
}

fn invalid(kind: ItemKind, name: &str, field: &'static str, reason: impl Into<String>) -> Error {
    Error::Invalid {
        kind,
        name: name.to_string(),
        field,
        reason: reason.into(),
    }
}

/// A resource needs a URI with a scheme, a name, and base64 in `blob`.
pub(crate) fn resource(spec: &ResourceSpec) -> Result<(), Error> {
    if spec.uri.is_empty() {
        return Err(invalid(
            ItemKind::Resource,
            &spec.name,
            "uri",
            "must not be empty",
        ));
    }
    uri(&spec.uri).map_err(|reason| invalid(ItemKind::Resource, &spec.uri, "uri", reason))?;
    if spec.name.is_empty() {
        return Err(invalid(
            ItemKind::Resource,
            &spec.uri,
            "name",
            "must not be empty",
        ));
    }
    passthrough(
        ItemKind::Resource,
        &spec.uri,
        spec.annotations.as_ref(),
        spec.icons.as_ref(),
        spec.meta.as_ref(),
    )?;
    if let crate::spec::ResourceBody::Blob { blob } = &spec.body {
        use base64::Engine as _;
        // server/resources "Binary Content": `blob` is base64-encoded data.
        base64::engine::general_purpose::STANDARD
            .decode(blob)
            .map_err(|e| {
                invalid(
                    ItemKind::Resource,
                    &spec.uri,
                    "blob",
                    format!("is not valid base64 ({e})"),
                )
            })?;
    }
    Ok(())
}

/// Fields passed through to listings must still be what the schema says they are, or every
/// listing that shows the item would be invalid.
fn passthrough(
    kind: ItemKind,
    name: &str,
    annotations: Option<&Value>,
    icons: Option<&Value>,
    meta: Option<&Value>,
) -> Result<(), Error> {
    if let Some(annotations) = annotations {
        let problems = crate::engine::schema::definition_problems("Annotations", annotations);
        if !problems.is_empty() {
            return Err(invalid(
                kind,
                name,
                "annotations",
                format!("is not a valid Annotations object: {}", problems.join("; ")),
            ));
        }
    }
    if let Some(icons) = icons {
        let Some(items) = icons.as_array() else {
            return Err(invalid(
                kind,
                name,
                "icons",
                "must be an array of Icon objects",
            ));
        };
        for (n, icon) in items.iter().enumerate() {
            let problems = crate::engine::schema::definition_problems("Icon", icon);
            if !problems.is_empty() {
                return Err(invalid(
                    kind,
                    name,
                    "icons",
                    format!("[{n}] is not a valid Icon: {}", problems.join("; ")),
                ));
            }
        }
    }
    if meta.is_some_and(|meta| !meta.is_object()) {
        return Err(invalid(kind, name, "_meta", "must be a JSON object"));
    }
    Ok(())
}

/// A simple RFC 3986 check: a scheme (a letter, then letters, digits, `+`, `-`, `.`), a
/// `:`, and no whitespace or control characters.
fn uri(text: &str) -> Result<(), String> {
    let scheme = text.split_once(':').map(|(scheme, _)| scheme);
    let valid_scheme = scheme.is_some_and(|s| {
        s.chars().next().is_some_and(|c| c.is_ascii_alphabetic())
            && s.chars()
                .all(|c| c.is_ascii_alphanumeric() || matches!(c, '+' | '-' | '.'))
    });
    if !valid_scheme {
        return Err(
            "is not a URI: it must start with a scheme such as `file:` or `test:` (RFC 3986)"
                .into(),
        );
    }
    match text.chars().find(|c| c.is_whitespace() || c.is_control()) {
        Some(c) => Err(format!(
            "is not a URI: {c:?} must be percent-encoded (RFC 3986)"
        )),
        None => Ok(()),
    }
}

/// A resource template needs a URI template, a name, and a template that parses.
pub(crate) fn resource_template(spec: &ResourceTemplateSpec) -> Result<(), Error> {
    let kind = ItemKind::ResourceTemplate;
    if spec.uri_template.is_empty() {
        return Err(invalid(
            kind,
            &spec.name,
            "uriTemplate",
            "must not be empty",
        ));
    }
    if spec.name.is_empty() {
        return Err(invalid(
            kind,
            &spec.uri_template,
            "name",
            "must not be empty",
        ));
    }
    passthrough(
        kind,
        &spec.uri_template,
        spec.annotations.as_ref(),
        spec.icons.as_ref(),
        spec.meta.as_ref(),
    )?;
    UriTemplate::parse(&spec.uri_template).map_err(|e| {
        invalid(
            kind,
            &spec.uri_template,
            "uriTemplate",
            format!("is not a valid RFC 6570 URI template: {e}"),
        )
    })?;
    let context = json!({ "uri": "", "vars": {}, "answers": {} });
    steps_with(&spec.script, &context).map_err(|reason| {
        invalid(
            ItemKind::ResourceTemplate,
            &spec.uri_template,
            "script",
            reason,
        )
    })?;
    template::check_with(&spec.template, &context).map_err(|reason| {
        invalid(
            kind,
            &spec.uri_template,
            "template",
            format!("does not parse: {reason}"),
        )
    })
}

/// A prompt needs a valid name, unique argument names, and a template that parses.
pub(crate) fn prompt(spec: &PromptSpec) -> Result<(), Error> {
    let kind = ItemKind::Prompt;
    if spec.name.is_empty() {
        return Err(invalid(kind, &spec.name, "name", "must not be empty"));
    }
    let mut seen = HashSet::new();
    for argument in &spec.arguments {
        if argument.name.is_empty() || !seen.insert(argument.name.as_str()) {
            return Err(invalid(
                kind,
                &spec.name,
                "arguments",
                format!(
                    "argument names must be non-empty and unique (`{}`)",
                    argument.name
                ),
            ));
        }
    }
    template::check(&spec.template).map_err(|reason| {
        invalid(
            kind,
            &spec.name,
            "template",
            format!("does not parse: {reason}"),
        )
    })?;
    steps(&spec.script).map_err(|reason| invalid(kind, &spec.name, "script", reason))
}

/// Checks one tool: name, schemas, template.
pub(crate) fn tool(spec: &ToolSpec) -> Result<(), Error> {
    name(&spec.name)?;
    // Both checks of the input schema under one key: its tree is walked once.
    let checks = if spec.allow_invalid_headers {
        "inputSchema"
    } else {
        "inputSchema with x-mcp-header rules"
    };
    known::checked(checks, &spec.input_schema, || {
        schema(&spec.name, "inputSchema", &spec.input_schema)?;
        if spec.allow_invalid_headers {
            return Ok(());
        }
        header_rules(&spec.input_schema).map_err(|reason| {
            invalid(
                ItemKind::Tool,
                &spec.name,
                "inputSchema",
                format!("{reason}; clients must drop such a tool (Tool::allow_invalid_headers publishes it anyway, for testing that they do)"),
            )
        })
    })?;
    if let Some(output) = &spec.output_schema {
        known::checked("outputSchema", output, || {
            schema(&spec.name, "outputSchema", output)
        })?;
    }
    known::checked("tool template", &spec.template, || {
        template::check(&spec.template)
    })
    .map_err(|reason| Error::Template {
        tool: spec.name.clone(),
        reason,
    })?;
    steps(&spec.script).map_err(|reason| Error::Invalid {
        kind: ItemKind::Tool,
        name: spec.name.clone(),
        field: "script",
        reason,
    })?;
    one_stateless_round(spec)?;
    task(spec)?;
    super::responses::validate(spec)
}

/// Without `requestState` a retry replays the script from its start, so only asks that lead
/// it (one round) can be answered from `inputResponses` alone.
fn one_stateless_round(spec: &ToolSpec) -> Result<(), Error> {
    if !spec.omit_request_state {
        return Ok(());
    }
    let first_other = spec
        .script
        .iter()
        .position(|step| !matches!(step, Step::Ask { .. }))
        .unwrap_or(spec.script.len());
    match spec.script[first_other..]
        .iter()
        .position(|step| matches!(step, Step::Ask { .. }))
    {
        Some(late) => Err(Error::Invalid {
            kind: ItemKind::Tool,
            name: spec.name.clone(),
            field: "omitRequestState",
            reason: format!(
                "needs every ask step at the start of the script, before any other step \
                 (step {} asks after step {first_other}): without requestState a retry starts \
                 the script over, so only one leading round of asks can be answered",
                first_other + late
            ),
        }),
        None => Ok(()),
    }
}

/// 1-128 characters of `A-Z a-z 0-9 _ - .` (spec `Tool.name` guidance, product guide).
pub(crate) fn name(name: &str) -> Result<(), Error> {
    let reason = if name.is_empty() {
        Some("it is empty".to_string())
    } else if name.chars().count() > 128 {
        Some(format!("it has {} characters", name.chars().count()))
    } else {
        name.chars()
            .find(|c| !(c.is_ascii_alphanumeric() || matches!(c, '_' | '-' | '.')))
            .map(|c| format!("{c:?} is not allowed"))
    };
    match reason {
        Some(reason) => Err(Error::InvalidToolName {
            name: name.to_string(),
            reason,
        }),
        None => Ok(()),
    }
}

fn schema(tool: &str, field: &'static str, schema: &Value) -> Result<(), Error> {
    let invalid = |reason: String| Error::InvalidSchema {
        tool: tool.to_string(),
        field,
        reason,
    };
    if schema.get("type") != Some(&Value::String("object".into())) {
        return Err(invalid(r#"it must have "type": "object""#.into()));
    }
    // Meta-validation only: compiling would refuse a remote `$ref`, and a tool may
    // legitimately point at a URL the client must never fetch.
    let problems: Vec<String> = schema::meta_violations(schema)
        .map_err(invalid)?
        .iter()
        .map(ToString::to_string)
        .collect();
    if problems.is_empty() {
        Ok(())
    } else {
        Err(invalid(problems.join("; ")))
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use serde_json::json;

    #[test]
    fn names_follow_the_product_rules() {
        assert!(name("get_forecast.v2-beta").is_ok());
        assert!(name("").is_err());
        assert!(name(&"a".repeat(129)).is_err());
        assert!(name(&"a".repeat(128)).is_ok());
        let err = name("get forecast").unwrap_err().to_string();
        assert!(err.contains("' ' is not allowed"), "{err}");
    }

    #[test]
    fn schemas_must_be_object_schemas_and_valid() {
        let mut t = ToolSpec::new("t");
        t.input_schema = json!({"type": "string"});
        assert!(
            tool(&t)
                .unwrap_err()
                .to_string()
                .contains("\"type\": \"object\"")
        );
        t.input_schema = json!({"type": "object", "properties": {"a": {"type": "nonsense"}}});
        let err = tool(&t).unwrap_err().to_string();
        assert!(
            err.contains("inputSchema") && err.contains("/properties/a/type"),
            "{err}"
        );
    }

    #[test]
    fn a_remote_ref_is_kept_and_never_fetched() {
        let mut t = ToolSpec::new("lookup_user");
        t.input_schema = json!({"type": "object", "properties": {"user": {"$ref": "https://canary.invalid/user.json"}}});
        assert!(tool(&t).is_ok());
    }

    fn text_resource(uri: &str) -> ResourceSpec {
        let body = crate::spec::ResourceBody::Text { text: "hi".into() };
        ResourceSpec::new(uri, "r", body)
    }

    #[test]
    fn a_resource_uri_needs_a_scheme_and_a_blob_needs_base64() {
        assert!(resource(&text_resource("test://static-text")).is_ok());
        assert!(resource(&text_resource("urn:isbn:0451450523")).is_ok());
        for bad in ["static-text", "://x", "1x://y", "file:///my notes.txt"] {
            let err = resource(&text_resource(bad)).expect_err(bad).to_string();
            assert!(err.contains("`uri`"), "{bad}: {err}");
        }
        let mut blob = text_resource("test://static-binary");
        blob.body = crate::spec::ResourceBody::Blob {
            blob: "not base64!".into(),
        };
        let err = resource(&blob).expect_err("bad base64").to_string();
        assert!(err.contains("`blob`") && err.contains("base64"), "{err}");
        blob.body = crate::spec::ResourceBody::Blob {
            blob: "aGVsbG8=".into(),
        };
        assert!(resource(&blob).is_ok());
    }

    #[test]
    fn passed_through_fields_must_match_the_schema() {
        let mut r = text_resource("test://r");
        r.annotations = Some(json!({ "audience": ["user"], "priority": 0.5 }));
        r.icons = Some(json!([{ "src": "https://example.com/i.png" }]));
        r.meta = Some(json!({ "k": 1 }));
        assert!(resource(&r).is_ok());
        r.annotations = Some(json!({ "audience": ["robot"] }));
        let err = resource(&r).expect_err("bad audience").to_string();
        assert!(
            err.contains("`annotations`") && err.contains("/audience/0"),
            "{err}"
        );
        r.annotations = None;
        r.icons = Some(json!([{ "mimeType": "image/png" }]));
        let err = resource(&r).expect_err("icon without src").to_string();
        assert!(err.contains("`icons`") && err.contains("src"), "{err}");
        r.icons = None;
        r.meta = Some(json!("x"));
        assert!(resource(&r).is_err());
    }

    #[test]
    fn a_malformed_uri_template_names_the_field_and_position() {
        let spec =
            ResourceTemplateSpec::new("test://template/{id/data", "broken", json!({ "text": "x" }));
        let err = resource_template(&spec).expect_err("unclosed expression");
        assert!(
            matches!(&err, Error::Invalid { field: "uriTemplate", reason, .. } if reason.contains("position 16")),
            "{err}"
        );
    }
}
