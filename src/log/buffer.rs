//! The bounded ring that holds a server's captured records.
//!
//! A sync `Mutex`, held only for pushes and copies, so that `Drop` and assertions never need
//! an async runtime; a `watch` channel wakes whoever waits for traffic.

use std::collections::VecDeque;
use std::sync::{Mutex, MutexGuard};

use chrono::Utc;
use tokio::sync::watch;

use super::record::{Entry, Record};

/// The default number of records kept (product guide).
pub const DEFAULT_LOG_LIMIT: usize = 10_000;

/// A bounded, append-mostly log of captured traffic; the oldest records drop first.
#[derive(Debug)]
pub struct TrafficLog {
    ring: Mutex<Ring>,
    changed: watch::Sender<u64>,
}

#[derive(Debug)]
struct Ring {
    records: VecDeque<Record>,
    limit: usize,
    next_id: u64,
    dropped: u64,
}

impl TrafficLog {
    /// An empty log that keeps at most `limit` records (at least one).
    pub fn new(limit: usize) -> Self {
        TrafficLog {
            ring: Mutex::new(Ring {
                records: VecDeque::new(),
                limit: limit.max(1),
                next_id: 1,
                dropped: 0,
            }),
            changed: watch::channel(0).0,
        }
    }

    fn ring(&self) -> MutexGuard<'_, Ring> {
        // A panic while holding the lock leaves the ring consistent (each operation is one
        // push or one field write), so a poisoned lock is still safe to read.
        self.ring
            .lock()
            .unwrap_or_else(|poisoned| poisoned.into_inner())
    }

    /// Appends a record stamped now and returns its id.
    #[cfg(test)]
    pub(crate) fn push(&self, entry: Entry) -> u64 {
        self.push_from(0, entry)
    }

    /// Appends a record of server `source` stamped now and returns its id.
    pub(crate) fn push_from(&self, source: u64, entry: Entry) -> u64 {
        let id = {
            let mut ring = self.ring();
            let id = ring.next_id;
            ring.next_id += 1;
            ring.records.push_back(Record {
                id,
                source,
                at: Utc::now(),
                entry,
            });
            while ring.records.len() > ring.limit {
                ring.records.pop_front();
                ring.dropped += 1;
            }
            id
        };
        self.changed.send_replace(id);
        id
    }

    /// Changes a record in place (a response arriving, a status known); a no-op once the
    /// record has been dropped from the ring.
    pub(crate) fn update(&self, id: u64, change: impl FnOnce(&mut Entry)) {
        {
            let mut ring = self.ring();
            let Ok(index) = ring.records.binary_search_by_key(&id, |r| r.id) else {
                return;
            };
            change(&mut ring.records[index].entry);
        }
        self.changed.send_modify(|_| {});
    }

    /// The method and path of the `http` record `id`, for naming the stream it opened.
    pub(crate) fn request_line(&self, id: u64) -> Option<(String, String)> {
        let ring = self.ring();
        let index = ring.records.binary_search_by_key(&id, |r| r.id).ok()?;
        match &ring.records[index].entry {
            Entry::Http(h) => Some((h.method.clone(), h.path.clone())),
            Entry::Mcp(_) => None,
        }
    }

    /// A copy of every record kept, oldest first.
    pub fn records(&self) -> Vec<Record> {
        self.ring().records.iter().cloned().collect()
    }

    /// How many records were dropped because the ring was full.
    pub fn dropped(&self) -> u64 {
        self.ring().dropped
    }

    /// Deletes every record; ids keep increasing.
    pub fn clear(&self) {
        self.ring().records.clear();
        self.changed.send_modify(|_| {});
    }

    /// A copy of the records of server `source`, oldest first.
    pub(crate) fn records_from(&self, source: u64) -> Vec<Record> {
        self.ring()
            .records
            .iter()
            .filter(|r| r.source == source)
            .cloned()
            .collect()
    }

    /// Deletes the records of server `source`.
    pub(crate) fn clear_from(&self, source: u64) {
        self.ring().records.retain(|r| r.source != source);
        self.changed.send_modify(|_| {});
    }

    /// A receiver that is marked changed on every push, update and clear.
    pub fn subscribe(&self) -> watch::Receiver<u64> {
        self.changed.subscribe()
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::log::record::{Direction, RpcKind, RpcMessage};
    use serde_json::json;

    fn note(n: u64) -> Entry {
        Entry::Mcp(RpcMessage {
            kind: RpcKind::Notification,
            direction: Direction::ClientToServer,
            method: Some(format!("n{n}")),
            name: None,
            session: None,
            protocol_version: None,
            era: None,
            carried_by: None,
            message: json!({}),
            response: None,
            duration_ms: None,
            cancelled: false,
        })
    }

    #[test]
    fn the_oldest_records_drop_first() {
        let log = TrafficLog::new(3);
        for n in 0..5 {
            log.push(note(n));
        }
        let ids: Vec<u64> = log.records().iter().map(|r| r.id).collect();
        assert_eq!(ids, vec![3, 4, 5]);
        assert_eq!(log.dropped(), 2);
        // Updating a dropped record is harmless.
        log.update(1, |_| panic!("record 1 was dropped"));
    }
}
