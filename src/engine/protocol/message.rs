//! A JSON-RPC message as a body or a line carried it: the members of its object kept apart,
//! in the order they came, instead of in a map. A message has four or five members and each
//! is looked at once or twice; a map hashes every name as it is built (SipHash: about 130
//! instructions a name in a release build, 2 K in a debug one) and allocates its table: a
//! debug build parsed `initialize` in 58 K instructions this way instead of 77 K
//! (benches/README.md, "Armed listeners, members kept apart"). Only a message that must be
//! whole again (in the log when its text was not kept, or a client's response handed to the
//! request that waits for it) is put into a map, by [`Message::into_value`]. The params of an
//! `initialize` are read from their text as a [`Handshake`].

use std::fmt;

use serde::de::{Deserialize, DeserializeSeed, Deserializer, MapAccess, SeqAccess, Visitor};
use serde_json::Value;

use super::handshake::{self, Handshake, HandshakeSeed};
use super::method::INITIALIZE;

/// One JSON-RPC message.
#[derive(Debug, Clone, PartialEq)]
pub(crate) enum Message {
    /// A JSON object's members in the order they came. A name sent twice is there twice; the
    /// last one counts, as in a map.
    Members(Vec<(Name, Value)>),
    /// An `initialize` request whose `params` (one object, after its `method`) are read as a
    /// [`Handshake`]: its other members, and the handshake, which stood at `at` among them.
    Initialize {
        members: Vec<(Name, Value)>,
        at: usize,
        handshake: Box<Handshake>,
    },
    /// Any other JSON value, which is no JSON-RPC message.
    Other(Value),
}

/// A member's name: the names of JSON-RPC's envelope as constants, any other as sent, so that
/// reading a message allocates no string for the names every message has.
#[derive(Debug, Clone)]
pub(crate) enum Name {
    Known(&'static str),
    Other(String),
}

impl Name {
    pub(crate) fn as_str(&self) -> &str {
        match self {
            Name::Known(name) => name,
            Name::Other(name) => name,
        }
    }

    fn into_string(self) -> String {
        match self {
            Name::Known(name) => name.to_string(),
            Name::Other(name) => name,
        }
    }
}

impl PartialEq for Name {
    fn eq(&self, other: &Name) -> bool {
        self.as_str() == other.as_str()
    }
}

impl Name {
    fn of(name: &str) -> Name {
        // The names of JSON-RPC's envelope (a request, a notification, a response), matched
        // as text: a search through a list of them cost a debug build 900 instructions a name.
        Name::Known(match name {
            "jsonrpc" => "jsonrpc",
            "id" => "id",
            "method" => "method",
            "params" => "params",
            "result" => "result",
            "error" => "error",
            other => return Name::Other(other.to_string()),
        })
    }
}

/// A member's name, with the text it was read from when the body lends it out (a name
/// without escapes): that tells where the member's value starts.
struct Key<'de> {
    name: Name,
    lent: Option<&'de str>,
}

impl<'de> Deserialize<'de> for Key<'de> {
    fn deserialize<D: Deserializer<'de>>(deserializer: D) -> Result<Key<'de>, D::Error> {
        struct KeyVisitor;
        impl<'de> Visitor<'de> for KeyVisitor {
            type Value = Key<'de>;

            fn expecting(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
                f.write_str("a member name")
            }

            fn visit_borrowed_str<E: serde::de::Error>(
                self,
                name: &'de str,
            ) -> Result<Key<'de>, E> {
                Ok(Key {
                    name: Name::of(name),
                    lent: Some(name),
                })
            }

            fn visit_str<E: serde::de::Error>(self, name: &str) -> Result<Key<'de>, E> {
                Ok(Key {
                    name: Name::of(name),
                    lent: None,
                })
            }
        }
        deserializer.deserialize_str(KeyVisitor)
    }
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
        // A body that fails is read again without handshakes, so that its error is the one
        // `serde_json` gives for the whole text, whatever the handshake's reading found.
        Body::parse_with(bytes, true).or_else(|_| Body::parse_with(bytes, false))
    }

    fn parse_with(bytes: &[u8], handshakes: bool) -> serde_json::Result<Body> {
        let mut deserializer = serde_json::Deserializer::from_slice(bytes);
        let body = BodySeed {
            handshakes,
            body: bytes,
        }
        .deserialize(&mut deserializer)?;
        deserializer.end()?;
        Ok(body)
    }
}

