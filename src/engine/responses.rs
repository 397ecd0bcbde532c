//! Picks a tool's answer for one call: the first of its [`ResponseSpec`]s whose condition
//! holds and that is not used up, or the tool's own template. Owns what that needs across
//! calls: how often each response answered, the compiled regular expressions, and the
//! server's seeded random generator (random delays, here and in server-level fault rules).
//!
//! [`ResponseSpec`]: crate::spec::ResponseSpec

use std::collections::HashMap;
use std::sync::{Arc, Mutex, MutexGuard};
use std::time::Duration;

use rand::rngs::StdRng;
use rand::{Rng, SeedableRng};
use regex::Regex;
use serde_json::Value;

use super::Engine;
use super::template;
use crate::error::Error;
use crate::spec::{Comparison, Delay, Fault, Matcher, ToolSpec};

/// The seed of a server that sets none: fixed, so random delays reproduce by default too.
pub(crate) const DEFAULT_SEED: u64 = 0x6d63_702d_6465_636f;

/// Responses one tool may have: a list edited over the REST API must stay bounded.
pub(crate) const MAX_RESPONSES: usize = 1_000;

/// How deep `all`/`any`/`not` may nest: evaluation recurses, and nothing sane needs more.
const MAX_MATCHER_DEPTH: usize = 32;

/// Compiled programs one pattern may grow to (the `regex` crate's own default is 10 MiB
/// per regex; a matcher is a short pattern, so a smaller bound costs nothing).
const REGEX_SIZE_LIMIT: usize = 1 << 20;

/// Patterns kept compiled per server before the cache starts over.
const MAX_CACHED_REGEXES: usize = 1_024;

/// The response picked for one `tools/call`; the transport applies `fault` and `delay`, the
/// tools handler renders `result` (or the tool's template when `None`).
#[derive(Debug, Clone, Default)]
pub(crate) struct Chosen {
    /// Index of the response in the tool's `responses`.
    pub(crate) index: usize,
    pub(crate) result: Option<Value>,
    pub(crate) fault: Option<Fault>,
    pub(crate) delay: Option<Duration>,
}

/// Per-server state of tool responses (the engine's `responses` field).
#[derive(Debug)]
pub(crate) struct Responses {
    rng: Mutex<StdRng>,
    counts: Mutex<HashMap<String, Counts>>,
    regexes: Mutex<HashMap<String, Arc<Regex>>>,
}

/// How often each response of one tool answered.
#[derive(Debug)]
struct Counts {
    /// The version of the tool these counts are for. A tool replaced by one with other
    /// responses starts over; one edited elsewhere (title, template) keeps its place in a
    /// sequence. Holding the `Arc` keeps its address from being reused, so pointer equality
    /// is a sound fast path before comparing responses.
    tool: Arc<ToolSpec>,
    used: Vec<u64>,
}

impl Responses {
    /// State for a server seeded with `seed` ([`DEFAULT_SEED`] when `None`).
    pub(crate) fn new(seed: Option<u64>) -> Self {
        Responses {
            rng: Mutex::new(StdRng::seed_from_u64(seed.unwrap_or(DEFAULT_SEED))),
            counts: Mutex::default(),
            regexes: Mutex::default(),
        }
    }

    fn counts(&self) -> MutexGuard<'_, HashMap<String, Counts>> {
        self.counts.lock().unwrap_or_else(|p| p.into_inner())
    }
}

/// The response that answers this call, counting it as used; `None` when the tool's template
/// answers.
pub(crate) fn choose(engine: &Engine, tool: &Arc<ToolSpec>, args: &Value) -> Option<Chosen> {
    if tool.responses.is_empty() {
        return None;
    }
    // Conditions are evaluated outside the counters' lock; only the take is atomic, so two
    // concurrent calls never both get a response that answers once.
    let index = tool
        .responses
        .iter()
        .enumerate()
        .find_map(|(index, response)| {
            let holds = response
                .when
                .as_ref()
                .is_none_or(|when| matches(engine, when, args));
            (holds && take(engine, tool, index)).then_some(index)
        })?;
    let response = &tool.responses[index];
    Some(Chosen {
        index,
        result: response.result.clone(),
        fault: response.fault.clone(),
        delay: response.delay.as_ref().map(|d| resolve_delay(engine, d)),
    })
}

