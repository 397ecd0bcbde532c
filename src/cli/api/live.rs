//! The REST layer's one door into a running server's engine: every engine call the API
//! makes is in this file, through the engine's own methods, so the handlers never depend on
//! how the engine keeps its state.
//!
//! Owns: reading and editing a hosted server's catalog, sessions, OAuth tokens, guards and
//! log source, and the engine's checks that need no server (guards, templates). Must not touch: HTTP, status codes or REST rules (the handlers decide those),
//! and no other file of `src/cli/api` (they import this one, never the other way round).

use crate::cli::registry::Hosted;
use crate::engine::SessionInfo;
use crate::engine::TokenInfo;
use crate::error::Error;
use crate::spec::ServerSpec;

/// A kind of catalog item as the engine keeps it (tools, resources, resource templates,
/// prompts): its key, its shelf and its listing.
pub(crate) use crate::engine::Kind as Shelved;

/// Every item of kind `K`, drafts included.
pub(crate) fn items<K: Shelved>(hosted: &Hosted) -> Vec<K> {
    hosted.engine.items::<K>()
}

/// Adds an item live. The first prompt, resource or template of a server that did not
/// declare the capability declares it and ends the server's sessions (the engine's rule).
pub(crate) fn add<K: Shelved>(hosted: &Hosted, item: K) -> Result<(), Error> {
    hosted.engine.add(item)
}

/// Puts `item` in the place of the item keyed `key` (a new key renames it; a renamed tool
/// keeps its call count and its place in its response sequences).
pub(crate) fn replace<K: Shelved>(hosted: &Hosted, key: &str, item: K) -> Result<(), Error> {
    hosted.engine.update(key, item)
}

pub(crate) fn remove<K: Shelved>(hosted: &Hosted, key: &str) -> Result<(), Error> {
    hosted.engine.remove::<K>(key)
}

/// Tells the sessions subscribed to `uri` that it changed.
pub(crate) fn resource_changed(hosted: &Hosted, uri: &str) {
    hosted.engine.resource_updated(uri);
}

/// The definition the server was built from (without later catalog edits).
pub(crate) fn built_spec(hosted: &Hosted) -> &ServerSpec {
    hosted.engine.spec()
}

/// The server's definition now, catalog edits and API keys included.
pub(crate) fn current_spec(hosted: &Hosted) -> ServerSpec {
    hosted.engine.current_spec()
}

/// New API keys apply from the next request on; sessions stay.
pub(crate) fn set_api_keys(hosted: &Hosted, keys: Vec<String>) {
    hosted.engine.set_api_keys(keys);
}

/// The problems of a definition's guards, named with the API's field names.
pub(crate) fn guard_problems(spec: &ServerSpec) -> Vec<(String, String)> {
    crate::engine::guard_problems(spec, "apiKeys", "allowedHosts")
}

pub(crate) fn sessions(hosted: &Hosted) -> Vec<SessionInfo> {
    hosted.engine.sessions()
}

/// The server's tasks, oldest first.
pub(crate) fn tasks(hosted: &Hosted) -> Vec<crate::TaskInfo> {
    hosted.engine.tasks()
}

/// Moves the server's clock forward; the server's time after it.
pub(crate) fn advance_clock(hosted: &Hosted, by: std::time::Duration) -> std::time::SystemTime {
    hosted.engine.advance_clock(by);
    hosted.engine.now()
}

/// Ends a live session; whether there was one.
pub(crate) fn close_session(hosted: &Hosted, id: &str) -> bool {
    hosted.engine.close_session(id)
}

/// The log source tagging the server's records; it survives a rename or a rebuild.
pub(crate) fn log_source(hosted: &Hosted) -> u64 {
    hosted.engine.source()
}

/// The live tokens by the server's clock, or `None` when the server does not use OAuth.
pub(crate) fn tokens(hosted: &Hosted) -> Option<Vec<TokenInfo>> {
    let engine = &hosted.engine;
    engine.oauth().map(|auth| auth.tokens(engine.now()))
}

/// Revokes every token; `None` when the server does not use OAuth.
pub(crate) fn revoke_all_tokens(hosted: &Hosted) -> Option<usize> {
    let engine = &hosted.engine;
    engine.oauth().map(|auth| auth.revoke_all(engine.now()))
}

/// Revokes the live token `id`; whether it was live, `None` when the server does not use
/// OAuth. Only live tokens are listed, so only live ones can be revoked by id.
pub(crate) fn revoke_token(hosted: &Hosted, id: &str) -> Option<bool> {
    let engine = &hosted.engine;
    let auth = engine.oauth()?;
    let live = auth.tokens(engine.now()).iter().any(|t| t.id == id);
    Some(live && auth.revoke(id))
}

/// Whose template a check is for; each renders with its own names.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub(crate) enum TemplateOwner {
    /// `args` and `answers` (a script's answers).
    Tool,
    /// `args`.
    Prompt,
    /// `uri` and `vars`.
    ResourceTemplate,
}

/// What saving an item with this template would refuse: the engine's check of errors that no
/// arguments can fix (syntax, unknown operators or names, limits an empty render exceeds),
/// the same check `validate/items.rs` runs on create and update; `None` when it passes.
pub(crate) fn template_problem(
    owner: TemplateOwner,
    template: &serde_json::Value,
) -> Option<String> {
    use serde_json::json;
    match owner {
        TemplateOwner::Tool => crate::engine::check_template(template),
        // The contexts `validate/items.rs` checks prompts and resource templates with.
        TemplateOwner::Prompt => {
            crate::engine::check_template_with(template, &json!({ "args": {} }))
        }
        TemplateOwner::ResourceTemplate => {
            crate::engine::check_template_with(template, &json!({ "uri": "", "vars": {} }))
        }
    }
    .err()
}
