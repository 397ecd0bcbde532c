//! [`AuthScenario`]: the server side of every client authorization scenario of the MCP
//! conformance suite, as plain [`OAuthSpec`] settings ([`AuthScenario::oauth_spec`]). The
//! fixture's `OAuth::preset` and the app's `auth.preset` both build from here, so a Rust client
//! crate and a client run against the app see the same servers.
//!
//! Each preset reproduces what the suite's mock serves (`@modelcontextprotocol/conformance`
//! 0.2.0-alpha.11, `src/scenarios/client/auth/**`), compiled to the same [`OAuthSpec`]
//! knobs a test can set by hand. One difference is deliberate: the suite runs the
//! authorization server on a second port, the decoy serves both roles on one, so the issuer
//! is the server's base URL (plus the scenario's path, such as `/tenant1`).
//!
//! Plain data like the rest of `spec`: no I/O, and nothing of the fixture or the app.

use super::auth::{
    AuthServerMetadata, IssResponse, LegacyDiscovery, OAuthSpec, PreRegisteredClient,
    ResourceMetadataLocation, TokenEndpointAuthMethod,
};

/// A client authorization scenario of the MCP conformance suite, as a preset of the
/// fixture's authorization server ([`OAuth::preset`](crate::oauth::OAuth::preset)) and of the app's
/// `auth.preset`.
///
/// Each variant says what the server does and what a correct client does against it. The
/// scopes, client ids and URLs are the suite's own, so a client tested here behaves as it
/// would against the suite. Unless a variant says otherwise the server is
/// [`OAuth::new`](crate::oauth::OAuth::new)'s, serving only the RFC 8414 authorization server metadata at
/// `/.well-known/oauth-authorization-server`, taking no Client ID Metadata Documents,
/// issuing no refresh tokens and not requiring `resource` (RFC 8707), as the suite's mock
/// does.
///
/// # Example
/// ```
/// # #[tokio::main(flavor = "current_thread")]
/// # async fn main() {
/// use mcp_decoy::oauth::{AuthScenario, OAuth};
/// use mcp_decoy::{MockMcpServer, Tool};
///
/// // Arrange: the step-up scenario, one server per scenario.
/// for scenario in AuthScenario::ALL {
///     assert!(scenario.name().starts_with("auth/"));
/// }
/// let server = MockMcpServer::builder()
///     .tool(Tool::echo())
///     .oauth(OAuth::preset(AuthScenario::ScopeStepUp))
///     .start()
///     .await;
///
/// // Act: the client under test connects to `server.url()`...
/// let answer = reqwest::Client::new().post(server.url()).body("{}").send().await.unwrap();
///
/// // Assert: ...and is challenged for the scope the scenario names first.
/// assert_eq!(answer.status(), 401);
/// assert!(answer.headers()["www-authenticate"].to_str().unwrap().contains(r#"scope="mcp:basic""#));
/// # }
/// ```
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash)]
#[non_exhaustive]
pub enum AuthScenario {
    /// `auth/metadata-default`. The 401 names the Protected Resource Metadata at its path
    /// form, `/.well-known/oauth-protected-resource/mcp`; the authorization server metadata
    /// is at `/.well-known/oauth-authorization-server`; the root metadata
    /// `/.well-known/oauth-protected-resource` is not served (404).
    ///
    /// A correct client follows the URL in the header and never fetches the root document,
    /// then registers (DCR), authorizes and exchanges the code.
    MetadataDefault,
    /// `auth/metadata-var1`. The resource metadata is at the path form but the 401 does not
    /// name it; the authorization server publishes only OpenID Connect discovery,
    /// `/.well-known/openid-configuration` (with `jwks_uri` and the other OIDC fields).
    ///
    /// A correct client probes the path-form well-known URL, then falls back from RFC 8414
    /// to OpenID discovery, registers, authorizes and exchanges the code.
    MetadataVar1,
    /// `auth/metadata-var2`. The resource metadata is only at the root,
    /// `/.well-known/oauth-protected-resource`, not named in the 401; the issuer has a path,
    /// `…/tenant1`, and its metadata is at `/.well-known/oauth-authorization-server/tenant1`
    /// (the root `/.well-known/oauth-authorization-server` is 404).
    ///
    /// A correct client tries the path form (404), then the root form; it builds the RFC
    /// 8414 URL by inserting the well-known part before the issuer's path.
    MetadataVar2,
    /// `auth/metadata-var3`. The 401 names a custom resource metadata URL,
    /// `/custom/metadata/location.json`; the issuer is `…/tenant1` and publishes only OpenID
    /// discovery appended to its path, `/tenant1/.well-known/openid-configuration`.
    ///
    /// A correct client uses the URL from the header as is, then tries the RFC 8414 and
    /// OpenID URLs for a path issuer in priority order until the appended form answers.
    MetadataVar3,
    /// `auth/basic-cimd`. The authorization server advertises
    /// `client_id_metadata_document_supported: true` (DCR is still offered) and fetches a
    /// URL `client_id` to validate the redirect URI against it (feature `oauth-cimd`). It
    /// holds the document of the suite's URL,
    /// [`CLIENT_METADATA_URL`](Self::CLIENT_METADATA_URL), which nothing serves, with the
    /// redirect URIs [`PRE_REGISTERED_REDIRECT_URIS`](Self::PRE_REGISTERED_REDIRECT_URIS).
    ///
    /// A correct client that has a Client ID Metadata Document uses its https URL as
    /// `client_id` and does not register.
    BasicCimd,
    /// `auth/scope-from-www-authenticate`. The 401 carries `scope="mcp:basic"`; the
    /// resource metadata lists no `scopes_supported`; every request needs `mcp:basic`.
    ///
    /// A correct client requests exactly the challenged scope, `mcp:basic`.
    ScopeFromWwwAuthenticate,
    /// `auth/scope-from-scopes-supported`. No `scope` in the 401; the metadata lists
    /// `scopes_supported: ["mcp:basic", "mcp:read", "mcp:write"]`.
    ///
    /// A correct client requests all three.
    ScopeFromScopesSupported,
    /// `auth/scope-omitted-when-undefined`. No scope anywhere: not in the 401, no
    /// `scopes_supported`.
    ///
    /// A correct client omits the `scope` parameter.
    ScopeOmittedWhenUndefined,
    /// `auth/scope-step-up`. `initialize` and notifications need no token; the 401 on
    /// the first other request carries `scope="mcp:basic"` (the metadata's
    /// `scopes_supported` is the decoy `["mcp:profile"]`); every `tools/call` needs
    /// `mcp:write` and a token without it gets 403 with
    /// `WWW-Authenticate: Bearer error="insufficient_scope", scope="mcp:write", …`, naming
    /// only the scope lacking.
    ///
    /// A correct client authorizes first with `mcp:basic`, then, on the 403, re-authorizes
    /// with the union `mcp:basic mcp:write` (2026-07-28; 2025-11-25 asks only for the new
    /// scope) and retries the call, which succeeds.
    ScopeStepUp,
    /// `auth/scope-retry-limit`. `initialize` and notifications need no token; the 401
    /// carries `scope="mcp:admin"` (also the only `scopes_supported`); every other request
    /// with a token, whatever it holds, gets 403
    /// `insufficient_scope` for `mcp:admin`: the step-up can never succeed.
    ///
    /// A correct client re-authorizes a few times at most (the suite allows three
    /// authorization requests) and then reports the failure instead of looping.
    ScopeRetryLimit,
    /// `auth/token-endpoint-auth-basic`. The token endpoint accepts only
    /// `client_secret_basic`, and registration answers with that method and a secret.
    ///
    /// A correct client authenticates with `Authorization: Basic` and sends the same
    /// canonical `resource` (no fragment) to the authorization and token endpoints.
    TokenEndpointAuthBasic,
    /// `auth/token-endpoint-auth-post`. As [`TokenEndpointAuthBasic`](Self::TokenEndpointAuthBasic)
    /// with `client_secret_post` only.
    ///
    /// A correct client sends `client_id` and `client_secret` in the form body, and the same
    /// `resource` to both endpoints.
    TokenEndpointAuthPost,
    /// `auth/token-endpoint-auth-none`. As [`TokenEndpointAuthBasic`](Self::TokenEndpointAuthBasic)
    /// with `none` only: registration issues no secret.
    ///
    /// A correct client is a public client: `client_id` in the body, no secret, and the
    /// same `resource` to both endpoints.
    TokenEndpointAuthNone,
    /// `auth/pre-registration`. No `registration_endpoint` and no Client ID Metadata
    /// Documents; one client is known in advance,
    /// [`PRE_REGISTERED_CLIENT_ID`](Self::PRE_REGISTERED_CLIENT_ID) with
    /// [`PRE_REGISTERED_CLIENT_SECRET`](Self::PRE_REGISTERED_CLIENT_SECRET) and the redirect
    /// URIs [`PRE_REGISTERED_REDIRECT_URIS`](Self::PRE_REGISTERED_REDIRECT_URIS); the token
    /// endpoint takes only `client_secret_basic`.
    ///
    /// A correct client uses the credentials it was given, with HTTP Basic, and does not try
    /// to register. A client with another redirect URI builds the same server by hand:
    /// `OAuth::new().dynamic_registration(false).client_id_metadata_documents(false)
    /// .token_endpoint_auth_methods([TokenEndpointAuthMethod::ClientSecretBasic])
    /// .pre_registered_client(ID, Some(SECRET), [its_uri])`.
    PreRegistration,
    /// `auth/2025-03-26-oauth-metadata-backcompat`. No Protected Resource Metadata (the
    /// 401 names none, the well-known URLs are 404); the authorization server metadata is at
    /// the MCP server's root, `/.well-known/oauth-authorization-server`.
    ///
    /// A correct 2025-03-26 client derives the authorization base URL from the MCP URL,
    /// reads the metadata there, registers, authorizes and exchanges the code. `resource`
    /// is optional here (that revision predates RFC 8707 in MCP).
    LegacyMetadataBackcompat,
    /// `auth/2025-03-26-oauth-endpoint-fallback`. No metadata at all; the endpoints are the
    /// 2025-03-26 defaults at the root: `/authorize`, `/token`, `/register`.
    ///
    /// The redirect carries no `iss` (there is no metadata to record an issuer from).
    ///
    /// A correct 2025-03-26 client falls back to those three paths after the metadata
    /// requests get 404. `resource` is optional here.
    LegacyEndpointFallback,
    /// `auth/resource-mismatch`. The resource metadata claims
    /// `resource: "https://evil.example.com/mcp"`, not the server's URL.
    ///
    /// A correct client stops before the authorization request: it never sends the user
    /// to an authorization server for another resource.
    ResourceMismatch,
    /// `auth/offline-access-scope`. The authorization server lists
    /// `scopes_supported: ["mcp:basic", "offline_access"]` (the resource metadata only
    /// `mcp:basic`) and the `refresh_token` grant, and issues refresh tokens (the one preset
    /// that does); DCR and CIMD are both offered, CIMD as in [`BasicCimd`](Self::BasicCimd).
    ///
    /// A correct client that wants refresh tokens adds `offline_access` to its `scope` and
    /// `refresh_token` to its registered `grant_types` (SEP-2207).
    OfflineAccessScope,
    /// `auth/offline-access-not-supported`. Both metadata documents list
    /// `scopes_supported: ["mcp:basic", "mcp:read"]`, without `offline_access`.
    ///
    /// A correct client does not request `offline_access`.
    OfflineAccessNotSupported,
    /// `auth/authorization-server-migration`. `initialize` and notifications need no token;
    /// the 401 carries `scope="mcp:basic"`. After the first request accepted with a token, the resource metadata names a new issuer (with
    /// its own clients and tokens) and refuses the old tokens with 401.
    ///
    /// A correct client rediscovers, registers again with the new authorization server and
    /// never presents the old `client_id` or credentials to it (SEP-2352).
    AuthorizationServerMigration,
    /// `auth/iss-supported`. The metadata advertises
    /// `authorization_response_iss_parameter_supported: true` and the redirect carries the
    /// exact issuer as `iss`.
    ///
    /// A correct client compares `iss` with the issuer it recorded and exchanges the code.
    IssSupported,
    /// `auth/iss-not-advertised`. No `authorization_response_iss_parameter_supported` and no
    /// `iss` in the redirect.
    ///
    /// A correct client proceeds to the token request.
    IssNotAdvertised,
    /// `auth/iss-supported-missing`. `iss` support is advertised, but the redirect has none.
    ///
    /// A correct client rejects the response: it reaches the authorization endpoint but
    /// never sends the code to the token endpoint.
    IssSupportedMissing,
    /// `auth/iss-wrong-issuer`. `iss` support is advertised and the redirect carries
    /// `iss=https://evil.example.com`.
    ///
    /// A correct client rejects the response and makes no token request.
    IssWrongIssuer,
    /// `auth/iss-unexpected`. `iss` support is not advertised, yet the redirect carries
    /// `iss=https://evil.example.com`.
    ///
    /// A correct client compares a present `iss` anyway, rejects it and makes no token
    /// request.
    IssUnexpected,
    /// `auth/iss-normalized`. `iss` support is advertised and the redirect carries the
    /// issuer with a trailing `/`, equal only after URL normalisation.
    ///
    /// A correct client compares byte for byte, rejects it and makes no token request.
    IssNormalized,
    /// `auth/metadata-issuer-mismatch`. The authorization server metadata claims
    /// `issuer: "https://attacker.example.com"`, not the issuer its well-known URL was built
    /// from.
    ///
    /// A correct client fetches the metadata, rejects it and uses none of its endpoints: no
    /// registration, authorization or token request.
    MetadataIssuerMismatch,
}

