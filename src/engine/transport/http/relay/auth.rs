//! OAuth through a relay, as the debug proxy does it (`mcp-debug-proxy.md`, "How the OAuth
//! interception works"): discovery documents are rewritten so that every URL they hand out
//! comes back through the relay (`/_up/{authority}/{path}`), where each leg is captured; the
//! `resource` has two faces (the relay's MCP URL to the client, the real one on every leg
//! that reaches the authorization server, trailing `/` ignored); the browser's authorize leg
//! bounces once through `/_authorize/...`, a redirect that patches `resource`. A `/_up` leg
//! reaches only a host discovery handed out, the upstream's own or an allow-listed one.

use http::HeaderMap;
use serde_json::Value;
use url::Url;

use super::{Relay, authority};

/// Where a request to a relay goes.
#[derive(Debug)]
pub(crate) enum Leg {
    /// The MCP endpoint: to the upstream URL.
    Mcp,
    /// An OAuth leg or a discovery document: to this URL, captured masked.
    Auth(Url),
    /// The browser's authorization request: redirected to this URL.
    Authorize(Url),
    /// `/_up` to a host that is not allowed.
    Forbidden(String),
    NotFound,
}

/// The leg of `path` (with `query`).
pub(crate) fn route(relay: &Relay, path: &str, query: Option<&str>) -> Leg {
    let mount = relay.mount();
    if path == mount {
        return Leg::Mcp;
    }
    let prefix = relay.prefix();
    let with_query = |target: Option<Url>| {
        target.map(|mut url| {
            url.set_query(query);
            url
        })
    };
    if let Some(rest) = path.strip_prefix(&format!("{prefix}/_up/")) {
        return match up(relay, rest, "") {
            Ok(url) => with_query(url).map_or(Leg::NotFound, Leg::Auth),
            Err(host) => Leg::Forbidden(host),
        };
    }
    if let Some(rest) = path.strip_prefix(&format!("{prefix}/_authorize/")) {
        return match up(relay, rest, "") {
            Ok(url) => with_query(url).map_or(Leg::NotFound, Leg::Authorize),
            Err(host) => Leg::Forbidden(host),
        };
    }
    let upstream_origin = super::origin(&relay.upstream);
    let upstream_path = relay.upstream.path().trim_end_matches('/');
    // Path-appended discovery against the MCP URL (`/mcp/.well-known/...`).
    if let Some(doc) = path.strip_prefix(&format!("{mount}/.well-known/")) {
        let url = Url::parse(&format!(
            "{upstream_origin}{upstream_path}/.well-known/{doc}"
        ));
        return with_query(url.ok()).map_or(Leg::NotFound, Leg::Auth);
    }
    let Some(rest) = path.strip_prefix("/.well-known/") else {
        return Leg::NotFound;
    };
    let (doc, tail) = match rest.split_once('/') {
        Some((doc, tail)) => (doc, format!("/{tail}")),
        None => (rest, String::new()),
    };
    let target = if tail.is_empty() && prefix.is_empty() {
        // The root document: the upstream origin's own.
        format!("{upstream_origin}/.well-known/{doc}")
    } else if tail == mount {
        // RFC 9728 section 3.1: the document of our MCP URL is that of the upstream's.
        format!("{upstream_origin}/.well-known/{doc}{upstream_path}")
    } else if let Some(rest) = tail.strip_prefix(&format!("{prefix}/_up/")) {
        // RFC 8414 section 3.1 path insertion applied to one of our `/_up` issuers: the
        // well-known part goes back ahead of the issuer's real path.
        return match up(relay, rest, &format!("/.well-known/{doc}")) {
            Ok(url) => with_query(url).map_or(Leg::NotFound, Leg::Auth),
            Err(host) => Leg::Forbidden(host),
        };
    } else {
        return Leg::NotFound;
    };
    with_query(Url::parse(&target).ok()).map_or(Leg::NotFound, Leg::Auth)
}

/// `{authority}/{path}` of a `/_up` path, as a URL at that host with `insert` ahead of the
/// path; `Err(authority)` when the host is not allowed.
fn up(relay: &Relay, rest: &str, insert: &str) -> Result<Option<Url>, String> {
    let (host, path) = rest.split_once('/').unwrap_or((rest, ""));
    let Some(origin) = relay.allowed(host) else {
        return Err(host.to_string());
    };
    let path = if path.is_empty() && !insert.is_empty() {
        String::new()
    } else {
        format!("/{path}")
    };
    Ok(Url::parse(&format!("{origin}{insert}{path}")).ok())
}

/// The URLs the client sees: the relay's own, built from the `Host` it connected to.
#[derive(Debug, Clone)]
pub(crate) struct Face {
    /// `http://host:port` of the relay's listener as the client named it.
    base: String,
    prefix: String,
    mount: String,
}

