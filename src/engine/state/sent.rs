//! A JSON value a client sent, which the server keeps but seldom reads: an `initialize`'s
//! `clientInfo` and `capabilities`, kept as their text until somebody reads them, so that a
//! handshake builds no map for them (see `protocol::handshake`).

use std::sync::OnceLock;

use serde_json::Value;

#[derive(Debug)]
pub(crate) struct Sent {
    /// The JSON text, when the value came as text (kept once read: a session reads it rarely).
    text: Option<Box<str>>,
    value: OnceLock<Value>,
}

impl Sent {
    /// A value as the text it came as, which a handshake found to be a JSON object.
    pub(crate) fn text(text: &str) -> Sent {
        Sent {
            text: Some(text.into()),
            value: OnceLock::new(),
        }
    }

    /// The bytes of JSON text it stands for: what a session holds for it (and about a third
    /// of what it holds once read as a value).
    pub(crate) fn bytes(&self) -> usize {
        match (&self.text, self.value.get()) {
            (Some(text), _) => text.len(),
            (None, Some(value)) => {
                let mut counted = Counted(0);
                // Counting bytes cannot fail, and a `Value` always serializes.
                let _ = serde_json::to_writer(&mut counted, value);
                counted.0
            }
            (None, None) => 0,
        }
    }

    /// The value, read the first time.
    pub(crate) fn get(&self) -> &Value {
        self.value.get_or_init(|| {
            // Cannot fail: the text is a member of a handshake's params, which read as JSON
            // too shallow to reach the nesting limit.
            self.text
                .as_deref()
                .and_then(|text| serde_json::from_str(text).ok())
                .unwrap_or(Value::Null)
        })
    }
}

/// A writer that only counts what it is given: the length of a value's JSON text without
/// the text.
struct Counted(usize);

impl std::io::Write for Counted {
    fn write(&mut self, bytes: &[u8]) -> std::io::Result<usize> {
        self.0 += bytes.len();
        Ok(bytes.len())
    }

    fn flush(&mut self) -> std::io::Result<()> {
        Ok(())
    }
}

impl From<Value> for Sent {
    fn from(value: Value) -> Sent {
        Sent {
            text: None,
            value: OnceLock::from(value),
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use serde_json::json;

    #[test]
    fn text_and_value_read_the_same() {
        let text = r#"{"roots":{"listChanged":true},"sampling":{}}"#;
        let value: Value = serde_json::from_str(text).expect("JSON");
        assert_eq!(Sent::text(text).get(), &value);
        assert_eq!(Sent::from(value.clone()).get(), &value);
        assert_eq!(Sent::from(json!(null)).get(), &Value::Null);
        assert_eq!(Sent::text(text).bytes(), text.len());
        assert_eq!(Sent::from(value).bytes(), text.len());
    }
}