impl AuthScenario {
    /// Every scenario, in the suite's order.
    pub const ALL: [AuthScenario; 27] = [
        AuthScenario::MetadataDefault,
        AuthScenario::MetadataVar1,
        AuthScenario::MetadataVar2,
        AuthScenario::MetadataVar3,
        AuthScenario::BasicCimd,
        AuthScenario::ScopeFromWwwAuthenticate,
        AuthScenario::ScopeFromScopesSupported,
        AuthScenario::ScopeOmittedWhenUndefined,
        AuthScenario::ScopeStepUp,
        AuthScenario::ScopeRetryLimit,
        AuthScenario::TokenEndpointAuthBasic,
        AuthScenario::TokenEndpointAuthPost,
        AuthScenario::TokenEndpointAuthNone,
        AuthScenario::PreRegistration,
        AuthScenario::LegacyMetadataBackcompat,
        AuthScenario::LegacyEndpointFallback,
        AuthScenario::ResourceMismatch,
        AuthScenario::OfflineAccessScope,
        AuthScenario::OfflineAccessNotSupported,
        AuthScenario::AuthorizationServerMigration,
        AuthScenario::IssSupported,
        AuthScenario::IssNotAdvertised,
        AuthScenario::IssSupportedMissing,
        AuthScenario::IssWrongIssuer,
        AuthScenario::IssUnexpected,
        AuthScenario::IssNormalized,
        AuthScenario::MetadataIssuerMismatch,
    ];

