//! An enterprise identity provider beside the authorization server, for Enterprise-Managed
//! Authorization (SEP-990, the IETF Identity Assertion Authorization Grant): it signs ID
//! tokens for users, and trades one for an ID-JAG (an `oauth-id-jag+jwt` naming the MCP
//! client and its resource) with RFC 8693 token exchange. The authorization server takes that
//! ID-JAG as a `jwt-bearer` grant from the client it names. Served at `{prefix}/idp`: its
//! OpenID configuration, `/token` and `/jwks`. Feature `oauth-jwt`.

use std::time::{SystemTime, UNIX_EPOCH};

use axum::extract::Request;
use axum::http::StatusCode;
use axum::response::{IntoResponse, Response};
use serde_json::{Value, json};

use super::issuer::Context;
use super::jwt::{Jwt, SigningKey};
use super::params::Params;
use super::{AuthServer, OAuthError, no_store};

pub(super) const TOKEN_EXCHANGE: &str = "urn:ietf:params:oauth:grant-type:token-exchange";
const ID_TOKEN_TYPE: &str = "urn:ietf:params:oauth:token-type:id_token";
const ID_JAG_TYPE: &str = "urn:ietf:params:oauth:token-type:id-jag";
/// The JWS `typ` of an ID-JAG.
pub(super) const ID_JAG_TYP: &str = "oauth-id-jag+jwt";
/// How long an ID-JAG lives: a grant is used at once.
const ID_JAG_SECS: i64 = 300;
/// How long an ID token from [`id_token`] lives.
const ID_TOKEN_SECS: i64 = 3600;

/// Its issuer as a request reached it.
pub(super) fn issuer(context: &Context) -> String {
    format!("{}{}", context.origin, context.mount.idp_base())
}

fn now_secs(now: SystemTime) -> i64 {
    now.duration_since(UNIX_EPOCH)
        .map_or(0, |d| i64::try_from(d.as_secs()).unwrap_or(i64::MAX))
}

fn random_id() -> String {
    super::secret()
}

/// An ID token for `user`, as the identity provider signs one after a login: `iss` its
/// issuer, `aud` the client's id at the identity provider, valid for an hour.
pub(crate) fn id_token(key: &SigningKey, issuer: &str, client_id: &str, user: &str) -> String {
    let now = now_secs(SystemTime::now());
    key.sign(
        Some("JWT"),
        &json!({
            "iss": issuer, "sub": user, "email": user, "aud": client_id,
            "iat": now, "exp": now + ID_TOKEN_SECS, "jti": random_id(),
        }),
    )
}

/// `GET {idp}/.well-known/openid-configuration`.
pub(super) fn metadata(context: &Context) -> Response {
    let issuer = issuer(context);
    axum::Json(json!({
        "issuer": issuer,
        "token_endpoint": format!("{issuer}/token"),
        "jwks_uri": format!("{issuer}/jwks"),
        "grant_types_supported": [TOKEN_EXCHANGE],
        "id_token_signing_alg_values_supported": [super::jwt::ALGORITHM],
    }))
    .into_response()
}

/// `GET {idp}/jwks`: the key its ID tokens and ID-JAGs are signed with.
pub(super) fn jwks(oauth: &AuthServer) -> Response {
    let keys: Vec<Value> = oauth.idp_key.iter().map(SigningKey::public_jwk).collect();
    axum::Json(json!({ "keys": keys })).into_response()
}

/// `POST {idp}/token`: RFC 8693 token exchange of an ID token for an ID-JAG.
pub(super) async fn token(
    oauth: &AuthServer,
    context: &Context,
    now: SystemTime,
    request: Request,
) -> Response {
    match exchange(oauth, context, now, request).await {
        Ok(body) => (StatusCode::OK, no_store(), axum::Json(body)).into_response(),
        Err(error) => error.into_response(),
    }
}

async fn exchange(
    oauth: &AuthServer,
    context: &Context,
    now: SystemTime,
    request: Request,
) -> Result<Value, OAuthError> {
    let (Some(idp), Some(key)) = (&oauth.spec.identity_provider, &oauth.idp_key) else {
        return Err(OAuthError::bad(
            "invalid_request",
            "this server has no identity provider",
        ));
    };
    let (_, params) = Params::form(request).await?;
    let grant = params.require("grant_type")?;
    if grant != TOKEN_EXCHANGE {
        return Err(OAuthError::bad(
            "unsupported_grant_type",
            format!(
                "grant_type `{grant}` is not supported; the identity provider takes `{TOKEN_EXCHANGE}` (RFC 8693)"
            ),
        ));
    }
    for (name, expected) in [
        ("subject_token_type", ID_TOKEN_TYPE),
        ("requested_token_type", ID_JAG_TYPE),
    ] {
        match params.get(name) {
            Some(given) if given == expected => {}
            given => {
                return Err(OAuthError::bad(
                    "invalid_request",
                    format!(
                        "`{name}` must be `{expected}` (SEP-990), not {}",
                        given.map_or("missing".to_string(), |g| format!("`{g}`"))
                    ),
                ));
            }
        }
    }
    let subject = params.require("subject_token")?;
    let audience = params.require("audience")?;
    let resource = params.require("resource")?;
    if let Some(client) = params.get("client_id")
        && client != idp.client_id
    {
        return Err(OAuthError::new(
            StatusCode::UNAUTHORIZED,
            "invalid_client",
            format!(
                "client_id `{client}` is not a client of the identity provider; its client is `{}`",
                idp.client_id
            ),
        ));
    }
    let issuer = issuer(context);
    let token = Jwt::decode(subject)
        .map_err(|why| OAuthError::grant(format!("the `subject_token` is not a JWT: {why}")))?;
    token.verify(&key.public_key()).map_err(|why| {
        OAuthError::grant(format!(
            "the `subject_token` is not an ID token of this identity provider: {why}"
        ))
    })?;
    if token.claim("iss") != Some(issuer.as_str()) {
        return Err(OAuthError::grant(format!(
            "the ID token's `iss` is not this identity provider `{issuer}`"
        )));
    }
    if !token.audience().contains(&idp.client_id.as_str()) {
        return Err(OAuthError::grant(format!(
            "the ID token is not for the client `{}` (`aud`)",
            idp.client_id
        )));
    }
    let now = now_secs(now);
    if token.time("exp").is_none_or(|exp| exp < now) {
        return Err(OAuthError::grant("the ID token has expired (`exp`)"));
    }
    let user = token
        .claim("sub")
        .filter(|s| !s.is_empty())
        .ok_or_else(|| OAuthError::grant("the ID token has no `sub`"))?;
    let jag = key.sign(
        Some(ID_JAG_TYP),
        &json!({
            "iss": issuer, "sub": user, "aud": audience, "resource": resource,
            "client_id": idp.authorization_server_client_id,
            "iat": now, "exp": now + ID_JAG_SECS, "jti": random_id(),
        }),
    );
    Ok(json!({
        "access_token": jag,
        "issued_token_type": ID_JAG_TYPE,
        "token_type": "N_A",
        "expires_in": ID_JAG_SECS,
    }))
}
