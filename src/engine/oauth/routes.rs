//! The OAuth routes: inside the capture, the endpoint asks [`endpoints`] first, which claims
//! the paths of the current configuration ([`AuthServer::route`](super::AuthServer)) before
//! the endpoint's own paths, so an authorization-server migration can move them at run time.

use std::sync::Arc;

use axum::extract::Request;
use axum::http::{HeaderValue, Method, StatusCode, header};
use axum::response::{IntoResponse, Response};
use serde_json::json;

use super::{AuthServer, OAuthError, authorize, issuer, metadata, register, revoke, token};
use crate::engine::Engine;
use crate::spec::AuthServerMetadata;

/// The OAuth endpoints and documents one server answers.
#[derive(Debug, Clone, Copy)]
pub(super) enum Endpoint {
    ResourceMetadata,
    ServerMetadata(AuthServerMetadata),
    Authorize,
    Consent,
    Token,
    Register,
    Revoke,
    Jwks,
    /// The identity provider's OpenID configuration, token exchange and keys.
    #[cfg(feature = "oauth-jwt")]
    IdpMetadata,
    #[cfg(feature = "oauth-jwt")]
    IdpToken,
    #[cfg(feature = "oauth-jwt")]
    IdpJwks,
}

/// Inside the capture: answers a request to an OAuth path, or gives it back.
pub(crate) async fn endpoints(engine: &Arc<Engine>, request: Request) -> Result<Response, Request> {
    let Some(oauth) = engine.oauth.as_ref() else {
        return Err(request);
    };
    let Some(endpoint) = oauth.route(request.uri().path()) else {
        return Err(request);
    };
    Ok(answer(engine, oauth, endpoint, request).await)
}

async fn answer(
    engine: &Arc<Engine>,
    oauth: &AuthServer,
    endpoint: Endpoint,
    request: Request,
) -> Response {
    // The issuer is built from `Host`, so a rebinding Host must not reach these either.
    if let Some(refused) = engine.guard.host_rejection(&request) {
        return refused;
    }
    let method = request.method().clone();
    let allowed: &[Method] = match endpoint {
        Endpoint::ResourceMetadata | Endpoint::ServerMetadata(_) | Endpoint::Jwks => {
            &[Method::GET, Method::HEAD, Method::OPTIONS]
        }
        #[cfg(feature = "oauth-jwt")]
        Endpoint::IdpMetadata | Endpoint::IdpJwks => &[Method::GET, Method::HEAD, Method::OPTIONS],
        Endpoint::Authorize => &[Method::GET, Method::POST],
        Endpoint::Consent => &[Method::POST],
        _ => &[Method::POST, Method::OPTIONS],
    };
    if !allowed.contains(&method) {
        let list = allowed
            .iter()
            .map(Method::as_str)
            .collect::<Vec<_>>()
            .join(", ");
        let mut response = OAuthError::new(
            StatusCode::METHOD_NOT_ALLOWED,
            "invalid_request",
            format!("{method} is not allowed here; use {list}"),
        )
        .into_response();
        if let Ok(value) = HeaderValue::from_str(&list) {
            response.headers_mut().insert(header::ALLOW, value);
        }
        return response;
    }
    // Browser-based clients fetch metadata, register and call the token and revocation
    // endpoints cross-origin. Authorization and consent are pages the browser navigates to:
    // no other origin gets to read their answers (a page would approve its own consent).
    let cross_origin = !matches!(endpoint, Endpoint::Authorize | Endpoint::Consent);
    if method == Method::OPTIONS {
        return cors(StatusCode::NO_CONTENT.into_response());
    }
    let context = match issuer::Context::of(oauth, request.headers()) {
        Ok(context) => context,
        Err(error) => return error.into_response(),
    };
    let response = match endpoint {
        Endpoint::ResourceMetadata => metadata::protected_resource(engine, oauth, &context),
        Endpoint::ServerMetadata(kind) => metadata::authorization_server(oauth, &context, kind),
        Endpoint::Jwks => axum::Json(json!({ "keys": [] })).into_response(),
        Endpoint::Authorize => authorize::authorize(engine, oauth, &context, request).await,
        Endpoint::Consent => authorize::decide(engine, oauth, &context, request).await,
        Endpoint::Token => token::token(engine, oauth, &context, request).await,
        Endpoint::Register => register::register(engine, oauth, &context, request).await,
        Endpoint::Revoke => revoke::revoke(engine, oauth, &context, request).await,
        #[cfg(feature = "oauth-jwt")]
        Endpoint::IdpMetadata => super::idp::metadata(&context),
        #[cfg(feature = "oauth-jwt")]
        Endpoint::IdpToken => super::idp::token(oauth, &context, engine.clock.now(), request).await,
        #[cfg(feature = "oauth-jwt")]
        Endpoint::IdpJwks => super::idp::jwks(oauth),
    };
    if cross_origin {
        cors(response)
    } else {
        response
    }
}

fn cors(mut response: Response) -> Response {
    let headers = response.headers_mut();
    headers.insert(
        header::ACCESS_CONTROL_ALLOW_ORIGIN,
        HeaderValue::from_static("*"),
    );
    headers.insert(
        header::ACCESS_CONTROL_ALLOW_HEADERS,
        HeaderValue::from_static("authorization, content-type, mcp-protocol-version"),
    );
    response
}
