//! `auth/dpop` and `auth/dpop-nonce`: DPoP sender-constrained tokens (SEP-1932, RFC 9449,
//! extension `io.modelcontextprotocol/auth/dpop`), as the suite's `dpop.ts` grades them. The
//! client proves possession of its key at the token request, gets a DPoP-bound token and
//! presents it with the `DPoP` scheme and a fresh proof on every request; with nonces on, it
//! retries both with the server's nonce. The fixture's authorization server and resource do
//! the checking (`OAuth::dpop`); the checks read their answers and the proofs' `jti`s.

use serde_json::{Value, json};

use super::{Layout, Rules, judge, jwt_part};
use crate::grade::check::{Check, CheckStatus, SpecReference};
use crate::log::{HttpExchange, Log, TokenRequest};
use crate::oauth::{AuthScenario, OAuth};
use crate::{MockMcpServerBuilder, ProtocolVersion};

mod refs {
    use crate::grade::check::SpecReference;

    macro_rules! references {
        ($($name:ident = $id:literal, $url:literal;)*) => {
            $(pub(super) fn $name() -> SpecReference { SpecReference::new($id, $url) })*
        };
    }

    references! {
        sep_1932 = "SEP-1932-DPoP",
            "https://github.com/modelcontextprotocol/modelcontextprotocol/pull/1932";
        extension = "MCP-DPoP-Extension",
            "https://github.com/modelcontextprotocol/ext-auth/blob/pieterkas-dpop-extension/specification/draft/dpop-extension.mdx";
        auth_scheme = "RFC-9449-dpop-authentication-scheme",
            "https://www.rfc-editor.org/rfc/rfc9449.html#section-7.1";
        checking_proofs = "RFC-9449-checking-dpop-proofs",
            "https://www.rfc-editor.org/rfc/rfc9449.html#section-4.3";
        proof_syntax = "RFC-9449-dpop-proof-jwt-syntax",
            "https://www.rfc-editor.org/rfc/rfc9449.html#section-4.2";
        token_request = "RFC-9449-dpop-access-token-request",
            "https://www.rfc-editor.org/rfc/rfc9449.html#section-5";
        as_nonce = "RFC-9449-authorization-server-provided-nonce",
            "https://www.rfc-editor.org/rfc/rfc9449.html#section-8";
        rs_nonce = "RFC-9449-resource-server-provided-nonce",
            "https://www.rfc-editor.org/rfc/rfc9449.html#section-9";
    }
}

fn server(nonce: bool) -> MockMcpServerBuilder {
    super::server_with(
        // The suite's mock takes public clients only (`none`).
        OAuth::preset(AuthScenario::TokenEndpointAuthNone)
            .dpop(true)
            .dpop_nonce(nonce),
    )
}

pub(crate) fn plain_server() -> MockMcpServerBuilder {
    server(false)
}

pub(crate) fn nonce_server() -> MockMcpServerBuilder {
    server(true)
}

/// A `DPoP` challenge's parameter, as the resource answered it.
fn challenge_error(exchange: &HttpExchange) -> Option<(String, String)> {
    let header = exchange.response_header("www-authenticate")?;
    let param = |name: &str| crate::log::challenge_param(header, name);
    Some((
        param("error")?,
        param("error_description").unwrap_or_default(),
    ))
}

#[derive(Default)]
struct Dpop {
    nonce: bool,
    // The token requests of the authorization_code grant (sticky: one without a valid
    // proof fails it).
    token_recorded: bool,
    token_valid: bool,
    token_error: Option<String>,
    as_challenged: bool,
    as_honored: bool,
    // The MCP requests that carried a token.
    authenticated: usize,
    schemes: Vec<String>,
    non_dpop: bool,
    jtis: Vec<String>,
    replayed: bool,
    proofs_ok: bool,
    proof_error: Option<String>,
    rs_challenged: bool,
    rs_honored: bool,
}

impl Dpop {
    fn token_request(&mut self, exchange: &HttpExchange, request: &TokenRequest) {
        if request.grant_type() != Some("authorization_code") {
            return;
        }
        let proof = exchange.request_header("dpop");
        let (valid, error) = match (proof, request.error.as_deref()) {
            (None, _) => (
                false,
                Some("no DPoP proof in the token request".to_string()),
            ),
            (Some(_), Some("invalid_dpop_proof")) => (false, request.error_description.clone()),
            (Some(_), Some("use_dpop_nonce")) => {
                self.as_challenged = true;
                (true, None)
            }
            (Some(proof), _) => {
                if request.succeeded()
                    && self.as_challenged
                    && jwt_part(proof, 1).is_some_and(|c| c.contains_key("nonce"))
                {
                    self.as_honored = true;
                }
                (true, None)
            }
        };
        self.token_valid = if self.token_recorded {
            self.token_valid && valid
        } else {
            valid
        };
        self.token_recorded = true;
        if !valid && self.token_error.is_none() {
            self.token_error = error;
        }
    }

