//! Access guards in front of the MCP endpoint, run inside the capture (so every rejection is
//! recorded): the `Host` check against DNS rebinding (`403`) and API keys
//! (`Authorization: Bearer KEY`, `401`). The `Origin` allow-list is checked by the transport
//! (`http.rs`) and the body limit (`413`) by the capture layer.
//!
//! Keys live here, not in the spec, because tests add and revoke them while clients stay
//! connected. They are compared as SHA-256 digests in constant time, every key each time, so
//! the answer's timing says neither how much of a key matched nor which key it was.

use std::borrow::Cow;
use std::net::SocketAddr;
use std::sync::atomic::{AtomicBool, Ordering};
use std::sync::{RwLock, RwLockReadGuard, RwLockWriteGuard};

use axum::extract::Request;
use axum::http::{HeaderMap, HeaderValue, Method, StatusCode, header};
use axum::response::{IntoResponse, Response};
use serde_json::{Value, json};
use sha2::{Digest, Sha256};
use subtle::ConstantTimeEq;

use super::Engine;
use super::methods::Principal;
use super::protocol::jsonrpc::{self, RpcError, code};
use crate::error::Error;
use crate::spec::ServerSpec;
use host::{HostPattern, is_loopback_host, is_plain_loopback, split_authority};

/// API keys one server accepts at most, so run-time additions cannot grow without bound.
pub(crate) const MAX_API_KEYS: usize = 1_000;
/// The longest API key accepted, in bytes.
pub(crate) const MAX_API_KEY_BYTES: usize = 512;
/// Allowed hosts one server lists at most.
pub(crate) const MAX_ALLOWED_HOSTS: usize = 1_000;
/// The longest allowed-host entry: a 253-byte DNS name, `:` and a 5-digit port.
const MAX_HOST_BYTES: usize = 259;

/// One server's guards: its live API keys and its Host policy.
#[derive(Debug)]
pub(crate) struct Guard {
    keys: RwLock<Keys>,
    hosts: Vec<HostPattern>,
    /// Set when the server listens on a loopback address: then only loopback names and the
    /// allowed hosts reach it (a tunnel's name is one to list); listing allowed hosts turns
    /// the check on anywhere.
    loopback_listener: AtomicBool,
}

#[derive(Debug, Default)]
struct Keys {
    /// Stays set once keys were configured, so revoking the last key locks the server
    /// instead of opening it.
    required: bool,
    list: Vec<ApiKey>,
}

struct ApiKey {
    text: String,
    digest: [u8; 32],
}

impl std::fmt::Debug for ApiKey {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        // Keys are test values, but a `{:?}` of the engine still should not print them.
        f.write_str("ApiKey([redacted])")
    }
}

impl ApiKey {
    fn new(text: String) -> Self {
        let digest = Sha256::digest(text.as_bytes()).into();
        ApiKey { text, digest }
    }
}

/// Why a request failed the API-key check.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
enum KeyProblem {
    Missing,
    NotBearer,
    Unknown,
}

impl Guard {
    /// The guards of a validated spec.
    pub(crate) fn new(spec: &ServerSpec) -> Self {
        Guard {
            keys: RwLock::new(Keys {
                required: !spec.api_keys.is_empty(),
                list: spec.api_keys.iter().cloned().map(ApiKey::new).collect(),
            }),
            hosts: spec
                .allowed_hosts
                .iter()
                .filter_map(|h| HostPattern::parse(h).ok())
                .collect(),
            loopback_listener: AtomicBool::new(false),
        }
    }

