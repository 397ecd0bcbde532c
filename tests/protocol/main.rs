//! The protocol on the wire: both eras, Streamable HTTP in detail, multi round-trip
//! requests, `subscriptions/listen`, tasks of both generations, and the conformance suite's
//! server scenarios.
//!
//! One test binary for the area, so the crate links once for all of it; each module is
//! the tests of one capability.

#[path = "../common/mod.rs"]
mod common;

mod conformance;
mod conformance_tasks;
mod eras;
mod listen;
mod modern;
mod mrtr;
mod mrtr_prompts;
mod tasks;
mod tasks_faults;
mod tasks_modern;
mod tasks_streams;
mod transport;