impl Message {
    /// The member `name`: the last one so named (an `initialize`'s params: their value,
    /// read from their text the first time).
    pub(crate) fn member(&self, name: &str) -> Option<&Value> {
        if let (Message::Initialize { handshake, .. }, "params") = (self, name) {
            return Some(handshake.value());
        }
        let (members, at) = self.find(name)?;
        members.get(at).map(|(_, value)| value)
    }

    /// [`member`](Self::member), to change it in place (an `initialize`'s params become a
    /// value among its members).
    pub(crate) fn member_mut(&mut self, name: &str) -> Option<&mut Value> {
        if let (Message::Initialize { .. }, "params") = (&*self, name) {
            self.settle();
        }
        let at = self.find(name)?.1;
        match self {
            Message::Members(members) | Message::Initialize { members, .. } => {
                members.get_mut(at).map(|(_, value)| value)
            }
            Message::Other(_) => None,
        }
    }

    /// The members and where the last one named `name` is among them.
    fn find(&self, name: &str) -> Option<(&[(Name, Value)], usize)> {
        match self {
            Message::Members(members) | Message::Initialize { members, .. } => {
                let at = members.iter().rposition(|(key, _)| key.as_str() == name)?;
                Some((members, at))
            }
            Message::Other(_) => None,
        }
    }

    /// The members, when the message is a JSON object: all of them, but for the params of an
    /// `initialize`, which its [`handshake`](Self::handshake) holds.
    pub(crate) fn members(&self) -> Option<impl Iterator<Item = (&str, &Value)>> {
        match self {
            Message::Members(members) | Message::Initialize { members, .. } => {
                Some(members.iter().map(|(key, value)| (key.as_str(), value)))
            }
            Message::Other(_) => None,
        }
    }

    /// The params of an `initialize`, read from their text.
    pub(crate) fn handshake(&self) -> Option<&Handshake> {
        match self {
            Message::Initialize { handshake, .. } => Some(handshake),
            _ => None,
        }
    }

    /// Makes an `initialize` an object's members like any other, its params a value again.
    fn settle(&mut self) {
        if let Message::Initialize { .. } = self {
            let taken = std::mem::replace(self, Message::Other(Value::Null));
            *self = Message::Members(taken.into_members().unwrap_or_default());
        }
    }

    /// The members of an object, an `initialize`'s params among them again as a value.
    fn into_members(self) -> Option<Vec<(Name, Value)>> {
        match self {
            Message::Members(members) => Some(members),
            Message::Initialize {
                mut members,
                at,
                handshake,
            } => {
                let at = at.min(members.len());
                members.insert(at, (Name::Known("params"), handshake.into_value()));
                Some(members)
            }
            Message::Other(_) => None,
        }
    }

    /// The message as one JSON value: its members in a map, in the order they came (a name
    /// sent twice keeps its first place and its last value, as parsing into a map does).
    pub(crate) fn into_value(self) -> Value {
        match self {
            Message::Other(value) => value,
            object => Value::Object(
                object
                    .into_members()
                    .unwrap_or_default()
                    .into_iter()
                    .map(|(name, value)| (name.into_string(), value))
                    .collect(),
            ),
        }
    }
}

impl From<Value> for Message {
    fn from(value: Value) -> Message {
        match value {
            Value::Object(map) => Message::Members(
                map.into_iter()
                    .map(|(name, value)| (Name::Other(name), value))
                    .collect(),
            ),
            other => Message::Other(other),
        }
    }
}

/// Reads `body`; `handshakes`: an `initialize`'s params as a [`Handshake`].
struct BodySeed<'de> {
    handshakes: bool,
    body: &'de [u8],
}

impl<'de> DeserializeSeed<'de> for BodySeed<'de> {
    type Value = Body;

    fn deserialize<D: Deserializer<'de>>(self, deserializer: D) -> Result<Body, D::Error> {
        deserializer.deserialize_any(BodyVisitor {
            handshakes: self.handshakes,
            body: self.body,
        })
    }
}

struct BodyVisitor<'de> {
    handshakes: bool,
    body: &'de [u8],
}

