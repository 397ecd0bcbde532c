//! OAuth 2.1 for one server: the decoy as resource server and authorization server, and every
//! discovery variant and misbehaviour a client must survive. [`OAuthSpec`] is plain data (the
//! `auth` entry of a server in `servers.json`); the fixture's `OAuth` builder compiles to it.
//!
//! Every field has a default, so `"auth": {}` is a working authorization server: auto-approve,
//! dynamic registration and Client ID Metadata Documents on, PKCE S256, resource indicators
//! required, `iss` sent and advertised, the three token endpoint auth methods, no scopes.

use std::collections::BTreeMap;

use serde::{Deserialize, Serialize};

/// The OAuth 2.1 configuration of one server (servers.json `auth`).
///
/// Times are whole seconds of the server's clock, which a test can advance.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
#[cfg_attr(feature = "decoy-cli", derive(schemars::JsonSchema))]
#[serde(default, rename_all = "camelCase", deny_unknown_fields)]
pub struct OAuthSpec {
    /// Where the Protected Resource Metadata (RFC 9728) is served.
    pub resource_metadata: ResourceMetadataLocation,
    /// Name the metadata URL in the 401 `WWW-Authenticate` header (`resource_metadata="…"`);
    /// without it the client has to probe the well-known paths.
    pub resource_metadata_in_challenge: bool,
    /// The `resource` the metadata claims instead of the MCP endpoint's URL (a correct client
    /// aborts: conformance `auth/resource-mismatch`).
    #[serde(skip_serializing_if = "Option::is_none")]
    pub resource_override: Option<String>,
    /// The authorization server metadata documents served; an empty list serves none.
    pub authorization_server_metadata: Vec<AuthServerMetadata>,
    /// A path after the issuer's origin, such as `/tenant1`; the well-known documents follow
    /// it (RFC 8414 section 3.1).
    #[serde(skip_serializing_if = "Option::is_none")]
    pub issuer_path: Option<String>,
    /// The `issuer` the metadata documents claim instead of the real one (a correct client
    /// rejects them: conformance `auth/metadata-issuer-mismatch`).
    #[serde(skip_serializing_if = "Option::is_none")]
    pub metadata_issuer: Option<String>,
    /// Advertise `authorization_response_iss_parameter_supported: true` (RFC 9207).
    pub iss_advertised: bool,
    /// What the authorization response carries as `iss`.
    pub iss_in_response: IssResponse,
    /// Client authentication methods the token endpoint accepts, in advertised order.
    pub token_endpoint_auth_methods: Vec<TokenEndpointAuthMethod>,
    /// Serve Dynamic Client Registration (RFC 7591) and advertise `registration_endpoint`.
    pub dynamic_registration: bool,
    /// A registration asking for a token endpoint auth method the server does not accept
    /// gets one it does (RFC 7591 section 3.2.1 lets the server replace requested metadata),
    /// named in the response, instead of `invalid_client_metadata`. The conformance
    /// token-endpoint-auth scenarios answer so.
    #[serde(skip_serializing_if = "std::ops::Not::not")]
    pub registration_substitutes_auth_method: bool,
    /// Accept Client ID Metadata Documents: a `client_id` that is an `https` URL the server
    /// fetches from a public address; advertised as `client_id_metadata_document_supported`.
    pub client_id_metadata_documents: bool,
    /// Fetch Client ID Metadata Documents from this machine too (`http` or `https` on a
    /// loopback address or `localhost`), for tests that serve the document themselves; the
    /// conformance presets that use metadata documents set it. Off, a `client_id` URL that
    /// leads to this machine or a private network is refused: any web page could otherwise
    /// make the server probe them.
    #[serde(skip_serializing_if = "std::ops::Not::not")]
    pub client_metadata_on_loopback: bool,
    /// Client ID Metadata Documents the server holds instead of fetching, by their
    /// `client_id` URL: a client whose document URL nothing serves (the conformance suite's
    /// `https://conformance-test.local/client-metadata.json`) can still authorize. A held
    /// document is checked as a fetched one is, and only while
    /// `client_id_metadata_documents` is on.
    #[serde(skip_serializing_if = "BTreeMap::is_empty")]
    pub client_metadata_documents: BTreeMap<String, serde_json::Value>,
    /// Answer `initialize`, notifications and the session's `GET` stream and `DELETE`
    /// without a token; every other request needs one (the conformance step-up, retry-limit
    /// and migration servers: the client meets the 401 on its first operation, not on
    /// connecting).
    #[serde(skip_serializing_if = "std::ops::Not::not")]
    pub anonymous_lifecycle: bool,
    /// A 403 `insufficient_scope` names only the scopes the token lacks, not the union with
    /// the ones it holds, so a test sees whether the client keeps what it had when it
    /// re-authorizes (SEP-2350; the conformance step-up server).
    #[serde(skip_serializing_if = "std::ops::Not::not")]
    pub challenge_lacking_only: bool,
    /// Clients known before any registration (conformance `auth/pre-registration`).
    #[serde(skip_serializing_if = "Vec::is_empty")]
    pub pre_registered_clients: Vec<PreRegisteredClient>,
    /// Refuse a registration without `application_type` (`native` or `web`), as the
    /// 2026-07-28 revision requires of clients; a value other than those two is always refused.
    pub require_application_type: bool,
    /// `scopes_supported`, in the resource metadata and the authorization server metadata.
    #[serde(skip_serializing_if = "Vec::is_empty")]
    pub scopes_supported: Vec<String>,
    /// The `scope` named in the 401 challenge, space-separated.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub challenge_scope: Option<String>,
    /// Scopes a `tools/call` of the named tool needs; a token without them gets 403
    /// `insufficient_scope` naming them (step-up). The key [`OAuthSpec::ANY_TOOL`] (`"*"`)
    /// applies to every tool without an entry of its own.
    #[serde(skip_serializing_if = "BTreeMap::is_empty")]
    pub tool_scopes: BTreeMap<String, Vec<String>>,
    /// List `offline_access` in the authorization server's `scopes_supported` (SEP-2207).
    pub offline_access: bool,
    /// Answer every authenticated request except `initialize` and notifications with 403
    /// `insufficient_scope`, whatever the token holds (conformance `auth/scope-retry-limit`).
    pub always_insufficient: bool,
    /// What the authorization endpoint does with a valid request.
    pub consent: Consent,
    /// Access tokens expire this many seconds after they are issued.
    pub access_token_lifetime_secs: u64,
    /// Authorization codes expire this many seconds after they are issued.
    pub code_lifetime_secs: u64,
    /// Accept the `client_credentials` grant (OAuth 2.1 section 4.2, the MCP extension
    /// `io.modelcontextprotocol/oauth-client-credentials`) from confidential clients, and
    /// advertise it.
    pub client_credentials: bool,
    /// Issuers whose signed JWTs the `jwt-bearer` grant (RFC 7523 section 2.1) takes as
    /// authorization grants, each with its public key: workload identity federation
    /// (SEP-1933). Any entry turns the grant on and advertises it. Feature `oauth-jwt`.
    #[serde(skip_serializing_if = "Vec::is_empty")]
    pub jwt_bearer_issuers: Vec<JwtBearerIssuer>,
    /// An enterprise identity provider served beside the authorization server at
    /// `{prefix}/idp` (Enterprise-Managed Authorization, SEP-990): it trades its ID tokens
    /// for ID-JAGs (RFC 8693 token exchange), which the authorization server takes as
    /// `jwt-bearer` grants. Feature `oauth-jwt`.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub identity_provider: Option<IdentityProvider>,
    /// DPoP (RFC 9449, SEP-1932): the token endpoint checks a `DPoP` proof and binds the
    /// token to its key (`token_type` `DPoP`), and the resource takes a bound token only as
    /// `Authorization: DPoP` with a fresh proof by that key. Feature `oauth-jwt`.
    pub dpop: bool,
    /// With `dpop`: both the token endpoint and the resource ask for the server's nonce
    /// first (`use_dpop_nonce` with a `DPoP-Nonce` header, RFC 9449 sections 8 and 9).
    pub dpop_nonce: bool,
    /// Issue refresh tokens (rotated on each use) and advertise the `refresh_token` grant.
    pub refresh_tokens: bool,
    /// Refresh tokens expire this many seconds after they are issued; `None`: never.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub refresh_token_lifetime_secs: Option<u64>,
    /// Require the `resource` parameter (RFC 8707) at the authorization and token endpoints.
    pub require_resource: bool,
    /// A 2025-03-26 discovery mode instead of Protected Resource Metadata.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub legacy: Option<LegacyDiscovery>,
    /// After the first request accepted with a token, the resource names a new authorization
    /// server (another issuer, with its own clients and tokens) and refuses the old tokens
    /// (conformance `auth/authorization-server-migration`).
    pub authorization_server_migration: bool,
}

