//! `initialize`'s params read from their text. A `serde_json::Value` would put the params and
//! their `clientInfo` into maps, which hash every name as they are built (SipHash: about 2 K
//! instructions a name in a debug build, the build users' tests run) and allocate for every
//! name and string: a debug build spent 46 K instructions on the params of one `initialize`
//! this way, of the 476 K that a fixture's whole life took (benches/README.md, "The
//! handshake read from its text"). The handshake needs four members; the session keeps two
//! of them whole, as text, until somebody reads them.

use std::fmt;
use std::ops::Range;
use std::sync::OnceLock;

use serde::de::{self, Deserialize, Deserializer, MapAccess, Visitor};
use serde_json::Value;
use serde_json::value::RawValue;

/// The most brackets a params text may open and still be read this way. `serde_json` stops
/// at 128 levels of nesting counted from the top of the body; a text that opens fewer
/// brackets than that cannot reach the limit however it nests, so reading it alone gives
/// what reading it within its body gives. A text with more is read with its body, as before.
pub(crate) const MAX_BRACKETS: usize = 100;

/// The params of one `initialize` request: their text, and where in it the members the
/// handshake reads are (the last one of a name, as in a map).
#[derive(Debug, Clone)]
pub(crate) struct Handshake {
    text: Box<RawValue>,
    protocol_version: Option<Range<usize>>,
    capabilities: Option<Range<usize>>,
    client_info: Option<Range<usize>>,
    meta: Option<Range<usize>>,
    /// The params as a value, made the first time somebody asks (a log record that could not
    /// keep the body's text, a fault that matches on params).
    value: OnceLock<Value>,
}

impl PartialEq for Handshake {
    fn eq(&self, other: &Handshake) -> bool {
        self.text.get() == other.text.get()
    }
}

impl Handshake {
    /// Reads `text` when it is an object that opens at most [`MAX_BRACKETS`] brackets; gives
    /// it back otherwise, to be read as a value.
    pub(crate) fn read(text: Box<RawValue>) -> Result<Handshake, Box<RawValue>> {
        if brackets(text.get()) > MAX_BRACKETS {
            return Err(text);
        }
        let base = text.get().as_ptr() as usize;
        let at = |member: &str| {
            let start = member.as_ptr() as usize - base;
            start..start + member.len()
        };
        let mut found: [Option<Range<usize>>; 4] = Default::default();
        let read = each_member(text.get(), |name, value| {
            let slot = match name {
                "protocolVersion" => 0,
                "capabilities" => 1,
                "clientInfo" => 2,
                "_meta" => 3,
                _ => return,
            };
            found[slot] = Some(at(value.get()));
        });
        if read.is_err() {
            return Err(text);
        }
        let [protocol_version, capabilities, client_info, meta] = found;
        Ok(Handshake {
            text,
            protocol_version,
            capabilities,
            client_info,
            meta,
            value: OnceLock::new(),
        })
    }

    fn member(&self, range: &Option<Range<usize>>) -> Option<&str> {
        range.clone().and_then(|range| self.text.get().get(range))
    }

    /// The JSON text of `protocolVersion`.
    pub(crate) fn protocol_version(&self) -> Option<&str> {
        self.member(&self.protocol_version)
    }

    /// The JSON text of `capabilities`.
    pub(crate) fn capabilities(&self) -> Option<&str> {
        self.member(&self.capabilities)
    }

    /// The JSON text of `clientInfo`.
    pub(crate) fn client_info(&self) -> Option<&str> {
        self.member(&self.client_info)
    }

    /// The JSON text of `_meta`.
    pub(crate) fn meta(&self) -> Option<&str> {
        self.member(&self.meta)
    }

    /// The params as a value.
    pub(crate) fn value(&self) -> &Value {
        self.value.get_or_init(|| parse(self.text.get()))
    }

    /// The params as a value, taken.
    pub(crate) fn into_value(self) -> Value {
        let Handshake { text, value, .. } = self;
        value.into_inner().unwrap_or_else(|| parse(text.get()))
    }
}

/// A text that [`Handshake::read`] found valid and shallow enough, as a value.
fn parse(text: &str) -> Value {
    // Cannot fail: the text is valid JSON (a `RawValue`), and opens too few brackets to
    // reach the nesting limit.
    serde_json::from_str(text).unwrap_or(Value::Null)
}

/// How many arrays and objects `text` (valid JSON) may open: its length halved, since each
/// bracket it opens is closed; counted when that is more than [`MAX_BRACKETS`] (brackets
/// within strings are counted too, which only errs on the safe side).
fn brackets(text: &str) -> usize {
    if text.len() / 2 <= MAX_BRACKETS {
        return text.len() / 2;
    }
    let mut opened = 0;
    for byte in text.bytes() {
        if byte == b'{' || byte == b'[' {
            opened += 1;
        }
    }
    opened
}

