//! The standalone app `mcp-decoy` as a user runs it: the real binary as a child process,
//! its REST API, `servers.json`, logs, guards, OAuth, tasks, relays and stdio.
//!
//! One test binary for the area, so the crate links once for all of it; each module is
//! the tests of one capability.

#[path = "../common/mod.rs"]
mod common;

mod api;
mod cassette;
mod check_client;
mod cli;
mod crash;
mod fuzz;
mod guards;
mod hostile;
mod logs;
mod oauth;
mod relay;
mod responses;
mod skills;
mod stdio;
mod tasks;
