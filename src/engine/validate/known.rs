//! What this process has already found valid, by its JSON text: a test suite starts the
//! same few servers hundreds of times, and checking an `inputSchema` against its draft's
//! metaschema cost more than the rest of a start (benches/README.md, "Start-up and
//! memory"). Only passes are kept, so a mistake is checked, and reported, every time.

use std::collections::HashSet;
use std::sync::{LazyLock, Mutex};

use serde_json::Value;

/// Texts kept before the set starts over: a test that edits a tool in a loop must not grow
/// it without end.
const MAX_KNOWN: usize = 256;

/// Texts longer than this are checked every time, not kept: the set stays within
/// `MAX_KNOWN` × 64 KiB whatever schemas a client of the app sends.
const MAX_KEY_BYTES: usize = 64 * 1024;

static KNOWN: LazyLock<Mutex<HashSet<Vec<u8>>>> = LazyLock::new(Mutex::default);

/// `check`, unless `value` already passed the check named `what`.
pub(super) fn checked<E>(
    what: &str,
    value: &Value,
    check: impl FnOnce() -> Result<(), E>,
) -> Result<(), E> {
    let mut key = Vec::with_capacity(what.len() + 128);
    key.extend_from_slice(what.as_bytes());
    key.push(0);
    // Not `to_string`: `Display` writes through the formatter, at twice the cost.
    if serde_json::to_writer(&mut key, value).is_err() || key.len() > MAX_KEY_BYTES {
        return check();
    }
    if lock().contains(&key) {
        return Ok(());
    }
    check()?;
    let mut known = lock();
    if known.len() >= MAX_KNOWN {
        known.clear();
    }
    known.insert(key);
    Ok(())
}

fn lock() -> std::sync::MutexGuard<'static, HashSet<Vec<u8>>> {
    KNOWN.lock().unwrap_or_else(|p| p.into_inner())
}

#[cfg(test)]
mod tests {
    use super::*;
    use serde_json::json;

    #[test]
    fn a_pass_is_remembered_and_a_failure_is_checked_again() {
        let value = json!({ "known": "a_pass_is_remembered" });
        let mut runs = 0;
        for _ in 0..3 {
            let result: Result<(), ()> = checked("test", &value, || {
                runs += 1;
                Ok(())
            });
            assert_eq!(result, Ok(()));
        }
        assert_eq!(runs, 1, "a passed check runs once");
        let failing = json!({ "known": "a_failure" });
        let mut failures = 0;
        for _ in 0..2 {
            let result: Result<(), &str> = checked("test", &failing, || {
                failures += 1;
                Err("bad")
            });
            assert_eq!(result, Err("bad"));
        }
        assert_eq!(failures, 2, "a failed check runs, and reports, every time");
        let mut other = 0;
        let _: Result<(), ()> = checked("another check", &value, || {
            other += 1;
            Ok(())
        });
        assert_eq!(other, 1, "each check keeps its own passes");
        let large = json!({ "known": "x".repeat(MAX_KEY_BYTES) });
        let mut large_runs = 0;
        for _ in 0..2 {
            let _: Result<(), ()> = checked("test", &large, || {
                large_runs += 1;
                Ok(())
            });
        }
        assert_eq!(large_runs, 2, "a text past the key limit is not kept");
    }
}
