//! `/servers/{server}/sessions`: the live MCP sessions of a server, and closing one (its
//! client's next request gets `404`, as the transport says of an ended session).
//!
//! Must not touch: engine fields (sessions are read and closed through `live.rs`).

use std::sync::Arc;

use axum::Json;
use axum::extract::{Path, State};
use axum::http::StatusCode;
use chrono::{DateTime, Utc};
use serde::{Deserialize, Serialize};
use serde_json::Value;

use super::ApiError;
use super::live;
use super::openapi::{Docs, Operation, Route, Verb};
use super::support::hosted;
use crate::SessionInfo;
use crate::cli::App;
use crate::spec::ProtocolVersion;

/// One live session.
#[derive(Debug, Serialize, Deserialize, schemars::JsonSchema)]
#[serde(rename_all = "camelCase")]
pub(crate) struct Session {
    /// The `Mcp-Session-Id`.
    pub(crate) id: String,
    /// `clientInfo.name` from `initialize`.
    pub(crate) client_name: Option<String>,
    /// `clientInfo.version` from `initialize`.
    pub(crate) client_version: Option<String>,
    /// The negotiated revision.
    pub(crate) protocol_version: ProtocolVersion,
    /// `legacy`: a session opened by `initialize` (revisions up to 2025-11-25).
    pub(crate) era: String,
    /// Whether `notifications/initialized` arrived.
    pub(crate) initialized: bool,
    /// Whether the client holds a GET stream open for server messages (always, for stdio).
    pub(crate) stream_open: bool,
    /// What carries the session: `http`, or `stdio` for a process that
    /// `mcp-decoy stdio NAME` attached to the app.
    pub(crate) transport: String,
    /// When `initialize` was answered (RFC 3339).
    #[schemars(with = "String")]
    pub(crate) created_at: DateTime<Utc>,
    /// `capabilities` from `initialize`.
    pub(crate) client_capabilities: Value,
}

impl From<SessionInfo> for Session {
    fn from(info: SessionInfo) -> Self {
        Session {
            id: info.id,
            client_name: info.client_name,
            client_version: info.client_version,
            protocol_version: info.protocol_version,
            era: "legacy".into(),
            initialized: info.initialized,
            stream_open: info.stream_open,
            transport: info.transport.as_str().into(),
            created_at: info.created_at,
            client_capabilities: info.client_capabilities,
        }
    }
}

pub(crate) fn routes(docs: &mut Docs) -> Vec<Route> {
    vec![
        Operation::new(
            Verb::Get,
            "/servers/{server}/sessions",
            "listSessions",
            "List live sessions.",
        )
        .reply(200, docs.schema::<Vec<Session>>())
        .errors(&[404])
        .to(list),
        Operation::new(
            Verb::Delete,
            "/servers/{server}/sessions/{session}",
            "closeSession",
            "Close a session.",
        )
        .describe("The session's streams end, and its client's next request gets `404`.")
        .no_content()
        .errors(&[404])
        .to(close),
    ]
}

async fn list(
    State(app): State<Arc<App>>,
    Path(server): Path<String>,
) -> Result<Json<Vec<Session>>, ApiError> {
    let hosted = hosted(&app, &server)?;
    Ok(Json(
        live::sessions(&hosted)
            .into_iter()
            .map(Session::from)
            .collect(),
    ))
}

async fn close(
    State(app): State<Arc<App>>,
    Path((server, session)): Path<(String, String)>,
) -> Result<StatusCode, ApiError> {
    if live::close_session(&hosted(&app, &server)?, &session) {
        Ok(StatusCode::NO_CONTENT)
    } else {
        Err(
            ApiError::not_found(format!("server `{server}` has no live session `{session}`"))
                .field("session"),
        )
    }
}
