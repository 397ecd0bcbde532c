//! [`Json`]: a captured body or message as the log keeps it, its JSON text, parsed only when
//! someone reads it.
//!
//! Capture is on the path of every request while reading the log is rare (an assertion at
//! the end of a test, a page of the UI), so the ring keeps text: one allocation to write and
//! one to free, where a `Value` tree costs one per member and string, and a copy of the log
//! shares the text instead of cloning trees. A reader gets the parsed [`Value`] through
//! `Deref`, parsed once per copy and kept with it.

use std::fmt;
use std::ops::Deref;
use std::sync::{Arc, OnceLock};

use serde::{Deserialize, Deserializer, Serialize, Serializer};
use serde_json::Value;

/// A JSON value the log captured: a JSON-RPC message, a response, an HTTP body. Read it as a
/// [`serde_json::Value`] (it dereferences to one); compare it with a `Value` directly.
///
/// ```
/// use mcp_decoy::log::Json;
/// use serde_json::json;
///
/// let captured = Json::from(json!({ "jsonrpc": "2.0", "id": 1, "method": "ping" }));
/// assert_eq!(captured["method"], "ping");
/// assert_eq!(captured, json!({ "jsonrpc": "2.0", "id": 1, "method": "ping" }));
/// let value: serde_json::Value = captured.into();
/// assert_eq!(value["id"], 1);
/// ```
pub struct Json {
    /// JSON text, or for a body that was not JSON its raw bytes (read as a string).
    text: Arc<[u8]>,
    /// Boxed: a `Value` is 80 bytes inline, and the ring holds thousands of records with
    /// two or more of these each, most never read.
    value: OnceLock<Box<Value>>,
}

impl Json {
    /// The captured bytes of a body as they arrived: read as JSON when they parse, else as
    /// a string of their text (lossy UTF-8).
    pub(crate) fn from_bytes(bytes: &[u8]) -> Json {
        Json {
            text: Arc::from(bytes),
            value: OnceLock::new(),
        }
    }

    /// JSON text that `serde_json` wrote.
    pub(crate) fn from_text(text: Vec<u8>) -> Json {
        Json {
            text: Arc::from(text),
            value: OnceLock::new(),
        }
    }

    /// The text as a body to send: the bytes are shared, not copied.
    pub(crate) fn to_bytes(&self) -> bytes::Bytes {
        bytes::Bytes::from_owner(self.text.clone())
    }

    /// The value, as [`Deref`] gives it.
    pub fn value(&self) -> &Value {
        self.value.get_or_init(|| Box::new(parse(&self.text)))
    }

    /// The value, owned.
    pub fn into_value(self) -> Value {
        match self.value.into_inner() {
            Some(value) => *value,
            None => parse(&self.text),
        }
    }

    /// The text, as written.
    pub(crate) fn text(&self) -> &[u8] {
        &self.text
    }

    /// The bytes of text this keeps (what the log's byte budget counts).
    pub(crate) fn text_len(&self) -> usize {
        self.text.len()
    }
}

fn parse(text: &[u8]) -> Value {
    serde_json::from_slice(text)
        .unwrap_or_else(|_| Value::String(String::from_utf8_lossy(text).into_owned()))
}

impl From<Value> for Json {
    fn from(value: Value) -> Json {
        Json::from(&value)
    }
}

impl From<&Value> for Json {
    fn from(value: &Value) -> Json {
        // A `Value` always serializes (its keys are strings, its numbers finite).
        Json::from_text(serde_json::to_vec(value).unwrap_or_default())
    }
}

impl From<Json> for Value {
    fn from(json: Json) -> Value {
        json.into_value()
    }
}

impl Deref for Json {
    type Target = Value;

    fn deref(&self) -> &Value {
        self.value()
    }
}

impl AsRef<Value> for Json {
    fn as_ref(&self) -> &Value {
        self.value()
    }
}

impl Clone for Json {
    /// Shares the text; the copy parses it again if read, so the ring's records never grow
    /// a parsed tree because a copy of them was read.
    fn clone(&self) -> Json {
        Json {
            text: self.text.clone(),
            value: OnceLock::new(),
        }
    }
}

impl fmt::Debug for Json {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        fmt::Debug::fmt(self.value(), f)
    }
}

impl fmt::Display for Json {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        fmt::Display::fmt(self.value(), f)
    }
}

impl PartialEq for Json {
    fn eq(&self, other: &Json) -> bool {
        self.text == other.text || self.value() == other.value()
    }
}

impl PartialEq<Value> for Json {
    fn eq(&self, other: &Value) -> bool {
        self.value() == other
    }
}

impl PartialEq<Json> for Value {
    fn eq(&self, other: &Json) -> bool {
        self == other.value()
    }
}

impl Serialize for Json {
    fn serialize<S: Serializer>(&self, serializer: S) -> Result<S::Ok, S::Error> {
        self.value().serialize(serializer)
    }
}

impl<'de> Deserialize<'de> for Json {
    fn deserialize<D: Deserializer<'de>>(deserializer: D) -> Result<Json, D::Error> {
        Value::deserialize(deserializer).map(Json::from)
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use serde_json::json;

    #[test]
    fn text_that_is_not_json_reads_as_a_string() {
        let json = Json::from_bytes(b"not json \xff");
        assert_eq!(*json, Value::String("not json \u{fffd}".into()));
    }

    #[test]
    fn bytes_and_values_of_the_same_json_are_equal() {
        let from_text = Json::from_bytes(br#"{ "a": [1, 2], "b": "x" }"#);
        let from_value = Json::from(json!({"a": [1, 2], "b": "x"}));
        assert_eq!(from_text, from_value);
        assert_eq!(from_text.clone(), json!({"a": [1, 2], "b": "x"}));
        assert_eq!(
            serde_json::to_string(&from_text).expect("serializes"),
            r#"{"a":[1,2],"b":"x"}"#
        );
    }

    #[test]
    fn a_record_holds_the_text_and_a_pointer_not_a_parsed_tree() {
        // The ring keeps 10,000 records by default with two or more of these each.
        assert!(
            std::mem::size_of::<Json>() <= 32,
            "{}",
            std::mem::size_of::<Json>()
        );
        let json = Json::from_bytes(br#"{"a":1}"#);
        assert_eq!(json["a"], 1, "read through the boxed parse");
        assert_eq!(json.into_value(), json!({"a": 1}));
    }

    #[test]
    fn member_order_survives() {
        let json = Json::from(json!({"z": 1, "a": 2}));
        let keys: Vec<_> = json.as_object().expect("object").keys().cloned().collect();
        assert_eq!(keys, ["z", "a"]);
    }
}
