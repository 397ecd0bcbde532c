//! The issuer and the resource identifier of one request, built from the address the client
//! used (the product guide, "Use HTTPS or a public URL"): `https:` when a proxy or tunnel
//! says the client came over TLS, otherwise `http:` with a loopback host. A plain-HTTP
//! request naming a LAN address cannot complete OAuth, and is told why.

use axum::http::{HeaderMap, StatusCode, header};

use super::{AuthServer, Mount, OAuthError};
use crate::spec::ResourceMetadataLocation;

/// What one request's URLs are built from.
#[derive(Debug, Clone)]
pub(super) struct Context {
    /// `scheme://host[:port]`, as the client addressed the server.
    pub(super) origin: String,
    /// The authorization server's issuer (RFC 8414): origin + issuer path.
    pub(super) issuer: String,
    /// The resource identifier (RFC 8707, RFC 9728 `resource`) tokens must be bound to.
    pub(super) resource: String,
    pub(super) mount: Mount,
}

impl Context {
    pub(super) fn of(oauth: &AuthServer, headers: &HeaderMap) -> Result<Self, OAuthError> {
        let origin = origin(headers)?;
        let mount = oauth.mount();
        let issuer = format!("{origin}{}", oauth.issuer_path(&mount));
        let resource = resource(oauth, &origin, &mount);
        Ok(Context {
            origin,
            issuer,
            resource,
            mount,
        })
    }

    /// The absolute URL of a path on this server.
    pub(super) fn url(&self, path: &str) -> String {
        format!("{}{path}", self.origin)
    }

    /// The absolute URL of an authorization-server endpoint (`authorize`, `token`, ...).
    pub(super) fn endpoint(&self, oauth: &AuthServer, name: &str) -> String {
        format!("{}{}/{name}", self.origin, oauth.endpoint_base(&self.mount))
    }
}

/// The resource identifier: the MCP endpoint's URL, or the origin alone when the metadata
/// sits at the root (RFC 9728 section 3.1: a resource without a path has its metadata at
/// the root well-known URL).
fn resource(oauth: &AuthServer, origin: &str, mount: &Mount) -> String {
    if oauth.spec.legacy.is_none()
        && oauth.spec.resource_metadata == ResourceMetadataLocation::Root
        && mount.prefix.is_empty()
    {
        return origin.to_string();
    }
    format!("{origin}{}", mount.mcp_path)
}

/// `scheme://authority` of the request, or why OAuth cannot work through it.
pub(super) fn origin(headers: &HeaderMap) -> Result<String, OAuthError> {
    let host = headers
        .get(header::HOST)
        .and_then(|v| v.to_str().ok())
        .filter(|h| !h.is_empty() && h.chars().all(|c| c.is_ascii_graphic()))
        .ok_or_else(|| {
            OAuthError::bad(
                "invalid_request",
                "the request has no usable Host header; the issuer is built from it",
            )
        })?;
    if forwarded_https(headers) {
        return Ok(format!("https://{host}"));
    }
    if is_loopback(host) {
        return Ok(format!("http://{host}"));
    }
    Err(OAuthError::new(
        StatusCode::BAD_REQUEST,
        "invalid_request",
        format!(
            "OAuth needs an https: issuer, or http: on localhost or 127.0.0.1; this request came over plain HTTP to `{host}`. Use a localhost URL, or a tunnel's https URL"
        ),
    ))
}

/// Whether a proxy in front says the client used TLS (`X-Forwarded-Proto: https` or
/// `Forwarded: proto=https`).
fn forwarded_https(headers: &HeaderMap) -> bool {
    let forwarded_proto = headers
        .get("x-forwarded-proto")
        .and_then(|v| v.to_str().ok())
        .and_then(|v| v.split(',').next())
        .is_some_and(|v| v.trim().eq_ignore_ascii_case("https"));
    let forwarded = headers
        .get("forwarded")
        .and_then(|v| v.to_str().ok())
        .and_then(|v| v.split(',').next())
        .is_some_and(|first| {
            first.split(';').any(|pair| {
                pair.trim().split_once('=').is_some_and(|(k, v)| {
                    k.trim().eq_ignore_ascii_case("proto")
                        && v.trim().trim_matches('"').eq_ignore_ascii_case("https")
                })
            })
        });
    forwarded_proto || forwarded
}

/// `localhost`, `127.0.0.1` (any 127/8 address) or `[::1]`, with or without a port.
pub(super) fn is_loopback(authority: &str) -> bool {
    let host = if let Some(rest) = authority.strip_prefix('[') {
        match rest.split_once(']') {
            Some((host, _)) => host,
            None => return false,
        }
    } else {
        authority.rsplit_once(':').map_or(authority, |(h, _)| h)
    };
    host.eq_ignore_ascii_case("localhost")
        || host
            .parse::<std::net::IpAddr>()
            .is_ok_and(|ip| ip.is_loopback())
}

#[cfg(test)]
mod tests {
    use super::*;
    use axum::http::HeaderValue;

    fn headers(pairs: &[(&'static str, &'static str)]) -> HeaderMap {
        let mut map = HeaderMap::new();
        for (name, value) in pairs {
            map.insert(*name, HeaderValue::from_static(value));
        }
        map
    }

    #[test]
    fn loopback_http_is_an_origin() {
        assert_eq!(
            origin(&headers(&[("host", "127.0.0.1:8080")])).expect("loopback"),
            "http://127.0.0.1:8080"
        );
        assert_eq!(
            origin(&headers(&[("host", "[::1]:80")])).expect("v6"),
            "http://[::1]:80"
        );
        assert_eq!(
            origin(&headers(&[("host", "localhost")])).expect("name"),
            "http://localhost"
        );
    }

    #[test]
    fn a_tunnel_makes_it_https() {
        let tunnel = headers(&[
            ("host", "abc.trycloudflare.com"),
            ("x-forwarded-proto", "https"),
        ]);
        assert_eq!(
            origin(&tunnel).expect("https"),
            "https://abc.trycloudflare.com"
        );
        let forwarded = headers(&[
            ("host", "mcp.example.com"),
            ("forwarded", "for=1.2.3.4;proto=https"),
        ]);
        assert_eq!(
            origin(&forwarded).expect("https"),
            "https://mcp.example.com"
        );
    }

    #[test]
    fn plain_http_to_a_lan_address_is_refused_with_the_reason() {
        let error = origin(&headers(&[("host", "192.168.1.20:3000")])).expect_err("lan");
        assert_eq!(error.code, "invalid_request");
        assert!(
            error.description.contains("192.168.1.20:3000"),
            "{}",
            error.description
        );
        assert!(!is_loopback("localhost.evil.example"));
    }
}
