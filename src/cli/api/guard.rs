//! The API's guards (product guide, "REST API"): it answers only requests addressed to
//! `localhost` or `127.0.0.1` on the UI port, `POST` and `PATCH` must carry JSON, a browser
//! request must come from the UI's own origin, and every call names this run's secret:
//! `Authorization: Bearer` with `runtime.json`'s `apiToken`, or the UI's cookie, which its
//! page sets as it loads.
//!
//! The Host check defeats DNS rebinding (a page on `evil.example` that resolves to
//! 127.0.0.1 still sends `Host: evil.example`); the Origin and `Sec-Fetch-Site` checks stop
//! other sites' pages from driving the API with simple requests that skip CORS preflight.
//!
//! Must not touch: routes, bodies or the engine; it only lets a request through or refuses it.

use std::sync::Arc;

use axum::extract::{Request, State};
use axum::http::{HeaderMap, Method, StatusCode, header};
use axum::middleware::Next;
use axum::response::{IntoResponse, Response};

use super::ApiError;
use crate::cli::App;

/// The middleware on the whole `/api/v1` router.
pub(crate) async fn check(State(app): State<Arc<App>>, request: Request, next: Next) -> Response {
    let headers = request.headers();
    let checked = host(headers, app.ui_port)
        .and_then(|()| browser(headers, app.ui_port))
        .and_then(|()| secret(headers, &app.api_token))
        .and_then(|()| content_type(request.method(), headers));
    match checked {
        Ok(()) => next.run(request).await,
        Err(error) => error.into_response(),
    }
}

/// The middleware on the UI's pages and files: the Host check alone. The pages are static and
/// read nothing, so a link from another site may open them; what they do goes through the API,
/// behind [`check`]. The Host check still applies, so a tunnel to the UI port answers `403`
/// (product guide, "Connect a client on another host") and a rebinding page cannot read them.
/// The page itself (`GET /`) sets the API's cookie ([`COOKIE`]): `HttpOnly`, so no script
/// reads it, and `SameSite=Strict`, so no other site's request carries it.
pub(crate) async fn local_host(
    State(app): State<Arc<App>>,
    request: Request,
    next: Next,
) -> Response {
    if let Err(error) = host(request.headers(), app.ui_port) {
        return error.into_response();
    }
    let page = request.uri().path() == "/";
    let mut response = next.run(request).await;
    if page && response.status().is_success() {
        let cookie = format!(
            "{COOKIE}={}; Path=/api/v1; HttpOnly; SameSite=Strict",
            app.api_token
        );
        if let Ok(value) = axum::http::HeaderValue::from_str(&cookie) {
            response.headers_mut().insert(header::SET_COOKIE, value);
        }
    }
    response
}

/// The two authorities the API answers to.
fn local_authorities(port: u16) -> [String; 2] {
    [format!("localhost:{port}"), format!("127.0.0.1:{port}")]
}

fn host(headers: &HeaderMap, port: u16) -> Result<(), ApiError> {
    let allowed = local_authorities(port);
    let Some(value) = headers.get(header::HOST) else {
        return Err(forbidden(
            "Host",
            format!(
                "the request has no Host header; the API answers only requests to {} or {}",
                allowed[0], allowed[1]
            ),
        ));
    };
    let text = value.to_str().unwrap_or("");
    // Host names are case-insensitive (RFC 9110 §4.2.3).
    if allowed.iter().any(|a| a.eq_ignore_ascii_case(text)) {
        return Ok(());
    }
    Err(forbidden(
        "Host",
        format!(
            "the Host header `{}` is not {} or {}; the API answers only local requests, so do not put a tunnel or proxy in front of the UI port",
            String::from_utf8_lossy(value.as_bytes()),
            allowed[0],
            allowed[1]
        ),
    ))
}

fn browser(headers: &HeaderMap, port: u16) -> Result<(), ApiError> {
    if let Some(origin) = headers.get(header::ORIGIN) {
        let own = local_authorities(port).map(|a| format!("http://{a}"));
        let text = origin.to_str().unwrap_or("");
        if !own.iter().any(|o| o.eq_ignore_ascii_case(text)) {
            return Err(forbidden(
                "Origin",
                format!(
                    "a browser request from `{}` is refused; only the UI's own origin ({} or {}) may call the API",
                    String::from_utf8_lossy(origin.as_bytes()),
                    own[0],
                    own[1]
                ),
            ));
        }
    }
    if let Some(site) = headers.get("sec-fetch-site") {
        let text = site.to_str().unwrap_or("");
        if !matches!(text, "same-origin" | "none") {
            return Err(forbidden(
                "Sec-Fetch-Site",
                format!(
                    "a `{}` browser request is refused; only the UI's own pages may call the API",
                    String::from_utf8_lossy(site.as_bytes())
                ),
            ));
        }
    }
    Ok(())
}

/// The cookie the UI's page sets (`HttpOnly`, `SameSite=Strict`, path `/api/v1`), so its own
/// requests, event streams and download links carry the secret and no script can read it.
pub(crate) const COOKIE: &str = "mcp_decoy_api";

