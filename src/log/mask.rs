//! Masks secrets in the captured view of an exchange: `Authorization` header values (the
//! scheme stays, so a reader still sees `Basic` or `Bearer`), and the values of
//! `access_token`, `refresh_token`, `code`, `code_verifier`, `client_secret` and `token`
//! in query strings, form bodies, JSON bodies and `Location` headers. The mask is a fixed
//! text, so snapshots of the log are stable; parameter names and other values are kept.

use serde_json::Value;

/// What a masked value reads as.
pub(crate) const MASK: &str = "[redacted]";

/// Parameter and member names whose values are secrets.
const SECRETS: [&str; 6] = [
    "access_token",
    "refresh_token",
    "code",
    "code_verifier",
    "client_secret",
    "token",
];

fn is_secret(name: &str) -> bool {
    SECRETS.contains(&name)
}

use super::CREDENTIAL_HEADERS;

/// Whether the capture keeps only a part of this header's value ([`header`]).
pub(crate) fn is_masked_header(name: &str) -> bool {
    CREDENTIAL_HEADERS
        .iter()
        .any(|masked| name.eq_ignore_ascii_case(masked))
}

/// A header value as captured: `Authorization` keeps only its scheme, a cookie its name
/// (and a `Set-Cookie` its attributes), an API key nothing.
pub(crate) fn header(name: &str, value: String) -> String {
    if !is_masked_header(name) {
        return value;
    }
    if name.eq_ignore_ascii_case("cookie") {
        return value
            .split(';')
            .map(|pair| match pair.split_once('=') {
                Some((cookie, _)) => format!("{}={MASK}", cookie.trim()),
                None => pair.trim().to_string(),
            })
            .collect::<Vec<_>>()
            .join("; ");
    }
    if name.eq_ignore_ascii_case("set-cookie") {
        let (pair, attributes) = value.split_once(';').unwrap_or((&value, ""));
        let cookie = pair.split_once('=').map_or(pair, |(cookie, _)| cookie);
        let attributes = if attributes.is_empty() {
            String::new()
        } else {
            format!(";{attributes}")
        };
        return format!("{}={MASK}{attributes}", cookie.trim());
    }
    if name.eq_ignore_ascii_case("authorization")
        || name.eq_ignore_ascii_case("proxy-authorization")
    {
        return match value.split_once(' ') {
            Some((scheme, _)) => format!("{scheme} {MASK}"),
            None => MASK.to_string(),
        };
    }
    MASK.to_string()
}

/// `a=1&code=xyz` → `a=1&code=[redacted]`; the text is otherwise kept as it was.
pub(crate) fn form(text: &str) -> String {
    text.split('&')
        .map(|pair| {
            let (raw_name, _) = pair.split_once('=').unwrap_or((pair, ""));
            let name = form_urlencoded::parse(raw_name.as_bytes())
                .next()
                .map(|(n, _)| n.into_owned())
                .unwrap_or_default();
            if pair.contains('=') && is_secret(&name) {
                format!("{raw_name}={MASK}")
            } else {
                pair.to_string()
            }
        })
        .collect::<Vec<_>>()
        .join("&")
}

/// A URL with its query (and fragment) parameters masked, as in a redirect's `Location`.
pub(crate) fn url(text: &str) -> String {
    let (base, fragment) = match text.split_once('#') {
        Some((base, fragment)) => (base, Some(fragment)),
        None => (text, None),
    };
    let mut out = match base.split_once('?') {
        Some((path, query)) => format!("{path}?{}", form(query)),
        None => base.to_string(),
    };
    if let Some(fragment) = fragment {
        out.push('#');
        out.push_str(&form(fragment));
    }
    out
}

/// Masks secret members of a JSON body, at any depth, and secret parameters of a body
/// captured as text (a form).
pub(crate) fn body(value: &mut Value) {
    match value {
        Value::Object(map) => {
            for (name, member) in map.iter_mut() {
                if is_secret(name) && member.is_string() {
                    *member = Value::String(MASK.into());
                } else {
                    body(member);
                }
            }
        }
        Value::Array(list) => list.iter_mut().for_each(body),
        Value::String(text) if text.contains('=') => *text = form(text),
        _ => {}
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use serde_json::json;

    #[test]
    fn authorization_keeps_its_scheme_only() {
        assert_eq!(
            header("Authorization", "Bearer abc.def".into()),
            "Bearer [redacted]"
        );
        assert_eq!(header("authorization", "opaque".into()), "[redacted]");
        assert_eq!(header("content-type", "text/plain".into()), "text/plain");
    }

    #[test]
    fn form_bodies_keep_names_and_other_values() {
        assert_eq!(
            form(
                "grant_type=authorization_code&code=abc&code_verifier=xyz&client_id=c1&client_secret=s"
            ),
            "grant_type=authorization_code&code=[redacted]&code_verifier=[redacted]&client_id=c1&client_secret=[redacted]"
        );
        assert_eq!(
            form("token=t&token_type_hint=refresh_token"),
            "token=[redacted]&token_type_hint=refresh_token"
        );
        assert_eq!(form("flag&state=s"), "flag&state=s");
    }

    #[test]
    fn redirects_keep_state_and_iss() {
        assert_eq!(
            url("http://127.0.0.1:9/cb?code=abc&state=s1&iss=http%3A%2F%2F127.0.0.1%3A8"),
            "http://127.0.0.1:9/cb?code=[redacted]&state=s1&iss=http%3A%2F%2F127.0.0.1%3A8"
        );
        assert_eq!(url("http://h/cb"), "http://h/cb");
    }

    #[test]
    fn json_bodies_are_masked_at_any_depth() {
        let mut value = json!({
            "access_token": "a", "refresh_token": "r", "token_type": "Bearer",
            "client_secret": "s", "client_id": "c", "nested": [{ "code": "x" }]
        });
        body(&mut value);
        assert_eq!(
            value,
            json!({
                "access_token": MASK, "refresh_token": MASK, "token_type": "Bearer",
                "client_secret": MASK, "client_id": "c", "nested": [{ "code": MASK }]
            })
        );
        let mut text = json!("grant_type=refresh_token&refresh_token=r");
        body(&mut text);
        assert_eq!(
            text,
            json!("grant_type=refresh_token&refresh_token=[redacted]")
        );
    }
}

#[cfg(test)]
mod header_tests {
    use super::*;

    #[test]
    fn credential_headers_keep_what_says_which_credential_and_nothing_of_its_value() {
        for (name, value, kept) in [
            ("Authorization", "Bearer abc", "Bearer [redacted]"),
            (
                "cookie",
                "session=abc; theme=dark",
                "session=[redacted]; theme=[redacted]",
            ),
            (
                "set-cookie",
                "session=abc; Path=/; HttpOnly",
                "session=[redacted]; Path=/; HttpOnly",
            ),
            ("X-API-Key", "k-123", "[redacted]"),
            ("api-key", "k-123", "[redacted]"),
            ("content-type", "application/json", "application/json"),
        ] {
            assert_eq!(header(name, value.to_string()), kept, "{name}");
        }
    }
}
