//! A JSON-RPC message as a body or a line carried it: the members of its object kept apart,
//! in the order they came, instead of in a map. A message has four or five members and each
//! is looked at once or twice; a map hashes every name as it is built (SipHash: about 130
//! instructions a name in a release build, 2 K in a debug one) and allocates its table: a
//! debug build parsed `initialize` in 58 K instructions this way instead of 77 K
//! (benches/README.md, "Armed listeners, members kept apart"). Only a message that must be
//! whole again (in the log when its text was not kept, or a client's response handed to the
//! request that waits for it) is put into a map, by [`Message::into_value`].

use std::fmt;

use serde::de::{Deserialize, Deserializer, MapAccess, SeqAccess, Visitor};
use serde_json::Value;

/// One JSON-RPC message.
#[derive(Debug, Clone, PartialEq)]
pub(crate) enum Message {
    /// A JSON object's members in the order they came. A name sent twice is there twice; the
    /// last one counts, as in a map.
    Members(Vec<(String, Value)>),
    /// Any other JSON value, which is no JSON-RPC message.
    Other(Value),
}

/// A body (or a line) read as JSON-RPC: one message, or a JSON array (a batch).
#[derive(Debug, Clone, PartialEq)]
pub(crate) enum Body {
    One(Message),
    Batch(Vec<Value>),
}

impl Body {
    /// Parses `bytes` as one JSON value, as `serde_json::from_slice::<Value>` would (the same
    /// errors, nesting limit and trailing-character check), without a map for the message's
    /// own members.
    pub(crate) fn parse(bytes: &[u8]) -> serde_json::Result<Body> {
        serde_json::from_slice(bytes)
    }
}

impl Message {
    /// The member `name`: the last one so named.
    pub(crate) fn member(&self, name: &str) -> Option<&Value> {
        let (members, at) = self.find(name)?;
        members.get(at).map(|(_, value)| value)
    }

    /// [`member`](Self::member), to change it in place.
    pub(crate) fn member_mut(&mut self, name: &str) -> Option<&mut Value> {
        let at = self.find(name)?.1;
        match self {
            Message::Members(members) => members.get_mut(at).map(|(_, value)| value),
            Message::Other(_) => None,
        }
    }

    /// The members and where the last one named `name` is among them.
    fn find(&self, name: &str) -> Option<(&[(String, Value)], usize)> {
        match self {
            Message::Members(members) => {
                let at = members.iter().rposition(|(key, _)| key == name)?;
                Some((members, at))
            }
            Message::Other(_) => None,
        }
    }

    /// The members, when the message is a JSON object.
    pub(crate) fn members(&self) -> Option<impl Iterator<Item = (&String, &Value)>> {
        match self {
            Message::Members(members) => Some(members.iter().map(|(key, value)| (key, value))),
            Message::Other(_) => None,
        }
    }

    /// The message as one JSON value: its members in a map, in the order they came (a name
    /// sent twice keeps its first place and its last value, as parsing into a map does).
    pub(crate) fn into_value(self) -> Value {
        match self {
            Message::Members(members) => Value::Object(members.into_iter().collect()),
            Message::Other(value) => value,
        }
    }
}

impl From<Value> for Message {
    fn from(value: Value) -> Message {
        match value {
            Value::Object(map) => Message::Members(map.into_iter().collect()),
            other => Message::Other(other),
        }
    }
}

impl<'de> Deserialize<'de> for Body {
    fn deserialize<D: Deserializer<'de>>(deserializer: D) -> Result<Body, D::Error> {
        deserializer.deserialize_any(BodyVisitor)
    }
}

struct BodyVisitor;

/// A value that is neither an object nor an array: a message, if an invalid one.
fn other(value: Value) -> Body {
    Body::One(Message::Other(value))
}

impl<'de> Visitor<'de> for BodyVisitor {
    type Value = Body;

    fn expecting(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str("a JSON value")
    }