/// Whether the request names this run's secret, compared in constant time.
fn secret(headers: &HeaderMap, token: &str) -> Result<(), ApiError> {
    use subtle::ConstantTimeEq;
    let matches = |given: &str| bool::from(given.as_bytes().ct_eq(token.as_bytes()));
    let bearer = headers
        .get(header::AUTHORIZATION)
        .and_then(|v| v.to_str().ok())
        .and_then(|v| v.strip_prefix("Bearer "));
    let cookie = headers
        .get_all(header::COOKIE)
        .iter()
        .filter_map(|v| v.to_str().ok())
        .flat_map(|v| v.split(';'))
        .filter_map(|pair| pair.trim().split_once('='))
        .find(|(name, _)| *name == COOKIE)
        .map(|(_, value)| value);
    if bearer.or(cookie).is_some_and(matches) {
        return Ok(());
    }
    let detail = if bearer.is_some() || cookie.is_some() {
        "the API secret does not match this run's; it changes at every start: read it again from `apiToken` in runtime.json"
    } else {
        "the API needs this run's secret: send `Authorization: Bearer TOKEN` with `apiToken` from runtime.json in the config directory (the web UI sends it by itself)"
    };
    Err(ApiError::new(StatusCode::UNAUTHORIZED, detail.to_string()).field("Authorization"))
}

fn content_type(method: &Method, headers: &HeaderMap) -> Result<(), ApiError> {
    if *method != Method::POST && *method != Method::PATCH {
        return Ok(());
    }
    let value = headers
        .get(header::CONTENT_TYPE)
        .and_then(|v| v.to_str().ok());
    // `application/json; charset=utf-8` is JSON too; the essence is what counts.
    let essence = value
        .and_then(|v| v.split(';').next())
        .map(str::trim)
        .unwrap_or("");
    if essence.eq_ignore_ascii_case("application/json") {
        return Ok(());
    }
    let got = match value {
        Some(v) => format!("`{v}`"),
        None => "no Content-Type".into(),
    };
    Err(ApiError::new(
        StatusCode::UNSUPPORTED_MEDIA_TYPE,
        format!("a {method} request must send `Content-Type: application/json`, not {got}"),
    )
    .field("Content-Type"))
}

fn forbidden(field: &str, detail: String) -> ApiError {
    ApiError::new(StatusCode::FORBIDDEN, detail).field(field)
}

#[cfg(test)]
mod tests {
    use super::*;
    use axum::http::HeaderValue;

    fn headers(pairs: &[(&'static str, &str)]) -> HeaderMap {
        let mut map = HeaderMap::new();
        for (name, value) in pairs {
            map.insert(*name, HeaderValue::from_str(value).expect("a header value"));
        }
        map
    }

    #[test]
    fn only_the_local_authorities_on_the_ui_port_pass() {
        assert!(host(&headers(&[("host", "localhost:6281")]), 6281).is_ok());
        assert!(host(&headers(&[("host", "127.0.0.1:6281")]), 6281).is_ok());
        assert!(host(&headers(&[("host", "LOCALHOST:6281")]), 6281).is_ok());
        for bad in [
            "localhost",
            "localhost:6280",
            "evil.example:6281",
            "[::1]:6281",
        ] {
            let error = host(&headers(&[("host", bad)]), 6281).expect_err(bad);
            assert_eq!(error.status, StatusCode::FORBIDDEN);
            assert!(error.detail.contains(bad), "{}", error.detail);
        }
        assert!(host(&HeaderMap::new(), 6281).is_err(), "no Host header");
    }

    #[test]
    fn browser_requests_pass_only_from_the_ui_origin() {
        assert!(browser(&HeaderMap::new(), 1).is_ok(), "not a browser");
        assert!(browser(&headers(&[("origin", "http://localhost:1")]), 1).is_ok());
        assert!(browser(&headers(&[("origin", "http://127.0.0.1:1")]), 1).is_ok());
        assert!(browser(&headers(&[("sec-fetch-site", "same-origin")]), 1).is_ok());
        assert!(browser(&headers(&[("sec-fetch-site", "none")]), 1).is_ok());
        assert!(browser(&headers(&[("origin", "http://evil.example")]), 1).is_err());
        assert!(browser(&headers(&[("origin", "null")]), 1).is_err());
        assert!(browser(&headers(&[("origin", "https://localhost:1")]), 1).is_err());
        assert!(browser(&headers(&[("sec-fetch-site", "cross-site")]), 1).is_err());
        assert!(browser(&headers(&[("sec-fetch-site", "same-site")]), 1).is_err());
    }

    #[test]
    fn post_and_patch_need_json() {
        let json = headers(&[("content-type", "application/json; charset=utf-8")]);
        assert!(content_type(&Method::POST, &json).is_ok());
        assert!(content_type(&Method::GET, &HeaderMap::new()).is_ok());
        assert!(content_type(&Method::DELETE, &HeaderMap::new()).is_ok());
        let error = content_type(&Method::PATCH, &HeaderMap::new()).expect_err("none");
        assert_eq!(error.status, StatusCode::UNSUPPORTED_MEDIA_TYPE);
        let text = headers(&[("content-type", "text/plain")]);
        assert!(content_type(&Method::POST, &text).is_err());
    }
}
