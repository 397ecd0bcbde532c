//! What this process has already found valid: a test suite starts the same few servers
//! hundreds of times, and checking an `inputSchema` against its draft's metaschema cost more
//! than the rest of a start (benches/README.md, "Start-up and memory"). Only passes are
//! kept, so a mistake is checked, and reported, every time.
//!
//! A value is known by a keyed hash of its JSON tree (SipHash with this process's random
//! keys, so no input can be made to collide on purpose), not by its text: writing the text
//! out was most of a start in a debug build, which is what users' tests run.

use std::collections::HashSet;
use std::hash::{BuildHasher, Hash, Hasher, RandomState};
use std::sync::{LazyLock, Mutex};

use serde_json::Value;

/// Passes kept before the set starts over: a test that edits a tool in a loop must not grow
/// it without end.
const MAX_KNOWN: usize = 256;

/// Values nested deeper than this are checked every time rather than hashed (a walk that
/// deep could exhaust the stack; the check itself has its own limits).
const MAX_DEPTH: usize = 128;

/// This process's hash keys.
static KEYS: LazyLock<RandomState> = LazyLock::new(RandomState::new);

static PASSED: LazyLock<Mutex<HashSet<u64>>> = LazyLock::new(Mutex::default);

/// `check`, unless `value` already passed the check named `what`.
pub(super) fn checked<E>(
    what: &str,
    value: &Value,
    check: impl FnOnce() -> Result<(), E>,
) -> Result<(), E> {
    let mut hasher = KEYS.build_hasher();
    what.hash(&mut hasher);
    if !feed(value, &mut hasher, 0) {
        return check();
    }
    let key = hasher.finish();
    if lock().contains(&key) {
        return Ok(());
    }
    check()?;
    let mut passed = lock();
    if passed.len() >= MAX_KNOWN {
        passed.clear();
    }
    passed.insert(key);
    Ok(())
}

/// Hashes `value`'s tree, members in order, each node tagged with its type so that no two
/// different trees feed the same bytes; `false` past [`MAX_DEPTH`].
fn feed(value: &Value, hasher: &mut impl Hasher, depth: usize) -> bool {
    if depth > MAX_DEPTH {
        return false;
    }
    match value {
        Value::Null => hasher.write_u8(0),
        Value::Bool(b) => {
            hasher.write_u8(1);
            hasher.write_u8(u8::from(*b));
        }
        Value::Number(n) => {
            hasher.write_u8(2);
            n.hash(hasher);
        }
        Value::String(text) => {
            hasher.write_u8(3);
            text.hash(hasher);
        }
        Value::Array(items) => {
            hasher.write_u8(4);
            hasher.write_usize(items.len());
            for item in items {
                if !feed(item, hasher, depth + 1) {
                    return false;
                }
            }
        }
        Value::Object(members) => {
            hasher.write_u8(5);
            hasher.write_usize(members.len());
            for (name, member) in members {
                name.hash(hasher);
                if !feed(member, hasher, depth + 1) {
                    return false;
                }
            }
        }
    }
    true
}

fn lock() -> std::sync::MutexGuard<'static, HashSet<u64>> {
    PASSED.lock().unwrap_or_else(|p| p.into_inner())
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
        let mut deep = json!("bottom");
        for _ in 0..=MAX_DEPTH {
            deep = json!([deep]);
        }
        let mut deep_runs = 0;
        for _ in 0..2 {
            let _: Result<(), ()> = checked("test", &deep, || {
                deep_runs += 1;
                Ok(())
            });
        }
        assert_eq!(deep_runs, 2, "a value past the depth limit is not kept");
    }

    #[test]
    fn values_that_differ_anywhere_are_known_apart() {
        // Pairs whose JSON differs in one place; each second value must be checked anew.
        let pairs = [
            (json!({"a": 1, "b": 2}), json!({"b": 2, "a": 1})),
            (json!(["ab", "c"]), json!(["a", "bc"])),
            (json!({"a": null}), json!({"a": false})),
            (json!(1), json!(1.0)),
            (json!([[]]), json!([[], []])),
            (json!({"x": "1"}), json!({"x": 1})),
        ];
        for (n, (first, second)) in pairs.iter().enumerate() {
            let what = format!("apart {n}");
            let _: Result<(), ()> = checked(&what, first, || Ok(()));
            let mut runs = 0;
            let _: Result<(), ()> = checked(&what, second, || {
                runs += 1;
                Ok(())
            });
            assert_eq!(runs, 1, "{second} was taken for {first}");
        }
    }
}
