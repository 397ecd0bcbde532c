//! Typed reads of the OAuth side of a captured log ([`OAuthLog`]): discovery fetches,
//! registrations, authorization and token requests, challenges. They read the masked
//! capture (tokens, codes and secrets are masked, parameter names and other values are
//! kept), so they never need a secret. The records they return live in `requests`; the
//! parsing of form bodies and challenges in `params`.
//!
//! The authorization-server endpoints are recognised by the last segment of their path
//! (`…/register`, `…/authorize`, `…/token`), so the same reads work for the default
//! layout (`/oauth/token`), a tenant prefix (`/tenant1/token`) and the 2025-03-26
//! fallback endpoints (`/token`).

mod params;
mod requests;

use std::fmt::Write as _;

use serde_json::Value;

pub(crate) use self::params::challenge_param;
use self::params::{body_params, first, parse_form};
pub use self::requests::{AuthorizeRequest, Challenge, ClientAuth, Registration, TokenRequest};
use super::record::{Entry, HttpExchange, HttpKind, Record};

/// The OAuth exchanges of a [`Log`](crate::log::Log), oldest first. Get it from
/// [`Log::oauth`](crate::log::Log::oauth).
///
/// # Example
/// ```
/// # #[tokio::main(flavor = "current_thread")]
/// # async fn main() {
/// use mcp_decoy::MockMcpServer;
/// use mcp_decoy::oauth::OAuth;
///
/// let server = MockMcpServer::builder().oauth(OAuth::new()).start().await;
/// // The client under test runs its OAuth flow against `server.url()`; here, it only
/// // sends one request without a token.
/// reqwest::Client::new().post(server.url()).body("{}").send().await.unwrap();
///
/// let oauth = server.log().oauth();
/// let challenge = &oauth.challenges()[0];
/// assert_eq!(challenge.status, 401);
/// assert!(challenge.param("resource_metadata").unwrap().ends_with("/oauth-protected-resource/mcp"));
/// assert!(!oauth.registered());
/// assert!(oauth.token_requests().is_empty());
/// assert!(!oauth.refreshed());
/// assert!(!oauth.fetched("/.well-known/oauth-protected-resource"));
/// # }
/// ```
#[derive(Debug, Clone)]
pub struct OAuthLog {
    /// Copies of the HTTP exchanges with their record ids, so the view outlives the `Log`
    /// it came from (`server.log().oauth()` is one expression).
    exchanges: Vec<(u64, HttpExchange)>,
}

impl OAuthLog {
    pub(crate) fn of(records: &[Record]) -> Self {
        OAuthLog {
            exchanges: records
                .iter()
                .filter_map(|r| match &r.entry {
                    Entry::Http(h) if h.kind == HttpKind::Exchange => Some((r.id, h.clone())),
                    _ => None,
                })
                .collect(),
        }
    }

