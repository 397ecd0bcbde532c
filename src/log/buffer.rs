//! The bounded ring that holds a server's captured records: at most a number of records
//! and at most a number of bytes (each record's estimate, `log::size`), the oldest dropping
//! first when either is reached.
//!
//! A sync `Mutex`, held only for pushes and copies, so that `Drop` and assertions never need
//! an async runtime; a `watch` channel wakes whoever waits for traffic.

use std::collections::VecDeque;
use std::sync::{Mutex, MutexGuard};

use chrono::Utc;
use tokio::sync::watch;

use super::record::{Entry, HttpKind, Record, SESSION_HEADER};
use super::ring::Ring;
use super::size;
use crate::signal::Signal;

/// The default number of records kept (product guide).
pub(crate) const DEFAULT_LOG_LIMIT: usize = 10_000;
/// The default byte budget: 256 MiB. Bodies are kept cut to 8 KiB (`log::clip`), so
/// 10,000 records of 1 MiB calls take about 160 MiB and the record limit binds first; the
/// budget binds for records of many small values or many headers.
pub(crate) const DEFAULT_LOG_BYTES: usize = 256 * 1024 * 1024;
/// The smallest byte budget accepted: 1 MiB, room for dozens of records of large calls.
pub(crate) const MIN_LOG_BYTES: usize = 1024 * 1024;

/// A bounded, append-mostly log of captured traffic; the oldest records drop first. The
/// engine writes it; users read copies of it ([`Log`](super::Log)).
///
/// The byte budget counts an estimate of each record's memory, updated when the record
/// changes; the newest record is kept even if it alone is over the budget, as the record
/// limit keeps at least one.
#[derive(Debug)]
pub(crate) struct TrafficLog {
    ring: Mutex<Ring>,
    changed: Signal,
}

/// How many per-server clears [`TrafficLog::changes_from`] remembers. A stream that sleeps
/// through more clears of other servers than this may miss its own, then keeps showing
/// records that are gone from the log until it reconnects.
#[cfg_attr(
    not(feature = "decoy-cli"),
    allow(dead_code, reason = "only the app reads it")
)]
const CLEARS_KEPT: usize = 256;

/// What changed in one server's records since a revision (see [`TrafficLog::changes_from`]).
#[cfg_attr(
    not(feature = "decoy-cli"),
    allow(dead_code, reason = "only the app reads it")
)]
#[derive(Debug, Clone, PartialEq)]
pub(crate) struct Changes {
    /// The records pushed or updated since, oldest first.
    pub(crate) records: Vec<Record>,
    /// Whether the server's records were cleared since.
    pub(crate) cleared: bool,
    /// The log's revision now: pass it to the next call.
    pub(crate) revision: u64,
    /// The id of the newest record pushed to the log (any server), 0 if none.
    pub(crate) newest: u64,
}

