//! Every change the fixture and the app make to a running server, one rule each: catalog
//! edits generic over the four kinds (with tool renames and the first item of a kind),
//! fault rules (checked here), API keys, sessions, the clock, restart and stop.

use std::sync::atomic::Ordering;
use std::time::Duration;

use super::Engine;
use super::SessionInfo;
use super::oauth::AuthServer;
use super::state::catalog::{Kind, ListChanged};
use super::validate::faults::check_rule;
use crate::error::Error;
use crate::spec::{FaultRule, Listing};

impl Engine {
    /// Every item of a kind in listing order (tools: drafts included).
    pub(crate) fn items<T: Kind>(&self) -> Vec<T> {
        T::shelf(&self.catalog).all()
    }

    /// The item with this key, drafts included.
    pub(crate) fn item<T: Kind>(&self, key: &str) -> Option<T> {
        self.items::<T>().into_iter().find(|item| item.key() == key)
    }

    /// Adds an item. The first resource, resource template or prompt of a server that did
    /// not declare the capability declares it, and ends the live legacy sessions, whose
    /// clients were told the server had none (so reconnecting clients see it); otherwise
    /// clients hear `list_changed` when they can see the item.
    pub(crate) fn add<T: Kind>(&self, item: T) -> Result<(), Error> {
        let tasks = item.runs_tasks();
        let changed = T::shelf(&self.catalog).add(item)?;
        if self.declare(T::LISTING) | (tasks && self.declare_tasks()) {
            self.sessions.clear();
            return Ok(());
        }
        self.changed(T::LISTING, changed);
        Ok(())
    }

    /// Replaces the item with the same key, keeping its place.
    pub(crate) fn replace<T: Kind>(&self, item: T) -> Result<(), Error> {
        let tasks = item.runs_tasks();
        let changed = T::shelf(&self.catalog).replace(item)?;
        if tasks && self.declare_tasks() {
            self.sessions.clear();
            return Ok(());
        }
        self.changed(T::LISTING, changed);
        Ok(())
    }

    /// Changes the item with key `key` into `next`, which may have another key (a rename).
    /// A renamed tool keeps its call count and its place in its response sequences.
    #[cfg(feature = "decoy-cli")]
    pub(crate) fn update<T: Kind>(&self, key: &str, next: T) -> Result<(), Error> {
        let new_key = next.key().to_string();
        let tasks = next.runs_tasks();
        let changed = T::shelf(&self.catalog).modify(key, |item| *item = next)?;
        if tasks && self.declare_tasks() {
            self.sessions.clear();
        }
        if T::LISTING == Listing::Tools && new_key != key {
            self.catalog.move_calls(key, &new_key);
            self.responses.rename(key, &new_key);
        }
        self.changed(T::LISTING, changed);
        Ok(())
    }

    /// Deletes the item with this key.
    pub(crate) fn remove<T: Kind>(&self, key: &str) -> Result<(), Error> {
        let changed = T::shelf(&self.catalog).remove(key)?;
        self.changed(T::LISTING, changed);
        Ok(())
    }

    /// Renames a tool (see [`update`](Self::update)).
    pub(crate) fn rename_tool(&self, from: &str, to: &str) -> Result<(), Error> {
        let changed = self.catalog.rename_tool(from, to)?;
        if from != to {
            self.responses.rename(from, to);
        }
        self.changed(Listing::Tools, changed);
        Ok(())
    }

    /// Publishes a draft or turns a published tool back into one; clients hear of it only
    /// when the state changes.
    pub(crate) fn set_published(&self, tool: &str, published: bool) -> Result<(), Error> {
        let changed = self.catalog.set_published(tool, published)?;
        self.changed(Listing::Tools, changed);
        Ok(())
    }

    fn changed(&self, listing: Listing, changed: ListChanged) {
        if changed {
            self.notify_list_changed(listing);
        }
    }

    /// Declares tasks if the server did not (the first tool that runs as a task); whether it
    /// just did. Like a new kind of item, it ends the live legacy sessions, whose clients
    /// were told the server had no tasks.
    fn declare_tasks(&self) -> bool {
        !self.serves_tasks.swap(true, Ordering::AcqRel)
    }

    /// Declares the capability of `listing` if it was not; whether it just did.
    fn declare(&self, listing: Listing) -> bool {
        let flag = match listing {
            Listing::Tools => return false,
            Listing::Resources => &self.serves_resources,
            Listing::Prompts => &self.serves_prompts,
        };
        !flag.swap(true, Ordering::AcqRel)
    }