    fn read(&self) -> RwLockReadGuard<'_, Keys> {
        self.keys.read().unwrap_or_else(|p| p.into_inner())
    }

    fn write(&self) -> RwLockWriteGuard<'_, Keys> {
        self.keys.write().unwrap_or_else(|p| p.into_inner())
    }

    /// Records where the server listens: a loopback address turns the Host check on.
    pub(crate) fn bound_to(&self, addr: SocketAddr) {
        self.loopback_listener
            .store(addr.ip().is_loopback(), Ordering::Relaxed);
    }

    /// The accepted API keys, in the order they were added.
    pub(crate) fn api_keys(&self) -> Vec<String> {
        self.read().list.iter().map(|k| k.text.clone()).collect()
    }

    /// Whether requests need an API key (keys were configured, even if all were revoked).
    pub(crate) fn requires_key(&self) -> bool {
        self.read().required
    }

    /// Accepts `key` from now on; a key already accepted is left as it is.
    pub(crate) fn add_api_key(&self, key: &str) -> Result<(), Error> {
        if let Some(reason) = key_problem(key) {
            return Err(Error::InvalidConfig {
                field: "api_key",
                reason,
            });
        }
        let mut keys = self.write();
        keys.required = true;
        if keys.list.iter().any(|k| k.text == key) {
            return Ok(());
        }
        if keys.list.len() >= MAX_API_KEYS {
            return Err(Error::InvalidConfig {
                field: "api_key",
                reason: format!("a server accepts at most {MAX_API_KEYS} API keys"),
            });
        }
        keys.list.push(ApiKey::new(key.to_string()));
        Ok(())
    }

    /// Stops accepting `key`; whether it was accepted. The server keeps requiring a key.
    pub(crate) fn revoke_api_key(&self, key: &str) -> bool {
        let mut keys = self.write();
        let before = keys.list.len();
        keys.list.retain(|k| k.text != key);
        keys.list.len() != before
    }

    /// Replaces the keys (the app's `PATCH`, already validated); none turns the check off.
    #[cfg(feature = "decoy-cli")]
    pub(crate) fn set_api_keys(&self, list: Vec<String>) {
        let mut keys = self.write();
        keys.required = !list.is_empty();
        keys.list = list.into_iter().map(ApiKey::new).collect();
    }

    /// `Ok(Some(principal))` for a known key (named by a digest prefix, never the key),
    /// `Ok(None)` when no key is required.
    fn check_key(&self, headers: &HeaderMap) -> Result<Option<Principal>, KeyProblem> {
        let keys = self.read();
        if !keys.required {
            return Ok(None);
        }
        let value = headers
            .get(header::AUTHORIZATION)
            .ok_or(KeyProblem::Missing)?;
        let token = bearer_token(value).ok_or(KeyProblem::NotBearer)?;
        let digest: [u8; 32] = Sha256::digest(token.as_bytes()).into();
        let mut found = subtle::Choice::from(0);
        for key in &keys.list {
            found |= key.digest[..].ct_eq(&digest[..]);
        }
        if bool::from(found) {
            let id: String = digest[..6].iter().map(|b| format!("{b:02x}")).collect();
            Ok(Some(Principal(format!("api-key:{id}"))))
        } else {
            Err(KeyProblem::Unknown)
        }
    }

    /// `Some(403)` when the Host check is on and the request names another host.
    pub(crate) fn host_rejection(&self, request: &Request) -> Option<Response> {
        if !self.loopback_listener.load(Ordering::Relaxed) && self.hosts.is_empty() {
            return None;
        }
        let host = request.headers().get(header::HOST);
        if host.is_some_and(|v| is_plain_loopback(v.as_bytes())) {
            return None;
        }
        // Borrowed when it is text, as it nearly always is: no copy per request.
        let authority = host
            .map(|v| String::from_utf8_lossy(v.as_bytes()))
            .or_else(|| request.uri().authority().map(|a| Cow::Borrowed(a.as_str())));
        let Some(authority) = authority else {
            return Some(forbidden(
                "Forbidden: the request has no Host header; this server answers only requests that name it"
                    .into(),
            ));
        };
        let allowed = split_authority(&authority).is_some_and(|(host, port)| {
            is_loopback_host(&host) || self.hosts.iter().any(|p| p.matches(&host, port))
        });
        if allowed {
            return None;
        }
        let listed = if self.hosts.is_empty() {
            String::new()
        } else {
            format!(
                " and its allowed hosts ({})",
                self.hosts
                    .iter()
                    .map(|h| h.source.as_str())
                    .collect::<Vec<_>>()
                    .join(", ")
            )
        };
        Some(forbidden(format!(
            "Forbidden: Host `{authority}` is not allowed (DNS-rebinding protection); this server answers localhost, 127.0.0.1 and [::1]{listed}. Add the name to the server's allowed hosts to reach it through a tunnel or proxy"
        )))
    }
}