impl OAuthSpec {
    /// The `tool_scopes` key that applies to every tool without an entry of its own (the
    /// conformance step-up scenario needs `mcp:write` for any `tools/call`).
    pub const ANY_TOOL: &'static str = "*";
}

impl Default for OAuthSpec {
    fn default() -> Self {
        OAuthSpec {
            resource_metadata: ResourceMetadataLocation::Path,
            resource_metadata_in_challenge: true,
            resource_override: None,
            authorization_server_metadata: vec![
                AuthServerMetadata::OAuth,
                AuthServerMetadata::OpenIdInserted,
                AuthServerMetadata::OpenIdAppended,
            ],
            issuer_path: None,
            metadata_issuer: None,
            iss_advertised: true,
            iss_in_response: IssResponse::Correct,
            token_endpoint_auth_methods: TokenEndpointAuthMethod::ALL.to_vec(),
            dynamic_registration: true,
            registration_substitutes_auth_method: false,
            client_id_metadata_documents: true,
            client_metadata_on_loopback: false,
            client_metadata_documents: BTreeMap::new(),
            anonymous_lifecycle: false,
            challenge_lacking_only: false,
            pre_registered_clients: Vec::new(),
            require_application_type: false,
            scopes_supported: Vec::new(),
            challenge_scope: None,
            tool_scopes: BTreeMap::new(),
            offline_access: false,
            always_insufficient: false,
            consent: Consent::Auto,
            access_token_lifetime_secs: 3600,
            code_lifetime_secs: 60,
            client_credentials: false,
            jwt_bearer_issuers: Vec::new(),
            identity_provider: None,
            dpop: false,
            dpop_nonce: false,
            refresh_tokens: true,
            refresh_token_lifetime_secs: None,
            require_resource: true,
            legacy: None,
            authorization_server_migration: false,
        }
    }
}

