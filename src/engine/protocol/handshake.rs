//! `initialize`'s params read where they stand in their body, in the body's one pass. A
//! `serde_json::Value` would put the params and their `clientInfo` into maps, which hash every
//! name as they are built (SipHash: about 2 K instructions a name in a debug build, the build
//! users' tests run) and allocate for every name and string: a debug build spent 46 K
//! instructions on the params of one `initialize` this way, of the 476 K that a fixture's
//! whole life took (benches/README.md, "The handshake read from its text"). Reading the
//! params' text again after the body skipped over it cost 16 K more, and reading
//! `clientInfo`'s once more 8 K (benches/README.md, "The handshake in the body's pass,
//! headers in one pass"). The handshake needs four members, and whether `clientInfo` names
//! itself with strings; the session keeps two of them whole, as text, until somebody reads
//! them.

use std::fmt;
use std::ops::Range;
use std::sync::OnceLock;

use serde::de::{self, Deserialize, DeserializeSeed, Deserializer, MapAccess, Visitor};
use serde_json::Value;
use serde_json::value::RawValue;

/// The params of one `initialize` request: their text, where in it the members the handshake
/// reads are (the last one of a name, as in a map), and whether `clientInfo`'s `name` and
/// `version` are strings.
#[derive(Debug, Clone)]
pub(crate) struct Handshake {
    text: Box<str>,
    protocol_version: Option<Range<usize>>,
    capabilities: Option<Range<usize>>,
    client_info: Option<Range<usize>>,
    client_info_strings: [bool; 2],
    meta: Option<Range<usize>>,
    /// The params as a value, made the first time somebody asks (a log record that could not
    /// keep the body's text, a fault that matches on params).
    value: OnceLock<Value>,
}

impl PartialEq for Handshake {
    fn eq(&self, other: &Handshake) -> bool {
        self.text == other.text
    }
}

impl Handshake {
    fn member(&self, range: &Option<Range<usize>>) -> Option<&str> {
        range.clone().and_then(|range| self.text.get(range))
    }

    /// The JSON text of `protocolVersion`.
    pub(crate) fn protocol_version(&self) -> Option<&str> {
        self.member(&self.protocol_version)
    }

    /// The JSON text of `capabilities`.
    pub(crate) fn capabilities(&self) -> Option<&str> {
        self.member(&self.capabilities)
    }

    /// The JSON text of `clientInfo` (always an object: anything else is read with the body).
    pub(crate) fn client_info(&self) -> Option<&str> {
        self.member(&self.client_info)
    }

    /// Whether `clientInfo`'s `name` and `version` (in that order) are strings.
    pub(crate) fn client_info_strings(&self) -> [bool; 2] {
        self.client_info_strings
    }

    /// The JSON text of `_meta`.
    pub(crate) fn meta(&self) -> Option<&str> {
        self.member(&self.meta)
    }

    /// The params as a value.
    pub(crate) fn value(&self) -> &Value {
        self.value.get_or_init(|| parse(&self.text))
    }

    /// The params as a value, taken.
    pub(crate) fn into_value(self) -> Value {
        let Handshake { text, value, .. } = self;
        value.into_inner().unwrap_or_else(|| parse(&text))
    }
}

/// A text that the body's parser read as an object, as a value.
fn parse(text: &str) -> Value {
    // Cannot fail: the body's parser read this text as one object whose members open at most
    // `MAX_BRACKETS` brackets each.
    serde_json::from_str(text).unwrap_or(Value::Null)
}

/// The most brackets a member's value may open and still be read this way. The deserializer
/// lends out a value's text without counting how deep it nests, and `serde_json` stops at 128
/// levels counted from the top of the body: a member of the params (or of their `clientInfo`)
/// that opens fewer brackets than that cannot reach the limit however it nests, so its text
/// reads as a value later as the body would have read it. A text with more is read with its
/// body, which gives the error `serde_json` gives.
const MAX_BRACKETS: usize = 100;

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

/// Where the text of a member's value that the deserializer lent out starts in `body`, when
/// it opens few enough brackets to be read this way.
fn lent_value(body: &[u8], text: &str) -> Option<usize> {
    if brackets(text) > MAX_BRACKETS {
        return None;
    }
    offset(body, text.as_ptr())
}

/// Why the params were not read as a handshake: the body is then read again without one
/// ([`Body::parse`](super::message::Body::parse)), which reads them as a value.
const NOT_HERE: &str = "the params are read with their body";

