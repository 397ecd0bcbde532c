//! The servers one app hosts, each an engine whose router answers at `/s/NAME/mcp` on the
//! shared MCP listener. Add, rename and remove work while the listener runs.

use std::collections::BTreeMap;
use std::net::SocketAddr;
use std::sync::atomic::{AtomicU64, Ordering};
use std::sync::{Arc, RwLock, RwLockReadGuard, RwLockWriteGuard};

use axum::Router;
use axum::extract::{Path, Request, State};
use axum::http::StatusCode;
use axum::response::{IntoResponse, Response};
use serde_json::json;

use crate::engine::{Endpoint, Engine, MemoryUse, Pools};
use crate::error::Error;
use crate::log::TrafficLog;
use crate::spec::{Limits, ServerSpec};

/// Servers one app hosts at most, so REST calls cannot grow it without bound.
const MAX_SERVERS: usize = 1_000;

/// One hosted server.
#[derive(Debug, Clone)]
pub(crate) struct Hosted {
    pub(crate) engine: Arc<Engine>,
    endpoint: Endpoint,
}

/// Every hosted server, by name, sharing one log.
#[derive(Debug)]
pub(crate) struct Registry {
    servers: RwLock<BTreeMap<String, Hosted>>,
    pub(crate) log: Arc<TrafficLog>,
    next_source: AtomicU64,
    /// Where the MCP listener binds: on loopback, every server checks `Host`.
    mcp_addr: SocketAddr,
    /// Every server's limits, from the app's flags.
    limits: Limits,
    /// The byte budgets all servers share, as they share the log.
    pools: Pools,
}

impl Registry {
    pub(crate) fn new(log: Arc<TrafficLog>, limits: Limits, mcp_addr: SocketAddr) -> Self {
        Registry {
            servers: RwLock::default(),
            log,
            next_source: AtomicU64::new(1),
            mcp_addr,
            limits,
            pools: Pools::new(limits.max_retained_event_bytes, limits.max_task_bytes),
        }
    }

    /// What the app keeps, against its budgets: the shared log and pools, and the sessions
    /// of every server.
    pub(crate) fn memory(&self) -> MemoryUse {
        let servers: Vec<Hosted> = self.read().values().cloned().collect();
        MemoryUse::of(
            &self.log,
            &self.pools,
            self.limits,
            servers.iter().map(|h| &*h.engine),
        )
    }

    fn read(&self) -> RwLockReadGuard<'_, BTreeMap<String, Hosted>> {
        self.servers.read().unwrap_or_else(|p| p.into_inner())
    }

    fn write(&self) -> RwLockWriteGuard<'_, BTreeMap<String, Hosted>> {
        self.servers.write().unwrap_or_else(|p| p.into_inner())
    }

    /// Builds and hosts a server; `source` keeps its log records when it is re-hosted.
    pub(crate) fn host(&self, spec: ServerSpec, source: Option<u64>) -> Result<Hosted, Error> {
        let name = spec.name.clone();
        checked_name(&name)?;
        let source = source.unwrap_or_else(|| self.next_source.fetch_add(1, Ordering::Relaxed));
        let engine = Engine::new(
            spec,
            self.limits,
            Vec::new(),
            self.log.clone(),
            self.pools.clone(),
            source,
        )?;
        engine.listening_on(self.mcp_addr);
        let endpoint = Endpoint::new(engine.clone(), &format!("/s/{name}/mcp"));
        let hosted = Hosted { engine, endpoint };
        let mut servers = self.write();
        if servers.len() >= MAX_SERVERS {
            return Err(Error::InvalidConfig {
                field: "servers",
                reason: format!("one app hosts at most {MAX_SERVERS} servers"),
            });
        }
        if servers.contains_key(&name) {
            return Err(Error::InvalidConfig {
                field: "name",
                reason: format!("a server named `{name}` already exists"),
            });
        }
        if let Some(conflict) = root_conflict(&servers, &name, &hosted.engine) {
            return Err(conflict);
        }
        servers.insert(name, hosted.clone());
        Ok(hosted)
    }

    pub(crate) fn get(&self, name: &str) -> Option<Hosted> {
        self.read().get(name).cloned()
    }

    /// Stops hosting a server, ends its sessions and drops its log records.
    pub(crate) fn remove(&self, name: &str) -> Option<Hosted> {
        let removed = self.write().remove(name)?;
        removed.engine.end();
        // Its records can no longer be read through the API; they must not hold log space.
        self.log.clear_from(removed.engine.source());
        Some(removed)
    }

    /// Replaces a server by one built from `spec` (a new name moves it), keeping its log;
    /// its sessions end, since their URL or identity changed.
    pub(crate) fn replace(&self, name: &str, spec: ServerSpec) -> Result<Hosted, Error> {
        let Some(old) = self.get(name) else {
            return Err(Error::InvalidConfig {
                field: "server",
                reason: format!("no server named `{name}`"),
            });
        };
        checked_name(&spec.name)?;
        if spec.name != name && self.get(&spec.name).is_some() {
            return Err(Error::InvalidConfig {
                field: "name",
                reason: format!("a server named `{}` already exists", spec.name),
            });
        }
        // Build first, so an invalid spec leaves the old server running.
        let source = old.engine.source();
        let engine = Engine::new(
            spec.clone(),
            self.limits,
            Vec::new(),
            self.log.clone(),
            self.pools.clone(),
            source,
        )?;
        engine.listening_on(self.mcp_addr);
        let endpoint = Endpoint::new(engine.clone(), &format!("/s/{}/mcp", spec.name));
        // The guide revokes tokens only when OAuth itself changes: a rebuild for anything
        // else keeps the clients and tokens. A new name starts afresh, since tokens are
        // bound to the old URL.
        if spec.name == name && spec.auth == old.engine.spec().auth {
            engine.take_oauth_state_from(&old.engine);
        }
        let hosted = Hosted { engine, endpoint };
        {
            let mut servers = self.write();
            if let Some(conflict) = root_conflict(&servers, name, &hosted.engine) {
                return Err(conflict);
            }
            servers.remove(name);
            servers.insert(spec.name.clone(), hosted.clone());
        }
        old.engine.end();
        Ok(hosted)
    }

    /// The hosted servers in name order.
    pub(crate) fn all(&self) -> Vec<(String, Hosted)> {
        self.read()
            .iter()
            .map(|(n, h)| (n.clone(), h.clone()))
            .collect()
    }

    /// The servers as plain data, for `servers.json`.
    pub(crate) fn specs(&self) -> Vec<ServerSpec> {
        self.read()
            .values()
            .map(|h| h.engine.current_spec())
            .collect()
    }
}

