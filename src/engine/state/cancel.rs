//! How a request being handled is stopped before its answer, and why: the reason travels
//! with the signal, so the request's record says who ended it.

use std::sync::{Arc, OnceLock};

use tokio_util::sync::CancellationToken;

use crate::log::RequestEnd;

/// The stop signal of one request being handled; clones share it. The first reason given
/// wins.
#[derive(Debug, Clone, Default)]
pub(crate) struct Cancel {
    token: CancellationToken,
    why: Arc<OnceLock<RequestEnd>>,
}

impl Cancel {
    /// Stops the request, for `why` (unless it was stopped before).
    pub(crate) fn fire(&self, why: RequestEnd) {
        let _ = self.why.set(why);
        self.token.cancel();
    }

    /// Waits until the request is stopped, and says why.
    pub(crate) async fn fired(&self) -> RequestEnd {
        self.token.cancelled().await;
        self.why.get().copied().unwrap_or(RequestEnd::EndedByServer)
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[tokio::test]
    async fn the_first_reason_given_is_the_one_reported() {
        let cancel = Cancel::default();
        let waiting = cancel.clone();
        cancel.fire(RequestEnd::CancelledByClient);
        cancel.fire(RequestEnd::EndedByServer);
        assert_eq!(waiting.fired().await, RequestEnd::CancelledByClient);
    }
}