/// Counts one use of response `index` unless it is used up.
fn take(engine: &Engine, tool: &Arc<ToolSpec>, index: usize) -> bool {
    let mut counts = engine.responses.counts();
    if !counts.contains_key(&tool.name) {
        bound(engine, &mut counts);
        counts.insert(
            tool.name.clone(),
            Counts {
                tool: tool.clone(),
                used: vec![0; tool.responses.len()],
            },
        );
    }
    let Some(entry) = counts.get_mut(&tool.name) else {
        return false;
    };
    if !Arc::ptr_eq(&entry.tool, tool) {
        if entry.tool.responses != tool.responses {
            entry.used = vec![0; tool.responses.len()];
        }
        entry.tool = tool.clone();
    }
    let limit = tool.responses.get(index).and_then(|r| r.times);
    let Some(used) = entry.used.get_mut(index) else {
        return false;
    };
    if limit.is_some_and(|times| *used >= times) {
        return false;
    }
    *used += 1;
    true
}

/// Keeps the counters bounded: a test that adds and removes tools under new names in a loop
/// must not grow them forever. Tools that are gone (or drafts) lose theirs.
fn bound(engine: &Engine, counts: &mut HashMap<String, Counts>) {
    if counts.len() >= super::catalog::MAX_ITEMS {
        counts.retain(|name, _| engine.catalog.tools.get(name).is_some());
    }
}

/// How many calls response `index` of the tool named `tool` answered since the tool got its
/// current responses.
pub(crate) fn count(engine: &Engine, tool: &str, index: usize) -> u64 {
    engine
        .responses
        .counts()
        .get(tool)
        .and_then(|c| c.used.get(index).copied())
        .unwrap_or(0)
}

/// Forgets the counts of a tool, which starts its sequences over (the fixture calls it when a
/// tool is added or replaced with other responses).
pub(crate) fn reset(engine: &Engine, tool: &str) {
    engine.responses.counts().remove(tool);
}

/// Moves a tool's counts to its new name, so a rename keeps its place in a sequence.
pub(crate) fn rename(engine: &Engine, from: &str, to: &str) {
    let mut counts = engine.responses.counts();
    if let Some(entry) = counts.remove(from) {
        counts.insert(to.to_string(), entry);
    }
}

/// A pause as a duration: a random one is drawn from the server's seeded generator, so the
/// same requests made one after another get the same pauses run after run.
pub(crate) fn resolve_delay(engine: &Engine, delay: &Delay) -> Duration {
    match *delay {
        Delay::Fixed { ms } => Duration::from_millis(ms),
        Delay::Random { min_ms, max_ms } => {
            // Validation refuses min > max; a spec that skipped it must still not panic.
            let (low, high) = (min_ms.min(max_ms), min_ms.max(max_ms));
            let mut rng = engine
                .responses
                .rng
                .lock()
                .unwrap_or_else(|p| p.into_inner());
            Duration::from_millis(rng.random_range(low..=high))
        }
    }
}

/// Whether `matcher` holds for a call's `arguments` object.
pub(crate) fn matches(engine: &Engine, matcher: &Matcher, args: &Value) -> bool {
    match matcher {
        Matcher::Arguments(expected) => same(args, expected),
        Matcher::Equals { pointer, value } => at(args, pointer).is_some_and(|v| same(v, value)),
        Matcher::Regex { pointer, pattern } => {
            let Some(text) = at(args, pointer).and_then(Value::as_str) else {
                return false;
            };
            regex(engine, pattern).is_some_and(|re| re.is_match(text))
        }
        Matcher::Present(pointer) => at(args, pointer).is_some(),
        Matcher::Absent(pointer) => at(args, pointer).is_none(),
        Matcher::Compare { pointer, op, value } => at(args, pointer)
            .and_then(Value::as_f64)
            .is_some_and(|n| compare(n, *op, *value)),
        Matcher::All(all) => all.iter().all(|m| matches(engine, m, args)),
        Matcher::Any(any) => any.iter().any(|m| matches(engine, m, args)),
        Matcher::Not(inner) => !matches(engine, inner, args),
    }
}

/// `Value::pointer` without its two allocations per token (this runs for every response of
/// every call): only a token with `~` is unescaped into a new string.
fn at<'a>(document: &'a Value, pointer: &str) -> Option<&'a Value> {
    if pointer.is_empty() {
        return Some(document);
    }
    let mut target = document;
    for token in pointer.strip_prefix('/')?.split('/') {
        let unescaped;
        let token = if token.contains('~') {
            unescaped = token.replace("~1", "/").replace("~0", "~");
            unescaped.as_str()
        } else {
            token
        };
        target = match target {
            Value::Object(map) => map.get(token)?,
            Value::Array(list) => {
                // RFC 6901: no leading zeros (and `parse` would accept `+1`).
                if token.starts_with('+') || (token.starts_with('0') && token.len() != 1) {
                    return None;
                }
                list.get(token.parse::<usize>().ok()?)?
            }
            _ => return None,
        };
    }
    Some(target)
}

