//! OAuth 2.1: the server as its own authorization server and as the resource server in front
//! of the MCP endpoint. [`AuthServer`] holds the runtime state (clients, codes, tokens, the
//! consent mode, the issuer generation), every collection bounded with the oldest entry
//! evicted. The endpoints are served by [`endpoints`], a middleware that claims the OAuth
//! paths of the current configuration before routing (so the paths can change at run time,
//! as an authorization-server migration does), and [`guard`] sits in front of the MCP
//! endpoint.
//!
//! Paths are built from the *mount*: the fixture's MCP endpoint is `/mcp` (prefix ""), the
//! app's `/s/NAME/mcp` (prefix `/s/NAME`). The authorization server's endpoints live under
//! `{prefix}/oauth/`, the well-known documents at the root paths RFC 9728 and RFC 8414 name.
//! The issuer and the resource identifier are built per request from the `Host` the client
//! used ([`issuer`]), so a token obtained through one address is not valid through another.
//!
//! Secrets never reach the log unmasked: see [`mask`], which the capture layer calls.

pub(crate) mod admin;
mod assertion;
mod authorize;
mod check;
mod consent;
#[cfg(feature = "oauth-jwt")]
mod dpop;
#[cfg(feature = "oauth-jwt")]
mod idp;
mod issuer;
#[cfg(feature = "oauth-jwt")]
pub(crate) mod jwt;
mod metadata;
mod params;
mod register;
mod resource;
mod revoke;
mod routes;
mod store;
mod token;

use std::sync::{Mutex, MutexGuard, RwLock};
use std::time::{Duration, SystemTime};

use axum::http::{HeaderValue, StatusCode, header};
use axum::response::{IntoResponse, Response};
use base64::Engine as _;
use base64::engine::general_purpose::URL_SAFE_NO_PAD;
use chrono::{DateTime, Utc};
use serde::Serialize;
use serde_json::json;

pub(crate) use check::{check_spec, is_scope_char};
pub(crate) use resource::guard;
use routes::Endpoint;
pub(crate) use routes::endpoints;

use crate::spec::{
    AuthServerMetadata, Consent, LegacyDiscovery, OAuthSpec, ResourceMetadataLocation,
    TokenEndpointAuthMethod,
};
use store::{Bounded, Client, Code, Pending, Token};

/// Registered clients kept at most (pre-registered ones are not counted).
pub(crate) const MAX_CLIENTS: usize = 10_000;
/// Authorization codes kept at most, used ones included (reuse must still be detected).
pub(crate) const MAX_CODES: usize = 10_000;
/// Access tokens, and separately refresh tokens, kept at most.
pub(crate) const MAX_TOKENS: usize = 10_000;
/// Authorization requests waiting on the consent page at most.
pub(crate) const MAX_PENDING_CONSENTS: usize = 1_000;
/// The longest scope list, redirect URI list or other list a client may send.
pub(crate) const MAX_LIST: usize = 100;
/// The longest single parameter value accepted, in bytes.
pub(crate) const MAX_VALUE_BYTES: usize = 2_048;

/// Whether a token is an access token or a refresh token.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash, Serialize)]
#[serde(rename_all = "snake_case")]
#[non_exhaustive]
pub enum TokenKind {
    /// A bearer access token for the MCP endpoint.
    Access,
    /// A refresh token, exchanged (and rotated) at the token endpoint.
    Refresh,
}

/// A live token of a server on OAuth, as [`OAuthHandle::tokens`](crate::oauth::OAuthHandle::tokens)
/// lists it: everything but the secret value.
#[derive(Debug, Clone, PartialEq, Eq, Serialize)]
#[serde(rename_all = "camelCase")]
#[non_exhaustive]
pub struct TokenInfo {
    /// A stable id for revoking it (`at-1`, `rt-2`, ...); not the token.
    pub id: String,
    /// Access or refresh token.
    pub kind: TokenKind,
    /// The client it was issued to.
    pub client_id: String,
    /// The scopes it grants, in the order they were requested.
    pub scopes: Vec<String>,
    /// The resource (RFC 8707) it is bound to, its audience.
    pub resource: Option<String>,
    /// When it was issued, by the server's clock.
    pub issued_at: DateTime<Utc>,
    /// When it expires, by the server's clock; `None`: never.
    pub expires_at: Option<DateTime<Utc>>,
    /// The RFC 7638 thumbprint of the DPoP key it is bound to (`cnf.jkt`), if bound.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub dpop_jkt: Option<String>,
}

