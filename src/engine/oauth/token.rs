//! The token endpoint (OAuth 2.1 section 3.2): client authentication
//! (`client_secret_post`, `client_secret_basic`, `none`, `private_key_jwt`), the
//! `authorization_code` grant with PKCE S256 and resource indicators (RFC 8707), the
//! `refresh_token` grant, which rotates the refresh token, `client_credentials`, and the
//! RFC 7523 `jwt-bearer` grant from trusted issuers.

use axum::extract::Request;
use axum::http::{HeaderMap, StatusCode, header};
use axum::response::{IntoResponse, Response};
use base64::Engine as _;
use base64::engine::general_purpose::{STANDARD, URL_SAFE_NO_PAD};
use serde_json::{Map, Value, json};
use sha2::{Digest, Sha256};
use subtle::ConstantTimeEq;

use super::issuer::Context;
use super::params::{self, Params};
use super::store::{Client, ClientOrigin, Rotated, Token};
use super::{AuthServer, OAuthError, Records, TokenKind, after, no_store, secret};
use crate::engine::Engine;
use crate::spec::TokenEndpointAuthMethod;

/// `POST …/token`.
pub(super) async fn token(
    engine: &Engine,
    oauth: &AuthServer,
    context: &Context,
    request: Request,
) -> Response {
    match grant(engine, oauth, context, request).await {
        Ok(body) => (StatusCode::OK, no_store(), axum::Json(body)).into_response(),
        Err(error) => error.into_response(),
    }
}

async fn grant(
    engine: &Engine,
    oauth: &AuthServer,
    context: &Context,
    request: Request,
) -> Result<Value, OAuthError> {
    let (headers, params) = Params::form(request).await?;
    let grant_type = params.require("grant_type")?;
    // The proof first, as RFC 9449 section 5 has it: its key binds whatever is issued.
    let jkt = bound_key(engine, oauth, context, &headers)?;
    if grant_type == super::assertion::JWT_BEARER_GRANT && oauth.takes_jwt_grants() {
        return jwt_bearer_grant(engine, oauth, context, &headers, &params, jkt);
    }
    let client = authenticate(engine, oauth, context, &headers, &params)?;
    match grant_type {
        "authorization_code" => code_grant(engine, oauth, context, &client, &params, jkt),
        "refresh_token" if oauth.spec.refresh_tokens => {
            refresh_grant(engine, oauth, &client, &params, jkt)
        }
        "client_credentials" if oauth.spec.client_credentials => {
            client_credentials_grant(engine, oauth, context, &client, &params, jkt)
        }
        other => Err(OAuthError::bad(
            "unsupported_grant_type",
            format!(
                "grant_type `{other}` is not supported; this server supports {}",
                super::metadata::grant_types(oauth).join(", ")
            ),
        )),
    }
}

