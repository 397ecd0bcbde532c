//! The live catalog of one server: tools (drafts included), resources, resource templates,
//! prompts, and call counters. Each edit says whether clients must hear `list_changed`; the
//! engine's edits broadcast it. No transport, no log.

use std::collections::HashMap;
use std::sync::{Arc, Mutex, MutexGuard, RwLock, RwLockReadGuard, RwLockWriteGuard};

pub(crate) use crate::engine::validate::items::{Item, MAX_ITEMS};
use crate::error::Error;
use crate::spec::{Listing, PromptSpec, ResourceSpec, ResourceTemplateSpec, ToolSpec};

/// Whether an edit changed what clients can list.
pub(crate) type ListChanged = bool;

/// The items of one kind, in listing order.
#[derive(Debug)]
pub(crate) struct Shelf<T> {
    items: RwLock<Vec<Arc<T>>>,
}

impl<T: Kind> Shelf<T> {
    fn new(items: Vec<Arc<T>>) -> Self {
        // Not `collect()`: it would keep the buffer of `items` and its spare capacity for
        // the server's life.
        let mut shelved = Vec::with_capacity(items.len());
        shelved.extend(items.into_iter().map(T::stocked));
        Shelf {
            items: RwLock::new(shelved),
        }
    }
}

impl<T: Item> Shelf<T> {
    fn read(&self) -> RwLockReadGuard<'_, Vec<Arc<T>>> {
        self.items.read().unwrap_or_else(|p| p.into_inner())
    }

    fn write(&self) -> RwLockWriteGuard<'_, Vec<Arc<T>>> {
        self.items.write().unwrap_or_else(|p| p.into_inner())
    }

    /// The items clients can see, in listing order.
    pub(crate) fn visible(&self) -> Vec<Arc<T>> {
        self.read()
            .iter()
            .filter(|t| t.visible())
            .cloned()
            .collect()
    }

    /// Every item, drafts included.
    pub(crate) fn all(&self) -> Vec<T> {
        self.read().iter().map(|t| (**t).clone()).collect()
    }

    /// The visible item with this key.
    pub(crate) fn get(&self, key: &str) -> Option<Arc<T>> {
        self.read()
            .iter()
            .find(|t| t.visible() && t.key() == key)
            .cloned()
    }

    pub(crate) fn add(&self, item: T) -> Result<ListChanged, Error> {
        item.check()?;
        let mut items = self.write();
        if items.len() >= MAX_ITEMS {
            return Err(Error::InvalidConfig {
                field: "catalog",
                reason: format!(
                    "a server holds at most {MAX_ITEMS} items of each kind ({})",
                    T::KIND
                ),
            });
        }
        if items.iter().any(|t| t.key() == item.key()) {
            return Err(duplicate::<T>(item.key()));
        }
        let visible = item.visible();
        items.push(Arc::new(item));
        Ok(visible)
    }

    /// Replaces the item with the same key, keeping its place in the listing.
    pub(crate) fn replace(&self, item: T) -> Result<ListChanged, Error> {
        item.check()?;
        let mut items = self.write();
        let slot = position(&items, item.key())?;
        let changed = items[slot].visible() || item.visible();
        items[slot] = Arc::new(item);
        Ok(changed)
    }

    /// Changes an item in place (renames included); the result is checked like a new item.
    pub(crate) fn modify(
        &self,
        key: &str,
        change: impl FnOnce(&mut T),
    ) -> Result<ListChanged, Error> {
        let mut items = self.write();
        let slot = position(&items, key)?;
        let mut edited = (*items[slot]).clone();
        change(&mut edited);
        if edited.key() != key && items.iter().any(|t| t.key() == edited.key()) {
            return Err(duplicate::<T>(edited.key()));
        }
        edited.check()?;
        let changed = items[slot].visible() || edited.visible();
        items[slot] = Arc::new(edited);
        Ok(changed)
    }

    pub(crate) fn remove(&self, key: &str) -> Result<ListChanged, Error> {
        let mut items = self.write();
        let slot = position(&items, key)?;
        Ok(items.remove(slot).visible())
    }
}

fn position<T: Item>(items: &[Arc<T>], key: &str) -> Result<usize, Error> {
    items
        .iter()
        .position(|t| t.key() == key)
        .ok_or_else(|| Error::Unknown {
            kind: T::KIND,
            name: key.to_string(),
        })
}

fn duplicate<T: Item>(key: &str) -> Error {
    Error::Duplicate {
        kind: T::KIND,
        name: key.to_string(),
    }
}

/// A kind of catalog item, with its shelf and the listing whose `list_changed` its edits
/// send: what lets one generic edit serve tools, resources, resource templates and prompts.
pub(crate) trait Kind: Item + PartialEq + Send + Sync + 'static {
    const LISTING: Listing;
    fn shelf(catalog: &Catalog) -> &Shelf<Self>;
    /// Whether the item can run as a task (only tools can), which declares tasks.
    fn runs_tasks(&self) -> bool {
        false
    }
    /// The item as a server starts with it; tools are shared with the other servers of
    /// the process that hold an equal one ([`shared`](super::shared)).
    fn stocked(item: Arc<Self>) -> Arc<Self> {
        item
    }
}

/// `impl Kind` for a spec type: its listing and its shelf of the catalog (and, for tools,
/// whether one runs as a task and how a starting server shares it).
macro_rules! kind {
    ($spec:ty, $listing:ident, $shelf:ident $(, tasks: $tasks:ident)? $(, stocked: $stocked:path)?) => {
        impl Kind for $spec {
            const LISTING: Listing = Listing::$listing;
            fn shelf(catalog: &Catalog) -> &Shelf<Self> {
                &catalog.$shelf
            }
            $(fn runs_tasks(&self) -> bool {
                self.$tasks()
            })?
            $(fn stocked(item: Arc<Self>) -> Arc<Self> {
                $stocked(item)
            })?
        }
    };
}