/// Reads the params object that starts at byte `start` of `body`, which the deserializer is
/// reading. Every text the deserializer lends out (`&'de RawValue`, a name without escapes)
/// is a slice of `body`; where a member starts and the object ends is found from those.
/// Anything that cannot be found so (a `clientInfo` whose name has escapes) is an error,
/// and the body is read again without a handshake.
pub(crate) struct HandshakeSeed<'de> {
    pub(crate) body: &'de [u8],
    pub(crate) start: usize,
}

impl<'de> DeserializeSeed<'de> for HandshakeSeed<'de> {
    type Value = Handshake;

    fn deserialize<D: Deserializer<'de>>(self, deserializer: D) -> Result<Handshake, D::Error> {
        deserializer.deserialize_map(ParamsVisitor(self))
    }
}

struct ParamsVisitor<'de>(HandshakeSeed<'de>);

impl<'de> Visitor<'de> for ParamsVisitor<'de> {
    type Value = Handshake;

    fn expecting(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str("the params of an initialize")
    }

    fn visit_map<A: MapAccess<'de>>(self, mut map: A) -> Result<Handshake, A::Error> {
        let HandshakeSeed { body, start } = self.0;
        let not_here = || de::Error::custom(NOT_HERE);
        let mut found: [Option<Range<usize>>; 4] = Default::default();
        let mut strings = [false; 2];
        let mut last_end = None;
        while let Some(name) = map.next_key::<Name<'de>>()? {
            if name.as_str() == "clientInfo" {
                let Name::Borrowed(key) = name else {
                    return Err(not_here());
                };
                let at = value_start(body, key).ok_or_else(not_here)?;
                let read = map.next_value_seed(ClientInfoSeed { body })?;
                let end = closing(body, read.last_end.unwrap_or(at + 1)).ok_or_else(not_here)?;
                found[2] = Some(at..end);
                strings = read.strings;
                last_end = Some(end);
                continue;
            }
            let value: &'de RawValue = map.next_value()?;
            let text = value.get();
            let at = lent_value(body, text).ok_or_else(not_here)?;
            last_end = Some(at + text.len());
            let slot = match name.as_str() {
                "protocolVersion" => 0,
                "capabilities" => 1,
                "_meta" => 3,
                _ => continue,
            };
            found[slot] = Some(at..at + text.len());
        }
        let end = closing(body, last_end.unwrap_or(start + 1)).ok_or_else(not_here)?;
        let text = body
            .get(start..end)
            .and_then(|text| std::str::from_utf8(text).ok())
            .ok_or_else(not_here)?;
        // Every member the deserializer lent out lies within the params; a range that would
        // not (which cannot happen) is dropped rather than wrapped around.
        let relative = |range: Option<Range<usize>>| {
            let range = range?;
            Some(range.start.checked_sub(start)?..range.end.checked_sub(start)?)
        };
        let [protocol_version, capabilities, client_info, meta] = found;
        Ok(Handshake {
            text: text.into(),
            protocol_version: relative(protocol_version),
            capabilities: relative(capabilities),
            client_info: relative(client_info),
            client_info_strings: strings,
            meta: relative(meta),
            value: OnceLock::new(),
        })
    }
}

/// What reading `clientInfo` found: whether its `name` and `version` are strings, and where
/// its last member's value ends (none when it has no member).
struct ClientInfo {
    strings: [bool; 2],
    last_end: Option<usize>,
}

/// Reads `clientInfo`, an object (anything else is an error, and the body is read again
/// without a handshake, whose check then says what `clientInfo` must be).
#[derive(Clone, Copy)]
struct ClientInfoSeed<'de> {
    body: &'de [u8],
}

impl<'de> DeserializeSeed<'de> for ClientInfoSeed<'de> {
    type Value = ClientInfo;

    fn deserialize<D: Deserializer<'de>>(self, deserializer: D) -> Result<ClientInfo, D::Error> {
        deserializer.deserialize_map(self)
    }
}

impl<'de> Visitor<'de> for ClientInfoSeed<'de> {
    type Value = ClientInfo;

    fn expecting(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str("a clientInfo object")
    }

    fn visit_map<A: MapAccess<'de>>(self, mut map: A) -> Result<ClientInfo, A::Error> {
        let mut strings = [false; 2];
        let mut last_end = None;
        while let Some(name) = map.next_key::<Name<'de>>()? {
            let value: &'de RawValue = map.next_value()?;
            let text = value.get();
            let at = lent_value(self.body, text).ok_or_else(|| de::Error::custom(NOT_HERE))?;
            last_end = Some(at + text.len());
            let is_string = text.starts_with('"');
            match name.as_str() {
                "name" => strings[0] = is_string,
                "version" => strings[1] = is_string,
                _ => {}
            }
        }
        Ok(ClientInfo { strings, last_end })
    }
}