/// The name becomes a route path segment, which axum would refuse (with a panic) if it held
/// `{`, `*` or `/`; `check_server_name` allows none of them.
fn checked_name(name: &str) -> Result<(), Error> {
    super::config::check_server_name(name).map_err(|reason| Error::InvalidConfig {
        field: "name",
        reason,
    })
}

/// The MCP listener's router: `/s/{name}/mcp` and everything else under `/s/{name}/` (the
/// capability manifest, the OAuth endpoints `/s/{name}/oauth/...`) go to that server's
/// engine; so do the root-level documents OAuth discovery needs (RFC 9728 and RFC 8414 put
/// them at `/.well-known/...` followed by the server's path), routed by [`root`].
pub(crate) fn mcp_router(registry: Arc<Registry>) -> Router {
    Router::new()
        .route("/s/{name}/mcp", axum::routing::any(route))
        .route("/s/{name}/{*rest}", axum::routing::any(route_under))
        .fallback(root)
        .with_state(registry)
}

async fn route_under(
    State(registry): State<Arc<Registry>>,
    Path((name, _rest)): Path<(String, String)>,
    request: Request,
) -> Response {
    route(State(registry), Path(name), request).await
}

/// The root path (outside `/s/NAME/`) that `engine`'s OAuth settings would serve but another
/// server (any but `replacing`) already serves: root-level resource metadata or the
/// 2025-03-26 endpoints can belong to one server of the shared listener only.
fn root_conflict(
    servers: &BTreeMap<String, Hosted>,
    replacing: &str,
    engine: &Engine,
) -> Option<Error> {
    let wanted = engine.oauth()?.root_paths();
    servers
        .iter()
        .filter(|(name, _)| name.as_str() != replacing)
        .find_map(|(name, hosted)| {
            let taken = hosted.engine.oauth()?.root_paths();
            let path = wanted.iter().find(|p| taken.contains(p))?;
            Some(Error::InvalidConfig {
                field: "auth",
                reason: format!(
                    "`{path}` is already served by server `{name}`; root-level OAuth metadata and the 2025-03-26 endpoints can belong to one server of the listener only"
                ),
            })
        })
}

/// A request outside `/s/`: the well-known document of a server on OAuth, found by the
/// server name in its path (`/.well-known/oauth-protected-resource/s/NAME/mcp`), else by
/// the root paths each server on OAuth claims (settings such as root metadata or the
/// 2025-03-26 endpoints put some there); the first server in name order wins a tie.
async fn root(State(registry): State<Arc<Registry>>, request: Request) -> Response {
    let path = request.uri().path();
    let claims = |hosted: &Hosted| {
        hosted
            .engine
            .oauth()
            .is_some_and(|oauth| oauth.root_paths().iter().any(|p| p == path))
            || hosted.engine.relays_root(path)
    };
    let named = path
        .strip_prefix("/.well-known/")
        .and_then(|rest| rest.split_once("/s/"))
        .map(|(_, rest)| rest.split('/').next().unwrap_or(rest))
        .and_then(|name| registry.get(name))
        .filter(|hosted| claims(hosted));
    let owner = named.or_else(|| {
        registry
            .all()
            .into_iter()
            .map(|(_, hosted)| hosted)
            .find(|hosted| claims(hosted))
    });
    match owner {
        Some(hosted) => hosted.endpoint.handle(request).await,
        None => StatusCode::NOT_FOUND.into_response(),
    }
}

async fn route(
    State(registry): State<Arc<Registry>>,
    Path(name): Path<String>,
    request: Request,
) -> Response {
    match registry.get(&name) {
        Some(hosted) => hosted.endpoint.handle(request).await,
        None => (
            StatusCode::NOT_FOUND,
            axum::Json(json!({ "jsonrpc": "2.0", "error": { "code": -32001,
                "message": format!("no server named `{name}` is hosted here") } })),
        )
            .into_response(),
    }
}
