//! JSON text written by walking a [`Value`], byte for byte what `serde_json::to_writer` writes
//! (a property test holds the two equal). A debug build runs `serde_json`'s serializer through
//! several generic layers per member and escapes a string a byte at a time: the capture's copy
//! of one `tools/call` answer cost 42 K instructions that way (benches/README.md, "A call's
//! own work in a debug build"). Strings that need escaping, and numbers, still go through
//! `serde_json`.

use serde_json::Value;

/// The text would have grown past the limit it was written against.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub(crate) struct PastLimit;

/// Appends `value`'s compact JSON text to `out`, or stops with [`PastLimit`] as soon as `out`
/// would grow past `limit` bytes, so a 4 MiB value costs about `limit` bytes of writing.
pub(crate) fn write_value(out: &mut Vec<u8>, value: &Value, limit: usize) -> Result<(), PastLimit> {
    match value {
        Value::Null => push(out, b"null", limit),
        Value::Bool(true) => push(out, b"true", limit),
        Value::Bool(false) => push(out, b"false", limit),
        Value::Number(number) => {
            // As serde_json writes numbers (itoa, ryu); writing to a `Vec` cannot fail.
            let _ = serde_json::to_writer(&mut *out, number);
            within(out, limit)
        }
        Value::String(text) => write_str_within(out, text, limit),
        Value::Array(items) => {
            byte(out, b'[', limit)?;
            // An index loop: a debug build pays for an iterator's calls on every item.
            let mut at = 0;
            while at < items.len() {
                if at > 0 {
                    byte(out, b',', limit)?;
                }
                write_value(out, &items[at], limit)?;
                at += 1;
            }
            byte(out, b']', limit)
        }
        Value::Object(members) => {
            byte(out, b'{', limit)?;
            let mut first = true;
            for (name, member) in members {
                if !first {
                    byte(out, b',', limit)?;
                }
                first = false;
                write_str_within(out, name, limit)?;
                byte(out, b':', limit)?;
                write_value(out, member, limit)?;
            }
            byte(out, b'}', limit)
        }
    }
}

/// Writes `text` as a JSON string: between quotes as it is when nothing in it needs escaping
/// (nearly every name and version), else through `serde_json`, which writes the same text.
pub(crate) fn write_str(out: &mut Vec<u8>, text: &str) {
    if needs_no_escape(text.as_bytes()) {
        out.push(b'"');
        out.extend_from_slice(text.as_bytes());
        out.push(b'"');
    } else {
        // Writing a string to a `Vec` cannot fail.
        let _ = serde_json::to_writer(&mut *out, text);
    }
}

/// [`write_str`] within `limit`. Its text is at least as long as `text` and two quotes, so a
/// string that cannot fit is refused before it is copied.
fn write_str_within(out: &mut Vec<u8>, text: &str, limit: usize) -> Result<(), PastLimit> {
    if out.len() + text.len() + 2 > limit {
        return Err(PastLimit);
    }
    write_str(out, text);
    within(out, limit)
}

fn push(out: &mut Vec<u8>, bytes: &[u8], limit: usize) -> Result<(), PastLimit> {
    if out.len() + bytes.len() > limit {
        return Err(PastLimit);
    }
    out.extend_from_slice(bytes);
    Ok(())
}

/// One byte of structure: a debug build's `push` costs a tenth of `extend_from_slice`.
fn byte(out: &mut Vec<u8>, byte: u8, limit: usize) -> Result<(), PastLimit> {
    if out.len() >= limit {
        return Err(PastLimit);
    }
    out.push(byte);
    Ok(())
}

fn within(out: &[u8], limit: usize) -> Result<(), PastLimit> {
    if out.len() > limit {
        Err(PastLimit)
    } else {
        Ok(())
    }
}

/// Whether no byte of `bytes` needs escaping in a JSON string. An index loop: a debug build's
/// `bytes().all(..)` calls an iterator and a closure per byte, 4 K instructions for the
/// strings of one `initialize` answer.
fn needs_no_escape(bytes: &[u8]) -> bool {
    let mut at = 0;
    while at < bytes.len() {
        let byte = bytes[at];
        if byte < 0x20 || byte == b'"' || byte == b'\\' {
            return false;
        }
        at += 1;
    }
    true
}

#[cfg(test)]
pub(crate) mod tests {
    use proptest::prelude::*;
    use serde_json::{Value, json};

    use super::*;

    fn text_of(value: &Value, limit: usize) -> Result<Vec<u8>, PastLimit> {
        let mut out = Vec::new();
        write_value(&mut out, value, limit).map(|()| out)
    }

    /// Any JSON value: every kind of number, strings with escapes, control characters and
    /// text past ASCII, nested arrays and objects.
    pub(crate) fn any_value() -> impl Strategy<Value = Value> {
        let leaf = prop_oneof![
            Just(Value::Null),
            any::<bool>().prop_map(Value::Bool),
            any::<i64>().prop_map(Value::from),
            any::<u64>().prop_map(Value::from),
            any::<f64>()
                .prop_filter("finite", |f| f.is_finite())
                .prop_map(Value::from),
            "(?s).{0,24}".prop_map(Value::String),
            "[a-z\"\\\\\u{0}-\u{1f}\u{7f}é€😀]{0,12}".prop_map(Value::String),
        ];
        leaf.prop_recursive(4, 48, 6, |inner| {
            prop_oneof![
                prop::collection::vec(inner.clone(), 0..6).prop_map(Value::Array),
                prop::collection::vec(("(?s).{0,8}", inner), 0..6)
                    .prop_map(|members| Value::Object(members.into_iter().collect())),
            ]
        })
    }

    proptest! {
        #[test]
        fn writes_what_serde_json_writes(value in any_value()) {
            let expected = serde_json::to_vec(&value).expect("a Value serializes");
            prop_assert_eq!(text_of(&value, usize::MAX), Ok(expected));
        }

        #[test]
        fn stops_exactly_past_the_limit(value in any_value(), cut in 0usize..64) {
            let whole = serde_json::to_vec(&value).expect("a Value serializes");
            let limit = whole.len().saturating_sub(cut);
            let written = text_of(&value, limit);
            if cut == 0 {
                prop_assert_eq!(written, Ok(whole));
            } else {
                prop_assert_eq!(written, Err(PastLimit));
            }
        }
    }

    #[test]
    fn a_long_string_is_refused_before_it_is_copied() {
        let mut out = Vec::new();
        let long = Value::String("a".repeat(1 << 20));
        assert_eq!(
            write_value(&mut out, &json!([long]), 8 * 1024),
            Err(PastLimit)
        );
        assert_eq!(out, b"[", "only what came before it");
    }
}