fn compare(n: f64, op: Comparison, value: f64) -> bool {
    match op {
        Comparison::Eq => n == value,
        Comparison::Ne => n != value,
        Comparison::Gt => n > value,
        Comparison::Ge => n >= value,
        Comparison::Lt => n < value,
        Comparison::Le => n <= value,
    }
}

/// JSON equality where numbers compare by value: a client that sends `3.0` for `3` still
/// matches. Object member order never matters.
fn same(a: &Value, b: &Value) -> bool {
    match (a, b) {
        (Value::Number(x), Value::Number(y)) => {
            if let (Some(x), Some(y)) = (x.as_i64(), y.as_i64()) {
                x == y
            } else if let (Some(x), Some(y)) = (x.as_u64(), y.as_u64()) {
                x == y
            } else {
                x.as_f64() == y.as_f64()
            }
        }
        (Value::Array(x), Value::Array(y)) => {
            x.len() == y.len() && x.iter().zip(y).all(|(x, y)| same(x, y))
        }
        (Value::Object(x), Value::Object(y)) => {
            x.len() == y.len() && x.iter().all(|(k, v)| y.get(k).is_some_and(|w| same(v, w)))
        }
        _ => a == b,
    }
}

/// The compiled pattern, from the server's cache.
fn regex(engine: &Engine, pattern: &str) -> Option<Arc<Regex>> {
    let mut cache = engine
        .responses
        .regexes
        .lock()
        .unwrap_or_else(|p| p.into_inner());
    if let Some(re) = cache.get(pattern) {
        return Some(re.clone());
    }
    // Validation compiled it already; a pattern that fails here simply never matches.
    let re = Arc::new(compile(pattern).ok()?);
    if cache.len() >= MAX_CACHED_REGEXES {
        cache.clear();
    }
    cache.insert(pattern.to_string(), re.clone());
    Some(re)
}