kind!(ToolSpec, Tools, tools, tasks: has_tasks, stocked: super::shared::tool);
kind!(ResourceSpec, Resources, resources);
kind!(ResourceTemplateSpec, Resources, templates);
kind!(PromptSpec, Prompts, prompts);

/// Everything one server offers.
#[derive(Debug)]
pub(crate) struct Catalog {
    pub(crate) tools: Shelf<ToolSpec>,
    pub(crate) resources: Shelf<ResourceSpec>,
    pub(crate) templates: Shelf<ResourceTemplateSpec>,
    pub(crate) prompts: Shelf<PromptSpec>,
    calls: Mutex<HashMap<String, u64>>,
}

impl Catalog {
    pub(crate) fn new(
        tools: Vec<Arc<ToolSpec>>,
        resources: Vec<ResourceSpec>,
        templates: Vec<ResourceTemplateSpec>,
        prompts: Vec<PromptSpec>,
    ) -> Self {
        fn shared<T>(items: Vec<T>) -> Vec<Arc<T>> {
            items.into_iter().map(Arc::new).collect()
        }
        Catalog {
            tools: Shelf::new(tools),
            resources: Shelf::new(shared(resources)),
            templates: Shelf::new(shared(templates)),
            prompts: Shelf::new(shared(prompts)),
            calls: Mutex::default(),
        }
    }

    fn counts(&self) -> MutexGuard<'_, HashMap<String, u64>> {
        self.calls.lock().unwrap_or_else(|p| p.into_inner())
    }

    pub(crate) fn count_call(&self, tool: &str) {
        *self.counts().entry(tool.to_string()).or_default() += 1;
    }

    /// How many times `tools/call` reached `tool` (whatever the outcome).
    pub(crate) fn calls(&self, tool: &str) -> u64 {
        self.counts().get(tool).copied().unwrap_or(0)
    }

    /// Renames a tool; its call count moves with it, so expectations follow the tool.
    pub(crate) fn rename_tool(&self, from: &str, to: &str) -> Result<ListChanged, Error> {
        if from == to {
            return self.tools.modify(from, |_| {}).map(|_| false);
        }
        let changed = self.tools.modify(from, |t| t.name = to.to_string())?;
        self.move_calls(from, to);
        Ok(changed)
    }

    /// Moves a renamed tool's call count to its new name.
    pub(crate) fn move_calls(&self, from: &str, to: &str) {
        let mut counts = self.counts();
        if let Some(before) = counts.remove(from) {
            *counts.entry(to.to_string()).or_default() += before;
        }
    }

    pub(crate) fn set_published(&self, tool: &str, published: bool) -> Result<ListChanged, Error> {
        let was = self
            .tools
            .all()
            .into_iter()
            .find(|t| t.name == tool)
            .map(|t| t.published);
        let changed = self.tools.modify(tool, |t| t.published = published)?;
        Ok(changed && was != Some(published))
    }
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

    fn catalog(tools: Vec<ToolSpec>) -> Catalog {
        let tools = tools.into_iter().map(Arc::new).collect();
        Catalog::new(tools, Vec::new(), Vec::new(), Vec::new())
    }

    #[test]
    fn only_edits_clients_can_see_change_the_list() {
        let c = catalog(vec![ToolSpec::new("a")]);
        assert_eq!(c.tools.add(draft("b")).ok(), Some(false), "adding a draft");
        assert_eq!(
            c.tools.replace(draft("b")).ok(),
            Some(false),
            "editing a draft"
        );
        assert_eq!(
            c.rename_tool("b", "c").ok(),
            Some(false),
            "renaming a draft"
        );
        assert_eq!(c.set_published("c", true).ok(), Some(true), "publishing");
        assert_eq!(
            c.set_published("c", true).ok(),
            Some(false),
            "publishing twice"
        );
        assert_eq!(
            c.tools.replace(ToolSpec::new("a")).ok(),
            Some(true),
            "editing a published tool"
        );
        assert_eq!(c.set_published("a", false).ok(), Some(true), "unpublishing");
        assert_eq!(c.tools.remove("a").ok(), Some(false), "deleting a draft");
        assert_eq!(
            c.tools.remove("c").ok(),
            Some(true),
            "deleting a published tool"
        );
    }

    #[test]
    fn a_full_shelf_refuses_one_more_item_naming_the_limit() {
        let shelf = Shelf::new(
            (0..MAX_ITEMS)
                .map(|n| Arc::new(ToolSpec::new(format!("t{n}"))))
                .collect(),
        );
        let error = shelf.add(ToolSpec::new("one_more")).expect_err("full");
        assert!(error.to_string().contains("at most 10000"), "{error}");
        assert_eq!(shelf.all().len(), MAX_ITEMS);
    }

    #[test]
    fn edits_name_the_tool_at_fault() {
        let c = catalog(vec![ToolSpec::new("a"), ToolSpec::new("b")]);
        assert!(matches!(
            c.tools.add(ToolSpec::new("a")),
            Err(Error::Duplicate { .. })
        ));
        assert!(matches!(
            c.rename_tool("a", "b"),
            Err(Error::Duplicate { .. })
        ));
        assert!(matches!(c.tools.remove("zzz"), Err(Error::Unknown { .. })));
        assert!(matches!(
            c.rename_tool("a", "bad name"),
            Err(Error::InvalidToolName { .. })
        ));
        assert_eq!(c.tools.visible().len(), 2);
    }
}
