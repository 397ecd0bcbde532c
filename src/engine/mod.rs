//! Runs one decoy server from a [`ServerSpec`]: the transport, the methods, the live catalog,
//! sessions and capture. The fixture and the app both drive it; it never knows which.
//!
//! [`router`] gives the axum router of one server (the app nests many); [`spawn`] serves one
//! alone on its own thread and runtime.

mod capture;
mod catalog;
pub(crate) mod clock;
pub(crate) mod dispatch;
mod era;
pub(crate) mod faults;
pub(crate) mod guard;
mod http;
mod jsonrpc;
mod manifest;
mod methods;
mod modern;
mod mrtr;
pub(crate) mod oauth;
mod outbox;
pub(crate) mod responses;
mod runtime;
mod schema;
mod session;
mod stream;
mod template;
pub(crate) mod uri_template;
pub(crate) mod validate;

use std::collections::HashMap;
use std::sync::{Arc, Mutex};

use axum::Router;
use axum::routing::post;
use serde_json::{Value, json};

pub(crate) use catalog::Catalog;
pub(crate) use runtime::{Running, spawn};
pub use session::SessionInfo;
pub(crate) use session::Sessions;

use crate::error::Error;
use crate::log::TrafficLog;
use crate::spec::{Limits, ProtocolVersion, ServerSpec, ToolSpec};

/// The listings clients are told about when they change (a script's `notify` step names
/// them too, so the type lives in `spec`).
pub(crate) use crate::spec::Listing;

impl Listing {
    pub(crate) fn notification(self) -> &'static str {
        match self {
            Listing::Tools => "notifications/tools/list_changed",
            Listing::Resources => "notifications/resources/list_changed",
            Listing::Prompts => "notifications/prompts/list_changed",
        }
    }
}

/// One running server's state, shared by its handlers.
#[derive(Debug)]
pub(crate) struct Engine {
    /// Identity and behaviour; the item lists are empty here, the catalog owns them.
    pub(crate) spec: ServerSpec,
    /// Served revisions, newest first.
    pub(crate) versions: Vec<ProtocolVersion>,
    pub(crate) limits: Limits,
    pub(crate) allowed_origins: Vec<String>,
    pub(crate) catalog: Catalog,
    pub(crate) sessions: Sessions,
    /// The open `subscriptions/listen` streams (2026-07-28), fed by catalog edits.
    pub(crate) listeners: methods::listen::Listeners,
    pub(crate) log: Arc<TrafficLog>,
    /// Tags this server's records in a shared log.
    pub(crate) source: u64,
    serves_resources: bool,
    serves_prompts: bool,
    validators: Mutex<HashMap<String, Arc<jsonschema::Validator>>>,
    /// Signs and checks the `requestState` of 2026-07-28 multi round-trip requests.
    pub(crate) mrtr: mrtr::Sealer,
    /// This server's time, which tests can advance (token, code and session expiry).
    pub(crate) clock: clock::Clock,
    /// Host check and API keys; the live keys are here, `spec.api_keys` is only the seed.
    pub(crate) guard: guard::Guard,
    /// Tool response counters, compiled matchers and the seeded random generator.
    pub(crate) responses: responses::Responses,
    /// Server-level fault rules with their counters, session ages, hanging requests.
    pub(crate) faults: faults::Faults,
    /// OAuth 2.1 state (clients, codes, tokens) when the spec has `auth`.
    pub(crate) oauth: Option<oauth::AuthServer>,
}

impl Engine {
    /// Validates `spec` and builds the engine; the log may be shared (the app keeps one
    /// global limit across servers).
    pub(crate) fn new(
        mut spec: ServerSpec,
        limits: Limits,
        allowed_origins: Vec<String>,
        log: Arc<TrafficLog>,
        source: u64,
    ) -> Result<Arc<Engine>, Error> {
        validate::server(&spec)?;
        guard::check_spec(&spec)?;
        faults::check_spec(&spec.faults, spec.session_expiry.as_ref())?;
        oauth::check_spec(&spec)?;
        if limits.max_body_bytes == 0 {
            return Err(Error::InvalidConfig {
                field: "max_body_bytes",
                reason: "must be at least 1".into(),
            });
        }
        if limits.keep_alive_ms == 0 {
            return Err(Error::InvalidConfig {
                field: "keep_alive_ms",
                reason: "must be at least 1".into(),
            });
        }
        let versions = spec.versions_newest_first();
        let guard = guard::Guard::new(&spec);
        let seed = spec.seed;
        let faults = faults::Faults::new(&spec.faults, spec.session_expiry);
        let oauth = spec.auth.clone().map(oauth::AuthServer::new);
        let serves_resources = !spec.resources.is_empty() || !spec.resource_templates.is_empty();
        let serves_prompts = !spec.prompts.is_empty();
        let catalog = Catalog::new(
            std::mem::take(&mut spec.tools),
            std::mem::take(&mut spec.resources),
            std::mem::take(&mut spec.resource_templates),
            std::mem::take(&mut spec.prompts),
        );
        Ok(Arc::new(Engine {
            spec,
            versions,
            sessions: Sessions::new(limits.max_sessions, limits.max_queued_messages),
            listeners: methods::listen::Listeners::new(limits.max_listen_streams),
            limits,
            allowed_origins,
            catalog,
            log,
            source,
            serves_resources,
            serves_prompts,
            validators: Mutex::default(),
            mrtr: mrtr::Sealer::new(),
            clock: clock::Clock::default(),
            guard,
            responses: responses::Responses::new(seed),
            faults,
            oauth,
        }))
    }

