//! A byte budget that many holders draw on: the events sessions keep for resumption, the
//! results finished tasks keep. Each item a holder keeps is charged here in bytes; past the
//! budget the oldest items go first, across every holder (every session of every server that
//! shares the pool), so one busy client cannot keep the process growing and idle ones give
//! back what they hold. An item its holder still needs for live work (an event its reader
//! has yet to take) is skipped, never evicted.
//!
//! Locks: a holder charges bytes while holding its own lock (an atomic add), and queues the
//! item after releasing it; the pool asks holders to give items up holding no lock of its
//! own. So the pool's lock and a holder's are never held together.

use std::collections::VecDeque;
use std::sync::atomic::{AtomicU64, AtomicUsize, Ordering};
use std::sync::{Arc, Mutex, MutexGuard, Weak};

use serde::Serialize;

/// Which item of a holder: a stream and an event of it, or a task's number and 0.
pub(crate) type Key = (u64, u64);

/// What a holder did when the pool asked for an item back.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub(crate) enum GiveUp {
    /// Dropped: the pool counts its bytes as freed.
    Freed,
    /// Already gone (the holder released it on its own).
    Gone,
    /// Still needed by live work: the pool keeps it.
    Live,
}

/// Something that keeps items charged to a pool.
pub(crate) trait Holder: Send + Sync {
    /// Drops item `key` if it holds it and no live work needs it.
    fn give_up(&self, key: Key) -> GiveUp;
    /// Whether it still holds item `key` (for compacting the pool's queue).
    fn holds(&self, key: Key) -> bool;
}

struct Entry {
    holder: Weak<dyn Holder>,
    key: Key,
    bytes: usize,
}

/// One byte budget and the queue of what is charged to it, oldest first.
pub(crate) struct Pool {
    limit: usize,
    queue: Mutex<VecDeque<Entry>>,
    /// Bytes charged and not yet released.
    used: AtomicUsize,
    /// Items charged and not yet released.
    items: AtomicUsize,
    evicted: AtomicU64,
    evicted_bytes: AtomicU64,
}

impl std::fmt::Debug for Pool {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("Pool")
            .field("limit", &self.limit)
            .field("used", &self.used.load(Ordering::Relaxed))
            .finish_non_exhaustive()
    }
}

/// A pool's figures, as the REST API and `MockMcpServer::memory` report them.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize)]
#[cfg_attr(feature = "decoy-cli", derive(schemars::JsonSchema))]
#[serde(rename_all = "camelCase")]
#[non_exhaustive]
pub struct PoolUse {
    /// The budget in bytes.
    pub limit_bytes: usize,
    /// Bytes held now (an estimate of the heap behind the items, counted when kept).
    pub used_bytes: usize,
    /// Items held now.
    pub items: usize,
    /// Items dropped to stay within the budget (or a holder's own count limit), ever.
    pub evicted: u64,
    /// Their bytes.
    pub evicted_bytes: u64,
}

/// The pools one process's servers share: one fixture's own, or all of the app's servers'.
#[derive(Debug, Clone)]
pub(crate) struct Pools {
    /// Events sessions keep for resumption (`Limits::max_retained_event_bytes`).
    pub(crate) events: Arc<Pool>,
    /// Finished tasks (`Limits::max_task_bytes`).
    pub(crate) tasks: Arc<Pool>,
}

impl Pools {
    pub(crate) fn new(event_bytes: usize, task_bytes: usize) -> Self {
        Pools {
            events: Arc::new(Pool::new(event_bytes)),
            tasks: Arc::new(Pool::new(task_bytes)),
        }
    }
}

/// Entries past which the queue is compacted: stale entries (of items their holders already
/// released) are dropped once they outnumber live ones.
const COMPACT_SLACK: usize = 1_024;

impl Pool {
    pub(crate) fn new(limit: usize) -> Self {
        Pool {
            limit: limit.max(1),
            queue: Mutex::new(VecDeque::new()),
            used: AtomicUsize::new(0),
            items: AtomicUsize::new(0),
            evicted: AtomicU64::new(0),
            evicted_bytes: AtomicU64::new(0),
        }
    }

