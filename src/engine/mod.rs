//! The engine: one decoy server from a [`ServerSpec`], behind a closed facade. The fixture
//! and the app both drive it through [`Engine`]'s methods (every edit has one rule, here
//! or in [`edits`]); neither reaches into its state, and it never knows which one started it.
//!
//! Imports run one way, top to bottom:
//! - [`transport`]: adapters (Streamable HTTP, newline-delimited byte streams) turn bytes
//!   into messages and outcomes back into bytes; the HTTP-only guards ([`guard`], [`oauth`], [`manifest`]) sit beside it.
//!   A relay (feature `relay`) is one more HTTP responder there (`transport::http::relay`):
//!   it forwards to a real server instead of running the pipeline, behind the same guards
//!   and capture.
//! - [`pipeline`]: the stages every message goes through: record, admit, plan, run, outcome.
//! - [`methods`]: one file per family of MCP methods, no transport types.
//! - [`capture`]: the recorder, the only writer of the traffic log's `mcp` records.
//! - [`state`]: catalog, sessions and their streams, fault and response counters, expiry,
//!   clock.
//! - [`hint`]: what to tell a client that named a draft, no tool or no method.
//! - [`declared`]: what the server declares of itself (`capabilities`, `serverInfo`), typed
//!   so the `initialize` answer is written straight to text.
//! - [`arguments`]: how a call's arguments break its tool's `inputSchema`.
//! - [`validate`]: every check of a spec; [`protocol`]: the wire vocabulary; [`template`],
//!   [`schema`], [`uri_template`]: json-e, JSON Schema and RFC 6570, as leaves; [`random`]:
//!   secrets from the operating system.
//!
//! A `tools/call` POSTed over HTTP: `transport::http::post` → `pipeline::message` →
//! `pipeline::legacy` (or `stateless`) → `pipeline::resolve` → `pipeline::run::serve`
//! (with `pipeline::plan`) → `methods::request` → `methods::tools::call` → back as an
//! `Outcome` → `transport::http::render`; every hop is in the crate docs (`lib.rs`).

pub(crate) mod arguments;
pub(crate) mod capture;
pub(crate) mod declared;
pub(crate) mod edits;
pub(crate) mod guard;
pub(crate) mod hint;
pub(crate) mod manifest;
pub(crate) mod memory;
pub(crate) mod methods;
pub(crate) mod oauth;
pub(crate) mod pipeline;
pub(crate) mod protocol;
pub(crate) mod random;
pub(crate) mod reach;
pub(crate) mod schema;
pub(crate) mod skills;
pub(crate) mod state;
pub(crate) mod template;
pub(crate) mod transport;
pub(crate) mod uri_template;
pub(crate) mod validate;

use std::collections::HashMap;
use std::sync::atomic::{AtomicBool, Ordering};
use std::sync::{Arc, Mutex};

use serde_json::{Value, json};

pub use memory::{CaptureUse, MemoryUse, SessionsUse};
#[cfg(feature = "decoy-cli")]
pub(crate) use state::catalog::Kind;
pub use state::pool::PoolUse;
pub use state::session::SessionInfo;
pub use state::tasks::{TaskInfo, TaskStatus};
pub(crate) use transport::duplex;
#[cfg(feature = "decoy-cli")]
pub(crate) use transport::http::endpoint::Endpoint;
pub(crate) use transport::http::listener::Connections;
#[cfg(feature = "decoy-cli")]
pub(crate) use transport::http::listener::{bind, serve};
pub(crate) use transport::http::serve::{Running, spawn};

// The grader's facade: the spec's schema, which it checks a client's messages against.
pub(crate) use schema::{definition_problems, message_definition};

