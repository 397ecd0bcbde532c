//! The guides of `docs/*.md`, one module each, so their examples compile and run as doctests
//! and docs.rs shows them beside the API. The README links the same files.

#[doc = include_str!("../docs/tools.md")]
pub mod tools {}

#[doc = include_str!("../docs/tasks.md")]
pub mod tasks {}

#[doc = include_str!("../docs/faults.md")]
pub mod faults {}

#[doc = include_str!("../docs/catalog.md")]
pub mod catalog {}

#[doc = include_str!("../docs/cassettes.md")]
pub mod cassettes {}

#[doc = include_str!("../docs/capture.md")]
pub mod capture {}

#[doc = include_str!("../docs/transports.md")]
pub mod transports {}

#[doc = include_str!("../docs/guards.md")]
pub mod guards {}

#[doc = include_str!("../docs/oauth.md")]
pub mod oauth {}

#[doc = include_str!("../docs/protocol.md")]
pub mod protocol {}

#[doc = include_str!("../docs/grading.md")]
pub mod grading {}

#[doc = include_str!("../docs/app.md")]
pub mod app {}

#[cfg(feature = "relay")]
#[doc = include_str!("../docs/relay.md")]
pub mod relay {}