    /// `capabilities` of the `initialize` result: what the configuration serves. Resources
    /// and prompts are declared when the server started with some (server/index: capabilities
    /// must match what is served); logging and completions always are.
    pub(crate) fn capabilities(&self) -> Value {
        let mut capabilities = json!({
            "tools": { "listChanged": true },
            "logging": {},
            "completions": {},
        });
        if self.serves_resources {
            capabilities["resources"] = json!({ "subscribe": true, "listChanged": true });
        }
        if self.serves_prompts {
            capabilities["prompts"] = json!({ "listChanged": true });
        }
        capabilities
    }

    /// The compiled output schema of a tool, cached by schema text; `None` when the tool has
    /// none or it cannot be compiled (a remote `$ref`, which is never fetched).
    pub(crate) fn output_validator(&self, tool: &ToolSpec) -> Option<Arc<jsonschema::Validator>> {
        let schema = tool.output_schema.as_ref()?;
        let key = schema.to_string();
        let mut cache = self.validators.lock().unwrap_or_else(|p| p.into_inner());
        if let Some(validator) = cache.get(&key) {
            return Some(validator.clone());
        }
        let validator = Arc::new(jsonschema::validator_for(schema).ok()?);
        // Bounded: a test that edits tools in a loop must not grow this without end.
        if cache.len() >= 256 {
            cache.clear();
        }
        cache.insert(key, validator.clone());
        Some(validator)
    }

    /// Whether the server declares the `resources` capability (it started with resources or
    /// resource templates); resource methods answer `-32601` otherwise.
    /// The server as plain data, with the catalog as it is now (for `servers.json`).
    #[cfg(feature = "decoy-cli")]
    pub(crate) fn current_spec(&self) -> ServerSpec {
        ServerSpec {
            tools: self.catalog.tools.all(),
            resources: self.catalog.resources.all(),
            resource_templates: self.catalog.templates.all(),
            prompts: self.catalog.prompts.all(),
            api_keys: self.guard.api_keys(),
            ..self.spec.clone()
        }
    }

    pub(crate) fn serves_prompts(&self) -> bool {
        self.serves_prompts
    }

    pub(crate) fn serves_resources(&self) -> bool {
        self.serves_resources
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

    /// `serverInfo` (spec `Implementation`).
    pub(crate) fn server_info(&self) -> Value {
        let mut info = json!({ "name": self.spec.name, "version": self.spec.version });
        if let (Some(title), Some(object)) = (&self.spec.title, info.as_object_mut()) {
            object.insert("title".into(), json!(title));
        }
        info
    }

    pub(crate) fn versions_list(&self) -> String {
        self.versions
            .iter()
            .map(|v| v.as_str())
            .collect::<Vec<_>>()
            .join(", ")
    }

    /// Applies a catalog edit and, when clients can see the difference, queues the
    /// listing's `list_changed` notification for every live session and every listen stream
    /// that opted in.
    pub(crate) fn edit(
        &self,
        listing: Listing,
        edit: impl FnOnce(&Catalog) -> Result<bool, Error>,
    ) -> Result<(), Error> {
        if edit(&self.catalog)? {
            self.sessions
                .broadcast(&jsonrpc::notification(listing.notification(), None));
            self.listeners.list_changed(listing);
        }
        Ok(())
    }
}

/// The router of one server: the MCP endpoint at `/mcp`, every exchange captured.
pub(crate) fn router(engine: Arc<Engine>) -> Router {
    router_at(engine, "/mcp")
}

/// The router of one server with its MCP endpoint at `path` (the app uses `/s/NAME/mcp`)
/// and its manifest beside it.
pub(crate) fn router_at(engine: Arc<Engine>, path: &str) -> Router {
    if let Some(oauth) = &engine.oauth {
        oauth.set_mount(path);
    }
    Router::new()
        .route(path, post(http::post).get(http::get).delete(http::delete))
        // The bearer-token check runs after the guard's Host check (layers wrap outwards).
        .route_layer(axum::middleware::from_fn_with_state(
            engine.clone(),
            oauth::guard,
        ))
        // Inside the capture layer, so the log records every exchange a guard refuses.
        .route_layer(axum::middleware::from_fn_with_state(
            engine.clone(),
            guard::mcp,
        ))
        .merge(manifest::routes(path))
        // OAuth endpoints and well-known documents, claimed before routing because their
        // paths follow the live configuration (an authorization-server migration moves them).
        .layer(axum::middleware::from_fn_with_state(
            engine.clone(),
            oauth::endpoints,
        ))
        .layer(axum::middleware::from_fn_with_state(
            engine.clone(),
            capture::exchange,
        ))
        .with_state(engine)
}
