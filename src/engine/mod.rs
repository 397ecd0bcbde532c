//! Runs one decoy server from a [`ServerSpec`]: the transport, the methods, the live catalog,
//! sessions and capture. The fixture and the app both drive it; it never knows which.
//!
//! [`router`] gives the axum router of one server (the app nests many); [`spawn`] serves one
//! alone on its own thread and runtime.

mod capture;
mod catalog;
mod dispatch;
mod era;
mod http;
mod jsonrpc;
mod methods;
mod runtime;
mod schema;
mod session;
mod template;
pub(crate) mod validate;

use std::sync::Arc;

use axum::Router;
use axum::routing::post;
use serde_json::{Value, json};

pub(crate) use catalog::Catalog;
pub(crate) use runtime::{Running, spawn};
pub use session::SessionInfo;
pub(crate) use session::Sessions;

use crate::error::Error;
use crate::log::TrafficLog;
use crate::spec::{Limits, ProtocolVersion, ServerSpec};

/// One running server's state, shared by its handlers.
#[derive(Debug)]
pub(crate) struct Engine {
    /// Identity and behaviour; `tools` is empty here, the catalog owns them.
    pub(crate) spec: ServerSpec,
    /// Served revisions, newest first.
    pub(crate) versions: Vec<ProtocolVersion>,
    pub(crate) limits: Limits,
    pub(crate) allowed_origins: Vec<String>,
    pub(crate) catalog: Catalog,
    pub(crate) sessions: Sessions,
    pub(crate) log: Arc<TrafficLog>,
}

impl Engine {
    /// Validates `spec` and builds the engine; the log may be shared (the app keeps one
    /// global limit across servers).
    pub(crate) fn new(
        mut spec: ServerSpec,
        limits: Limits,
        allowed_origins: Vec<String>,
        log: Arc<TrafficLog>,
    ) -> Result<Arc<Engine>, Error> {
        validate::server(&spec)?;
        if limits.max_body_bytes == 0 {
            return Err(Error::InvalidConfig {
                field: "max_body_bytes",
                reason: "must be at least 1".into(),
            });
        }
        let versions = spec.versions_newest_first();
        let tools = std::mem::take(&mut spec.tools);
        Ok(Arc::new(Engine {
            spec,
            versions,
            sessions: Sessions::new(limits.max_sessions, limits.max_queued_messages),
            limits,
            allowed_origins,
            catalog: Catalog::new(tools),
            log,
        }))
    }

    /// `capabilities` of the `initialize` result: what the configuration serves.
    pub(crate) fn capabilities(&self) -> Value {
        json!({ "tools": { "listChanged": true } })
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

    /// Applies a catalog edit and, when clients can see the difference, queues
    /// `notifications/tools/list_changed` for every live session.
    pub(crate) fn edit_tools(
        &self,
        edit: impl FnOnce(&Catalog) -> Result<bool, Error>,
    ) -> Result<(), Error> {
        if edit(&self.catalog)? {
            self.sessions.broadcast(&jsonrpc::notification(
                "notifications/tools/list_changed",
                None,
            ));
        }
        Ok(())
    }
}

/// The router of one server: the MCP endpoint at `/mcp`, every exchange captured.
pub(crate) fn router(engine: Arc<Engine>) -> Router {
    Router::new()
        .route("/mcp", post(http::post).get(http::get).delete(http::delete))
        .layer(axum::middleware::from_fn_with_state(
            engine.clone(),
            capture::exchange,
        ))
        .with_state(engine)
}