// The app's facade: everything `cli` uses of the engine besides `Engine` itself, named here
// so the app never reaches into the engine's modules.
#[cfg(feature = "decoy-cli")]
pub(crate) use self::{
    guard::spec_problems as guard_problems,
    oauth::admin::check_redirect_uri,
    oauth::{TokenInfo, check_spec as check_oauth},
    random::{fill as random_fill, hex_id},
    schema::{Validator, compile as compile_schema},
    skills::index as check_skills,
    state::pool::Pools,
    template::{check as check_template, check_with as check_template_with},
    transport::attach::{
        Attach, TOKEN_ENV as ATTACH_TOKEN_ENV, bridge, listen as listen_for_attach,
    },
    transport::lines::out::{Out, Sink},
    transport::lines::serve as serve_lines,
    validate::{faults::check_spec as check_faults, items::server as check_items},
};

use crate::cassette::Player;
use crate::error::Error;
use crate::log::TrafficLog;
use crate::spec::{Limits, ProtocolVersion, ReplaySpec, ServerSpec, ToolSpec};
use protocol::jsonrpc;
use state::catalog::Catalog;
use state::clock::Clock;
use state::expiry::Expiry;
use state::faults::Faults;
#[cfg(not(feature = "decoy-cli"))]
use state::pool::Pools;
use state::responses::Responses;
use state::session::Sessions;
use state::tasks::Tasks;

/// The listings clients are told about when they change (a script's `notify` step names
/// them too, so the type lives in `spec`).
pub(crate) use crate::spec::Listing;

/// The player of a spec's cassette: read (from its file, if it has one) and checked.
fn player(replay: &ReplaySpec) -> Result<Player, Error> {
    if let Some((n, pointer)) = replay.matching.bad_pointer() {
        return Err(Error::InvalidConfig {
            field: "replay.matching.ignore",
            reason: format!(
                "[{n}] `{pointer}` is no JSON pointer: it must be empty or start with `/`"
            ),
        });
    }
    Ok(Player::new(
        replay.cassette.load()?,
        replay.matching.clone(),
    ))
}

impl Listing {
    pub(crate) fn notification(self) -> &'static str {
        match self {
            Listing::Tools => "notifications/tools/list_changed",
            Listing::Resources => "notifications/resources/list_changed",
            Listing::Prompts => "notifications/prompts/list_changed",
        }
    }
}

/// One running server's state, shared by its handlers. Its fields are private to the
/// engine: the fixture and the app use its methods.
#[derive(Debug)]
pub(crate) struct Engine {
    /// Identity and behaviour; the item lists are empty here, the catalog owns them.
    spec: ServerSpec,
    /// Served revisions, newest first.
    versions: Vec<ProtocolVersion>,
    limits: Limits,
    allowed_origins: Vec<String>,
    catalog: Catalog,
    sessions: Sessions,
    /// The open `subscriptions/listen` streams (2026-07-28), fed by catalog edits.
    listeners: methods::listen::Listeners,
    log: Arc<TrafficLog>,
    /// Tags this server's records in a shared log.
    source: u64,
    /// Declared capabilities that start off with the catalog; the first item of a kind
    /// declares its capability (see [`edits`]).
    serves_resources: AtomicBool,
    serves_prompts: AtomicBool,
    /// Whether a tool can run as a task, so the server declares tasks (2025-11-25
    /// `capabilities.tasks`, the 2026-07-28 extension); the first such tool declares it.
    serves_tasks: AtomicBool,
    /// The tasks, live and finished.
    tasks: Tasks,
    /// Set once the server stops serving: a request it drops from then on was ended by the
    /// server, not by its client.
    stopping: AtomicBool,
    /// The byte budgets of retained events and finished tasks, shared with the process's
    /// other servers.
    pools: Pools,
    validators: Mutex<HashMap<String, Arc<schema::Validator>>>,
    /// Signs and checks the `requestState` of 2026-07-28 multi round-trip requests.
    mrtr: methods::mrtr::Sealer,
    /// This server's time, which tests can advance (token, code and session expiry).
    clock: Clock,
    /// Host check and API keys; the live keys are here, `spec.api_keys` is only the seed.
    guard: guard::Guard,
    /// Tool response counters, compiled matchers and the seeded random generator.
    responses: Responses,
    /// Server-level fault rules with their counters, and the hanging requests.
    faults: Faults,
    /// Session ages, when sessions expire.
    expiry: Expiry,
    /// OAuth 2.1 state (clients, codes, tokens) when the spec has `auth`.
    /// Boxed, as is `replay`: most servers have neither, and inline they were a third of
    /// an idle fixture's engine.
    oauth: Option<Box<oauth::AuthServer>>,
    /// The cassette being replayed, when the spec has `replay`: it answers every request
    /// (see `methods::replay`).
    replay: Option<Box<Player>>,
    /// The skills' entries, when the spec has `skills` (their files are in the catalog).
    skills: Option<Box<skills::Skills>>,
    /// The upstream and its client, when the server is a relay.
    #[cfg(feature = "relay")]
    relay: Option<transport::http::relay::Relay>,
}

