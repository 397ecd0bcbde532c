//! The discovery documents: Protected Resource Metadata (RFC 9728) and authorization server
//! metadata (RFC 8414, and OpenID Connect Discovery 1.0 for the `openid-configuration`
//! paths).

use axum::response::{IntoResponse, Response};
use serde_json::{Map, Value, json};

use super::AuthServer;
use super::issuer::Context;
use crate::engine::Engine;
use crate::spec::{AuthServerMetadata, TokenEndpointAuthMethod};

/// RFC 9728 section 3.2: `resource`, `authorization_servers`, `scopes_supported`,
/// `bearer_methods_supported`.
pub(super) fn protected_resource(
    engine: &Engine,
    oauth: &AuthServer,
    context: &Context,
) -> Response {
    let spec = &oauth.spec;
    let mut document = Map::new();
    document.insert(
        "resource".into(),
        json!(
            spec.resource_override
                .as_deref()
                .unwrap_or(&context.resource)
        ),
    );
    document.insert("authorization_servers".into(), json!([context.issuer]));
    if !spec.scopes_supported.is_empty() {
        document.insert("scopes_supported".into(), json!(spec.scopes_supported));
    }
    document.insert("bearer_methods_supported".into(), json!(["header"]));
    document.insert("resource_name".into(), json!(engine.spec.name));
    axum::Json(Value::Object(document)).into_response()
}

/// RFC 8414 section 2; the OpenID flavour adds the fields OpenID discovery requires.
pub(super) fn authorization_server(
    oauth: &AuthServer,
    context: &Context,
    kind: AuthServerMetadata,
) -> Response {
    let spec = &oauth.spec;
    let mut document = Map::new();
    document.insert(
        "issuer".into(),
        json!(spec.metadata_issuer.as_deref().unwrap_or(&context.issuer)),
    );
    document.insert(
        "authorization_endpoint".into(),
        json!(context.endpoint(oauth, "authorize")),
    );
    document.insert(
        "token_endpoint".into(),
        json!(context.endpoint(oauth, "token")),
    );
    if spec.dynamic_registration {
        document.insert(
            "registration_endpoint".into(),
            json!(context.endpoint(oauth, "register")),
        );
    }
    document.insert(
        "revocation_endpoint".into(),
        json!(context.endpoint(oauth, "revoke")),
    );
    if let Some(scopes) = advertised_scopes(oauth) {
        document.insert("scopes_supported".into(), json!(scopes));
    }
    document.insert("response_types_supported".into(), json!(["code"]));
    document.insert("response_modes_supported".into(), json!(["query"]));
    document.insert("grant_types_supported".into(), json!(grant_types(oauth)));
    let methods: Vec<&str> = spec
        .token_endpoint_auth_methods
        .iter()
        .map(|m| TokenEndpointAuthMethod::as_str(*m))
        .collect();
    document.insert(
        "token_endpoint_auth_methods_supported".into(),
        json!(methods),
    );
    document.insert(
        "revocation_endpoint_auth_methods_supported".into(),
        json!(methods),
    );
    if oauth.accepts(TokenEndpointAuthMethod::PrivateKeyJwt) {
        document.insert(
            "token_endpoint_auth_signing_alg_values_supported".into(),
            json!(["ES256"]),
        );
    }
    if spec.dpop {
        document.insert("dpop_signing_alg_values_supported".into(), json!(["ES256"]));
    }
    document.insert("code_challenge_methods_supported".into(), json!(["S256"]));
    if spec.iss_advertised {
        document.insert(
            "authorization_response_iss_parameter_supported".into(),
            json!(true),
        );
    }
    if spec.client_id_metadata_documents {
        document.insert("client_id_metadata_document_supported".into(), json!(true));
    }
    if matches!(
        kind,
        AuthServerMetadata::OpenIdInserted | AuthServerMetadata::OpenIdAppended
    ) {
        document.insert("jwks_uri".into(), json!(context.endpoint(oauth, "jwks")));
        document.insert("subject_types_supported".into(), json!(["public"]));
        document.insert(
            "id_token_signing_alg_values_supported".into(),
            json!(["RS256"]),
        );
    }
    axum::Json(Value::Object(document)).into_response()
}

/// The grants the token endpoint takes, as `grant_types_supported` lists them.
pub(super) fn grant_types(oauth: &AuthServer) -> Vec<&'static str> {
    let mut grants = vec!["authorization_code"];
    if oauth.spec.refresh_tokens {
        grants.push("refresh_token");
    }
    if oauth.spec.client_credentials {
        grants.push("client_credentials");
    }
    if oauth.takes_jwt_grants() {
        grants.push(super::assertion::JWT_BEARER_GRANT);
    }
    grants
}

/// The authorization server's `scopes_supported`: the configured scopes, plus
/// `offline_access` when it is listed; `None` when there are none.
fn advertised_scopes(oauth: &AuthServer) -> Option<Vec<String>> {
    let mut scopes = oauth.spec.scopes_supported.clone();
    if oauth.spec.offline_access && !scopes.iter().any(|s| s == "offline_access") {
        scopes.push("offline_access".into());
    }
    (!scopes.is_empty()).then_some(scopes)
}
