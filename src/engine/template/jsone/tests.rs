//! json-e's own specification suite (`tests/jsone/specification.json`, converted from the
//! json-e crate's `specification.yml`, MPL-2.0) and the hostile templates of issue 13.

use std::time::{Duration, Instant};

use serde_json::{Value, json};

use super::{Limits, check_syntax, render_at, same};

/// The suite's fixed `now`.
const NOW: &str = "2017-01-19T16:27:20.974Z";

/// Cases this renderer answers differently, on purpose: a builtin stored inside an array or
/// object. Values here are JSON, which has no functions; a builtin bound directly by `$let`
/// works.
const DEVIATIONS: [&str; 3] = [
    "function call (13)",
    "function call (14)",
    "dotted function expression",
];

#[test]
fn the_json_e_specification_passes() {
    let path = concat!(
        env!("CARGO_MANIFEST_DIR"),
        "/tests/jsone/specification.json"
    );
    let text = std::fs::read_to_string(path).expect("the specification file is in the repo");
    let cases: Vec<Value> = serde_json::from_str(&text).expect("the specification is JSON");
    assert!(cases.len() > 1_000, "{} cases", cases.len());
    let mut failures = Vec::new();
    for case in &cases {
        let title = case["title"].as_str().unwrap_or_default();
        if DEVIATIONS.contains(&title) {
            continue;
        }
        let got = render_at(&case["template"], &case["context"], &Limits::default(), NOW);
        let passed = match (case.get("result"), &got) {
            (Some(want), Ok(got)) => same(want, got),
            (None, Err(error)) => {
                // `error: true` or a message that starts with the error's kind.
                let want = case["error"].as_str().unwrap_or_default();
                let kind = want.split([':', ' ']).next().unwrap_or_default();
                error.to_string().starts_with(kind)
            }
            _ => false,
        };
        if !passed {
            failures.push(format!(
                "[{}] {title}: template {} context {} want {} got {got:?}",
                case["section"],
                case["template"],
                case["context"],
                case.get("result")
                    .or(case.get("error"))
                    .unwrap_or(&Value::Null)
            ));
        }
    }
    assert!(failures.is_empty(), "{}", failures.join("\n"));
}

/// Templates built to crash or stall the app (a hostile-input probe): each ends with a limit
/// error, quickly.
#[test]
fn hostile_templates_end_with_a_limit_error() {
    let nested =
        |open: &str, close: &str, n: usize| format!("{}1{}", open.repeat(n), close.repeat(n));
    let cases = [
        (
            json!({ "$eval": vec!["1"; 10_000].join("+") }),
            "nests deeper than 128",
        ),
        (
            json!({ "$eval": nested("(", ")", 1_000) }),
            "nests deeper than 128",
        ),
        (
            json!({ "$eval": nested("[", "]", 1_000) }),
            "nests deeper than 128",
        ),
        (
            json!({ "$eval": nested("{a:", "}", 1_000) }),
            "nests deeper than 128",
        ),
        (
            json!({ "$eval": format!("args{}", ".a".repeat(10_000)) }),
            "nests deeper",
        ),
        (
            json!({ "t": format!("${{{}}}", nested("(", ")", 1_000)) }),
            "nests deeper",
        ),
        (
            json!({ "$map": { "$eval": "range(0, 10000000)" }, "each(x)": "${x}" }),
            "more than 1000000 steps",
        ),
        (
            json!({ "$map": { "$eval": "range(0, 3000)" },
                    "each(x)": { "$map": { "$eval": "range(0, 3000)" }, "each(y)": "${x}-${y}" } }),
            "LimitError",
        ),
        (
            json!({ "$reduce": { "$eval": "range(0, 100000)" }, "initial": [],
                    "each(acc, x)": [{ "$eval": "acc" }] }),
            "nested deeper than 256",
        ),
        (
            json!({ "$eval": "join(range(0, 1000000), ',')" }),
            "LimitError",
        ),
    ];
    for (template, expected) in cases {
        let started = Instant::now();
        let error = render_at(&template, &json!({ "args": {} }), &Limits::default(), NOW)
            .expect_err("over a limit");
        assert!(error.to_string().contains(expected), "{error}");
        // The time budget is 1 s; noisy machines get slack, a stall would take minutes.
        assert!(started.elapsed() < Duration::from_secs(10));
    }
}

#[test]
fn exponential_parses_of_the_json_e_crate_are_linear_here() {
    let deep = json!({ "$eval": format!("{}1{}", "(".repeat(100), ")".repeat(100)) });
    assert_eq!(
        render_at(&deep, &json!({}), &Limits::default(), NOW),
        Ok(json!(1))
    );
}

#[test]
fn a_syntax_error_in_a_branch_not_taken_is_found_before_any_render() {
    let template = json!({ "$if": "args.x", "then": "${args.", "else": "fine" });
    let error = check_syntax(&template).expect_err("the `then` branch does not parse");
    assert!(error.to_string().starts_with("SyntaxError"), "{error}");
}

#[test]
fn values_from_the_context_pass_through_unchanged() {
    // json-e computes with f64; a value that is only passed along keeps its own form.
    let context = json!({ "args": { "id": 12_345_678_901_234_567_u64, "x": 1.5 } });
    let template =
        json!({ "id": { "$eval": "args.id" }, "x": "${args.x}", "n": { "$eval": "1 + 1" } });
    assert_eq!(
        render_at(&template, &context, &Limits::default(), NOW),
        Ok(json!({ "id": 12_345_678_901_234_567_u64, "x": "1.5", "n": 2 }))
    );
}
