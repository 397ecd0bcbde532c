//! `auth/client-credentials-basic` and `auth/client-credentials-jwt`: the machine-to-machine
//! grant of the extension `io.modelcontextprotocol/oauth-client-credentials` (SEP-1046), with
//! a client secret over HTTP Basic or a `private_key_jwt` assertion (RFC 7523), as the suite's
//! `client-credentials.ts` grades them. The fixture's authorization server takes the grant
//! and verifies the assertion; the checks read its answers and the claims the client sent.

use serde_json::{Value, json};

use super::{Layout, Rules, backfill, client_auth::basic_credentials, judge};
use crate::grade::check::{Check, CheckStatus};
use crate::log::{Log, TokenRequest};
use crate::oauth::{AuthScenario, OAuth};
use crate::{MockMcpServer, MockMcpServerBuilder, ProtocolVersion};

/// The client the suite's scenarios pre-register.
pub(crate) const CLIENT_ID: &str = "conformance-test-client";
/// Its secret in `auth/client-credentials-basic`.
pub(crate) const CLIENT_SECRET: &str = "conformance-test-secret";

mod refs {
    use crate::grade::check::SpecReference;

    pub(super) fn client_credentials() -> SpecReference {
        SpecReference::new(
            "OAUTH-2.1-client-credentials-grant",
            "https://www.ietf.org/archive/id/draft-ietf-oauth-v2-1-13.html#section-4.2",
        )
    }

    pub(super) fn sep_1046() -> SpecReference {
        SpecReference::new(
            "SEP-1046-Client-Credentials",
            "https://github.com/modelcontextprotocol/ext-auth/blob/main/specification/draft/oauth-client-credentials.mdx",
        )
    }

    #[cfg(feature = "oauth-jwt")]
    pub(super) fn jwt_client_auth() -> SpecReference {
        SpecReference::new(
            "RFC-7523-JWT-Client-Auth",
            "https://datatracker.ietf.org/doc/html/rfc7523#section-2.2",
        )
    }
}

/// The suite's authorization server for these scenarios: only the `client_credentials`
/// grant matters, tokens without refresh, no `resource` required.
fn oauth() -> OAuth {
    OAuth::preset(AuthScenario::TokenEndpointAuthBasic).client_credentials(true)
}

pub(crate) fn basic_server() -> MockMcpServerBuilder {
    super::server_with(oauth().pre_registered_client(
        CLIENT_ID,
        Some(CLIENT_SECRET),
        Vec::<String>::new(),
    ))
}

pub(crate) fn basic_context(_: &MockMcpServer) -> Option<Value> {
    Some(json!({ "client_id": CLIENT_ID, "client_secret": CLIENT_SECRET }))
}

/// `client-credentials-grant-type`, when the client asked for another grant.
fn grant_type_check(request: &TokenRequest) -> Option<Check> {
    let grant = request.grant_type().unwrap_or("undefined");
    (grant != "client_credentials").then(|| {
        Check::new(
            "client-credentials-grant-type",
            "ClientCredentialsGrantType",
            &format!("Expected grant_type=client_credentials, got {grant}"),
            CheckStatus::Failure,
            refs::client_credentials(),
        )
        .cited_by(vec![refs::client_credentials(), refs::sep_1046()])
    })
}

fn never_asked(id: &str, name: &str) -> Check {
    Check::new(
        id,
        name,
        "Client did not make a client_credentials token request",
        CheckStatus::Failure,
        refs::client_credentials(),
    )
    .cited_by(vec![refs::client_credentials(), refs::sep_1046()])
}

struct Basic;

impl Rules for Basic {
    fn on_token(
        &mut self,
        request: &TokenRequest,
        authorization: Option<&str>,
        checks: &mut Vec<Check>,
    ) {
        if let Some(check) = grant_type_check(request) {
            checks.push(check);
            return;
        }
        let check = |description: &str, status| {
            Check::new(
                "client-credentials-basic-auth",
                "ClientCredentialsBasicAuth",
                description,
                status,
                refs::sep_1046(),
            )
        };
        let Some(authorization) = authorization.filter(|a| a.starts_with("Basic ")) else {
            checks.push(check(
                "Missing or invalid Authorization header for Basic auth",
                CheckStatus::Failure,
            ));
            return;
        };
        let credentials = basic_credentials(authorization);
        let mut parts = credentials.split(':');
        let id = parts.next().unwrap_or_default();
        let secret = parts.next();
        if id == CLIENT_ID && secret == Some(CLIENT_SECRET) {
            checks.push(
                check(
                    "Client successfully authenticated with client_secret_basic",
                    CheckStatus::Success,
                )
                .cited_by(vec![refs::client_credentials(), refs::sep_1046()])
                .details(json!({ "clientId": id })),
            );
        } else {
            checks.push(
                check("Invalid client credentials", CheckStatus::Failure)
                    .details(json!({ "clientId": id })),
            );
        }
    }

    fn finish(&mut self, checks: &mut Vec<Check>) {
        backfill(checks, "client-credentials-basic-auth", || {
            never_asked(
                "client-credentials-basic-auth",
                "ClientCredentialsBasicAuth",
            )
        });
    }
}

pub(crate) fn basic_checks(log: &Log, version: ProtocolVersion) -> Vec<Check> {
    judge(log, version, &Layout::DEFAULT, &mut Basic)
}