/// Before the MCP endpoint (`next`): the Host check, then the API key.
pub(crate) async fn mcp<F, Fut>(engine: &Engine, mut request: Request, next: F) -> Response
where
    F: FnOnce(Request) -> Fut,
    Fut: Future<Output = Response>,
{
    // A browser's preflight carries no credentials; the endpoint itself answers it.
    if request.method() == Method::OPTIONS {
        return next(request).await;
    }
    if let Some(rejection) = engine.guard.host_rejection(&request) {
        return rejection;
    }
    match engine.guard.check_key(request.headers()) {
        Ok(principal) => {
            if let Some(principal) = principal {
                request.extensions_mut().insert(principal);
            }
            next(request).await
        }
        Err(problem) => unauthorized(problem),
    }
}

/// What is wrong with an API key, if anything: it must be 1-512 bytes of visible ASCII
/// (what fits in an `Authorization` header without quoting).
pub(crate) fn key_problem(key: &str) -> Option<String> {
    if key.is_empty() {
        return Some("must not be empty".into());
    }
    if key.len() > MAX_API_KEY_BYTES {
        return Some(format!(
            "is {} bytes; an API key has at most {MAX_API_KEY_BYTES}",
            key.len()
        ));
    }
    if let Some(bad) = key.chars().find(|c| !c.is_ascii_graphic()) {
        return Some(format!(
            "has {bad:?}; an API key has only visible ASCII characters (no spaces)"
        ));
    }
    None
}

/// What is wrong with an allowed-host entry, if anything.
pub(crate) fn host_problem(entry: &str) -> Option<String> {
    HostPattern::parse(entry).err()
}

/// Checks `api_keys` and `allowed_hosts`; errors name the entry, as in `api_keys[2]`.
pub(crate) fn check_spec(spec: &ServerSpec) -> Result<(), Error> {
    match spec_problems(spec, "api_keys", "allowed_hosts")
        .into_iter()
        .next()
    {
        None => Ok(()),
        Some((field, problem)) => Err(Error::InvalidConfig {
            field: if field.starts_with("api_keys") {
                "api_keys"
            } else {
                "allowed_hosts"
            },
            reason: format!("`{field}` {problem}"),
        }),
    }
}

/// Every problem of the guard settings as `(field[i], reason)`, under the caller's field
/// names (the app says `apiKeys`).
pub(crate) fn spec_problems(
    spec: &ServerSpec,
    keys_field: &str,
    hosts_field: &str,
) -> Vec<(String, String)> {
    let mut problems = Vec::new();
    if spec.api_keys.len() > MAX_API_KEYS {
        problems.push((
            keys_field.to_string(),
            format!(
                "has {} keys; a server accepts at most {MAX_API_KEYS}",
                spec.api_keys.len()
            ),
        ));
    }
    if !spec.api_keys.is_empty() && spec.auth.is_some() {
        // A client sends one `Authorization` header; it cannot carry a key and a token.
        problems.push((
            keys_field.to_string(),
            "cannot be combined with OAuth (`auth`): both use `Authorization: Bearer`".into(),
        ));
    }
    for (i, key) in spec.api_keys.iter().enumerate() {
        if let Some(problem) = key_problem(key) {
            problems.push((format!("{keys_field}[{i}]"), problem));
        } else if let Some(first) = spec.api_keys[..i].iter().position(|k| k == key) {
            problems.push((
                format!("{keys_field}[{i}]"),
                format!("repeats {keys_field}[{first}]"),
            ));
        }
    }
    if spec.allowed_hosts.len() > MAX_ALLOWED_HOSTS {
        problems.push((
            hosts_field.to_string(),
            format!(
                "has {} entries; a server lists at most {MAX_ALLOWED_HOSTS}",
                spec.allowed_hosts.len()
            ),
        ));
    }
    for (i, host) in spec.allowed_hosts.iter().enumerate() {
        if let Some(problem) = host_problem(host) {
            problems.push((format!("{hosts_field}[{i}]"), problem));
        }
    }
    problems
}

