//! Every check of a spec before the engine runs it: items ([`items`]), tool responses ([`responses`]),
//! delays and matchers ([`matchers`]), fault rules and session expiry ([`faults`]), `x-mcp-header`
//! annotations ([`headers`]), script steps and task settings ([`script`]). Each problem is a typed [`Error`](crate::Error) naming the
//! item and the field, in one message format, so a mistake surfaces when the spec is given,
//! never at call time.
//!
//! Pure functions of the spec: nothing here reads a running server, so the catalog, the
//! fault rules and the app's `servers.json` loader all call them.

pub(crate) mod faults;
pub(crate) mod headers;
pub(crate) mod items;
mod known;
pub(crate) mod matchers;
pub(crate) mod responses;
pub(crate) mod script;
