//! A change signal whose channel is made by its first listener. Every server holds a few
//! (its log, its tasks, each session's wake-up), and most are never listened to: a tokio
//! `watch` channel allocates about 350 bytes up front, which an idle fixture would keep for
//! nothing. Before anyone subscribes there is no one to wake, so nothing is lost.

use std::sync::OnceLock;

use tokio::sync::watch;

/// Wakes its receivers on [`notify`](Signal::notify); carries no value.
#[derive(Debug, Default)]
pub(crate) struct Signal(OnceLock<watch::Sender<()>>);

impl Signal {
    /// Marks every receiver changed; does nothing while no one has subscribed.
    pub(crate) fn notify(&self) {
        if let Some(sender) = self.0.get() {
            sender.send_replace(());
        }
    }

    /// A receiver that sees every [`notify`](Signal::notify) from now on.
    pub(crate) fn subscribe(&self) -> watch::Receiver<()> {
        self.0.get_or_init(|| watch::channel(()).0).subscribe()
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[tokio::test]
    async fn a_receiver_sees_what_is_notified_after_it_subscribed_and_nothing_before() {
        let signal = Signal::default();
        signal.notify();
        let mut receiver = signal.subscribe();
        assert!(!receiver.has_changed().expect("the sender lives"));
        signal.notify();
        assert!(receiver.has_changed().expect("the sender lives"));
        receiver.changed().await.expect("the sender lives");
        assert!(!receiver.has_changed().expect("the sender lives"));
    }
}
