//! The query of the log routes: parameters, record ids, the `q`/`carriedBy` filter and the
//! page of the list. Plain functions over records; no routes, no server lookup.

use std::collections::HashMap;

use axum::extract::Query;
use axum::extract::rejection::QueryRejection;
use serde_json::{Value, json};

use crate::cli::api::ApiError;
use crate::log::{Entry, Record};

pub(super) type Params = Result<Query<HashMap<String, String>>, QueryRejection>;

/// The query parameters, or 400 naming `query` when the query string does not parse.
pub(super) fn params(params: Params) -> Result<HashMap<String, String>, ApiError> {
    params
        .map(|Query(params)| params)
        .map_err(|rejection| ApiError::bad_request("query", rejection.body_text()))
}

/// A parameter's value; an empty one (`?q=&cursor=`) counts as absent.
pub(super) fn param<'a>(params: &'a HashMap<String, String>, name: &str) -> Option<&'a str> {
    params
        .get(name)
        .map(String::as_str)
        .filter(|v| !v.is_empty())
}

/// A record id given as `field`, or 400 naming it.
pub(super) fn record_id(field: &str, text: &str) -> Result<u64, ApiError> {
    text.parse::<u64>().map_err(|_| {
        ApiError::bad_request(
            field,
            format!("`{field}` must be a record id (a whole number), not `{text}`"),
        )
    })
}

pub(super) fn optional_id(
    params: &HashMap<String, String>,
    field: &str,
) -> Result<Option<u64>, ApiError> {
    param(params, field)
        .map(|text| record_id(field, text))
        .transpose()
}

/// Which records a request wants: `q` (case-insensitive substring over the method, the URL,
/// the headers and the bodies) and `carriedBy` (the `mcp` records an `http` record carried).
#[derive(Debug, Clone, Default)]
pub(super) struct Filter {
    /// `q`, lower-cased.
    needle: Option<String>,
    carried_by: Option<u64>,
}

impl Filter {
    pub(super) fn from_params(
        params: &HashMap<String, String>,
        with_carried_by: bool,
    ) -> Result<Self, ApiError> {
        Ok(Filter {
            needle: param(params, "q").map(str::to_lowercase),
            carried_by: if with_carried_by {
                optional_id(params, "carriedBy")?
            } else {
                None
            },
        })
    }

    pub(super) fn matches(&self, record: &Record) -> bool {
        if let Some(carrier) = self.carried_by {
            match &record.entry {
                Entry::Mcp(message) if message.carried_by == Some(carrier) => {}
                _ => return false,
            }
        }
        match &self.needle {
            Some(needle) => mentions(record, needle),
            None => true,
        }
    }
}

/// Whether the method, URL, headers or bodies of `record` contain `needle` (lower case).
/// Ids, times, statuses and durations are not searched: a search for `12` should find a
/// body, not every record numbered 12 or taking 12 ms.
fn mentions(record: &Record, needle: &str) -> bool {
    let has = |text: &str| text.to_lowercase().contains(needle);
    match &record.entry {
        Entry::Http(exchange) => {
            has(&exchange.method)
                || has(&exchange.path)
                || exchange
                    .query
                    .as_deref()
                    .is_some_and(|q| has(&format!("{}?{q}", exchange.path)))
                || exchange
                    .request_headers
                    .iter()
                    .chain(&exchange.response_headers)
                    .any(|(name, value)| has(&format!("{name}: {value}")))
                || [&exchange.request_body, &exchange.response_body]
                    .into_iter()
                    .flatten()
                    .any(|body| body_mentions(body, needle))
        }
        Entry::Mcp(message) => {
            message.method.as_deref().is_some_and(has)
                || body_mentions(&message.message, needle)
                || message
                    .response
                    .as_ref()
                    .is_some_and(|response| body_mentions(response, needle))
        }
    }
}

/// Whether a body's JSON text contains `needle`, or any of its strings and keys does (a
/// quote or a newline is escaped in the JSON text, so `say "hi"` only matches the string).
fn body_mentions(body: &Value, needle: &str) -> bool {
    let text = body.to_string();
    text.to_lowercase().contains(needle) || (text.contains('\\') && strings_mention(body, needle))
}

fn strings_mention(value: &Value, needle: &str) -> bool {
    match value {
        Value::String(s) => s.to_lowercase().contains(needle),
        Value::Array(items) => items.iter().any(|v| strings_mention(v, needle)),
        Value::Object(map) => map
            .iter()
            .any(|(k, v)| k.to_lowercase().contains(needle) || strings_mention(v, needle)),
        _ => false,
    }
}

/// One page of the list, newest first.
pub(super) fn page(
    records: Vec<Record>,
    filter: &Filter,
    cursor: Option<u64>,
    limit: usize,
) -> Value {
    let mut total = 0usize;
    let mut page = Vec::new();
    let mut more = false;
    for record in records.into_iter().rev() {
        if !filter.matches(&record) {
            continue;
        }
        total += 1;
        if cursor.is_some_and(|cursor| record.id >= cursor) {
            continue;
        }
        if page.len() < limit {
            page.push(record);
        } else {
            more = true;
        }
    }
    let next_cursor = if more {
        page.last().map(|r: &Record| r.id)
    } else {
        None
    };
    json!({ "records": page, "total": total, "nextCursor": next_cursor })
}
