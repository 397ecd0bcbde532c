//! [`ProtocolVersion`]: the revisions this crate serves, re-exported at the crate root.

use serde::{Deserialize, Serialize};

/// A protocol revision this crate can serve.
///
/// The legacy era (2025-03-26, 2025-06-18, 2025-11-25) opens a session with `initialize`;
/// the modern era (2026-07-28) is stateless.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash, PartialOrd, Ord, Serialize, Deserialize)]
#[cfg_attr(feature = "decoy-cli", derive(schemars::JsonSchema))]
#[non_exhaustive]
pub enum ProtocolVersion {
    /// `2025-03-26`: the first Streamable HTTP revision; JSON-RPC batches allowed.
    #[serde(rename = "2025-03-26")]
    V2025_03_26,
    /// `2025-06-18`: batches removed, `MCP-Protocol-Version` header introduced.
    #[serde(rename = "2025-06-18")]
    V2025_06_18,
    /// `2025-11-25`: the newest legacy revision.
    #[serde(rename = "2025-11-25")]
    V2025_11_25,
    /// `2026-07-28`: the modern era, stateless; each request carries its version and the
    /// client's capabilities in `_meta`.
    #[serde(rename = "2026-07-28")]
    V2026_07_28,
}

impl ProtocolVersion {
    /// Every revision this crate serves, oldest first.
    pub const ALL: [ProtocolVersion; 4] = [
        ProtocolVersion::V2025_03_26,
        ProtocolVersion::V2025_06_18,
        ProtocolVersion::V2025_11_25,
        ProtocolVersion::V2026_07_28,
    ];

    /// The wire form, `YYYY-MM-DD`.
    pub fn as_str(self) -> &'static str {
        match self {
            ProtocolVersion::V2025_03_26 => "2025-03-26",
            ProtocolVersion::V2025_06_18 => "2025-06-18",
            ProtocolVersion::V2025_11_25 => "2025-11-25",
            ProtocolVersion::V2026_07_28 => "2026-07-28",
        }
    }

    /// Parses the wire form; `None` for a revision this crate does not serve.
    pub fn parse(text: &str) -> Option<Self> {
        Self::ALL.into_iter().find(|v| v.as_str() == text)
    }

    /// Whether the revision is of the modern (stateless) era.
    pub fn is_modern(self) -> bool {
        self >= ProtocolVersion::V2026_07_28
    }

    /// Whether JSON-RPC batches (a JSON array body) are allowed; only in 2025-03-26.
    pub fn allows_batches(self) -> bool {
        self == ProtocolVersion::V2025_03_26
    }
}

impl std::fmt::Display for ProtocolVersion {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.write_str(self.as_str())
    }
}
