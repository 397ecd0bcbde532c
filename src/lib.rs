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
//! assert!(server.log().tool_calls("get_forecast").len() <= 1);
//! assert_eq!(server.log().mcp().method("initialize").count(), 0);
//! # }
//! ```
//!
//! ## Where things are
//! Each public item has exactly one path.
//! - The crate root: what a test names first. The server ([`MockMcpServer`],
//!   [`MockMcpServerBuilder`]), what it serves ([`Tool`], [`ToolResponse`], [`Resource`],
//!   [`ResourceTemplate`], [`Prompt`], [`PromptArgument`], [`Skill`]), how often it expects a call
//!   ([`Times`]), how it misbehaves ([`Fault`], [`FaultRule`]), which revisions it speaks
//!   ([`ProtocolVersion`]), its live sessions ([`SessionInfo`]), its tasks ([`TaskInfo`],
//!   [`TaskStatus`]) and its errors ([`Error`], [`ItemKind`]).
//! - [`matchers`]: conditions on a call's arguments that pick a [`ToolResponse`].
//! - [`presets`]: ready-made servers, such as the conformance suite's.
//! - [`oauth`]: OAuth 2.1 for a server ([`oauth::OAuth`]), the running side
//!   ([`oauth::OAuthHandle`], [`oauth::TokenInfo`]) and the conformance presets
//!   ([`oauth::AuthScenario`]).
//! - [`log`]: the captured records, typed queries ([`log::Log`], [`log::OAuthLog`]) and the
//!   snapshot view ([`log::Transcript`]).
//! - [`spec`]: plain serde data ([`spec::ServerSpec`], [`spec::ToolSpec`], scripts,
//!   delays, OAuth settings) shared by the builders and the app's `servers.json`.
//! - [`grade`]: the conformance suite's client scenarios, graded from the capture
//!   ([`grade::Scenario`], [`grade::Report`], [`grade::Check`]).
//! - [`cassette`]: a session saved as a file ([`cassette::Cassette`], from
//!   [`log::Log::to_cassette`]), replayed with [`MockMcpServer::from_cassette`] and
//!   [`cassette::Matching`], or converted into a [`spec::ServerSpec`].
//! - [`guide`]: the guides, with runnable examples: [tools](guide::tools),
//!   [tasks](guide::tasks), [faults](guide::faults), [resources and prompts](guide::catalog),
//!   [cassettes](guide::cassettes),
//!   [the capture](guide::capture), [transports](guide::transports),
//!   [guards](guide::guards), [OAuth](guide::oauth), [protocol](guide::protocol),
//!   [grading a client](guide::grading),
//!   relays (`guide::relay`, feature `relay`) and [the app](guide::app).
//!
//! ## Layout
//! - `fixture`: the builder (`fixture/builder/`, its setters by area), the server handle
//!   (`fixture/server/`: live catalog edits, fault rules), [`Tool`] (with the methods that add
//!   its alternative answers), [`Times`], [`Resource`], [`ResourceTemplate`], [`Prompt`],
//!   [`Skill`], a
//!   tool's alternative answers (`fixture/response/`: [`ToolResponse`] and their
//!   expectations), the conditions that pick them ([`matchers`]), OAuth 2.1
//!   ([`oauth::OAuth`] with its conformance presets, [`oauth::OAuthHandle`]) and the ready-made
//!   servers (`fixture/presets/`).
//! - `engine`: one server, behind a closed facade (`engine/mod.rs`, edits in `edits.rs`)
//!   that the fixture and the app drive alike. Imports run one way, top to bottom:
//!   - `transport/http/`: the Streamable HTTP adapter (POST, GET stream, DELETE, SSE
//!     writing, the exchange capture and body limit, and `render`, the only place a fault
//!     becomes bytes); `serve.rs` runs one engine on the fixtures' shared runtimes
//!     (`transport/pool.rs`), and `listener/`
//!     serves every HTTP listener's connections (header and idle timeouts, the connection
//!     cap and its `503`), the fixture's and the app's alike. `transport/lines/`
//!     is the second adapter: newline-delimited JSON-RPC over a byte stream, written to
//!     the in-memory duplex of `MockMcpServer::connect_duplex` or, as frames over
//!     `transport/attach/`, to a stdio process (`MockMcpServer::stdio_command`, the app's
//!     `mcp-decoy stdio`) that plays them on its stdout, stderr and exit status. Beside
//!     them, the HTTP
//!     guards: `guard.rs` (API keys, Host check), `oauth/` (authorization server and
//!     resource server) and `manifest.rs`.
//!   - `pipeline/`: the stages every message goes through whatever carried it: record,
//!     admit (`admit.rs` legacy sessions, `stateless.rs` 2026-07-28, `initialize.rs`,
//!     `batch.rs`), `plan.rs` (fault rules and the tool response, decided together),
//!     `run.rs` (delay, cancellation, the handler), `outcome.rs` (what a transport renders).
//!   - `methods/`: one file per family of MCP methods, and the router in `methods/mod.rs`;
//!     no transport types. `script.rs` runs a tool's or prompt's steps within a request;
//!     `tasks/` answers the `tasks/*` methods of both generations and drives a task's script
//!     on the server's clock (`drive.rs`, with a background ticker for status notifications).
//!   - `capture.rs`: the recorder, one per message, the only writer of `mcp` records.
//!   - `state/`: catalog, sessions and their streams, fault and response counters, session
//!     expiry, tasks (`state/tasks/`, bounded by `max_tasks`), clock, and the byte budgets
//!     (`pool.rs`) that retained events and finished tasks share; `memory.rs` reports them.
//!   - `skills/`: the skills a server serves, checked and indexed once at start (each file
//!     a catalog resource; the entries `methods/skills.rs` answers with; `frontmatter.rs`
//!     reads a `SKILL.md`'s YAML).
//!   - `validate/`: every check of a spec, in one message format; `protocol/`: JSON-RPC,
//!     methods, eras, the 2026-07-28 rules; `template/`, `schema/`, `uri_template/`:
//!     json-e, the MCP JSON schema and RFC 6570, as leaves.
//!
//!   Where a `tools/call` over HTTP goes, each stage once, in this order:
//!   1. `transport::http::listener` accepts the connection (header and idle timeouts, the
//!      connection cap); `transport::http::endpoint` matches the path and applies the
//!      guards (`guard.rs`: API keys and `Host`; `oauth/`: the bearer token);
//!      `transport::http::capture` opens the exchange's `http` record.
//!   2. `transport::http::post`: `Origin` and `Content-Type` (`checks.rs`), the body limit
//!      (`body.rs`), JSON parsing; the message goes to `pipeline::message`.
//!   3. `pipeline::message` picks the era; `pipeline::legacy` (or `pipeline::stateless`)
//!      classifies the message (`protocol::jsonrpc`), opens its `mcp` record
//!      (`capture::Recorder`) and admits it: the session (`admit.rs`) or the 2026-07-28
//!      `_meta` and header rules (`protocol::modern`).
//!   4. `pipeline::resolve`: what the request names, looked up once: the tool, the
//!      arguments read by one rule, whether the call becomes a task (`Target`).
//!   5. `pipeline::run::serve` asks `pipeline::plan` (the fault rule that fires, arguments
//!      that break the schema, the tool response that answers), answers a fault that
//!      replaces the handler, or runs the handler with the plan's delay until it answers
//!      or is cancelled: `methods::request` → `methods::tools::call` (the script with
//!      `methods::script::run`, then the template; or `methods::tasks::create`).
//!   6. The answer is recorded as the client can read it and becomes an `Outcome`
//!      (`pipeline::outcome`); `transport::http::render` turns it into bytes, the only
//!      place the plan's fault shapes them.
//!
//!   Where a change goes:
//!
//!   | to add | touch |
//!   |---|---|
//!   | a fault | `spec/fault.rs` (the variant, its constructor, its label); `engine/validate/faults.rs` (its checks); `engine/pipeline/plan.rs` (where it can fire: `fit`, `answers_early`, `spans_body`); `engine/transport/http/render.rs` and `engine/transport/lines/mod.rs` (its bytes); `schema/servers.schema.json` and `docs/faults.md` |
//!   | a method | `engine/protocol/method.rs` (its name and era); a handler in `engine/methods/<family>.rs`, routed in `engine/methods/mod.rs`; the capability it needs in `engine/methods/lifecycle.rs` and `discover.rs`; `engine/pipeline/resolve.rs` when it names a catalog item whose script talks |
//!   | a catalog kind's field | `spec/` (the serde data), `engine/validate/` (its checks), the builder in `fixture/`, `schema/servers.schema.json` |
//! - `cli` (feature `decoy-cli`): the app; `cli/api/` declares each REST route once with its
//!   OpenAPI entry (`openapi.rs`), serves the four catalog kinds through one generic CRUD
//!   (`catalog.rs`, `kinds.rs`) and reaches the engine only through `live.rs`.
//! - [`spec`]: plain serde data shared by the builder and the app's `servers.json`; it also
//!   defines [`Fault`], [`FaultRule`] and [`ProtocolVersion`], whose one path is the root.
//! - [`cassette`]: the cassette format (`format.rs`), a log made into one (`record.rs`,
//!   with `normalise.rs`: labels and redaction), how a request finds its interaction
//!   (`matching.rs`), the replay's state (`replay.rs`, which the engine's
//!   `methods/replay.rs` answers from) and a cassette made into a server (`convert.rs`).
//! - [`log`]: the captured records, the bounded ring that holds them (crate-private),
//!   typed queries (the OAuth reads in `log/oauth/`), the snapshot view (its order in
//!   `log/order.rs`) and the masking of secrets in what is captured (`log/mask.rs`, which
//!   cassettes reuse).
//! - [`grade`]: the grader of clients: the scenarios it plays (`scenarios.rs`, each a
//!   server to start and the checks it reads from the log), the suite's `wire-schema-valid`
//!   check (`wire.rs`), the check and report types. It drives the fixture and reads the log;
//!   nothing below it knows it.
//! - `file`: reading a file named from outside (a cassette, a CA bundle), a leaf both the
//!   cassette and the relay use.
//! - `macros`: `setters!` and `listing_setters!`, which write the builders' one-field
//!   setters once.
//! - `error`: the one error type ([`Error`], [`ItemKind`]) that every front end returns.
//! - `bin/mcp-decoy.rs`: the app's thin binary (parse the options, run `cli`).
//!
//! Unit tests sit in a `tests` module at the end of the file they test; a folder module's
//! tests of the whole folder are its `tests.rs`. Integration tests are one binary per area,
//! `tests/AREA/main.rs` (`fixture`, `protocol`, `relay`, `app`, `ui`), with the helpers
//! they share in `tests/common/`.
//!
//! ## Feature flags
//! | feature | default | what it adds |
//! |---|---|---|
//! | `oauth-cimd` | no | OAuth: fetching Client ID Metadata Documents (a URL `client_id`, loopback `http` only) with reqwest. Without it the authorization server still advertises them (see [`OAuth::client_id_metadata_documents`](oauth::OAuth::client_id_metadata_documents)) but answers such a `client_id` with `invalid_client`, naming this feature. Off by default to keep a dependent's first build short: a plain fixture test does not use it |
//! | `relay` | no | relays: a server that forwards every request to a real MCP server (`relay_to`, `"upstream"` in `servers.json`) and captures both sides; reqwest with rustls and HTTP/2, which a plain fixture test does not need |
//! | `decoy-cli` | no | the standalone app `mcp-decoy` (module `cli`): many named servers on one MCP listener, a REST API to define them, live logs and `servers.json`; includes `oauth-cimd`, with TLS (rustls) for fetching `https` OAuth Client ID Metadata Documents, which the library alone fetches only from loopback `http`; includes `relay` |
//!
//! ## Test isolation
//! Each server has its own port, sessions and log, and runs on a few runtime threads shared
//! by the process's fixtures (at most four), never on the test's own runtime, so tests that
//! run in parallel never see each other's traffic. Dropping the handle stops the server without
//! blocking; `shutdown().await` also waits until the port is closed.
//!
//! ## Protocol
//! Streamable HTTP of both protocol eras, on one endpoint (and the same messages over the
//! in-memory duplex and stdio, [`guide::transports`]):
//! - **Legacy**, revisions 2025-03-26, 2025-06-18 and 2025-11-25: `initialize` opens a
//!   session (`Mcp-Session-Id`), POST carries JSON-RPC, GET opens the session's event
//!   stream, DELETE ends it; 2025-03-26 also takes JSON-RPC batches.
//! - **Modern**, revision 2026-07-28: stateless. Each request carries its version and the
//!   client's capabilities in `_meta`; `server/discover` tells a client what the server
//!   speaks; a tool that asks the client something answers `input_required` and continues
//!   when the client retries with the answers (multi round-trip requests, MRTR; prompts
//!   too); `subscriptions/listen` is a long-lived stream of the `list_changed`,
//!   `resources/updated` and task notifications the client opted into; and the tasks
//!   extension (`io.modelcontextprotocol/tasks`) answers long calls with a task to poll.
//!
//! Tasks run in both generations ([`guide::tasks`]): 2025-11-25's experimental
//! `params.task` with `tasks/get`, `tasks/result`, `tasks/list` and `tasks/cancel`, and the
//! 2026-07-28 extension with `tasks/get`, `tasks/update` and `tasks/cancel`; a task runs
//! its tool's script on the server's clock.
//!
//! [`MockMcpServerBuilder::protocol_versions`] narrows the revisions a server speaks; each
//! captured message names its era ([`log::Era`]).

