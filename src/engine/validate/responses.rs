//! Checks a tool's alternative responses, and the delays and matchers that fault rules share
//! with them: each problem names the field as `servers.json` spells it.

use regex::Regex;

use crate::engine::template;
use crate::error::Error;
use crate::spec::{Delay, Matcher, ToolSpec};

/// Responses one tool may have: a list edited over the REST API must stay bounded.
pub(crate) const MAX_RESPONSES: usize = 1_000;

/// How deep `all`/`any`/`not` may nest: evaluation recurses, and nothing sane needs more.
const MAX_MATCHER_DEPTH: usize = 32;

/// Compiled programs one pattern may grow to (the `regex` crate's own default is 10 MiB
/// per regex; a matcher is a short pattern, so a smaller bound costs nothing).
const REGEX_SIZE_LIMIT: usize = 1 << 20;

/// Compiles a matcher's pattern with the size bound (the check and the matcher both use it).
pub(crate) fn compile(pattern: &str) -> Result<Regex, regex::Error> {
    regex::RegexBuilder::new(pattern)
        .size_limit(REGEX_SIZE_LIMIT)
        .build()
}

/// Checks a tool's responses (called by `validate::tool`): each error names the field as
/// `servers.json` spells it, e.g. `responses[1].when.regex.pattern`.
pub(crate) fn validate(tool: &ToolSpec) -> Result<(), Error> {
    let invalid = |field: String, reason: String| Error::InvalidResponse {
        tool: tool.name.clone(),
        field,
        reason,
    };
    if tool.responses.len() > MAX_RESPONSES {
        return Err(invalid(
            "responses".into(),
            format!(
                "has {} entries; a tool has at most {MAX_RESPONSES}",
                tool.responses.len()
            ),
        ));
    }
    for (n, response) in tool.responses.iter().enumerate() {
        let at = format!("responses[{n}]");
        if response.result.is_some() && response.fault.is_some() {
            return Err(invalid(
                at,
                "has both `result` and `fault`; a response answers with one of them".into(),
            ));
        }
        if response.times == Some(0) {
            return Err(invalid(
                format!("{at}.times"),
                "must be at least 1 (leave it out for a response that never runs out)".into(),
            ));
        }
        if let Some(when) = &response.when {
            check_matcher(when, &format!("{at}.when")).map_err(|(f, r)| invalid(f, r))?;
        }
        if let Some(result) = &response.result {
            template::check(result).map_err(|reason| {
                invalid(format!("{at}.result"), format!("does not parse: {reason}"))
            })?;
        }
        if let Some(delay) = &response.delay {
            check_delay(delay, &format!("{at}.delay")).map_err(|(f, r)| invalid(f, r))?;
        }
        if let Some(fault) = &response.fault {
            if let Some((member, reason)) = super::faults::fault_problem(fault) {
                return Err(invalid(format!("{at}.fault.{member}"), reason));
            }
        }
    }
    Ok(())
}

/// Checks a delay; the error is `(field, reason)` with `at` the delay's own path.
pub(crate) fn check_delay(delay: &Delay, at: &str) -> Result<(), (String, String)> {
    match *delay {
        Delay::Random { min_ms, max_ms } if min_ms > max_ms => Err((
            format!("{at}.min_ms"),
            format!("is {min_ms}, more than max_ms ({max_ms})"),
        )),
        _ => Ok(()),
    }
}

/// Checks a matcher (pointers, patterns, numbers, depth); the error is `(field, reason)`
/// with `at` the matcher's own path, e.g. `responses[0].when` or `faults[2].when`.
pub(crate) fn check_matcher(matcher: &Matcher, at: &str) -> Result<(), (String, String)> {
    check_at_depth(matcher, at, 0)
}

