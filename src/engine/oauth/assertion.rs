//! Signed JWTs at the token endpoint (RFC 7523): `private_key_jwt` client authentication
//! (section 2.2: the client signs a JWT naming itself in `iss` and `sub` and this
//! authorization server in `aud`, its issuer per RFC 7523bis, verified with the key it
//! registered) and the `jwt-bearer` grant (section 2.1: a JWT from a trusted issuer is the
//! grant, verified with that issuer's key).

use std::time::SystemTime;

use super::AuthServer;
use super::OAuthError;
use super::issuer::Context;
use super::params::Params;
use super::store::Client;

/// RFC 7523 section 2.1's `grant_type`.
pub(super) const JWT_BEARER_GRANT: &str = "urn:ietf:params:oauth:grant-type:jwt-bearer";

/// RFC 7523 section 2.2's `client_assertion_type`.
pub(super) const ASSERTION_TYPE: &str = "urn:ietf:params:oauth:client-assertion-type:jwt-bearer";

/// Seconds of clock skew allowed on `exp` and `nbf`.
#[cfg(feature = "oauth-jwt")]
const LEEWAY_SECS: i64 = 30;

/// The client a request's `client_assertion` authenticates, in the order a reader checks
/// it: the assertion type, the signature with the client's key, the audience and times,
/// then `iss` and `sub`.
pub(super) fn authenticate(
    oauth: &AuthServer,
    context: &Context,
    now: SystemTime,
    params: &Params,
) -> Result<Client, OAuthError> {
    let refuse = |description: String| OAuthError::invalid_client(description, false);
    match params.get("client_assertion_type") {
        Some(ASSERTION_TYPE) => {}
        Some(other) => {
            return Err(refuse(format!(
                "`client_assertion_type` `{other}` is not `{ASSERTION_TYPE}` (RFC 7523 section 2.2)"
            )));
        }
        None => {
            return Err(refuse(format!(
                "`client_assertion_type` is missing; with a `client_assertion` it must be `{ASSERTION_TYPE}`"
            )));
        }
    }
    let assertion = params.get("client_assertion").ok_or_else(|| {
        refuse("`client_assertion` is missing: private_key_jwt sends the signed JWT in it".into())
    })?;
    verified(oauth, context, now, params, assertion)
}

#[cfg(feature = "oauth-jwt")]
fn verified(
    oauth: &AuthServer,
    context: &Context,
    now: SystemTime,
    params: &Params,
    assertion: &str,
) -> Result<Client, OAuthError> {
    use super::jwt::{Jwt, PublicKey};

    let refuse = |description: String| OAuthError::invalid_client(description, false);
    let jwt = Jwt::decode(assertion)
        .map_err(|why| refuse(format!("the `client_assertion` is not a JWT: {why}")))?;
    // RFC 7523 section 3: the client is `sub`; a `client_id` in the body must agree.
    let named = params
        .get("client_id")
        .or_else(|| jwt.claim("sub"))
        .or_else(|| jwt.claim("iss"))
        .ok_or_else(|| refuse("the `client_assertion` names no client (`sub`)".into()))?;
    let client = {
        let state = oauth.lock();
        oauth.client(&state, named)
    }
    .ok_or_else(|| {
        refuse(format!(
            "client_id `{named}` is not registered with this authorization server"
        ))
    })?;
    let jwk = client.jwk.as_ref().ok_or_else(|| {
        refuse(format!(
            "client `{named}` has no registered key; it authenticates with `{}`",
            client.auth_method.as_str()
        ))
    })?;
    let key = PublicKey::from_jwk(jwk).map_err(refuse)?;
    jwt.verify(&key)
        .map_err(|why| refuse(format!("the `client_assertion` does not verify: {why}")))?;
    check_claims(&jwt, context, now, "client_assertion").map_err(refuse)?;
    for claim in ["iss", "sub"] {
        if jwt.claim(claim) != Some(client.client_id.as_str()) {
            return Err(refuse(format!(
                "the `client_assertion`'s `{claim}` {:?} is not the client_id `{}` (RFC 7523 section 3)",
                jwt.claim(claim).unwrap_or_default(),
                client.client_id
            )));
        }
    }
    Ok(client)
}

/// What a verified `jwt-bearer` assertion grants: its subject, and the resource an ID-JAG
/// binds it to.
pub(super) struct Granted {
    pub(super) subject: String,
    pub(super) resource: Option<String>,
}

/// What a `jwt-bearer` grant's `assertion` grants, once it verifies: a trusted `iss`,
/// its key's signature, this server in `aud`, a live `exp`, a `sub` (RFC 7523 section 3).
pub(super) fn grant_subject(
    oauth: &AuthServer,
    context: &Context,
    now: SystemTime,
    params: &Params,
    client: Option<&Client>,
) -> Result<Granted, OAuthError> {
    let assertion = params.get("assertion").ok_or_else(|| {
        OAuthError::bad(
            "invalid_request",
            "`assertion` is missing: the jwt-bearer grant carries the JWT in it (RFC 7523 section 2.1)",
        )
    })?;
    grant_verified(oauth, context, now, assertion, client)
}

