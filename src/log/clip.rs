//! What the log keeps of a large body: a copy cut to about [`MAX_CAPTURED_BYTES`] of JSON
//! text, shaped like the original so it stays readable and typed reads still find their
//! members. An object keeps its small members whole and shares what is left among the large
//! ones; an array keeps its first items; a long string keeps its start and says how long it
//! was (`"aaaa... (1048576 bytes)"`, as failure reports cut arguments). What was left out of
//! an object or an array is named in its place (`"...": "(2 more members)"`,
//! `"... (9 more items)"`). Whoever records a cut copy sets the record's `truncated` flag.
//!
//! The cut never touches what the client receives: it copies.

use serde_json::{Map, Value};

use super::json::Json;
use super::text::write_value;

/// How much of one body (a JSON-RPC message, a response, an HTTP body, a header value) the
/// log keeps, in bytes of JSON text. Small enough that a log full of 1 MiB calls (10,000
/// records, two bodies each) stays well under the default byte budget; large enough that an
/// ordinary MCP message is never cut.
pub(crate) const MAX_CAPTURED_BYTES: usize = 8 * 1024;

/// Below this, a member or an item is named as left out rather than cut further.
const MIN_PART: usize = 16;
/// Room kept for the note of what was left out (`"... (123 more items)"`).
const NOTE: usize = 32;

/// What the log keeps of `value` as JSON text ([`Json`]), and whether it was cut: its
/// text when that fits, else the text of the cut copy.
pub(crate) fn clip_json(value: &Value) -> (Json, bool) {
    clip_json_noting(value, |_| {})
}

/// [`clip_json`], showing the whole value to `before_cut` when it is cut, for what must be
/// read from it before it is gone.
pub(crate) fn clip_json_noting(value: &Value, before_cut: impl FnOnce(&Value)) -> (Json, bool) {
    // Writing the text is cheaper than measuring it first, since most messages fit; the
    // writer stops at the cut, so a 4 MiB message costs 8 KiB of writing, not 4 MiB.
    // Most messages fit in this: one allocation, no regrowing.
    let mut text = Vec::with_capacity(512);
    if write_value(&mut text, value, MAX_CAPTURED_BYTES).is_ok() {
        return (Json::from_text(text), false);
    }
    before_cut(value);
    (Json::from(&cut(value, MAX_CAPTURED_BYTES)), true)
}

/// The copy of a text (a method, a name, a header value) the log keeps, and whether it was
/// cut.
pub(crate) fn clip_text(text: String) -> (String, bool) {
    if text.len() <= MAX_CAPTURED_BYTES {
        (text, false)
    } else {
        (cut_text(&text, MAX_CAPTURED_BYTES), true)
    }
}

/// What the log keeps of a raw body larger than [`MAX_CAPTURED_BYTES`]: the start of its
/// text (lossy UTF-8), then `... (N bytes)`. Raw, so a large body is never parsed only to be
/// cut.
pub(crate) fn clip_bytes(bytes: &[u8]) -> String {
    let note = format!("... ({} bytes)", bytes.len());
    let end = bytes
        .len()
        .min(MAX_CAPTURED_BYTES.saturating_sub(note.len()));
    let text = String::from_utf8_lossy(&bytes[..end]);
    // Sized once: the log keeps this string, and pushing the note onto a string of the
    // prefix's size would double its capacity.
    let mut kept = String::with_capacity(text.len() + note.len());
    kept.push_str(&text);
    kept.push_str(&note);
    kept
}

/// [`clip_json`] with another budget, as a value, for tests.
#[cfg(test)]
fn clip_to(value: &Value, budget: usize) -> (Value, bool) {
    if len_within(value, budget).is_some() {
        (value.clone(), false)
    } else {
        (cut(value, budget), true)
    }
}

/// The length of `value`'s JSON text if it is at most `limit`. Counted, not serialized, and
/// the count stops as soon as it is past `limit`, so measuring a 1 MiB value against a
/// small limit costs the limit (serde_json would scan a whole string before writing it).
fn len_within(value: &Value, limit: usize) -> Option<usize> {
    let mut len = 0;
    count(value, limit, &mut len).then_some(len)
}

