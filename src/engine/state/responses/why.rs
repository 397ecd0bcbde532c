//! Why a tool response's condition did not hold for a call, for the drop report: the first
//! condition that failed, written as the test wrote it (`arg("limit").gt(100)`), and what
//! was at its JSON pointer. Built on the same lookups as [`Responses::matches`], and a test
//! below checks the two agree, so the report never explains a match that happened.

use std::fmt::Write as _;

use serde_json::Value;

use super::{Responses, at, compare};
use crate::spec::{Comparison, Matcher};

/// Characters of a condition or a value a report line shows.
const MAX_TEXT: usize = 120;

/// Conditions of a failed `any` explained one by one; the rest are counted.
const MAX_ANY: usize = 3;

impl Responses {
    /// `None` when `matcher` holds for `args`; else the first condition that failed, where,
    /// and why: `` `arg("limit").gt(100)` failed at /limit: 5 is not > 100 ``.
    pub(crate) fn why_not(&self, matcher: &Matcher, args: &Value) -> Option<String> {
        if self.matches(matcher, args) {
            return None;
        }
        Some(self.failure(matcher, args))
    }

    /// The explanation of a matcher known not to hold.
    fn failure(&self, matcher: &Matcher, args: &Value) -> String {
        let failed = |pointer: &str, why: String| {
            format!("`{}` failed at {}: {why}", render(matcher), shown(pointer))
        };
        match matcher {
            Matcher::Arguments(_) => failed("", "the arguments are not equal to it".into()),
            Matcher::Equals { pointer, value } => match at(args, pointer) {
                None => failed(pointer, "nothing there".into()),
                Some(actual) => failed(pointer, format!("{} is not {}", cut(actual), cut(value))),
            },
            Matcher::Regex { pointer, .. } => match at(args, pointer) {
                None => failed(pointer, "nothing there".into()),
                Some(actual) if !actual.is_string() => {
                    failed(pointer, format!("{} is not a string", cut(actual)))
                }
                Some(actual) => failed(pointer, format!("{} does not match", cut(actual))),
            },
            Matcher::Present(pointer) => failed(pointer, "nothing there".into()),
            Matcher::Absent(pointer) => match at(args, pointer) {
                Some(actual) => failed(pointer, format!("{} is there", cut(actual))),
                None => failed(pointer, "it is absent, yet the condition failed".into()),
            },
            Matcher::Compare { pointer, op, value } => match at(args, pointer) {
                None => failed(pointer, "nothing there".into()),
                Some(actual) => match actual.as_f64() {
                    None => failed(pointer, format!("{} is not a number", cut(actual))),
                    Some(n) if !compare(n, *op, *value) => failed(
                        pointer,
                        format!("{} is not {} {}", cut(actual), symbol(*op), number(*value)),
                    ),
                    Some(_) => failed(pointer, "it compares, yet the condition failed".into()),
                },
            },
            Matcher::All(all) => all
                .iter()
                .find(|m| !self.matches(m, args))
                .map(|m| self.failure(m, args))
                .unwrap_or_else(|| format!("`{}` failed", render(matcher))),
            Matcher::Any(any) if any.is_empty() => "`any([])` never holds".into(),
            Matcher::Any(any) => {
                let mut text = format!("none of the {} conditions of `any` held:", any.len());
                for m in any.iter().take(MAX_ANY) {
                    let _ = write!(text, " {};", self.failure(m, args));
                }
                if any.len() > MAX_ANY {
                    let _ = write!(text, " and {} more", any.len() - MAX_ANY);
                }
                text.trim_end_matches(';').to_string()
            }
            Matcher::Not(inner) => match pointer_of(inner) {
                Some(pointer) => {
                    let there = at(args, pointer).map_or("nothing there".into(), cut);
                    failed(pointer, format!("{there}, so `{}` holds", render(inner)))
                }
                None => format!("`{}` failed: `{}` holds", render(matcher), render(inner)),
            },
        }
    }
}

/// The pointer of a leaf condition.
fn pointer_of(matcher: &Matcher) -> Option<&str> {
    match matcher {
        Matcher::Equals { pointer, .. }
        | Matcher::Regex { pointer, .. }
        | Matcher::Compare { pointer, .. }
        | Matcher::Present(pointer)
        | Matcher::Absent(pointer) => Some(pointer),
        _ => None,
    }
}

