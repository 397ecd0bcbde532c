//! How many bytes of memory a record holds, as the ring's byte budget counts them: an
//! estimate of the heap behind each string, list and captured body, plus the record itself.
//! The ring keeps bodies and messages as JSON text (`log::json`), parsed only in the copies
//! readers take, so their text is what it holds.

use std::mem::size_of;

use super::headers::Headers;
use super::json::Json;
use super::record::{Entry, Record};

/// What the allocator adds to each allocation, on average (its header and rounding).
const PER_ALLOCATION: usize = 16;

/// The estimated bytes that `record` holds: itself (its slot in the ring) and its heap.
pub(crate) fn record(record: &Record) -> usize {
    size_of::<Record>() + entry(&record.entry)
}

fn entry(entry: &Entry) -> usize {
    match entry {
        Entry::Http(h) => {
            text(&h.method)
                + text(&h.path)
                + h.query.as_ref().map_or(0, text)
                + headers(&h.request_headers)
                + headers(&h.response_headers)
                + h.request_body.as_ref().map_or(0, json)
                + h.response_body.as_ref().map_or(0, json)
                + h.upstream.as_ref().map_or(0, |u| {
                    size_of::<crate::log::Upstream>()
                        + text(&u.url)
                        + u.version.as_ref().map_or(0, text)
                        + u.failure.as_ref().map_or(0, |f| text(&f.detail))
                })
        }
        Entry::Mcp(m) => {
            // Added one by one: a debug build's iterator adapters over the five cost 1 K
            // instructions a record.
            let texts = m.method.as_ref().map_or(0, text)
                + m.name.as_ref().map_or(0, text)
                + m.session.as_ref().map_or(0, text)
                + m.protocol_version.as_ref().map_or(0, text)
                + m.fault.as_ref().map_or(0, text);
            texts
                + json(&m.message)
                + m.response.as_ref().map_or(0, json)
                + list(&m.argument_errors)
                + m.argument_errors
                    .iter()
                    .map(|e| text(&e.pointer) + text(&e.reason))
                    .sum::<usize>()
        }
    }
}

/// The heap behind captured JSON: its text (shared by copies of the log, so counted once).
fn json(json: &Json) -> usize {
    PER_ALLOCATION + json.text_len()
}

fn text(s: &String) -> usize {
    match s.capacity() {
        0 => 0,
        n => n + PER_ALLOCATION,
    }
}

fn list<T>(items: &Vec<T>) -> usize {
    match items.capacity() {
        0 => 0,
        n => n * size_of::<T>() + PER_ALLOCATION,
    }
}

/// Headers live in two allocations: their text, and where each one ends.
fn headers(headers: &Headers) -> usize {
    match headers.cost() {
        0 => 0,
        n => n + 2 * PER_ALLOCATION,
    }
}

/// The estimated bytes a parsed `Value` holds: its own slot and the heap behind it (strings,
/// arrays, and the entries and index of an insertion-ordered map). Stores outside the ring
/// that keep parsed messages (a session's retained events, a task's result) count with it.
pub(crate) fn value(value: &serde_json::Value) -> usize {
    use serde_json::Value;
    size_of::<Value>()
        + match value {
            Value::String(s) => text(s),
            Value::Array(items) => {
                PER_ALLOCATION
                    + (items.capacity() - items.len()) * size_of::<Value>()
                    + items.iter().map(self::value).sum::<usize>()
            }
            Value::Object(members) => {
                // An `IndexMap` entry: hash, key, value; plus a slot of its hash index.
                let per_entry = 8 + size_of::<String>() + 8;
                2 * PER_ALLOCATION
                    + members
                        .iter()
                        .map(|(k, v)| per_entry + text(k) + self::value(v))
                        .sum::<usize>()
            }
            Value::Null | Value::Bool(_) | Value::Number(_) => 0,
        }
}

#[cfg(test)]
mod tests {
    use super::*;
    use serde_json::json;

    #[test]
    fn captured_json_costs_its_text_whatever_its_shape() {
        let long = Json::from(json!("x".repeat(10_000)));
        assert!((10_002..10_100).contains(&json(&long)), "{}", json(&long));
        // 4,000 zeros: 8 KiB of text, which is what the ring holds (not 4,000 `Value`s).
        let zeros = Json::from(json!(vec![0; 4_000]));
        assert!((8_000..8_100).contains(&json(&zeros)), "{}", json(&zeros));
        let headers_cost = headers(&[("accept", "x".repeat(100))].into_iter().collect());
        assert!(headers_cost > 100, "{headers_cost}");
    }

    #[test]
    fn a_parsed_value_costs_its_strings_and_nodes() {
        let long = value(&json!("x".repeat(1 << 20)));
        assert!(((1 << 20)..(1 << 20) + 100).contains(&long), "{long}");
        // A small notification as a map of two members is a few hundred bytes, not its text.
        let note = value(&json!({"jsonrpc": "2.0", "method": "notifications/tools/list_changed"}));
        assert!((150..600).contains(&note), "{note}");
    }
}
