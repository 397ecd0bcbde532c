//! Checks of an OAuth spec before a server starts; errors name the field.

use super::{MAX_LIST, register};
use crate::error::Error;
use crate::spec::{
    OAuthSpec, PreRegisteredClient, ResourceMetadataLocation, TokenEndpointAuthMethod,
};

/// Checks an OAuth spec; errors name the field, as in `auth.pre_registered_clients[1]`.
pub(crate) fn check_spec(spec: &crate::spec::ServerSpec) -> Result<(), Error> {
    let Some(auth) = &spec.auth else {
        return Ok(());
    };
    let invalid = |reason: String| {
        Err(Error::InvalidConfig {
            field: "auth",
            reason,
        })
    };
    if auth.token_endpoint_auth_methods.is_empty() {
        return invalid("`auth.token_endpoint_auth_methods` must name at least one method".into());
    }
    if !cfg!(feature = "oauth-jwt")
        && auth
            .token_endpoint_auth_methods
            .contains(&TokenEndpointAuthMethod::PrivateKeyJwt)
    {
        return invalid(format!("`auth.token_endpoint_auth_methods`: {JWT_FEATURE}"));
    }
    if auth.access_token_lifetime_secs == 0 {
        return invalid("`auth.access_token_lifetime_secs` must be at least 1".into());
    }
    if auth.code_lifetime_secs == 0 {
        return invalid("`auth.code_lifetime_secs` must be at least 1".into());
    }
    if auth.refresh_token_lifetime_secs == Some(0) {
        return invalid("`auth.refresh_token_lifetime_secs` must be at least 1".into());
    }
    if auth.pre_registered_clients.len() > MAX_LIST {
        return invalid(format!(
            "`auth.pre_registered_clients` has {} entries; at most {MAX_LIST}",
            auth.pre_registered_clients.len()
        ));
    }
    for (i, client) in auth.pre_registered_clients.iter().enumerate() {
        check_pre_registered(auth, client)
            .map_err(|reason| format!("`auth.pre_registered_clients[{i}]` {reason}"))
            .or_else(invalid)?;
        if auth.pre_registered_clients[..i]
            .iter()
            .any(|c| c.client_id == client.client_id)
        {
            return invalid(format!(
                "`auth.pre_registered_clients[{i}]` repeats client_id `{}`",
                client.client_id
            ));
        }
    }
    if auth.jwt_bearer_issuers.len() > MAX_LIST {
        return invalid(format!(
            "`auth.jwt_bearer_issuers` has {} entries; at most {MAX_LIST}",
            auth.jwt_bearer_issuers.len()
        ));
    }
    for (i, trusted) in auth.jwt_bearer_issuers.iter().enumerate() {
        let field = format!("`auth.jwt_bearer_issuers[{i}]`");
        if trusted.issuer.is_empty() || trusted.issuer.len() > 1024 {
            return invalid(format!("{field}: `issuer` must be 1-1024 bytes"));
        }
        if auth.jwt_bearer_issuers[..i]
            .iter()
            .any(|t| t.issuer == trusted.issuer)
        {
            return invalid(format!("{field} repeats issuer `{}`", trusted.issuer));
        }
        if let Err(reason) = check_jwk(&trusted.jwk) {
            return invalid(format!("{field}: `jwk`: {reason}"));
        }
    }
    if auth.dpop && !cfg!(feature = "oauth-jwt") {
        return invalid(format!("`auth.dpop`: {JWT_FEATURE}"));
    }
    if auth.dpop_nonce && !auth.dpop {
        return invalid("`auth.dpop_nonce` needs `auth.dpop`: nonces are for DPoP proofs".into());
    }
    if let Some(idp) = &auth.identity_provider {
        if !cfg!(feature = "oauth-jwt") {
            return invalid(format!("`auth.identity_provider`: {JWT_FEATURE}"));
        }
        for (field, id) in [
            ("client_id", &idp.client_id),
            (
                "authorization_server_client_id",
                &idp.authorization_server_client_id,
            ),
        ] {
            if id.is_empty() || id.len() > 256 || !id.chars().all(|c| c.is_ascii_graphic()) {
                return invalid(format!(
                    "`auth.identity_provider.{field}` must be 1-256 visible ASCII characters"
                ));
            }
        }
    }
    if auth.client_metadata_documents.len() > MAX_LIST {
        return invalid(format!(
            "`auth.client_metadata_documents` has {} entries; at most {MAX_LIST}",
            auth.client_metadata_documents.len()
        ));
    }
    let accepts_none = auth
        .token_endpoint_auth_methods
        .contains(&TokenEndpointAuthMethod::None);
    for (url, document) in &auth.client_metadata_documents {
        let field = format!("`auth.client_metadata_documents[\"{url}\"]`");
        match url::Url::parse(url) {
            Ok(parsed) if matches!(parsed.scheme(), "https" | "http") => {}
            _ => return invalid(format!("{field}: the key must be an http or https URL")),
        }
        if let Err(reason) = register::document_client(accepts_none, url, document) {
            return invalid(format!("{field}: {reason}"));
        }
    }
    for (field, path) in [
        ("issuer_path", auth.issuer_path.as_deref()),
        (
            "resource_metadata",
            match &auth.resource_metadata {
                ResourceMetadataLocation::Custom(path) => Some(path.as_str()),
                _ => None,
            },
        ),
    ] {
        if let Some(path) = path
            && (!path.starts_with('/')
                || path.len() < 2
                || path.len() > 200
                || path.contains(['?', '#', ' ']))
        {
            return invalid(format!(
                "`auth.{field}` `{path}` must be a path such as `/tenant1`: a leading `/`, at most 200 bytes, no `?`, `#` or spaces"
            ));
        }
    }
    let limits = [
        ("scopes_supported", auth.scopes_supported.len()),
        ("tool_scopes", auth.tool_scopes.len()),
    ];
    for (field, len) in limits {
        if len > MAX_LIST * 10 {
            return invalid(format!(
                "`auth.{field}` has {len} entries; at most {}",
                MAX_LIST * 10
            ));
        }
    }
    for scope in auth
        .scopes_supported
        .iter()
        .chain(auth.tool_scopes.values().flatten())
    {
        if scope.is_empty() || !scope.chars().all(is_scope_char) {
            return invalid(format!(
                "scope `{scope}` is not a scope token (RFC 6749 section 3.3: visible ASCII without spaces, `\"` or `\\`)"
            ));
        }
    }
    Ok(())
}