/// Where one server's endpoints are mounted.
#[derive(Debug, Clone)]
pub(crate) struct Mount {
    /// `""` for the fixture, `/s/NAME` in the app.
    pub(crate) prefix: String,
    /// The MCP endpoint's path, `{prefix}/mcp`.
    pub(crate) mcp_path: String,
}

impl Mount {
    /// Where the identity provider is served, when the server has one.
    fn idp_base(&self) -> String {
        format!("{}/idp", self.prefix)
    }

    fn at(mcp_path: &str) -> Self {
        let prefix = match mcp_path.rfind('/') {
            Some(slash) => mcp_path[..slash].to_string(),
            None => String::new(),
        };
        Mount {
            prefix,
            mcp_path: mcp_path.to_string(),
        }
    }
}

/// One server's authorization server and resource-server state.
#[derive(Debug)]
pub(crate) struct AuthServer {
    pub(crate) spec: OAuthSpec,
    state: Mutex<Records>,
    mount: RwLock<Mount>,
    #[cfg(feature = "oauth-cimd")]
    fetcher: register::Fetcher,
    /// The identity provider's signing key, when it has one (made at start).
    #[cfg(feature = "oauth-jwt")]
    idp_key: Option<jwt::SigningKey>,
    /// The nonce DPoP proofs must carry when `dpop_nonce` is on (made at start).
    #[cfg(feature = "oauth-jwt")]
    dpop_nonce: String,
}

#[derive(Debug)]
struct Records {
    clients: Bounded<Client>,
    codes: Bounded<Code>,
    access: Bounded<Token>,
    refresh: Bounded<Token>,
    /// Refresh tokens already used once, by their text: a second use is a stolen token's,
    /// and revokes what the grant issued since (OAuth 2.1 section 4.3.1).
    rotated: Bounded<store::Rotated>,
    pending: Bounded<Pending>,
    consent: Consent,
    /// Bumped by each authorization-server migration: the issuer changes and the clients
    /// and tokens of the old one are gone.
    generation: u32,
    /// Whether the automatic migration (`authorization_server_migration`) happened.
    migrated: bool,
    /// The `jti`s of the DPoP proofs taken, until their `iat` window closes: a proof is
    /// good once (RFC 9449 section 11.1).
    #[cfg(feature = "oauth-jwt")]
    proofs: Bounded<SystemTime>,
    next_id: u64,
}

impl AuthServer {
    /// The state of a validated spec.
    pub(crate) fn new(spec: OAuthSpec) -> Self {
        let state = Records {
            clients: Bounded::new(MAX_CLIENTS),
            codes: Bounded::new(MAX_CODES),
            access: Bounded::new(MAX_TOKENS),
            refresh: Bounded::new(MAX_TOKENS),
            rotated: Bounded::new(MAX_TOKENS),
            pending: Bounded::new(MAX_PENDING_CONSENTS),
            consent: spec.consent,
            generation: 0,
            migrated: false,
            #[cfg(feature = "oauth-jwt")]
            proofs: Bounded::new(MAX_TOKENS),
            next_id: 1,
        };
        AuthServer {
            #[cfg(feature = "oauth-jwt")]
            idp_key: spec
                .identity_provider
                .as_ref()
                .map(|_| jwt::SigningKey::generate()),
            #[cfg(feature = "oauth-jwt")]
            dpop_nonce: secret(),
            spec,
            state: Mutex::new(state),
            mount: RwLock::new(Mount::at("/mcp")),
            #[cfg(feature = "oauth-cimd")]
            fetcher: register::Fetcher::default(),
        }
    }

