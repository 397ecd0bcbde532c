//! What the app needs of a server's OAuth state beyond what the fixture uses: checking a
//! redirect URI the user types, and keeping clients, codes and tokens when a server is
//! rebuilt for a change that does not touch OAuth (a new title, say), so the product
//! guide's promise holds that only changes to OAuth itself revoke tokens.

use super::AuthServer;

#[cfg(feature = "decoy-cli")]
pub(crate) use super::register::check_redirect_uri;

impl AuthServer {
    /// Moves `old`'s registered clients, codes, tokens and pending consents into this
    /// server (which must have the same configuration and mount); `old` is left with this
    /// one's fresh state. Swapping keeps both locks short and never allocates.
    pub(crate) fn take_state_from(&self, old: &AuthServer) {
        if std::ptr::eq(self, old) {
            return;
        }
        let mut old_state = old.lock();
        let mut new_state = self.lock();
        std::mem::swap(&mut *old_state, &mut *new_state);
    }
}

impl AuthServer {
    /// Forgets every registered client, code, token and pending consent, as a restarted
    /// process would; the configured (pre-registered) clients come back.
    pub(crate) fn forget(&self) {
        self.take_state_from(&AuthServer::new(self.spec.clone()));
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::spec::OAuthSpec;

    #[test]
    fn a_rebuilt_server_keeps_the_old_tokens() {
        let old = AuthServer::new(OAuthSpec::default());
        let id = {
            let mut state = old.lock();
            let id = AuthServer::next_id(&mut state, "at");
            state.access.insert(
                "secret-token".into(),
                super::super::store::Token {
                    id: id.clone(),
                    kind: super::super::TokenKind::Access,
                    client_id: "c".into(),
                    scopes: Vec::new(),
                    resource: None,
                    issued_at: std::time::SystemTime::now(),
                    expires_at: None,
                    code: None,
                    jkt: None,
                },
            );
            id
        };
        let new = AuthServer::new(OAuthSpec::default());

        new.take_state_from(&old);

        let now = std::time::SystemTime::now();
        assert_eq!(
            new.tokens(now)
                .iter()
                .map(|t| t.id.clone())
                .collect::<Vec<_>>(),
            [id]
        );
        assert!(old.tokens(now).is_empty());
    }
}