/// Where the Protected Resource Metadata (RFC 9728) lives.
#[derive(Debug, Clone, Default, PartialEq, Eq, Serialize, Deserialize)]
#[cfg_attr(feature = "decoy-cli", derive(schemars::JsonSchema))]
#[serde(rename_all = "snake_case")]
#[non_exhaustive]
pub enum ResourceMetadataLocation {
    /// `/.well-known/oauth-protected-resource` followed by the MCP endpoint's path (RFC 9728
    /// section 3.1); the root document is not served.
    #[default]
    Path,
    /// Only `/.well-known/oauth-protected-resource`, at the root.
    Root,
    /// A path of the server's own choosing, such as `/custom/metadata/location.json`
    /// (relative to the server's mount point); only reachable through the 401 header.
    Custom(String),
}

/// An authorization server metadata document the server publishes.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash, Serialize, Deserialize)]
#[cfg_attr(feature = "decoy-cli", derive(schemars::JsonSchema))]
#[serde(rename_all = "snake_case")]
#[non_exhaustive]
pub enum AuthServerMetadata {
    /// RFC 8414: `/.well-known/oauth-authorization-server` + issuer path.
    #[serde(rename = "oauth")]
    OAuth,
    /// OpenID Connect discovery with the well-known part inserted:
    /// `/.well-known/openid-configuration` + issuer path.
    #[serde(rename = "openid_inserted")]
    OpenIdInserted,
    /// OpenID Connect discovery appended to the issuer: issuer path +
    /// `/.well-known/openid-configuration`.
    #[serde(rename = "openid_appended")]
    OpenIdAppended,
}

/// The `iss` parameter of the authorization response (RFC 9207).
#[derive(Debug, Clone, Copy, Default, PartialEq, Eq, Serialize, Deserialize)]
#[cfg_attr(feature = "decoy-cli", derive(schemars::JsonSchema))]
#[serde(rename_all = "snake_case")]
#[non_exhaustive]
pub enum IssResponse {
    /// The issuer, exactly.
    #[default]
    Correct,
    /// No `iss`.
    Omitted,
    /// Another issuer, `https://evil.example.com`.
    Wrong,
    /// The issuer with a trailing `/`, equal only after URL normalisation.
    Normalised,
}

/// A client authentication method of the token endpoint.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash, Serialize, Deserialize)]
#[cfg_attr(feature = "decoy-cli", derive(schemars::JsonSchema))]
#[serde(rename_all = "snake_case")]
#[non_exhaustive]
pub enum TokenEndpointAuthMethod {
    /// `client_secret_post`: `client_id` and `client_secret` in the form body.
    ClientSecretPost,
    /// `client_secret_basic`: HTTP Basic authentication.
    ClientSecretBasic,
    /// `none`: a public client, `client_id` in the body and no secret.
    None,
    /// `private_key_jwt` (RFC 7523 section 2.2): a `client_assertion` JWT signed with the
    /// client's key (ES256), for a pre-registered client with a `jwk`. Feature `oauth-jwt`.
    PrivateKeyJwt,
}

