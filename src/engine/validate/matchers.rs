//! Checks the delays and argument matchers that tool responses and fault rules share, and
//! compiles matcher patterns with their size bound. Each problem is `(field, reason)` with the
//! field relative to the caller's path, so both callers name the field their own way.

use regex::Regex;

use crate::spec::{Delay, Matcher};

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