impl Engine {
    /// Validates `spec` and builds the engine; the log may be shared (the app keeps one
    /// global limit across servers).
    #[cfg(any(test, feature = "decoy-cli"))]
    pub(crate) fn new(
        spec: ServerSpec,
        limits: Limits,
        allowed_origins: Vec<String>,
        log: Arc<TrafficLog>,
        pools: Pools,
        source: u64,
    ) -> Result<Arc<Engine>, Error> {
        Engine::with_tools(
            spec,
            Vec::new(),
            limits,
            allowed_origins,
            log,
            pools,
            source,
        )
    }

    /// [`Engine::new`] with `tools` served after those of `spec`, as shared specs: a tool
    /// another live server already holds (`Tool::echo()`, most often) passed its checks
    /// then and is neither checked nor copied again.
    pub(crate) fn with_tools(
        mut spec: ServerSpec,
        tools: Vec<Arc<ToolSpec>>,
        limits: Limits,
        allowed_origins: Vec<String>,
        log: Arc<TrafficLog>,
        pools: Pools,
        source: u64,
    ) -> Result<Arc<Engine>, Error> {
        let tools: Vec<Arc<ToolSpec>> = if spec.upstream.is_some() {
            // A relay has no tools of its own: its check below refuses them by `spec`.
            spec.tools
                .extend(tools.into_iter().map(Arc::unwrap_or_clone));
            Vec::new()
        } else {
            let mut all = Vec::with_capacity(spec.tools.len() + tools.len());
            all.extend(std::mem::take(&mut spec.tools).into_iter().map(Arc::new));
            all.extend(tools);
            all
        };
        validate::items::server(
            &spec,
            tools
                .iter()
                .map(|tool| (&**tool, !state::shared::vetted(tool))),
        )?;
        guard::check_spec(&spec)?;
        validate::faults::check_spec(&spec.faults, spec.session_expiry.as_ref())?;
        oauth::check_spec(&spec)?;
        if spec.stdio.start_delay_ms > crate::spec::stdio::MAX_START_DELAY_MS {
            return Err(Error::InvalidConfig {
                field: "stdio.start_delay_ms",
                reason: format!(
                    "is {}, above the limit of {}",
                    spec.stdio.start_delay_ms,
                    crate::spec::stdio::MAX_START_DELAY_MS
                ),
            });
        }
        if limits.max_body_bytes == 0 {
            return Err(Error::InvalidConfig {
                field: "max_body_bytes",
                reason: "must be at least 1".into(),
            });
        }
        if limits.max_tasks == 0 {
            return Err(Error::InvalidConfig {
                field: "max_tasks",
                reason: "must be at least 1".into(),
            });
        }
        if limits.keep_alive_ms == 0 {
            return Err(Error::InvalidConfig {
                field: "keep_alive_ms",
                reason: "must be at least 1".into(),
            });
        }
        let replay = spec.replay.as_ref().map(player).transpose()?.map(Box::new);
        if spec.replay.is_some() && spec.upstream.is_some() {
            return Err(Error::InvalidConfig {
                field: "upstream",
                reason: "a server replays a cassette or relays to an upstream, not both".into(),
            });
        }
        #[cfg(feature = "relay")]
        transport::http::relay::check_spec(&spec)?;
        #[cfg(not(feature = "relay"))]
        if spec.upstream.is_some() {
            return Err(Error::InvalidConfig {
                field: "upstream",
                reason: "a relay needs mcp-decoy's `relay` cargo feature".into(),
            });
        }
        #[cfg(feature = "relay")]
        let relay = transport::http::relay::Relay::of(&spec)?;
        let versions = spec.versions_newest_first();
        let guard = guard::Guard::new(&spec);
        let oauth = spec
            .auth
            .clone()
            .map(|auth| Box::new(oauth::AuthServer::new(auth)));
        if spec.skills.is_empty() && spec.skills_directory_read {
            return Err(Error::InvalidConfig {
                field: "skills_directory_read",
                reason: "declares directory reads of skills, and the server has no skills".into(),
            });
        }
        let skills = if spec.skills.is_empty() {
            None
        } else {
            let (skills, files) = skills::index(&spec.skills, &spec.resources)?;
            spec.resources.extend(files);
            Some(Box::new(skills))
        };
        let serves_resources = !spec.resources.is_empty() || !spec.resource_templates.is_empty();
        let serves_prompts = !spec.prompts.is_empty();
        let serves_tasks = tools.iter().any(|tool| tool.has_tasks());
        let catalog = Catalog::new(
            tools,
            std::mem::take(&mut spec.resources),
            std::mem::take(&mut spec.resource_templates),
            std::mem::take(&mut spec.prompts),
        );
        Ok(Arc::new(Engine {
            versions,
            sessions: Sessions::new(
                limits.max_sessions,
                limits.max_session_bytes,
                limits.max_queued_messages,
                pools.events.clone(),
            ),
            listeners: methods::listen::Listeners::new(limits.max_listen_streams),
            limits,
            allowed_origins,
            catalog,
            log,
            source,
            serves_resources: AtomicBool::new(serves_resources),
            serves_prompts: AtomicBool::new(serves_prompts),
            serves_tasks: AtomicBool::new(serves_tasks),
            stopping: AtomicBool::new(false),
            tasks: Tasks::new(limits.max_tasks, pools.tasks.clone()),
            pools,
            validators: Mutex::default(),
            mrtr: methods::mrtr::Sealer::new(),
            clock: Clock::default(),
            guard,
            responses: Responses::new(spec.seed),
            faults: Faults::new(&spec.faults),
            expiry: Expiry::new(spec.session_expiry),
            oauth,
            replay,
            skills,
            #[cfg(feature = "relay")]
            relay,
            spec,
        }))
    }

