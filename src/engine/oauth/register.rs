//! How clients become known: Dynamic Client Registration (RFC 7591) and Client ID Metadata
//! Documents (draft-ietf-oauth-client-id-metadata-document), where the `client_id` is a URL
//! the server fetches. The fetch is bounded (64 KiB, 5 s, no redirects), goes to public
//! addresses only (this machine too where the spec allows it, for tests) and needs the
//! `oauth-cimd` feature; without it a metadata-document `client_id` is refused, saying so.

#[cfg(feature = "oauth-cimd")]
use std::time::Duration;

use axum::extract::Request;
use axum::http::{StatusCode, header};
use axum::response::{IntoResponse, Response};
use serde_json::{Map, Value, json};

use super::issuer::{Context, is_loopback};
use super::store::{Client, ClientOrigin};
use super::{AuthServer, MAX_LIST, MAX_VALUE_BYTES, OAuthError, no_store, secret};
use crate::engine::Engine;
use crate::spec::TokenEndpointAuthMethod;

/// The largest Client ID Metadata Document accepted.
#[cfg(feature = "oauth-cimd")]
const MAX_DOCUMENT_BYTES: usize = 64 * 1024;
/// How long a document fetch may take.
#[cfg(feature = "oauth-cimd")]
const FETCH_TIMEOUT: Duration = Duration::from_secs(5);

/// Fetches Client ID Metadata Documents; its HTTP clients are built on first use, so
/// servers whose clients never use a metadata document pay nothing at start. Only with the
/// `oauth-cimd` feature; without it no document is fetched ([`cimd_unavailable`]).
#[cfg(feature = "oauth-cimd")]
#[derive(Debug, Default)]
pub(super) struct Fetcher {
    /// Connects to public addresses only, whatever a name resolves to.
    public: std::sync::OnceLock<Option<reqwest::Client>>,
    /// For a document on this machine, where the spec allows it.
    local: std::sync::OnceLock<Option<reqwest::Client>>,
}

#[cfg(feature = "oauth-cimd")]
impl Fetcher {
    fn client(&self, local: bool) -> Option<&reqwest::Client> {
        let build = || {
            let builder = reqwest::Client::builder()
                .redirect(reqwest::redirect::Policy::none())
                .timeout(FETCH_TIMEOUT)
                .no_proxy()
                .user_agent(concat!("mcp-decoy/", env!("CARGO_PKG_VERSION")));
            let builder = if local {
                builder
            } else {
                builder.dns_resolver(crate::engine::reach::PublicOnly::all())
            };
            builder.build().ok()
        };
        let cell = if local { &self.local } else { &self.public };
        cell.get_or_init(build).as_ref()
    }
}

/// `POST …/register` (RFC 7591 section 3).
pub(super) async fn register(
    engine: &Engine,
    oauth: &AuthServer,
    _context: &Context,
    request: Request,
) -> Response {
    if !oauth.spec.dynamic_registration {
        return OAuthError::new(
            StatusCode::NOT_FOUND,
            "invalid_request",
            "this authorization server does not offer dynamic client registration",
        )
        .into_response();
    }
    match registered(engine, oauth, request).await {
        Ok(document) => (StatusCode::CREATED, no_store(), axum::Json(document)).into_response(),
        Err(error) => error.into_response(),
    }
}

