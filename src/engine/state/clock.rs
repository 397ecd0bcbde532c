//! The server's clock: real time plus an offset a test can advance, so tokens, codes and
//! sessions expire without sleeping.

use std::sync::atomic::{AtomicU64, Ordering};
use std::time::{Duration, SystemTime};

/// Wall-clock time shifted by what the test advanced.
#[derive(Debug, Default)]
pub(crate) struct Clock {
    /// Milliseconds added to the system clock.
    offset_ms: AtomicU64,
}

impl Clock {
    /// Now, as this server sees it.
    pub(crate) fn now(&self) -> SystemTime {
        SystemTime::now() + Duration::from_millis(self.offset_ms.load(Ordering::Relaxed))
    }

    /// Moves this server's time forward.
    pub(crate) fn advance(&self, by: Duration) {
        let ms = u64::try_from(by.as_millis()).unwrap_or(u64::MAX);
        let _ = self
            .offset_ms
            .fetch_update(Ordering::Relaxed, Ordering::Relaxed, |old| {
                Some(old.saturating_add(ms))
            });
    }
}
