//! `${args.message}`: an interpolation that is a path of names to a string, by far the most
//! common in tool templates, read without the expression parser. A debug build spent 19 K
//! instructions a `tools/call` parsing and evaluating that one interpolation (benches/README.md,
//! "A call's own work in a debug build").
//!
//! Anything else is left to the parser, which gives its value or its error: spaces, operators,
//! a name that is not an identifier, a name or member that is missing, a value that is not a
//! string, an expression as long as the parser's limit. What this path reads, it charges to
//! the budget as the evaluator would: a step per name, and the string's bytes.

use std::borrow::Cow;

use serde_json::Value;

use crate::engine::template::jsone::budget::Budget;
use crate::engine::template::jsone::error::Error;
use crate::engine::template::jsone::parse::{MAX_LEN, is_identifier};
use crate::engine::template::jsone::scope::Scope;
use crate::engine::template::jsone::value::V;

/// The string the path at `source[start..]` (just past `${`) names, and where the
/// interpolation ends (past its `}`); `None` when the parser must read it.
pub(super) fn string_at<'a>(
    source: &str,
    start: usize,
    scope: &'a Scope<'a>,
    budget: &mut Budget<'_>,
) -> Result<Option<(&'a str, usize)>, Error> {
    let Some(close) = source[start..].find('}') else {
        return Ok(None);
    };
    let path = &source[start..start + close];
    // The parser refuses an expression of `MAX_LEN` bytes or more with its `}`.
    if path.len() >= MAX_LEN {
        return Ok(None);
    }
    let mut names = path.split('.');
    let Some(first) = names.next().filter(|name| is_identifier(name)) else {
        return Ok(None);
    };
    let Some(V::Json(Cow::Borrowed(mut value))) = scope.get(first) else {
        return Ok(None);
    };
    let mut steps = 1;
    for name in names {
        if !is_identifier(name) {
            return Ok(None);
        }
        let Some(member) = value.as_object().and_then(|members| members.get(name)) else {
            return Ok(None);
        };
        value = member;
        steps += 1;
    }
    let Value::String(text) = value else {
        return Ok(None);
    };
    budget.step(steps)?;
    budget.alloc(text.len())?;
    Ok(Some((text, start + close + 1)))
}

#[cfg(test)]
mod tests {
    use proptest::prelude::*;
    use serde_json::{Map, Value, json};

    use super::*;
    use crate::engine::template::jsone::budget::Limits;
    use crate::engine::template::jsone::eval;
    use crate::engine::template::jsone::parse::parse_interpolation;
    use crate::engine::template::jsone::scope::Root;

    /// Runs `read` on `${source}` in a root scope over `context`, with the budget it spent.
    fn reading<T>(
        source: &str,
        context: &Map<String, Value>,
        read: impl FnOnce(&str, &Scope<'_>, &mut Budget<'_>) -> T,
    ) -> (T, (u64, usize)) {
        let root = Root {
            context,
            now: std::cell::OnceCell::new(),
            fixed_now: Some("2026-01-01T00:00:00.000Z"),
        };
        let scope = Scope::root(&root);
        let limits = Limits::default();
        let mut budget = Budget::new(&limits);
        let read = read(&format!("${{{source}}}"), &scope, &mut budget);
        (read, budget.spent())
    }

    /// What the parser and evaluator make of `${source}`, and the budget they spent.
    fn parsed(source: &str, context: &Map<String, Value>) -> (Option<Value>, (u64, usize)) {
        reading(source, context, |text, scope, budget| {
            let value = parse_interpolation(text, 2)
                .ok()
                .and_then(|(node, _)| eval::eval(&node, scope, budget).ok())
                .and_then(|v| v.json().cloned());
            if let Some(Value::String(s)) = &value {
                let _ = budget.alloc(s.len());
            }
            value
        })
    }

    /// What this path makes of `${source}`, and the budget it spent.
    fn fast(source: &str, context: &Map<String, Value>) -> (Option<String>, (u64, usize)) {
        reading(source, context, |text, scope, budget| {
            let found = string_at(text, 2, scope, budget).expect("within the budget");
            if let Some((_, end)) = found {
                assert_eq!(end, text.len(), "the interpolation ends past its brace");
            }
            found.map(|(s, _)| s.to_owned())
        })
    }

    fn context() -> Map<String, Value> {
        let Value::Object(map) = json!({
            "args": {"message": "hello", "n": 3, "nested": {"deep": "down", "list": ["x"]}, "in": "kw"},
            "name": "plain",
            "min": "shadows the builtin",
            "empty": {},
        }) else {
            unreachable!("an object literal")
        };
        map
    }

    proptest! {
        /// Whenever the path reads a string, the parser reads the same one for the same
        /// budget; whenever it declines, it has charged nothing.
        #[test]
        fn reads_what_the_parser_reads(
            names in prop::collection::vec(
                prop_oneof![
                    Just("args"), Just("message"), Just("n"), Just("nested"), Just("deep"),
                    Just("list"), Just("in"), Just("name"), Just("min"), Just("now"),
                    Just("empty"), Just("missing"), Just("true"), Just("1x"), Just(""),
                    Just(" args"), Just("args "), Just("a-b"),
                ],
                1..5,
            )
        ) {
            let source = names.join(".");
            let context = context();
            let (fast_value, fast_spent) = fast(&source, &context);
            match fast_value {
                Some(text) => {
                    let (value, spent) = parsed(&source, &context);
                    prop_assert_eq!(value, Some(Value::String(text)), "{}", source);
                    prop_assert_eq!(fast_spent, spent, "{}", source);
                }
                None => prop_assert_eq!(fast_spent, (0, 0), "{}", source),
            }
        }
    }

    #[test]
    fn reads_the_common_paths_and_leaves_the_rest() {
        let context = context();
        assert_eq!(fast("args.message", &context).0.as_deref(), Some("hello"));
        assert_eq!(
            fast("args.nested.deep", &context).0.as_deref(),
            Some("down")
        );
        assert_eq!(fast("name", &context).0.as_deref(), Some("plain"));
        assert_eq!(
            fast("min", &context).0.as_deref(),
            Some("shadows the builtin")
        );
        assert_eq!(
            fast("now", &context).0.as_deref(),
            Some("2026-01-01T00:00:00.000Z")
        );
        for left in [
            "args.n",
            "args.nested",
            "args.missing",
            "missing",
            "args.in",
            " args.message",
            "args['message']",
            "args.message + 'x'",
            "max",
            "args.nested.list",
        ] {
            assert_eq!(fast(left, &context).0, None, "{left}");
        }
        let long = format!("args.{}", "m".repeat(MAX_LEN));
        assert_eq!(
            fast(&long, &context).0,
            None,
            "as long as the parser's limit"
        );
    }
}