async fn registered(
    engine: &Engine,
    oauth: &AuthServer,
    request: Request,
) -> Result<Value, OAuthError> {
    let is_json = request
        .headers()
        .get(header::CONTENT_TYPE)
        .and_then(|v| v.to_str().ok())
        .and_then(|v| v.split(';').next())
        .is_some_and(|v| v.trim().eq_ignore_ascii_case("application/json"));
    if !is_json {
        return Err(metadata_error(
            "the body must be `application/json` client metadata",
        ));
    }
    let bytes = axum::body::to_bytes(request.into_body(), usize::MAX)
        .await
        .map_err(|_| metadata_error("the body could not be read"))?;
    let Ok(Value::Object(metadata)) = serde_json::from_slice::<Value>(&bytes) else {
        return Err(metadata_error("the body is not a JSON object"));
    };
    let redirect_uris = string_list(&metadata, "redirect_uris")?.ok_or_else(|| {
        OAuthError::bad(
            "invalid_redirect_uri",
            "`redirect_uris` is missing; the authorization code flow needs at least one",
        )
    })?;
    if redirect_uris.is_empty() {
        return Err(OAuthError::bad(
            "invalid_redirect_uri",
            "`redirect_uris` is empty; the authorization code flow needs at least one",
        ));
    }
    for uri in &redirect_uris {
        check_redirect_uri(uri)
            .map_err(|reason| OAuthError::bad("invalid_redirect_uri", reason))?;
    }
    let method = match metadata.get("token_endpoint_auth_method") {
        // RFC 7591 section 3.2.1: the server may replace requested metadata.
        Some(Value::String(name)) if substituted(oauth, name) => default_method(oauth),
        None => default_method(oauth),
        Some(Value::String(name)) => {
            let method = TokenEndpointAuthMethod::parse(name).ok_or_else(|| {
                metadata_error(format!(
                    "`token_endpoint_auth_method` `{name}` is not supported; this server accepts {}",
                    accepted(oauth)
                ))
            })?;
            if !oauth.accepts(method) {
                return Err(metadata_error(format!(
                    "`token_endpoint_auth_method` `{name}` is not accepted; this server accepts {}",
                    accepted(oauth)
                )));
            }
            if method == TokenEndpointAuthMethod::PrivateKeyJwt {
                return Err(metadata_error(
                    "`token_endpoint_auth_method` `private_key_jwt` is for pre-registered clients here: register the client's public key (`jwk`) in the server's configuration; `jwks` and `jwks_uri` are not read at registration".to_string(),
                ));
            }
            method
        }
        Some(_) => {
            return Err(metadata_error(
                "`token_endpoint_auth_method` must be a string",
            ));
        }
    };
    let grant_types =
        string_list(&metadata, "grant_types")?.unwrap_or_else(|| vec!["authorization_code".into()]);
    if let Some(bad) = grant_types
        .iter()
        .find(|g| !matches!(g.as_str(), "authorization_code" | "refresh_token"))
    {
        return Err(metadata_error(format!(
            "`grant_types` has `{bad}`; this server supports authorization_code and refresh_token"
        )));
    }
    let response_types =
        string_list(&metadata, "response_types")?.unwrap_or_else(|| vec!["code".into()]);
    if let Some(bad) = response_types.iter().find(|r| *r != "code") {
        return Err(metadata_error(format!(
            "`response_types` has `{bad}`; this server supports only `code`"
        )));
    }
    match metadata.get("application_type") {
        None if oauth.spec.require_application_type => {
            return Err(metadata_error(
                "`application_type` is missing; MCP clients must send `native` or `web` (2026-07-28 client registration)",
            ));
        }
        None => {}
        Some(Value::String(kind)) if kind == "native" || kind == "web" => {}
        Some(other) => {
            return Err(metadata_error(format!(
                "`application_type` {other} is neither `native` nor `web`"
            )));
        }
    }
    if let Some(name) = metadata.get("client_name")
        && name.as_str().is_none_or(|n| n.len() > MAX_VALUE_BYTES)
    {
        return Err(metadata_error(format!(
            "`client_name` must be a string of at most {MAX_VALUE_BYTES} bytes"
        )));
    }
    let client_id = format!("client-{}", &secret()[..22]);
    let client_secret = (method != TokenEndpointAuthMethod::None).then(secret);
    let issued_at = engine
        .clock
        .now()
        .duration_since(std::time::UNIX_EPOCH)
        .map(|d| d.as_secs())
        .unwrap_or(0);
    // RFC 7591 section 3.2.1: the response echoes the registered metadata.
    let mut document = Map::new();
    document.insert("client_id".into(), json!(client_id));
    if let Some(secret) = &client_secret {
        document.insert("client_secret".into(), json!(secret));
        document.insert("client_secret_expires_at".into(), json!(0));
    }
    document.insert("client_id_issued_at".into(), json!(issued_at));
    for (name, value) in &metadata {
        if !document.contains_key(name) && is_echoed(name) {
            document.insert(name.clone(), value.clone());
        }
    }
    document.insert("redirect_uris".into(), json!(redirect_uris));
    document.insert("token_endpoint_auth_method".into(), json!(method.as_str()));
    document.insert("grant_types".into(), json!(grant_types));
    document.insert("response_types".into(), json!(response_types));
    let mut state = oauth.lock();
    state.clients.insert(
        client_id.clone(),
        Client {
            client_id,
            secret: client_secret,
            redirect_uris,
            auth_method: method,
            origin: ClientOrigin::Dynamic,
            jwk: None,
        },
    );
    Ok(Value::Object(document))
}

