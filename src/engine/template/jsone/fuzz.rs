//! Differential fuzzing against the json-e crate: random expressions from json-e's own
//! vocabulary, rendered by both; where json-e answers, this renderer must answer the same,
//! and it must never panic or run past its budget. Expressions stay short so json-e's
//! exponential parser finishes. `PROPTEST_CASES` sets the round (CI: the default 256).

use proptest::prelude::*;
use serde_json::{Value, json};

use super::{Limits, render_at};
use crate::engine::template::jsone::value::json_equal;

const NOW: &str = "2017-01-19T16:27:20.974Z";

fn token() -> impl Strategy<Value = &'static str> {
    prop::sample::select(vec![
        "1",
        "2.5",
        "0",
        "'a'",
        "\"b c\"",
        "x",
        "s",
        "l",
        "o",
        "args",
        "true",
        "false",
        "null",
        "(",
        ")",
        "[",
        "]",
        "{",
        "}",
        ",",
        ":",
        ".",
        ".a",
        ".k",
        "+",
        "-",
        "*",
        "/",
        "**",
        "==",
        "!=",
        "<",
        "<=",
        ">",
        ">=",
        "&&",
        "||",
        "!",
        " in ",
        "len(",
        "str(",
        "min(",
        "max(",
        "range(0,",
        "join(",
        "split(",
        "uppercase(",
        "typeof(",
        "defined(",
        "abs(",
        "number(",
        "strip(",
        "[1:",
        "[-1]",
        "[0]",
    ])
}

fn expression() -> impl Strategy<Value = String> {
    prop::collection::vec(token(), 0..14).prop_map(|tokens| tokens.concat())
}

fn context() -> Value {
    json!({ "x": 3, "s": "hello", "l": [1, 2, 3], "o": { "a": 1, "k": "v" }, "args": { "a": [] } })
}

/// A builtin stored inside an array or object is JSON here (see the suite's deviations).
fn stores_a_function(expression: &str) -> bool {
    [
        "len",
        "str",
        "min",
        "max",
        "join",
        "split",
        "uppercase",
        "typeof",
        "defined",
        "abs",
        "number",
        "strip",
        "range",
    ]
    .iter()
    .any(|f| expression.contains(f))
}

/// The json-e crate's parser takes one unary operator before an operand, where json-e's
/// reference parser (a Pratt parser) takes any number: `!!1` is `true` there and here, and a
/// parse error in the crate.
fn stacks_unary_operators(expression: &str) -> bool {
    let squeezed: String = expression.chars().filter(|c| !c.is_whitespace()).collect();
    ["!!", "!-", "!+"]
        .iter()
        .any(|pair| squeezed.contains(pair))
}

proptest! {
    #[test]
    fn expressions_render_as_json_e_renders_them(expr in expression()) {
        let template = json!({ "$eval": expr });
        let ours = render_at(&template, &context(), &Limits::default(), NOW);
        let theirs = json_e::render(&template, &context());
        match (&theirs, &ours) {
            (Ok(want), Ok(got)) => prop_assert!(json_equal(want, got), "{expr}: {want} vs {got}"),
            (Err(_), Err(_)) => {}
            // Where only one side fails, the difference must be a builtin held as a value,
            // or the crate failing to parse stacked unary operators.
            (Err(_), Ok(_)) if stacks_unary_operators(&expr) => {}
            _ => prop_assert!(stores_a_function(&expr), "{expr}: json-e {theirs:?}, ours {ours:?}"),
        }
    }

    #[test]
    fn interpolations_render_as_json_e_renders_them(a in expression(), b in expression()) {
        let template = json!({ "t": format!("<${{{a}}}>$${{b}}${{{b}}}") });
        let ours = render_at(&template, &context(), &Limits::default(), NOW);
        let theirs = json_e::render(&template, &context());
        match (&theirs, &ours) {
            (Ok(want), Ok(got)) => prop_assert!(json_equal(want, got), "{template}: {want} vs {got}"),
            (Err(_), Err(_)) => {}
            (Err(_), Ok(_)) if stacks_unary_operators(&format!("{a} {b}")) => {}
            _ => prop_assert!(stores_a_function(&format!("{a}{b}")), "{template}: json-e {theirs:?}, ours {ours:?}"),
        }
    }
}
