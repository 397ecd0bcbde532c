//! What one running server remembers between messages: the catalog ([`catalog`]), the
//! legacy sessions with their event streams ([`session`], [`stream`], [`outbox`]), the
//! byte budgets their retained events and finished tasks share ([`pool`]), the
//! counters of fault rules ([`faults`]) and tool responses ([`responses`]), session ages
//! ([`expiry`]), the tasks ([`tasks`]) and the server's clock ([`clock`]).
//!
//! State only: each type guards its own data and knows nothing of transports, the
//! pipeline or the methods that read it.

pub(crate) mod cancel;
pub(crate) mod catalog;
pub(crate) mod clock;
pub(crate) mod expiry;
pub(crate) mod faults;
pub(crate) mod outbox;
pub(crate) mod pool;
pub(crate) mod responses;
pub(crate) mod sent;
pub(crate) mod session;
pub(crate) mod shared;
pub(crate) mod stream;
pub(crate) mod tasks;
