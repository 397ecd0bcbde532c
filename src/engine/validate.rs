//! Checks a spec before an engine runs it, so that every mistake surfaces as a typed
//! [`Error`] naming the tool and field, never at call time.

use std::collections::HashSet;

use serde_json::Value;

use super::template;
use crate::error::Error;
use crate::spec::{ServerSpec, ToolSpec};

/// Checks every tool and that tool names are unique.
pub(crate) fn server(spec: &ServerSpec) -> Result<(), Error> {
    let mut seen = HashSet::new();
    for tool in &spec.tools {
        self::tool(tool)?;
        if !seen.insert(tool.name.as_str()) {
            return Err(Error::DuplicateTool {
                name: tool.name.clone(),
            });
        }
    }
    Ok(())
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
