//! One file per family of MCP methods. Handlers take parsed params and return a result or a
//! JSON-RPC error; they know nothing of HTTP.

pub(crate) mod lifecycle;
pub(crate) mod tools;