/// The token of `Authorization: Bearer TOKEN` (scheme case-insensitive, RFC 9110 §11.1).
fn bearer_token(value: &HeaderValue) -> Option<&str> {
    let text = value.to_str().ok()?;
    let (scheme, token) = text.split_once(' ')?;
    let token = token.trim_start_matches(' ');
    (scheme.eq_ignore_ascii_case("bearer") && !token.is_empty()).then_some(token)
}

/// `401` with a challenge (RFC 6750 §3: no error code when no credentials were sent,
/// `invalid_token` when the token is not accepted) and a JSON-RPC error without id.
fn unauthorized(problem: KeyProblem) -> Response {
    let (message, reason, challenge) = match problem {
        KeyProblem::Missing => (
            "Unauthorized: the request has no Authorization header; this server requires `Authorization: Bearer API_KEY`",
            "missing",
            r#"Bearer realm="mcp-decoy""#,
        ),
        KeyProblem::NotBearer => (
            "Unauthorized: the Authorization header is not `Bearer API_KEY`; this server accepts only API keys as bearer tokens",
            "not_bearer",
            r#"Bearer realm="mcp-decoy", error="invalid_request""#,
        ),
        KeyProblem::Unknown => (
            "Unauthorized: the bearer token is not an API key this server accepts (unknown or revoked)",
            "unknown_key",
            r#"Bearer realm="mcp-decoy", error="invalid_token""#,
        ),
    };
    let error =
        RpcError::new(code::INVALID_REQUEST, message).with_data(json!({ "reason": reason }));
    (
        StatusCode::UNAUTHORIZED,
        [(header::WWW_AUTHENTICATE, challenge)],
        axum::Json(jsonrpc::error(&Value::Null, &error)),
    )
        .into_response()
}

fn forbidden(message: String) -> Response {
    let error = RpcError::new(code::INVALID_REQUEST, message);
    (
        StatusCode::FORBIDDEN,
        axum::Json(jsonrpc::error(&Value::Null, &error)),
    )
        .into_response()
}

mod host;

#[cfg(test)]
mod tests {
    use super::*;

    fn pattern(entry: &str) -> HostPattern {
        HostPattern::parse(entry).expect("a valid entry")
    }

    #[test]
    fn authorities_split_into_host_and_port() {
        assert_eq!(
            split_authority("Example.COM:8080"),
            Some(("example.com".into(), Some(8080)))
        );
        assert_eq!(
            split_authority("[::1]:3000"),
            Some(("[::1]".into(), Some(3000)))
        );
        assert_eq!(split_authority("[::1]"), Some(("[::1]".into(), None)));
        assert_eq!(
            split_authority("localhost"),
            Some(("localhost".into(), None))
        );
        assert_eq!(split_authority("host:port"), None);
        assert_eq!(split_authority("[::1]x"), None);
        assert_eq!(split_authority(":80"), None);
    }

    #[test]
    fn a_plain_loopback_authority_is_what_the_general_parse_calls_loopback() {
        for plain in ["127.0.0.1:1", "127.0.0.1:65535", "localhost:8080"] {
            assert!(is_plain_loopback(plain.as_bytes()), "{plain}");
            let (host, port) = split_authority(plain).expect("an authority");
            assert!(is_loopback_host(&host) && port.is_some(), "{plain}");
        }
        // Anything else goes the general way, which decides as before.
        for other in [
            "127.0.0.1",
            "127.0.0.1:",
            "127.0.0.1:65536",
            "127.0.0.1:+80",
            "127.0.0.1:123456",
            "localhost:8o",
            "LOCALHOST:80",
            "127.0.0.1.evil.example:80",
            "evil.example:80",
        ] {
            assert!(!is_plain_loopback(other.as_bytes()), "{other}");
        }
    }

    #[test]
    fn loopback_names_are_recognised() {
        for ok in ["localhost", "127.0.0.1", "127.0.0.2", "[::1]"] {
            assert!(is_loopback_host(ok), "{ok}");
        }
        for bad in [
            "localhost.evil.example",
            "10.0.0.1",
            "[::2]",
            "evil.example",
        ] {
            assert!(!is_loopback_host(bad), "{bad}");
        }
    }