impl TokenEndpointAuthMethod {
    /// The three methods advertised by default, in order (`private_key_jwt` is opt-in).
    pub const ALL: [TokenEndpointAuthMethod; 3] = [
        TokenEndpointAuthMethod::ClientSecretPost,
        TokenEndpointAuthMethod::ClientSecretBasic,
        TokenEndpointAuthMethod::None,
    ];

    /// The wire name.
    pub fn as_str(self) -> &'static str {
        match self {
            TokenEndpointAuthMethod::ClientSecretPost => "client_secret_post",
            TokenEndpointAuthMethod::ClientSecretBasic => "client_secret_basic",
            TokenEndpointAuthMethod::None => "none",
            TokenEndpointAuthMethod::PrivateKeyJwt => "private_key_jwt",
        }
    }

    /// Parses the wire name.
    pub fn parse(text: &str) -> Option<Self> {
        Self::ALL
            .into_iter()
            .chain([TokenEndpointAuthMethod::PrivateKeyJwt])
            .find(|m| m.as_str() == text)
    }
}

/// A client registered before the test starts.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
#[cfg_attr(feature = "decoy-cli", derive(schemars::JsonSchema))]
#[serde(rename_all = "camelCase", deny_unknown_fields)]
pub struct PreRegisteredClient {
    /// The `client_id`.
    pub client_id: String,
    /// The secret, for `client_secret_post` / `client_secret_basic`; `None`: a public client.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub client_secret: Option<String>,
    /// Redirect URIs, matched exactly (none for a client that only uses
    /// `client_credentials`).
    #[serde(default)]
    pub redirect_uris: Vec<String>,
    /// The client's public key (a P-256 JWK): it authenticates with `private_key_jwt`,
    /// signing its `client_assertion` with the private half. Feature `oauth-jwt`.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub jwk: Option<serde_json::Value>,
}

/// An issuer of JWT authorization grants the authorization server trusts (RFC 7523 section
/// 3: `iss` names it, its key signs them).
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
#[cfg_attr(feature = "decoy-cli", derive(schemars::JsonSchema))]
#[serde(rename_all = "camelCase", deny_unknown_fields)]
pub struct JwtBearerIssuer {
    /// The `iss` of its JWTs, compared exactly.
    pub issuer: String,
    /// Its public key, a P-256 JWK (ES256).
    pub jwk: serde_json::Value,
}

/// The identity provider of Enterprise-Managed Authorization: which client it serves and
/// which client of the authorization server its ID-JAGs name.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
#[cfg_attr(feature = "decoy-cli", derive(schemars::JsonSchema))]
#[serde(rename_all = "camelCase", deny_unknown_fields)]
pub struct IdentityProvider {
    /// The client's id at the identity provider: the `aud` of its ID tokens, the
    /// `client_id` of a token exchange.
    pub client_id: String,
    /// The client's id at the authorization server, which its ID-JAGs name (`client_id`)
    /// and which alone may use them (SEP-990 section 6.1).
    pub authorization_server_client_id: String,
}

/// What the authorization endpoint does with a valid request.
#[derive(Debug, Clone, Copy, Default, PartialEq, Eq, Serialize, Deserialize)]
#[cfg_attr(feature = "decoy-cli", derive(schemars::JsonSchema))]
#[serde(rename_all = "snake_case")]
#[non_exhaustive]
pub enum Consent {
    /// Redirect straight back with a code: headless tests need no browser.
    #[default]
    Auto,
    /// Redirect back with `error=access_denied`.
    Deny,
    /// An HTML page with Approve and Deny buttons.
    Page,
}

/// Discovery of the 2025-03-26 revision, before Protected Resource Metadata.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize, Deserialize)]
#[cfg_attr(feature = "decoy-cli", derive(schemars::JsonSchema))]
#[serde(rename_all = "snake_case")]
#[non_exhaustive]
pub enum LegacyDiscovery {
    /// No resource metadata; the authorization server metadata is at the server's root,
    /// `/.well-known/oauth-authorization-server` (conformance
    /// `auth/2025-03-26-oauth-metadata-backcompat`).
    MetadataAtRoot,
    /// No metadata at all; the endpoints are the default `/authorize`, `/token` and
    /// `/register` at the root (conformance `auth/2025-03-26-oauth-endpoint-fallback`).
    EndpointFallback,
}