/// A pointer as the report shows it: `/` for the whole arguments object.
fn shown(pointer: &str) -> &str {
    if pointer.is_empty() { "/" } else { pointer }
}

/// The condition as the `matchers` functions build it, cut after [`MAX_TEXT`] characters.
fn render(matcher: &Matcher) -> String {
    let arg = |pointer: &str| match pointer.strip_prefix('/') {
        Some(name) if !name.contains('/') => {
            format!(
                "arg({})",
                quoted(&name.replace("~1", "/").replace("~0", "~"))
            )
        }
        _ => format!("pointer({})", quoted(pointer)),
    };
    let list = |items: &[Matcher]| items.iter().map(render).collect::<Vec<_>>().join(", ");
    let text = match matcher {
        Matcher::Arguments(value) => format!("args_eq({})", cut(value)),
        Matcher::Equals { pointer, value } => format!("{}.eq({})", arg(pointer), cut(value)),
        Matcher::Regex { pointer, pattern } => {
            format!("{}.matches({})", arg(pointer), quoted(pattern))
        }
        Matcher::Present(pointer) => format!("{}.present()", arg(pointer)),
        Matcher::Absent(pointer) => format!("{}.absent()", arg(pointer)),
        Matcher::Compare { pointer, op, value } => match op {
            Comparison::Gt => format!("{}.gt({})", arg(pointer), number(*value)),
            Comparison::Ge => format!("{}.ge({})", arg(pointer), number(*value)),
            Comparison::Lt => format!("{}.lt({})", arg(pointer), number(*value)),
            Comparison::Le => format!("{}.le({})", arg(pointer), number(*value)),
            Comparison::Eq | Comparison::Ne => {
                format!(
                    "{}.compare(Comparison::{op:?}, {})",
                    arg(pointer),
                    number(*value)
                )
            }
        },
        Matcher::All(all) => format!("all([{}])", list(all)),
        Matcher::Any(any) => format!("any([{}])", list(any)),
        Matcher::Not(inner) => format!("not({})", render(inner)),
    };
    truncate(text)
}

fn quoted(text: &str) -> String {
    Value::String(text.to_string()).to_string()
}

/// `100` for a whole number, as the test most likely wrote it, else `2.5`.
fn number(n: f64) -> String {
    if n.fract() == 0.0 && n.abs() < 1e15 {
        format!("{n:.0}")
    } else {
        n.to_string()
    }
}

fn symbol(op: Comparison) -> &'static str {
    match op {
        Comparison::Eq => "==",
        Comparison::Ne => "!=",
        Comparison::Gt => ">",
        Comparison::Ge => ">=",
        Comparison::Lt => "<",
        Comparison::Le => "<=",
    }
}

/// A value's JSON text, cut after [`MAX_TEXT`] characters.
fn cut(value: &Value) -> String {
    truncate(value.to_string())
}