    /// The Client ID Metadata Document URL the suite's clients use
    /// ([`BasicCimd`](Self::BasicCimd)); it resolves nowhere, so the presets that take
    /// metadata documents hold its document.
    pub const CLIENT_METADATA_URL: &'static str =
        "https://conformance-test.local/client-metadata.json";

    /// The `client_id` of [`PreRegistration`](Self::PreRegistration)'s client.
    pub const PRE_REGISTERED_CLIENT_ID: &'static str = "pre-registered-client";

    /// The secret of [`PreRegistration`](Self::PreRegistration)'s client.
    pub const PRE_REGISTERED_CLIENT_SECRET: &'static str = "pre-registered-secret";

    /// The redirect URIs registered for [`PreRegistration`](Self::PreRegistration)'s
    /// client (the spec's example callback, on both loopback names), compared exactly.
    pub const PRE_REGISTERED_REDIRECT_URIS: [&'static str; 2] = [
        "http://localhost:3000/callback",
        "http://127.0.0.1:3000/callback",
    ];

    /// Every scenario, in the suite's order.
    pub fn iter() -> impl Iterator<Item = AuthScenario> {
        Self::ALL.into_iter()
    }

    /// The suite's name for it, such as `auth/metadata-default`.
    pub fn name(self) -> &'static str {
        match self {
            AuthScenario::MetadataDefault => "auth/metadata-default",
            AuthScenario::MetadataVar1 => "auth/metadata-var1",
            AuthScenario::MetadataVar2 => "auth/metadata-var2",
            AuthScenario::MetadataVar3 => "auth/metadata-var3",
            AuthScenario::BasicCimd => "auth/basic-cimd",
            AuthScenario::ScopeFromWwwAuthenticate => "auth/scope-from-www-authenticate",
            AuthScenario::ScopeFromScopesSupported => "auth/scope-from-scopes-supported",
            AuthScenario::ScopeOmittedWhenUndefined => "auth/scope-omitted-when-undefined",
            AuthScenario::ScopeStepUp => "auth/scope-step-up",
            AuthScenario::ScopeRetryLimit => "auth/scope-retry-limit",
            AuthScenario::TokenEndpointAuthBasic => "auth/token-endpoint-auth-basic",
            AuthScenario::TokenEndpointAuthPost => "auth/token-endpoint-auth-post",
            AuthScenario::TokenEndpointAuthNone => "auth/token-endpoint-auth-none",
            AuthScenario::PreRegistration => "auth/pre-registration",
            AuthScenario::LegacyMetadataBackcompat => "auth/2025-03-26-oauth-metadata-backcompat",
            AuthScenario::LegacyEndpointFallback => "auth/2025-03-26-oauth-endpoint-fallback",
            AuthScenario::ResourceMismatch => "auth/resource-mismatch",
            AuthScenario::OfflineAccessScope => "auth/offline-access-scope",
            AuthScenario::OfflineAccessNotSupported => "auth/offline-access-not-supported",
            AuthScenario::AuthorizationServerMigration => "auth/authorization-server-migration",
            AuthScenario::IssSupported => "auth/iss-supported",
            AuthScenario::IssNotAdvertised => "auth/iss-not-advertised",
            AuthScenario::IssSupportedMissing => "auth/iss-supported-missing",
            AuthScenario::IssWrongIssuer => "auth/iss-wrong-issuer",
            AuthScenario::IssUnexpected => "auth/iss-unexpected",
            AuthScenario::IssNormalized => "auth/iss-normalized",
            AuthScenario::MetadataIssuerMismatch => "auth/metadata-issuer-mismatch",
        }
    }

    /// The scenario with this suite name, with or without the `auth/` prefix.
    ///
    /// ```
    /// use mcp_decoy::oauth::AuthScenario;
    ///
    /// assert_eq!(AuthScenario::from_name("scope-step-up"), Some(AuthScenario::ScopeStepUp));
    /// assert_eq!(AuthScenario::from_name("auth/iss-normalized"), Some(AuthScenario::IssNormalized));
    /// assert_eq!(AuthScenario::from_name("auth/dpop"), None);
    /// ```
    pub fn from_name(name: &str) -> Option<Self> {
        let name = name.strip_prefix("auth/").unwrap_or(name);
        Self::iter().find(|s| &s.name()["auth/".len()..] == name)
    }

    /// Whether a correct client completes the flow and reaches the MCP endpoint with a
    /// token; `false` for the scenarios where it must refuse to go on.
    pub fn client_succeeds(self) -> bool {
        !matches!(
            self,
            AuthScenario::ScopeRetryLimit
                | AuthScenario::ResourceMismatch
                | AuthScenario::IssSupportedMissing
                | AuthScenario::IssWrongIssuer
                | AuthScenario::IssUnexpected
                | AuthScenario::IssNormalized
                | AuthScenario::MetadataIssuerMismatch
        )
    }
}

