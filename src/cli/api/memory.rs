//! `GET /memory`: what the app keeps in memory against its budgets (the log, every server's
//! sessions, the retained events and finished tasks they share), and what each evicted.
//!
//! Must not touch: the engines' state; it reads the figures the registry sums.

use std::sync::Arc;

use axum::Json;
use axum::extract::State;

use super::openapi::{Docs, Operation, Route, Verb};
use crate::cli::App;
use crate::engine::MemoryUse;

/// `GET /memory`, documented.
pub(crate) fn route(docs: &mut Docs) -> Route {
    Operation::new(
        Verb::Get,
        "/memory",
        "getMemory",
        "Get what the app keeps in memory against its budgets, with eviction counts.",
    )
    .describe(
        "Each part that grows with traffic, with its budget (the flags `--log-bytes`, \
         `--retained-event-bytes`, `--task-bytes`, `--max-sessions`, `--session-bytes`), what \
         it holds now, and how many items it evicted (oldest first) to stay within it. \
         Sessions are summed over the servers; their limits apply to each server.",
    )
    .reply(200, docs.schema::<MemoryUse>())
    .to(get)
}

async fn get(State(app): State<Arc<App>>) -> Json<MemoryUse> {
    Json(app.registry.memory())
}