#![forbid(unsafe_code)]
#![warn(missing_docs, unreachable_pub, missing_debug_implementations)]

#[macro_use]
mod macros;

pub mod cassette;
#[cfg(feature = "decoy-cli")]
#[cfg_attr(docsrs, doc(cfg(feature = "decoy-cli")))]
pub mod cli;
mod engine;
mod error;
mod file;
mod fixture;
pub mod grade;
pub mod guide;
pub mod log;
mod signal;
pub use fixture::{matchers, presets};
pub mod spec;

pub use engine::{SessionInfo, TaskInfo, TaskStatus};
pub use error::{Error, ItemKind};
pub use fixture::{MockMcpServer, MockMcpServerBuilder, Times};
pub use fixture::{Prompt, PromptArgument, Resource, ResourceTemplate, Skill, Tool, ToolResponse};
pub use spec::fault::{Fault, FaultRule};
pub use spec::version::ProtocolVersion;

pub mod memory {
    //! What a server keeps in memory against its budgets, as
    //! [`MockMcpServer::memory`](crate::MockMcpServer::memory) reports it ([`MemoryUse`]): the
    //! capture, the sessions, the events they keep for resumption and the finished tasks, each
    //! with what it evicted to stay within its budget (`docs/guards.md`, "Memory budgets").

