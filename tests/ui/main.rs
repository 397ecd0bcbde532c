//! The app's web UI in a real browser (Chromium through chromedriver): every test here
//! fails, saying how to install them, when either is missing.
//!
//! One test binary for the area, so the crate links once for all of it; each module is
//! the tests of one capability.

#[path = "../common/mod.rs"]
mod common;

mod cassette;
mod editing;
mod oauth;
mod pages;
mod timeline;