fn truncate(text: String) -> String {
    match text.char_indices().nth(MAX_TEXT) {
        Some((end, _)) => format!("{}...", &text[..end]),
        None => text,
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use serde_json::json;

    // The engine does not import the fixture's builders: conditions are written as
    // `servers.json` writes them.
    fn m(spec: Value) -> Matcher {
        serde_json::from_value(spec).expect("a matcher")
    }
    fn arg(name: &str) -> Leaf {
        Leaf(format!("/{}", name.replace('~', "~0").replace('/', "~1")))
    }
    fn pointer(pointer: &str) -> Leaf {
        Leaf(pointer.into())
    }
    struct Leaf(String);
    impl Leaf {
        fn eq(self, value: impl Into<Value>) -> Matcher {
            m(json!({ "equals": { "pointer": self.0, "value": value.into() } }))
        }
        fn matches(self, pattern: &str) -> Matcher {
            m(json!({ "regex": { "pointer": self.0, "pattern": pattern } }))
        }
        fn present(self) -> Matcher {
            m(json!({ "present": self.0 }))
        }
        fn absent(self) -> Matcher {
            m(json!({ "absent": self.0 }))
        }
        fn gt(self, n: f64) -> Matcher {
            m(json!({ "compare": { "pointer": self.0, "op": "gt", "value": n } }))
        }
        fn lt(self, n: f64) -> Matcher {
            m(json!({ "compare": { "pointer": self.0, "op": "lt", "value": n } }))
        }
        fn le(self, n: f64) -> Matcher {
            m(json!({ "compare": { "pointer": self.0, "op": "le", "value": n } }))
        }
    }
    fn all<const N: usize>(items: [Matcher; N]) -> Matcher {
        Matcher::All(items.into())
    }
    fn any<const N: usize>(items: [Matcher; N]) -> Matcher {
        Matcher::Any(items.into())
    }
    fn not(inner: Matcher) -> Matcher {
        Matcher::Not(Box::new(inner))
    }
    fn args_eq(value: Value) -> Matcher {
        Matcher::Arguments(value)
    }

    fn why(matcher: &Matcher, args: Value) -> Option<String> {
        Responses::new(None).why_not(matcher, &args)
    }

    #[test]
    fn each_kind_names_the_condition_the_pointer_and_what_was_there() {
        let cases = [
            (
                arg("limit").gt(100.0),
                json!({ "limit": 5 }),
                r#"`arg("limit").gt(100)` failed at /limit: 5 is not > 100"#,
            ),
            (
                arg("city").eq("Paris"),
                json!({}),
                r#"`arg("city").eq("Paris")` failed at /city: nothing there"#,
            ),
            (
                arg("city").eq("Paris"),
                json!({ "city": "Oslo" }),
                r#"`arg("city").eq("Paris")` failed at /city: "Oslo" is not "Paris""#,
            ),
            (
                pointer("/f/0/n").matches("^p"),
                json!({ "f": [{ "n": 3 }] }),
                r#"`pointer("/f/0/n").matches("^p")` failed at /f/0/n: 3 is not a string"#,
            ),
            (
                arg("q").matches("^sel"),
                json!({ "q": "drop" }),
                r#"`arg("q").matches("^sel")` failed at /q: "drop" does not match"#,
            ),
            (
                arg("token").present(),
                json!({}),
                r#"`arg("token").present()` failed at /token: nothing there"#,
            ),
            (
                arg("token").absent(),
                json!({ "token": "t" }),
                r#"`arg("token").absent()` failed at /token: "t" is there"#,
            ),
            (
                arg("n").le(2.5),
                json!({ "n": "x" }),
                r#"`arg("n").le(2.5)` failed at /n: "x" is not a number"#,
            ),
            (
                args_eq(json!({ "id": 1 })),
                json!({ "id": 2 }),
                r#"`args_eq({"id":1})` failed at /: the arguments are not equal to it"#,
            ),
            (
                all([arg("a").present(), arg("b").eq(1)]),
                json!({ "a": 1, "b": 2 }),
                r#"`arg("b").eq(1)` failed at /b: 2 is not 1"#,
            ),
            (
                not(arg("city").eq("Paris")),
                json!({ "city": "Paris" }),
                r#"`not(arg("city").eq("Paris"))` failed at /city: "Paris", so `arg("city").eq("Paris")` holds"#,
            ),
            (
                any([arg("a").present(), arg("b").present()]),
                json!({}),
                r#"none of the 2 conditions of `any` held: `arg("a").present()` failed at /a: nothing there; `arg("b").present()` failed at /b: nothing there"#,
            ),
            (
                arg("a/b").present(),
                json!({}),
                r#"`arg("a/b").present()` failed at /a~1b: nothing there"#,
            ),
        ];
        for (matcher, args, expected) in cases {
            assert_eq!(why(&matcher, args).as_deref(), Some(expected));
        }
    }

    #[test]
    fn a_condition_that_holds_has_no_explanation_and_one_that_fails_always_has_one() {
        let matchers = [
            arg("n").gt(1.0),
            arg("s").matches("x"),
            not(arg("n").present()),
            any([arg("n").lt(0.0), arg("s").eq("x")]),
            all([]),
            any([]),
        ];
        let inputs = [
            json!({}),
            json!({ "n": 2, "s": "x" }),
            json!({ "n": "2", "s": 1 }),
        ];
        let responses = Responses::new(None);
        for matcher in &matchers {
            for args in &inputs {
                assert_eq!(
                    responses.why_not(matcher, args).is_none(),
                    responses.matches(matcher, args),
                    "{matcher:?} on {args}"
                );
            }
        }
    }

    #[test]
    fn long_values_are_cut() {
        let text = why(&arg("q").eq("x"), json!({ "q": "y".repeat(1_000) })).expect("it fails");
        assert!(text.len() < 400, "{text}");
    }
}
