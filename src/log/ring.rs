//! The ring inside a [`TrafficLog`](super::TrafficLog): the kept records, oldest first, with
//! the counts and limits that bound them. Its owner holds it behind a lock.

use std::collections::VecDeque;

use super::record::Record;

#[derive(Debug)]
pub(super) struct Ring {
    pub(super) records: VecDeque<Record>,
    pub(super) limit: usize,
    /// The byte budget, and the sum of the kept records' sizes.
    pub(super) budget: usize,
    pub(super) bytes: usize,
    pub(super) next_id: u64,
    pub(super) dropped: u64,
    /// Bumped by every push, update and clear; stamps records and clears.
    pub(super) revision: u64,
    /// The revision of the last `clear` of every server.
    pub(super) cleared_all: u64,
    /// The revision of the latest `clear_from` of recent servers, oldest first, at most
    /// `CLEARS_KEPT` (one entry per server).
    #[cfg_attr(
        not(feature = "decoy-cli"),
        allow(dead_code, reason = "only the app reads it")
    )]
    pub(super) clears: VecDeque<(u64, u64)>,
}

impl Ring {
    /// Grows the ring for one more record as a `VecDeque` would (doubling), but never past
    /// what the limit can hold: a full log of 10,000 records would otherwise sit in room for
    /// 16,384, and the ring wraps through all of it (2.4 MiB of records never used).
    pub(super) fn make_room(&mut self) {
        let (len, capacity) = (self.records.len(), self.records.capacity());
        if len < capacity {
            return;
        }
        // One over the limit for the moment between a push and its eviction.
        let wanted = (capacity * 2).max(4).min(self.limit + 1).max(len + 1);
        self.records.reserve_exact(wanted - len);
    }

    /// Where record `id` is: ids are consecutive unless a shared log cleared one server's.
    pub(super) fn index_of(&self, id: u64) -> Option<usize> {
        let offset = usize::try_from(id.checked_sub(self.records.front()?.id)?).ok()?;
        if self.records.get(offset).is_some_and(|r| r.id == id) {
            return Some(offset);
        }
        self.records.binary_search_by_key(&id, |r| r.id).ok()
    }

    /// Drops the oldest records while there are more than the limit or more bytes than the
    /// budget (keeping the newest), and returns them to be freed outside the lock.
    pub(super) fn evict(&mut self) -> Vec<Record> {
        let mut dropped = Vec::new();
        while self.records.len() > self.limit
            || (self.bytes > self.budget && self.records.len() > 1)
        {
            let Some(record) = self.records.pop_front() else {
                break;
            };
            self.bytes = self.bytes.saturating_sub(record.size);
            self.dropped += 1;
            dropped.push(record);
        }
        dropped
    }
}