    fn lock(&self) -> MutexGuard<'_, Records> {
        self.state.lock().unwrap_or_else(|p| p.into_inner())
    }

    /// Records where the MCP endpoint is mounted (called by `Endpoint::new`).
    pub(crate) fn set_mount(&self, mcp_path: &str) {
        *self.mount.write().unwrap_or_else(|p| p.into_inner()) = Mount::at(mcp_path);
    }

    pub(crate) fn mount(&self) -> Mount {
        self.mount.read().unwrap_or_else(|p| p.into_inner()).clone()
    }

    /// The live tokens, access tokens first, oldest first; expired ones are left out.
    pub(crate) fn tokens(&self, now: SystemTime) -> Vec<TokenInfo> {
        let state = self.lock();
        state
            .access
            .values()
            .chain(state.refresh.values())
            .filter(|t| !t.expired(now))
            .map(Token::info)
            .collect()
    }

    /// Revokes one token by its id; whether it was live. Revoking an access token leaves
    /// its refresh token valid, and the other way round (the product guide).
    pub(crate) fn revoke(&self, id: &str) -> bool {
        let mut state = self.lock();
        state.access.remove_where(|t| t.id == id) + state.refresh.remove_where(|t| t.id == id) > 0
    }

    /// Revokes every token; how many were live (not expired) at `now`.
    pub(crate) fn revoke_all(&self, now: SystemTime) -> usize {
        let mut state = self.lock();
        let count = state
            .access
            .values()
            .chain(state.refresh.values())
            .filter(|t| !t.expired(now))
            .count();
        state.access.clear();
        state.refresh.clear();
        state.rotated.clear();
        count
    }

    /// The consent mode in force.
    pub(crate) fn consent(&self) -> Consent {
        self.lock().consent
    }

    /// Changes what the authorization endpoint does from the next request on.
    pub(crate) fn set_consent(&self, consent: Consent) {
        self.lock().consent = consent;
    }

    /// Moves to a new authorization server: a new issuer (`…/as2`, `…/as3`, ...) with its
    /// endpoints under `…/oauth/as2`, that knows none of the old one's registered clients,
    /// codes or tokens. Pre-registered clients stay (they are configuration).
    pub(crate) fn migrate(&self) {
        let mut state = self.lock();
        state.generation = state.generation.saturating_add(1);
        state.clients.clear();
        state.codes.clear();
        state.access.clear();
        state.refresh.clear();
        state.rotated.clear();
        state.pending.clear();
    }

    fn generation(&self) -> u32 {
        self.lock().generation
    }

    /// The issuer's path after the origin: mount prefix, configured issuer path and the
    /// migration suffix. Empty for the 2025-03-26 modes, whose issuer is the origin.
    pub(crate) fn issuer_path(&self, mount: &Mount) -> String {
        if self.spec.legacy.is_some() {
            return String::new();
        }
        let mut path = mount.prefix.clone();
        if let Some(extra) = &self.spec.issuer_path {
            path.push_str(extra.trim_end_matches('/'));
        }
        let generation = self.generation();
        if generation > 0 {
            path.push_str(&format!("/as{}", generation + 1));
        }
        path
    }

    /// Where the authorization server's endpoints live: `{prefix}/oauth`, `{prefix}/oauth/as2`
    /// after a migration (the old server's endpoints are gone with it), or the root for the
    /// 2025-03-26 endpoint fallback.
    pub(crate) fn endpoint_base(&self, mount: &Mount) -> String {
        match self.spec.legacy {
            Some(LegacyDiscovery::EndpointFallback) => String::new(),
            _ => match self.generation() {
                0 => format!("{}/oauth", mount.prefix),
                generation => format!("{}/oauth/as{}", mount.prefix, generation + 1),
            },
        }
    }

    /// The path of the Protected Resource Metadata, if one is served.
    pub(crate) fn resource_metadata_path(&self, mount: &Mount) -> Option<String> {
        if self.spec.legacy.is_some() {
            return None;
        }
        Some(match &self.spec.resource_metadata {
            ResourceMetadataLocation::Path => {
                format!("/.well-known/oauth-protected-resource{}", mount.mcp_path)
            }
            ResourceMetadataLocation::Root => "/.well-known/oauth-protected-resource".into(),
            ResourceMetadataLocation::Custom(path) => format!("{}{path}", mount.prefix),
        })
    }

    /// The paths of the authorization server metadata documents served now.
    pub(crate) fn metadata_paths(&self, mount: &Mount) -> Vec<(String, AuthServerMetadata)> {
        match self.spec.legacy {
            Some(LegacyDiscovery::EndpointFallback) => return Vec::new(),
            Some(LegacyDiscovery::MetadataAtRoot) => {
                return vec![(
                    "/.well-known/oauth-authorization-server".into(),
                    AuthServerMetadata::OAuth,
                )];
            }
            None => {}
        }
        let issuer_path = self.issuer_path(mount);
        let mut paths: Vec<(String, AuthServerMetadata)> = Vec::new();
        for kind in &self.spec.authorization_server_metadata {
            let path = match kind {
                AuthServerMetadata::OAuth => {
                    format!("/.well-known/oauth-authorization-server{issuer_path}")
                }
                AuthServerMetadata::OpenIdInserted => {
                    format!("/.well-known/openid-configuration{issuer_path}")
                }
                AuthServerMetadata::OpenIdAppended => {
                    format!("{issuer_path}/.well-known/openid-configuration")
                }
            };
            // Without an issuer path, inserted and appended OpenID paths coincide.
            if !paths.iter().any(|(p, _)| *p == path) {
                paths.push((path, *kind));
            }
        }
        paths
    }

    /// Every path this server answers at the root of the listener (well-known documents and
    /// the 2025-03-26 fallback endpoints), for the app to route root requests to it.
    #[cfg(any(test, feature = "decoy-cli"))]
    pub(crate) fn root_paths(&self) -> Vec<String> {
        let mount = self.mount();
        let mut paths: Vec<String> = self.resource_metadata_path(&mount).into_iter().collect();
        paths.extend(self.metadata_paths(&mount).into_iter().map(|(p, _)| p));
        if self.spec.legacy == Some(LegacyDiscovery::EndpointFallback) {
            paths.extend(["/authorize", "/token", "/register", "/revoke"].map(String::from));
        }
        paths.retain(|p| !p.starts_with(&format!("{}/", mount.prefix)) || mount.prefix.is_empty());
        paths
    }

    /// Whether `path` is one of the OAuth endpoints or documents (the capture masks their
    /// secrets).
    pub(crate) fn owns(&self, path: &str) -> bool {
        self.route(path).is_some()
    }

    /// Which endpoint `path` is, if any.
    fn route(&self, path: &str) -> Option<Endpoint> {
        let mount = self.mount();
        if self.resource_metadata_path(&mount).as_deref() == Some(path) {
            return Some(Endpoint::ResourceMetadata);
        }
        if let Some((_, kind)) = self
            .metadata_paths(&mount)
            .into_iter()
            .find(|(p, _)| p == path)
        {
            return Some(Endpoint::ServerMetadata(kind));
        }
        #[cfg(feature = "oauth-jwt")]
        if self.spec.identity_provider.is_some()
            && let Some(rest) = path.strip_prefix(&mount.idp_base())
        {
            return match rest {
                "/.well-known/openid-configuration" => Some(Endpoint::IdpMetadata),
                "/token" => Some(Endpoint::IdpToken),
                "/jwks" => Some(Endpoint::IdpJwks),
                _ => None,
            };
        }
        let rest = path.strip_prefix(&self.endpoint_base(&mount))?;
        Some(match rest {
            "/authorize" => Endpoint::Authorize,
            "/consent" => Endpoint::Consent,
            "/token" => Endpoint::Token,
            "/register" => Endpoint::Register,
            "/revoke" => Endpoint::Revoke,
            "/jwks" => Endpoint::Jwks,
            _ => return None,
        })
    }

    /// The pre-registered client and those registered so far, for authentication.
    fn client(&self, state: &Records, client_id: &str) -> Option<Client> {
        if let Some(pre) = self
            .spec
            .pre_registered_clients
            .iter()
            .find(|c| c.client_id == client_id)
        {
            return Some(Client::pre_registered(pre));
        }
        state.clients.get(client_id).cloned()
    }

    /// The identity provider's issuer and an ID token it signs for `user`, when the server
    /// has one; `base_url` is the server's address.
    #[cfg(feature = "oauth-jwt")]
    pub(crate) fn id_token(&self, base_url: &str, user: &str) -> Option<String> {
        let (idp, key) = (
            self.spec.identity_provider.as_ref()?,
            self.idp_key.as_ref()?,
        );
        let issuer = self.idp_issuer(base_url)?;
        Some(idp::id_token(key, &issuer, &idp.client_id, user))
    }

    /// The identity provider's issuer at `base_url`, when the server has one.
    pub(crate) fn idp_issuer(&self, base_url: &str) -> Option<String> {
        self.spec
            .identity_provider
            .as_ref()
            .map(|_| format!("{base_url}{}", self.mount().idp_base()))
    }

    fn next_id(state: &mut Records, kind: &str) -> String {
        let id = format!("{kind}-{}", state.next_id);
        state.next_id += 1;
        id
    }

    /// Whether the token endpoint takes the `jwt-bearer` grant: from trusted issuers, or
    /// ID-JAGs of its own identity provider.
    fn takes_jwt_grants(&self) -> bool {
        !self.spec.jwt_bearer_issuers.is_empty() || self.spec.identity_provider.is_some()
    }

    /// The token auth methods accepted, as configured.
    fn accepts(&self, method: TokenEndpointAuthMethod) -> bool {
        self.spec.token_endpoint_auth_methods.contains(&method)
    }

    /// Scopes a client may ask for: everything the configuration names; `None` when it
    /// names none, and then any scope is granted as asked.
    fn known_scopes(&self) -> Option<Vec<String>> {
        let mut known: Vec<String> = self.spec.scopes_supported.clone();
        if let Some(challenge) = &self.spec.challenge_scope {
            known.extend(challenge.split_whitespace().map(str::to_string));
        }
        for scopes in self.spec.tool_scopes.values() {
            known.extend(scopes.iter().cloned());
        }
        if known.is_empty() {
            return None;
        }
        if self.spec.offline_access {
            known.push("offline_access".into());
        }
        Some(known)
    }

    /// Whether a `client_id` would be fetched as a Client ID Metadata Document.
    fn is_metadata_url(&self, client_id: &str) -> bool {
        self.spec.client_id_metadata_documents
            && (client_id.starts_with("https://") || client_id.starts_with("http://"))
    }
}