    fn mcp_request(&mut self, exchange: &HttpExchange) {
        let Some(authorization) = exchange.request_header("authorization") else {
            return;
        };
        self.authenticated += 1;
        let scheme = authorization
            .split(' ')
            .next()
            .unwrap_or_default()
            .to_string();
        if !scheme.eq_ignore_ascii_case("dpop") {
            self.non_dpop = true;
        }
        self.schemes.push(scheme);
        let refusal = challenge_error(exchange);
        let proof = exchange.request_header("dpop");
        // The resource checked the proof: `invalid_dpop_proof` is its refusal of it (a
        // replay apart, which is counted below), and an unbound token has no key for any
        // proof to match.
        let malformed = match (&proof, &refusal) {
            (None, _) => Some("missing DPoP proof header".to_string()),
            (Some(_), Some((error, why)))
                if (error == "invalid_dpop_proof" && !why.contains("already used"))
                    || (error == "invalid_token" && why.contains("not DPoP-bound")) =>
            {
                Some(why.clone())
            }
            _ => None,
        };
        if let Some(why) = malformed {
            self.proofs_ok = false;
            self.proof_error.get_or_insert(why);
            return;
        }
        let jti = proof
            .and_then(|p| jwt_part(p, 1))
            .and_then(|c| c.get("jti").and_then(Value::as_str).map(str::to_string));
        if let Some(jti) = jti {
            if self.jtis.contains(&jti) {
                self.replayed = true;
            } else {
                self.jtis.push(jti);
            }
        }
        if self.nonce {
            match refusal {
                Some((error, _)) if error == "use_dpop_nonce" => self.rs_challenged = true,
                None if exchange.status.is_some_and(|s| s < 400) => self.rs_honored = true,
                _ => {}
            }
        }
    }

    fn check(
        id: &str,
        name: &str,
        description: &str,
        refs: Vec<SpecReference>,
        error: Option<String>,
        details: Value,
    ) -> Check {
        let status = if error.is_none() {
            CheckStatus::Success
        } else {
            CheckStatus::Failure
        };
        let mut check = Check::new(id, name, description, status, refs[0].clone())
            .cited_by(refs)
            .details(details);
        check.error_message = error;
        check
    }
}

impl Rules for Dpop {
    // The suite's DPoP resource judges proofs, not tokens: no bearer-token checks.
    fn verifies(&self, _mcp_method: Option<&str>) -> bool {
        false
    }

    fn observe(
        &mut self,
        exchange: &HttpExchange,
        token: Option<&TokenRequest>,
        _checks: &mut Vec<Check>,
    ) -> bool {
        match token {
            Some(request) => self.token_request(exchange, request),
            None if exchange.path == "/mcp" && exchange.method.eq_ignore_ascii_case("POST") => {
                self.mcp_request(exchange)
            }
            None => {}
        }
        // Observed only: the shared checks go on as for every scenario.
        false
    }

