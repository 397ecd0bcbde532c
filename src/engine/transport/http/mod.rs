//! The Streamable HTTP adapter, both eras on one endpoint: POST carries JSON-RPC ([`post`](mod@post)),
//! GET opens a legacy session's stream and DELETE ends the session ([`session`]). The adapter
//! owns everything HTTP: the exchange capture and body limit ([`capture`]), `Origin`,
//! `Content-Type` and `Accept` ([`checks`]), and turning the pipeline's outcome into a
//! response ([`render`], with event streams in [`sse`]). It never decides anything about a
//! message: that is the pipeline's.
//!
//! [`serve`] runs one engine alone on the shared fixture runtimes; [`router_at`] gives the
//! router the app nests under `/s/NAME/mcp`. Every listener, the fixture's and the app's two,
//! serves its connections through [`listener`]: header and idle timeouts, a connection cap.

pub(crate) mod capture;
pub(crate) mod checks;
pub(crate) mod listener;
pub(crate) mod post;
#[cfg(feature = "relay")]
pub(crate) mod relay;
pub(crate) mod render;
pub(crate) mod serve;
pub(crate) mod session;
pub(crate) mod sse;

use std::sync::{Arc, LazyLock};

use axum::Router;
use axum::http::HeaderMap;
use axum::http::request::Parts;
use axum::middleware::from_fn_with_state as with;
use axum::routing::post;

use crate::engine::Engine;
use crate::engine::capture::ExchangeId;
use crate::engine::methods::Principal;
use crate::engine::pipeline::Inbound;
use crate::engine::{guard, manifest, oauth};

/// No headers, for the checks of a request whose headers were moved into its [`Inbound`].
static EMPTY: LazyLock<HeaderMap> = LazyLock::new(HeaderMap::new);

/// What the pipeline gets to know of a request besides its body.
fn inbound(parts: Parts) -> Inbound {
    let accepts_stream = checks::accepts(&parts.headers, "text/event-stream");
    Inbound {
        exchange: parts.extensions.get::<ExchangeId>().copied(),
        transport: crate::log::Transport::Http,
        principal: parts.extensions.get::<Principal>().cloned(),
        headers: Some(parts.headers),
        accepts_stream,
        session: None,
    }
}

/// The router of one server: the MCP endpoint at `/mcp`, every exchange captured.
pub(crate) fn router(engine: Arc<Engine>) -> Router {
    router_at(engine, "/mcp")
}

/// The router of one server with its MCP endpoint at `path` (the app uses `/s/NAME/mcp`)
/// and its manifest beside it.
pub(crate) fn router_at(engine: Arc<Engine>, path: &str) -> Router {
    #[cfg(feature = "relay")]
    if let Some(relay) = &engine.relay {
        relay.set_mount(path);
        // One more responder behind the same guard and capture layers as a mock.
        return Router::new()
            .route(path, axum::routing::any(relay::forward::mcp))
            .route_layer(with(engine.clone(), guard::mcp))
            .fallback(relay::forward::other)
            .layer(with(engine.clone(), capture::exchange))
            .with_state(engine);
    }
    let mcp = Router::new().route(
        path,
        post(post::post).get(session::get).delete(session::delete),
    );
    // A server without OAuth skips both of its layers: an engine's `oauth` is fixed when it
    // is built, and every layer costs each request a boxed future.
    let Some(auth) = &engine.oauth else {
        return mcp
            // Inside the capture layer, so the log records every exchange a guard refuses.
            .route_layer(with(engine.clone(), guard::mcp))
            .merge(manifest::routes(path))
            .layer(with(engine.clone(), capture::exchange))
            .with_state(engine);
    };
    auth.set_mount(path);
    mcp
        // The bearer-token check runs after the guard's Host check (layers wrap outwards).
        .route_layer(with(engine.clone(), oauth::guard))
        .route_layer(with(engine.clone(), guard::mcp))
        .merge(manifest::routes(path))
        // OAuth endpoints and well-known documents, claimed before routing because their
        // paths follow the live configuration (an authorization-server migration moves them).
        .layer(with(engine.clone(), oauth::endpoints))
        .layer(with(engine.clone(), capture::exchange))
        .with_state(engine)
}
