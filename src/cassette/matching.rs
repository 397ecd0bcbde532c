//! How a live request finds its recorded interaction: by method and params, `_meta`
//! ignored (the default), optionally in strict order and ignoring chosen JSON pointers; and
//! how a near miss is told, as the JSON-pointer differences between the two.

use serde::{Deserialize, Serialize};
use serde_json::Value;

use crate::log::mask::MASK;

/// How the replay matches a request to a recorded interaction: its method, and its
/// `params` except `_meta` (protocol version, client capabilities, progress token), equal
/// to the recording's. A recorded value that was redacted (`[redacted]`) matches any value.
///
/// # Example
/// ```
/// use mcp_decoy::cassette::{Matching, Order};
///
/// let matching = Matching::default()
///     .in_strict_order()
///     .ignore("/arguments/requestedAt");
/// assert_eq!(matching.order, Order::Strict);
/// assert_eq!(matching.ignore, ["/arguments/requestedAt"]);
/// ```
#[derive(Debug, Clone, Default, PartialEq, Eq, Serialize, Deserialize)]
#[cfg_attr(feature = "decoy-cli", derive(schemars::JsonSchema))]
#[cfg_attr(
    feature = "decoy-cli",
    schemars(
        description = "How the replay matches a request to a recorded interaction: its method, and its `params` except `_meta`, equal to the recording's; a recorded `[redacted]` matches any value."
    )
)]
#[serde(rename_all = "camelCase", deny_unknown_fields)]
#[non_exhaustive]
pub struct Matching {
    /// Whether interactions must be replayed in the recorded order.
    #[serde(default, skip_serializing_if = "Order::is_any")]
    pub order: Order,
    /// JSON pointers (RFC 6901) into `params` whose values never decide a match, such as
    /// `/arguments/requestedAt`; a pointer also covers what is below it.
    #[serde(default, skip_serializing_if = "Vec::is_empty")]
    pub ignore: Vec<String>,
}

/// The order in which recorded interactions answer.
#[derive(Debug, Clone, Copy, Default, PartialEq, Eq, Serialize, Deserialize)]
#[cfg_attr(feature = "decoy-cli", derive(schemars::JsonSchema))]
#[serde(rename_all = "lowercase")]
#[non_exhaustive]
pub enum Order {
    /// Any order: a request takes the first unused interaction that matches it, or, once
    /// all are used, the last one that matched (a repeated request repeats its answer).
    #[default]
    Any,
    /// The recorded order: each request must match the next interaction, and each
    /// interaction answers once.
    Strict,
}

impl Order {
    fn is_any(&self) -> bool {
        *self == Order::Any
    }
}

impl Matching {
    /// Requests must come in the recorded order ([`Order::Strict`]).
    pub fn in_strict_order(mut self) -> Self {
        self.order = Order::Strict;
        self
    }

    /// Ignores the value at this JSON pointer into `params` (and below it).
    pub fn ignore(mut self, pointer: impl Into<String>) -> Self {
        self.ignore.push(pointer.into());
        self
    }

    /// The first ignored pointer that is no JSON pointer, with its index.
    pub(crate) fn bad_pointer(&self) -> Option<(usize, &str)> {
        self.ignore
            .iter()
            .enumerate()
            .find(|(_, p)| !p.is_empty() && !p.starts_with('/'))
            .map(|(n, p)| (n, p.as_str()))
    }
}

/// One place where a request differs from a recorded one.
#[derive(Debug, Clone, PartialEq)]
pub(crate) struct Difference {
    /// The JSON pointer into `params`.
    pub(crate) pointer: String,
    /// The recorded value there, if any.
    pub(crate) recorded: Option<Value>,
    /// The request's value there, if any.
    pub(crate) got: Option<Value>,
}

impl std::fmt::Display for Difference {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        let show = |value: &Option<Value>| match value {
            Some(value) => compact(value),
            None => "nothing".to_string(),
        };
        write!(
            f,
            "{}: recorded {}, got {}",
            self.pointer,
            show(&self.recorded),
            show(&self.got)
        )
    }
}

/// A value as one line of JSON, cut after 200 characters.
pub(crate) fn compact(value: &Value) -> String {
    let text = value.to_string();
    match text.char_indices().nth(200) {
        Some((at, _)) => format!("{}...", &text[..at]),
        None => text,
    }
}

/// Where `got` differs from `recorded`, `_meta` and the ignored pointers left out.
pub(crate) fn differences(recorded: &Value, got: &Value, ignore: &[String]) -> Vec<Difference> {
    let mut out = Vec::new();
    compare(
        or_empty(recorded),
        or_empty(got),
        String::new(),
        ignore,
        &mut out,
    );
    out
}

/// Whether `got` matches `recorded` ([`differences`] is empty), without building the
/// differences: the replay asks this of every recorded interaction of a request's method.
pub(crate) fn matches(recorded: &Value, got: &Value, ignore: &[String]) -> bool {
    let mut at = String::new();
    same(or_empty(recorded), or_empty(got), &mut at, ignore)
}