/// Client metadata echoed back (RFC 7591 section 2); anything else is dropped.
fn is_echoed(name: &str) -> bool {
    matches!(
        name,
        "client_name"
            | "client_uri"
            | "logo_uri"
            | "scope"
            | "contacts"
            | "tos_uri"
            | "policy_uri"
            | "software_id"
            | "software_version"
            | "application_type"
    )
}

/// RFC 7591: the default method is `client_secret_basic`; when the server does not accept
/// it, the first method it does.
fn default_method(oauth: &AuthServer) -> TokenEndpointAuthMethod {
    if oauth.accepts(TokenEndpointAuthMethod::ClientSecretBasic) {
        TokenEndpointAuthMethod::ClientSecretBasic
    } else {
        oauth
            .spec
            .token_endpoint_auth_methods
            .iter()
            .copied()
            .find(|m| *m != TokenEndpointAuthMethod::PrivateKeyJwt)
            .unwrap_or(TokenEndpointAuthMethod::None)
    }
}

/// Whether a requested method the token endpoint does not accept is replaced by one it does
/// (`registration_substitutes_auth_method`) instead of refusing the registration.
fn substituted(oauth: &AuthServer, requested: &str) -> bool {
    oauth.spec.registration_substitutes_auth_method
        && !TokenEndpointAuthMethod::parse(requested).is_some_and(|m| oauth.accepts(m))
}

/// The accepted token endpoint auth methods, comma-separated, for error descriptions.
pub(super) fn accepted(oauth: &AuthServer) -> String {
    oauth
        .spec
        .token_endpoint_auth_methods
        .iter()
        .map(|m| m.as_str())
        .collect::<Vec<_>>()
        .join(", ")
}

fn metadata_error(description: impl Into<String>) -> OAuthError {
    OAuthError::bad("invalid_client_metadata", description)
}

/// A list of strings at `name`: `None` when absent, an error when not a list of strings.
fn string_list(
    metadata: &Map<String, Value>,
    name: &str,
) -> Result<Option<Vec<String>>, OAuthError> {
    let Some(value) = metadata.get(name) else {
        return Ok(None);
    };
    let error = || {
        metadata_error(format!(
            "`{name}` must be an array of at most {MAX_LIST} strings"
        ))
    };
    let list = value.as_array().ok_or_else(error)?;
    if list.len() > MAX_LIST {
        return Err(error());
    }
    list.iter()
        .map(|v| v.as_str().map(str::to_string).ok_or_else(error))
        .collect::<Result<Vec<_>, _>>()
        .map(Some)
}

/// OAuth 2.1 section 2.3 and MCP's redirect URI rules: an absolute URI without fragment;
/// `https`, `http` on a loopback host, or a private-use scheme of a native app
/// (`com.example.app:/callback`).
pub(crate) fn check_redirect_uri(uri: &str) -> Result<(), String> {
    if uri.len() > MAX_VALUE_BYTES {
        return Err(format!(
            "a redirect URI has at most {MAX_VALUE_BYTES} bytes"
        ));
    }
    let url = url::Url::parse(uri).map_err(|e| format!("`{uri}` is not an absolute URI ({e})"))?;
    if url.fragment().is_some() {
        return Err(format!(
            "`{uri}` has a fragment, which redirect URIs must not have"
        ));
    }
    match url.scheme() {
        "https" => Ok(()),
        "http" if url.host_str().is_some_and(is_loopback) => Ok(()),
        "http" => Err(format!(
            "`{uri}` uses plain http on a host that is not loopback; use https, or http on localhost or 127.0.0.1"
        )),
        "javascript" | "data" | "file" | "vbscript" | "about" | "blob" => Err(format!(
            "`{uri}` uses the `{}` scheme, which is never a redirect URI",
            url.scheme()
        )),
        // Private-use schemes are reverse domain names (RFC 8252 section 7.1).
        scheme if scheme.contains('.') => Ok(()),
        scheme => Err(format!(
            "`{uri}` uses the `{scheme}` scheme; use https, loopback http, or a private-use scheme such as `com.example.app`"
        )),
    }
}