/// Adds the length of `value`'s JSON text to `len`; `false` once `len` is past `limit`.
fn count(value: &Value, limit: usize, len: &mut usize) -> bool {
    match value {
        Value::Null => *len += 4,
        Value::Bool(true) => *len += 4,
        Value::Bool(false) => *len += 5,
        Value::Number(n) => {
            use std::fmt::Write as _;
            struct Counter(usize);
            impl std::fmt::Write for Counter {
                fn write_str(&mut self, s: &str) -> std::fmt::Result {
                    self.0 += s.len();
                    Ok(())
                }
            }
            let mut counter = Counter(0);
            let _ = write!(counter, "{n}");
            *len += counter.0;
        }
        Value::String(s) => return count_text(s, limit, len),
        Value::Array(items) => {
            *len += 2 + items.len().saturating_sub(1);
            for item in items {
                if *len > limit || !count(item, limit, len) {
                    return false;
                }
            }
        }
        Value::Object(members) => {
            *len += 2 + members.len().saturating_sub(1);
            for (key, member) in members {
                *len += 1;
                if *len > limit || !count_text(key, limit, len) || !count(member, limit, len) {
                    return false;
                }
            }
        }
    }
    *len <= limit
}

/// Adds the length of `text` as a JSON string (quotes and escapes) to `len`, stopping once
/// past `limit`.
fn count_text(text: &str, limit: usize, len: &mut usize) -> bool {
    *len += 2;
    for byte in text.bytes() {
        *len += match byte {
            b'"' | b'\\' | b'\n' | b'\r' | b'\t' | 0x08 | 0x0c => 2,
            0..0x20 => 6,
            _ => 1,
        };
        if *len > limit {
            return false;
        }
    }
    *len <= limit
}

/// A copy of `value` (which does not fit) in about `budget` bytes of JSON text.
fn cut(value: &Value, budget: usize) -> Value {
    match value {
        Value::String(text) => Value::String(cut_text(text, budget)),
        Value::Array(items) => Value::Array(cut_items(items, budget)),
        Value::Object(members) => Value::Object(cut_members(members, budget)),
        // A number, a boolean or null is shorter than any budget worth the name.
        other => other.clone(),
    }
}

/// The first items that fit, the next one cut into what is left, and a note of the rest.
fn cut_items(items: &[Value], budget: usize) -> Vec<Value> {
    let mut kept = Vec::new();
    let mut left = budget.saturating_sub(2 + NOTE);
    for (at, item) in items.iter().enumerate() {
        if left < MIN_PART {
            kept.push(Value::String(format!(
                "... ({} more items)",
                items.len() - at
            )));
            break;
        }
        match len_within(item, left) {
            Some(len) => {
                kept.push(item.clone());
                left = left.saturating_sub(len + 1);
            }
            None => {
                kept.push(cut(item, left));
                left = 0;
            }
        }
    }
    kept
}

/// Every member that fits whole, the large ones sharing what is left equally (so a 1 MiB
/// `message` does not push `name` out), in the original order. When the shares are too
/// small to show anything (thousands of members), the cheapest members are kept whole while
/// they fit, the first ones among equals, and the rest are named as left out.
fn cut_members(members: &Map<String, Value>, budget: usize) -> Map<String, Value> {
    // What each member costs: its key, quotes, colon and comma, and its value (capped).
    let overhead = |key: &str| key.len() + 4;
    let costs: Vec<usize> = members
        .iter()
        .map(|(key, value)| overhead(key) + len_within(value, budget).unwrap_or(budget + 1))
        .collect();
    let mut order: Vec<usize> = (0..costs.len()).collect();
    order.sort_by_key(|&i| costs[i]);
    // Water-filling, cheapest first: each takes its cost or an equal share of what is left.
    let keys: Vec<&String> = members.keys().collect();
    let mut shares: Vec<Option<usize>> = vec![None; costs.len()];
    let mut left = budget.saturating_sub(2 + NOTE);
    for (done, &i) in order.iter().enumerate() {
        let share = left / (order.len() - done);
        let take = if costs[i] <= share {
            costs[i]
        } else if share >= overhead(keys[i]) + MIN_PART {
            share
        } else if costs[i] <= left {
            costs[i]
        } else {
            continue;
        };
        shares[i] = Some(take);
        left -= take;
    }
    let mut kept = Map::new();
    let mut omitted = 0usize;
    for (i, (key, value)) in members.iter().enumerate() {
        match shares[i] {
            Some(share) if share == costs[i] => {
                kept.insert(key.clone(), value.clone());
            }
            Some(share) => {
                kept.insert(key.clone(), cut(value, share - overhead(key)));
            }
            None => omitted += 1,
        }
    }
    if omitted > 0 {
        kept.insert(
            "...".to_string(),
            Value::String(format!("({omitted} more members)")),
        );
    }
    kept
}

/// The start of `text` whose JSON text fits `budget` (quotes and escapes counted), then
/// `... (N bytes)`.
fn cut_text(text: &str, budget: usize) -> String {
    let note = format!("... ({} bytes)", text.len());
    let room = budget.saturating_sub(2 + note.len());
    let mut used = 0;
    let mut end = 0;
    for (at, c) in text.char_indices() {
        used += escaped_len(c);
        if used > room {
            break;
        }
        end = at + c.len_utf8();
    }
    let mut kept = String::with_capacity(end + note.len());
    kept.push_str(&text[..end]);
    kept.push_str(&note);
    kept
}

