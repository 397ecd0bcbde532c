//! One file per family of MCP methods. Handlers take a [`RequestCtx`](super::dispatch::RequestCtx)
//! and return a result or a JSON-RPC error; they know nothing of HTTP.

pub(crate) mod completion;
pub(crate) mod lifecycle;
pub(crate) mod listen;
pub(crate) mod logging;
pub(crate) mod pagination;
pub(crate) mod prompts;
pub(crate) mod resources;
pub(crate) mod tools;
