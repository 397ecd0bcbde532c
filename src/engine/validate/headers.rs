//! `x-mcp-header` annotations of a tool's input schema (2026-07-28
//! `basic/transports/streamable-http.mdx`, "Custom Headers from Tool Parameters"): where they
//! are, and the rules they must follow: the tool check. Finding them is wire vocabulary,
//! shared with the modern header check ([`param_headers`]).

use serde_json::Value;

use crate::engine::protocol::param_headers::{is_tchar, param_headers};

/// The JSON pointer of an `x-mcp-header` off the `properties` chain, if any: under
/// `items`, a composition or conditional keyword, `$defs`, and so on. `on_chain` says
/// whether `schema` is the root or reached from it through `properties` alone.
fn off_chain_header(schema: &Value, on_chain: bool, at: &str) -> Option<String> {
    match schema {
        Value::Object(map) => map.iter().find_map(|(key, value)| {
            let here = format!("{at}/{}", key.replace('~', "~0").replace('/', "~1"));
            match key.as_str() {
                "x-mcp-header" => (!on_chain).then_some(here),
                "properties" => value.as_object().and_then(|properties| {
                    properties.iter().find_map(|(name, property)| {
                        let name = name.replace('~', "~0").replace('/', "~1");
                        off_chain_header(property, on_chain, &format!("{here}/{name}"))
                    })
                }),
                // Instance data and property names, not subschemas.
                "default" | "const" | "enum" | "examples" | "required" | "dependentRequired" => {
                    None
                }
                _ => off_chain_header(value, false, &here),
            }
        }),
        Value::Array(items) => items
            .iter()
            .enumerate()
            .find_map(|(i, item)| off_chain_header(item, false, &format!("{at}/{i}"))),
        _ => None,
    }
}

/// The `x-mcp-header` rules of 2026-07-28 `server/tools.mdx`: a non-empty HTTP token,
/// unique regardless of case, on an integer, string or boolean property reached through
/// `properties` alone. The error names the property (or schema location) at fault.
pub(crate) fn header_rules(schema: &Value) -> Result<(), String> {
    if schema.get("x-mcp-header").is_some() {
        return Err("`x-mcp-header` annotates the schema root; it belongs on a property".into());
    }
    if let Some(at) = off_chain_header(schema, true, "") {
        return Err(format!(
            "`x-mcp-header` at {at} is not on a chain of `properties` from the root (not under items, anyOf/oneOf/allOf/not, if/then/else, $ref or $defs)"
        ));
    }
    let mut seen: Vec<(String, String)> = Vec::new();
    for annotation in param_headers(schema) {
        let property = annotation.path.join(".");
        let fail = |reason: String| Err(format!("property `{property}`: `x-mcp-header` {reason}"));
        let Value::String(header) = annotation.header else {
            return fail(format!("must be a string, got {}", annotation.header));
        };
        if header.is_empty() {
            return fail("must not be empty".into());
        }
        if let Some(c) = header.chars().find(|c| !is_tchar(*c)) {
            return fail(format!(
                "`{header}` is not an HTTP header name token: {c:?} is not allowed"
            ));
        }
        let lower = header.to_ascii_lowercase();
        if let Some((_, other)) = seen.iter().find(|(l, _)| *l == lower) {
            return fail(format!(
                "`{header}` repeats the header of property `{other}` (header names are case-insensitive)"
            ));
        }
        seen.push((lower, property.clone()));
        match annotation.schema.get("type") {
            Some(Value::String(t)) if matches!(t.as_str(), "string" | "integer" | "boolean") => {}
            Some(Value::String(t)) if t == "number" => {
                return fail(
                    "is on a `number` property; only integer, string and boolean properties may be mirrored".into(),
                );
            }
            Some(other) => {
                return fail(format!(
                    "is on a property of type {other}; only integer, string and boolean properties may be mirrored"
                ));
            }
            None => {
                return fail(
                    "is on a property without `type`; it needs \"type\": \"string\", \"integer\" or \"boolean\"".into(),
                );
            }
        }
    }
    Ok(())
}