/// The length of `c` in JSON text, as serde_json escapes it.
fn escaped_len(c: char) -> usize {
    match c {
        '"' | '\\' | '\n' | '\r' | '\t' | '\u{8}' | '\u{c}' => 2,
        c if (c as u32) < 0x20 => 6,
        c => c.len_utf8(),
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use serde_json::json;

    fn len(value: &Value) -> usize {
        value.to_string().len()
    }

    #[test]
    fn the_count_is_the_length_of_the_json_text() {
        let value = json!({ "a": [1, -2.5, null, true, false], "b": "é\"\n\u{1}x", "": {} });
        assert_eq!(len_within(&value, 1_000), Some(len(&value)));
        assert_eq!(len_within(&value, len(&value)), Some(len(&value)));
        assert_eq!(len_within(&value, len(&value) - 1), None);
    }

    #[test]
    fn a_value_that_fits_is_kept_as_it_is() {
        let value = json!({ "jsonrpc": "2.0", "id": 1, "method": "tools/list" });
        let (kept, cut) = clip_json(&value);
        assert!(!cut);
        assert_eq!(kept, value);
    }

    #[test]
    fn a_large_argument_is_cut_and_the_envelope_and_small_members_stay_whole() {
        // Arrange: a tools/call whose `message` is 1 MiB, with a small member after it.
        let message = json!({ "jsonrpc": "2.0", "id": 7, "method": "tools/call",
            "params": { "name": "echo",
                "arguments": { "message": "m".repeat(1 << 20), "count": 3 } } });

        // Act
        let (kept, cut) = clip_json(&message);
        let kept = kept.into_value();

        // Assert
        assert!(cut);
        assert!(len(&kept) <= MAX_CAPTURED_BYTES, "{}", len(&kept));
        assert!(len(&kept) > MAX_CAPTURED_BYTES - 256, "the budget is used");
        assert_eq!(kept["jsonrpc"], "2.0");
        assert_eq!(kept["id"], 7);
        assert_eq!(kept["method"], "tools/call");
        assert_eq!(kept["params"]["name"], "echo");
        assert_eq!(kept["params"]["arguments"]["count"], 3);
        let text = kept["params"]["arguments"]["message"]
            .as_str()
            .expect("a string");
        assert!(text.starts_with("mmmm"));
        assert!(
            text.ends_with("m... (1048576 bytes)"),
            "{}",
            &text[text.len() - 40..]
        );
    }

    #[test]
    fn a_long_array_keeps_its_first_items_and_counts_the_rest() {
        let items: Vec<u32> = (0..10_000).collect();
        let (kept, cut) = clip_to(&json!(items), 100);
        assert!(cut);
        let kept = kept.as_array().expect("an array");
        assert_eq!(kept[0], 0);
        assert_eq!(kept[1], 1);
        let note = kept.last().and_then(Value::as_str).expect("a note");
        assert!(
            note.starts_with("... (") && note.ends_with(" more items)"),
            "{note}"
        );
        assert!(len(&json!(kept)) <= 100, "{}", len(&json!(kept)));
    }

    #[test]
    fn an_object_of_many_members_names_those_left_out() {
        let members: Map<String, Value> = (0..1_000).map(|n| (format!("k{n}"), json!(n))).collect();
        let (kept, cut) = clip_to(&Value::Object(members), 200);
        assert!(cut);
        assert_eq!(kept["k0"], 0);
        let note = kept["..."].as_str().expect("a note");
        assert!(note.ends_with(" more members)"), "{note}");
        assert!(len(&kept) <= 200, "{}", len(&kept));
    }

    #[test]
    fn a_cut_string_counts_escapes_and_never_splits_a_character() {
        let text = "é\"\n\u{1}".repeat(1_000);
        let (kept, cut) = clip_to(&json!(text), 120);
        assert!(cut);
        assert!(len(&kept) <= 120, "{}", len(&kept));
        assert!(kept.as_str().expect("a string").starts_with("é\"\n\u{1}é"));
        let (short, cut) = clip_text("x".repeat(MAX_CAPTURED_BYTES + 1));
        assert!(cut && short.len() <= MAX_CAPTURED_BYTES);
    }

    #[test]
    fn deep_nesting_is_cut_at_every_level() {
        let mut value = json!("x".repeat(100_000));
        for _ in 0..100 {
            value = json!({ "a": value, "b": 1 });
        }
        let (kept, cut) = clip_json(&value);
        let kept = kept.into_value();
        assert!(cut);
        assert!(len(&kept) <= MAX_CAPTURED_BYTES, "{}", len(&kept));
        assert_eq!(kept["a"]["a"]["b"], 1);
    }
}
