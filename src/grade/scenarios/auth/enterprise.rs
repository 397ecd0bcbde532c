//! `auth/enterprise-managed-authorization`: Enterprise-Managed Authorization (SEP-990,
//! extension `io.modelcontextprotocol/enterprise-managed-authorization`). The client trades
//! the enterprise identity provider's ID token for an ID-JAG (RFC 8693 token exchange at the
//! identity provider), then the ID-JAG for an access token (RFC 7523 `jwt-bearer` grant at
//! the authorization server, as itself with `client_secret_basic`), as the suite's
//! `enterprise-managed-authorization.ts` grades it. The fixture serves the identity provider
//! beside its authorization server and verifies both steps; the checks read their answers.

use serde_json::{Value, json};

use super::{Layout, Rules, backfill, client_auth::basic_credentials, judge, jwt_part};
use crate::grade::check::{Check, CheckStatus};
use crate::log::{HttpExchange, Log, TokenRequest};
use crate::oauth::{AuthScenario, OAuth};
use crate::{MockMcpServer, MockMcpServerBuilder, ProtocolVersion};

const CLIENT_ID: &str = "conformance-test-xaa-client";
const CLIENT_SECRET: &str = "conformance-test-xaa-secret";
const IDP_CLIENT_ID: &str = "conformance-test-idp-client";
const USER: &str = "demo-user@example.com";
const TOKEN_EXCHANGE: &str = "urn:ietf:params:oauth:grant-type:token-exchange";
const JWT_BEARER: &str = "urn:ietf:params:oauth:grant-type:jwt-bearer";

mod refs {
    use crate::grade::check::SpecReference;

    pub(super) fn token_exchange() -> SpecReference {
        SpecReference::new(
            "RFC-8693-Token-Exchange",
            "https://datatracker.ietf.org/doc/html/rfc8693",
        )
    }

    pub(super) fn sep_990() -> SpecReference {
        SpecReference::new(
            "SEP-990-Enterprise-Managed-OAuth",
            "https://github.com/modelcontextprotocol/ext-auth/blob/main/specification/draft/enterprise-managed-authorization.mdx",
        )
    }

    pub(super) fn jwt_bearer() -> SpecReference {
        SpecReference::new(
            "RFC-7523-JWT-Bearer-Grant",
            "https://datatracker.ietf.org/doc/html/rfc7523",
        )
    }
}

pub(crate) fn server() -> MockMcpServerBuilder {
    super::server_with(
        OAuth::preset(AuthScenario::TokenEndpointAuthBasic)
            .pre_registered_client(CLIENT_ID, Some(CLIENT_SECRET), Vec::<String>::new())
            .identity_provider(IDP_CLIENT_ID, CLIENT_ID),
    )
}

/// The client's credentials at both servers, the user's ID token and where to trade it.
pub(crate) fn context(server: &MockMcpServer) -> Option<Value> {
    let oauth = server.oauth();
    let idp = oauth.identity_provider_issuer()?;
    Some(json!({
        "client_id": CLIENT_ID,
        "client_secret": CLIENT_SECRET,
        "idp_client_id": IDP_CLIENT_ID,
        "idp_id_token": oauth.id_token(USER)?,
        "idp_issuer": idp,
        "idp_token_endpoint": format!("{idp}/token"),
    }))
}

/// The last backquoted word of `text` (the expected value the authorization server names).
fn last_quoted(text: &str) -> &str {
    text.rsplit('`').nth(1).unwrap_or_default()
}

fn shown(value: Option<&Value>) -> String {
    match value {
        Some(Value::String(text)) => text.clone(),
        None | Some(Value::Null) => "undefined".into(),
        Some(other) => other.to_string(),
    }
}

struct Enterprise;

impl Enterprise {
    fn exchange(request: &TokenRequest) -> Check {
        let check = |description: &str, status, refs: Vec<_>| {
            Check::new(
                "complete-flow-token-exchange",
                "CompleteFlowTokenExchange",
                description,
                status,
                refs::token_exchange(),
            )
            .cited_by(refs)
        };
        let grant = request.grant_type().unwrap_or("undefined");
        if grant != TOKEN_EXCHANGE {
            return check(
                &format!("IdP expected token-exchange grant, got {grant}"),
                CheckStatus::Failure,
                vec![refs::token_exchange()],
            );
        }
        let mut missing = Vec::new();
        if request.param("subject_token").is_none_or(str::is_empty) {
            missing.push("subject_token".to_string());
        }
        for (name, expected) in [
            (
                "subject_token_type",
                "urn:ietf:params:oauth:token-type:id_token",
            ),
            (
                "requested_token_type",
                "urn:ietf:params:oauth:token-type:id-jag",
            ),
        ] {
            let given = request.param(name);
            if given != Some(expected) {
                missing.push(format!(
                    "{name} (expected {expected}, got {})",
                    given.filter(|g| !g.is_empty()).unwrap_or("missing")
                ));
            }
        }
        for name in ["audience", "resource"] {
            if request.param(name).is_none_or(str::is_empty) {
                missing.push(name.to_string());
            }
        }
        let both = vec![refs::token_exchange(), refs::sep_990()];
        if !missing.is_empty() {
            return check(
                &format!(
                    "Token exchange missing or invalid required parameters: {}",
                    missing.join(", ")
                ),
                CheckStatus::Failure,
                both,
            );
        }
        if request.succeeded() {
            return check(
                "Successfully exchanged IDP ID token for ID-JAG at IdP with all required parameters",
                CheckStatus::Success,
                both,
            );
        }
        check(
            &format!(
                "Token exchange failed: {}",
                request.error_description.as_deref().unwrap_or("refused")
            ),
            CheckStatus::Failure,
            vec![refs::token_exchange()],
        )
    }
}