/// Who is calling, by the one authentication method the request used (RFC 6749 section
/// 2.3: a client must not use more than one).
pub(super) fn authenticate(
    engine: &Engine,
    oauth: &AuthServer,
    context: &Context,
    headers: &HeaderMap,
    params: &Params,
) -> Result<Client, OAuthError> {
    let basic = match headers.get(header::AUTHORIZATION) {
        None => None,
        Some(value) => Some(basic_credentials(value.as_bytes())?),
    };
    let body_secret = params.get("client_secret");
    if params.get("client_assertion").is_some() || params.get("client_assertion_type").is_some() {
        if basic.is_some() || body_secret.is_some() {
            return Err(OAuthError::bad(
                "invalid_request",
                "the request carries both a client_assertion and a client secret; use one client authentication method",
            ));
        }
        if !oauth.accepts(TokenEndpointAuthMethod::PrivateKeyJwt) {
            return Err(OAuthError::invalid_client(
                format!(
                    "this token endpoint does not accept `private_key_jwt`; it accepts {}",
                    super::register::accepted(oauth)
                ),
                false,
            ));
        }
        return super::assertion::authenticate(oauth, context, engine.clock.now(), params);
    }
    let (client_id, presented, method) = match (basic, body_secret) {
        (Some(_), Some(_)) => {
            return Err(OAuthError::bad(
                "invalid_request",
                "the request uses both client_secret_basic and client_secret_post; use one client authentication method",
            ));
        }
        (Some((id, secret)), None) => {
            if params.get("client_id").is_some_and(|body_id| body_id != id) {
                return Err(OAuthError::bad(
                    "invalid_request",
                    "`client_id` in the body differs from the one in the Authorization header",
                ));
            }
            (id, Some(secret), TokenEndpointAuthMethod::ClientSecretBasic)
        }
        (None, Some(secret)) => (
            params.require("client_id")?.to_string(),
            Some(secret.to_string()),
            TokenEndpointAuthMethod::ClientSecretPost,
        ),
        (None, None) => (
            params.require("client_id")?.to_string(),
            None,
            TokenEndpointAuthMethod::None,
        ),
    };
    let used_basic = method == TokenEndpointAuthMethod::ClientSecretBasic;
    let refuse = |description: String| OAuthError::invalid_client(description, used_basic);
    if !oauth.accepts(method) {
        return Err(refuse(format!(
            "this token endpoint does not accept `{}`; it accepts {}",
            method.as_str(),
            super::register::accepted(oauth)
        )));
    }
    let client = {
        let state = oauth.lock();
        oauth.client(&state, &client_id)
    }
    .ok_or_else(|| {
        refuse(format!(
            "client_id `{client_id}` is not registered with this authorization server"
        ))
    })?;
    match (&client.secret, presented) {
        (None, None) => {}
        (None, Some(_)) => {
            return Err(refuse(format!(
                "client `{client_id}` is public and has no secret; authenticate with `none`"
            )));
        }
        (Some(_), None) => {
            return Err(refuse(format!(
                "client `{client_id}` is confidential; authenticate with its client_secret"
            )));
        }
        (Some(expected), Some(presented)) => {
            let expected = Sha256::digest(expected.as_bytes());
            let presented = Sha256::digest(presented.as_bytes());
            if !bool::from(expected.ct_eq(&presented)) {
                return Err(refuse(format!(
                    "the client_secret of `{client_id}` is wrong"
                )));
            }
        }
    }
    if client.jwk.is_some() {
        return Err(refuse(format!(
            "client `{client_id}` authenticates with `private_key_jwt`: send a signed `client_assertion`"
        )));
    }
    if client.origin == ClientOrigin::Dynamic && client.auth_method != method {
        return Err(refuse(format!(
            "client `{client_id}` registered token_endpoint_auth_method `{}` but authenticated with `{}`",
            client.auth_method.as_str(),
            method.as_str()
        )));
    }
    Ok(client)
}

/// `Authorization: Basic base64(urlencode(id):urlencode(secret))` (RFC 6749 section 2.3.1).
fn basic_credentials(value: &[u8]) -> Result<(String, String), OAuthError> {
    let malformed = |why: &str| {
        OAuthError::invalid_client(
            format!("the Authorization header is not valid client_secret_basic: {why}"),
            true,
        )
    };
    let text = std::str::from_utf8(value).map_err(|_| malformed("not text"))?;
    let (scheme, encoded) = text.split_once(' ').ok_or_else(|| malformed("no scheme"))?;
    if !scheme.eq_ignore_ascii_case("basic") {
        return Err(malformed("the scheme is not Basic"));
    }
    let decoded = STANDARD
        .decode(encoded.trim())
        .map_err(|_| malformed("not base64"))?;
    let decoded = String::from_utf8(decoded).map_err(|_| malformed("not UTF-8"))?;
    let (id, secret) = decoded
        .split_once(':')
        .ok_or_else(|| malformed("no `:` between client_id and secret"))?;
    let unescape = |part: &str| -> String {
        form_urlencoded::parse(format!("v={part}").as_bytes())
            .next()
            .map(|(_, v)| v.into_owned())
            .unwrap_or_default()
    };
    let (id, secret) = (unescape(id), unescape(secret));
    if id.is_empty() {
        return Err(malformed("the client_id is empty"));
    }
    Ok((id, secret))
}

