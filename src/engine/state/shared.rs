//! Tool specs shared by the servers of one process: a test suite starts the same tools in
//! test after test (most often `Tool::echo()`), and each server kept its own deep copy, the
//! largest part of an idle fixture's memory (about 2.7 KiB for `echo`; benches/README.md,
//! "Start-up and memory"). A server starting with a tool equal to one a live server already
//! holds takes that one's `Arc` instead. Specs in a catalog are never changed in place (an
//! edit replaces the `Arc`), so sharing one cannot leak an edit from one server to another.

use std::collections::HashMap;
use std::sync::{Arc, LazyLock, Mutex, Weak};

use crate::spec::ToolSpec;

/// Names remembered before the table starts over, so a suite of many distinct tools keeps
/// it small; a forgotten name only means one more copy.
const MAX_SHARED: usize = 256;

static SHARED: LazyLock<Mutex<HashMap<String, Weak<ToolSpec>>>> = LazyLock::new(Mutex::default);

/// `tool` in an `Arc`: a live server's equal copy when there is one, else its own, which
/// later servers may then share.
pub(crate) fn tool(tool: ToolSpec) -> Arc<ToolSpec> {
    let mut shared = SHARED.lock().unwrap_or_else(|p| p.into_inner());
    if let Some(live) = shared.get(&tool.name).and_then(Weak::upgrade) {
        if *live == tool {
            return live;
        }
    }
    if shared.len() >= MAX_SHARED {
        shared.retain(|_, spec| spec.strong_count() > 0);
        if shared.len() >= MAX_SHARED {
            shared.clear();
        }
    }
    let tool = Arc::new(tool);
    shared.insert(tool.name.clone(), Arc::downgrade(&tool));
    tool
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn equal_tools_share_one_copy_and_a_different_one_gets_its_own() {
        let mut spec = ToolSpec::echo();
        spec.name = "shared_equal_tools_test".into();
        let first = tool(spec.clone());
        let second = tool(spec.clone());
        assert!(Arc::ptr_eq(&first, &second));
        let mut other = spec.clone();
        other.description = Some("another".into());
        let third = tool(other);
        assert!(!Arc::ptr_eq(&first, &third));
        assert_eq!(third.description.as_deref(), Some("another"));
        // The table holds no server's spec alive: once no server holds it, it is freed.
        let remembered = Arc::downgrade(&first);
        drop((first, second, third));
        assert!(
            remembered.upgrade().is_none(),
            "the table kept a spec alive"
        );
    }
}
