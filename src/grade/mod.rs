//! Grading an MCP client with the client scenarios of the official conformance suite
//! (`@modelcontextprotocol/conformance`, client mode): a scenario serves what the suite's
//! scenario server serves, the client under test runs against it, and the [`Report`] holds
//! the suite's checks (ids, statuses, spec references) read from the capture, with the
//! verdict the suite's CLI gives.
//!
//! Every client scenario of the suite is graded (0.2.0-alpha.12): the 38 of the spec
//! timeline (lifecycle, tools, elicitation, SSE retry, request metadata, MRTR, HTTP headers,
//! JSON Schema, and 27 `auth/*` ones) and the 10 of its extensions (client credentials,
//! enterprise-managed authorization, DPoP, workload identity, skills); `docs/grading.md`
//! lists them. A client program runs over HTTP, as the suite runs it, or over stdio
//! ([`ClientCommand::transport`]); a Rust client in a test can also connect over the
//! in-memory duplex ([`Scenario::runs_over`] says which scenarios run off HTTP).
//!
//! # Example
//! ```
//! # #[tokio::main(flavor = "current_thread")]
//! # async fn main() {
//! use mcp_decoy::grade::Scenario;
//!
//! let scenario = Scenario::named("tools_call").expect("a scenario of the suite");
//! let graded = scenario.start().await;
//! // Run the client under test against `graded.url()`, with `graded.env()` if it reads the
//! // suite's variables; this one sends nothing, so the call's check fails.
//! let report = graded.report();
//! assert!(!report.passed());
//! assert_eq!(report.failures()[0].id, "tool-add-numbers");
//! # }
//! ```

mod baseline;
mod check;
mod client;
mod report;
mod requirements;
mod scenarios;
mod transport;
mod wire;

pub use baseline::{Baseline, BaselineEntry, BaselineVerdict};
pub use check::{Check, CheckStatus, SpecReference};
pub use client::{ClientCommand, ClientRun};
pub use report::Report;
pub use requirements::Requirements;
pub use transport::{SERVER_COMMAND_ENV, TRANSPORT_ENV};

use crate::log::Transport;
use crate::{MockMcpServer, ProtocolVersion};
use scenarios::{List, PLAYS, Play};

/// A client scenario of the conformance suite.
#[derive(Clone, Copy)]
pub struct Scenario {
    play: &'static Play,
}

impl std::fmt::Debug for Scenario {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("Scenario")
            .field("name", &self.play.name)
            .finish()
    }
}

impl Scenario {
    /// The scenario the suite names `name` (`initialize`, `tools_call`), if it is graded.
    pub fn named(name: &str) -> Option<Scenario> {
        PLAYS
            .iter()
            .find(|play| play.name == name)
            .map(|play| Scenario { play })
    }

    /// Every graded scenario, in the suite's order.
    pub fn all() -> Vec<Scenario> {
        PLAYS.iter().map(|play| Scenario { play }).collect()
    }

    /// The graded scenarios of one of the suite's lists, in its order.
    pub fn of_suite(suite: Suite) -> Vec<Scenario> {
        Scenario::all()
            .into_iter()
            .filter(|s| s.in_suite(suite))
            .collect()
    }

    /// Whether it grades an extension (off the spec timeline), not a spec revision.
    pub fn is_extension(&self) -> bool {
        self.play.list == List::Extensions
    }

    /// Whether the suite's list `suite` holds it.
    pub fn in_suite(&self, suite: Suite) -> bool {
        let list = self.play.list;
        let name = self.play.name;
        match suite {
            Suite::All => list != List::Decoy,
            Suite::Decoy => list == List::Decoy,
            Suite::Core => list == List::Core,
            Suite::Auth => list == List::Core && name.starts_with("auth/"),
            Suite::Extensions => list == List::Extensions,
            Suite::Backcompat => list == List::Backcompat,
            Suite::Metadata => name.starts_with("auth/metadata-"),
            Suite::Draft => {
                !matches!(list, List::Extensions | List::Decoy)
                    && self.play.introduced_in == ProtocolVersion::V2026_07_28
            }
            Suite::Sep835 => name.starts_with("auth/scope-"),
        }
    }