/// An OAuth error response (RFC 6749 section 5.2 shape: `error` and `error_description`).
#[derive(Debug)]
pub(crate) struct OAuthError {
    status: StatusCode,
    code: &'static str,
    description: String,
    challenge: Option<String>,
    /// A `DPoP-Nonce` to send (RFC 9449 section 8).
    nonce: Option<String>,
}

impl OAuthError {
    pub(crate) fn new(
        status: StatusCode,
        code: &'static str,
        description: impl Into<String>,
    ) -> Self {
        OAuthError {
            status,
            code,
            description: description.into(),
            challenge: None,
            nonce: None,
        }
    }

    /// `400` with this error code.
    pub(crate) fn bad(code: &'static str, description: impl Into<String>) -> Self {
        Self::new(StatusCode::BAD_REQUEST, code, description)
    }

    /// `invalid_client` is `401`, with a `Basic` challenge when the client tried Basic
    /// (RFC 6749 section 5.2).
    pub(crate) fn invalid_client(description: String, used_basic: bool) -> Self {
        let error = Self::new(StatusCode::UNAUTHORIZED, "invalid_client", description);
        if used_basic {
            error.with_challenge(r#"Basic realm="mcp-decoy""#.into())
        } else {
            error
        }
    }

    /// `invalid_grant`: the code or refresh token presented cannot be used.
    pub(crate) fn grant(description: impl Into<String>) -> Self {
        Self::bad("invalid_grant", description)
    }

    #[cfg(feature = "oauth-jwt")]
    pub(crate) fn with_nonce(mut self, nonce: String) -> Self {
        self.nonce = Some(nonce);
        self
    }

    pub(crate) fn with_challenge(mut self, challenge: String) -> Self {
        self.challenge = Some(challenge);
        self
    }
}

impl IntoResponse for OAuthError {
    fn into_response(self) -> Response {
        let body = json!({ "error": self.code, "error_description": self.description });
        let mut response = (self.status, no_store(), axum::Json(body)).into_response();
        if let Some(challenge) = self.challenge
            && let Ok(value) = HeaderValue::from_str(&challenge)
        {
            response
                .headers_mut()
                .insert(header::WWW_AUTHENTICATE, value);
        }
        if let Some(nonce) = self.nonce
            && let Ok(value) = HeaderValue::from_str(&nonce)
        {
            response.headers_mut().insert("dpop-nonce", value);
        }
        response
    }
}

/// RFC 6749 section 5.1: token responses must not be cached.
pub(crate) fn no_store() -> [(header::HeaderName, &'static str); 2] {
    [
        (header::CACHE_CONTROL, "no-store"),
        (header::PRAGMA, "no-cache"),
    ]
}

/// A random secret: 32 bytes, base64url (256 bits, RFC 6749 section 10.10).
pub(crate) fn secret() -> String {
    URL_SAFE_NO_PAD.encode(crate::engine::random::bytes::<32>())
}

pub(crate) fn after(now: SystemTime, secs: u64) -> SystemTime {
    now.checked_add(Duration::from_secs(secs)).unwrap_or(now)
}

pub(crate) fn utc(time: SystemTime) -> DateTime<Utc> {
    DateTime::<Utc>::from(time)
}

#[cfg(test)]
mod tests;
