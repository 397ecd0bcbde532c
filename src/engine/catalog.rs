//! The live catalog of one server: tools (drafts included) and call counters. Each edit says
//! whether clients must hear `list_changed`; the engine broadcasts it. No HTTP, no log.

use std::collections::HashMap;
use std::sync::{Arc, Mutex, MutexGuard, RwLock, RwLockReadGuard, RwLockWriteGuard};

use super::validate;
use crate::error::Error;
use crate::spec::ToolSpec;

/// Whether an edit changed what clients can list.
pub(crate) type ListChanged = bool;

#[derive(Debug, Default)]
pub(crate) struct Catalog {
    tools: RwLock<Vec<Arc<ToolSpec>>>,
    calls: Mutex<HashMap<String, u64>>,
}

impl Catalog {
    pub(crate) fn new(tools: Vec<ToolSpec>) -> Self {
        Catalog {
            tools: RwLock::new(tools.into_iter().map(Arc::new).collect()),
            calls: Mutex::default(),
        }
    }

    fn read(&self) -> RwLockReadGuard<'_, Vec<Arc<ToolSpec>>> {
        self.tools.read().unwrap_or_else(|p| p.into_inner())
    }

    fn write(&self) -> RwLockWriteGuard<'_, Vec<Arc<ToolSpec>>> {
        self.tools.write().unwrap_or_else(|p| p.into_inner())
    }

    fn counts(&self) -> MutexGuard<'_, HashMap<String, u64>> {
        self.calls.lock().unwrap_or_else(|p| p.into_inner())
    }

    /// Published tools in listing order.
    pub(crate) fn published(&self) -> Vec<Arc<ToolSpec>> {
        self.read()
            .iter()
            .filter(|t| t.published)
            .cloned()
            .collect()
    }

    /// Every tool, drafts included.
    pub(crate) fn all(&self) -> Vec<ToolSpec> {
        self.read().iter().map(|t| (**t).clone()).collect()
    }

    /// A tool clients may call.
    pub(crate) fn callable(&self, name: &str) -> Option<Arc<ToolSpec>> {
        self.read()
            .iter()
            .find(|t| t.published && t.name == name)
            .cloned()
    }

    pub(crate) fn count_call(&self, name: &str) {
        *self.counts().entry(name.to_string()).or_default() += 1;
    }

    /// How many times `tools/call` reached `name` (whatever the outcome).
    pub(crate) fn calls(&self, name: &str) -> u64 {
        self.counts().get(name).copied().unwrap_or(0)
    }

    pub(crate) fn add(&self, tool: ToolSpec) -> Result<ListChanged, Error> {
        validate::tool(&tool)?;
        let mut tools = self.write();
        if tools.iter().any(|t| t.name == tool.name) {
            return Err(Error::DuplicateTool { name: tool.name });
        }
        let published = tool.published;
        tools.push(Arc::new(tool));
        Ok(published)
    }

    /// Replaces the tool of the same name, keeping its place in the listing.
    pub(crate) fn replace(&self, tool: ToolSpec) -> Result<ListChanged, Error> {
        validate::tool(&tool)?;
        let mut tools = self.write();
        let slot = position(&tools, &tool.name)?;
        let changed = tools[slot].published || tool.published;
        tools[slot] = Arc::new(tool);
        Ok(changed)
    }

    pub(crate) fn rename(&self, from: &str, to: &str) -> Result<ListChanged, Error> {
        validate::name(to)?;
        let mut tools = self.write();
        let slot = position(&tools, from)?;
        if from == to {
            return Ok(false);
        }
        if tools.iter().any(|t| t.name == to) {
            return Err(Error::DuplicateTool {
                name: to.to_string(),
            });
        }
        let mut renamed = (*tools[slot]).clone();
        renamed.name = to.to_string();
        let changed = renamed.published;
        tools[slot] = Arc::new(renamed);
        // The renamed tool keeps its history, so expectations follow it.
        let mut counts = self.counts();
        if let Some(before) = counts.remove(from) {
            *counts.entry(to.to_string()).or_default() += before;
        }
        Ok(changed)
    }

    pub(crate) fn set_published(&self, name: &str, published: bool) -> Result<ListChanged, Error> {
        let mut tools = self.write();
        let slot = position(&tools, name)?;
        if tools[slot].published == published {
            return Ok(false);
        }
        let mut edited = (*tools[slot]).clone();
        edited.published = published;
        tools[slot] = Arc::new(edited);
        Ok(true)
    }

    pub(crate) fn remove(&self, name: &str) -> Result<ListChanged, Error> {
        let mut tools = self.write();
        let slot = position(&tools, name)?;
        Ok(tools.remove(slot).published)
    }
}

fn position(tools: &[Arc<ToolSpec>], name: &str) -> Result<usize, Error> {
    tools
        .iter()
        .position(|t| t.name == name)
        .ok_or_else(|| Error::UnknownTool {
            name: name.to_string(),
        })
}

#[cfg(test)]
mod tests {
    use super::*;

    fn draft(name: &str) -> ToolSpec {
        ToolSpec {
            published: false,
            ..ToolSpec::new(name)
        }
    }

    #[test]
    fn only_edits_clients_can_see_change_the_list() {
        let catalog = Catalog::new(vec![ToolSpec::new("a")]);
        assert_eq!(catalog.add(draft("b")).ok(), Some(false), "adding a draft");
        assert_eq!(
            catalog.replace(draft("b")).ok(),
            Some(false),
            "editing a draft"
        );
        assert_eq!(
            catalog.rename("b", "c").ok(),
            Some(false),
            "renaming a draft"
        );
        assert_eq!(
            catalog.set_published("c", true).ok(),
            Some(true),
            "publishing"
        );
        assert_eq!(
            catalog.replace(ToolSpec::new("a")).ok(),
            Some(true),
            "editing a published tool"
        );
        assert_eq!(
            catalog.set_published("a", false).ok(),
            Some(true),
            "unpublishing"
        );
        assert_eq!(catalog.remove("a").ok(), Some(false), "deleting a draft");
        assert_eq!(
            catalog.remove("c").ok(),
            Some(true),
            "deleting a published tool"
        );
    }

    #[test]
    fn edits_name_the_tool_at_fault() {
        let catalog = Catalog::new(vec![ToolSpec::new("a"), ToolSpec::new("b")]);
        assert!(matches!(
            catalog.add(ToolSpec::new("a")),
            Err(Error::DuplicateTool { .. })
        ));
        assert!(matches!(
            catalog.rename("a", "b"),
            Err(Error::DuplicateTool { .. })
        ));
        assert!(matches!(
            catalog.remove("zzz"),
            Err(Error::UnknownTool { .. })
        ));
        assert!(matches!(
            catalog.rename("a", "bad name"),
            Err(Error::InvalidToolName { .. })
        ));
        assert_eq!(catalog.published().len(), 2);
    }
}
