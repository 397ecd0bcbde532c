//! The app's side of OAuth (product guide, "Test an OAuth client"): what turning OAuth on
//! gives a server, the one pre-registered client every server on OAuth has, and the rules
//! `servers.json` and the REST API check on top of the engine's.
//!
//! A server's `auth` entry is the engine's [`OAuthSpec`]. The app's defaults differ from the
//! library fixture's: the authorize endpoint shows the consent page (Approve / Deny), and
//! the token endpoint accepts `client_secret_post` and `none` (public clients registered
//! dynamically), never `Authorization: Basic`. The pre-registered client has a generated id
//! and secret, and no redirect URIs until the user adds some; without them only Dynamic
//! Client Registration works.

use base64::Engine as _;
use base64::engine::general_purpose::URL_SAFE_NO_PAD;

use crate::engine::check_redirect_uri;
use crate::spec::{Consent, OAuthSpec, PreRegisteredClient, ServerSpec, TokenEndpointAuthMethod};

/// Redirect URIs the pre-registered client may list.
pub(crate) const MAX_REDIRECT_URIS: usize = 100;

/// The longest client id or secret, in bytes.
const MAX_CREDENTIAL_BYTES: usize = 256;

/// `auth` for a server whose OAuth is turned on now: the app's defaults and a new
/// pre-registered client.
pub(crate) fn turned_on() -> OAuthSpec {
    OAuthSpec {
        consent: Consent::Page,
        token_endpoint_auth_methods: vec![
            TokenEndpointAuthMethod::ClientSecretPost,
            TokenEndpointAuthMethod::None,
        ],
        pre_registered_clients: vec![new_client()],
        ..OAuthSpec::default()
    }
}

/// A pre-registered client with a fresh id and secret and no redirect URIs.
pub(crate) fn new_client() -> PreRegisteredClient {
    PreRegisteredClient {
        client_id: format!("mcp-decoy-{}", random(9)),
        client_secret: Some(random(32)),
        redirect_uris: Vec::new(),
        jwk: None,
    }
}

/// `bytes` random bytes, base64url without padding.
fn random(bytes: usize) -> String {
    let mut buffer = vec![0u8; bytes];
    crate::engine::random_fill(&mut buffer);
    URL_SAFE_NO_PAD.encode(buffer)
}

/// One step of a path into a server's `auth` entry.
#[derive(Debug, Clone, PartialEq, Eq)]
pub(crate) enum Step {
    /// An object member, named as in `servers.json`.
    Key(&'static str),
    /// An array index.
    Index(usize),
}

/// Where a problem is, from the server's object: `[Key("auth"), Key("preRegisteredClients"),
/// Index(0)]`.
#[derive(Debug, Clone, PartialEq, Eq)]
pub(crate) struct At(pub(crate) Vec<Step>);

impl At {
    fn auth(steps: &[Step]) -> At {
        let mut all = vec![Step::Key("auth")];
        all.extend_from_slice(steps);
        At(all)
    }

    /// As a JSON pointer suffix: `/auth/preRegisteredClients/0`.
    pub(crate) fn pointer(&self) -> String {
        self.0
            .iter()
            .map(|step| match step {
                Step::Key(key) => format!("/{key}"),
                Step::Index(i) => format!("/{i}"),
            })
            .collect()
    }