fn check_pre_registered(auth: &OAuthSpec, client: &PreRegisteredClient) -> Result<(), String> {
    if client.client_id.is_empty() || client.client_id.len() > 256 {
        return Err("`client_id` must be 1-256 bytes".into());
    }
    if !client.client_id.chars().all(|c| c.is_ascii_graphic()) {
        return Err("`client_id` must be visible ASCII without spaces".into());
    }
    if let Some(secret) = &client.client_secret
        && (secret.is_empty()
            || secret.len() > 256
            || !secret.chars().all(|c| c.is_ascii_graphic()))
    {
        return Err("`client_secret` must be 1-256 visible ASCII characters".into());
    }
    if let Some(jwk) = &client.jwk {
        if client.client_secret.is_some() {
            return Err(
                "has both a `client_secret` and a `jwk`: a client authenticates one way".into(),
            );
        }
        if !auth
            .token_endpoint_auth_methods
            .contains(&TokenEndpointAuthMethod::PrivateKeyJwt)
        {
            return Err(
                "has a `jwk`, but the token endpoint does not accept `private_key_jwt`".into(),
            );
        }
        check_jwk(jwk).map_err(|reason| format!("`jwk`: {reason}"))?;
        return check_redirect_uris(client);
    }
    if client.client_secret.is_none()
        && !auth
            .token_endpoint_auth_methods
            .contains(&TokenEndpointAuthMethod::None)
    {
        return Err("has no secret, but the token endpoint does not accept `none`".into());
    }
    check_redirect_uris(client)
}

fn check_redirect_uris(client: &PreRegisteredClient) -> Result<(), String> {
    if client.redirect_uris.len() > MAX_LIST {
        return Err(format!("`redirect_uris` has more than {MAX_LIST} entries"));
    }
    for uri in &client.redirect_uris {
        register::check_redirect_uri(uri).map_err(|reason| format!("`redirect_uris`: {reason}"))?;
    }
    Ok(())
}

#[cfg(feature = "oauth-jwt")]
fn check_jwk(jwk: &serde_json::Value) -> Result<(), String> {
    super::jwt::PublicKey::from_jwk(jwk).map(|_| ())
}

#[cfg(not(feature = "oauth-jwt"))]
fn check_jwk(_jwk: &serde_json::Value) -> Result<(), String> {
    Err(JWT_FEATURE.into())
}

/// Why `private_key_jwt` is refused in a build without it.
pub(super) const JWT_FEATURE: &str = "`private_key_jwt` needs mcp-decoy's `oauth-jwt` feature (ES256 signatures), which this build lacks";

/// RFC 6749 section 3.3: `scope-token = 1*( %x21 / %x23-5B / %x5D-7E )`.
pub(crate) fn is_scope_char(c: char) -> bool {
    matches!(c, '\x21' | '\x23'..='\x5B' | '\x5D'..='\x7E')
}
