//! Request bodies: the [`JsonBody`] extractor (malformed JSON and wrong types become a `400`
//! that names the field, an oversized body a `413`), and the shallow merge that every
//! `PATCH` route applies. Knows no route, resource or engine type.

use axum::body::Bytes;
use axum::extract::rejection::BytesRejection;
use axum::extract::{FromRequest, Request};
use axum::http::StatusCode;
use serde::Serialize;
use serde::de::DeserializeOwned;
use serde_json::{Map, Value};

use super::ApiError;

/// The largest request body the API reads.
pub(crate) const MAX_BODY_BYTES: usize = 4 * 1024 * 1024;

/// How deep a request body may nest (objects and arrays; the body itself is one level).
/// What a body holds is saved in `servers.json` inside up to ten more levels, and the
/// file's JSON reader stops at 128: a deeper body would be saved, then refused at the next
/// start.
pub(crate) const MAX_BODY_DEPTH: usize = 64;

/// A JSON request body decoded into `T`; every failure is an [`ApiError`] that says what
/// is wrong and where (a `Json` rejection would answer plain text, not problem details).
#[derive(Debug)]
pub(crate) struct JsonBody<T>(pub(crate) T);

impl<S: Send + Sync, T: DeserializeOwned> FromRequest<S> for JsonBody<T> {
    type Rejection = ApiError;

    async fn from_request(request: Request, state: &S) -> Result<Self, ApiError> {
        let bytes = Bytes::from_request(request, state)
            .await
            .map_err(body_rejection)?;
        let value: Value = serde_json::from_slice(&bytes).map_err(|error| {
            ApiError::bad_request(
                "body",
                format!("the request body is not valid JSON: {error}"),
            )
        })?;
        if let Some(path) = too_deep(&value, MAX_BODY_DEPTH) {
            return Err(ApiError::bad_request(
                "body",
                format!(
                    "the request body nests deeper than {MAX_BODY_DEPTH} levels (at `{path}`), \
                     the API's limit, which keeps servers.json readable at the next start"
                ),
            ));
        }
        decode(&value).map(JsonBody)
    }
}

/// Where `value` first holds an object or array deeper than `levels` levels, as a path
/// (`tools[0].template._meta.a…`, cut after a few steps), if it does. Recursion stops at
/// `levels`, so the stack it takes is bounded whatever the body.
fn too_deep(value: &Value, levels: usize) -> Option<String> {
    fn walk(value: &Value, left: usize, path: &mut Vec<String>) -> bool {
        if !(value.is_object() || value.is_array()) {
            return false;
        }
        if left == 0 {
            return true;
        }
        let step = match value {
            Value::Object(members) => members
                .iter()
                .find_map(|(key, child)| walk(child, left - 1, path).then(|| format!(".{key}"))),
            Value::Array(items) => items.iter().enumerate().find_map(|(index, child)| {
                walk(child, left - 1, path).then(|| format!("[{index}]"))
            }),
            _ => None,
        };
        step.map(|step| path.push(step)).is_some()
    }
    let mut path = Vec::new();
    if !walk(value, levels, &mut path) {
        return None;
    }
    path.reverse();
    let shown = 6;
    let mut text: String = path.iter().take(shown).map(String::as_str).collect();
    if path.len() > shown {
        text.push('…');
    }
    Some(text.trim_start_matches('.').to_string())
}

fn body_rejection(rejection: BytesRejection) -> ApiError {
    if rejection.status() == StatusCode::PAYLOAD_TOO_LARGE {
        return ApiError::new(
            StatusCode::PAYLOAD_TOO_LARGE,
            format!(
                "the request body is larger than {} MiB",
                MAX_BODY_BYTES / 1024 / 1024
            ),
        )
        .field("body");
    }
    ApiError::new(rejection.status(), rejection.body_text()).field("body")
}

/// Decodes a JSON value into `T`, naming the field at fault (`tools[0].name`) on failure.
pub(crate) fn decode<T: DeserializeOwned>(value: &Value) -> Result<T, ApiError> {
    serde_path_to_error::deserialize(value).map_err(|error| {
        let path = at_member(error.path().to_string(), &error.inner().to_string());
        let inner = error.into_inner();
        if path == "." {
            ApiError::bad_request("body", format!("the request body is invalid: {inner}"))
        } else {
            ApiError::bad_request(path.clone(), format!("`{path}`: {inner}"))
        }
    })
}