fn compile(pattern: &str) -> Result<Regex, regex::Error> {
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
    use crate::log::TrafficLog;
    use crate::spec::{Limits, ResponseSpec, ServerSpec};
    use serde_json::json;

    fn engine(seed: Option<u64>) -> Arc<Engine> {
        let spec = ServerSpec {
            seed,
            ..ServerSpec::new("t")
        };
        Engine::new(
            spec,
            Limits::default(),
            Vec::new(),
            Arc::new(TrafficLog::new(10)),
            0,
        )
        .expect("a valid spec")
    }

    fn equals(pointer: &str, value: Value) -> Matcher {
        Matcher::Equals {
            pointer: pointer.into(),
            value,
        }
    }

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

    fn tool(responses: Vec<ResponseSpec>) -> Arc<ToolSpec> {
        Arc::new(spec(responses))
    }

    fn picked(engine: &Engine, tool: &Arc<ToolSpec>, args: Value) -> Option<usize> {
        choose(engine, tool, &args).map(|c| c.index)
    }

    #[test]
    fn every_matcher_kind_holds_where_it_should() {
        let e = engine(None);
        let args = json!({ "city": "Paris", "n": 3, "f": 2.5, "nested": { "list": [1, "x"] }, "nil": null });
        let holds = |m: Matcher| matches(&e, &m, &args);
        assert!(holds(Matcher::Arguments(args.clone())));
        assert!(!holds(Matcher::Arguments(json!({ "city": "Paris" }))));
        assert!(holds(equals("/city", json!("Paris"))));
        assert!(holds(equals("/n", json!(3.0))), "numbers compare by value");
        assert!(holds(equals("/nested/list/1", json!("x"))));
        assert!(!holds(equals("/city", json!("paris"))));
        assert!(!holds(equals("/missing", Value::Null)));
        let regex = |pointer: &str, pattern: &str| Matcher::Regex {
            pointer: pointer.into(),
            pattern: pattern.into(),
        };
        assert!(holds(regex("/city", "^Pa")));
        assert!(holds(regex("/city", "(?i)paris")));
        assert!(!holds(regex("/n", "3")), "a number is not a string");
        assert!(holds(Matcher::Present("/nil".into())), "null is present");
        assert!(holds(Matcher::Absent("/nope".into())));
        assert!(holds(Matcher::Present(String::new())));
        let compare = |pointer: &str, op, value| Matcher::Compare {
            pointer: pointer.into(),
            op,
            value,
        };
        assert!(holds(compare("/n", Comparison::Gt, 2.0)));
        assert!(holds(compare("/n", Comparison::Ge, 3.0)));
        assert!(holds(compare("/f", Comparison::Lt, 3.0)));
        assert!(holds(compare("/f", Comparison::Le, 2.5)));
        assert!(holds(compare("/n", Comparison::Eq, 3.0)));
        assert!(holds(compare("/n", Comparison::Ne, 4.0)));
        assert!(
            !holds(compare("/city", Comparison::Ne, 4.0)),
            "not a number"
        );
        assert!(holds(Matcher::All(vec![])));
        assert!(!holds(Matcher::Any(vec![])));
        assert!(holds(Matcher::Any(vec![
            equals("/city", json!("Oslo")),
            equals("/city", json!("Paris")),
        ])));
        assert!(!holds(Matcher::All(vec![
            equals("/city", json!("Paris")),
            equals("/n", json!(4)),
        ])));
        assert!(holds(Matcher::Not(Box::new(equals("/n", json!(4))))));
    }

    #[test]
    fn pointers_resolve_like_serde_json_does() {
        let doc = json!({ "a/b": { "m~n": [10, 20] }, "": 1, "list": [0, 1] });
        for pointer in [
            "",
            "/a~1b",
            "/a~1b/m~0n",
            "/a~1b/m~0n/1",
            "/",
            "/list/01",
            "/list/+1",
            "/list/2",
            "/x",
            "nope",
            "/list/0/deeper",
        ] {
            assert_eq!(at(&doc, pointer), doc.pointer(pointer), "{pointer}");
        }
    }

    #[test]
    fn the_first_response_that_holds_answers_and_the_template_is_the_fallback() {
        let e = engine(None);
        let t = tool(vec![
            ResponseSpec {
                when: Some(equals("/city", json!("Paris"))),
                ..ok("paris")
            },
            ResponseSpec {
                when: Some(equals("/city", json!("Oslo"))),
                ..ok("oslo")
            },
        ]);
        assert_eq!(picked(&e, &t, json!({ "city": "Oslo" })), Some(1));
        assert_eq!(picked(&e, &t, json!({ "city": "Paris" })), Some(0));
        assert_eq!(picked(&e, &t, json!({ "city": "Rome" })), None);
        assert_eq!(picked(&e, &t, json!({})), None);
        assert_eq!(count(&e, "t", 0), 1);
        assert_eq!(count(&e, "t", 1), 1);
    }

    #[test]
    fn counted_responses_are_used_up_in_order_then_the_last_repeats() {
        let e = engine(None);
        let t = tool(vec![
            ResponseSpec {
                times: Some(2),
                ..ok("fail")
            },
            ok("succeed"),
        ]);
        let order: Vec<_> = (0..4).map(|_| picked(&e, &t, json!({}))).collect();
        assert_eq!(order, [Some(0), Some(0), Some(1), Some(1)]);
        assert_eq!(count(&e, "t", 0), 2);
        assert_eq!(count(&e, "t", 1), 2);
    }

    #[test]
    fn counts_survive_edits_that_keep_the_responses_and_reset_otherwise() {
        let e = engine(None);
        let once = ResponseSpec {
            times: Some(1),
            ..ok("first")
        };
        let t = tool(vec![once.clone()]);
        assert_eq!(picked(&e, &t, json!({})), Some(0));
        let retitled = Arc::new(ToolSpec {
            title: Some("new title".into()),
            ..(*t).clone()
        });
        assert_eq!(picked(&e, &retitled, json!({})), None, "still used up");
        let other = tool(vec![once.clone(), ok("second")]);
        assert_eq!(
            picked(&e, &other, json!({})),
            Some(0),
            "new responses start over"
        );
        rename(&e, "t", "u");
        let renamed = Arc::new(ToolSpec {
            name: "u".into(),
            ..(*other).clone()
        });
        assert_eq!(picked(&e, &renamed, json!({})), Some(1), "the count moved");
        reset(&e, "u");
        assert_eq!(picked(&e, &renamed, json!({})), Some(0));
    }

    #[test]
    fn a_seeded_schedule_of_random_delays_reproduces() {
        let delay = Delay::Random {
            min_ms: 0,
            max_ms: 1_000,
        };
        let schedule = |seed| {
            let e = engine(seed);
            (0..8)
                .map(|_| resolve_delay(&e, &delay))
                .collect::<Vec<_>>()
        };
        assert_eq!(schedule(Some(7)), schedule(Some(7)));
        assert_eq!(schedule(None), schedule(None));
        assert_ne!(schedule(Some(7)), schedule(Some(8)));
        let e = engine(None);
        assert_eq!(
            resolve_delay(&e, &Delay::Fixed { ms: 42 }),
            Duration::from_millis(42)
        );
        let reversed = Delay::Random {
            min_ms: 9,
            max_ms: 3,
        };
        let d = resolve_delay(&e, &reversed);
        assert!((3..=9).contains(&d.as_millis()), "{d:?}");
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
