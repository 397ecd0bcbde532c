//! Typed reads of the OAuth side of a captured log: discovery fetches, registrations,
//! authorization and token requests, challenges. They read the masked capture (tokens,
//! codes and secrets are masked, parameter names and other values are kept), so they
//! never need a secret.
//!
//! The authorization-server endpoints are recognised by the last segment of their path
//! (`…/register`, `…/authorize`, `…/token`), so the same reads work for the default
//! layout (`/oauth/token`), a tenant prefix (`/tenant1/token`) and the 2025-03-26
//! fallback endpoints (`/token`).

use std::fmt::Write as _;

use serde::Serialize;
use serde_json::Value;

use super::record::{Entry, HttpExchange, HttpKind, Record};

/// The OAuth exchanges of a [`Log`](super::Log), oldest first. Get it from
/// [`Log::oauth`](super::Log::oauth).
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

/// One Dynamic Client Registration request (RFC 7591) and its answer.
#[derive(Debug, Clone, PartialEq, Serialize)]
#[non_exhaustive]
pub struct Registration {
    /// The id of its `http` record.
    pub record: u64,
    /// The path it was posted to.
    pub path: String,
    /// The client metadata the client sent (`client_name`, `redirect_uris`,
    /// `grant_types`, `token_endpoint_auth_method`, `application_type`, ...).
    pub metadata: Value,
    /// The response status; `201` when the client was registered.
    pub status: Option<u16>,
    /// The `client_id` the server issued, when it registered the client.
    pub client_id: Option<String>,
}

impl Registration {
    /// A string member of the client metadata the client sent, e.g. `"client_name"`.
    pub fn field(&self, name: &str) -> Option<&str> {
        self.metadata.get(name).and_then(Value::as_str)
    }

    /// The `grant_types` the client asked for (empty when it sent none).
    pub fn grant_types(&self) -> Vec<&str> {
        string_array(&self.metadata, "grant_types")
    }

    /// The `redirect_uris` the client registered.
    pub fn redirect_uris(&self) -> Vec<&str> {
        string_array(&self.metadata, "redirect_uris")
    }
}

/// One request to the authorization endpoint and the redirect that answered it.
#[derive(Debug, Clone, PartialEq, Serialize)]
#[non_exhaustive]
pub struct AuthorizeRequest {
    /// The id of its `http` record.
    pub record: u64,
    /// The path it was sent to.
    pub path: String,
    /// Every query parameter, in order (masked values stay masked).
    pub params: Vec<(String, String)>,
    /// The response status (`302`/`303` for a redirect, `200` for a consent page).
    pub status: Option<u16>,
    /// The `Location` the server redirected to (with the code masked), if any.
    pub redirect: Option<String>,
}

impl AuthorizeRequest {
    /// The first value of a query parameter.
    pub fn param(&self, name: &str) -> Option<&str> {
        first(&self.params, name)
    }

    /// `client_id`: an opaque id, or the URL of a Client ID Metadata Document.
    pub fn client_id(&self) -> Option<&str> {
        self.param("client_id")
    }

    /// The requested scopes, split on spaces; `None` when `scope` was omitted.
    pub fn scopes(&self) -> Option<Vec<&str>> {
        self.param("scope")
            .map(|s| s.split(' ').filter(|s| !s.is_empty()).collect())
    }

    /// Every `resource` value (RFC 8707 allows several).
    pub fn resources(&self) -> Vec<&str> {
        all(&self.params, "resource")
    }

    /// The `code_challenge_method`, if sent.
    pub fn code_challenge_method(&self) -> Option<&str> {
        self.param("code_challenge_method")
    }

    /// Whether the request carried a PKCE challenge with the `S256` method.
    pub fn used_pkce_s256(&self) -> bool {
        self.param("code_challenge").is_some_and(|c| !c.is_empty())
            && self.code_challenge_method() == Some("S256")
    }