    /// As the REST API names a field: `auth.preRegisteredClients[0]`.
    pub(crate) fn field(&self) -> String {
        let mut out = String::new();
        for step in &self.0 {
            match step {
                Step::Key(key) if out.is_empty() => out.push_str(key),
                Step::Key(key) => {
                    out.push('.');
                    out.push_str(key);
                }
                Step::Index(i) => out.push_str(&format!("[{i}]")),
            }
        }
        out
    }
}

/// What the app asks of an `auth` entry beyond the engine's own check: exactly one
/// pre-registered client, with a secret, a usable id, and redirect URIs that are valid
/// (`https:`, loopback `http:` or a private-use scheme; no fragment).
pub(crate) fn problems(auth: &OAuthSpec) -> Vec<(At, String)> {
    let clients = &auth.pre_registered_clients;
    let mut problems = Vec::new();
    if clients.len() != 1 {
        problems.push((
            At::auth(&[Step::Key("preRegisteredClients")]),
            format!(
                "a server on OAuth has exactly one pre-registered client (`clientId`, `clientSecret`, `redirectUris`); this lists {}. Turn OAuth on through the API to generate one",
                clients.len()
            ),
        ));
    }
    let Some(client) = clients.first() else {
        return problems;
    };
    let at = |steps: &[Step]| {
        let mut all = vec![Step::Key("preRegisteredClients"), Step::Index(0)];
        all.extend_from_slice(steps);
        At::auth(&all)
    };
    if let Some(reason) = credential_problem(&client.client_id) {
        problems.push((
            at(&[Step::Key("clientId")]),
            format!("the client id {reason}"),
        ));
    }
    match &client.client_secret {
        None => problems.push((
            at(&[]),
            "the pre-registered client has no `clientSecret`; it authenticates with client_secret_post".into(),
        )),
        Some(secret) => {
            if let Some(reason) = credential_problem(secret) {
                problems.push((at(&[Step::Key("clientSecret")]), format!("the client secret {reason}")));
            }
        }
    }
    if client.redirect_uris.len() > MAX_REDIRECT_URIS {
        problems.push((
            at(&[Step::Key("redirectUris")]),
            format!(
                "lists {} redirect URIs; at most {MAX_REDIRECT_URIS}",
                client.redirect_uris.len()
            ),
        ));
    }
    for (i, uri) in client.redirect_uris.iter().enumerate() {
        if let Err(reason) = check_redirect_uri(uri) {
            problems.push((at(&[Step::Key("redirectUris"), Step::Index(i)]), reason));
        } else if let Some(first) = client.redirect_uris[..i].iter().position(|u| u == uri) {
            problems.push((
                at(&[Step::Key("redirectUris"), Step::Index(i)]),
                format!("`{uri}` repeats redirectUris[{first}]"),
            ));
        }
    }
    problems
}

/// Every problem of a server's `auth` entry: the app's rules, then (when those hold and no
/// API key clashes, which the guard check reports) the engine's own check of the rest.
pub(crate) fn server_problems(server: &ServerSpec) -> Vec<(At, String)> {
    let Some(auth) = &server.auth else {
        return Vec::new();
    };
    let mut found = problems(auth);
    if found.is_empty()
        && server.api_keys.is_empty()
        && let Err(error) = crate::engine::check_oauth(server)
    {
        found.push((At::auth(&[]), error.to_string()));
    }
    found
}

fn credential_problem(text: &str) -> Option<String> {
    if text.is_empty() || text.len() > MAX_CREDENTIAL_BYTES {
        return Some(format!("must have 1-{MAX_CREDENTIAL_BYTES} characters"));
    }
    if !text.chars().all(|c| c.is_ascii_graphic()) {
        return Some("must be visible ASCII without spaces".into());
    }
    None
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn turning_oauth_on_gives_a_consent_page_no_basic_and_a_fresh_client() {
        let first = turned_on();
        let second = turned_on();
        assert_eq!(first.consent, Consent::Page);
        assert!(
            !first
                .token_endpoint_auth_methods
                .contains(&TokenEndpointAuthMethod::ClientSecretBasic)
        );
        let (a, b) = (
            &first.pre_registered_clients[0],
            &second.pre_registered_clients[0],
        );
        assert_ne!(a.client_id, b.client_id);
        assert_ne!(a.client_secret, b.client_secret);
        assert!(a.redirect_uris.is_empty());
        assert!(problems(&first).is_empty(), "{:?}", problems(&first));
    }

    #[test]
    fn each_problem_names_its_place() {
        let mut auth = turned_on();
        auth.pre_registered_clients[0].client_secret = None;
        auth.pre_registered_clients[0].redirect_uris = vec![
            "https://app.example/cb".into(),
            "http://192.168.1.2/cb".into(),
            "https://app.example/cb".into(),
        ];
        let found: Vec<(String, String)> = problems(&auth)
            .into_iter()
            .map(|(at, reason)| (at.pointer(), reason))
            .collect();
        let pointers: Vec<&str> = found.iter().map(|(p, _)| p.as_str()).collect();
        assert_eq!(
            pointers,
            [
                "/auth/preRegisteredClients/0",
                "/auth/preRegisteredClients/0/redirectUris/1",
                "/auth/preRegisteredClients/0/redirectUris/2",
            ],
            "{found:?}"
        );
        let none = OAuthSpec::default();
        let (at, reason) = &problems(&none)[0];
        assert_eq!(at.field(), "auth.preRegisteredClients");
        assert!(reason.contains("exactly one"), "{reason}");
    }
}