fn code_grant(
    engine: &Engine,
    oauth: &AuthServer,
    context: &Context,
    client: &Client,
    params: &Params,
    jkt: Option<String>,
) -> Result<Value, OAuthError> {
    let code_text = params.require("code")?;
    let verifier = params.get("code_verifier").ok_or_else(|| {
        OAuthError::bad(
            "invalid_request",
            "`code_verifier` is missing; PKCE is required",
        )
    })?;
    if !(43..=128).contains(&verifier.len())
        || !verifier
            .chars()
            .all(|c| c.is_ascii_alphanumeric() || matches!(c, '-' | '.' | '_' | '~'))
    {
        return Err(OAuthError::bad(
            "invalid_request",
            "`code_verifier` must be 43-128 unreserved characters (RFC 7636 section 4.1)",
        ));
    }
    let now = engine.clock.now();
    let mut state = oauth.lock();
    let Some(code) = state.codes.get(code_text).cloned() else {
        return Err(OAuthError::grant("the authorization code is unknown"));
    };
    if code.used {
        let revoked = revoke_family(&mut state, &code.issued);
        return Err(OAuthError::grant(format!(
            "the authorization code was already used; the {revoked} token(s) issued from it are revoked (OAuth 2.1 section 4.1.3)"
        )));
    }
    if now >= code.expires_at {
        return Err(OAuthError::grant("the authorization code expired"));
    }
    if code.client_id != client.client_id {
        return Err(OAuthError::grant(
            "the authorization code was issued to another client",
        ));
    }
    match (&code.redirect_uri, params.get("redirect_uri")) {
        (Some(_), None) => {
            return Err(OAuthError::bad(
                "invalid_request",
                "`redirect_uri` is missing; the authorization request named one, so the token request must repeat it",
            ));
        }
        (Some(expected), Some(given)) if expected != given => {
            return Err(OAuthError::grant(format!(
                "redirect_uri `{given}` is not the one of the authorization request"
            )));
        }
        (None, Some(given)) if !client.redirect_uris.iter().any(|r| r == given) => {
            return Err(OAuthError::grant(format!(
                "redirect_uri `{given}` is not the one of the authorization request"
            )));
        }
        _ => {}
    }
    let computed = URL_SAFE_NO_PAD.encode(Sha256::digest(verifier.as_bytes()));
    if !bool::from(computed.as_bytes().ct_eq(code.challenge.as_bytes())) {
        return Err(OAuthError::grant(
            "the code_verifier does not match the code_challenge (S256)",
        ));
    }
    let resource = match params.get("resource") {
        Some(given)
            if code.resource.as_deref().is_none_or(|r| r == given) && given == context.resource =>
        {
            Some(given.to_string())
        }
        Some(given) => {
            return Err(OAuthError::bad(
                "invalid_target",
                format!(
                    "resource `{given}` is not the resource of the authorization request ({})",
                    code.resource.as_deref().unwrap_or(&context.resource)
                ),
            ));
        }
        None if oauth.spec.require_resource => {
            return Err(OAuthError::bad(
                "invalid_target",
                format!(
                    "`resource` is missing; this server requires resource indicators (RFC 8707) in the token request too: `{}`",
                    context.resource
                ),
            ));
        }
        None => code.resource.clone(),
    };
    let issued = issue(
        oauth,
        &mut state,
        engine,
        Grant {
            client_id: &client.client_id,
            scopes: &code.scopes,
            resource,
            code: Some(code_text),
            refreshable: true,
            jkt,
        },
    );
    if let Some(stored) = state.codes.get_mut(code_text) {
        stored.used = true;
        stored.issued.extend(issued.ids.iter().cloned());
    }
    Ok(issued.body)
}

fn refresh_grant(
    engine: &Engine,
    oauth: &AuthServer,
    client: &Client,
    params: &Params,
    jkt: Option<String>,
) -> Result<Value, OAuthError> {
    let presented = params.require("refresh_token")?;
    let requested = params::scopes(params.get("scope"))?;
    let now = engine.clock.now();
    let mut state = oauth.lock();
    let Some(old) = state.refresh.get(presented).cloned() else {
        if let Some(rotated) = state.rotated.remove(presented) {
            // A used refresh token again: whoever holds it stole it, or the client lost
            // track; either way the grant's live tokens go (OAuth 2.1 section 4.3.1).
            let revoked = match &rotated.family {
                Some(code) => {
                    state
                        .access
                        .remove_where(|t| t.code.as_deref() == Some(code))
                        + state
                            .refresh
                            .remove_where(|t| t.code.as_deref() == Some(code))
                }
                None => revoke_family(&mut state, &rotated.successors),
            };
            return Err(OAuthError::grant(format!(
                "the refresh token was already used (refresh tokens rotate on each use); its reuse revoked the {revoked} live tokens of its grant"
            )));
        }
        return Err(OAuthError::grant(
            "the refresh token is unknown, revoked, or already used (refresh tokens rotate on each use)",
        ));
    };
    if old.expired(now) {
        state.refresh.remove(presented);
        return Err(OAuthError::grant("the refresh token expired"));
    }
    if old.client_id != client.client_id {
        return Err(OAuthError::grant(
            "the refresh token was issued to another client",
        ));
    }
    if old.jkt.is_some() && old.jkt != jkt {
        return Err(OAuthError::grant(
            "the refresh token is bound to a DPoP key: refresh with a DPoP proof by that key (RFC 9449 section 5)",
        ));
    }
    if let Some(extra) = requested.iter().find(|s| !old.scopes.contains(s)) {
        return Err(OAuthError::bad(
            "invalid_scope",
            format!(
                "scope `{extra}` was not granted originally; a refresh can only narrow the scopes"
            ),
        ));
    }
    if let Some(given) = params.get("resource")
        && old.resource.as_deref() != Some(given)
    {
        return Err(OAuthError::bad(
            "invalid_target",
            format!(
                "resource `{given}` is not the resource the grant was bound to ({})",
                old.resource.as_deref().unwrap_or("none")
            ),
        ));
    }
    let scopes = if requested.is_empty() {
        old.scopes.clone()
    } else {
        requested
    };
    state.refresh.remove(presented);
    let issued = issue(
        oauth,
        &mut state,
        engine,
        Grant {
            client_id: &client.client_id,
            scopes: &scopes,
            resource: old.resource.clone(),
            code: old.code.as_deref(),
            refreshable: true,
            jkt,
        },
    );
    if let Some(code) = old.code.as_deref()
        && let Some(stored) = state.codes.get_mut(code)
    {
        stored.issued.extend(issued.ids.iter().cloned());
    }
    state.rotated.insert(
        presented.to_string(),
        Rotated {
            family: old.code.clone(),
            successors: issued.ids.clone(),
        },
    );
    Ok(issued.body)
}

