//! A tool's alternative answers: responses chosen by conditions on the call's arguments,
//! consumed in order when they are counted, with the tool's own template as the fallback.

use serde::{Deserialize, Serialize};
use serde_json::Value;

use super::fault::{Delay, Fault};

/// A condition on a `tools/call`'s `arguments`. Pointers are JSON pointers (RFC 6901) into
/// the arguments object: `/city`, `/filters/0/name`; `""` is the whole object.
///
/// In Rust, [`matchers`](crate::matchers) builds them; in `servers.json` each is an object
/// with one member named after its kind.
///
/// # Example
/// ```
/// use mcp_decoy::spec::Matcher;
/// use mcp_decoy::matchers::{all, arg};
/// use serde_json::json;
///
/// let when = all([arg("city").eq("Paris"), arg("days").gt(3)]);
/// assert_eq!(
///     serde_json::to_value(&when).unwrap(),
///     json!({ "all": [
///         { "equals": { "pointer": "/city", "value": "Paris" } },
///         { "compare": { "pointer": "/days", "op": "gt", "value": 3.0 } }
///     ] })
/// );
/// let parsed: Matcher = serde_json::from_value(json!({ "present": "/token" })).unwrap();
/// assert_eq!(parsed, arg("token").present());
/// ```
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
#[cfg_attr(feature = "decoy-cli", derive(schemars::JsonSchema))]
// The schema keeps the summary; a Rust example would be noise in an editor's tooltip.
#[cfg_attr(
    feature = "decoy-cli",
    schemars(
        description = "A condition on a `tools/call`'s `arguments`: an object with one member named after its kind. Pointers are JSON pointers (RFC 6901) into the arguments object: `/city`, `/filters/0/name`; `\"\"` is the whole object."
    )
)]
#[serde(rename_all = "snake_case", deny_unknown_fields)]
#[non_exhaustive]
pub enum Matcher {
    /// The arguments object equals this value exactly.
    Arguments(Value),
    /// The value at `pointer` equals `value`.
    Equals {
        /// Where to look.
        pointer: String,
        /// The expected value.
        value: Value,
    },
    /// The value at `pointer` is a string matching the regular expression `pattern`
    /// (`regex` crate syntax, unanchored).
    Regex {
        /// Where to look.
        pointer: String,
        /// The pattern.
        pattern: String,
    },
    /// Something is at this pointer.
    Present(String),
    /// Nothing is at this pointer.
    Absent(String),
    /// The value at `pointer` is a number that compares to `value` by `op`.
    Compare {
        /// Where to look.
        pointer: String,
        /// The comparison.
        op: Comparison,
        /// The number to compare with.
        value: f64,
    },
    /// Every condition holds (true when empty).
    All(Vec<Matcher>),
    /// At least one condition holds (false when empty).
    Any(Vec<Matcher>),
    /// The condition does not hold.
    Not(Box<Matcher>),
}

/// A numeric comparison of a [`Matcher::Compare`].
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize, Deserialize)]
#[cfg_attr(feature = "decoy-cli", derive(schemars::JsonSchema))]
#[serde(rename_all = "snake_case")]
pub enum Comparison {
    /// `==`
    Eq,
    /// `!=`
    Ne,
    /// `>`
    Gt,
    /// `>=`
    Ge,
    /// `<`
    Lt,
    /// `<=`
    Le,
}

/// One alternative answer of a tool. The first response whose `when` holds and that is not
/// used up answers the call; when none does, the tool's own template answers. The fixture's
/// [`Response`](crate::ToolResponse) builds one.
///
/// # Example
/// ```
/// use mcp_decoy::spec::ResponseSpec;
/// use serde_json::json;
///
/// // Two failures, as `servers.json` stores them.
/// let spec: ResponseSpec = serde_json::from_value(json!({
///     "times": 2,
///     "fault": { "kind": "error", "code": -32603, "message": "backend unavailable" }
/// }))
/// .unwrap();
/// assert_eq!(spec.times, Some(2));
/// ```
#[derive(Debug, Clone, Default, PartialEq, Serialize, Deserialize)]
#[cfg_attr(feature = "decoy-cli", derive(schemars::JsonSchema))]
#[cfg_attr(
    feature = "decoy-cli",
    schemars(
        description = "One alternative answer of a tool. The first response whose `when` holds and that is not used up answers the call; when none does, the tool's own template answers."
    )
)]
#[serde(rename_all = "camelCase", deny_unknown_fields)]
pub struct ResponseSpec {
    /// The condition; every call matches when `None`.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub when: Option<Matcher>,
    /// How many calls this response answers before it is used up; unlimited when `None`.
    /// Responses with a count, in order, make a sequence.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub times: Option<u64>,
    /// The json-e template of the `CallToolResult`; the tool's template when `None`.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub result: Option<Value>,
    /// What goes wrong instead of the result (a JSON-RPC error, an HTTP status, ...).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub fault: Option<Fault>,
    /// A pause before the answer.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub delay: Option<Delay>,
}