/// Decodes the body member `member`, naming it (and any path inside it) on failure.
pub(crate) fn decode_member<T: DeserializeOwned>(
    member: &str,
    value: &Value,
) -> Result<T, ApiError> {
    serde_path_to_error::deserialize(value).map_err(|error| {
        let path = match at_member(error.path().to_string(), &error.inner().to_string()) {
            inner if inner == "." => member.to_string(),
            inner if inner.starts_with('[') => format!("{member}{inner}"),
            inner => format!("{member}.{inner}"),
        };
        let inner = error.into_inner();
        ApiError::bad_request(path.clone(), format!("`{path}`: {inner}"))
    })
}

/// The path of a decode error, down to the member when the error is an unknown member:
/// serde names it at the enclosing value for an internally tagged enum (a script step's
/// `script[0]`), where a struct's would be `script[0].unit`.
fn at_member(path: String, message: &str) -> String {
    let member = message
        .strip_prefix("unknown field `")
        .and_then(|rest| rest.split_once('`'))
        .map(|(member, _)| member);
    match member {
        Some(member) if path == "." => member.to_string(),
        Some(member) if path != member && !path.ends_with(&format!(".{member}")) => {
            format!("{path}.{member}")
        }
        _ => path,
    }
}

/// The body as a JSON object, or a `400` saying it must be one.
pub(crate) fn object(value: Value) -> Result<Map<String, Value>, ApiError> {
    match value {
        Value::Object(map) => Ok(map),
        other => Err(ApiError::bad_request(
            "body",
            format!(
                "the request body must be a JSON object, not {}",
                crate::error::json_type(&other)
            ),
        )),
    }
}

/// Applies a `PATCH` body to `current`: each member the body names replaces that field
/// whole (no deep merge, so a new `inputSchema` or `template` never mixes with the old
/// one), and `null` clears it back to its default. A member outside `members` is refused by
/// name, and a wrong type is named by decoding the merged result, so the spec type is its
/// own patch type.
pub(crate) fn merge<T>(
    current: &T,
    patch: Map<String, Value>,
    members: &[String],
) -> Result<T, ApiError>
where
    T: Serialize + DeserializeOwned,
{
    if let Some(unknown) = patch.keys().find(|key| !members.contains(key)) {
        // Worded as serde words `deny_unknown_fields`, as the API's other bodies are.
        let expected: Vec<String> = members.iter().map(|m| format!("`{m}`")).collect();
        return Err(ApiError::bad_request(
            unknown.clone(),
            format!(
                "`{unknown}`: unknown field `{unknown}`, expected one of {}",
                expected.join(", ")
            ),
        ));
    }
    apply(current, patch)
}

fn apply<T>(current: &T, patch: Map<String, Value>) -> Result<T, ApiError>
where
    T: Serialize + DeserializeOwned,
{
    let mut merged = match serde_json::to_value(current) {
        Ok(Value::Object(map)) => map,
        // Our spec types always serialize to objects; anything else is a bug, not input.
        _ => {
            return Err(ApiError::new(
                StatusCode::INTERNAL_SERVER_ERROR,
                "the current value could not be read",
            ));
        }
    };
    for (key, value) in patch {
        if value.is_null() {
            merged.remove(&key);
        } else {
            merged.insert(key, value);
        }
    }
    decode(&Value::Object(merged))
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::spec::ToolSpec;
    use serde_json::json;

    /// The members the tests' patches may name.
    fn patch() -> Vec<String> {
        vec!["title".into(), "inputSchema".into()]
    }

    fn map(value: Value) -> Map<String, Value> {
        object(value).expect("an object")
    }

    #[test]
    fn a_patch_replaces_named_fields_whole_and_null_clears() {
        let mut tool = ToolSpec::new("t");
        tool.title = Some("old".into());
        tool.input_schema = json!({ "type": "object", "properties": { "a": {} } });
        let patched: ToolSpec = merge(
            &tool,
            map(json!({ "title": null, "inputSchema": { "type": "object", "properties": { "b": {} } } })),
            &patch(),
        )
        .expect("merged");
        assert_eq!(patched.title, None);
        assert_eq!(
            patched.input_schema,
            json!({ "type": "object", "properties": { "b": {} } })
        );
    }

    #[test]
    fn a_patch_with_an_unknown_or_mistyped_member_names_it() {
        let tool = ToolSpec::new("t");
        let unknown = merge(&tool, map(json!({ "titel": "x" })), &patch()).expect_err("unknown");
        assert!(unknown.detail.contains("titel"), "{}", unknown.detail);
        let mistyped = merge(&tool, map(json!({ "title": 7 })), &patch()).expect_err("mistyped");
        assert_eq!(mistyped.field.as_deref(), Some("title"));
    }
}