/// OAuth 2.1 section 4.2: a confidential client asks for a token for itself; no refresh
/// token (section 4.2.3).
fn client_credentials_grant(
    engine: &Engine,
    oauth: &AuthServer,
    context: &Context,
    client: &Client,
    params: &Params,
    jkt: Option<String>,
) -> Result<Value, OAuthError> {
    if client.auth_method == TokenEndpointAuthMethod::None {
        return Err(OAuthError::bad(
            "unauthorized_client",
            format!(
                "client `{}` is public; only a confidential client (a secret or a key) may use client_credentials (OAuth 2.1 section 4.2)",
                client.client_id
            ),
        ));
    }
    direct_grant(engine, oauth, context, &client.client_id, params, None, jkt)
}

/// A grant with no authorization step (`client_credentials`, `jwt-bearer`): the scopes
/// and resource asked for (or `bound` by the grant), checked, and an access token without a
/// refresh token.
fn direct_grant(
    engine: &Engine,
    oauth: &AuthServer,
    context: &Context,
    client_id: &str,
    params: &Params,
    bound: Option<String>,
    jkt: Option<String>,
) -> Result<Value, OAuthError> {
    let scopes = params::scopes(params.get("scope"))?;
    if let Some(known) = oauth.known_scopes()
        && let Some(unknown) = scopes.iter().find(|s| !known.contains(s))
    {
        return Err(OAuthError::bad(
            "invalid_scope",
            format!(
                "scope `{unknown}` is not offered; this server offers {}",
                known.join(" ")
            ),
        ));
    }
    let resource = match params.get("resource") {
        Some(given) if given == context.resource => Some(given.to_string()),
        Some(given) => {
            return Err(OAuthError::bad(
                "invalid_target",
                format!(
                    "resource `{given}` is not this server's resource `{}`",
                    context.resource
                ),
            ));
        }
        // The grant names its resource (an ID-JAG): it need not be repeated.
        None if bound.is_some() => bound,
        None if oauth.spec.require_resource => {
            return Err(OAuthError::bad(
                "invalid_target",
                format!(
                    "`resource` is missing; this server requires resource indicators (RFC 8707): `{}`",
                    context.resource
                ),
            ));
        }
        None => None,
    };
    let mut state = oauth.lock();
    let issued = issue(
        oauth,
        &mut state,
        engine,
        Grant {
            client_id,
            scopes: &scopes,
            resource,
            code: None,
            refreshable: false,
            jkt,
        },
    );
    Ok(issued.body)
}

/// RFC 7523 section 2.1: a JWT from a trusted issuer is the grant; client authentication
/// is optional (section 3.1), and the token is the client's, or the assertion's subject's.
fn jwt_bearer_grant(
    engine: &Engine,
    oauth: &AuthServer,
    context: &Context,
    headers: &HeaderMap,
    params: &Params,
    jkt: Option<String>,
) -> Result<Value, OAuthError> {
    let client = if presents_client(headers, params) {
        Some(authenticate(engine, oauth, context, headers, params)?)
    } else {
        None
    };
    let granted = super::assertion::grant_subject(
        oauth,
        context,
        engine.clock.now(),
        params,
        client.as_ref(),
    )?;
    let holder = client
        .as_ref()
        .map_or(granted.subject.as_str(), |c| c.client_id.as_str());
    direct_grant(
        engine,
        oauth,
        context,
        holder,
        params,
        granted.resource,
        jkt,
    )
}

