//! Token revocation (RFC 7009): a client revokes one of its own tokens. An unknown token is
//! not an error (section 2.2), so a client cannot probe which tokens exist.

use axum::extract::Request;
use axum::http::StatusCode;
use axum::response::{IntoResponse, Response};

use super::issuer::Context;
use super::params::Params;
use super::token::authenticate;
use super::{AuthServer, OAuthError, no_store};
use crate::engine::Engine;

/// `POST …/revoke`.
pub(super) async fn revoke(
    engine: &Engine,
    oauth: &AuthServer,
    context: &Context,
    request: Request,
) -> Response {
    match revoked(engine, oauth, context, request).await {
        Ok(()) => (StatusCode::OK, no_store()).into_response(),
        Err(error) => error.into_response(),
    }
}

async fn revoked(
    engine: &Engine,
    oauth: &AuthServer,
    context: &Context,
    request: Request,
) -> Result<(), OAuthError> {
    let (headers, params) = Params::form(request).await?;
    let token = params.require("token")?;
    let client = authenticate(engine, oauth, context, &headers, &params)?;
    let mut state = oauth.lock();
    let owner = state
        .access
        .get(token)
        .or_else(|| state.refresh.get(token))
        .map(|t| t.client_id.clone());
    match owner {
        None => Ok(()),
        Some(owner) if owner != client.client_id => Err(OAuthError::bad(
            "invalid_request",
            "the token was issued to another client, which alone may revoke it",
        )),
        Some(_) => {
            state.access.remove(token);
            state.refresh.remove(token);
            Ok(())
        }
    }
}