/// Calls `found` with the name and the JSON text of each member of the object `text`, in
/// order, without building anything; an error if `text` is no object.
pub(crate) fn each_member<'de>(
    text: &'de str,
    found: impl FnMut(&str, &'de RawValue),
) -> serde_json::Result<()> {
    let mut deserializer = serde_json::Deserializer::from_str(text);
    deserializer.deserialize_map(Members(found))
}

struct Members<F>(F);

impl<'de, F: FnMut(&str, &'de RawValue)> Visitor<'de> for Members<F> {
    type Value = ();

    fn expecting(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str("a JSON object")
    }

    fn visit_map<A: MapAccess<'de>>(mut self, mut map: A) -> Result<(), A::Error> {
        while let Some(name) = map.next_key::<Name<'de>>()? {
            let value: &'de RawValue = map.next_value()?;
            (self.0)(name.as_str(), value);
        }
        Ok(())
    }
}

/// A member's name, borrowed from the text unless it has escapes.
enum Name<'de> {
    Borrowed(&'de str),
    Owned(String),
}

impl Name<'_> {
    fn as_str(&self) -> &str {
        match self {
            Name::Borrowed(name) => name,
            Name::Owned(name) => name,
        }
    }
}

impl<'de> Deserialize<'de> for Name<'de> {
    fn deserialize<D: Deserializer<'de>>(deserializer: D) -> Result<Name<'de>, D::Error> {
        struct NameVisitor;
        impl<'de> Visitor<'de> for NameVisitor {
            type Value = Name<'de>;

            fn expecting(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
                f.write_str("a member name")
            }

            fn visit_borrowed_str<E: de::Error>(self, name: &'de str) -> Result<Name<'de>, E> {
                Ok(Name::Borrowed(name))
            }

            fn visit_str<E: de::Error>(self, name: &str) -> Result<Name<'de>, E> {
                Ok(Name::Owned(name.to_string()))
            }

            fn visit_string<E: de::Error>(self, name: String) -> Result<Name<'de>, E> {
                Ok(Name::Owned(name))
            }
        }
        deserializer.deserialize_str(NameVisitor)
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn raw(text: &str) -> Box<RawValue> {
        RawValue::from_string(text.to_string()).expect("valid JSON")
    }

    #[test]
    fn the_members_are_found_as_sent_and_the_last_of_a_name_counts() {
        let text = r#" {"protocolVersion":"2025-11-25", "capabilities" : {"roots":{}},
            "clientInfo":{"name":"a"},"clientInfo":{"name":"b","version":"1"},
            "_m\u0065ta":{"k":[1,{"x":"]"}]},"other":null} "#;
        let Ok(handshake) = Handshake::read(raw(text)) else {
            panic!("read");
        };
        assert_eq!(handshake.protocol_version(), Some(r#""2025-11-25""#));
        assert_eq!(handshake.capabilities(), Some(r#"{"roots":{}}"#));
        assert_eq!(
            handshake.client_info(),
            Some(r#"{"name":"b","version":"1"}"#)
        );
        assert_eq!(handshake.meta(), Some(r#"{"k":[1,{"x":"]"}]}"#));
        let expected: Value = serde_json::from_str(text).expect("valid JSON");
        assert_eq!(handshake.value(), &expected);
        assert_eq!(handshake.into_value(), expected);
    }

    #[test]
    fn what_is_no_object_or_too_deep_is_given_back() {
        for text in ["[1]", "\"text\"", "null", "7"] {
            assert!(Handshake::read(raw(text)).is_err(), "{text}");
        }
        let deep = "[".repeat(MAX_BRACKETS) + &"]".repeat(MAX_BRACKETS);
        assert!(Handshake::read(raw(&format!(r#"{{"a":{deep}}}"#))).is_err());
        let shallow = "[".repeat(MAX_BRACKETS - 1) + &"]".repeat(MAX_BRACKETS - 1);
        assert!(Handshake::read(raw(&format!(r#"{{"a":{shallow}}}"#))).is_ok());
    }

    #[test]
    fn each_member_reads_nothing_of_what_is_no_object() {
        for text in ["[]", r#"[{"a":1}]"#, r#""{\"a\":1}""#, "null"] {
            let mut found = 0;
            assert!(each_member(text, |_, _| found += 1).is_err(), "{text}");
            assert_eq!(found, 0, "{text}");
        }
    }
}