/// Where `at` (a pointer into `body`) is in `body`.
fn offset(body: &[u8], at: *const u8) -> Option<usize> {
    let offset = (at as usize).checked_sub(body.as_ptr() as usize)?;
    (offset <= body.len()).then_some(offset)
}

/// JSON's whitespace.
fn is_space(byte: u8) -> bool {
    matches!(byte, b' ' | b'\t' | b'\n' | b'\r')
}

/// The first byte at or after `from` that is no whitespace, and where it is.
fn next_token(body: &[u8], mut from: usize) -> Option<(u8, usize)> {
    while let Some(&byte) = body.get(from) {
        if !is_space(byte) {
            return Some((byte, from));
        }
        from += 1;
    }
    None
}

/// Where the value of the member named `key` (a name the deserializer lent out, a slice of
/// `body`) starts: past the name's closing quote and the colon.
pub(crate) fn value_start(body: &[u8], key: &str) -> Option<usize> {
    let after = offset(body, key.as_bytes().as_ptr_range().end)?;
    if body.get(after) != Some(&b'"') {
        return None;
    }
    let (colon, at) = next_token(body, after + 1)?;
    if colon != b':' {
        return None;
    }
    next_token(body, at + 1).map(|(_, at)| at)
}

/// Where the object whose last member ends at `end` (or whose `{` is just before it) ends,
/// past its closing brace.
fn closing(body: &[u8], end: usize) -> Option<usize> {
    match next_token(body, end)? {
        (b'}', at) => Some(at + 1),
        _ => None,
    }
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
    use super::super::message::{Body, Message};
    use super::*;

    fn message(text: &str) -> Message {
        match Body::parse(text.as_bytes()) {
            Ok(Body::One(message)) => message,
            other => panic!("{text}: {other:?}"),
        }
    }

    fn initialize(params: &str) -> String {
        format!(r#"{{"jsonrpc":"2.0","id":1,"method":"initialize","params" : {params} ,"x":2}}"#)
    }

    #[test]
    fn the_members_are_found_as_sent_and_the_last_of_a_name_counts() {
        let params = r#"{"protocolVersion":"2025-11-25", "capabilities" : {"roots":{}},
        "clientInfo":{"name":"a"},"clientInfo" :	{ "name":"b","version":"1" } ,
        "_m\u0065ta":{"k":[1,{"x":"]}"}]},"other":null }"#;
        let message = message(&initialize(params));
        let handshake = message.handshake().expect("a handshake");
        assert_eq!(handshake.protocol_version(), Some(r#""2025-11-25""#));
        assert_eq!(handshake.capabilities(), Some(r#"{"roots":{}}"#));
        assert_eq!(
            handshake.client_info(),
            Some(r#"{ "name":"b","version":"1" }"#)
        );
        assert_eq!(handshake.client_info_strings(), [true, true]);
        assert_eq!(handshake.meta(), Some(r#"{"k":[1,{"x":"]}"}]}"#));
        let expected: Value = serde_json::from_str(params).expect("valid JSON");
        assert_eq!(handshake.value(), &expected);
        assert_eq!(handshake.clone().into_value(), expected);
        assert_eq!(&*handshake.text, params);
    }

    #[test]
    fn what_client_info_names_itself_with_is_read_in_the_same_pass() {
        for (client_info, strings) in [
            (r#"{}"#, [false, false]),
            (r#"{ }"#, [false, false]),
            (r#"{"name":"n"}"#, [true, false]),
            (r#"{"version":"1","name":7}"#, [false, true]),
            (r#"{"name":"n","name":null,"version":"v"}"#, [false, true]),
            (
                r#"{"name":"\"quoted\"","version":"1","icons":[{"src":"}"}]}"#,
                [true, true],
            ),
        ] {
            for params in [
                format!(r#"{{"protocolVersion":"v","clientInfo":{client_info}}}"#),
                format!(r#"{{"clientInfo": {client_info} , "protocolVersion":"v"}}"#),
            ] {
                let message = message(&initialize(&params));
                let handshake = message.handshake().expect("a handshake");
                assert_eq!(handshake.client_info(), Some(client_info), "{params}");
                assert_eq!(handshake.client_info_strings(), strings, "{params}");
                let expected: Value = serde_json::from_str(&params).expect("valid JSON");
                assert_eq!(handshake.value(), &expected, "{params}");
            }
        }
    }

    /// Params that cannot be read where they stand are read as a value with their body: the
    /// message is the same, only without a handshake.
    #[test]
    fn what_cannot_be_read_in_the_pass_is_read_as_a_value() {
        for params in [
            r#"{"clientInfo":"text"}"#,
            r#"{"clientInfo":[{"name":"n"}]}"#,
            r#"{"client\u0049nfo":{"name":"n","version":"1"}}"#,
            r#"[1]"#,
            r#""text""#,
            r#"null"#,
        ] {
            let text = initialize(params);
            let message = message(&text);
            assert!(message.handshake().is_none(), "{params}");
            let expected: Value = serde_json::from_str(&text).expect("valid JSON");
            assert_eq!(message.into_value(), expected, "{params}");
        }
        let escaped = r#"{"method":"initialize","par\u0061ms":{"protocolVersion":"v"}}"#;
        let escaped = message(escaped);
        assert!(escaped.handshake().is_none());
    }

    #[test]
    fn a_member_that_nests_too_deep_to_read_alone_is_read_with_its_body() {
        let deep = |n: usize| "[".repeat(n) + &"]".repeat(n);
        for (name, depth, handshake) in [
            ("other", MAX_BRACKETS, true),
            ("other", MAX_BRACKETS + 1, false),
            ("capabilities", MAX_BRACKETS + 1, false),
        ] {
            let params = format!(r#"{{"protocolVersion":"v","{name}":{}}}"#, deep(depth));
            assert_eq!(
                message(&initialize(&params)).handshake().is_some(),
                handshake
            );
        }
        let params = format!(r#"{{"clientInfo":{{"icons":{}}}}}"#, deep(MAX_BRACKETS + 1));
        assert!(message(&initialize(&params)).handshake().is_none());
    }

    #[test]
    fn empty_params_are_a_handshake_with_no_member() {
        for params in ["{}", "{ \n }"] {
            let message = message(&initialize(params));
            let handshake = message.handshake().expect("a handshake");
            assert_eq!(&*handshake.text, params);
            assert_eq!(handshake.protocol_version(), None);
            assert_eq!(handshake.client_info(), None);
            assert_eq!(handshake.value(), &serde_json::json!({}));
        }
    }

    /// Params of any shape, written compact or pretty, read as `serde_json` reads them: the
    /// handshake's value, and each member's text is the last member of its name.
    mod differential {
        use proptest::prelude::*;

        use super::*;

        fn value() -> impl Strategy<Value = Value> {
            let leaf = prop_oneof![
                Just(Value::Null),
                any::<bool>().prop_map(Value::from),
                any::<i64>().prop_map(Value::from),
                "[a-z\"\\\\{}\\[\\]:, é]{0,8}".prop_map(Value::from),
            ];
            leaf.prop_recursive(3, 16, 4, |inner| {
                prop_oneof![
                    prop::collection::vec(inner.clone(), 0..3).prop_map(Value::Array),
                    prop::collection::vec((name(), inner), 0..4).prop_map(|members| {
                        Value::Object(members.into_iter().map(|(k, v)| (k.into(), v)).collect())
                    }),
                ]
            })
        }

        fn name() -> impl Strategy<Value = &'static str> {
            prop::sample::select(vec![
                "protocolVersion",
                "capabilities",
                "clientInfo",
                "_meta",
                "name",
                "version",
                "x",
            ])
        }

        proptest! {
            #![proptest_config(ProptestConfig::with_cases(256))]

            #[test]
            fn params_read_in_the_pass_are_the_params_serde_json_reads(
                members in prop::collection::vec((name(), value()), 0..6),
                pretty in any::<bool>(),
            ) {
                let params = Value::Object(
                    members.iter().map(|(k, v)| ((*k).into(), v.clone())).collect(),
                );
                let text = if pretty {
                    serde_json::to_string_pretty(&params).expect("written")
                } else {
                    params.to_string()
                };
                let body = initialize(&text);
                let expected: Value = serde_json::from_str(&body).expect("valid JSON");
                let message = message(&body);
                // Read in the pass unless `clientInfo` is there and no object.
                let in_the_pass = params.get("clientInfo").is_none_or(Value::is_object);
                prop_assert_eq!(message.handshake().is_some(), in_the_pass);
                if let Some(handshake) = message.handshake() {
                    prop_assert_eq!(handshake.value(), &params);
                    let last = |name: &str| params.get(name).cloned();
                    let read = |text: Option<&str>| {
                        text.map(|t| serde_json::from_str::<Value>(t).expect("a member's text"))
                    };
                    prop_assert_eq!(read(handshake.protocol_version()), last("protocolVersion"));
                    prop_assert_eq!(read(handshake.capabilities()), last("capabilities"));
                    prop_assert_eq!(read(handshake.client_info()), last("clientInfo"));
                    prop_assert_eq!(read(handshake.meta()), last("_meta"));
                }
                prop_assert_eq!(message.into_value(), expected);
            }
        }
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