    /// Records where clients reach the server: a loopback address turns its `Host` check on
    /// (only loopback names and its allowed hosts), against DNS rebinding.
    pub(crate) fn listening_on(&self, addr: std::net::SocketAddr) {
        self.guard.bound_to(addr);
    }

    /// The cassette being replayed, if any.
    pub(crate) fn replay(&self) -> Option<&Player> {
        self.replay.as_deref()
    }

    /// An engine for unit tests, with default limits and its own log.
    #[cfg(test)]
    pub(crate) fn for_tests(spec: ServerSpec) -> Arc<Engine> {
        let log = Arc::new(TrafficLog::new(100, crate::log::DEFAULT_LOG_BYTES));
        let limits = Limits::default();
        let pools = Pools::new(limits.max_retained_event_bytes, limits.max_task_bytes);
        Engine::new(spec, limits, Vec::new(), log, pools, 0).expect("a valid spec")
    }

    /// Whether a tool can run as a task, so the server declares tasks.
    pub(crate) fn serves_tasks(&self) -> bool {
        self.serves_tasks.load(Ordering::Acquire)
    }

    /// The compiled output schema of a tool, cached by schema text; `None` when the tool has
    /// none or it cannot be compiled (a remote `$ref`, which is never fetched).
    pub(crate) fn output_validator(&self, tool: &ToolSpec) -> Option<Arc<schema::Validator>> {
        self.validator(tool.output_schema.as_ref()?).ok()
    }

