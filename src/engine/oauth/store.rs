//! The authorization server's records (clients, codes, tokens, pending consents) and the
//! bounded map that keeps each collection in check: past its limit the oldest entry goes.

use std::collections::{HashMap, VecDeque};
use std::time::SystemTime;

use crate::spec::{PreRegisteredClient, TokenEndpointAuthMethod};

use super::{TokenInfo, TokenKind, utc};

/// A map with a size limit that evicts the oldest insertions first.
#[derive(Debug)]
pub(super) struct Bounded<V> {
    map: HashMap<String, (u64, V)>,
    /// Insertion order; entries removed from `map` stay here until they reach the front
    /// or the queue is compacted.
    order: VecDeque<(u64, String)>,
    next: u64,
    limit: usize,
}

impl<V> Bounded<V> {
    pub(super) fn new(limit: usize) -> Self {
        Bounded {
            map: HashMap::new(),
            order: VecDeque::new(),
            next: 0,
            limit,
        }
    }

    pub(super) fn insert(&mut self, key: String, value: V) {
        while self.map.len() >= self.limit {
            let Some((seq, oldest)) = self.order.pop_front() else {
                break;
            };
            if self.map.get(&oldest).is_some_and(|(s, _)| *s == seq) {
                self.map.remove(&oldest);
            }
        }
        self.next += 1;
        self.order.push_back((self.next, key.clone()));
        self.map.insert(key, (self.next, value));
        // Removals leave stale keys in the queue: drop them before it doubles the map.
        if self.order.len() > 2 * self.limit.max(16) {
            let map = &self.map;
            self.order
                .retain(|(seq, key)| map.get(key).is_some_and(|(s, _)| s == seq));
        }
    }

    pub(super) fn get(&self, key: &str) -> Option<&V> {
        self.map.get(key).map(|(_, v)| v)
    }

    pub(super) fn get_mut(&mut self, key: &str) -> Option<&mut V> {
        self.map.get_mut(key).map(|(_, v)| v)
    }

    pub(super) fn remove(&mut self, key: &str) -> Option<V> {
        self.map.remove(key).map(|(_, v)| v)
    }

    /// Removes the oldest entries `matches` selects until fewer than `keep` are left, so one
    /// kind of entry cannot push out the others.
    pub(super) fn make_room_for(&mut self, keep: usize, matches: impl Fn(&V) -> bool) {
        let mut selected: Vec<(u64, String)> = self
            .map
            .iter()
            .filter(|(_, (_, v))| matches(v))
            .map(|(key, (seq, _))| (*seq, key.clone()))
            .collect();
        if selected.len() < keep {
            return;
        }
        selected.sort_unstable();
        let excess = selected.len() + 1 - keep;
        for (_, key) in selected.into_iter().take(excess) {
            self.map.remove(&key);
        }
    }

    /// Removes every entry `matches` selects; how many.
    pub(super) fn remove_where(&mut self, mut matches: impl FnMut(&V) -> bool) -> usize {
        let before = self.map.len();
        self.map.retain(|_, (_, v)| !matches(v));
        before - self.map.len()
    }

    #[cfg(test)]
    pub(super) fn len(&self) -> usize {
        self.map.len()
    }

    pub(super) fn clear(&mut self) {
        self.map.clear();
        self.order.clear();
    }

    /// The values, oldest first.
    pub(super) fn values(&self) -> impl Iterator<Item = &V> {
        let mut entries: Vec<&(u64, V)> = self.map.values().collect();
        entries.sort_by_key(|(seq, _)| *seq);
        entries.into_iter().map(|(_, v)| v)
    }
}

/// How a client came to be known.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub(super) enum ClientOrigin {
    PreRegistered,
    Dynamic,
    MetadataDocument,
}

/// A client the authorization server knows.
#[derive(Debug, Clone)]
pub(super) struct Client {
    pub(super) client_id: String,
    pub(super) secret: Option<String>,
    pub(super) redirect_uris: Vec<String>,
    /// The method it registered with; a confidential client may use either secret method
    /// the server accepts.
    pub(super) auth_method: TokenEndpointAuthMethod,
    pub(super) origin: ClientOrigin,
    /// The public key of a `private_key_jwt` client (a P-256 JWK, checked at start).
    pub(super) jwk: Option<serde_json::Value>,
}