/// The key a token request's DPoP proof binds its token to, when the server speaks DPoP.
#[cfg(feature = "oauth-jwt")]
fn bound_key(
    engine: &Engine,
    oauth: &AuthServer,
    context: &Context,
    headers: &HeaderMap,
) -> Result<Option<String>, OAuthError> {
    super::dpop::token_request(oauth, context, headers, engine.clock.now())
}

/// Without `oauth-jwt` no server speaks DPoP (it is refused at start).
#[cfg(not(feature = "oauth-jwt"))]
fn bound_key(
    _engine: &Engine,
    _oauth: &AuthServer,
    _context: &Context,
    _headers: &HeaderMap,
) -> Result<Option<String>, OAuthError> {
    Ok(None)
}

/// Whether the request names or authenticates a client at all.
fn presents_client(headers: &HeaderMap, params: &Params) -> bool {
    headers.contains_key(header::AUTHORIZATION)
        || [
            "client_id",
            "client_secret",
            "client_assertion",
            "client_assertion_type",
        ]
        .iter()
        .any(|name| params.get(name).is_some())
}

struct Issued {
    body: Value,
    ids: Vec<String>,
}

/// What a token is issued for.
struct Grant<'a> {
    client_id: &'a str,
    scopes: &'a [String],
    resource: Option<String>,
    /// The authorization code the grant's tokens descend from, if any.
    code: Option<&'a str>,
    /// Whether a refresh token comes with it (when the server issues them at all).
    refreshable: bool,
    /// The DPoP key it is bound to: the token is a `DPoP` token (RFC 9449 section 5).
    jkt: Option<String>,
}

/// A new access token (and refresh token, when they are on), stored and described.
fn issue(oauth: &AuthServer, state: &mut Records, engine: &Engine, grant: Grant<'_>) -> Issued {
    let Grant {
        client_id,
        scopes,
        resource,
        code,
        refreshable,
        jkt,
    } = grant;
    let now = engine.clock.now();
    let lifetime = oauth.spec.access_token_lifetime_secs;
    let access = secret();
    let access_id = AuthServer::next_id(state, "at");
    let mut body = Map::new();
    let mut ids = vec![access_id.clone()];
    state.access.insert(
        access.clone(),
        Token {
            id: access_id,
            kind: TokenKind::Access,
            client_id: client_id.to_string(),
            scopes: scopes.to_vec(),
            resource: resource.clone(),
            issued_at: now,
            expires_at: Some(after(now, lifetime)),
            code: code.map(str::to_string),
            jkt: jkt.clone(),
        },
    );
    body.insert("access_token".into(), json!(access));
    let token_type = if jkt.is_some() { "DPoP" } else { "Bearer" };
    body.insert("token_type".into(), json!(token_type));
    body.insert("expires_in".into(), json!(lifetime));
    if refreshable && oauth.spec.refresh_tokens {
        let refresh = secret();
        let refresh_id = AuthServer::next_id(state, "rt");
        ids.push(refresh_id.clone());
        state.refresh.insert(
            refresh.clone(),
            Token {
                id: refresh_id,
                kind: TokenKind::Refresh,
                client_id: client_id.to_string(),
                scopes: scopes.to_vec(),
                resource,
                issued_at: now,
                expires_at: oauth
                    .spec
                    .refresh_token_lifetime_secs
                    .map(|s| after(now, s)),
                code: code.map(str::to_string),
                jkt: jkt.clone(),
            },
        );
        body.insert("refresh_token".into(), json!(refresh));
    }
    if !scopes.is_empty() {
        body.insert("scope".into(), json!(scopes.join(" ")));
    }
    Issued {
        body: Value::Object(body),
        ids,
    }
}

/// Revokes the tokens with these ids; how many were live.
fn revoke_family(state: &mut Records, ids: &[String]) -> usize {
    state.access.remove_where(|t| ids.contains(&t.id))
        + state.refresh.remove_where(|t| ids.contains(&t.id))
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn basic_credentials_are_form_decoded() {
        let header = format!("Basic {}", STANDARD.encode("my%20client:s%3Acret"));
        assert_eq!(
            basic_credentials(header.as_bytes()).expect("valid"),
            ("my client".to_string(), "s:cret".to_string())
        );
        for bad in ["Bearer abc", "Basic !!!", "Basic"] {
            let error = basic_credentials(bad.as_bytes()).expect_err(bad);
            assert_eq!(error.code, "invalid_client");
        }
    }
}
