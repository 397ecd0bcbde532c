//! # mcp-decoy
//!
//! A mock MCP server for testing MCP clients: what wiremock is to HTTP clients.
//! [`MockMcpServer::builder`] starts an in-process server on a free loopback port, with tools
//! whose results are json-e templates; it captures every HTTP exchange and JSON-RPC message so
//! a test can assert on what its client sent.
//!
//! ## Getting started
//! ```
//! # #[tokio::main(flavor = "current_thread")]
//! # async fn main() {
//! use mcp_decoy::{MockMcpServer, Tool};
//! use serde_json::json;
//!
//! // Arrange: a server with one tool, expected to be called once.
//! let server = MockMcpServer::builder()
//!     .name("weather")
//!     .tool(
//!         Tool::new("get_forecast")
//!             .input_schema(json!({"type": "object", "properties": {"city": {"type": "string"}}}))
//!             .respond_with(json!({"content": [{"type": "text", "text": "Forecast for ${args.city}: 14°C"}]}))
//!             .expect(0..=1),
//!     )
//!     .start()
//!     .await;
//!
//! // Act: give `server.url()` (http://127.0.0.1:PORT/mcp) to the client under test.
//! # let _ = server.url();
//!
//! // Assert: typed reads of the capture.
//! assert!(server.calls("get_forecast").len() <= 1);
//! assert_eq!(server.log().mcp().method("initialize").count(), 0);
//! # }
//! ```
//!
//! ## Layout
//! - [`fixture`](MockMcpServer): the builder, the server handle, [`Tool`], [`Times`],
//!   [`Resource`], [`ResourceTemplate`], a tool's alternative answers ([`Response`]) and the
//!   conditions that pick them ([`matchers`]), OAuth 2.1 ([`OAuth`], [`OAuthHandle`]).
//! - `engine`: one server's transport (Streamable HTTP), methods, live catalog, sessions,
//!   capture, access guards (API keys, Host check), OAuth (authorization server and
//!   resource server, `engine/oauth/`) and capability manifest; driven by the
//!   fixture and, later, by the standalone app.
//! - [`spec`]: plain serde data ([`ServerSpec`], [`ToolSpec`]) shared by the builder and the
//!   app's `servers.json`.
//! - [`log`]: the captured records, typed queries ([`log::Log`]) and the snapshot view
//!   ([`log::Transcript`]).
//!
//! ## Feature flags
//! | feature | default | what it adds |
//! |---|---|---|
//! | `decoy-cli` | no | the standalone app `mcp-decoy` (in progress); also TLS (rustls) for fetching `https` OAuth Client ID Metadata Documents, which the library alone fetches only from loopback `http` |
//!
//! ## Test isolation
//! Each server has its own port, thread, runtime, sessions and log, so tests that run in
//! parallel never see each other's traffic. Dropping the handle stops the server without
//! blocking; `shutdown().await` also waits until the port is closed.
//!
//! ## Protocol
//! Legacy Streamable HTTP, revisions 2025-03-26, 2025-06-18 and 2025-11-25, on one endpoint:
//! `initialize` opens a session (`Mcp-Session-Id`), POST carries JSON-RPC, GET opens the
//! session's event stream, DELETE ends it.

#![forbid(unsafe_code)]
#![warn(missing_docs, unreachable_pub, missing_debug_implementations)]

#[cfg(feature = "decoy-cli")]
#[cfg_attr(docsrs, doc(cfg(feature = "decoy-cli")))]
pub mod cli;
mod engine;
mod error;
mod fixture;
pub mod log;
pub use fixture::presets;
pub mod spec;

pub use engine::SessionInfo;
pub use engine::oauth::{TokenInfo, TokenKind};
pub use error::{Error, ItemKind};
pub use fixture::{MockMcpServer, MockMcpServerBuilder, Times, Tool};
pub use fixture::{OAuth, OAuthHandle};
pub use fixture::{Prompt, PromptArgument};
pub use fixture::{Resource, ResourceTemplate};
pub use fixture::{Response, matchers};
pub use spec::AuthScenario;
pub use spec::{
    AskMethod, Listing, LogLevel, ProtocolVersion, ResponseMode, ServerSpec, Step, ToolAnnotations,
    ToolSpec,
};
pub use spec::{Comparison, Matcher, ResponseSpec};
pub use spec::{Delay, Fault, FaultRule, SessionExpiry};

/// The README's examples, compiled and run as doctests so they cannot drift from the API.
#[cfg(doctest)]
#[doc = include_str!("../README.md")]
pub struct ReadmeDoctests;