    /// The exchanges with this method whose path ends in `/{segment}`.
    fn endpoint<'s>(
        &'s self,
        method: &'s str,
        segment: &'s str,
    ) -> impl Iterator<Item = (u64, &'s HttpExchange)> + 's {
        self.exchanges.iter().filter_map(move |(id, h)| {
            let on_it = h.method.eq_ignore_ascii_case(method)
                && h.path
                    .strip_suffix(segment)
                    .is_some_and(|p| p.ends_with('/'));
            on_it.then_some((*id, h))
        })
    }

    /// Every Dynamic Client Registration request, oldest first.
    pub fn registrations(&self) -> Vec<Registration> {
        self.endpoint("POST", "register")
            .map(|(record, h)| Registration {
                record,
                path: h.path.clone(),
                metadata: match h.request_body.as_deref() {
                    Some(Value::String(text)) => {
                        serde_json::from_str(text).unwrap_or(Value::String(text.clone()))
                    }
                    Some(body) => body.clone(),
                    None => Value::Null,
                },
                status: h.status,
                client_id: h
                    .response_body
                    .as_ref()
                    .and_then(|b| b.get("client_id"))
                    .and_then(Value::as_str)
                    .map(str::to_owned),
            })
            .collect()
    }

    /// Whether the client registered itself (a registration answered `201`).
    pub fn registered(&self) -> bool {
        self.registrations().iter().any(|r| r.status == Some(201))
    }

    /// Every request to the authorization endpoint, oldest first.
    pub fn authorization_requests(&self) -> Vec<AuthorizeRequest> {
        self.endpoint("GET", "authorize")
            .map(|(record, h)| AuthorizeRequest {
                record,
                path: h.path.clone(),
                params: h.query.as_deref().map(parse_form).unwrap_or_default(),
                status: h.status,
                redirect: h.response_header("location").map(str::to_owned),
            })
            .collect()
    }

    /// Every request to the token endpoint, oldest first.
    pub fn token_requests(&self) -> Vec<TokenRequest> {
        self.endpoint("POST", "token")
            .map(|(record, h)| {
                let params = body_params(h.request_body.as_deref());
                let basic = h
                    .request_header("authorization")
                    .is_some_and(|v| v.trim_start().to_ascii_lowercase().starts_with("basic"));
                let client_auth = if basic {
                    ClientAuth::ClientSecretBasic
                } else if first(&params, "client_secret").is_some() {
                    ClientAuth::ClientSecretPost
                } else {
                    ClientAuth::None
                };
                let body = h.response_body.as_ref();
                TokenRequest {
                    record,
                    path: h.path.clone(),
                    params,
                    client_auth,
                    status: h.status,
                    error: body
                        .and_then(|b| b.get("error"))
                        .and_then(Value::as_str)
                        .map(str::to_owned),
                    error_description: body
                        .and_then(|b| b.get("error_description"))
                        .and_then(Value::as_str)
                        .map(str::to_owned),
                    issued_refresh_token: body.is_some_and(|b| b.get("refresh_token").is_some()),
                }
            })
            .collect()
    }

    /// The token requests with this `grant_type`.
    pub fn token_requests_with_grant(&self, grant_type: &str) -> Vec<TokenRequest> {
        self.token_requests()
            .into_iter()
            .filter(|t| t.grant_type() == Some(grant_type))
            .collect()
    }

    /// Whether every authorization request carried an `S256` PKCE challenge and every
    /// `authorization_code` token request a `code_verifier`; `false` when there was no
    /// authorization request at all.
    pub fn used_pkce_s256(&self) -> bool {
        let authorizations = self.authorization_requests();
        !authorizations.is_empty()
            && authorizations.iter().all(AuthorizeRequest::used_pkce_s256)
            && self
                .token_requests_with_grant("authorization_code")
                .iter()
                .all(|t| t.param("code_verifier").is_some_and(|v| !v.is_empty()))
    }

    /// Every `resource` value the client sent to the authorization and token endpoints,
    /// in the order sent (duplicates kept, so a test can check they are all the same).
    pub fn resource_sent(&self) -> Vec<String> {
        let mut sent: Vec<(u64, String)> = Vec::new();
        for a in self.authorization_requests() {
            sent.extend(a.resources().into_iter().map(|r| (a.record, r.to_owned())));
        }
        for t in self.token_requests() {
            sent.extend(t.resources().into_iter().map(|r| (t.record, r.to_owned())));
        }
        sent.sort_by_key(|(record, _)| *record);
        sent.into_iter().map(|(_, r)| r).collect()
    }

    /// How many `refresh_token` grants the server answered with new tokens.
    pub fn refreshes(&self) -> usize {
        self.token_requests_with_grant("refresh_token")
            .iter()
            .filter(|t| t.succeeded())
            .count()
    }

    /// Whether the client refreshed its access token at least once.
    pub fn refreshed(&self) -> bool {
        self.refreshes() > 0
    }

    /// Every `401`/`403` Bearer challenge the server sent, oldest first.
    pub fn challenges(&self) -> Vec<Challenge> {
        self.exchanges
            .iter()
            .filter_map(|(record, h)| {
                let status = h.status.filter(|s| *s == 401 || *s == 403)?;
                let header = h.response_header("www-authenticate")?;
                Some(Challenge {
                    record: *record,
                    status,
                    header: header.to_owned(),
                })
            })
            .collect()
    }

    /// How many times the client re-authorized after a `403 insufficient_scope`: each
    /// authorization request that follows one or more step-up challenges counts once.
    pub fn step_up_retries(&self) -> usize {
        let mut challenged = false;
        let mut retries = 0;
        for (_, h) in &self.exchanges {
            let step_up = h.status == Some(403)
                && h.response_header("www-authenticate")
                    .and_then(|v| challenge_param(v, "error"))
                    .as_deref()
                    == Some("insufficient_scope");
            if step_up {
                challenged = true;
            } else if challenged
                && h.method.eq_ignore_ascii_case("GET")
                && h.path.ends_with("/authorize")
            {
                retries += 1;
                challenged = false;
            }
        }
        retries
    }

    /// The paths of every `/.well-known/...` request (wherever the `.well-known` segment
    /// sits, so `/tenant1/.well-known/openid-configuration` counts), in order, with the
    /// status each got.
    pub fn discovery(&self) -> Vec<(String, Option<u16>)> {
        self.exchanges
            .iter()
            .filter(|(_, h)| h.path.contains("/.well-known/"))
            .map(|(_, h)| (h.path.clone(), h.status))
            .collect()
    }

    /// Whether anything requested exactly this path (any method, any status), e.g. to
    /// assert the root Protected Resource Metadata was *not* fetched.
    pub fn fetched(&self, path: &str) -> bool {
        self.exchanges.iter().any(|(_, h)| h.path == path)
    }

    /// Panics, listing the OAuth exchanges, unless the client registered.
    #[track_caller]
    pub fn assert_registered(&self) {
        if !self.registered() {
            panic!(
                "expected a Dynamic Client Registration answered 201, found:\n{}",
                self.describe()
            );
        }
    }

    /// Panics, listing the OAuth exchanges, unless the client used PKCE with `S256`.
    #[track_caller]
    pub fn assert_pkce_s256(&self) {
        if !self.used_pkce_s256() {
            panic!(
                "expected PKCE S256 on every authorization and code exchange, found:\n{}",
                self.describe()
            );
        }
    }

    /// Panics unless every `resource` the client sent equals `expected` (and it sent one).
    #[track_caller]
    pub fn assert_resource(&self, expected: &str) {
        let sent = self.resource_sent();
        if sent.is_empty() || sent.iter().any(|r| r != expected) {
            panic!(
                "expected every resource to be {expected:?}, the client sent {sent:?}:\n{}",
                self.describe()
            );
        }
    }

    /// Panics unless the client re-authorized after step-up challenges at most `max` times.
    #[track_caller]
    pub fn assert_step_up_retries_at_most(&self, max: usize) {
        let retries = self.step_up_retries();
        if retries > max {
            panic!(
                "expected at most {max} step-up re-authorization(s), found {retries}:\n{}",
                self.describe()
            );
        }
    }

    /// Panics unless nothing requested `path`.
    #[track_caller]
    pub fn assert_not_fetched(&self, path: &str) {
        if self.fetched(path) {
            panic!("expected no request to {path}, found:\n{}", self.describe());
        }
    }

    /// One line per captured HTTP exchange (MCP ones included, so the order is visible),
    /// for failure reports.
    pub fn describe(&self) -> String {
        let mut text = String::new();
        for (record, h) in &self.exchanges {
            let query = h
                .query
                .as_deref()
                .map(|q| format!("?{q}"))
                .unwrap_or_default();
            let _ = writeln!(
                text,
                "  #{} {} {}{} -> {}",
                record,
                h.method,
                h.path,
                query,
                h.status.map_or("pending".into(), |s| s.to_string())
            );
        }
        if text.is_empty() {
            text.push_str("  (none)\n");
        }
        text
    }
}