impl std::fmt::Display for AuthScenario {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.write_str(self.name())
    }
}

impl AuthScenario {
    /// The server settings of this scenario, as `servers.json` stores them under `auth`:
    /// what [`OAuth::preset`](crate::oauth::OAuth::preset) builds on.
    ///
    /// ```
    /// use mcp_decoy::oauth::AuthScenario;
    ///
    /// let spec = AuthScenario::MetadataVar2.oauth_spec();
    /// assert_eq!(spec.issuer_path.as_deref(), Some("/tenant1"));
    /// ```
    pub fn oauth_spec(self) -> OAuthSpec {
        use AuthScenario as S;
        use TokenEndpointAuthMethod as Method;
        // The suite's mock authorization server publishes RFC 8414 metadata only, at the
        // default path; the metadata scenarios replace it with their own documents.
        // It issues no refresh tokens either (a client answers a 403 by authorizing again,
        // not by refreshing the grant it has), and takes a request without `resource`: the
        // suite judges RFC 8707 in its checks, never by refusing.
        let mut spec = OAuthSpec {
            authorization_server_metadata: vec![AuthServerMetadata::OAuth],
            client_id_metadata_documents: false,
            refresh_tokens: false,
            require_resource: false,
            ..OAuthSpec::default()
        };
        let s = &mut spec;
        match self {
            S::MetadataDefault | S::ScopeOmittedWhenUndefined => {}
            S::MetadataVar1 => {
                s.resource_metadata_in_challenge = false;
                s.authorization_server_metadata = vec![AuthServerMetadata::OpenIdInserted];
            }
            S::MetadataVar2 => {
                s.resource_metadata = ResourceMetadataLocation::Root;
                s.resource_metadata_in_challenge = false;
                s.issuer_path = Some("/tenant1".into());
            }
            S::MetadataVar3 => {
                s.resource_metadata =
                    ResourceMetadataLocation::Custom("/custom/metadata/location.json".into());
                s.issuer_path = Some("/tenant1".into());
                s.authorization_server_metadata = vec![AuthServerMetadata::OpenIdAppended];
            }
            S::BasicCimd => metadata_documents(s),
            S::ScopeFromWwwAuthenticate => s.challenge_scope = Some("mcp:basic".into()),
            S::ScopeFromScopesSupported => {
                s.scopes_supported = strings(&["mcp:basic", "mcp:read", "mcp:write"]);
            }
            S::ScopeStepUp => {
                s.challenge_scope = Some("mcp:basic".into());
                s.scopes_supported = strings(&["mcp:profile"]);
                s.tool_scopes
                    .insert(OAuthSpec::ANY_TOOL.into(), strings(&["mcp:write"]));
                s.anonymous_lifecycle = true;
                s.challenge_lacking_only = true;
            }
            S::ScopeRetryLimit => {
                s.challenge_scope = Some("mcp:admin".into());
                s.scopes_supported = strings(&["mcp:admin"]);
                s.always_insufficient = true;
                s.anonymous_lifecycle = true;
            }
            S::TokenEndpointAuthBasic => only_method(s, Method::ClientSecretBasic),
            S::TokenEndpointAuthPost => only_method(s, Method::ClientSecretPost),
            S::TokenEndpointAuthNone => only_method(s, Method::None),
            S::PreRegistration => {
                s.dynamic_registration = false;
                s.token_endpoint_auth_methods = vec![Method::ClientSecretBasic];
                s.pre_registered_clients.push(PreRegisteredClient {
                    client_id: Self::PRE_REGISTERED_CLIENT_ID.into(),
                    client_secret: Some(Self::PRE_REGISTERED_CLIENT_SECRET.into()),
                    redirect_uris: strings(&Self::PRE_REGISTERED_REDIRECT_URIS),
                    jwk: None,
                });
            }
            S::LegacyMetadataBackcompat => s.legacy = Some(LegacyDiscovery::MetadataAtRoot),
            // Without metadata the client has recorded no issuer to compare an `iss` with,
            // and the suite's fallback endpoints send none.
            S::LegacyEndpointFallback => {
                s.legacy = Some(LegacyDiscovery::EndpointFallback);
                iss(s, false, IssResponse::Omitted);
            }
            S::ResourceMismatch => {
                s.resource_override = Some("https://evil.example.com/mcp".into())
            }
            S::OfflineAccessScope => {
                s.scopes_supported = strings(&["mcp:basic"]);
                s.offline_access = true;
                s.refresh_tokens = true;
                metadata_documents(s);
            }
            S::OfflineAccessNotSupported => {
                s.scopes_supported = strings(&["mcp:basic", "mcp:read"]);
                s.offline_access = false;
            }
            S::AuthorizationServerMigration => {
                s.challenge_scope = Some("mcp:basic".into());
                s.authorization_server_migration = true;
                s.anonymous_lifecycle = true;
            }
            S::IssSupported => iss(s, true, IssResponse::Correct),
            S::IssNotAdvertised => iss(s, false, IssResponse::Omitted),
            S::IssSupportedMissing => iss(s, true, IssResponse::Omitted),
            S::IssWrongIssuer => iss(s, true, IssResponse::Wrong),
            S::IssUnexpected => iss(s, false, IssResponse::Wrong),
            S::IssNormalized => iss(s, true, IssResponse::Normalised),
            S::MetadataIssuerMismatch => {
                s.metadata_issuer = Some("https://attacker.example.com".into());
            }
        }
        spec
    }
}

