//! The authorization endpoint (OAuth 2.1 section 4.1.1) and consent: approve at once (so
//! tests run headless), deny, or show a small page with Approve and Deny buttons.
//!
//! Until the client and its redirect URI are known to be right, errors are shown, not
//! redirected (RFC 6749 section 4.1.2.1); after that they go back to the client with
//! `error`, `state` and `iss`.

use axum::extract::Request;
use axum::http::{Method, StatusCode, header};
use axum::response::{IntoResponse, Response};

use super::consent;
use super::issuer::Context;
use super::params::{self, Params};
use super::register::metadata_document_client;
use super::store::{Approved, ClientOrigin, Code, Pending};
use super::{AuthServer, OAuthError, after, secret};
use crate::engine::Engine;
use crate::spec::{Consent, IssResponse};

/// How long a consent page stays answerable.
const CONSENT_SECS: u64 = 600;
/// Consents one client may have pending at once; past it, its oldest goes.
const MAX_PENDING_PER_CLIENT: usize = 16;
/// What `IssResponse::Wrong` sends.
const WRONG_ISSUER: &str = "https://evil.example.com";

/// `GET` (or form `POST`) `…/authorize`.
pub(super) async fn authorize(
    engine: &Engine,
    oauth: &AuthServer,
    context: &Context,
    request: Request,
) -> Response {
    let params = if request.method() == Method::POST {
        Params::form(request).await.map(|(_, params)| params)
    } else {
        Params::query(&request)
    };
    let params = match params {
        Ok(params) => params,
        Err(error) => return error.into_response(),
    };
    let approved = match validate(oauth, context, &params).await {
        Ok(approved) => approved,
        Err(Failure::Shown(error)) => return error.into_response(),
        Err(Failure::Redirected(redirect)) => return redirect,
    };
    match oauth.consent() {
        Consent::Deny => deny(&approved),
        Consent::Page => page(engine, oauth, context, approved),
        _ => approve(engine, oauth, approved),
    }
}

enum Failure {
    /// Shown to the user: the client or its redirect URI cannot be trusted.
    Shown(OAuthError),
    /// Sent back to the client's redirect URI.
    Redirected(Response),
}

async fn validate(
    oauth: &AuthServer,
    context: &Context,
    params: &Params,
) -> Result<Approved, Failure> {
    let client_id = params.require("client_id").map_err(Failure::Shown)?;
    let known = {
        let state = oauth.lock();
        oauth.client(&state, client_id)
    };
    // A metadata document is fetched on every authorization request, so a test that
    // changes the document sees the change (the draft lets servers cache; this one does
    // not, to stay predictable).
    let client = match known {
        Some(client) if client.origin != ClientOrigin::MetadataDocument => client,
        _ if oauth.is_metadata_url(client_id) => {
            let client = metadata_document_client(oauth, client_id)
                .await
                .map_err(Failure::Shown)?;
            oauth
                .lock()
                .clients
                .insert(client.client_id.clone(), client.clone());
            client
        }
        _ => {
            return Err(Failure::Shown(OAuthError::bad(
                "invalid_client",
                format!("client_id `{client_id}` is not registered with this authorization server"),
            )));
        }
    };
    let (redirect_uri, redirect_uri_given) = match params.get("redirect_uri") {
        Some(uri)
            if client
                .redirect_uris
                .iter()
                .any(|r| redirect_matches(r, uri)) =>
        {
            (uri.to_string(), true)
        }
        Some(uri) => {
            return Err(Failure::Shown(OAuthError::bad(
                "invalid_request",
                format!(
                    "redirect_uri `{uri}` is not registered for client `{client_id}` (redirect URIs are compared exactly, except the port of a loopback IP)"
                ),
            )));
        }
        None if client.redirect_uris.len() == 1 => (client.redirect_uris[0].clone(), false),
        None => {
            return Err(Failure::Shown(OAuthError::bad(
                "invalid_request",
                "`redirect_uri` is missing and the client has no single registered redirect URI",
            )));
        }
    };
    let iss = match oauth.spec.iss_in_response {
        // Without metadata no client recorded an issuer to compare `iss` with (RFC 9207
        // section 2.4), so the 2025-03-26 endpoint fallback sends none.
        IssResponse::Correct
            if oauth.spec.legacy == Some(crate::spec::LegacyDiscovery::EndpointFallback) =>
        {
            None
        }
        IssResponse::Correct => Some(context.issuer.clone()),
        IssResponse::Omitted => None,
        IssResponse::Wrong => Some(WRONG_ISSUER.to_string()),
        IssResponse::Normalised => Some(format!("{}/", context.issuer)),
    };
    let mut approved = Approved {
        client_id: client.client_id.clone(),
        redirect_uri,
        redirect_uri_given,
        state: params.get("state").map(str::to_string),
        challenge: String::new(),
        resource: None,
        scopes: Vec::new(),
        iss,
    };
    let back = |code: &'static str, description: String| {
        Failure::Redirected(error_redirect(&approved, code, &description))
    };
    match params.get("response_type") {
        Some("code") => {}
        None => return Err(back("invalid_request", "`response_type` is missing".into())),
        Some(other) => {
            return Err(back(
                "unsupported_response_type",
                format!("response_type `{other}` is not supported; use `code`"),
            ));
        }
    }
    let Some(challenge) = params.get("code_challenge") else {
        return Err(back(
            "invalid_request",
            "`code_challenge` is missing; PKCE with S256 is required".into(),
        ));
    };
    match params.get("code_challenge_method") {
        Some("S256") => {}
        Some("plain") => {
            return Err(back(
                "invalid_request",
                "code_challenge_method `plain` is refused; use `S256`".into(),
            ));
        }
        None => {
            return Err(back(
                "invalid_request",
                "`code_challenge_method` is missing, which means `plain`; use `S256`".into(),
            ));
        }
        Some(other) => {
            return Err(back(
                "invalid_request",
                format!("code_challenge_method `{other}` is not supported; use `S256`"),
            ));
        }
    }
    if challenge.len() != 43 || !challenge.chars().all(is_base64url) {
        return Err(back(
            "invalid_request",
            "`code_challenge` is not an S256 challenge (43 base64url characters)".into(),
        ));
    }
    let resource = match params.get("resource") {
        Some(resource) if resource == context.resource => Some(resource.to_string()),
        Some(resource) => {
            return Err(back(
                "invalid_target",
                format!(
                    "resource `{resource}` is not this server's resource; use `{}`",
                    context.resource
                ),
            ));
        }
        None if oauth.spec.require_resource => {
            return Err(back(
                "invalid_target",
                format!(
                    "`resource` is missing; this server requires resource indicators (RFC 8707): `{}`",
                    context.resource
                ),
            ));
        }
        None => None,
    };
    let scopes = params::scopes(params.get("scope")).map_err(|e| back(e.code, e.description))?;
    if let Some(known) = oauth.known_scopes()
        && let Some(unknown) = scopes.iter().find(|s| !known.contains(s))
    {
        return Err(back(
            "invalid_scope",
            format!(
                "scope `{unknown}` is not offered; this server offers {}",
                known.join(" ")
            ),
        ));
    }
    approved.challenge = challenge.to_string();
    approved.resource = resource;
    approved.scopes = scopes;
    Ok(approved)
}

