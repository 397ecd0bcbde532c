//! A json-e (<https://json-e.js.org>) renderer whose every resource is bounded.
//!
//! The json-e crate served templates until hostile ones showed it cannot be bounded from the
//! outside: its parser takes time exponential in the nesting of an expression and recurses
//! without limit (a 49-character `$eval` ran 20 s; 1,000 nested `(` overflowed the stack and
//! aborted the process), and a render cannot be stopped once started (`$map` over
//! `range(0, 10000000)` held 3 GB for 15 s). This one follows json-e's specification (its
//! test suite runs in `src/engine/template/jsone/tests.rs`) with a linear parser, nesting limits, and a
//! [`Limits`] budget of steps, bytes and time that every loop and every built value is
//! charged against, so a render always ends quickly with a value or a [`Kind::Limit`] error.

mod budget;
mod builtins;
mod error;
mod eval;
mod fromnow;
#[cfg(test)]
mod fuzz;
mod parse;
mod render;
mod scope;
#[cfg(test)]
mod tests;
mod value;

use serde_json::{Map, Value};

pub(crate) use budget::Limits;
pub(crate) use error::{Error, Kind};
use render::MAX_TEMPLATE_DEPTH;

use budget::Budget;
use scope::{Root, Scope};

/// Renders `template` with `context` (an object whose keys are identifiers) within `limits`.
pub(crate) fn render(template: &Value, context: &Value, limits: &Limits) -> Result<Value, Error> {
    render_with(template, context, limits, None)
}

/// [`render`] with `now` fixed (json-e's format), as its test suite needs.
#[cfg(test)]
pub(crate) fn render_at(
    template: &Value,
    context: &Value,
    limits: &Limits,
    now: &str,
) -> Result<Value, Error> {
    render_with(template, context, limits, Some(now))
}

fn render_with(
    template: &Value,
    context: &Value,
    limits: &Limits,
    fixed_now: Option<&str>,
) -> Result<Value, Error> {
    let empty = Map::new();
    let context = match context {
        Value::Object(map) => map,
        Value::Null => &empty,
        _ => return Err(Error::template("the context must be an object")),
    };
    if !context.keys().all(|k| parse::is_identifier(k)) {
        return Err(Error::template(
            "top level keys of context must follow /[a-zA-Z_][a-zA-Z0-9_]*/",
        ));
    }
    let root = Root {
        context,
        now: std::cell::OnceCell::new(),
        fixed_now,
    };
    let scope = Scope::root(&root);
    let mut budget = Budget::new(limits);
    Ok(render::render(template, &scope, &mut budget, 0)?.unwrap_or(Value::Null))
}

/// Whether rendering `template` can loop: run a part of it once per element (`$map`,
/// `$reduce`, `$find`, `$sort`) or build a list from numbers (`range`). Any other template
/// costs time linear in its own size and its context's.
pub(crate) fn loops(template: &Value) -> bool {
    let mut stack = vec![template];
    while let Some(value) = stack.pop() {
        match value {
            Value::String(text) if names_range(text) => return true,
            Value::Array(items) => stack.extend(items),
            Value::Object(object) => {
                for (key, item) in object {
                    if matches!(key.as_str(), "$map" | "$reduce" | "$find" | "$sort")
                        || names_range(key)
                    {
                        return true;
                    }
                    stack.push(item);
                }
            }
            _ => {}
        }
    }
    false
}

/// Whether `text` holds `range`. An index loop: a debug build's `str::contains` builds a
/// two-way searcher for every string of the template, on every call (about 1 K instructions
/// each).
fn names_range(text: &str) -> bool {
    let bytes = text.as_bytes();
    let mut at = 0;
    while at + 5 <= bytes.len() {
        if bytes[at] == b'r' && &bytes[at..at + 5] == b"range" {
            return true;
        }
        at += 1;
    }
    false
}

/// Parses every expression of `template`, including those in branches a render with the
/// given data would not take: a syntax error or an over-deep expression anywhere is found
/// before any call.
pub(crate) fn check_syntax(template: &Value) -> Result<(), Error> {
    let mut stack = vec![(template, 0usize)];
    while let Some((value, depth)) = stack.pop() {
        if depth > MAX_TEMPLATE_DEPTH {
            return Err(Error::limit(format!(
                "the template nests deeper than {MAX_TEMPLATE_DEPTH} levels"
            )));
        }
        match value {
            Value::String(text) => interpolations(text)?,
            Value::Array(items) => stack.extend(items.iter().map(|v| (v, depth + 1))),
            Value::Object(object) => {
                for (key, item) in object {
                    interpolations(key)?;
                    stack.push((item, depth + 1));
                }
                for (expressions, text) in expressions_of(object) {
                    if expressions {
                        parse::parse_all(text)?;
                    }
                }
            }
            _ => {}
        }
    }
    Ok(())
}

/// The strings an operator object evaluates as whole expressions.
fn expressions_of(object: &Map<String, Value>) -> Vec<(bool, &str)> {
    let mut out = Vec::new();
    for (key, item) in object {
        match (key.as_str(), item) {
            ("$eval" | "$if", Value::String(text)) => out.push((true, text.as_str())),
            ("$switch" | "$match", Value::Object(cases)) => out.extend(
                cases
                    .keys()
                    .filter(|k| *k != "$default")
                    .map(|k| (true, k.as_str())),
            ),
            (key, Value::String(text))
                if object.contains_key("$find") && key.starts_with("each(")
                    || object.contains_key("$sort") && key.starts_with("by(") =>
            {
                out.push((true, text.as_str()));
            }
            _ => {}
        }
    }
    out
}

fn interpolations(text: &str) -> Result<(), Error> {
    let mut at = 0;
    while let Some(found) = text[at..].find('$') {
        let dollar = at + found;
        let rest = &text[dollar..];
        if rest.starts_with("${") {
            let (_, end) = parse::parse_interpolation(text, dollar + 2)?;
            at = end;
        } else if rest.starts_with("$${") {
            at = dollar + 3;
        } else {
            at = dollar + 1;
        }
    }
    Ok(())
}

/// Whether two values are equal as json-e compares them (numbers as f64).
#[cfg(test)]
pub(crate) fn same(a: &Value, b: &Value) -> bool {
    value::json_equal(a, b)
}

#[cfg(test)]
mod loop_tests {
    use proptest::prelude::*;
    use serde_json::json;

    use super::{loops, names_range};

    #[test]
    fn a_template_loops_when_it_maps_or_names_range() {
        assert!(loops(&json!({"$map": [1, 2], "each(x)": "${x}"})));
        assert!(loops(&json!({"a": [{"$eval": "range(0, 9)"}]})));
        assert!(loops(&json!({"${range(0, 2)}": 1})));
        assert!(!loops(
            &json!({"content": [{"type": "text", "text": "${args.message}"}]})
        ));
        assert!(!loops(&json!(["rang", "Range", "e", null, 1])));
    }

    proptest! {
        #[test]
        fn names_range_is_contains(text in "(?s)[rangeR é]{0,16}|(?s).{0,24}") {
            prop_assert_eq!(names_range(&text), text.contains("range"));
        }
    }
}
