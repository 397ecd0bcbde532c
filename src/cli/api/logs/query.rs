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
/// Matching reuses its buffers from record to record, so a search of the whole log
/// allocates about one body's text, not one per record.
#[derive(Debug, Clone, Default)]
pub(super) struct Filter {
    /// `q`, lower-cased.
    needle: Option<String>,
    carried_by: Option<u64>,
    search: Search,
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
            search: Search::default(),
        })
    }

    pub(super) fn matches(&mut self, record: &Record) -> bool {
        if let Some(carrier) = self.carried_by {
            match &record.entry {
                Entry::Mcp(message) if message.carried_by == Some(carrier) => {}
                _ => return false,
            }
        }
        match &self.needle {
            Some(needle) => self.search.mentions(record, needle),
            None => true,
        }
    }
}

/// The buffers of a search: the JSON text of a body and a lower-cased text.
#[derive(Debug, Clone, Default)]
struct Search {
    json: Vec<u8>,
    lower: String,
}

impl Search {
    /// Whether the method, URL, headers or bodies of `record` contain `needle` (lower
    /// case). Ids, times, statuses and durations are not searched: a search for `12` should
    /// find a body, not every record numbered 12 or taking 12 ms.
    fn mentions(&mut self, record: &Record, needle: &str) -> bool {
        match &record.entry {
            Entry::Http(exchange) => {
                self.has(&[&exchange.method], needle)
                    || self.has(&[&exchange.path], needle)
                    || exchange
                        .query
                        .as_deref()
                        .is_some_and(|q| self.has(&[&exchange.path, "?", q], needle))
                    || exchange
                        .request_headers
                        .iter()
                        .chain(&exchange.response_headers)
                        .any(|(name, value)| self.has(&[name, ": ", value], needle))
                    || [&exchange.request_body, &exchange.response_body]
                        .into_iter()
                        .flatten()
                        .any(|body| self.body_mentions(body, needle))
            }
            Entry::Mcp(message) => {
                message
                    .method
                    .as_deref()
                    .is_some_and(|method| self.has(&[method], needle))
                    || self.body_mentions(&message.message, needle)
                    || message
                        .response
                        .as_ref()
                        .is_some_and(|response| self.body_mentions(response, needle))
            }
        }
    }

    /// Whether the text made of `parts` contains `needle`, case-insensitively.
    fn has(&mut self, parts: &[&str], needle: &str) -> bool {
        self.lower.clear();
        for part in parts {
            lower_into(part, &mut self.lower);
        }
        self.lower.contains(needle)
    }

    /// Whether a body's JSON text contains `needle`, or any of its strings and keys does (a
    /// quote or a newline is escaped in the JSON text, so `say "hi"` only matches the
    /// string).
    fn body_mentions(&mut self, body: &Value, needle: &str) -> bool {
        // A text body (not JSON, or a large one the log keeps as text) is searched as it
        // is: one pass, where its JSON text, full of escaped quotes, would take two.
        if let Value::String(text) = body {
            if !needle.contains(['"', '\\']) {
                return self.has(&[text], needle);
            }
        }
        self.json.clear();
        if serde_json::to_writer(&mut self.json, body).is_err() {
            return false;
        }
        let json = std::mem::take(&mut self.json);
        // serde_json writes UTF-8.
        let text = std::str::from_utf8(&json).unwrap_or_default();
        let found = self.has(&[text], needle)
            || (text.contains('\\') && self.strings_mention(body, needle));
        self.json = json;
        found
    }

    fn strings_mention(&mut self, value: &Value, needle: &str) -> bool {
        match value {
            Value::String(s) => self.has(&[s], needle),
            Value::Array(items) => items.iter().any(|v| self.strings_mention(v, needle)),
            Value::Object(map) => map
                .iter()
                .any(|(k, v)| self.has(&[k], needle) || self.strings_mention(v, needle)),
            _ => false,
        }
    }
}

/// Appends `text` lower-cased (as `str::to_lowercase` does) to `into`, without a new string.
fn lower_into(text: &str, into: &mut String) {
    if text.is_ascii() {
        let start = into.len();
        into.push_str(text);
        into[start..].make_ascii_lowercase();
    } else {
        into.push_str(&text.to_lowercase());
    }
}

/// Records copied out of the log per chunk: a search or an export holds at most this many
/// copies at once, not the whole log.
pub(super) const CHUNK: usize = 256;

/// One page of the list, newest first, reading the log in chunks through `older` (the
/// records below an id, newest first; empty at the end).
pub(super) fn page(
    mut older: impl FnMut(u64) -> Vec<Record>,
    filter: &mut Filter,
    cursor: Option<u64>,
    limit: usize,
) -> Value {
    let mut total = 0usize;
    let mut page = Vec::new();
    let mut more = false;
    let mut before = u64::MAX;
    loop {
        let chunk = older(before);
        let Some(last) = chunk.last() else {
            break;
        };
        before = last.id;
        for record in chunk {
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
    }
    let next_cursor = if more {
        page.last().map(|r: &Record| r.id)
    } else {
        None
    };
    json!({ "records": page, "total": total, "nextCursor": next_cursor })
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::log::{DEFAULT_LOG_BYTES, TrafficLog};

    fn note(text: &str) -> Entry {
        Entry::Mcp(
            serde_json::from_value(json!({
                "kind": "notification",
                "direction": "client_to_server",
                "method": "notifications/message",
                "message": { "jsonrpc": "2.0", "method": "notifications/message",
                    "params": { "data": text } },
            }))
            .expect("an RpcMessage"),
        )
    }

    #[test]
    fn a_search_reads_the_log_in_chunks_and_counts_every_match() {
        // Arrange: more records than a chunk, of two servers; every third says `Needle`.
        let log = TrafficLog::new(10_000, DEFAULT_LOG_BYTES);
        for n in 0..(3 * CHUNK) {
            let text = if n % 3 == 0 {
                "a \"Needle\" here"
            } else {
                "hay"
            };
            log.push_from(1, note(text));
            log.push_from(2, note("needle of another server"));
        }
        let params = HashMap::from([("q".to_string(), "NEEDLE".to_string())]);
        let mut filter = Filter::from_params(&params, false).expect("a filter");

        // Act
        let mut chunks = 0;
        let first = page(
            |before| {
                chunks += 1;
                log.older_from(1, before, CHUNK)
            },
            &mut filter,
            None,
            100,
        );

        // Assert
        assert_eq!(first["total"], CHUNK);
        assert_eq!(first["records"].as_array().map(Vec::len), Some(100));
        assert_eq!(chunks, 4, "three full chunks and the empty end");
        let cursor = first["nextCursor"].as_u64().expect("more pages");
        let rest = page(
            |before| log.older_from(1, before, CHUNK),
            &mut filter,
            Some(cursor),
            1000,
        );
        assert_eq!(rest["records"].as_array().map(Vec::len), Some(CHUNK - 100));
        assert_eq!(rest["nextCursor"], Value::Null);
    }
}