    fn queue(&self) -> MutexGuard<'_, VecDeque<Entry>> {
        self.queue.lock().unwrap_or_else(|p| p.into_inner())
    }

    /// Counts an item a holder now keeps; call [`track`](Self::track) once the holder's
    /// lock is released.
    pub(crate) fn charge(&self, bytes: usize) {
        self.used.fetch_add(bytes, Ordering::AcqRel);
        self.items.fetch_add(1, Ordering::AcqRel);
    }

    /// A holder dropped a charged item on its own (its session ended, a count limit).
    /// `evicted` counts it among the evictions.
    pub(crate) fn release(&self, bytes: usize, evicted: bool) {
        self.used.fetch_sub(bytes, Ordering::AcqRel);
        self.items.fetch_sub(1, Ordering::AcqRel);
        if evicted {
            self.evicted.fetch_add(1, Ordering::Relaxed);
            self.evicted_bytes
                .fetch_add(bytes as u64, Ordering::Relaxed);
        }
    }

    /// Queues a charged item, then evicts the oldest items while the pool is over budget.
    /// Call it holding no lock of a holder.
    pub(crate) fn track(&self, holder: Weak<dyn Holder>, key: Key, bytes: usize) {
        let compact = {
            let mut queue = self.queue();
            queue.push_back(Entry { holder, key, bytes });
            queue.len() > 2 * self.items.load(Ordering::Acquire) + COMPACT_SLACK
        };
        if compact {
            self.compact();
        }
        self.enforce();
    }

    /// Evicts the oldest items until the pool is within budget, or only live work is left
    /// (which goes back to the front of the queue, still the oldest).
    fn enforce(&self) {
        let mut live = Vec::new();
        while self.used.load(Ordering::Acquire) > self.limit {
            let excess = self.used.load(Ordering::Acquire).saturating_sub(self.limit);
            let batch: Vec<Entry> = {
                let mut queue = self.queue();
                let mut taken = 0;
                let mut batch = Vec::new();
                while taken < excess {
                    let Some(entry) = queue.pop_front() else {
                        break;
                    };
                    taken += entry.bytes;
                    batch.push(entry);
                }
                batch
            };
            if batch.is_empty() {
                break;
            }
            for entry in batch {
                let Some(holder) = entry.holder.upgrade() else {
                    continue;
                };
                match holder.give_up(entry.key) {
                    GiveUp::Freed => self.release(entry.bytes, true),
                    GiveUp::Gone => {}
                    GiveUp::Live => live.push(entry),
                }
            }
        }
        if !live.is_empty() {
            let mut queue = self.queue();
            for entry in live.into_iter().rev() {
                queue.push_front(entry);
            }
        }
    }

    /// Drops the queue's entries for items their holders no longer keep.
    fn compact(&self) {
        let old = std::mem::take(&mut *self.queue());
        let kept: VecDeque<Entry> = old
            .into_iter()
            .filter(|e| e.holder.upgrade().is_some_and(|h| h.holds(e.key)))
            .collect();
        let mut queue = self.queue();
        // Entries queued meanwhile are newer: they go after the kept ones.
        let newer = std::mem::replace(&mut *queue, kept);
        queue.extend(newer);
    }

    /// The pool's figures now.
    pub(crate) fn usage(&self) -> PoolUse {
        PoolUse {
            limit_bytes: self.limit,
            used_bytes: self.used.load(Ordering::Acquire),
            items: self.items.load(Ordering::Acquire),
            evicted: self.evicted.load(Ordering::Relaxed),
            evicted_bytes: self.evicted_bytes.load(Ordering::Relaxed),
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use std::collections::BTreeMap;

    /// A holder of numbered items; item 0 is live work.
    #[derive(Default)]
    struct Items(Mutex<BTreeMap<u64, usize>>);

    impl Holder for Items {
        fn give_up(&self, key: Key) -> GiveUp {
            if key.0 == 0 {
                return GiveUp::Live;
            }
            match self.0.lock().unwrap().remove(&key.0) {
                Some(_) => GiveUp::Freed,
                None => GiveUp::Gone,
            }
        }
        fn holds(&self, key: Key) -> bool {
            self.0.lock().unwrap().contains_key(&key.0)
        }
    }

    fn keep(pool: &Pool, holder: &Arc<Items>, n: u64, bytes: usize) {
        holder.0.lock().unwrap().insert(n, bytes);
        pool.charge(bytes);
        let weak: Weak<dyn Holder> = Arc::downgrade(holder) as Weak<dyn Holder>;
        pool.track(weak, (n, 0), bytes);
    }

    #[test]
    fn the_oldest_items_of_any_holder_go_first_and_live_work_stays() {
        let pool = Pool::new(100);
        let (a, b) = (Arc::new(Items::default()), Arc::new(Items::default()));
        keep(&pool, &a, 0, 40); // live
        keep(&pool, &a, 1, 40);
        keep(&pool, &b, 2, 40);
        let usage = pool.usage();
        assert_eq!((usage.used_bytes, usage.evicted), (80, 1), "{usage:?}");
        assert!(a.holds((0, 0)) && !a.holds((1, 0)) && b.holds((2, 0)));
        // Over budget, everything but live work goes, the newest item too; nothing spins.
        keep(&pool, &b, 3, 100);
        assert!(a.holds((0, 0)) && !b.holds((3, 0)) && !b.holds((2, 0)));
        let usage = pool.usage();
        assert_eq!((usage.used_bytes, usage.items, usage.evicted), (40, 1, 3));
        // Live work alone may pass the budget: it stays.
        keep(&pool, &a, 0, 200);
        assert_eq!(pool.usage().used_bytes, 240);
    }

    #[test]
    fn released_items_leave_no_growing_queue() {
        let pool = Pool::new(usize::MAX);
        let a = Arc::new(Items::default());
        for n in 1..10_000 {
            keep(&pool, &a, n, 10);
            a.0.lock().unwrap().remove(&n);
            pool.release(10, false);
        }
        assert!(
            pool.queue().len() <= 2 * COMPACT_SLACK,
            "{}",
            pool.queue().len()
        );
        assert_eq!(pool.usage().used_bytes, 0);
    }
}