    /// The suite's name for it.
    pub fn name(&self) -> &'static str {
        self.play.name
    }

    /// What it tests, in the suite's words.
    pub fn description(&self) -> &'static str {
        self.play.description
    }

    /// Whether it can be graded over `transport`: every scenario over HTTP; over stdio and
    /// the in-memory duplex ([`MockMcpServer::connect_duplex`] on [`Graded::server`]) those
    /// that are not about HTTP headers, event streams or OAuth.
    pub fn runs_over(&self, transport: Transport) -> bool {
        transport == Transport::Http || self.play.stdio
    }

    /// Whether a client that exits with an error may still pass it: the scenarios where a
    /// correct client gives up (a step-up that never succeeds, a server it must not trust).
    pub fn allows_client_error(&self) -> bool {
        self.play.allow_client_error
    }

    /// Whether it applies at spec revision `version`: from the revision that introduced
    /// its requirement until the one that removed it (`initialize` stops at 2026-07-28,
    /// which has no `initialize`). An extension's scenario applies at none: it is off the
    /// timeline, graded at its [default revision](Self::default_version).
    pub fn applies_at(&self, version: ProtocolVersion) -> bool {
        // The suite's extension scenarios are off the spec timeline: run only when asked
        // for by name or list, at the default revision.
        self.play.list != List::Extensions
            && version >= self.play.introduced_in
            && self.play.removed_in.is_none_or(|r| version < r)
    }

    /// The revision the suite grades it at when none is asked for: 2025-11-25, or 2026-07-28
    /// for a scenario that revision introduced.
    pub fn default_version(&self) -> ProtocolVersion {
        if self.play.introduced_in == ProtocolVersion::V2026_07_28 {
            ProtocolVersion::V2026_07_28
        } else {
            ProtocolVersion::V2025_11_25
        }
    }

    /// Starts the scenario's server at its [default revision](Self::default_version).
    pub async fn start(&self) -> Graded {
        self.start_at(self.default_version()).await
    }

    /// Starts the scenario's server, graded at spec revision `version`; a revision it does
    /// not apply at is graded anyway, as the suite's `--force` does.
    pub async fn start_at(&self, version: ProtocolVersion) -> Graded {
        // The suite's scenario servers answer whatever routing headers a request carries.
        let mut builder = (self.play.serve)().lenient_routing_headers(true);
        if self.play.pins_era {
            let era = ProtocolVersion::ALL
                .into_iter()
                .filter(|v| v.is_modern() == version.is_modern());
            builder = builder.protocol_versions(era);
        }
        let server = builder.start().await;
        if let Err(error) = (self.play.prepare)(&server) {
            // The scenario's own definitions are fixed: a refusal is a bug here, not input.
            panic!(
                "mcp-decoy: the scenario {} cannot be set up: {error}",
                self.play.name
            );
        }
        // The suite puts the scenario's name first, for clients that parse the context as a
        // union tagged by it.
        let context = (self.play.context)(&server).map(|data| {
            let mut context = serde_json::Map::new();
            context.insert("name".into(), self.play.name.into());
            if let serde_json::Value::Object(data) = data {
                context.extend(data);
            }
            serde_json::Value::Object(context)
        });
        Graded {
            scenario: *self,
            version,
            server,
            context,
        }
    }
}

/// The suite's lists of client scenarios (its CLI's `--suite`).
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
#[non_exhaustive]
pub enum Suite {
    /// Every client scenario.
    All,
    /// Tier 1: `initialize`, `tools_call`, `elicitation-sep1034-client-defaults`,
    /// `sse-retry` and the authorization scenarios.
    Core,
    /// The `auth/*` scenarios.
    Auth,
    /// The extensions' scenarios (client credentials, enterprise authorization, DPoP,
    /// workload identity, skills).
    Extensions,
    /// The 2025-03-26 authorization backcompat scenarios.
    Backcompat,
    /// The `auth/metadata-*` discovery scenarios.
    Metadata,
    /// The scenarios the 2026-07-28 revision introduced.
    Draft,
    /// The `auth/scope-*` scenarios (SEP-835, scope selection and step-up).
    Sep835,
    /// mcp-decoy's own scenarios, beyond the suite (tasks); in no list of the suite's, so
    /// not in `all` either.
    Decoy,
}

impl Suite {
    /// Every list, as the suite's CLI names them.
    pub const ALL: [Suite; 9] = [
        Suite::All,
        Suite::Core,
        Suite::Extensions,
        Suite::Backcompat,
        Suite::Auth,
        Suite::Metadata,
        Suite::Draft,
        Suite::Sep835,
        Suite::Decoy,
    ];

    /// `all`, `core`, `extensions`, `backcompat`, `auth`, `metadata`, `draft`, `sep-835` or
    /// `decoy`.
    pub fn as_str(self) -> &'static str {
        match self {
            Suite::All => "all",
            Suite::Core => "core",
            Suite::Auth => "auth",
            Suite::Extensions => "extensions",
            Suite::Backcompat => "backcompat",
            Suite::Metadata => "metadata",
            Suite::Draft => "draft",
            Suite::Sep835 => "sep-835",
            Suite::Decoy => "decoy",
        }
    }

    /// The list named `name`, as the suite's CLI names it.
    pub fn parse(name: &str) -> Option<Suite> {
        Suite::ALL.into_iter().find(|s| s.as_str() == name)
    }
}

