//! The records [`OAuthLog`](super::OAuthLog) reads out of the capture: registrations,
//! authorization and token requests, challenges.

use serde::Serialize;
use serde_json::Value;

use super::params::{all, challenge_param, first, string_array};

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
    /// The `error_description` of a refused request: why, in words.
    pub error_description: Option<String>,
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