fn is_base64url(c: char) -> bool {
    c.is_ascii_alphanumeric() || c == '-' || c == '_'
}

/// Issues a code and sends the client back with it.
fn approve(engine: &Engine, oauth: &AuthServer, approved: Approved) -> Response {
    let code = secret();
    let now = engine.clock.now();
    oauth.lock().codes.insert(
        code.clone(),
        Code {
            client_id: approved.client_id.clone(),
            redirect_uri: approved
                .redirect_uri_given
                .then(|| approved.redirect_uri.clone()),
            challenge: approved.challenge.clone(),
            resource: approved.resource.clone(),
            scopes: approved.scopes.clone(),
            expires_at: after(now, oauth.spec.code_lifetime_secs),
            used: false,
            issued: Vec::new(),
        },
    );
    redirect(&approved, &[("code", &code)])
}

fn deny(approved: &Approved) -> Response {
    error_redirect(
        approved,
        "access_denied",
        "the resource owner denied the request",
    )
}

fn error_redirect(approved: &Approved, code: &str, description: &str) -> Response {
    redirect(
        approved,
        &[("error", code), ("error_description", description)],
    )
}

/// `302` to the redirect URI with `params`, then `state` and `iss` (RFC 9207 section 2).
fn redirect(approved: &Approved, params: &[(&str, &str)]) -> Response {
    let Ok(mut url) = url::Url::parse(&approved.redirect_uri) else {
        return OAuthError::bad("invalid_request", "the redirect URI does not parse")
            .into_response();
    };
    {
        let mut query = url.query_pairs_mut();
        for (name, value) in params {
            query.append_pair(name, value);
        }
        if let Some(state) = &approved.state {
            query.append_pair("state", state);
        }
        if let Some(iss) = &approved.iss {
            query.append_pair("iss", iss);
        }
    }
    (
        StatusCode::FOUND,
        [
            (header::LOCATION, url.to_string()),
            (header::CACHE_CONTROL, "no-store".to_string()),
        ],
    )
        .into_response()
}

