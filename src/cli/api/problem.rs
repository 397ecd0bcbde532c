//! One error type for the REST API, answered as RFC 9457 problem details
//! (`application/problem+json`) that name the field at fault.
//!
//! The one place that maps an engine `crate::error::Error` to a status and field;
//! knows no route and no engine state.

use axum::http::{HeaderValue, StatusCode, header};
use axum::response::{IntoResponse, Response};
use serde_json::{Map, Value, json};

/// A REST error: status, title, detail and, when one input is at fault, its name.
#[derive(Debug, Clone)]
pub struct ApiError {
    /// The HTTP status.
    pub status: StatusCode,
    /// What went wrong, for people.
    pub detail: String,
    /// The request field, path parameter or header at fault.
    pub field: Option<String>,
    /// Every problem, when there are several (JSON pointer + reason).
    pub errors: Vec<Value>,
}

impl ApiError {
    /// A problem with a status and detail.
    pub fn new(status: StatusCode, detail: impl Into<String>) -> Self {
        ApiError {
            status,
            detail: detail.into(),
            field: None,
            errors: Vec::new(),
        }
    }

    /// Names the field at fault.
    pub fn field(mut self, field: impl Into<String>) -> Self {
        self.field = Some(field.into());
        self
    }

    /// 400 naming the field.
    pub fn bad_request(field: impl Into<String>, detail: impl Into<String>) -> Self {
        ApiError::new(StatusCode::BAD_REQUEST, detail).field(field)
    }

    /// 404 for a missing resource.
    pub fn not_found(detail: impl Into<String>) -> Self {
        ApiError::new(StatusCode::NOT_FOUND, detail)
    }

    /// 409 for a name already taken.
    pub fn conflict(field: impl Into<String>, detail: impl Into<String>) -> Self {
        ApiError::new(StatusCode::CONFLICT, detail).field(field)
    }
}

impl From<crate::error::Error> for ApiError {
    fn from(error: crate::error::Error) -> Self {
        use crate::error::Error as E;
        let status = match &error {
            E::Duplicate { .. } => StatusCode::CONFLICT,
            E::Unknown { .. } => StatusCode::NOT_FOUND,
            E::Io { .. } | E::Bind { .. } | E::Runtime(_) => StatusCode::INTERNAL_SERVER_ERROR,
            _ => StatusCode::BAD_REQUEST,
        };
        let field = match &error {
            E::InvalidToolName { .. } | E::Duplicate { .. } => Some("name".to_string()),
            E::InvalidSchema { field, .. } | E::Invalid { field, .. } => Some((*field).to_string()),
            // The library names a setting as its builder does (`upstream_ca_file`); a REST
            // client sent it as servers.json spells it (`upstreamCaFile`).
            E::InvalidConfig { field, .. } => Some(json_name(field)),
            E::Template { .. } => Some("template".to_string()),
            E::InvalidResponse { field, .. }
            | E::InvalidFault { field, .. }
            | E::InvalidSkill { field, .. } => Some(field.clone()),
            E::Cassette { .. } => Some("replay.cassette".to_string()),
            _ => None,
        };
        if status == StatusCode::INTERNAL_SERVER_ERROR {
            // Details of I/O failures go to the log, not to the caller.
            tracing::error!(%error, "REST request failed");
            return ApiError::new(status, "the change could not be saved; see the app's log");
        }
        let detail = match (&error, &field) {
            (E::InvalidConfig { reason, .. }, Some(json)) => format!("`{json}`: {reason}"),
            _ => error.to_string(),
        };
        ApiError {
            status,
            detail,
            field,
            errors: Vec::new(),
        }
    }
}

/// A builder's name for a setting as servers.json and the API spell it: each dotted step in
/// camelCase (`stdio.start_delay_ms` → `stdio.startDelayMs`).
fn json_name(name: &str) -> String {
    let mut json = String::with_capacity(name.len());
    let mut upper = false;
    for ch in name.chars() {
        match ch {
            '_' => upper = true,
            ch if upper => {
                json.extend(ch.to_uppercase());
                upper = false;
            }
            ch => json.push(ch),
        }
    }
    json
}

impl IntoResponse for ApiError {
    fn into_response(self) -> Response {
        let mut body = Map::new();
        body.insert("type".into(), json!("about:blank"));
        body.insert(
            "title".into(),
            json!(self.status.canonical_reason().unwrap_or("Error")),
        );
        body.insert("status".into(), json!(self.status.as_u16()));
        body.insert("detail".into(), json!(self.detail));
        if let Some(field) = self.field {
            body.insert("field".into(), json!(field));
        }
        if !self.errors.is_empty() {
            body.insert("errors".into(), Value::Array(self.errors));
        }
        let mut response = (self.status, Value::Object(body).to_string()).into_response();
        response.headers_mut().insert(
            header::CONTENT_TYPE,
            HeaderValue::from_static("application/problem+json"),
        );
        response
    }
}

#[cfg(test)]
mod tests {
    use super::json_name;

    #[test]
    fn builder_names_become_the_json_names_of_servers_json() {
        assert_eq!(json_name("upstream_ca_file"), "upstreamCaFile");
        assert_eq!(json_name("stdio.start_delay_ms"), "stdio.startDelayMs");
        assert_eq!(
            json_name("replay.matching.ignore"),
            "replay.matching.ignore"
        );
    }
}
