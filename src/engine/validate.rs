//! Checks a spec before an engine runs it, so that every mistake surfaces as a typed
//! [`Error`] naming the tool and field, never at call time.

use std::collections::HashSet;

use serde_json::Value;

use super::catalog::Item;
use super::template;
use crate::error::{Error, ItemKind};
use crate::spec::{PromptSpec, ResourceSpec, ResourceTemplateSpec, ServerSpec, ToolSpec};

/// Checks every item, and that keys are unique within each kind.
pub(crate) fn server(spec: &ServerSpec) -> Result<(), Error> {
    unique(&spec.tools)?;
    unique(&spec.resources)?;
    unique(&spec.resource_templates)?;
    unique(&spec.prompts)?;
    if spec.page_size == Some(0) {
        return Err(Error::InvalidConfig {
            field: "page_size",
            reason: "must be at least 1".into(),
        });
    }
    Ok(())
}

fn unique<T: Item>(items: &[T]) -> Result<(), Error> {
    let mut seen = HashSet::new();
    for item in items {
        item.check()?;
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

/// A resource needs a URI and a name.
pub(crate) fn resource(spec: &ResourceSpec) -> Result<(), Error> {
    if spec.uri.is_empty() {
        return Err(invalid(
            ItemKind::Resource,
            &spec.name,
            "uri",
            "must not be empty",
        ));
    }
    if spec.name.is_empty() {
        return Err(invalid(
            ItemKind::Resource,
            &spec.uri,
            "name",
            "must not be empty",
        ));
    }
    Ok(())
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
    template::check_with(&spec.template, &["uri", "vars"]).map_err(|reason| {
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
    template::check_with(&spec.template, &["args"]).map_err(|reason| {
        invalid(
            kind,
            &spec.name,
            "template",
            format!("does not parse: {reason}"),
        )
    })
}

/// Checks one tool: name, schemas, template.
pub(crate) fn tool(spec: &ToolSpec) -> Result<(), Error> {
    name(&spec.name)?;
    schema(&spec.name, "inputSchema", &spec.input_schema)?;
    if let Some(output) = &spec.output_schema {
        schema(&spec.name, "outputSchema", output)?;
    }
    template::check(&spec.template).map_err(|reason| Error::Template {
        tool: spec.name.clone(),
        reason,
    })
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
    // Meta-validation only: compiling would try to resolve remote `$ref`s, and a tool may
    // legitimately point at a URL the client must never fetch.
    let meta = jsonschema::meta::validator_for(schema).map_err(|e| invalid(e.to_string()))?;
    let problems: Vec<String> = meta
        .iter_errors(schema)
        .map(|e| {
            let at = e.instance_path().to_string();
            format!("at {}: {e}", if at.is_empty() { "/" } else { &at })
        })
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
}