#[cfg(feature = "oauth-jwt")]
fn grant_verified(
    oauth: &AuthServer,
    context: &Context,
    now: SystemTime,
    assertion: &str,
    client: Option<&Client>,
) -> Result<Granted, OAuthError> {
    use super::jwt::{Jwt, PublicKey};

    let refuse = |description: String| OAuthError::grant(description);
    let jwt = Jwt::decode(assertion)
        .map_err(|why| refuse(format!("the `assertion` is not a JWT: {why}")))?;
    let iss = jwt.claim("iss").unwrap_or_default();
    if let Some(key) = &oauth.idp_key
        && iss == super::idp::issuer(context)
    {
        return id_jag(&jwt, key, context, now, client);
    }
    let trusted = oauth
        .spec
        .jwt_bearer_issuers
        .iter()
        .find(|t| t.issuer == iss)
        .ok_or_else(|| {
            let known: Vec<&str> = oauth
                .spec
                .jwt_bearer_issuers
                .iter()
                .map(|t| t.issuer.as_str())
                .collect();
            refuse(format!(
                "the `assertion`'s issuer `{iss}` is not trusted here; this server trusts {}",
                known.join(", ")
            ))
        })?;
    let key = PublicKey::from_jwk(&trusted.jwk).map_err(refuse)?;
    jwt.verify(&key)
        .map_err(|why| refuse(format!("the `assertion` does not verify: {why}")))?;
    check_claims(&jwt, context, now, "assertion").map_err(refuse)?;
    let subject = jwt
        .claim("sub")
        .filter(|sub| !sub.is_empty())
        .map(str::to_string)
        .ok_or_else(|| refuse("the `assertion` has no `sub` (RFC 7523 section 3)".into()))?;
    Ok(Granted {
        subject,
        resource: None,
    })
}

/// SEP-990: an ID-JAG of this server's identity provider, used by the client it names for
/// the resource it names.
#[cfg(feature = "oauth-jwt")]
fn id_jag(
    jwt: &super::jwt::Jwt,
    key: &super::jwt::SigningKey,
    context: &Context,
    now: SystemTime,
    client: Option<&Client>,
) -> Result<Granted, OAuthError> {
    let refuse = |description: String| OAuthError::grant(description);
    let Some(client) = client else {
        return Err(OAuthError::invalid_client(
            "an ID-JAG is used by the client it names, authenticated (SEP-990 section 5.1)".into(),
            false,
        ));
    };
    let typ = jwt.header.get("typ").and_then(serde_json::Value::as_str);
    if typ != Some(super::idp::ID_JAG_TYP) {
        return Err(refuse(format!(
            "the ID-JAG's `typ` is {typ:?}, not `{}`",
            super::idp::ID_JAG_TYP
        )));
    }
    jwt.verify(&key.public_key())
        .map_err(|why| refuse(format!("the `assertion` does not verify: {why}")))?;
    check_claims(jwt, context, now, "assertion").map_err(refuse)?;
    if jwt.claim("client_id") != Some(client.client_id.as_str()) {
        return Err(refuse(format!(
            "the ID-JAG's `client_id` {:?} is not the authenticated client `{}`",
            jwt.claim("client_id").unwrap_or_default(),
            client.client_id
        )));
    }
    if jwt.claim("resource") != Some(context.resource.as_str()) {
        return Err(refuse(format!(
            "the ID-JAG's `resource` {:?} is not this server's resource `{}`",
            jwt.claim("resource").unwrap_or_default(),
            context.resource
        )));
    }
    let subject = jwt
        .claim("sub")
        .filter(|sub| !sub.is_empty())
        .map(str::to_string)
        .ok_or_else(|| refuse("the ID-JAG has no `sub`".into()))?;
    Ok(Granted {
        subject,
        resource: Some(context.resource.clone()),
    })
}

/// `aud` names this server's issuer, `exp` is there and not past, `nbf` is not ahead.
#[cfg(feature = "oauth-jwt")]
fn check_claims(
    jwt: &super::jwt::Jwt,
    context: &Context,
    now: SystemTime,
    what: &str,
) -> Result<(), String> {
    let issuer = context.issuer.trim_end_matches('/');
    if !jwt
        .audience()
        .iter()
        .any(|aud| aud.trim_end_matches('/') == issuer)
    {
        return Err(format!(
            "the `{what}`'s `aud` {:?} does not name this authorization server's issuer `{issuer}` (RFC 7523bis)",
            jwt.audience()
        ));
    }
    let now = now
        .duration_since(SystemTime::UNIX_EPOCH)
        .map_or(0, |d| i64::try_from(d.as_secs()).unwrap_or(i64::MAX));
    match jwt.time("exp") {
        None => {
            return Err(format!(
                "the `{what}` has no `exp` (RFC 7523 section 3 requires one)"
            ));
        }
        Some(exp) if exp.saturating_add(LEEWAY_SECS) < now => {
            return Err(format!(
                "the `{what}` expired {} seconds ago",
                now.saturating_sub(exp)
            ));
        }
        Some(_) => {}
    }
    if let Some(nbf) = jwt.time("nbf")
        && nbf > now.saturating_add(LEEWAY_SECS)
    {
        return Err(format!(
            "the `{what}` is not valid for another {} seconds (`nbf`)",
            nbf.saturating_sub(now)
        ));
    }
    Ok(())
}

#[cfg(not(feature = "oauth-jwt"))]
fn grant_verified(
    _oauth: &AuthServer,
    _context: &Context,
    _now: SystemTime,
    _assertion: &str,
    _client: Option<&Client>,
) -> Result<Granted, OAuthError> {
    Err(OAuthError::grant(super::check::JWT_FEATURE))
}

#[cfg(not(feature = "oauth-jwt"))]
fn verified(
    _oauth: &AuthServer,
    _context: &Context,
    _now: SystemTime,
    _params: &Params,
    _assertion: &str,
) -> Result<Client, OAuthError> {
    Err(OAuthError::invalid_client(
        super::check::JWT_FEATURE.into(),
        false,
    ))
}