/// `auth/client-credentials-jwt`: signing keys need the `oauth-jwt` feature.
#[cfg(feature = "oauth-jwt")]
pub(crate) mod jwt {
    use serde_json::{Value, json};

    use super::{
        CLIENT_ID, Layout, Rules, backfill, grant_type_check, judge, never_asked, oauth, refs,
    };
    use crate::grade::check::{Check, CheckStatus};
    use crate::log::{Log, TokenRequest};
    use crate::spec::TokenEndpointAuthMethod;
    use crate::{MockMcpServer, MockMcpServerBuilder, ProtocolVersion};

    const ASSERTION_TYPE: &str = "urn:ietf:params:oauth:client-assertion-type:jwt-bearer";

    mod key {
        use std::sync::OnceLock;

        use crate::oauth::SigningKey;

        /// The client's key: made once per process, as the suite makes one per run.
        pub(super) fn get() -> &'static SigningKey {
            static KEY: OnceLock<SigningKey> = OnceLock::new();
            KEY.get_or_init(SigningKey::generate)
        }
    }

    pub(crate) fn server() -> MockMcpServerBuilder {
        super::super::server_with(
            oauth()
                .token_endpoint_auth_methods([TokenEndpointAuthMethod::PrivateKeyJwt])
                .pre_registered_key_client(CLIENT_ID, key::get().public_jwk()),
        )
    }

    pub(crate) fn context(_: &MockMcpServer) -> Option<Value> {
        Some(json!({
            "client_id": CLIENT_ID,
            "private_key_pem": key::get().private_key_pem(),
            "signing_algorithm": "ES256",
        }))
    }

    struct Jwt;

    impl Jwt {
        fn claim_check(claims: &serde_json::Map<String, Value>, claim: &str) -> Option<Check> {
            let actual = claims.get(claim).cloned().unwrap_or(Value::Null);
            if actual == CLIENT_ID {
                return None;
            }
            let shown = match &actual {
                Value::String(text) => text.clone(),
                Value::Null => "undefined".to_string(),
                other => other.to_string(),
            };
            let (id, name) = match claim {
                "iss" => ("client-credentials-jwt-iss", "ClientCredentialsJwtIss"),
                _ => ("client-credentials-jwt-sub", "ClientCredentialsJwtSub"),
            };
            Some(
                Check::new(
                    id,
                    name,
                    &format!(
                        "JWT {claim} claim '{shown}' does not match expected client_id '{CLIENT_ID}'"
                    ),
                    CheckStatus::Failure,
                    refs::jwt_client_auth(),
                )
                .details(json!({ "expected": CLIENT_ID, "actual": actual })),
            )
        }
    }

    impl Rules for Jwt {
        fn on_token(&mut self, request: &TokenRequest, _: Option<&str>, checks: &mut Vec<Check>) {
            if let Some(check) = grant_type_check(request) {
                checks.push(check);
                return;
            }
            let assertion_type = request.param("client_assertion_type");
            if assertion_type != Some(ASSERTION_TYPE) {
                checks.push(Check::new(
                    "client-credentials-assertion-type",
                    "ClientCredentialsAssertionType",
                    &format!(
                        "Invalid client_assertion_type: {}",
                        assertion_type.unwrap_or("undefined")
                    ),
                    CheckStatus::Failure,
                    refs::jwt_client_auth(),
                ));
                return;
            }
            let verified = |description: String, status| {
                Check::new(
                    "client-credentials-jwt-verified",
                    "ClientCredentialsJwtVerified",
                    &description,
                    status,
                    refs::jwt_client_auth(),
                )
            };
            let claims = request
                .param("client_assertion")
                .and_then(|a| super::super::jwt_part(a, 1));
            // The server refused it; which claim, when the claims say.
            let wrong_claim = claims
                .as_ref()
                .filter(|_| !request.succeeded())
                .and_then(|c| Self::claim_check(c, "iss").or_else(|| Self::claim_check(c, "sub")));
            if let Some(check) = wrong_claim {
                checks.push(check);
                return;
            }
            match claims {
                Some(claims) if request.succeeded() => checks.push(
                    verified(
                        "Client successfully authenticated with signed JWT assertion".into(),
                        CheckStatus::Success,
                    )
                    .cited_by(vec![
                        refs::client_credentials(),
                        refs::sep_1046(),
                        refs::jwt_client_auth(),
                    ])
                    .details(json!({
                        "iss": claims.get("iss"),
                        "sub": claims.get("sub"),
                        "aud": claims.get("aud"),
                    })),
                ),
                _ => {
                    let why = request
                        .error_description
                        .clone()
                        .unwrap_or_else(|| "the assertion is not a JWT".into());
                    checks.push(
                        verified(
                            format!("JWT verification failed: {why}"),
                            CheckStatus::Failure,
                        )
                        .details(json!({ "error": why })),
                    );
                }
            }
        }

        fn finish(&mut self, checks: &mut Vec<Check>) {
            backfill(checks, "client-credentials-jwt-verified", || {
                never_asked(
                    "client-credentials-jwt-verified",
                    "ClientCredentialsJwtVerified",
                )
            });
        }
    }

    pub(crate) fn checks(log: &Log, version: ProtocolVersion) -> Vec<Check> {
        judge(log, version, &Layout::DEFAULT, &mut Jwt)
    }
}
