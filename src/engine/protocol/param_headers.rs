//! `x-mcp-header` annotations of a tool's input schema (2026-07-28
//! `basic/transports/streamable-http.mdx`, "Custom Headers from Tool Parameters"): where
//! they are and which characters a header name may hold. The modern header check reads a
//! request's headers by them; `validate` checks a tool's annotations with them.

use serde_json::Value;

/// An `x-mcp-header` annotation on a property reached from the schema root through
/// `properties` keys alone (2026-07-28 `basic/transports/streamable-http.mdx`, "Schema
/// Extension").
pub(crate) struct ParamHeader<'a> {
    /// Property names from the root to the annotated property.
    pub(crate) path: Vec<&'a str>,
    /// The annotated property's schema.
    pub(crate) schema: &'a Value,
    /// The annotation (a header name, when valid).
    pub(crate) header: &'a Value,
}

/// Every `x-mcp-header` annotation along `properties` chains, nested ones included.
pub(crate) fn param_headers(schema: &Value) -> Vec<ParamHeader<'_>> {
    fn walk<'a>(schema: &'a Value, path: &mut Vec<&'a str>, out: &mut Vec<ParamHeader<'a>>) {
        let Some(properties) = schema.get("properties").and_then(Value::as_object) else {
            return;
        };
        for (name, property) in properties {
            path.push(name);
            if let Some(header) = property.get("x-mcp-header") {
                out.push(ParamHeader {
                    path: path.clone(),
                    schema: property,
                    header,
                });
            }
            walk(property, path, out);
            path.pop();
        }
    }
    let mut out = Vec::new();
    walk(schema, &mut Vec::new(), &mut out);
    out
}

/// RFC 9110 `tchar`, the characters of a header name.
pub(crate) fn is_tchar(c: char) -> bool {
    c.is_ascii_alphanumeric() || "!#$%&'*+-.^_`|~".contains(c)
}