    fn finish(&mut self, checks: &mut Vec<Check>) {
        if self.nonce {
            // The nonce round trip posts the token request twice: the suite reports each
            // shared check once, its most severe occurrence.
            collapse(checks);
        }
        let token_error = if !self.token_recorded {
            Some("Client never completed an authorization_code token request, so it obtained no DPoP-bound token".to_string())
        } else if !self.token_valid {
            Some(format!(
                "Client did not present a valid DPoP proof at the token endpoint: {}",
                self.token_error.clone().unwrap_or_default()
            ))
        } else {
            None
        };
        checks.push(Self::check(
            "sep-1932-client-token-request-proof",
            "DpopTokenRequestProof",
            "Client includes a valid DPoP proof in the DPoP header of its token request — the prerequisite for obtaining a DPoP-bound access token (RFC 9449 §5)",
            vec![refs::sep_1932(), refs::extension(), refs::token_request()],
            token_error,
            json!({ "tokenRequestObserved": self.token_recorded, "validProofPresented": self.token_valid }),
        ));
        let mut schemes: Vec<&String> = Vec::new();
        for scheme in &self.schemes {
            if !schemes.contains(&scheme) {
                schemes.push(scheme);
            }
        }
        let never = "Client never presented an access token to the MCP server".to_string();
        let scheme_error = if self.authenticated == 0 {
            Some(never.clone())
        } else if self.non_dpop {
            Some(format!(
                "Client presented the token with a non-DPoP Authorization scheme ({})",
                schemes
                    .iter()
                    .map(|s| s.as_str())
                    .collect::<Vec<_>>()
                    .join(", ")
            ))
        } else {
            None
        };
        checks.push(Self::check(
            "sep-1932-client-dpop-auth-scheme",
            "DpopAuthScheme",
            "Client presents the access token with the DPoP Authorization scheme (not Bearer)",
            vec![refs::sep_1932(), refs::extension(), refs::auth_scheme()],
            scheme_error,
            json!({ "authenticatedRequests": self.authenticated, "observedSchemes": schemes }),
        ));
        let fresh_error = if self.authenticated == 0 {
            Some(never)
        } else if !self.proofs_ok {
            Some(format!(
                "DPoP proof was missing or malformed: {}",
                self.proof_error.clone().unwrap_or_default()
            ))
        } else if self.replayed {
            Some("Client reused a DPoP proof (duplicate jti) across requests instead of sending a fresh one".to_string())
        } else {
            None
        };
        checks.push(Self::check(
            "sep-1932-client-fresh-proof",
            "DpopFreshProof",
            "Client includes a fresh, well-formed DPoP proof in the DPoP header on each MCP POST request",
            vec![refs::checking_proofs(), refs::proof_syntax(), refs::extension()],
            fresh_error,
            json!({
                "authenticatedRequests": self.authenticated,
                "distinctJtis": self.jtis.len(),
                "replayDetected": self.replayed,
            }),
        ));
        if !self.nonce {
            return;
        }
        let nonce_error = |challenged: bool, honored: bool, at: &str, never: &str| {
            if challenged && honored {
                None
            } else if challenged {
                Some(format!(
                    "Client did not complete the {at} with the server-supplied nonce after a use_dpop_nonce challenge (it either did not retry or the retried proof was rejected)"
                ))
            } else {
                Some(never.to_string())
            }
        };
        checks.push(Self::check(
            "sep-1932-client-as-nonce",
            "DpopAsNonce",
            "On a use_dpop_nonce challenge from the token endpoint, the client retries the token request with the server-supplied nonce (RFC 9449 §8)",
            vec![refs::sep_1932(), refs::extension(), refs::as_nonce()],
            nonce_error(
                self.as_challenged,
                self.as_honored,
                "token request",
                "Client never presented a valid proof that was answered with a use_dpop_nonce challenge",
            ),
            json!({ "challengeIssued": self.as_challenged, "nonceHonored": self.as_honored }),
        ));
        checks.push(Self::check(
            "sep-1932-client-rs-nonce",
            "DpopRsNonce",
            "On a use_dpop_nonce challenge from the MCP server, the client retries the request with the server-supplied nonce (RFC 9449 §9)",
            vec![refs::sep_1932(), refs::extension(), refs::rs_nonce()],
            nonce_error(
                self.rs_challenged,
                self.rs_honored,
                "MCP request",
                "Client never made an MCP request with a valid proof that was answered with a use_dpop_nonce challenge",
            ),
            json!({ "challengeIssued": self.rs_challenged, "nonceHonored": self.rs_honored }),
        ));
    }
}

/// Each non-INFO check id once: its most severe occurrence (the last of equals).
fn collapse(checks: &mut Vec<Check>) {
    let severity = |s: CheckStatus| match s {
        CheckStatus::Failure => 3,
        CheckStatus::Warning => 2,
        CheckStatus::Success => 1,
        _ => 0,
    };
    let mut winner: std::collections::HashMap<String, usize> = std::collections::HashMap::new();
    for (i, check) in checks.iter().enumerate() {
        if check.status == CheckStatus::Info {
            continue;
        }
        let keep = winner
            .get(&check.id)
            .is_none_or(|&at| severity(check.status) >= severity(checks[at].status));
        if keep {
            winner.insert(check.id.clone(), i);
        }
    }
    let mut at = 0;
    checks.retain(|check| {
        let kept = check.status == CheckStatus::Info || winner.get(&check.id) == Some(&at);
        at += 1;
        kept
    });
}

pub(crate) fn plain_checks(log: &Log, version: ProtocolVersion) -> Vec<Check> {
    judge(
        log,
        version,
        &Layout::DEFAULT,
        &mut Dpop {
            proofs_ok: true,
            ..Dpop::default()
        },
    )
}

pub(crate) fn nonce_checks(log: &Log, version: ProtocolVersion) -> Vec<Check> {
    judge(
        log,
        version,
        &Layout::DEFAULT,
        &mut Dpop {
            nonce: true,
            proofs_ok: true,
            ..Dpop::default()
        },
    )
}