    fn visit_map<A: MapAccess<'de>>(self, mut map: A) -> Result<Body, A::Error> {
        let mut members = Vec::new();
        while let Some(name) = map.next_key::<String>()? {
            let value = map.next_value::<Value>()?;
            members.push((name, value));
        }
        Ok(Body::One(Message::Members(members)))
    }

    fn visit_seq<A: SeqAccess<'de>>(self, mut seq: A) -> Result<Body, A::Error> {
        let mut batch = Vec::new();
        while let Some(message) = seq.next_element::<Value>()? {
            batch.push(message);
        }
        Ok(Body::Batch(batch))
    }

    fn visit_bool<E>(self, value: bool) -> Result<Body, E> {
        Ok(other(Value::Bool(value)))
    }

    fn visit_i64<E>(self, value: i64) -> Result<Body, E> {
        Ok(other(Value::from(value)))
    }

    fn visit_u64<E>(self, value: u64) -> Result<Body, E> {
        Ok(other(Value::from(value)))
    }

    fn visit_f64<E>(self, value: f64) -> Result<Body, E> {
        Ok(other(Value::from(value)))
    }

    fn visit_str<E>(self, value: &str) -> Result<Body, E> {
        Ok(other(Value::String(value.to_string())))
    }

    fn visit_string<E>(self, value: String) -> Result<Body, E> {
        Ok(other(Value::String(value)))
    }

    fn visit_unit<E>(self) -> Result<Body, E> {
        Ok(other(Value::Null))
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    /// Every kind of JSON text reads as what `serde_json::Value` reads: the same value once
    /// whole again, and the same error for what is not JSON.
    #[test]
    fn a_body_reads_as_serde_json_reads_it() {
        let texts = [
            r#"{"jsonrpc":"2.0","id":1,"method":"tools/call","params":{"b":1,"a":[true,null]}}"#,
            r#"{"z":1,"a":2,"z":3}"#,
            r#"{}"#,
            r#"[{"jsonrpc":"2.0","id":1,"method":"ping"},7]"#,
            r#"[]"#,
            r#""text""#,
            r#"-12"#,
            r#"18446744073709551615"#,
            r#"1.5e3"#,
            r#"true"#,
            r#"null"#,
        ];
        for text in texts {
            let expected: Value = serde_json::from_str(text).expect("valid JSON");
            let read = match Body::parse(text.as_bytes()).expect("valid JSON") {
                Body::One(message) => message.into_value(),
                Body::Batch(batch) => Value::Array(batch),
            };
            assert_eq!(read, expected, "{text}");
            assert_eq!(
                read.to_string(),
                expected.to_string(),
                "{text}: member order"
            );
        }
        for bad in ["", "{", r#"{"a":1} x"#, "[1,]", "{\"a\":\u{1}}", "nul"] {
            let expected = serde_json::from_str::<Value>(bad).expect_err("not JSON");
            let read = Body::parse(bad.as_bytes()).expect_err("not JSON");
            assert_eq!(read.to_string(), expected.to_string(), "{bad:?}");
        }
        let deep = "[".repeat(200) + &"]".repeat(200);
        let expected = serde_json::from_str::<Value>(&deep).expect_err("too deep");
        let read = Body::parse(deep.as_bytes()).expect_err("too deep");
        assert_eq!(read.to_string(), expected.to_string());
    }

    #[test]
    fn the_last_member_of_a_name_counts() {
        let Ok(Body::One(mut message)) = Body::parse(br#"{"id":1,"id":2}"#) else {
            panic!("one message");
        };
        assert_eq!(message.member("id"), Some(&Value::from(2)));
        if let Some(id) = message.member_mut("id") {
            *id = Value::from(3);
        }
        assert_eq!(message.into_value(), serde_json::json!({"id": 3}));
        assert_eq!(Message::from(Value::from(5)).member("id"), None);
    }
}
