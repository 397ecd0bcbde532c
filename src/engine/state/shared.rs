//! Tool specs shared by the servers of one process: a test suite starts the same tools in
//! test after test (most often `Tool::echo()`), and a deep copy per server would be the
//! largest part of an idle fixture's memory (benches/README.md, "Start-up and memory"). A
//! server starting with a tool equal to one a live server already
//! holds takes that one's `Arc` instead. Specs in a catalog are never changed in place (an
//! edit replaces the `Arc`), so sharing one cannot leak an edit from one server to another.

use std::collections::HashMap;
use std::sync::{Arc, LazyLock, Mutex, Weak};

use crate::spec::ToolSpec;

/// Names remembered before the table starts over, so a suite of many distinct tools keeps
/// it small; a forgotten name only means one more copy.
const MAX_SHARED: usize = 256;

static SHARED: LazyLock<Mutex<HashMap<String, Weak<ToolSpec>>>> = LazyLock::new(Mutex::default);

/// The `Arc` a starting server keeps for `tool`: a live server's equal copy when there is
/// one, else `tool`, which later servers may then share.
pub(crate) fn tool(tool: Arc<ToolSpec>) -> Arc<ToolSpec> {
    let mut shared = SHARED.lock().unwrap_or_else(|p| p.into_inner());
    if let Some(live) = shared.get(&tool.name).and_then(Weak::upgrade) {
        // The same `Arc` (`Tool::echo()`) needs no comparison.
        if Arc::ptr_eq(&live, &tool) || *live == *tool {
            return live;
        }
    }
    if shared.len() >= MAX_SHARED {
        shared.retain(|_, spec| spec.strong_count() > 0);
        if shared.len() >= MAX_SHARED {
            shared.clear();
        }
    }
    shared.insert(tool.name.clone(), Arc::downgrade(&tool));
    tool
}

/// Whether `tool` is the very spec a live server holds, which passed the start checks
/// then, or the process's own `echo` (a constant that passes them: a test below checks).
/// The same allocation is the same value: a spec is never changed while shared
/// (`Arc::make_mut` moves a changed one to an allocation of its own), and the table's
/// `Weak` keeps its allocation from being reused for another. So the first fixture of a
/// process that serves only `echo` does not compile a JSON Schema metaschema.
pub(crate) fn vetted(tool: &Arc<ToolSpec>) -> bool {
    if ToolSpec::is_echo_shared(tool) {
        return true;
    }
    let shared = SHARED.lock().unwrap_or_else(|p| p.into_inner());
    shared.get(&tool.name).is_some_and(|live| {
        live.strong_count() > 0 && std::ptr::eq(live.as_ptr(), Arc::as_ptr(tool))
    })
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn the_shared_echo_passes_the_checks_it_skips() {
        let echo = ToolSpec::echo_shared();
        assert!(vetted(&echo));
        let spec = crate::spec::ServerSpec::new("echo-checks");
        crate::engine::validate::items::server(&spec, std::iter::once((&*echo, true)))
            .expect("the shared echo passes the start checks");
        let meta = crate::engine::schema::meta_violations(&echo.input_schema)
            .expect("its schema's draft is known");
        assert!(meta.is_empty(), "{meta:?}");
        assert!(
            !vetted(&Arc::new((*echo).clone())),
            "a copy is checked like any tool"
        );
    }

    #[test]
    fn equal_tools_share_one_copy_and_a_different_one_gets_its_own() {
        let mut spec = ToolSpec::echo();
        spec.name = "shared_equal_tools_test".into();
        let first = tool(Arc::new(spec.clone()));
        let second = tool(Arc::new(spec.clone()));
        assert!(Arc::ptr_eq(&first, &second));
        assert!(vetted(&first), "a live server's spec passed its checks");
        assert!(
            !vetted(&Arc::new(spec.clone())),
            "an equal copy is checked again"
        );
        let mut other = spec.clone();
        other.description = Some("another".into());
        let third = tool(Arc::new(other));
        assert!(!Arc::ptr_eq(&first, &third));
        assert_eq!(third.description.as_deref(), Some("another"));
        // The table holds no server's spec alive: once no server holds it, it is freed.
        let remembered = Arc::downgrade(&first);
        drop((first, second, third));
        assert!(
            remembered.upgrade().is_none(),
            "the table kept a spec alive"
        );
        assert!(!vetted(&Arc::new(spec)), "no live server holds it");
    }
}