impl Rules for Enterprise {
    fn observe(
        &mut self,
        exchange: &HttpExchange,
        token: Option<&TokenRequest>,
        checks: &mut Vec<Check>,
    ) -> bool {
        if !exchange.path.contains("/idp/") {
            return false;
        }
        checks.extend(token.map(Self::exchange));
        true
    }

    fn on_token(
        &mut self,
        request: &TokenRequest,
        authorization: Option<&str>,
        checks: &mut Vec<Check>,
    ) {
        if request.grant_type() != Some(JWT_BEARER) {
            return;
        }
        let check = |description: String, status, reference| {
            Check::new(
                "complete-flow-jwt-bearer",
                "CompleteFlowJwtBearer",
                &description,
                status,
                reference,
            )
        };
        let failure =
            |description: String| check(description, CheckStatus::Failure, refs::sep_990());
        let Some(authorization) = authorization.filter(|a| a.starts_with("Basic ")) else {
            checks.push(
                failure(
                    "Missing or invalid Authorization header for client_secret_basic authentication"
                        .into(),
                )
                .details(json!({
                    "expected": "Authorization: Basic <base64(client_id:client_secret)>",
                    "received": authorization.unwrap_or("missing"),
                })),
            );
            return;
        };
        let credentials = basic_credentials(authorization);
        let Some((id, secret)) = credentials.split_once(':') else {
            checks.push(failure(
                "Malformed Basic auth header (no colon separator)".into(),
            ));
            return;
        };
        let decode = |part: &str| {
            form_urlencoded::parse(format!("v={}", part.replace('+', "%2B")).as_bytes())
                .next()
                .map(|(_, v)| v.into_owned())
                .unwrap_or_default()
        };
        let (id, secret) = (decode(id), decode(secret));
        if id != CLIENT_ID || secret != CLIENT_SECRET {
            checks.push(failure(format!(
                "Client authentication failed: invalid credentials (client_id: {id})"
            )));
            return;
        }
        let Some(assertion) = request.param("assertion").filter(|a| !a.is_empty()) else {
            checks.push(check(
                "Missing assertion in JWT bearer grant".into(),
                CheckStatus::Failure,
                refs::jwt_bearer(),
            ));
            return;
        };
        if request.succeeded() {
            checks.push(
                check(
                    "Successfully verified client auth, ID-JAG claims, and exchanged for access token"
                        .into(),
                    CheckStatus::Success,
                    refs::jwt_bearer(),
                )
                .cited_by(vec![refs::jwt_bearer(), refs::sep_990()]),
            );
            return;
        }
        let why = request.error_description.clone().unwrap_or_default();
        let header = jwt_part(assertion, 0).unwrap_or_default();
        let claims = jwt_part(assertion, 1).unwrap_or_default();
        let typ = header.get("typ");
        if typ.and_then(Value::as_str) != Some("oauth-id-jag+jwt") && !header.is_empty() {
            checks.push(failure(format!(
                "ID-JAG has wrong typ header: expected oauth-id-jag+jwt, got {}",
                shown(typ)
            )));
        } else if why.contains("`client_id`") {
            checks.push(
                failure(format!(
                    "ID-JAG client_id ({}) does not match authenticating client ({id})",
                    shown(claims.get("client_id"))
                ))
                .details(json!({ "jagClientId": claims.get("client_id"), "authClientId": id })),
            );
        } else if why.contains("`resource`") {
            let expected = last_quoted(&why);
            checks.push(
                failure(format!(
                    "ID-JAG resource ({}) does not match MCP server resource ({expected})",
                    shown(claims.get("resource"))
                ))
                .details(
                    json!({ "jagResource": claims.get("resource"), "expectedResource": expected }),
                ),
            );
        } else {
            checks.push(check(
                format!("JWT bearer grant failed: {why}"),
                CheckStatus::Failure,
                refs::jwt_bearer(),
            ));
        }
    }

    fn finish(&mut self, checks: &mut Vec<Check>) {
        let both = || vec![refs::token_exchange(), refs::sep_990()];
        backfill(checks, "complete-flow-token-exchange", || {
            Check::new(
                "complete-flow-token-exchange",
                "CompleteFlowTokenExchange",
                "Client did not perform token exchange",
                CheckStatus::Failure,
                refs::token_exchange(),
            )
            .cited_by(both())
        });
        backfill(checks, "complete-flow-jwt-bearer", || {
            Check::new(
                "complete-flow-jwt-bearer",
                "CompleteFlowJwtBearer",
                "Client did not perform JWT bearer grant exchange",
                CheckStatus::Failure,
                refs::jwt_bearer(),
            )
            .cited_by(vec![refs::jwt_bearer(), refs::sep_990()])
        });
    }
}

pub(crate) fn checks(log: &Log, version: ProtocolVersion) -> Vec<Check> {
    judge(log, version, &Layout::DEFAULT, &mut Enterprise)
}
