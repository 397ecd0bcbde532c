//! A server that replays a cassette: where the cassette is and how requests match.

use serde::{Deserialize, Deserializer, Serialize};
use serde_json::Value;

use crate::cassette::{Cassette, Matching};

/// Replays a recorded session instead of serving a catalog (`"replay"` in `servers.json`).
///
/// # Example
/// ```
/// use mcp_decoy::spec::{CassetteSource, ReplaySpec};
/// use serde_json::json;
///
/// let spec: ReplaySpec = serde_json::from_value(json!({
///     "cassette": "tests/cassettes/weather.json",
///     "matching": { "order": "strict", "ignore": ["/arguments/requestedAt"] }
/// })).unwrap();
/// assert_eq!(spec.cassette, CassetteSource::Path("tests/cassettes/weather.json".into()));
/// ```
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
#[cfg_attr(feature = "decoy-cli", derive(schemars::JsonSchema))]
#[cfg_attr(
    feature = "decoy-cli",
    schemars(
        description = "Replays a recorded session (a cassette) instead of serving the catalog."
    )
)]
#[serde(rename_all = "camelCase", deny_unknown_fields)]
#[non_exhaustive]
pub struct ReplaySpec {
    /// The cassette: a file path (relative to the working directory), or the cassette itself.
    pub cassette: CassetteSource,
    /// How requests find their interactions.
    #[serde(default, skip_serializing_if = "is_default")]
    pub matching: Matching,
}

fn is_default(matching: &Matching) -> bool {
    *matching == Matching::default()
}

impl ReplaySpec {
    /// Replays `cassette` with the default matching.
    pub fn new(cassette: CassetteSource) -> Self {
        ReplaySpec {
            cassette,
            matching: Matching::default(),
        }
    }
}

/// Where a replayed cassette comes from.
#[derive(Debug, Clone, PartialEq, Serialize)]
#[cfg_attr(feature = "decoy-cli", derive(schemars::JsonSchema))]
#[serde(untagged)]
#[non_exhaustive]
pub enum CassetteSource {
    /// A cassette file, read when the server starts.
    Path(String),
    /// The cassette itself.
    Inline(Box<Cassette>),
}

// By hand: an untagged enum's error ("did not match any variant") would hide which member
// of an inline cassette is at fault.
impl<'de> Deserialize<'de> for CassetteSource {
    fn deserialize<D: Deserializer<'de>>(deserializer: D) -> Result<Self, D::Error> {
        match Value::deserialize(deserializer)? {
            Value::String(path) => Ok(CassetteSource::Path(path)),
            value @ Value::Object(_) => Cassette::from_value(value)
                .map(|c| CassetteSource::Inline(Box::new(c)))
                .map_err(serde::de::Error::custom),
            other => Err(serde::de::Error::custom(format!(
                "expected a file path or a cassette object, got {}",
                crate::error::json_type(&other)
            ))),
        }
    }
}

impl CassetteSource {
    /// The cassette, read from its file if it has one.
    pub(crate) fn load(&self) -> Result<Cassette, crate::Error> {
        match self {
            // A file the server cannot read is the configuration's fault, not an I/O failure
            // of the app: say so naming the field.
            CassetteSource::Path(path) => Cassette::load(path).map_err(|error| match error {
                crate::Error::Io { path, source } => crate::Error::Cassette {
                    path: Some(path),
                    field: "replay.cassette".into(),
                    reason: format!("cannot be read: {source}"),
                },
                other => other,
            }),
            CassetteSource::Inline(cassette) => Ok((**cassette).clone()),
        }
    }
}