/// Client ID Metadata Documents on, fetched from this machine too, and the suite's
/// unresolvable document held.
fn metadata_documents(spec: &mut OAuthSpec) {
    spec.client_id_metadata_documents = true;
    spec.client_metadata_on_loopback = true;
    let url = AuthScenario::CLIENT_METADATA_URL;
    spec.client_metadata_documents.insert(
        url.into(),
        serde_json::json!({
            "client_id": url,
            "client_name": "conformance test client",
            "redirect_uris": AuthScenario::PRE_REGISTERED_REDIRECT_URIS,
            "grant_types": ["authorization_code", "refresh_token"],
            "response_types": ["code"],
            "token_endpoint_auth_method": "none"
        }),
    );
}

fn strings(items: &[&str]) -> Vec<String> {
    items.iter().map(|s| (*s).to_string()).collect()
}

/// The token-endpoint-auth scenarios: one method, and a registration asking for another gets
/// this one, as the suite's server answers.
fn only_method(spec: &mut OAuthSpec, method: TokenEndpointAuthMethod) {
    spec.token_endpoint_auth_methods = vec![method];
    spec.registration_substitutes_auth_method = true;
}

fn iss(spec: &mut OAuthSpec, advertised: bool, response: IssResponse) {
    spec.iss_advertised = advertised;
    spec.iss_in_response = response;
}