    /// A query parameter of the redirect the server answered with (`code` masked,
    /// `state`, `iss`, `error`).
    pub fn redirect_param(&self, name: &str) -> Option<String> {
        let location = self.redirect.as_deref()?;
        let query = location.split_once('?')?.1;
        let query = query.split('#').next().unwrap_or(query);
        form_urlencoded::parse(query.as_bytes())
            .find(|(k, _)| k == name)
            .map(|(_, v)| v.into_owned())
    }
}

/// How a client authenticated at the token endpoint.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize)]
#[serde(rename_all = "snake_case")]
#[non_exhaustive]
pub enum ClientAuth {
    /// `Authorization: Basic` with the client id and secret.
    ClientSecretBasic,
    /// `client_secret` in the form body.
    ClientSecretPost,
    /// No client authentication (a public client): only `client_id` in the body.
    None,
}

impl ClientAuth {
    /// The RFC 7591 name: `client_secret_basic`, `client_secret_post` or `none`.
    pub fn as_str(self) -> &'static str {
        match self {
            ClientAuth::ClientSecretBasic => "client_secret_basic",
            ClientAuth::ClientSecretPost => "client_secret_post",
            ClientAuth::None => "none",
        }
    }
}

/// One request to the token endpoint and its answer.
#[derive(Debug, Clone, PartialEq, Serialize)]
#[non_exhaustive]
pub struct TokenRequest {
    /// The id of its `http` record.
    pub record: u64,
    /// The path it was posted to.
    pub path: String,
    /// Every form parameter, in order (secrets masked).
    pub params: Vec<(String, String)>,
    /// How the client authenticated.
    pub client_auth: ClientAuth,
    /// The response status; `200` when tokens were issued.
    pub status: Option<u16>,
    /// The OAuth `error` code of a refused request (`invalid_grant`, `invalid_client`, ...).
    pub error: Option<String>,
    /// Whether the answer carried a refresh token.
    pub issued_refresh_token: bool,
}

impl TokenRequest {
    /// The first value of a form parameter.
    pub fn param(&self, name: &str) -> Option<&str> {
        first(&self.params, name)
    }

    /// `grant_type`: `authorization_code`, `refresh_token`, ...
    pub fn grant_type(&self) -> Option<&str> {
        self.param("grant_type")
    }

    /// Every `resource` value sent.
    pub fn resources(&self) -> Vec<&str> {
        all(&self.params, "resource")
    }

    /// The requested scopes, split on spaces; `None` when `scope` was omitted.
    pub fn scopes(&self) -> Option<Vec<&str>> {
        self.param("scope")
            .map(|s| s.split(' ').filter(|s| !s.is_empty()).collect())
    }

    /// Whether the server issued tokens.
    pub fn succeeded(&self) -> bool {
        self.status == Some(200)
    }
}

/// A `401`/`403` answer carrying a `WWW-Authenticate: Bearer` challenge.
#[derive(Debug, Clone, PartialEq, Serialize)]
#[non_exhaustive]
pub struct Challenge {
    /// The id of its `http` record.
    pub record: u64,
    /// `401` or `403`.
    pub status: u16,
    /// The raw header value.
    pub header: String,
}

impl Challenge {
    /// An auth-param of the challenge (`resource_metadata`, `scope`, `error`), unquoted.
    pub fn param(&self, name: &str) -> Option<String> {
        challenge_param(&self.header, name)
    }

    /// Whether this is a `403` step-up challenge (`error="insufficient_scope"`).
    pub fn is_insufficient_scope(&self) -> bool {
        self.param("error").as_deref() == Some("insufficient_scope")
    }
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
                metadata: match &h.request_body {
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
                let params = body_params(h.request_body.as_ref());
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

fn parse_form(text: &str) -> Vec<(String, String)> {
    form_urlencoded::parse(text.as_bytes())
        .map(|(k, v)| (k.into_owned(), v.into_owned()))
        .collect()
}

/// A form body as captured: text (`a=b&c=d`) or, once masked, possibly a JSON object.
fn body_params(body: Option<&Value>) -> Vec<(String, String)> {
    match body {
        Some(Value::String(text)) => parse_form(text),
        Some(Value::Object(map)) => map
            .iter()
            .flat_map(|(k, v)| match v {
                Value::Array(items) => items.iter().map(|i| (k.clone(), scalar(i))).collect(),
                other => vec![(k.clone(), scalar(other))],
            })
            .collect(),
        _ => Vec::new(),
    }
}

fn scalar(value: &Value) -> String {
    match value {
        Value::String(s) => s.clone(),
        other => other.to_string(),
    }
}

fn first<'p>(params: &'p [(String, String)], name: &str) -> Option<&'p str> {
    params
        .iter()
        .find(|(k, _)| k == name)
        .map(|(_, v)| v.as_str())
}

