//! `auth/wif-jwt-bearer`: workload identity federation (SEP-1933, extension
//! `io.modelcontextprotocol/auth/wif`). The client trades a workload JWT its platform issued
//! for an access token with the RFC 7523 `jwt-bearer` grant, and gives up on a refusal
//! (no retry, no other grant), as the suite's `wif-jwt-bearer.ts` grades it. The fixture's
//! authorization server trusts the scenario's identity provider and verifies the assertion;
//! the checks read its answers.

use std::sync::OnceLock;
use std::time::{SystemTime, UNIX_EPOCH};

use serde_json::{Value, json};

use super::{Layout, Rules, judge};
use crate::grade::check::{Check, CheckStatus};
use crate::log::{Log, TokenRequest};
use crate::oauth::{AuthScenario, OAuth, SigningKey};
use crate::{MockMcpServer, MockMcpServerBuilder, ProtocolVersion};

const GRANT: &str = "urn:ietf:params:oauth:grant-type:jwt-bearer";
/// The scenario's identity provider, the workload it vouches for, and the client's id.
const ISSUER: &str = "https://idp.conformance-test.local";
const SUBJECT: &str = "conformance-workload";
const CLIENT_ID: &str = "conformance-wif-workload";

mod refs {
    use crate::grade::check::SpecReference;

    pub(super) fn jwt_bearer() -> SpecReference {
        SpecReference::new(
            "RFC-7523-JWT-Bearer-Grant",
            "https://datatracker.ietf.org/doc/html/rfc7523",
        )
    }

    pub(super) fn sep_1933() -> SpecReference {
        SpecReference::new(
            "SEP-1933-Workload-Identity-Federation",
            "https://github.com/modelcontextprotocol/modelcontextprotocol/pull/1933",
        )
    }
}

/// The identity provider's key: made once per process, as the suite makes one per run.
fn platform() -> &'static SigningKey {
    static KEY: OnceLock<SigningKey> = OnceLock::new();
    KEY.get_or_init(SigningKey::generate)
}

pub(crate) fn server() -> MockMcpServerBuilder {
    super::server_with(
        // A scope it does not offer is refused (`invalid_scope`), as the suite's refuses the
        // two its broken clients ask for to be turned down.
        OAuth::preset(AuthScenario::TokenEndpointAuthNone)
            .scopes_supported(["mcp:basic"])
            .dynamic_registration(false)
            .jwt_bearer_issuer(ISSUER, platform().public_jwk())
            .pre_registered_client(CLIENT_ID, None, Vec::<String>::new()),
    )
}

/// A workload JWT as the platform would issue it, living `lifetime` seconds from now.
fn workload_jwt(audience: &str, lifetime: i64) -> String {
    let now = SystemTime::now()
        .duration_since(UNIX_EPOCH)
        .map_or(0, |d| d.as_secs() as i64);
    let mut jti = [0u8; 16];
    // A fixed id only costs uniqueness, which nothing here checks.
    let _ = getrandom::fill(&mut jti);
    let jti: String = jti.iter().map(|b| format!("{b:02x}")).collect();
    platform().sign(
        None,
        &json!({
            "iss": ISSUER, "sub": SUBJECT, "aud": audience,
            "iat": now, "exp": now + lifetime, "jti": jti,
        }),
    )
}

/// The client's id and the workload JWTs the suite hands over: a valid one, one for another
/// audience, one expired a minute ago.
pub(crate) fn context(server: &MockMcpServer) -> Option<Value> {
    let issuer = server.oauth().issuer();
    Some(json!({
        "client_id": CLIENT_ID,
        "valid_jwt": workload_jwt(&issuer, 300),
        "wrong_audience_jwt": workload_jwt("https://wrong.example", 300),
        "expired_jwt": workload_jwt(&issuer, -60),
    }))
}

fn check(id: &str, name: &str, description: &str, status: CheckStatus) -> Check {
    Check::new(id, name, description, status, refs::jwt_bearer())
        .cited_by(vec![refs::jwt_bearer(), refs::sep_1933()])
}

#[derive(Default)]
struct Wif {
    requested: bool,
    failed_once: bool,
}

impl Rules for Wif {
    fn on_token(&mut self, request: &TokenRequest, _: Option<&str>, checks: &mut Vec<Check>) {
        let grant = request.grant_type().unwrap_or("undefined");
        if self.requested && self.failed_once {
            checks.push(if grant == GRANT {
                check(
                    "wif-no-retry",
                    "WifNoRetry",
                    "Client retried JWT-bearer token request after a failure instead of giving up",
                    CheckStatus::Warning,
                )
            } else {
                check(
                    "wif-grant-fallback",
                    "WifGrantFallback",
                    &format!(
                        "Client fell back to {grant} grant after a JWT-bearer token request was rejected; clients should not switch grant types after a JWT-bearer failure"
                    ),
                    CheckStatus::Warning,
                )
            });
            return;
        }
        self.requested = true;
        if grant != GRANT {
            self.failed_once = true;
            checks.push(check(
                "wif-grant-type",
                "WifGrantType",
                &format!("Expected grant_type={GRANT}, got {grant}"),
                CheckStatus::Failure,
            ));
            return;
        }
        if request.param("assertion").is_none_or(str::is_empty) {
            self.failed_once = true;
            checks.push(check(
                "wif-assertion-missing",
                "WifAssertionMissing",
                "Missing assertion parameter in JWT-bearer token request",
                CheckStatus::Failure,
            ));
            return;
        }
        self.failed_once |= !request.succeeded();
        // The server verified the assertion: `invalid_grant` is its refusal of the JWT (its
        // description says which claim), anything else a refusal of the rest.
        if request.error.as_deref() != Some("invalid_grant") {
            checks.push(check(
                "wif-assertion-verified",
                "WifAssertionVerified",
                "Workload JWT assertion verified — signature, audience, and expiry are valid (iss not validated; keypair is run-scoped)",
                CheckStatus::Success,
            ));
            return;
        }
        let why = request.error_description.clone().unwrap_or_default();
        let (id, name, description) = if why.contains("`aud`") {
            (
                "wif-assertion-audience",
                "WifAssertionAudience",
                format!("JWT-bearer assertion audience claim is invalid: {why}"),
            )
        } else if why.contains("expired") {
            (
                "wif-assertion-expired",
                "WifAssertionExpired",
                format!("JWT-bearer assertion is expired: {why}"),
            )
        } else {
            (
                "wif-assertion-malformed",
                "WifAssertionMalformed",
                format!("JWT-bearer assertion is malformed or has an invalid signature: {why}"),
            )
        };
        checks.push(check(id, name, &description, CheckStatus::Failure));
    }

    fn finish(&mut self, checks: &mut Vec<Check>) {
        if !self.requested {
            checks.push(check(
                "wif-assertion-verified",
                "WifAssertionVerified",
                "Client did not make a JWT-bearer token request",
                CheckStatus::Failure,
            ));
        }
    }
}

pub(crate) fn checks(log: &Log, version: ProtocolVersion) -> Vec<Check> {
    judge(log, version, &Layout::DEFAULT, &mut Wif::default())
}