impl TrafficLog {
    /// An empty log that keeps at most `limit` records (at least one) and about `budget`
    /// bytes of them.
    pub(crate) fn new(limit: usize, budget: usize) -> Self {
        TrafficLog {
            ring: Mutex::new(Ring {
                records: VecDeque::new(),
                limit: limit.max(1),
                budget,
                bytes: 0,
                next_id: 1,
                dropped: 0,
                revision: 0,
                cleared_all: 0,
                clears: VecDeque::new(),
            }),
            changed: Signal::default(),
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
        let mut record = Record {
            id: 0,
            source,
            revision: 0,
            size: 0,
            at: Utc::now(),
            entry,
        };
        // Measured before the lock: the walk is over the record's own values only.
        record.size = size::record(&record);
        let (id, dropped) = {
            let mut ring = self.ring();
            record.id = ring.next_id;
            ring.next_id += 1;
            ring.revision += 1;
            record.revision = ring.revision;
            let id = record.id;
            ring.bytes += record.size;
            ring.make_room();
            ring.records.push_back(record);
            (id, ring.evict())
        };
        // Freed after the lock, so writers do not wait on the allocator.
        drop(dropped);
        self.changed.notify();
        id
    }

    /// Changes a record in place (a response arriving, a status known); a no-op once the
    /// record has been dropped from the ring.
    pub(crate) fn update(&self, id: u64, change: impl FnOnce(&mut Entry)) {
        let dropped = {
            let mut ring = self.ring();
            let Some(index) = ring.index_of(id) else {
                return;
            };
            ring.revision += 1;
            let revision = ring.revision;
            let record = &mut ring.records[index];
            record.revision = revision;
            change(&mut record.entry);
            let (before, after) = (record.size, size::record(record));
            record.size = after;
            ring.bytes = ring.bytes.saturating_sub(before) + after;
            ring.evict()
        };
        drop(dropped);
        self.changed.notify();
    }

    /// Changes the newest of server `source`'s last `lookback` records that `matches`, if
    /// any; returns whether one matched.
    pub(crate) fn update_newest(
        &self,
        source: u64,
        lookback: usize,
        matches: impl Fn(&Entry) -> bool,
        change: impl FnOnce(&mut Entry),
    ) -> bool {
        let id = {
            let ring = self.ring();
            ring.records
                .iter()
                .rev()
                .take(lookback)
                .find(|r| r.source == source && matches(&r.entry))
                .map(|r| r.id)
        };
        match id {
            Some(id) => {
                self.update(id, change);
                true
            }
            None => false,
        }
    }

    /// The method and path of the `http` record `id`, for naming the stream it opened.
    pub(crate) fn request_line(&self, id: u64) -> Option<(String, String)> {
        let ring = self.ring();
        let index = ring.index_of(id)?;
        match &ring.records[index].entry {
            Entry::Http(h) => Some((h.method.clone(), h.path.clone())),
            Entry::Mcp(_) => None,
        }
    }

    /// Whether server `source` has an event stream of session `session` whose end is not
    /// recorded yet (its `stream_end` record is pushed when the response body drops).
    pub(crate) fn has_open_stream(&self, source: u64, session: &str) -> bool {
        let ring = self.ring();
        let mut open: Vec<u64> = Vec::new();
        for record in ring.records.iter().filter(|r| r.source == source) {
            let Entry::Http(h) = &record.entry else {
                continue;
            };
            match h.kind {
                HttpKind::StreamEnd => open.retain(|id| Some(*id) != h.stream_of),
                HttpKind::Exchange => {
                    let of_session = h.request_header(SESSION_HEADER) == Some(session)
                        || h.response_header(SESSION_HEADER) == Some(session);
                    let stream = h
                        .response_header("content-type")
                        .is_some_and(|v| v.starts_with("text/event-stream"));
                    if of_session && stream {
                        open.push(record.id);
                    }
                }
            }
        }
        !open.is_empty()
    }

    /// A copy of every record kept, oldest first.
    pub(crate) fn records(&self) -> Vec<Record> {
        self.ring().records.iter().cloned().collect()
    }

    /// How many records were dropped because the ring was full.
    #[cfg(test)]
    pub(crate) fn dropped(&self) -> u64 {
        self.ring().dropped
    }

    /// The ring's figures: `(records kept, record limit, bytes kept, byte budget, records
    /// dropped to stay within them)`.
    pub(crate) fn usage(&self) -> (usize, usize, usize, usize, u64) {
        let ring = self.ring();
        (
            ring.records.len(),
            ring.limit,
            ring.bytes,
            ring.budget,
            ring.dropped,
        )
    }

    /// The bytes the kept records take, as the budget counts them.
    #[cfg(test)]
    pub(crate) fn bytes(&self) -> usize {
        self.ring().bytes
    }

    /// Deletes every record; ids keep increasing.
    pub(crate) fn clear(&self) {
        {
            let mut ring = self.ring();
            ring.records.clear();
            ring.bytes = 0;
            ring.revision += 1;
            ring.cleared_all = ring.revision;
        }
        self.changed.notify();
    }

    /// A copy of record `id` if it is still kept and server `source` wrote it.
    #[cfg_attr(
        not(feature = "decoy-cli"),
        allow(dead_code, reason = "only the app reads it")
    )]
    pub(crate) fn record_from(&self, source: u64, id: u64) -> Option<Record> {
        let ring = self.ring();
        let index = ring.index_of(id)?;
        let record = &ring.records[index];
        (record.source == source).then(|| record.clone())
    }

    /// Up to `max` records of server `source` with an id below `before`, newest first: one
    /// chunk of a scan (a search, an export) that never copies the whole log at once.
    #[cfg_attr(
        not(feature = "decoy-cli"),
        allow(dead_code, reason = "only the app reads it")
    )]
    pub(crate) fn older_from(&self, source: u64, before: u64, max: usize) -> Vec<Record> {
        let ring = self.ring();
        let end = ring.records.partition_point(|r| r.id < before);
        ring.records
            .range(..end)
            .rev()
            .filter(|r| r.source == source)
            .take(max)
            .cloned()
            .collect()
    }

    /// Up to `max` records of server `source` with an id above `after`, oldest first (see
    /// [`older_from`](Self::older_from)).
    #[cfg_attr(
        not(feature = "decoy-cli"),
        allow(dead_code, reason = "only the app reads it")
    )]
    pub(crate) fn newer_from(&self, source: u64, after: u64, max: usize) -> Vec<Record> {
        let ring = self.ring();
        let start = ring.records.partition_point(|r| r.id <= after);
        ring.records
            .range(start..)
            .filter(|r| r.source == source)
            .take(max)
            .cloned()
            .collect()
    }

    /// Deletes the records of server `source`.
    #[cfg_attr(
        not(feature = "decoy-cli"),
        allow(dead_code, reason = "only the app reads it")
    )]
    pub(crate) fn clear_from(&self, source: u64) {
        {
            let mut ring = self.ring();
            ring.records.retain(|r| r.source != source);
            ring.bytes = ring.records.iter().map(|r| r.size).sum();
            ring.revision += 1;
            let revision = ring.revision;
            ring.clears.retain(|(s, _)| *s != source);
            ring.clears.push_back((source, revision));
            while ring.clears.len() > CLEARS_KEPT {
                ring.clears.pop_front();
            }
        }
        self.changed.notify();
    }

    /// The records of server `source` pushed or updated after revision `since` whose id is
    /// above `after`, and whether its records were cleared after `since`; one snapshot, so a
    /// stream that passes the returned revision back misses nothing. Only matching records
    /// are copied.
    #[cfg_attr(
        not(feature = "decoy-cli"),
        allow(dead_code, reason = "only the app reads it")
    )]
    pub(crate) fn changes_from(&self, source: u64, since: u64, after: u64) -> Changes {
        let ring = self.ring();
        Changes {
            records: ring
                .records
                .iter()
                .filter(|r| r.source == source && r.revision > since && r.id > after)
                .cloned()
                .collect(),
            cleared: ring.cleared_all > since
                || ring.clears.iter().any(|&(s, r)| s == source && r > since),
            revision: ring.revision,
            newest: ring.next_id - 1,
        }
    }

    /// A receiver that is marked changed on every push, update and clear.
    pub(crate) fn subscribe(&self) -> watch::Receiver<()> {
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
            transport: Default::default(),
            carried_by: None,
            message: json!({}).into(),
            response: None,
            duration_ms: None,
            end: None,
            fault: None,
            response_index: None,
            argument_errors: Vec::new(),
            truncated: false,
        })
    }

    /// A notification holding `bytes` bytes of text.
    fn large(n: u64, bytes: usize) -> Entry {
        let mut entry = note(n);
        if let Entry::Mcp(m) = &mut entry {
            m.message = json!({ "text": "x".repeat(bytes) }).into();
        }
        entry
    }

    #[test]
    fn a_full_ring_holds_room_for_its_limit_not_the_next_power_of_two() {
        let log = TrafficLog::new(100, DEFAULT_LOG_BYTES);
        for n in 0..1_000 {
            log.push(note(n));
        }
        let ring = log.ring();
        assert_eq!(ring.records.len(), 100);
        // Doubling from 4 would have reached 128.
        assert_eq!(ring.records.capacity(), 101);
    }

    #[test]
    fn the_oldest_records_drop_first() {
        let log = TrafficLog::new(3, DEFAULT_LOG_BYTES);
        for n in 0..5 {
            log.push(note(n));
        }
        let ids: Vec<u64> = log.records().iter().map(|r| r.id).collect();
        assert_eq!(ids, vec![3, 4, 5]);
        assert_eq!(log.dropped(), 2);
        // Updating a dropped record is harmless.
        log.update(1, |_| panic!("record 1 was dropped"));
    }

    #[test]
    fn the_byte_budget_drops_the_oldest_records_and_counts_updates() {
        // Arrange: room for about three records of 40 KB.
        let log = TrafficLog::new(100, 130_000);

        // Act
        for n in 1..=5 {
            log.push(large(n, 40_000));
        }

        // Assert
        let ids: Vec<u64> = log.records().iter().map(|r| r.id).collect();
        assert_eq!(ids, vec![3, 4, 5]);
        assert!(log.bytes() <= 130_000, "{}", log.bytes());
        let sum: usize = log.records().iter().map(|r| r.size).sum();
        assert_eq!(log.bytes(), sum, "the total is the sum of the kept records");

        // A record that grows in place pushes the oldest out too.
        log.update(5, |entry| {
            if let Entry::Mcp(m) = entry {
                m.response = Some(json!("y".repeat(40_000)).into());
            }
        });
        let ids: Vec<u64> = log.records().iter().map(|r| r.id).collect();
        assert_eq!(ids, vec![4, 5]);
        assert!(log.bytes() <= 130_000, "{}", log.bytes());

        // The newest record stays even when it alone is over the budget.
        log.push(large(6, 200_000));
        let ids: Vec<u64> = log.records().iter().map(|r| r.id).collect();
        assert_eq!(ids, vec![6]);
        log.clear();
        assert_eq!(log.bytes(), 0);
    }

    #[test]
    fn chunks_walk_one_servers_records_in_both_directions() {
        let log = TrafficLog::new(100, DEFAULT_LOG_BYTES);
        for n in 1..=10 {
            log.push_from(n % 2, note(n));
        }
        let ids = |records: Vec<Record>| records.iter().map(|r| r.id).collect::<Vec<u64>>();
        assert_eq!(ids(log.older_from(1, u64::MAX, 2)), vec![9, 7]);
        assert_eq!(ids(log.older_from(1, 7, 10)), vec![5, 3, 1]);
        assert_eq!(ids(log.newer_from(0, 0, 2)), vec![2, 4]);
        assert_eq!(ids(log.newer_from(0, 4, 10)), vec![6, 8, 10]);
        assert!(log.newer_from(0, 10, 10).is_empty());
    }

    #[test]
    fn changes_since_a_revision_hold_new_and_updated_records_of_one_server() {
        let log = TrafficLog::new(10, DEFAULT_LOG_BYTES);
        let a1 = log.push_from(1, note(1));
        log.push_from(2, note(2));
        let start = log.changes_from(1, 0, 0);
        assert_eq!(start.records.len(), 1);
        assert_eq!(start.newest, 2);
        assert!(!log.changes_from(1, start.revision, 0).cleared);

        let a3 = log.push_from(1, note(3));
        log.update(a1, |_| {});
        let ids: Vec<u64> = log
            .changes_from(1, start.revision, 0)
            .records
            .iter()
            .map(|r| r.id)
            .collect();
        // Ring order (by id), not change order.
        assert_eq!(ids, vec![a1, a3]);
        assert_eq!(
            log.changes_from(1, 0, a1).records.len(),
            1,
            "after skips ids"
        );

        let before = log.changes_from(1, 0, 0).revision;
        log.clear_from(2);
        assert!(
            !log.changes_from(1, before, 0).cleared,
            "another server's clear"
        );
        log.clear_from(1);
        let after_clear = log.changes_from(1, before, 0);
        assert!(after_clear.cleared);
        assert!(after_clear.records.is_empty());
        log.clear();
        assert!(log.changes_from(1, after_clear.revision, 0).cleared);
    }
}