impl Client {
    pub(super) fn pre_registered(spec: &PreRegisteredClient) -> Self {
        Client {
            client_id: spec.client_id.clone(),
            secret: spec.client_secret.clone(),
            redirect_uris: spec.redirect_uris.clone(),
            auth_method: if spec.jwk.is_some() {
                TokenEndpointAuthMethod::PrivateKeyJwt
            } else if spec.client_secret.is_some() {
                TokenEndpointAuthMethod::ClientSecretPost
            } else {
                TokenEndpointAuthMethod::None
            },
            origin: ClientOrigin::PreRegistered,
            jwk: spec.jwk.clone(),
        }
    }
}

/// An authorization code and what it was issued for.
#[derive(Debug, Clone)]
pub(super) struct Code {
    pub(super) client_id: String,
    /// The `redirect_uri` of the authorization request, if it named one (the token
    /// request must then repeat it exactly).
    pub(super) redirect_uri: Option<String>,
    pub(super) challenge: String,
    pub(super) resource: Option<String>,
    pub(super) scopes: Vec<String>,
    pub(super) expires_at: SystemTime,
    /// Set on first use; a second use revokes what the first issued (OAuth 2.1 4.1.3).
    pub(super) used: bool,
    /// The ids of the tokens issued from it (refreshes included).
    pub(super) issued: Vec<String>,
}

/// An access or refresh token.
#[derive(Debug, Clone)]
pub(super) struct Token {
    pub(super) id: String,
    pub(super) kind: TokenKind,
    pub(super) client_id: String,
    pub(super) scopes: Vec<String>,
    pub(super) resource: Option<String>,
    pub(super) issued_at: SystemTime,
    pub(super) expires_at: Option<SystemTime>,
    /// The code the grant started with, so a reused code can revoke the whole family.
    pub(super) code: Option<String>,
    /// The thumbprint of the DPoP key it is bound to (RFC 9449 section 6), if bound.
    pub(super) jkt: Option<String>,
}

/// A refresh token that was rotated: what its second use revokes.
#[derive(Debug, Clone)]
pub(super) struct Rotated {
    /// The code the grant started with: every token of the grant carries it.
    pub(super) family: Option<String>,
    /// The ids of the tokens its rotation issued (all there is to revoke without a code).
    pub(super) successors: Vec<String>,
}

impl Token {
    pub(super) fn expired(&self, now: SystemTime) -> bool {
        self.expires_at.is_some_and(|at| now >= at)
    }

    pub(super) fn info(&self) -> TokenInfo {
        TokenInfo {
            id: self.id.clone(),
            kind: self.kind,
            client_id: self.client_id.clone(),
            scopes: self.scopes.clone(),
            resource: self.resource.clone(),
            issued_at: utc(self.issued_at),
            expires_at: self.expires_at.map(utc),
            dpop_jkt: self.jkt.clone(),
        }
    }
}

/// An authorization request waiting for the consent page's answer.
#[derive(Debug, Clone)]
pub(super) struct Pending {
    pub(super) request: Approved,
    pub(super) expires_at: SystemTime,
}

/// A valid authorization request, ready for a code.
#[derive(Debug, Clone)]
pub(crate) struct Approved {
    pub(super) client_id: String,
    pub(super) redirect_uri: String,
    /// Whether the request named the redirect URI (the token request must then repeat it).
    pub(super) redirect_uri_given: bool,
    pub(super) state: Option<String>,
    pub(super) challenge: String,
    pub(super) resource: Option<String>,
    pub(super) scopes: Vec<String>,
    /// The `iss` to send back, decided when the request arrived.
    pub(super) iss: Option<String>,
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn the_oldest_entry_goes_when_the_map_is_full() {
        let mut map = Bounded::new(2);
        map.insert("a".into(), 1);
        map.insert("b".into(), 2);
        map.insert("c".into(), 3);
        assert_eq!(map.len(), 2);
        assert!(map.get("a").is_none());
        assert_eq!(map.values().copied().collect::<Vec<_>>(), [2, 3]);
    }

    #[test]
    fn removals_and_reinsertions_keep_the_order_bounded() {
        let mut map = Bounded::new(4);
        for i in 0..10_000 {
            map.insert("k".into(), i);
            map.remove("k");
        }
        assert!(map.order.len() <= 32);
        map.insert("x".into(), 1);
        assert_eq!(map.get("x"), Some(&1));
    }
}
