//! Parsing of what the OAuth endpoints received and sent, as captured: form bodies (plain or
//! masked into JSON), query strings and `WWW-Authenticate` challenges.

use serde_json::Value;

pub(super) fn parse_form(text: &str) -> Vec<(String, String)> {
    form_urlencoded::parse(text.as_bytes())
        .map(|(k, v)| (k.into_owned(), v.into_owned()))
        .collect()
}

/// A form body as captured: text (`a=b&c=d`) or, once masked, possibly a JSON object.
pub(super) fn body_params(body: Option<&Value>) -> Vec<(String, String)> {
    match body {
        Some(Value::String(text)) => parse_form(text),
        Some(Value::Object(map)) => map
            .iter()
            .flat_map(|(k, v)| match v {
                Value::Array(items) => items.iter().map(|i| (k.clone(), scalar(i))).collect(),
                other => vec![(k.clone(), scalar(other))],
            })
            .collect(),
        _ => Vec::new(),
    }
}

fn scalar(value: &Value) -> String {
    match value {
        Value::String(s) => s.clone(),
        other => other.to_string(),
    }
}

pub(super) fn first<'p>(params: &'p [(String, String)], name: &str) -> Option<&'p str> {
    params
        .iter()
        .find(|(k, _)| k == name)
        .map(|(_, v)| v.as_str())
}

pub(super) fn all<'p>(params: &'p [(String, String)], name: &str) -> Vec<&'p str> {
    params
        .iter()
        .filter(|(k, _)| k == name)
        .map(|(_, v)| v.as_str())
        .collect()
}

pub(super) fn string_array<'v>(value: &'v Value, name: &str) -> Vec<&'v str> {
    value
        .get(name)
        .and_then(Value::as_array)
        .map(|items| items.iter().filter_map(Value::as_str).collect())
        .unwrap_or_default()
}

/// An auth-param of a `WWW-Authenticate` value (RFC 9110 §11.6.1): `name=token` or
/// `name="quoted"`, after the scheme. Quoted values may contain commas and `\"`.
pub(crate) fn challenge_param(header: &str, name: &str) -> Option<String> {
    let rest = header.trim_start();
    // Skip the scheme (`Bearer`), which has no `=`.
    let rest = match rest.split_once(' ') {
        Some((scheme, tail)) if !scheme.contains('=') => tail,
        _ => rest,
    };
    let mut chars = rest.char_indices().peekable();
    let bytes = rest;
    loop {
        // Skip separators.
        while let Some((_, c)) = chars.peek() {
            if *c == ',' || c.is_whitespace() {
                chars.next();
            } else {
                break;
            }
        }
        let (start, _) = *chars.peek()?;
        let mut key_end = start;
        while let Some((i, c)) = chars.peek() {
            if *c == '=' || *c == ',' || c.is_whitespace() {
                break;
            }
            key_end = *i + c.len_utf8();
            chars.next();
        }
        let key = &bytes[start..key_end];
        while let Some((_, c)) = chars.peek() {
            if c.is_whitespace() {
                chars.next();
            } else {
                break;
            }
        }
        if chars.peek().map(|(_, c)| *c) != Some('=') {
            continue;
        }
        chars.next();
        while let Some((_, c)) = chars.peek() {
            if c.is_whitespace() {
                chars.next();
            } else {
                break;
            }
        }
        let mut value = String::new();
        if chars.peek().map(|(_, c)| *c) == Some('"') {
            chars.next();
            while let Some((_, c)) = chars.next() {
                match c {
                    '\\' => {
                        if let Some((_, escaped)) = chars.next() {
                            value.push(escaped);
                        }
                    }
                    '"' => break,
                    other => value.push(other),
                }
            }
        } else {
            while let Some((_, c)) = chars.peek() {
                if *c == ',' || c.is_whitespace() {
                    break;
                }
                value.push(*c);
                chars.next();
            }
        }
        if key.eq_ignore_ascii_case(name) {
            return Some(value);
        }
    }
}

#[cfg(test)]
mod tests {
    use super::challenge_param;

    #[test]
    fn challenge_params_are_read_quoted_or_bare_in_any_order() {
        let header = r#"Bearer error="insufficient_scope", scope="a b", resource_metadata="http://h/x,y", error_description="say \"hi\"""#;
        assert_eq!(challenge_param(header, "scope").as_deref(), Some("a b"));
        assert_eq!(
            challenge_param(header, "resource_metadata").as_deref(),
            Some("http://h/x,y")
        );
        assert_eq!(
            challenge_param(header, "error_description").as_deref(),
            Some("say \"hi\"")
        );
        assert_eq!(
            challenge_param(header, "ERROR").as_deref(),
            Some("insufficient_scope")
        );
        assert_eq!(
            challenge_param("Bearer realm=x, scope=read", "scope").as_deref(),
            Some("read")
        );
        assert_eq!(challenge_param("Bearer", "scope"), None);
        assert_eq!(challenge_param("", "scope"), None);
    }
}
