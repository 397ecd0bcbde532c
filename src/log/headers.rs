//! The headers of a captured exchange: every name and value in one string, with where each
//! ends. A list of `(String, String)` pairs cost the capture two allocations per header, a
//! dozen per `initialize`, which was a tenth of a fixture's allocations in the first answer
//! (benches/README.md, "Headers in one string").

use std::fmt;

use serde::de::Deserializer;
use serde::ser::{SerializeSeq, Serializer};
use serde::{Deserialize, Serialize};

/// Headers whose values are credentials (lower case): the capture keeps what says which
/// credential it is and nothing of its value, and exports mask what is left.
pub(crate) const CREDENTIAL_HEADERS: [&str; 6] = [
    "authorization",
    "proxy-authorization",
    "cookie",
    "set-cookie",
    "x-api-key",
    "api-key",
];

/// HTTP headers as the log keeps them, in arrival order, names lower-case. Serialized as a
/// list of `[name, value]` pairs.
///
/// ```
/// use mcp_decoy::log::Headers;
///
/// let headers: Headers = [("content-type", "application/json"), ("accept", "*/*")]
///     .into_iter()
///     .collect();
/// assert_eq!(headers.get("Content-Type"), Some("application/json"));
/// assert_eq!(headers.iter().map(|(name, _)| name).collect::<Vec<_>>(), ["content-type", "accept"]);
/// assert_eq!(serde_json::to_string(&headers).unwrap(), r#"[["content-type","application/json"],["accept","*/*"]]"#);
/// ```
#[derive(Clone, Default, PartialEq, Eq)]
pub struct Headers {
    /// Each header's name, then its value, one after the other.
    text: String,
    /// Per header, where its name ends and where its value ends in `text`.
    ends: Vec<(usize, usize)>,
}

impl Headers {
    /// No headers.
    pub fn new() -> Headers {
        Headers::default()
    }

    /// Room for `count` headers of `bytes` bytes of names and values in all.
    pub(crate) fn with_capacity(count: usize, bytes: usize) -> Headers {
        Headers {
            text: String::with_capacity(bytes),
            ends: Vec::with_capacity(count),
        }
    }

    /// Appends a header (a name already present is kept too: headers may repeat).
    pub fn push(&mut self, name: &str, value: &str) {
        self.text.push_str(name);
        let name_end = self.text.len();
        self.text.push_str(value);
        self.ends.push((name_end, self.text.len()));
    }

    /// The value of the first header named `name` (case-insensitive).
    pub fn get(&self, name: &str) -> Option<&str> {
        self.iter()
            .find(|(n, _)| n.eq_ignore_ascii_case(name))
            .map(|(_, value)| value)
    }

    /// The headers as `(name, value)`, in order.
    pub fn iter(&self) -> HeaderIter<'_> {
        HeaderIter {
            headers: self,
            next: 0,
        }
    }

    /// How many headers there are.
    pub fn len(&self) -> usize {
        self.ends.len()
    }

    /// Whether there are none.
    pub fn is_empty(&self) -> bool {
        self.ends.is_empty()
    }

    /// The bytes the log counts for these headers.
    pub(crate) fn cost(&self) -> usize {
        self.text.capacity() + self.ends.capacity() * std::mem::size_of::<(usize, usize)>()
    }

    /// The same headers with the value of each one named `name` passed through `change`.
    pub(crate) fn map_values(&self, name: &str, change: impl Fn(&str) -> String) -> Headers {
        let mut changed = Headers::with_capacity(self.len(), self.text.len());
        for (n, value) in self {
            if n.eq_ignore_ascii_case(name) {
                changed.push(n, &change(value));
            } else {
                changed.push(n, value);
            }
        }
        changed
    }
}

/// The headers of a [`Headers`], as `(name, value)`.
#[derive(Debug, Clone)]
pub struct HeaderIter<'a> {
    headers: &'a Headers,
    next: usize,
}

impl<'a> Iterator for HeaderIter<'a> {
    type Item = (&'a str, &'a str);

    fn next(&mut self) -> Option<Self::Item> {
        let &(name_end, value_end) = self.headers.ends.get(self.next)?;
        let start = match self.next {
            0 => 0,
            n => self.headers.ends[n - 1].1,
        };
        self.next += 1;
        let text = &self.headers.text;
        Some((&text[start..name_end], &text[name_end..value_end]))
    }

    fn size_hint(&self) -> (usize, Option<usize>) {
        let left = self.headers.ends.len() - self.next;
        (left, Some(left))
    }
}

impl ExactSizeIterator for HeaderIter<'_> {}

impl<'a> IntoIterator for &'a Headers {
    type Item = (&'a str, &'a str);
    type IntoIter = HeaderIter<'a>;

    fn into_iter(self) -> HeaderIter<'a> {
        self.iter()
    }
}

impl<N: AsRef<str>, V: AsRef<str>> FromIterator<(N, V)> for Headers {
    fn from_iter<I: IntoIterator<Item = (N, V)>>(pairs: I) -> Headers {
        let mut headers = Headers::new();
        for (name, value) in pairs {
            headers.push(name.as_ref(), value.as_ref());
        }
        headers
    }
}

impl fmt::Debug for Headers {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.debug_list().entries(self.iter()).finish()
    }
}

impl Serialize for Headers {
    fn serialize<S: Serializer>(&self, serializer: S) -> Result<S::Ok, S::Error> {
        let mut list = serializer.serialize_seq(Some(self.len()))?;
        for pair in self {
            list.serialize_element(&pair)?;
        }
        list.end()
    }
}

impl<'de> Deserialize<'de> for Headers {
    fn deserialize<D: Deserializer<'de>>(deserializer: D) -> Result<Headers, D::Error> {
        let pairs = Vec::<(String, String)>::deserialize(deserializer)?;
        Ok(pairs.into_iter().collect())
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn repeated_and_empty_headers_keep_their_order_and_values() {
        let headers: Headers = [
            ("a", ""),
            ("set-cookie", "x=1"),
            ("", "v"),
            ("set-cookie", "y=2"),
        ]
        .into_iter()
        .collect();
        let pairs: Vec<_> = headers.iter().collect();
        assert_eq!(
            pairs,
            [
                ("a", ""),
                ("set-cookie", "x=1"),
                ("", "v"),
                ("set-cookie", "y=2")
            ]
        );
        assert_eq!(headers.get("SET-COOKIE"), Some("x=1"));
        assert_eq!(headers.get("missing"), None);
        assert_eq!(headers.iter().len(), 4);
    }

    #[test]
    fn serializes_as_the_pairs_it_reads_back() {
        let headers: Headers = [("host", "127.0.0.1:1"), ("accept", "a, b")]
            .into_iter()
            .collect();
        let text = serde_json::to_string(&headers).unwrap();
        assert_eq!(text, r#"[["host","127.0.0.1:1"],["accept","a, b"]]"#);
        let back: Headers = serde_json::from_str(&text).unwrap();
        assert_eq!(back, headers);
        assert!(serde_json::from_str::<Headers>(r#"[["only-a-name"]]"#).is_err());
    }

    #[test]
    fn map_values_changes_only_the_named_headers() {
        let headers: Headers = [("location", "http://x/?code=1"), ("etag", "1")]
            .into_iter()
            .collect();
        let masked = headers.map_values("Location", |_| "masked".into());
        assert_eq!(masked.get("location"), Some("masked"));
        assert_eq!(masked.get("etag"), Some("1"));
    }
}