/// Keeps the request pending and shows the consent page that answers it.
fn page(engine: &Engine, oauth: &AuthServer, context: &Context, approved: Approved) -> Response {
    let id = secret();
    let now = engine.clock.now();
    let target = url::Url::parse(&approved.redirect_uri)
        .ok()
        .and_then(|u| u.host_str().map(str::to_string))
        .unwrap_or_default();
    let action = format!("{}/consent", oauth.endpoint_base(&context.mount));
    let shown = consent::render(&consent::Page {
        client: &approved.client_id,
        server: &engine.spec.name,
        scopes: &approved.scopes,
        target: &target,
        action: &action,
        id: &id,
    });
    // Per client: a page that opens the authorization endpoint in a loop pushes out its
    // own pending consents, never another client's.
    let mut state = oauth.lock();
    let client_id = approved.client_id.clone();
    state
        .pending
        .make_room_for(MAX_PENDING_PER_CLIENT, |p| p.request.client_id == client_id);
    state.pending.insert(
        id,
        Pending {
            request: approved,
            expires_at: after(now, CONSENT_SECS),
        },
    );
    shown
}

/// A consent form posted from another origin: the page this server served posts it to
/// itself, so its browser names this server's own origin, or none. Another page that got
/// hold of a consent id (it opened the authorization endpoint itself) may not answer it.
fn foreign_form(request: &Request) -> Option<Response> {
    let origin = request
        .headers()
        .get(header::ORIGIN)?
        .to_str()
        .unwrap_or_default();
    let host = request
        .headers()
        .get(header::HOST)
        .and_then(|v| v.to_str().ok())
        .unwrap_or_default();
    let own = origin
        .strip_prefix("http://")
        .or_else(|| origin.strip_prefix("https://"))
        .is_some_and(|authority| !host.is_empty() && authority.eq_ignore_ascii_case(host));
    if own {
        return None;
    }
    let mut refused = OAuthError::bad(
        "access_denied",
        format!("the consent form was posted from `{origin}`, not from this server's own page"),
    )
    .into_response();
    *refused.status_mut() = StatusCode::FORBIDDEN;
    Some(refused)
}

/// `POST …/consent`: the page's Approve or Deny.
pub(super) async fn decide(
    engine: &Engine,
    oauth: &AuthServer,
    _context: &Context,
    request: Request,
) -> Response {
    if let Some(refused) = foreign_form(&request) {
        return refused;
    }
    let params = match Params::form(request).await {
        Ok((_, params)) => params,
        Err(error) => return error.into_response(),
    };
    let id = match params.require("request") {
        Ok(id) => id,
        Err(error) => return error.into_response(),
    };
    // Checked first, so a malformed answer leaves the page answerable.
    let approved = match params.get("decision") {
        Some("approve") => true,
        Some("deny") => false,
        _ => {
            return OAuthError::bad("invalid_request", "`decision` must be `approve` or `deny`")
                .into_response();
        }
    };
    let pending = oauth.lock().pending.remove(id);
    let Some(pending) = pending.filter(|p| engine.clock.now() < p.expires_at) else {
        return OAuthError::bad(
            "invalid_request",
            "this consent request is unknown, already answered or expired; start the authorization again",
        )
        .into_response();
    };
    if approved {
        approve(engine, oauth, pending.request)
    } else {
        deny(&pending.request)
    }
}

/// Whether `given` is the registered redirect URI: exactly, or (OAuth 2.1 section 8.4.2,
/// RFC 8252 section 7.3) the same `http` loopback IP URI on another port, since native
/// clients listen on whatever port the system gives them.
fn redirect_matches(registered: &str, given: &str) -> bool {
    if registered == given {
        return true;
    }
    let (Ok(registered), Ok(given)) = (url::Url::parse(registered), url::Url::parse(given)) else {
        return false;
    };
    let loopback_ip = |url: &url::Url| match url.host() {
        Some(url::Host::Ipv4(ip)) => ip.is_loopback(),
        Some(url::Host::Ipv6(ip)) => ip.is_loopback(),
        _ => false,
    };
    registered.scheme() == "http"
        && given.scheme() == "http"
        && loopback_ip(&registered)
        && registered.host() == given.host()
        && registered.path() == given.path()
        && registered.query() == given.query()
        && registered.fragment().is_none()
        && given.fragment().is_none()
        && given.username().is_empty()
        && given.password().is_none()
}

#[cfg(test)]
mod tests {
    use super::redirect_matches;

    #[test]
    fn loopback_ip_redirects_match_on_any_port_and_nothing_else_does() {
        let registered = "http://127.0.0.1:3000/callback";
        assert!(redirect_matches(registered, registered));
        assert!(redirect_matches(
            registered,
            "http://127.0.0.1:51234/callback"
        ));
        assert!(redirect_matches("http://[::1]/cb", "http://[::1]:8080/cb"));
        assert!(!redirect_matches(
            registered,
            "http://127.0.0.1:51234/other"
        ));
        assert!(!redirect_matches(
            registered,
            "http://127.0.0.1:51234/callback?x=1"
        ));
        assert!(!redirect_matches(
            registered,
            "http://localhost:3000/callback"
        ));
        assert!(!redirect_matches(
            "http://localhost:3000/callback",
            "http://localhost:4000/callback"
        ));
        assert!(!redirect_matches(
            "https://app.example.com/cb",
            "https://app.example.com:8443/cb"
        ));
    }
}