/// The client a metadata-document `client_id` names, fetched and checked now.
pub(super) async fn metadata_document_client(
    oauth: &AuthServer,
    client_id: &str,
) -> Result<Client, OAuthError> {
    let invalid = |reason: String| OAuthError::bad("invalid_client", reason);
    let url = url::Url::parse(client_id)
        .map_err(|e| invalid(format!("client_id `{client_id}` is not a URL ({e})")))?;
    if let Some(document) = oauth.spec.client_metadata_documents.get(client_id) {
        return document_client(
            oauth.accepts(TokenEndpointAuthMethod::None),
            client_id,
            document,
        )
        .map_err(invalid);
    }
    if !cfg!(feature = "oauth-cimd") {
        return Err(invalid(cimd_unavailable(client_id)));
    }
    // A document on this machine only where a test asked for it: any web page can send a
    // browser to the authorization endpoint with a `client_id` URL of its choosing.
    let loopback = url.host_str().is_some_and(is_loopback);
    let local = loopback && oauth.spec.client_metadata_on_loopback;
    match url.scheme() {
        "https" => {}
        "http" if local => {}
        "http" if loopback => {
            return Err(invalid(format!(
                "client_id `{client_id}` is on this machine; the server fetches metadata documents from public https URLs only, unless the server allows loopback ones for tests (`client_metadata_on_loopback`)"
            )));
        }
        _ => {
            return Err(invalid(format!(
                "client_id `{client_id}` must be an https URL to be a Client ID Metadata Document"
            )));
        }
    }
    if !local
        && let Some(reason) = url
            .host()
            .as_ref()
            .and_then(crate::engine::reach::local_host)
    {
        return Err(invalid(format!(
            "client_id `{client_id}`: {reason}; the server fetches metadata documents from public addresses only{}",
            if loopback {
                ", unless the server allows loopback ones for tests (`client_metadata_on_loopback`)"
            } else {
                ""
            }
        )));
    }
    if url.path() == "/" || url.path().is_empty() || url.fragment().is_some() {
        return Err(invalid(format!(
            "client_id `{client_id}` must have a path and no fragment (Client ID Metadata Document section 3)"
        )));
    }
    if let Some(problem) = tls_problem(&url, cfg!(feature = "decoy-cli")) {
        return Err(invalid(problem));
    }
    let body = fetch(oauth, url, client_id, local).await?;
    let document = serde_json::from_slice::<Value>(&body).unwrap_or(Value::Null);
    document_client(
        oauth.accepts(TokenEndpointAuthMethod::None),
        client_id,
        &document,
    )
    .map_err(invalid)
}

/// The client a Client ID Metadata Document describes, fetched or held by the server: the
/// document names itself, the client and its redirect URIs, and asks for `none`.
pub(super) fn document_client(
    accepts_none: bool,
    client_id: &str,
    document: &Value,
) -> Result<Client, String> {
    let Value::Object(document) = document else {
        return Err(format!(
            "the client metadata document `{client_id}` is not a JSON object"
        ));
    };
    if document.get("client_id").and_then(Value::as_str) != Some(client_id) {
        return Err(format!(
            "the client metadata document's `client_id` ({}) is not its URL `{client_id}` exactly",
            document
                .get("client_id")
                .map_or("missing".into(), Value::to_string)
        ));
    }
    if !document.get("client_name").is_some_and(Value::is_string) {
        return Err(format!(
            "the client metadata document `{client_id}` has no `client_name` string"
        ));
    }
    let redirect_uris = match string_list(document, "redirect_uris") {
        Ok(Some(list)) if !list.is_empty() => list,
        _ => {
            return Err(format!(
                "the client metadata document `{client_id}` has no `redirect_uris` array of strings"
            ));
        }
    };
    for uri in &redirect_uris {
        check_redirect_uri(uri)
            .map_err(|reason| format!("the client metadata document `{client_id}`: {reason}"))?;
    }
    match document
        .get("token_endpoint_auth_method")
        .and_then(Value::as_str)
        .unwrap_or("none")
    {
        "none" if accepts_none => {}
        "none" => {
            return Err(
                "the client metadata document asks for `none`, which this token endpoint does not accept".into(),
            );
        }
        other => {
            return Err(format!(
                "the client metadata document asks for `{other}`; a metadata-document client here is public (`none`): it cannot share a secret, and private_key_jwt is not supported"
            ));
        }
    }
    Ok(Client {
        client_id: client_id.to_string(),
        secret: None,
        redirect_uris,
        auth_method: TokenEndpointAuthMethod::None,
        origin: ClientOrigin::MetadataDocument,
        jwk: None,
    })
}