impl Face {
    pub(crate) fn of(relay: &Relay, headers: &HeaderMap) -> Face {
        let host = headers
            .get(http::header::HOST)
            .and_then(|v| v.to_str().ok())
            .unwrap_or("localhost");
        Face {
            base: format!("http://{host}"),
            prefix: relay.prefix(),
            mount: relay.mount(),
        }
    }

    /// The relay's MCP URL: the `resource` the client is shown.
    pub(crate) fn mcp(&self) -> String {
        format!("{}{}", self.base, self.mount)
    }

    /// `url` as the client sees it: the upstream's MCP URL becomes ours, any other URL a
    /// `/_up` URL (`authorize`: an `/_authorize` one), its host now allowed. A URL that is
    /// not http(s), or a host past the discovery bound, stays as it was.
    fn of_url(&self, relay: &Relay, text: &str, leg: &str) -> String {
        let Ok(url) = Url::parse(text) else {
            return text.to_string();
        };
        if !matches!(url.scheme(), "http" | "https") {
            return text.to_string();
        }
        if same_resource(text, relay.upstream.as_str()) {
            return self.mcp();
        }
        if !relay.discover(&url) {
            return text.to_string();
        }
        // The text after the authority, kept as it was written: an issuer without a path
        // must stay without one, or a client's RFC 8414 issuer check fails.
        let after = text
            .split_once("://")
            .map(|(_, rest)| rest.find(['/', '?', '#']).map_or("", |at| &rest[at..]))
            .unwrap_or_default();
        format!(
            "{}{}/{leg}/{}{after}",
            self.base,
            self.prefix,
            authority(&url)
        )
    }

    /// Rewrites a `WWW-Authenticate` value's `resource_metadata` (RFC 9728 section 5.1).
    pub(crate) fn challenge(&self, relay: &Relay, value: &str) -> String {
        const PARAM: &str = "resource_metadata=\"";
        let Some(start) = value.find(PARAM).map(|at| at + PARAM.len()) else {
            return value.to_string();
        };
        let Some(len) = value[start..].find('"') else {
            return value.to_string();
        };
        let url = &value[start..start + len];
        format!(
            "{}{}{}",
            &value[..start],
            self.of_url(relay, url, "_up"),
            &value[start + len..]
        )
    }

    /// Rewrites a discovery document that passed through `target`: protected-resource
    /// metadata (RFC 9728 section 2) or authorization-server metadata (RFC 8414 section 2,
    /// OpenID Connect Discovery). Whether anything changed.
    pub(crate) fn metadata(&self, relay: &Relay, target: &Url, document: &mut Value) -> bool {
        let path = target.path();
        let Some(object) = document.as_object_mut() else {
            return false;
        };
        let mut changed = false;
        if path.contains("/.well-known/oauth-protected-resource") {
            if let Some(Value::String(resource)) = object.get_mut("resource") {
                relay.learn_resource(resource);
                *resource = self.mcp();
                changed = true;
            }
            if let Some(Value::Array(servers)) = object.get_mut("authorization_servers") {
                for server in servers.iter_mut() {
                    if let Value::String(url) = server {
                        *url = self.of_url(relay, url, "_up");
                        changed = true;
                    }
                }
            }
        }
        if path.contains("/.well-known/oauth-authorization-server")
            || path.contains("/.well-known/openid-configuration")
        {
            for (name, member) in object.iter_mut() {
                let Value::String(url) = member else { continue };
                let leg = match name.as_str() {
                    "authorization_endpoint" => "_authorize",
                    "issuer" | "jwks_uri" => "_up",
                    name if name.ends_with("_endpoint") => "_up",
                    _ => continue,
                };
                *url = self.of_url(relay, url, leg);
                changed = true;
            }
        }
        changed
    }

    /// A form body or query string with its client-facing `resource` patched back to the
    /// real one (RFC 8707 section 2); the other pairs are kept byte for byte.
    pub(crate) fn patch_resource(&self, relay: &Relay, form: &str) -> Option<String> {
        let face = self.mcp();
        let mut changed = false;
        let pairs: Vec<String> = form
            .split('&')
            .map(|pair| {
                let mut parsed = form_urlencoded::parse(pair.as_bytes());
                match parsed.next() {
                    Some((name, value)) if name == "resource" && same_resource(&value, &face) => {
                        changed = true;
                        let real: String = form_urlencoded::Serializer::new(String::new())
                            .append_pair("resource", &relay.real_resource())
                            .finish();
                        real
                    }
                    _ => pair.to_string(),
                }
            })
            .collect();
        changed.then(|| pairs.join("&"))
    }
}