/// `message`, with its params a value again unless it is still an `initialize` with one
/// `params` member: a later `method` may have renamed it, a later `params` replaced them.
fn settled_unless_initialize(mut message: Message) -> Message {
    let still = match &message {
        Message::Initialize { members, .. } => members.iter().all(|(name, value)| {
            name.as_str() != "params" && (name.as_str() != "method" || value == INITIALIZE)
        }),
        _ => true,
    };
    if !still {
        message.settle();
    }
    message
}

/// A value that is neither an object nor an array: a message, if an invalid one.
fn other(value: Value) -> Body {
    Body::One(Message::Other(value))
}

impl<'de> Visitor<'de> for BodyVisitor<'de> {
    type Value = Body;

    fn expecting(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str("a JSON value")
    }

    fn visit_map<A: MapAccess<'de>>(self, mut map: A) -> Result<Body, A::Error> {
        let mut members = Vec::new();
        let mut initialize = false;
        let mut handshake = None;
        while let Some(Key { name, lent }) = map.next_key::<Key<'de>>()? {
            if self.handshakes && initialize && handshake.is_none() && name.as_str() == "params" {
                // Params that are an object, after a name the body lends out, are read where
                // they stand; any other are a value like any member's.
                let object = lent
                    .and_then(|key| handshake::value_start(self.body, key))
                    .filter(|&at| self.body.get(at) == Some(&b'{'));
                if let Some(start) = object {
                    let seed = HandshakeSeed {
                        body: self.body,
                        start,
                    };
                    handshake = Some((members.len(), Box::new(map.next_value_seed(seed)?)));
                    continue;
                }
            }
            let value = map.next_value::<Value>()?;
            if name.as_str() == "method" {
                initialize = value.as_str() == Some(INITIALIZE);
            }
            members.push((name, value));
        }
        let message = match handshake {
            Some((at, handshake)) => Message::Initialize {
                members,
                at,
                handshake,
            },
            None => Message::Members(members),
        };
        Ok(Body::One(settled_unless_initialize(message)))
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
            r#"{"jsonrpc":"2.0","id":1,"method":"initialize","params":{"protocolVersion":"2025-11-25","capabilities":{},"clientInfo":{"name":"t","version":"1"}},"x":1}"#,
            r#"{"method":"initialize","params":{"a":1},"method":"ping"}"#,
            r#"{"method":"initialize","params":{"a":1},"params":{"b":2}}"#,
            r#"{"params":{"a":1},"method":"initialize"}"#,
            r#"{"method":"initialize","params":[1]}"#,
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
        let nested = "[".repeat(200) + &"]".repeat(200);
        for deep in [
            nested.clone(),
            format!(r#"{{"method":"initialize","params":{{"a":{nested}}}}}"#),
        ] {
            let expected = serde_json::from_str::<Value>(&deep).expect_err("too deep");
            let read = Body::parse(deep.as_bytes()).expect_err("too deep");
            assert_eq!(read.to_string(), expected.to_string());
        }
    }

    /// Only an `initialize` whose one `params` object follows its `method` keeps them as a
    /// handshake; it reads them as a value when asked, as any other message would.
    #[test]
    fn an_initialize_keeps_its_params_as_a_handshake() {
        let parse = |text: &str| match Body::parse(text.as_bytes()) {
            Ok(Body::One(message)) => message,
            other => panic!("{text}: {other:?}"),
        };
        let mut message =
            parse(r#"{"id":1,"method":"initialize","params":{"protocolVersion":"v"},"x":2}"#);
        let handshake = message.handshake().expect("a handshake");
        assert_eq!(handshake.protocol_version(), Some(r#""v""#));
        assert_eq!(
            message.member("params"),
            Some(&serde_json::json!({"protocolVersion": "v"}))
        );
        assert_eq!(message.member("x"), Some(&Value::from(2)));
        if let Some(params) = message.member_mut("params") {
            params["protocolVersion"] = Value::from("w");
        }
        assert!(message.handshake().is_none());
        assert_eq!(
            message.into_value().to_string(),
            r#"{"id":1,"method":"initialize","params":{"protocolVersion":"w"},"x":2}"#
        );
        for text in [
            r#"{"params":{},"method":"initialize"}"#,
            r#"{"method":"initialize","params":{},"method":"ping"}"#,
            r#"{"method":"initialize","params":{},"params":{}}"#,
            r#"{"method":"initialize","params":[]}"#,
            r#"{"method":"ping","params":{}}"#,
        ] {
            assert!(parse(text).handshake().is_none(), "{text}");
        }
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