    /// How many times `tools/call` reached `tool` (whatever the outcome).
    pub(crate) fn call_count(&self, tool: &str) -> u64 {
        self.catalog.calls(tool)
    }

    /// How many calls response `index` of `tool` answered since the tool got its current
    /// responses.
    pub(crate) fn response_count(&self, tool: &str, index: usize) -> u64 {
        self.responses.count(tool, index)
    }

    /// Why `when` did not hold for a call's `args` (`None` when it holds), as the drop
    /// report explains a response that got fewer calls than expected.
    pub(crate) fn why_not(
        &self,
        when: &crate::spec::Matcher,
        args: &serde_json::Value,
    ) -> Option<String> {
        self.responses.why_not(when, args)
    }

    /// Starts a tool's response sequences over.
    pub(crate) fn reset_responses(&self, tool: &str) {
        self.responses.reset(tool);
    }

    /// Checks a fault rule and adds it after the others.
    pub(crate) fn add_fault(&self, rule: FaultRule) -> Result<(), Error> {
        check_rule(&rule)?;
        self.faults.add(rule)
    }

    /// Removes every server-level fault rule.
    pub(crate) fn clear_faults(&self) {
        self.faults.clear();
    }

    /// The server-level fault rules, in the order they are checked.
    pub(crate) fn fault_rules(&self) -> Vec<FaultRule> {
        self.faults.rules()
    }

    /// Accepts one more API key.
    pub(crate) fn add_api_key(&self, key: &str) -> Result<(), Error> {
        self.guard.add_api_key(key)
    }

    /// Stops accepting `key`; whether it was accepted.
    pub(crate) fn revoke_api_key(&self, key: &str) -> bool {
        self.guard.revoke_api_key(key)
    }

    /// Accepts exactly these keys from now on (the app's `PATCH`, already validated).
    #[cfg(feature = "decoy-cli")]
    pub(crate) fn set_api_keys(&self, keys: Vec<String>) {
        self.guard.set_api_keys(keys);
    }

    /// The API keys accepted now, in the order they were added.
    pub(crate) fn api_keys(&self) -> Vec<String> {
        self.guard.api_keys()
    }

    /// The live legacy sessions, oldest first.
    pub(crate) fn sessions(&self) -> Vec<SessionInfo> {
        self.sessions.list()
    }

    /// Ends a session as if it expired; whether it was live.
    pub(crate) fn close_session(&self, id: &str) -> bool {
        self.sessions.remove(id)
    }

    /// Moves the server's clock forward (session expiry, tokens, codes).
    pub(crate) fn advance_clock(&self, by: Duration) {
        self.clock.advance(by);
        // Tasks waiting on a delay (and `tasks/result` waiting on them) look again.
        self.tasks.poke();
    }

    /// Every task the server keeps, oldest first, as it stands now.
    pub(crate) fn tasks(&self) -> Vec<crate::engine::state::tasks::TaskInfo> {
        let now = self.now();
        self.tasks.all().iter().map(|task| task.info(now)).collect()
    }

    /// The server's clock, now.
    pub(crate) fn now(&self) -> std::time::SystemTime {
        self.clock.now()
    }

    /// The OAuth 2.1 state, when the server has `auth`.
    pub(crate) fn oauth(&self) -> Option<&AuthServer> {
        self.oauth.as_deref()
    }

    /// Ends every session and listen stream: the server stops serving (it was removed or
    /// replaced, its fixture dropped, or the process is stopping). Requests cut off from here
    /// on are recorded as ended by the server.
    pub(crate) fn end(&self) {
        self.stopping.store(true, Ordering::Release);
        self.sessions.clear();
        self.listeners.close();
    }

    /// Whether [`end`](Self::end) ran.
    pub(crate) fn is_stopping(&self) -> bool {
        self.stopping.load(Ordering::Acquire)
    }

    /// Forgets what a restart forgets: fault counters, session ages and OAuth state; listen
    /// streams are accepted again.
    pub(crate) fn reset_for_restart(&self) {
        self.stopping.store(false, Ordering::Release);
        self.faults.reset();
        self.tasks.clear();
        self.expiry.reset();
        self.listeners.reopen();
        if let Some(oauth) = &self.oauth {
            oauth.forget();
        }
        if let Some(player) = &self.replay {
            player.rewind();
        }
    }

    /// Takes over the OAuth clients and tokens of the engine this one replaces.
    #[cfg(feature = "decoy-cli")]
    pub(crate) fn take_oauth_state_from(&self, previous: &Engine) {
        if let (Some(new), Some(old)) = (&self.oauth, &previous.oauth) {
            new.take_state_from(old);
        }
    }
}