/// Two `resource` values name the same resource: clients do not echo it byte for byte (a
/// trailing `/` is added or dropped), so that is ignored.
fn same_resource(a: &str, b: &str) -> bool {
    a.trim_end_matches('/') == b.trim_end_matches('/')
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::spec::ServerSpec;
    use serde_json::json;

    fn relay() -> Relay {
        let spec = ServerSpec {
            upstream: Some("http://up.example:8000/mcp".into()),
            upstream_auth_hosts: vec!["allowed.example".into()],
            ..ServerSpec::new("r")
        };
        Relay::of(&spec).ok().flatten().expect("a relay")
    }

    fn face() -> Face {
        Face {
            base: "http://127.0.0.1:9".into(),
            prefix: String::new(),
            mount: "/mcp".into(),
        }
    }

    #[test]
    fn metadata_hands_out_relay_urls_and_allows_their_hosts() {
        let relay = relay();
        let target =
            Url::parse("http://idp.example/.well-known/oauth-authorization-server").expect("a URL");
        assert!(matches!(
            route(&relay, "/_up/idp.example:80/token", None),
            Leg::Forbidden(_)
        ));
        let mut document = json!({
            "issuer": "http://idp.example",
            "authorization_endpoint": "http://idp.example/authorize",
            "token_endpoint": "http://idp.example/token?x=1",
            "scopes_supported": ["http://not.rewritten"],
        });
        assert!(face().metadata(&relay, &target, &mut document));
        assert_eq!(
            document,
            json!({
                "issuer": "http://127.0.0.1:9/_up/idp.example:80",
                "authorization_endpoint": "http://127.0.0.1:9/_authorize/idp.example:80/authorize",
                "token_endpoint": "http://127.0.0.1:9/_up/idp.example:80/token?x=1",
                "scopes_supported": ["http://not.rewritten"],
            })
        );
        let Leg::Auth(url) = route(&relay, "/_up/idp.example:80/token", Some("a=b")) else {
            panic!("a discovered host is allowed");
        };
        assert_eq!(url.as_str(), "http://idp.example/token?a=b");
    }

    #[test]
    fn well_known_shapes_reach_the_real_documents() {
        let relay = relay();
        relay.discover(&Url::parse("https://idp.example/tenant").expect("a URL"));
        let cases = [
            (
                "/.well-known/oauth-protected-resource/mcp",
                "http://up.example:8000/.well-known/oauth-protected-resource/mcp",
            ),
            (
                "/.well-known/oauth-protected-resource",
                "http://up.example:8000/.well-known/oauth-protected-resource",
            ),
            (
                "/.well-known/oauth-authorization-server/_up/idp.example:443/tenant",
                "https://idp.example/.well-known/oauth-authorization-server/tenant",
            ),
            (
                "/.well-known/openid-configuration/_up/allowed.example:443",
                "https://allowed.example/.well-known/openid-configuration",
            ),
            (
                "/_up/up.example:8000/tenant/.well-known/openid-configuration",
                "http://up.example:8000/tenant/.well-known/openid-configuration",
            ),
        ];
        for (path, want) in cases {
            match route(&relay, path, None) {
                Leg::Auth(url) => assert_eq!(url.as_str(), want, "{path}"),
                other => panic!("{path}: {other:?}"),
            }
        }
        assert!(matches!(
            route(&relay, "/.well-known/oauth-authorization-server/_up/evil.example:443", None),
            Leg::Forbidden(host) if host == "evil.example:443"
        ));
    }

    #[test]
    fn resource_has_two_faces_and_a_trailing_slash_is_ignored() {
        let relay = relay();
        let mut prm = json!({
            "resource": "http://up.example:8000/mcp",
            "authorization_servers": ["http://idp.example"],
        });
        let target = Url::parse("http://up.example:8000/.well-known/oauth-protected-resource/mcp")
            .expect("a URL");
        face().metadata(&relay, &target, &mut prm);
        assert_eq!(prm["resource"], "http://127.0.0.1:9/mcp");
        let form =
            "grant_type=authorization_code&resource=http%3A%2F%2F127.0.0.1%3A9%2Fmcp%2F&code=x";
        assert_eq!(
            face().patch_resource(&relay, form).as_deref(),
            Some(
                "grant_type=authorization_code&resource=http%3A%2F%2Fup.example%3A8000%2Fmcp&code=x"
            )
        );
        assert_eq!(
            face().patch_resource(&relay, "resource=http%3A%2F%2Fother"),
            None
        );
        assert_eq!(
            face().challenge(
                &relay,
                r#"Bearer error="invalid_token", resource_metadata="http://up.example:8000/.well-known/oauth-protected-resource/mcp""#
            ),
            r#"Bearer error="invalid_token", resource_metadata="http://127.0.0.1:9/_up/up.example:8000/.well-known/oauth-protected-resource/mcp""#
        );
    }
}
