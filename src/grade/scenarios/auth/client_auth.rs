//! `auth/token-endpoint-auth-{basic,post,none}`, `auth/pre-registration` and
//! `auth/basic-cimd`: how the client authenticates at the token endpoint, and which identity
//! it presents (the suite's `token-endpoint-auth.ts`, `pre-registration.ts` and
//! `basic-cimd.ts`).

use base64::Engine as _;
use serde_json::{Value, json};

use super::{Layout, Rules, backfill, judge, refs};
use crate::MockMcpServer;
use crate::ProtocolVersion;
use crate::grade::check::{Check, CheckStatus};
use crate::log::{AuthorizeRequest, Log, TokenRequest};
use crate::oauth::AuthScenario;

/// The method the suite sees: a `Basic` header, else a `client_secret` in the body.
fn used_method(authorization: Option<&str>, request: &TokenRequest) -> &'static str {
    if authorization.is_some_and(|a| a.starts_with("Basic ")) {
        "client_secret_basic"
    } else if request
        .param("client_secret")
        .is_some_and(|s| !s.is_empty())
    {
        "client_secret_post"
    } else {
        "none"
    }
}

fn method_name(method: &str) -> &'static str {
    match method {
        "client_secret_basic" => "HTTP Basic authentication (client_secret_basic)",
        "client_secret_post" => "client_secret_post",
        _ => "no authentication (public client)",
    }
}

/// `Basic base64(id:secret)`, decoded as Node's lenient base64 does.
pub(super) fn basic_credentials(authorization: &str) -> String {
    let encoded = authorization
        .get("Basic ".len()..)
        .unwrap_or_default()
        .trim();
    let lenient = base64::engine::GeneralPurpose::new(
        &base64::alphabet::STANDARD,
        base64::engine::GeneralPurposeConfig::new()
            .with_decode_padding_mode(base64::engine::DecodePaddingMode::Indifferent)
            .with_decode_allow_trailing_bits(true),
    );
    let bytes = lenient
        .decode(encoded.trim_end_matches('='))
        .unwrap_or_default();
    String::from_utf8_lossy(&bytes).into_owned()
}

struct TokenEndpointAuth {
    expected: &'static str,
}

impl Rules for TokenEndpointAuth {
    fn on_token(
        &mut self,
        request: &TokenRequest,
        authorization: Option<&str>,
        checks: &mut Vec<Check>,
    ) {
        let actual = used_method(authorization, request);
        let format_error = authorization
            .filter(|_| actual == "client_secret_basic")
            .filter(|a| !basic_credentials(a).contains(':'))
            .map(|_| "missing colon separator");
        let correct = actual == self.expected;
        let description = match format_error {
            Some(error) => format!("Client sent Basic auth header but {error}"),
            None if correct => format!(
                "Client correctly used {} for token endpoint",
                method_name(self.expected)
            ),
            None => format!(
                "Client used {actual} but server only supports {}",
                self.expected
            ),
        };
        let mut details = json!({
            "expectedAuthMethod": self.expected,
            "actualAuthMethod": actual,
            "hasAuthorizationHeader": authorization.is_some(),
            "hasBodyClientSecret": request.param("client_secret").is_some_and(|s| !s.is_empty())
        });
        if let Some(error) = format_error {
            details["formatError"] = json!(error);
        }
        checks.push(
            Check::new(
                "token-endpoint-auth-method",
                "Token endpoint authentication method",
                &description,
                super::pass(correct && format_error.is_none()),
                refs::oauth_token(),
            )
            .details(details),
        );
    }

    fn finish(&mut self, checks: &mut Vec<Check>) {
        backfill(checks, "token-endpoint-auth-method", || {
            Check::new(
                "token-endpoint-auth-method",
                "Token endpoint authentication method",
                "Client did not make a token request",
                CheckStatus::Failure,
                refs::oauth_token(),
            )
        });
    }

    fn checks_resource(&self) -> bool {
        true
    }
}

fn token_auth(log: &Log, version: ProtocolVersion, expected: &'static str) -> Vec<Check> {
    let mut rules = TokenEndpointAuth { expected };
    judge(log, version, &Layout::DEFAULT, &mut rules)
}

pub(crate) fn token_auth_basic_checks(log: &Log, version: ProtocolVersion) -> Vec<Check> {
    token_auth(log, version, "client_secret_basic")
}