    pub use crate::engine::{CaptureUse, MemoryUse, PoolUse, SessionsUse};
}

pub mod oauth {
    //! OAuth 2.1 for a [`MockMcpServer`](crate::MockMcpServer): the settings ([`OAuth`]), the
    //! running side ([`OAuthHandle`], [`TokenInfo`]) and the conformance suite's client auth
    //! scenarios ([`AuthScenario`]).
    //!
    //! # Example
    //! ```
    //! # #[tokio::main(flavor = "current_thread")]
    //! # async fn main() {
    //! use mcp_decoy::MockMcpServer;
    //! use mcp_decoy::oauth::{AuthScenario, OAuth, TokenKind};
    //!
    //! let server = MockMcpServer::builder()
    //!     .oauth(OAuth::preset(AuthScenario::ScopeStepUp))
    //!     .start()
    //!     .await;
    //! // After the client under test authorized:
    //! let tokens = server.oauth().tokens();
    //! assert_eq!(tokens.iter().filter(|t| t.kind == TokenKind::Access).count(), 0);
    //! # }
    //! ```

    #[cfg(feature = "oauth-jwt")]
    #[cfg_attr(docsrs, doc(cfg(feature = "oauth-jwt")))]
    pub use crate::engine::oauth::jwt::SigningKey;
    pub use crate::engine::oauth::{TokenInfo, TokenKind};
    pub use crate::fixture::{OAuth, OAuthHandle};
    pub use crate::spec::auth_scenario::AuthScenario;
}

/// The README's examples, compiled and run as doctests so they cannot drift from the API.
#[cfg(doctest)]
#[doc = include_str!("../README.md")]
pub struct ReadmeDoctests;