static EMPTY: std::sync::LazyLock<Value> =
    std::sync::LazyLock::new(|| Value::Object(Default::default()));

/// Absent params and `{}` say the same.
fn or_empty(value: &Value) -> &Value {
    if value.is_null() { &EMPTY } else { value }
}

/// [`compare`] that stops at the first difference, with one pointer buffer for the walk.
fn same(recorded: &Value, got: &Value, at: &mut String, ignore: &[String]) -> bool {
    if recorded.as_str() == Some(MASK) || ignored(at, ignore) {
        return true;
    }
    match (recorded, got) {
        (Value::Object(r), Value::Object(g)) => {
            let len = at.len();
            let mut member = |key: &str, a: Option<&Value>, b: Option<&Value>| {
                at.push('/');
                at.push_str(&escape(key));
                let ok = match (a, b) {
                    (Some(a), Some(b)) => same(a, b, at, ignore),
                    _ => ignored(at, ignore),
                };
                at.truncate(len);
                ok
            };
            r.iter()
                .all(|(key, value)| member(key, Some(value), g.get(key)))
                && g.iter()
                    .filter(|(key, _)| !r.contains_key(*key))
                    .all(|(key, value)| member(key, None, Some(value)))
        }
        (Value::Array(r), Value::Array(g)) if r.len() == g.len() => {
            let len = at.len();
            r.iter().zip(g).enumerate().all(|(n, (a, b))| {
                at.push('/');
                at.push_str(&n.to_string());
                let ok = same(a, b, at, ignore);
                at.truncate(len);
                ok
            })
        }
        (a, b) => a == b,
    }
}

fn ignored(pointer: &str, ignore: &[String]) -> bool {
    pointer == "/_meta"
        || ignore.iter().any(|p| {
            pointer == p || (pointer.starts_with(p.as_str()) && pointer[p.len()..].starts_with('/'))
        })
}

fn compare(
    recorded: &Value,
    got: &Value,
    at: String,
    ignore: &[String],
    out: &mut Vec<Difference>,
) {
    if ignored(&at, ignore) || recorded.as_str() == Some(MASK) {
        return;
    }
    match (recorded, got) {
        (Value::Object(r), Value::Object(g)) => {
            for (key, value) in r {
                let here = format!("{at}/{}", escape(key));
                match g.get(key) {
                    Some(other) => compare(value, other, here, ignore, out),
                    None if !ignored(&here, ignore) => out.push(Difference {
                        pointer: here,
                        recorded: Some(value.clone()),
                        got: None,
                    }),
                    None => {}
                }
            }
            for (key, value) in g.iter().filter(|(k, _)| !r.contains_key(*k)) {
                let here = format!("{at}/{}", escape(key));
                if !ignored(&here, ignore) {
                    out.push(Difference {
                        pointer: here,
                        recorded: None,
                        got: Some(value.clone()),
                    });
                }
            }
        }
        (Value::Array(r), Value::Array(g)) if r.len() == g.len() => {
            for (n, (a, b)) in r.iter().zip(g).enumerate() {
                compare(a, b, format!("{at}/{n}"), ignore, out);
            }
        }
        (a, b) if a == b => {}
        (a, b) => out.push(Difference {
            pointer: if at.is_empty() { "/".into() } else { at },
            recorded: Some(a.clone()),
            got: Some(b.clone()),
        }),
    }
}

fn escape(token: &str) -> std::borrow::Cow<'_, str> {
    if token.contains(['~', '/']) {
        token.replace('~', "~0").replace('/', "~1").into()
    } else {
        token.into()
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use serde_json::json;

    #[test]
    fn differences_name_pointers_and_skip_meta_ignored_and_redacted_values() {
        let recorded = json!({ "name": "f", "arguments": { "city": "Paris", "at": 1, "key": MASK, "a/b": [1, 2] }, "_meta": { "x": 1 } });
        let got = json!({ "name": "f", "arguments": { "city": "Oslo", "at": 2, "key": "k", "a/b": [1, 3], "extra": true } });
        let found: Vec<String> = differences(&recorded, &got, &["/arguments/at".into()])
            .iter()
            .map(ToString::to_string)
            .collect();
        assert_eq!(
            found,
            [
                r#"/arguments/city: recorded "Paris", got "Oslo""#,
                "/arguments/a~1b/1: recorded 2, got 3",
                "/arguments/extra: recorded nothing, got true",
            ]
        );
        assert!(differences(&Value::Null, &json!({}), &[]).is_empty());
        assert!(!matches(&recorded, &got, &["/arguments/at".into()]));
        let relaxed: Vec<String> = [
            "/arguments/city",
            "/arguments/at",
            "/arguments/a~1b",
            "/arguments/extra",
        ]
        .map(String::from)
        .into();
        assert!(matches(&recorded, &got, &relaxed));
        assert!(differences(&recorded, &got, &relaxed).is_empty());
    }
}