/// The body of the metadata document at `url`: 200 only, no redirects, at most
/// [`MAX_DOCUMENT_BYTES`].
#[cfg(feature = "oauth-cimd")]
async fn fetch(
    oauth: &AuthServer,
    url: url::Url,
    client_id: &str,
    local: bool,
) -> Result<Vec<u8>, OAuthError> {
    let invalid = |reason: String| OAuthError::bad("invalid_client", reason);
    let Some(http) = oauth.fetcher.client(local) else {
        return Err(invalid(
            "the server could not build its HTTP client to fetch client metadata documents".into(),
        ));
    };
    let mut response = http
        .get(url)
        .header(header::ACCEPT, "application/json")
        .send()
        .await
        .map_err(|e| {
            invalid(format!(
                "fetching the client metadata document `{client_id}` failed: {e}"
            ))
        })?;
    if response.status() != reqwest::StatusCode::OK {
        return Err(invalid(format!(
            "fetching the client metadata document `{client_id}` answered {} (expected 200; redirects are not followed)",
            response.status()
        )));
    }
    let mut body: Vec<u8> = Vec::new();
    loop {
        match response.chunk().await {
            Ok(Some(chunk)) => {
                if body.len() + chunk.len() > MAX_DOCUMENT_BYTES {
                    return Err(invalid(format!(
                        "the client metadata document `{client_id}` exceeds {MAX_DOCUMENT_BYTES} bytes"
                    )));
                }
                body.extend_from_slice(&chunk);
            }
            Ok(None) => break,
            Err(e) => {
                return Err(invalid(format!(
                    "reading the client metadata document `{client_id}` failed: {e}"
                )));
            }
        }
    }
    Ok(body)
}

/// Without `oauth-cimd` nothing is fetched: [`metadata_document_client`] has refused already.
#[cfg(not(feature = "oauth-cimd"))]
async fn fetch(
    _: &AuthServer,
    _: url::Url,
    client_id: &str,
    _: bool,
) -> Result<Vec<u8>, OAuthError> {
    Err(OAuthError::bad(
        "invalid_client",
        cimd_unavailable(client_id),
    ))
}

/// Why this build refuses a metadata-document `client_id`: fetching one (with reqwest) is the
/// `oauth-cimd` feature, which a plain fixture test does not build.
fn cimd_unavailable(client_id: &str) -> String {
    format!(
        "client_id `{client_id}` is a Client ID Metadata Document URL, but this build of mcp-decoy does not fetch them: enable its `oauth-cimd` feature (`mcp-decoy = {{ version = \"0.1\", features = [\"oauth-cimd\"] }}`; the app, `decoy-cli`, has it), or register the client instead (`OAuth::pre_registered_client`, dynamic registration)"
    )
}

/// Why an `https` document cannot be fetched by this build, if it cannot: the library has
/// no TLS (tests use loopback `http`); the app (`decoy-cli`) has.
fn tls_problem(url: &url::Url, has_tls: bool) -> Option<String> {
    (url.scheme() == "https" && !has_tls).then(|| {
        format!(
            "client_id `{url}` is an https URL, but this build of mcp-decoy has no TLS: the library fetches only loopback http documents (use `http://127.0.0.1:PORT/...` in tests, with `client_metadata_on_loopback`); the app (feature `decoy-cli`) fetches https"
        )
    })
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn https_documents_need_the_app_build() {
        let https = url::Url::parse("https://app.example.com/client.json").expect("a URL");
        let problem = tls_problem(&https, false).expect("no TLS");
        assert!(
            problem.contains("no TLS") && problem.contains("decoy-cli"),
            "{problem}"
        );
        assert_eq!(tls_problem(&https, true), None);
        let loopback = url::Url::parse("http://127.0.0.1:9/client.json").expect("a URL");
        assert_eq!(tls_problem(&loopback, false), None);
    }

    #[test]
    fn a_build_without_oauth_cimd_names_the_feature() {
        let reason = cimd_unavailable("http://127.0.0.1:9/client.json");
        assert!(
            reason.contains("`oauth-cimd` feature")
                && reason.contains("http://127.0.0.1:9/client.json"),
            "{reason}"
        );
    }

    #[test]
    fn redirect_uris_follow_the_oauth_2_1_rules() {
        for ok in [
            "https://app.example.com/cb",
            "http://127.0.0.1:33418/callback",
            "http://localhost/cb",
            "http://[::1]:9/cb",
            "com.example.app:/oauth",
        ] {
            assert_eq!(check_redirect_uri(ok), Ok(()), "{ok}");
        }
        for (bad, says) in [
            ("/relative", "not an absolute URI"),
            ("http://app.example.com/cb", "not loopback"),
            ("https://app.example.com/cb#x", "fragment"),
            ("javascript:alert(1)", "never a redirect URI"),
            ("custom:/cb", "private-use scheme"),
        ] {
            let reason = check_redirect_uri(bad).expect_err(bad);
            assert!(reason.contains(says), "{bad}: {reason}");
        }
    }
}