fn check_at_depth(matcher: &Matcher, at: &str, depth: usize) -> Result<(), (String, String)> {
    if depth > MAX_MATCHER_DEPTH {
        return Err((
            at.to_string(),
            format!("nests `all`/`any`/`not` deeper than {MAX_MATCHER_DEPTH} levels"),
        ));
    }
    match matcher {
        Matcher::Arguments(expected) if !expected.is_object() => Err((
            format!("{at}.arguments"),
            "must be a JSON object (a call's arguments always are)".into(),
        )),
        Matcher::Arguments(_) => Ok(()),
        Matcher::Equals { pointer, .. } => check_pointer(pointer, &format!("{at}.equals.pointer")),
        Matcher::Regex { pointer, pattern } => {
            check_pointer(pointer, &format!("{at}.regex.pointer"))?;
            compile(pattern).map(|_| ()).map_err(|e| {
                (
                    format!("{at}.regex.pattern"),
                    format!("is not a valid regular expression: {e}"),
                )
            })
        }
        Matcher::Present(pointer) => check_pointer(pointer, &format!("{at}.present")),
        Matcher::Absent(pointer) => check_pointer(pointer, &format!("{at}.absent")),
        Matcher::Compare { pointer, value, .. } => {
            check_pointer(pointer, &format!("{at}.compare.pointer"))?;
            if value.is_finite() {
                Ok(())
            } else {
                Err((
                    format!("{at}.compare.value"),
                    "must be a finite number".into(),
                ))
            }
        }
        Matcher::All(all) => all
            .iter()
            .enumerate()
            .try_for_each(|(i, m)| check_at_depth(m, &format!("{at}.all[{i}]"), depth + 1)),
        Matcher::Any(any) => any
            .iter()
            .enumerate()
            .try_for_each(|(i, m)| check_at_depth(m, &format!("{at}.any[{i}]"), depth + 1)),
        Matcher::Not(inner) => check_at_depth(inner, &format!("{at}.not"), depth + 1),
    }
}

/// RFC 6901: a pointer is empty (the whole document) or starts with `/`.
fn check_pointer(pointer: &str, at: &str) -> Result<(), (String, String)> {
    if pointer.is_empty() || pointer.starts_with('/') {
        Ok(())
    } else {
        Err((
            at.to_string(),
            format!(
                "`{pointer}` is not a JSON pointer: it must be empty or start with `/`, e.g. `/{pointer}` (RFC 6901)"
            ),
        ))
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::spec::{Comparison, Fault, ResponseSpec};
    use serde_json::json;

    fn ok(text: &str) -> ResponseSpec {
        ResponseSpec {
            result: Some(json!({ "content": [{ "type": "text", "text": text }] })),
            ..ResponseSpec::default()
        }
    }

    fn spec(responses: Vec<ResponseSpec>) -> ToolSpec {
        ToolSpec {
            responses,
            ..ToolSpec::new("t")
        }
    }

    #[test]
    fn validation_names_the_field_at_fault() {
        let field = |responses: Vec<ResponseSpec>| match validate(&spec(responses)) {
            Err(Error::InvalidResponse { field, .. }) => field,
            other => panic!("expected InvalidResponse, got {other:?}"),
        };
        let bad_regex = ResponseSpec {
            when: Some(Matcher::All(vec![Matcher::Regex {
                pointer: "/q".into(),
                pattern: "(".into(),
            }])),
            ..ok("x")
        };
        assert_eq!(
            field(vec![ok("fine"), bad_regex]),
            "responses[1].when.all[0].regex.pattern"
        );
        let bad_pointer = ResponseSpec {
            when: Some(Matcher::Not(Box::new(Matcher::Present("city".into())))),
            ..ok("x")
        };
        assert_eq!(field(vec![bad_pointer]), "responses[0].when.not.present");
        let zero = ResponseSpec {
            times: Some(0),
            ..ok("x")
        };
        assert_eq!(field(vec![zero]), "responses[0].times");
        let both = ResponseSpec {
            fault: Some(Fault::MalformedJson),
            ..ok("x")
        };
        assert_eq!(field(vec![both]), "responses[0]");
        let delay = ResponseSpec {
            delay: Some(Delay::Random {
                min_ms: 5,
                max_ms: 1,
            }),
            ..ok("x")
        };
        assert_eq!(field(vec![delay]), "responses[0].delay.min_ms");
        let template = ResponseSpec {
            result: Some(json!({ "$if": "nope(" })),
            ..ResponseSpec::default()
        };
        assert_eq!(field(vec![template]), "responses[0].result");
        let nan = ResponseSpec {
            when: Some(Matcher::Compare {
                pointer: "/n".into(),
                op: Comparison::Gt,
                value: f64::NAN,
            }),
            ..ok("x")
        };
        assert_eq!(field(vec![nan]), "responses[0].when.compare.value");
        let status = ResponseSpec {
            fault: Some(Fault::http(42)),
            ..ResponseSpec::default()
        };
        assert_eq!(field(vec![ok("fine"), status]), "responses[1].fault.status");
        let mut deep = Matcher::Present("/x".into());
        for _ in 0..40 {
            deep = Matcher::Not(Box::new(deep));
        }
        let deep = ResponseSpec {
            when: Some(deep),
            ..ok("x")
        };
        assert!(field(vec![deep]).starts_with("responses[0].when.not.not"));
        assert!(validate(&spec(vec![ok("a"), ok("b")])).is_ok());
    }
}
