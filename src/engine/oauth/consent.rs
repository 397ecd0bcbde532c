//! The consent page (`consent.html`, included at build time): who asks, for what, and two
//! buttons. Styled like the app's web UI (same palette, system fonts, light and dark) but
//! self-contained, since it is served on the MCP port, often through a tunnel, where the
//! UI's files are not.

use axum::http::header;
use axum::response::{Html, IntoResponse, Response};

const TEMPLATE: &str = include_str!("consent.html");

/// What the page shows, as plain text; [`render`] escapes every field.
pub(super) struct Page<'a> {
    pub(super) client: &'a str,
    pub(super) server: &'a str,
    /// The scopes asked for; none reads "no particular scope".
    pub(super) scopes: &'a [String],
    /// The host the client's redirect URI sends the person back to.
    pub(super) target: &'a str,
    /// Where the form posts (the server's `…/consent`).
    pub(super) action: &'a str,
    /// The pending consent the form answers.
    pub(super) id: &'a str,
}

/// The page, with the headers that keep it from being framed, cached or scripted.
pub(super) fn render(page: &Page<'_>) -> Response {
    let scopes = if page.scopes.is_empty() {
        "no particular scope".to_string()
    } else {
        page.scopes
            .iter()
            .map(|s| format!("<code>{}</code>", escape(s)))
            .collect::<Vec<_>>()
            .join(" ")
    };
    let html = fill(
        TEMPLATE,
        &[
            ("client", &escape(page.client)),
            ("server", &escape(page.server)),
            ("scopes", &scopes),
            ("target", &escape(page.target)),
            ("action", &escape(page.action)),
            ("id", &escape(page.id)),
        ],
    );
    (
        [
            (header::CACHE_CONTROL, "no-store"),
            (header::X_FRAME_OPTIONS, "DENY"),
            (
                header::CONTENT_SECURITY_POLICY,
                "default-src 'none'; style-src 'unsafe-inline'; form-action *",
            ),
        ],
        Html(html),
    )
        .into_response()
}

/// `template` with each `{{name}}` replaced by its value, in one pass: a value that
/// contains `{{…}}` (a client id can) is never read as a placeholder.
fn fill(template: &str, values: &[(&str, &str)]) -> String {
    let mut out = String::with_capacity(template.len() + 256);
    let mut rest = template;
    while let Some(start) = rest.find("{{") {
        out.push_str(&rest[..start]);
        let after = &rest[start + 2..];
        let value = after.find("}}").and_then(|end| {
            let name = &after[..end];
            let value = values.iter().find(|(key, _)| *key == name)?.1;
            Some((value, end))
        });
        match value {
            Some((value, end)) => {
                out.push_str(value);
                rest = &after[end + 2..];
            }
            None => {
                out.push_str("{{");
                rest = after;
            }
        }
    }
    out.push_str(rest);
    out
}

fn escape(text: &str) -> String {
    let mut out = String::with_capacity(text.len());
    for c in text.chars() {
        match c {
            '&' => out.push_str("&amp;"),
            '<' => out.push_str("&lt;"),
            '>' => out.push_str("&gt;"),
            '"' => out.push_str("&quot;"),
            '\'' => out.push_str("&#39;"),
            c => out.push(c),
        }
    }
    out
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn html_is_escaped() {
        assert_eq!(
            escape(r#"<a href="x">'&'</a>"#),
            "&lt;a href=&quot;x&quot;&gt;&#39;&amp;&#39;&lt;/a&gt;"
        );
    }

    #[test]
    fn a_value_that_looks_like_a_placeholder_is_left_as_it_is() {
        let filled = fill(
            "<p>{{client}} on {{server}}</p>",
            &[("client", "{{server}}"), ("server", "s")],
        );
        assert_eq!(filled, "<p>{{server}} on s</p>");
    }

    #[test]
    fn the_page_fills_every_placeholder_and_escapes_the_client() {
        let scopes = ["read".to_string()];
        let page = Page {
            client: "<script>",
            server: "weather",
            scopes: &scopes,
            target: "127.0.0.1",
            action: "/oauth/consent",
            id: "abc",
        };
        let response = render(&page);
        let body = axum::body::to_bytes(response.into_body(), 1 << 20);
        let html = futures::executor::block_on(body).expect("the page's body");
        let html = String::from_utf8_lossy(&html);

        assert!(!html.contains("{{"), "a placeholder is left: {html}");
        assert!(html.contains("<strong>&lt;script&gt;</strong> asks to access the MCP server <strong>weather</strong> with <code>read</code>."), "{html}");
        assert!(
            html.contains(r#"<input type="hidden" name="request" value="abc">"#),
            "{html}"
        );
    }
}
