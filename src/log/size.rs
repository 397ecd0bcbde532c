//! How many bytes of memory a record holds, as the ring's byte budget counts them: an
//! estimate of the heap behind each string, list and JSON value, plus the record itself.
//! It counts what the values take in memory, not their JSON text: an array of 4,000 small
//! numbers is 8 KiB of text but 128 KiB of `Value`s, and a client can send either.

use std::mem::size_of;

use serde_json::Value;

use super::record::{Entry, Record};

/// What the allocator adds to each allocation, on average (its header and rounding).
const PER_ALLOCATION: usize = 16;
/// One member of a JSON object beyond its key's text and its value's heap: the map's entry
/// (hash, key, value) and its slot in the index table (`serde_json` keeps member order).
const PER_MEMBER: usize = size_of::<String>() + size_of::<Value>() + 2 * size_of::<usize>();

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
                + h.request_body.as_ref().map_or(0, value)
                + h.response_body.as_ref().map_or(0, value)
                + h.upstream.as_ref().map_or(0, |u| {
                    size_of::<crate::log::Upstream>()
                        + text(&u.url)
                        + u.version.as_ref().map_or(0, text)
                        + u.failure.as_ref().map_or(0, |f| text(&f.detail))
                })
        }
        Entry::Mcp(m) => {
            [
                &m.method,
                &m.name,
                &m.session,
                &m.protocol_version,
                &m.fault,
            ]
            .into_iter()
            .flatten()
            .map(text)
            .sum::<usize>()
                + value(&m.message)
                + m.response.as_ref().map_or(0, value)
                + list(&m.argument_errors)
                + m.argument_errors
                    .iter()
                    .map(|e| text(&e.pointer) + text(&e.reason))
                    .sum::<usize>()
        }
    }
}

/// The heap behind a JSON value.
pub(crate) fn value(value: &Value) -> usize {
    match value {
        Value::String(s) => text(s),
        Value::Array(items) => list(items) + items.iter().map(self::value).sum::<usize>(),
        Value::Object(members) => {
            let table = if members.is_empty() {
                0
            } else {
                PER_ALLOCATION * 2
            };
            table
                + members
                    .iter()
                    .map(|(key, v)| PER_MEMBER + text(key) + self::value(v))
                    .sum::<usize>()
        }
        Value::Null | Value::Bool(_) | Value::Number(_) => 0,
    }
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

fn headers(headers: &Vec<(String, String)>) -> usize {
    list(headers)
        + headers
            .iter()
            .map(|(name, v)| text(name) + text(v))
            .sum::<usize>()
}

#[cfg(test)]
mod tests {
    use super::*;
    use serde_json::json;

    #[test]
    fn a_string_costs_its_bytes_and_small_values_cost_their_slots() {
        let long = json!("x".repeat(10_000));
        assert!((10_000..10_100).contains(&value(&long)), "{}", value(&long));
        // 4,000 zeros: 8 KiB of text, 128 KiB of values.
        let zeros = json!(vec![0; 4_000]);
        assert!(value(&zeros) >= 4_000 * size_of::<Value>());
        let object = json!({ "a": 1, "b": "two" });
        assert!(value(&object) > 2 * PER_MEMBER);
    }
}