pub(crate) fn token_auth_post_checks(log: &Log, version: ProtocolVersion) -> Vec<Check> {
    token_auth(log, version, "client_secret_post")
}

pub(crate) fn token_auth_none_checks(log: &Log, version: ProtocolVersion) -> Vec<Check> {
    token_auth(log, version, "none")
}

struct PreRegistration;

impl Rules for PreRegistration {
    fn on_token(&mut self, _: &TokenRequest, authorization: Option<&str>, checks: &mut Vec<Check>) {
        let check = |description: &str, ok: bool| {
            Check::new(
                "pre-registration-auth",
                "Pre-registration authentication",
                description,
                super::pass(ok),
                refs::mcp_preregistration(),
            )
        };
        let Some(authorization) = authorization.filter(|a| a.starts_with("Basic ")) else {
            checks.push(check(
                "Client did not use Basic authentication with pre-registered credentials",
                false,
            ));
            return;
        };
        let credentials = basic_credentials(authorization);
        let mut parts = credentials.split(':');
        let id = parts.next().unwrap_or_default();
        let secret = parts.next().unwrap_or_default();
        if id == AuthScenario::PRE_REGISTERED_CLIENT_ID
            && secret == AuthScenario::PRE_REGISTERED_CLIENT_SECRET
        {
            checks.push(
                check(
                    "Client correctly used pre-registered credentials when server does not \
                     support DCR",
                    true,
                )
                .details(json!({ "clientId": id })),
            );
        } else {
            checks.push(
                check(
                    &format!(
                        "Client used incorrect pre-registered credentials. Expected client_id \
                         '{}', got '{id}'",
                        AuthScenario::PRE_REGISTERED_CLIENT_ID
                    ),
                    false,
                )
                .details(json!({
                    "expectedClientId": AuthScenario::PRE_REGISTERED_CLIENT_ID,
                    "actualClientId": id
                })),
            );
        }
    }

    fn finish(&mut self, checks: &mut Vec<Check>) {
        backfill(checks, "pre-registration-auth", || {
            Check::new(
                "pre-registration-auth",
                "Pre-registration authentication",
                "Client did not make a token request",
                CheckStatus::Failure,
                refs::mcp_preregistration(),
            )
        });
    }
}

pub(crate) fn pre_registration_checks(log: &Log, version: ProtocolVersion) -> Vec<Check> {
    judge(log, version, &Layout::DEFAULT, &mut PreRegistration)
}

/// The credentials the client is to use, as the suite hands them over.
pub(crate) fn pre_registration_context(_: &MockMcpServer) -> Option<Value> {
    Some(json!({
        "client_id": AuthScenario::PRE_REGISTERED_CLIENT_ID,
        "client_secret": AuthScenario::PRE_REGISTERED_CLIENT_SECRET
    }))
}

/// The suite's client metadata URL is the `client_id` of the authorization request.
struct MetadataDocument;

fn cimd_check(description: &str, status: CheckStatus) -> Check {
    super::cited(
        Check::new(
            "cimd-client-id-used",
            "Client ID Metadata Document Usage",
            description,
            status,
            refs::mcp_client_id_metadata_documents(),
        ),
        refs::ietf_cimd(),
    )
}

impl Rules for MetadataDocument {
    fn on_authorize(&mut self, request: &AuthorizeRequest, checks: &mut Vec<Check>) {
        let client_id = request.param("client_id");
        let used = client_id == Some(AuthScenario::CLIENT_METADATA_URL);
        let check = if used {
            cimd_check(
                "Client correctly used URL-based client ID when server supports \
                 client_id_metadata_document_supported",
                CheckStatus::Success,
            )
        } else {
            cimd_check(
                "Client SHOULD use URL-based client ID when server advertises \
                 client_id_metadata_document_supported=true",
                CheckStatus::Warning,
            )
        };
        checks.push(check.details(json!({
            "expectedClientId": AuthScenario::CLIENT_METADATA_URL,
            "actualClientId": client_id.filter(|id| !id.is_empty()).unwrap_or("none")
        })));
    }

    fn finish(&mut self, checks: &mut Vec<Check>) {
        backfill(checks, "cimd-client-id-used", || {
            cimd_check(
                "Client did not make an authorization request to test CIMD support",
                CheckStatus::Failure,
            )
        });
    }
}

pub(crate) fn basic_cimd_checks(log: &Log, version: ProtocolVersion) -> Vec<Check> {
    judge(log, version, &Layout::DEFAULT, &mut MetadataDocument)
}