fn all<'p>(params: &'p [(String, String)], name: &str) -> Vec<&'p str> {
    params
        .iter()
        .filter(|(k, _)| k == name)
        .map(|(_, v)| v.as_str())
        .collect()
}

fn string_array<'v>(value: &'v Value, name: &str) -> Vec<&'v str> {
    value
        .get(name)
        .and_then(Value::as_array)
        .map(|items| items.iter().filter_map(Value::as_str).collect())
        .unwrap_or_default()
}

/// An auth-param of a `WWW-Authenticate` value (RFC 9110 §11.6.1): `name=token` or
/// `name="quoted"`, after the scheme. Quoted values may contain commas and `\"`.
pub(crate) fn challenge_param(header: &str, name: &str) -> Option<String> {
    let rest = header.trim_start();
    // Skip the scheme (`Bearer`), which has no `=`.
    let rest = match rest.split_once(' ') {
        Some((scheme, tail)) if !scheme.contains('=') => tail,
        _ => rest,
    };
    let mut chars = rest.char_indices().peekable();
    let bytes = rest;
    loop {
        // Skip separators.
        while let Some((_, c)) = chars.peek() {
            if *c == ',' || c.is_whitespace() {
                chars.next();
            } else {
                break;
            }
        }
        let (start, _) = *chars.peek()?;
        let mut key_end = start;
        while let Some((i, c)) = chars.peek() {
            if *c == '=' || *c == ',' || c.is_whitespace() {
                break;
            }
            key_end = *i + c.len_utf8();
            chars.next();
        }
        let key = &bytes[start..key_end];
        while let Some((_, c)) = chars.peek() {
            if c.is_whitespace() {
                chars.next();
            } else {
                break;
            }
        }
        if chars.peek().map(|(_, c)| *c) != Some('=') {
            continue;
        }
        chars.next();
        while let Some((_, c)) = chars.peek() {
            if c.is_whitespace() {
                chars.next();
            } else {
                break;
            }
        }
        let mut value = String::new();
        if chars.peek().map(|(_, c)| *c) == Some('"') {
            chars.next();
            while let Some((_, c)) = chars.next() {
                match c {
                    '\\' => {
                        if let Some((_, escaped)) = chars.next() {
                            value.push(escaped);
                        }
                    }
                    '"' => break,
                    other => value.push(other),
                }
            }
        } else {
            while let Some((_, c)) = chars.peek() {
                if *c == ',' || c.is_whitespace() {
                    break;
                }
                value.push(*c);
                chars.next();
            }
        }
        if key.eq_ignore_ascii_case(name) {
            return Some(value);
        }
    }
}

#[cfg(test)]
mod tests {
    use super::challenge_param;

    #[test]
    fn challenge_params_are_read_quoted_or_bare_in_any_order() {
        let header = r#"Bearer error="insufficient_scope", scope="a b", resource_metadata="http://h/x,y", error_description="say \"hi\"""#;
        assert_eq!(challenge_param(header, "scope").as_deref(), Some("a b"));
        assert_eq!(
            challenge_param(header, "resource_metadata").as_deref(),
            Some("http://h/x,y")
        );
        assert_eq!(
            challenge_param(header, "error_description").as_deref(),
            Some("say \"hi\"")
        );
        assert_eq!(
            challenge_param(header, "ERROR").as_deref(),
            Some("insufficient_scope")
        );
        assert_eq!(
            challenge_param("Bearer realm=x, scope=read", "scope").as_deref(),
            Some("read")
        );
        assert_eq!(challenge_param("Bearer", "scope"), None);
        assert_eq!(challenge_param("", "scope"), None);
    }
}
