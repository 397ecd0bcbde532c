//! The suite's frozen requirement sets (`requirements/REVISION.yaml` of
//! `@modelcontextprotocol/conformance` 0.2.0-alpha.12), client leg: which client scenarios
//! conformance to a revision requires, and which it runs and reports without scoring.

use crate::ProtocolVersion;

/// What conforming to one spec revision requires of a client, frozen as the suite froze it.
///
/// ```
/// use mcp_decoy::ProtocolVersion;
/// use mcp_decoy::grade::Requirements;
///
/// let required = Requirements::of(ProtocolVersion::V2026_07_28).expect("a frozen set");
/// assert!(required.scored().contains(&"request-metadata"));
/// assert!(required.not_scored().iter().any(|(name, reason)| {
///     *name == "auth/dpop" && *reason == "extension"
/// }));
/// assert!(Requirements::of(ProtocolVersion::V2025_06_18).is_none());
/// ```
#[derive(Debug, Clone, Copy)]
pub struct Requirements {
    revision: ProtocolVersion,
}

/// The same in both sets: the extensions (SEP-1730 requires them for no tier) and a
/// scenario added after the release the sets were frozen from.
const NOT_SCORED: [(&str, &str); 7] = [
    ("auth/client-credentials-jwt", "extension"),
    ("auth/client-credentials-basic", "extension"),
    ("auth/enterprise-managed-authorization", "extension"),
    ("auth/dpop", "extension"),
    ("auth/dpop-nonce", "extension"),
    ("auth/wif-jwt-bearer", "extension"),
    ("json-schema-2020-12-preservation", "added-after-release"),
];

/// The authorization scenarios both revisions require.
macro_rules! auth_core {
    ($($more:literal),* $(,)?) => {
        &[
            "auth/metadata-default",
            "auth/metadata-var1",
            "auth/metadata-var2",
            "auth/metadata-var3",
            "auth/basic-cimd",
            "auth/scope-from-www-authenticate",
            "auth/scope-from-scopes-supported",
            "auth/scope-omitted-when-undefined",
            "auth/scope-step-up",
            "auth/scope-retry-limit",
            "auth/token-endpoint-auth-basic",
            "auth/token-endpoint-auth-post",
            "auth/token-endpoint-auth-none",
            "auth/pre-registration",
            $($more),*
        ]
    };
}

const V2025_11_25_AUTH: &[&str] = auth_core!();
const V2026_07_28_AUTH: &[&str] = auth_core!(
    "auth/resource-mismatch",
    "auth/offline-access-scope",
    "auth/offline-access-not-supported",
    "auth/authorization-server-migration",
    "auth/iss-supported",
    "auth/iss-not-advertised",
    "auth/iss-supported-missing",
    "auth/iss-wrong-issuer",
    "auth/iss-unexpected",
    "auth/iss-normalized",
    "auth/metadata-issuer-mismatch",
);

const V2025_11_25_CLIENT: &[&str] = &[
    "initialize",
    "tools_call",
    "elicitation-sep1034-client-defaults",
    "sse-retry",
];
const V2026_07_28_CLIENT: &[&str] = &["tools_call", "request-metadata"];
const V2026_07_28_AFTER: &[&str] = &[
    "sep-2322-client-request-state",
    "http-standard-headers",
    "http-custom-headers",
    "http-invalid-tool-headers",
    "json-schema-ref-no-deref",
];

impl Requirements {
    /// The revisions with a frozen set: 2025-11-25 and 2026-07-28.
    pub const REVISIONS: [ProtocolVersion; 2] =
        [ProtocolVersion::V2025_11_25, ProtocolVersion::V2026_07_28];

    /// The frozen set of `revision`, if the suite froze one.
    pub fn of(revision: ProtocolVersion) -> Option<Requirements> {
        Self::REVISIONS
            .contains(&revision)
            .then_some(Requirements { revision })
    }

    /// The revision, which every scenario of the set runs at.
    pub fn revision(&self) -> ProtocolVersion {
        self.revision
    }

    /// The scenarios conformance requires, in the suite's order.
    pub fn scored(&self) -> Vec<&'static str> {
        let parts: [&[&str]; 3] = match self.revision {
            ProtocolVersion::V2026_07_28 => {
                [V2026_07_28_CLIENT, V2026_07_28_AUTH, V2026_07_28_AFTER]
            }
            _ => [V2025_11_25_CLIENT, V2025_11_25_AUTH, &[]],
        };
        parts.into_iter().flatten().copied().collect()
    }

    /// The scenarios run and reported but never scored, each with the suite's reason
    /// (`extension`, `added-after-release`).
    pub fn not_scored(&self) -> &'static [(&'static str, &'static str)] {
        &NOT_SCORED
    }
}
