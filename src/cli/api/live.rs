//! The REST layer's one door into a running server's engine: every engine field the API
//! reads and every engine call it makes is in this file, so the engine can change its
//! insides behind these few functions without the handlers noticing.
//!
//! Owns: reading and editing a hosted server's catalog, sessions, OAuth tokens, guards and
//! log source. Must not touch: HTTP, status codes or REST rules (the handlers decide those),
//! and no other file of `src/cli/api` (they import this one, never the other way round).

use crate::cli::App;
use crate::cli::registry::Hosted;
use crate::engine::oauth::{AuthServer, TokenInfo};
use crate::engine::{Catalog, Engine, Listing, SessionInfo};
use crate::error::Error;
use crate::spec::{PromptSpec, ResourceSpec, ResourceTemplateSpec, ServerSpec, ToolSpec};

/// A kind of catalog item as the engine keeps it: its key, its shelf and its listing.
pub(crate) trait Shelved: Sized {
    /// The listing whose `list_changed` an edit sends.
    const LISTING: Listing;
    /// The unique key: a name, a URI or a URI template.
    fn key(&self) -> &str;
    /// Every item, drafts included, in listing order.
    fn all(catalog: &Catalog) -> Vec<Self>;
    fn add(catalog: &Catalog, item: Self) -> Result<bool, Error>;
    /// Puts `item` in the place of the item keyed `key` (a new key renames it).
    fn replace(catalog: &Catalog, key: &str, item: Self) -> Result<bool, Error>;
    fn remove(catalog: &Catalog, key: &str) -> Result<bool, Error>;
    /// Whether the server declared the capability that lists this kind.
    fn served(engine: &Engine) -> bool;
    /// Adds `item` to a server definition, for a rebuild.
    fn push(spec: &mut ServerSpec, item: Self);
}

/// Implements [`Shelved`] for a spec type from its catalog shelf, key field, listing,
/// capability check and `ServerSpec` list.
macro_rules! shelved {
    ($spec:ty, $shelf:ident, $key:ident, $listing:ident, $served:expr, $list:ident) => {
        impl Shelved for $spec {
            const LISTING: Listing = Listing::$listing;
            fn key(&self) -> &str {
                &self.$key
            }
            fn all(catalog: &Catalog) -> Vec<Self> {
                catalog.$shelf.all()
            }
            fn add(catalog: &Catalog, item: Self) -> Result<bool, Error> {
                catalog.$shelf.add(item)
            }
            fn replace(catalog: &Catalog, key: &str, item: Self) -> Result<bool, Error> {
                catalog.$shelf.modify(key, |old| *old = item)
            }
            fn remove(catalog: &Catalog, key: &str) -> Result<bool, Error> {
                catalog.$shelf.remove(key)
            }
            fn served(engine: &Engine) -> bool {
                ($served)(engine)
            }
            fn push(spec: &mut ServerSpec, item: Self) {
                spec.$list.push(item);
            }
        }
    };
}

// Every server declares `tools`; prompts and resources only when it started with some.
shelved!(ToolSpec, tools, name, Tools, |_: &Engine| true, tools);
shelved!(
    PromptSpec,
    prompts,
    name,
    Prompts,
    Engine::serves_prompts,
    prompts
);
shelved!(
    ResourceSpec,
    resources,
    uri,
    Resources,
    Engine::serves_resources,
    resources
);
shelved!(
    ResourceTemplateSpec,
    templates,
    uri_template,
    Resources,
    Engine::serves_resources,
    resource_templates
);

/// Every item of kind `K`, drafts included.
pub(crate) fn items<K: Shelved>(hosted: &Hosted) -> Vec<K> {
    K::all(&hosted.engine.catalog)
}

/// Adds an item live, or, on a server without the capability that lists it, rebuilds the
/// server with it (its sessions end, its logs stay) so reconnecting clients are told.
pub(crate) fn add<K: Shelved>(
    app: &App,
    server: &str,
    hosted: &Hosted,
    item: K,
) -> Result<(), Error> {
    if K::served(&hosted.engine) {
        return hosted.engine.edit(K::LISTING, |c| K::add(c, item));
    }
    let mut spec = hosted.engine.current_spec();
    K::push(&mut spec, item);
    app.registry.replace(server, spec).map(drop)
}

/// Replaces the item keyed `key`; clients hear `list_changed` when they can see it.
pub(crate) fn replace<K: Shelved>(hosted: &Hosted, key: &str, item: K) -> Result<(), Error> {
    hosted.engine.edit(K::LISTING, |c| K::replace(c, key, item))
}

pub(crate) fn remove<K: Shelved>(hosted: &Hosted, key: &str) -> Result<(), Error> {
    hosted.engine.edit(K::LISTING, |c| K::remove(c, key))
}

/// A renamed tool keeps its call count and its place in its response sequences, as the
/// fixture's `rename_tool` does.
pub(crate) fn tool_renamed(hosted: &Hosted, from: &str, to: &str) {
    hosted.engine.catalog.move_calls(from, to);
    crate::engine::responses::rename(&hosted.engine, from, to);
}

/// Tells the sessions subscribed to `uri` that it changed.
pub(crate) fn resource_changed(hosted: &Hosted, uri: &str) {
    hosted.engine.resource_updated(uri);
}

/// The definition the server was built from (without later catalog edits).
pub(crate) fn built_spec(hosted: &Hosted) -> &ServerSpec {
    &hosted.engine.spec
}

/// The server's definition now, catalog edits and API keys included.
pub(crate) fn current_spec(hosted: &Hosted) -> ServerSpec {
    hosted.engine.current_spec()
}

/// New API keys apply from the next request on; sessions stay.
pub(crate) fn set_api_keys(hosted: &Hosted, keys: Vec<String>) {
    hosted.engine.guard.set_api_keys(keys);
}

/// The problems of a definition's guards, named with the API's field names.
pub(crate) fn guard_problems(spec: &ServerSpec) -> Vec<(String, String)> {
    crate::engine::guard::spec_problems(spec, "apiKeys", "allowedHosts")
}

pub(crate) fn sessions(hosted: &Hosted) -> Vec<SessionInfo> {
    hosted.engine.sessions.list()
}

/// Ends a live session; whether there was one.
pub(crate) fn close_session(hosted: &Hosted, id: &str) -> bool {
    hosted.engine.sessions.remove(id)
}

/// The log source tagging the server's records; it survives a rename or a rebuild.
pub(crate) fn log_source(hosted: &Hosted) -> u64 {
    hosted.engine.source
}

fn oauth(hosted: &Hosted) -> Option<&AuthServer> {
    hosted.engine.oauth.as_ref()
}

/// The live tokens by the server's clock, or `None` when the server does not use OAuth.
pub(crate) fn tokens(hosted: &Hosted) -> Option<Vec<TokenInfo>> {
    oauth(hosted).map(|auth| auth.tokens(hosted.engine.clock.now()))
}

/// Revokes every token; `None` when the server does not use OAuth.
pub(crate) fn revoke_all_tokens(hosted: &Hosted) -> Option<usize> {
    oauth(hosted).map(|auth| auth.revoke_all(hosted.engine.clock.now()))
}

/// Revokes the live token `id`; whether it was live, `None` when the server does not use
/// OAuth. Only live tokens are listed, so only live ones can be revoked by id.
pub(crate) fn revoke_token(hosted: &Hosted, id: &str) -> Option<bool> {
    let auth = oauth(hosted)?;
    let live = auth
        .tokens(hosted.engine.clock.now())
        .iter()
        .any(|t| t.id == id);
    Some(live && auth.revoke(id))
}
