//! Session expiry (`ServerSpec::session_expiry`): each legacy session's age, in requests and
//! on the server's clock, and whether it is due to end. Ending it is the caller's move, so a
//! request of an expired session gets `404` like any request of an ended one.

use std::collections::HashMap;
use std::sync::{Mutex, MutexGuard};
use std::time::{Duration, SystemTime};

use crate::spec::SessionExpiry;

/// The ages of one server's sessions; empty and free when sessions never expire.
#[derive(Debug)]
pub(crate) struct Expiry {
    rule: Option<SessionExpiry>,
    ages: Mutex<HashMap<String, Age>>,
}

/// What session expiry needs to know of a session.
#[derive(Debug, Clone, Copy)]
struct Age {
    /// `initialize`, by the engine's clock.
    born: SystemTime,
    /// Requests served in the session, `initialize` not counted.
    requests: u64,
}

impl Expiry {
    pub(crate) fn new(rule: Option<SessionExpiry>) -> Self {
        Expiry {
            rule,
            ages: Mutex::default(),
        }
    }

    fn ages(&self) -> MutexGuard<'_, HashMap<String, Age>> {
        self.ages.lock().unwrap_or_else(|p| p.into_inner())
    }

    /// Starts the clock of a new session. At `max` entries the ended sessions' ages go in
    /// bulk (`live` tells which are still open): DELETE and eviction leave entries behind.
    pub(crate) fn opened(
        &self,
        id: &str,
        now: SystemTime,
        max: usize,
        live: impl Fn(&str) -> bool,
    ) {
        if self.rule.is_none() {
            return;
        }
        let mut ages = self.ages();
        if ages.len() >= max {
            ages.retain(|id, _| live(id));
        }
        ages.insert(
            id.to_string(),
            Age {
                born: now,
                requests: 0,
            },
        );
    }

    /// Counts a request of a session towards its expiry.
    pub(crate) fn counted(&self, id: &str) {
        if self.rule.is_none() {
            return;
        }
        if let Some(age) = self.ages().get_mut(id) {
            age.requests += 1;
        }
    }

    /// Whether the session has expired; forgets its age and returns the label for the
    /// capture when it has.
    pub(crate) fn due(&self, id: &str, now: SystemTime) -> Option<String> {
        let rule = self.rule?;
        let mut ages = self.ages();
        let age = ages.get(id)?;
        let by_count = rule
            .after_requests
            .filter(|&limit| age.requests >= limit)
            .map(|limit| format!("session_expiry after {limit} requests"));
        let by_time = rule.after_ms.and_then(|ms| {
            let due = age.born.checked_add(Duration::from_millis(ms))?;
            (now >= due).then(|| format!("session_expiry after {ms} ms"))
        });
        let label = by_count.or(by_time)?;
        ages.remove(id);
        Some(label)
    }

    /// Forgets every age (a restart ends every session).
    pub(crate) fn reset(&self) {
        self.ages().clear();
    }
}