    /// A compiled schema, cached by its text (input and output schemas share the cache), or
    /// why it does not compile (a remote `$ref`, which is never fetched).
    pub(crate) fn validator(&self, schema: &Value) -> Result<Arc<schema::Validator>, String> {
        let key = schema.to_string();
        let mut cache = self.validators.lock().unwrap_or_else(|p| p.into_inner());
        if let Some(validator) = cache.get(&key) {
            return Ok(validator.clone());
        }
        let validator = Arc::new(schema::compile(schema)?);
        // Bounded: a test that edits tools in a loop must not grow this without end.
        if cache.len() >= 256 {
            cache.clear();
        }
        cache.insert(key, validator.clone());
        Ok(validator)
    }

    /// Whether the server declares the `prompts` capability.
    pub(crate) fn serves_prompts(&self) -> bool {
        self.serves_prompts.load(Ordering::Acquire)
    }

    /// Whether the server declares the `resources` capability; resource methods answer
    /// `-32601` otherwise.
    /// The skills served, when there are any.
    pub(crate) fn skills(&self) -> Option<&skills::Skills> {
        self.skills.as_deref()
    }

    pub(crate) fn serves_resources(&self) -> bool {
        self.serves_resources.load(Ordering::Acquire)
    }

    /// The server's identity and behaviour as configured (its item lists are empty: see
    /// [`current_spec`](Self::current_spec)).
    pub(crate) fn spec(&self) -> &ServerSpec {
        &self.spec
    }

    /// The server as plain data, with the catalog and keys as they are now (for
    /// `servers.json`).
    #[cfg(feature = "decoy-cli")]
    pub(crate) fn current_spec(&self) -> ServerSpec {
        ServerSpec {
            tools: self.catalog.tools.all(),
            // A skill's files are served as resources but stored as the skill.
            resources: self
                .catalog
                .resources
                .all()
                .into_iter()
                .filter(|r| !self.skills().is_some_and(|s| s.has_file(&r.uri)))
                .collect(),
            resource_templates: self.catalog.templates.all(),
            prompts: self.catalog.prompts.all(),
            api_keys: self.guard.api_keys(),
            ..self.spec.clone()
        }
    }

    /// The traffic log this server writes to.
    pub(crate) fn log(&self) -> &Arc<TrafficLog> {
        &self.log
    }

    /// The tag of this server's records in a shared log.
    #[cfg(feature = "decoy-cli")]
    pub(crate) fn source(&self) -> u64 {
        self.source
    }

    /// Whether this server is a relay whose OAuth discovery answers `path`, a well-known
    /// document at the app's root that names it (`/.well-known/…/s/NAME/…`).
    #[cfg(feature = "decoy-cli")]
    pub(crate) fn relays_root(&self, path: &str) -> bool {
        self.relay.as_ref().is_some_and(|r| r.claims_root(path))
    }

    /// Queues the listing's `list_changed` notification for every live session and every
    /// listen stream that opted in.
    pub(crate) fn notify_list_changed(&self, listing: Listing) {
        self.sessions
            .broadcast(&jsonrpc::notification(listing.notification(), None));
        self.listeners.list_changed(listing);
    }

    /// Sends `notifications/resources/updated` to the sessions subscribed to `uri`
    /// (server/resources, "Subscriptions") and to the listen streams that named it.
    pub(crate) fn resource_updated(&self, uri: &str) {
        self.listeners.resource_updated(uri);
        self.sessions.notify_subscribers(
            uri,
            &jsonrpc::notification(
                "notifications/resources/updated",
                Some(json!({ "uri": uri })),
            ),
        );
    }
}
