//! Relays: a fixture that forwards to a real MCP server (an rmcp upstream) and captures
//! both sides, over HTTP/1.1 and HTTP/2, with OAuth and into cassettes.
//!
//! One test binary for the area, so the crate links once for all of it; each module is
//! the tests of one capability.

#[path = "../common/mod.rs"]
mod common;

mod relay;
mod relay_cassette;
mod relay_h2;
mod relay_oauth;
