//! Request parameters of the OAuth endpoints: a query string or an
//! `application/x-www-form-urlencoded` body, each parameter at most once (RFC 6749 section
//! 3.1: "Request and response parameters MUST NOT be included more than once").

use axum::body::Bytes;
use axum::extract::Request;
use axum::http::{HeaderMap, header};

use super::{MAX_VALUE_BYTES, OAuthError};

/// Parsed parameters, in the order they came.
#[derive(Debug, Default)]
pub(super) struct Params {
    pairs: Vec<(String, String)>,
}

impl Params {
    /// Parses `text`; a repeated or oversized parameter is `invalid_request`.
    pub(super) fn parse(text: &[u8]) -> Result<Self, OAuthError> {
        let mut pairs: Vec<(String, String)> = Vec::new();
        for (name, value) in form_urlencoded::parse(text) {
            if pairs.iter().any(|(n, _)| *n == name) {
                return Err(OAuthError::bad(
                    "invalid_request",
                    format!("`{name}` is given more than once (RFC 6749 section 3.1)"),
                ));
            }
            if value.len() > MAX_VALUE_BYTES {
                return Err(OAuthError::bad(
                    "invalid_request",
                    format!(
                        "`{name}` is {} bytes; at most {MAX_VALUE_BYTES}",
                        value.len()
                    ),
                ));
            }
            if pairs.len() >= 64 {
                return Err(OAuthError::bad(
                    "invalid_request",
                    "the request has more than 64 parameters",
                ));
            }
            pairs.push((name.into_owned(), value.into_owned()));
        }
        Ok(Params { pairs })
    }

    /// The parameters of a query string (absent: none).
    pub(super) fn query(request: &Request) -> Result<Self, OAuthError> {
        Self::parse(request.uri().query().unwrap_or("").as_bytes())
    }

    /// The parameters of a form body; another content type is `invalid_request`.
    pub(super) async fn form(request: Request) -> Result<(HeaderMap, Self), OAuthError> {
        let (parts, body) = request.into_parts();
        if !is_form(&parts.headers) {
            return Err(OAuthError::bad(
                "invalid_request",
                "the body must be `application/x-www-form-urlencoded` (RFC 6749 section 4.1.3)",
            ));
        }
        // The capture layer already enforced the body limit and holds the bytes.
        let bytes: Bytes = axum::body::to_bytes(body, usize::MAX)
            .await
            .map_err(|_| OAuthError::bad("invalid_request", "the body could not be read"))?;
        Ok((parts.headers, Self::parse(&bytes)?))
    }

    /// A parameter; an empty value counts as absent (RFC 6749 section 3.1).
    pub(super) fn get(&self, name: &str) -> Option<&str> {
        self.pairs
            .iter()
            .find(|(n, _)| n == name)
            .map(|(_, v)| v.as_str())
            .filter(|v| !v.is_empty())
    }

    /// A parameter that must be there.
    pub(super) fn require(&self, name: &str) -> Result<&str, OAuthError> {
        self.get(name)
            .ok_or_else(|| OAuthError::bad("invalid_request", format!("`{name}` is missing")))
    }
}

fn is_form(headers: &HeaderMap) -> bool {
    headers
        .get(header::CONTENT_TYPE)
        .and_then(|v| v.to_str().ok())
        .and_then(|v| v.split(';').next())
        .is_some_and(|v| {
            v.trim()
                .eq_ignore_ascii_case("application/x-www-form-urlencoded")
        })
}

/// Space-separated scopes, each a scope token, without repeats; order kept.
pub(super) fn scopes(text: Option<&str>) -> Result<Vec<String>, OAuthError> {
    let mut scopes: Vec<String> = Vec::new();
    for scope in text.unwrap_or("").split(' ').filter(|s| !s.is_empty()) {
        if !scope.chars().all(super::is_scope_char) {
            return Err(OAuthError::bad(
                "invalid_scope",
                format!("`{scope}` is not a scope token (RFC 6749 section 3.3)"),
            ));
        }
        if !scopes.iter().any(|s| s == scope) {
            scopes.push(scope.to_string());
        }
    }
    if scopes.len() > super::MAX_LIST {
        return Err(OAuthError::bad(
            "invalid_scope",
            format!("more than {} scopes", super::MAX_LIST),
        ));
    }
    Ok(scopes)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn repeated_parameters_are_refused() {
        let error = Params::parse(b"code=a&code=b").expect_err("repeated");
        assert_eq!(error.code, "invalid_request");
        assert!(error.description.contains("`code`"));
    }

    #[test]
    fn empty_values_count_as_absent() {
        let params = Params::parse(b"scope=&state=x%20y").expect("parses");
        assert_eq!(params.get("scope"), None);
        assert_eq!(params.get("state"), Some("x y"));
    }

    #[test]
    fn scopes_split_on_spaces_without_repeats() {
        assert_eq!(scopes(Some("a  b a")).expect("valid"), ["a", "b"]);
        assert_eq!(scopes(None).expect("valid"), Vec::<String>::new());
        assert_eq!(
            scopes(Some("a\"b")).expect_err("quote").code,
            "invalid_scope"
        );
    }
}