/// A scenario's server running for one client: give the client [`url`](Self::url) (and
/// [`env`](Self::env)), then read the [`report`](Self::report).
#[derive(Debug)]
pub struct Graded {
    scenario: Scenario,
    version: ProtocolVersion,
    server: MockMcpServer,
    context: Option<serde_json::Value>,
}

impl Graded {
    /// The MCP endpoint the client connects to.
    pub fn url(&self) -> String {
        self.server.url()
    }

    /// The spec revision graded at.
    pub fn version(&self) -> ProtocolVersion {
        self.version
    }

    /// The server, to read its capture as any fixture's.
    pub fn server(&self) -> &MockMcpServer {
        &self.server
    }

    /// The scenario's data for the client, as the suite hands it over in
    /// `MCP_CONFORMANCE_CONTEXT` (`{"name": scenario, ...}`): the calls to make, credentials,
    /// keys. `None` for a scenario with none.
    pub fn context(&self) -> Option<&serde_json::Value> {
        self.context.as_ref()
    }

    /// The suite's variables for the client process: `MCP_CONFORMANCE_SCENARIO` and
    /// `MCP_CONFORMANCE_PROTOCOL_VERSION`, and `MCP_CONFORMANCE_CONTEXT` for a scenario with
    /// data to hand over ([`context`](Self::context)).
    pub fn env(&self) -> Vec<(&'static str, String)> {
        let mut env = vec![
            ("MCP_CONFORMANCE_SCENARIO", self.scenario.name().to_string()),
            (
                "MCP_CONFORMANCE_PROTOCOL_VERSION",
                self.version.as_str().to_string(),
            ),
        ];
        if let Some(context) = &self.context {
            env.push(("MCP_CONFORMANCE_CONTEXT", context.to_string()));
        }
        env
    }

    /// The checks of what the client did so far, and the verdict.
    pub fn report(&self) -> Report {
        self.judge(None)
    }

    /// Runs `client` against this server as the suite runs a client (the URL appended as
    /// its last argument, [`env`](Self::env) in its environment), off the async workers,
    /// and reports on it: the checks, and how the client's run went, which fails the
    /// scenario when it timed out, left processes, or exited with an error.
    ///
    /// Over [`Transport::Stdio`] the client is handed the server's command instead (its last
    /// argument, one line for a POSIX shell; [`SERVER_COMMAND_ENV`], a JSON array), with
    /// `MCP_CONFORMANCE_TRANSPORT=stdio`; a scenario that does not
    /// [run over stdio](Scenario::runs_over) fails saying so, without running the client.
    pub async fn run(&self, client: &ClientCommand) -> Report {
        let mut env = self.env();
        let transport = client.transport_used();
        env.push((TRANSPORT_ENV, transport.as_str().to_string()));
        let refused = |failure: String| ClientRun {
            failure: Some(failure),
            ..ClientRun::default()
        };
        let (target, stdio) = match transport {
            Transport::Http => (self.url(), None),
            Transport::Memory => {
                return self.judge(Some(refused(
                    "a client program cannot use the in-memory duplex: connect in-process with `graded.server().connect_duplex()`".into(),
                )));
            }
            Transport::Stdio => {
                if !self.scenario.runs_over(Transport::Stdio) {
                    return self.judge(Some(refused(format!(
                        "{} is graded over HTTP only: it checks HTTP headers, event streams or OAuth",
                        self.scenario.name()
                    ))));
                }
                match transport::StdioTarget::of(&self.server, client.server_program()) {
                    Ok(target) => {
                        env.push((SERVER_COMMAND_ENV, target.json()));
                        (target.line(), Some(target))
                    }
                    Err(failure) => return self.judge(Some(refused(failure))),
                }
            }
        };
        let client = client.clone();
        let run = tokio::task::spawn_blocking(move || {
            let run = client.run(&target, &env);
            if let Some(stdio) = stdio {
                stdio.remove();
            }
            run
        })
        .await
        .unwrap_or_else(|error| ClientRun {
            failure: Some(format!("the client's runner failed: {error}")),
            ..ClientRun::default()
        });
        self.judge(Some(run))
    }

    fn judge(&self, client: Option<ClientRun>) -> Report {
        let log = self.server.log();
        let mut checks = (self.scenario.play.judge)(&log, self.version);
        if self.scenario.play.wire {
            checks.extend(wire::check(&log, self.version));
        }
        let mut report = Report::new(self.scenario.name(), self.version, checks, client, log);
        report.allow_client_error = self.scenario.play.allow_client_error;
        report
    }
}