    #[test]
    fn host_patterns_match_names_ports_and_subdomains() {
        assert!(pattern("mcp.example.com").matches("mcp.example.com", Some(443)));
        assert!(pattern("MCP.example.com").matches("mcp.example.com", None));
        assert!(pattern("mcp.example.com:8443").matches("mcp.example.com", Some(8443)));
        assert!(!pattern("mcp.example.com:8443").matches("mcp.example.com", Some(80)));
        let wildcard = pattern("*.trycloudflare.com");
        assert!(wildcard.matches("abc-def.trycloudflare.com", None));
        assert!(!wildcard.matches("trycloudflare.com", None));
        assert!(!wildcard.matches("eviltrycloudflare.com", None));
        assert!(pattern("[fd00::1]:80").matches("[fd00::1]", Some(80)));
    }

    #[test]
    fn bad_host_entries_say_why() {
        for (entry, says) in [
            ("", "empty"),
            ("https://mcp.example.com", "URL"),
            ("mcp.example.com/mcp", "URL"),
            ("mcp example.com", "not a host name"),
            ("mcp.example.com:http", "not a host name or `host:port`"),
            ("[nope]", "not a host name"),
        ] {
            let problem = host_problem(entry).expect("a problem");
            assert!(problem.contains(says), "{entry}: {problem}");
        }
    }

    #[test]
    fn bad_keys_say_why() {
        assert!(key_problem("").is_some_and(|p| p.contains("empty")));
        assert!(key_problem("a b").is_some_and(|p| p.contains("visible ASCII")));
        assert!(key_problem("clé").is_some_and(|p| p.contains("visible ASCII")));
        assert!(key_problem(&"k".repeat(513)).is_some_and(|p| p.contains("513 bytes")));
        assert_eq!(key_problem(&"k".repeat(512)), None);
    }

    #[test]
    fn spec_problems_name_each_entry() {
        let mut spec = ServerSpec::new("s");
        spec.api_keys = vec!["a".into(), "".into(), "a".into()];
        spec.allowed_hosts = vec!["ok.example".into(), "http://x".into()];
        let problems = spec_problems(&spec, "apiKeys", "allowedHosts");
        let fields: Vec<&str> = problems.iter().map(|(f, _)| f.as_str()).collect();
        assert_eq!(fields, ["apiKeys[1]", "apiKeys[2]", "allowedHosts[1]"]);
        assert!(problems[1].1.contains("repeats apiKeys[0]"));
        let error = check_spec(&spec).expect_err("invalid");
        assert!(
            error
                .to_string()
                .contains("`api_keys[1]` must not be empty"),
            "{error}"
        );
        spec.api_keys = vec!["k".into()];
        spec.allowed_hosts.clear();
        spec.auth = Some(crate::spec::OAuthSpec::default());
        let problems = spec_problems(&spec, "apiKeys", "allowedHosts");
        assert_eq!(problems.len(), 1);
        assert!(problems[0].1.contains("OAuth"), "{problems:?}");
    }

    #[test]
    fn bearer_tokens_are_read_case_insensitively() {
        let token =
            |v: &'static str| bearer_token(&HeaderValue::from_static(v)).map(str::to_string);
        assert_eq!(token("Bearer k1").as_deref(), Some("k1"));
        assert_eq!(token("bearer  k1").as_deref(), Some("k1"));
        assert_eq!(token("Basic a2V5"), None);
        assert_eq!(token("Bearer "), None);
        assert_eq!(token("Bearer"), None);
    }

    #[test]
    fn revoking_the_last_key_keeps_the_server_locked() {
        let mut spec = ServerSpec::new("s");
        spec.api_keys = vec!["k1".into()];
        let guard = Guard::new(&spec);
        let mut headers = HeaderMap::new();
        headers.insert(header::AUTHORIZATION, HeaderValue::from_static("Bearer k1"));
        let principal = guard.check_key(&headers).expect("a known key");
        // Named by a digest prefix, never by the key itself.
        let name = principal.expect("a principal").0;
        assert!(
            name.starts_with("api-key:") && !name.contains("k1"),
            "{name}"
        );
        assert!(guard.revoke_api_key("k1"));
        assert_eq!(guard.check_key(&headers), Err(KeyProblem::Unknown));
        assert_eq!(guard.check_key(&HeaderMap::new()), Err(KeyProblem::Missing));
    }
}
