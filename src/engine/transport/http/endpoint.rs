//! One server's HTTP surface as a plain function of the request: the MCP endpoint, the
//! manifest beside it, the OAuth endpoints, and a relay's forwarding, each behind the
//! capture and the guards that apply to it.
//!
//! A server has two or three fixed paths, so they are matched by hand, not by an axum
//! `Router`: building and dropping one would cost a fixture more than the rest of its start,
//! and each middleware layer would box a future per request (benches/README.md, "Start-up
//! and memory").

use std::sync::Arc;

use axum::body::Body;
use axum::extract::{Request, State};
use axum::http::{HeaderValue, Method, StatusCode, header};
use axum::response::{IntoResponse, Response};

use super::capture::{self, Captured};
use super::{post, session};
use crate::engine::{Engine, guard, manifest, oauth};

/// The endpoint of one server, mounted at a path (`/mcp`, or `/s/NAME/mcp` in the app).
#[derive(Debug, Clone)]
pub(crate) struct Endpoint(Arc<Mounted>);

#[derive(Debug)]
struct Mounted {
    engine: Arc<Engine>,
    path: String,
    manifest: String,
}

/// What the MCP endpoint serves, as axum's method router would list it in `Allow`.
const MCP_METHODS: &str = "POST,GET,HEAD,DELETE";
/// What the manifest path serves.
const MANIFEST_METHODS: &str = "GET,HEAD";

impl Endpoint {
    /// Mounts `engine` with its MCP endpoint at `path`; its OAuth endpoints and a relay's
    /// legs are placed relative to it.
    pub(crate) fn new(engine: Arc<Engine>, path: &str) -> Endpoint {
        #[cfg(feature = "relay")]
        if let Some(relay) = &engine.relay {
            relay.set_mount(path);
        }
        if let Some(auth) = &engine.oauth {
            auth.set_mount(path);
        }
        Endpoint(Arc::new(Mounted {
            manifest: manifest::path_for(path),
            path: path.to_string(),
            engine,
        }))
    }

    /// Answers one request; every exchange but a preflight is captured.
    pub(crate) async fn handle(&self, request: Request) -> Response {
        let Mounted { engine, .. } = &*self.0;
        capture::exchange(engine, request, |request, captured| {
            self.route(request, captured)
        })
        .await
    }

    async fn route(&self, request: Request, captured: Captured) -> Response {
        let Mounted {
            engine,
            path,
            manifest,
        } = &*self.0;
        #[cfg(feature = "relay")]
        if engine.relay.is_some() {
            use super::relay::forward;
            if request.uri().path() == path {
                return guard::mcp(engine, request, |request| {
                    forward::mcp(State(engine.clone()), request, captured.exchange)
                })
                .await;
            }
            return forward::other(State(engine.clone()), request, captured.exchange).await;
        }
        // OAuth endpoints and well-known documents are claimed before the paths below,
        // since theirs follow the live configuration (an authorization-server migration
        // moves them).
        let request = match oauth::endpoints(engine, request).await {
            Ok(answered) => return answered,
            Err(request) => request,
        };
        if request.uri().path() == path {
            // The bearer-token check runs after the guard's Host check; a server without
            // OAuth skips it.
            return guard::mcp(engine, request, |request| async move {
                if engine.oauth.is_none() {
                    return mcp(engine, request, captured).await;
                }
                // Boxed, so that servers without OAuth do not carry its state in every
                // request's future.
                Box::pin(oauth::guard(engine, request, |request| {
                    mcp(engine, request, captured)
                }))
                .await
            })
            .await;
        }
        if request.uri().path() == manifest {
            return match *request.method() {
                Method::GET | Method::HEAD => manifest::serve(engine, path, &request),
                _ => not_allowed(MANIFEST_METHODS),
            };
        }
        StatusCode::NOT_FOUND.into_response()
    }
}

/// The MCP endpoint by method: POST carries messages, GET opens a session's stream,
/// DELETE ends the session.
async fn mcp(engine: &Arc<Engine>, request: Request, captured: Captured) -> Response {
    match *request.method() {
        Method::POST => post::post(State(engine.clone()), request, captured).await,
        Method::GET | Method::HEAD => session::get(State(engine.clone()), request, captured).await,
        Method::DELETE => session::delete(State(engine.clone()), request, captured).await,
        _ => not_allowed(MCP_METHODS),
    }
}

fn not_allowed(methods: &'static str) -> Response {
    let mut response = Response::new(Body::empty());
    *response.status_mut() = StatusCode::METHOD_NOT_ALLOWED;
    response
        .headers_mut()
        .insert(header::ALLOW, HeaderValue::from_static(methods));
    response
}
