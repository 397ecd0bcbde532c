//! Picks a tool's answer for one call: the first of its [`ResponseSpec`]s whose condition
//! holds and that is not used up, or the tool's own template. Owns what that needs across
//! calls: how often each response answered, the compiled regular expressions, and the
//! server's seeded random generator (random delays, here and in server-level fault rules).
//!
//! [`ResponseSpec`]: crate::spec::ResponseSpec

use std::collections::HashMap;
use std::sync::{Arc, Mutex, MutexGuard};
use std::time::Duration;

use regex::Regex;
use serde_json::Value;

mod why;

use super::catalog::{Catalog, MAX_ITEMS};
use crate::engine::validate::matchers::compile;
use crate::spec::{Comparison, Delay, Fault, Matcher, ToolSpec};

/// The seed of a server that sets none: fixed, so random delays reproduce by default too.
pub(crate) const DEFAULT_SEED: u64 = 0x6d63_702d_6465_636f;

/// Patterns kept compiled per server before the cache starts over.
const MAX_CACHED_REGEXES: usize = 1_024;

/// The response picked for one `tools/call`; the pipeline applies `fault` and `delay`, the
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
    rng: Mutex<fastrand::Rng>,
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
            rng: Mutex::new(fastrand::Rng::with_seed(seed.unwrap_or(DEFAULT_SEED))),
            counts: Mutex::default(),
            regexes: Mutex::default(),
        }
    }

    fn counts(&self) -> MutexGuard<'_, HashMap<String, Counts>> {
        self.counts.lock().unwrap_or_else(|p| p.into_inner())
    }
}

impl Responses {
    /// The response that answers this call, counting it as used; `None` when the tool's template
    /// answers.
    pub(crate) fn choose(
        &self,
        catalog: &Catalog,
        tool: &Arc<ToolSpec>,
        args: &Value,
    ) -> Option<Chosen> {
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
                    .is_none_or(|when| self.matches(when, args));
                (holds && self.take(catalog, tool, index)).then_some(index)
            })?;
        let response = &tool.responses[index];
        Some(Chosen {
            index,
            result: response.result.clone(),
            fault: response.fault.clone(),
            delay: response.delay.as_ref().map(|d| self.resolve_delay(d)),
        })
    }

    /// Counts one use of response `index` unless it is used up.
    fn take(&self, catalog: &Catalog, tool: &Arc<ToolSpec>, index: usize) -> bool {
        let mut counts = self.counts();
        if !counts.contains_key(&tool.name) {
            bound(catalog, &mut counts);
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

    /// How many calls response `index` of the tool named `tool` answered since the tool got its
    /// current responses.
    pub(crate) fn count(&self, tool: &str, index: usize) -> u64 {
        self.counts()
            .get(tool)
            .and_then(|c| c.used.get(index).copied())
            .unwrap_or(0)
    }

    /// Forgets the counts of a tool, which starts its sequences over (the fixture calls it when a
    /// tool is added or replaced with other responses).
    pub(crate) fn reset(&self, tool: &str) {
        self.counts().remove(tool);
    }

    /// Moves a tool's counts to its new name, so a rename keeps its place in a sequence.
    pub(crate) fn rename(&self, from: &str, to: &str) {
        let mut counts = self.counts();
        if let Some(entry) = counts.remove(from) {
            counts.insert(to.to_string(), entry);
        }
    }

    /// A pause as a duration: a random one is drawn from the server's seeded generator, so the
    /// same requests made one after another get the same pauses run after run.
    pub(crate) fn resolve_delay(&self, delay: &Delay) -> Duration {
        match *delay {
            Delay::Fixed { ms } => Duration::from_millis(ms),
            Delay::Random { min_ms, max_ms } => {
                // Validation refuses min > max; a spec that skipped it must still not panic.
                let (low, high) = (min_ms.min(max_ms), min_ms.max(max_ms));
                let mut rng = self.rng.lock().unwrap_or_else(|p| p.into_inner());
                Duration::from_millis(rng.u64(low..=high))
            }
        }
    }

    /// Whether `matcher` holds for a call's `arguments` object.
    pub(crate) fn matches(&self, matcher: &Matcher, args: &Value) -> bool {
        match matcher {
            Matcher::Arguments(expected) => same(args, expected),
            Matcher::Equals { pointer, value } => at(args, pointer).is_some_and(|v| same(v, value)),
            Matcher::Regex { pointer, pattern } => {
                let Some(text) = at(args, pointer).and_then(Value::as_str) else {
                    return false;
                };
                self.regex(pattern).is_some_and(|re| re.is_match(text))
            }
            Matcher::Present(pointer) => at(args, pointer).is_some(),
            Matcher::Absent(pointer) => at(args, pointer).is_none(),
            Matcher::Compare { pointer, op, value } => at(args, pointer)
                .and_then(Value::as_f64)
                .is_some_and(|n| compare(n, *op, *value)),
            Matcher::All(all) => all.iter().all(|m| self.matches(m, args)),
            Matcher::Any(any) => any.iter().any(|m| self.matches(m, args)),
            Matcher::Not(inner) => !self.matches(inner, args),
        }
    }

    /// The compiled pattern, from the server's cache.
    fn regex(&self, pattern: &str) -> Option<Arc<Regex>> {
        let mut cache = self.regexes.lock().unwrap_or_else(|p| p.into_inner());
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
}

/// Keeps the counters bounded: a test that adds and removes tools under new names in a loop
/// must not grow them forever. Tools that are gone (or drafts) lose theirs.
fn bound(catalog: &Catalog, counts: &mut HashMap<String, Counts>) {
    if counts.len() >= MAX_ITEMS {
        counts.retain(|name, _| catalog.tools.get(name).is_some());
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

#[cfg(test)]
mod tests {
    use super::*;
    use crate::engine::Engine;
    use crate::engine::validate::responses::tests::{ok, spec};
    use crate::spec::{ResponseSpec, ServerSpec};
    use serde_json::json;

    fn engine(seed: Option<u64>) -> Arc<Engine> {
        let spec = ServerSpec {
            seed,
            ..ServerSpec::new("t")
        };
        Engine::for_tests(spec)
    }

    fn equals(pointer: &str, value: Value) -> Matcher {
        Matcher::Equals {
            pointer: pointer.into(),
            value,
        }
    }

    fn tool(responses: Vec<ResponseSpec>) -> Arc<ToolSpec> {
        Arc::new(spec(responses))
    }

    fn picked(engine: &Engine, tool: &Arc<ToolSpec>, args: Value) -> Option<usize> {
        engine
            .responses
            .choose(&engine.catalog, tool, &args)
            .map(|c| c.index)
    }

    #[test]
    fn every_matcher_kind_holds_where_it_should() {
        let e = engine(None);
        let args = json!({ "city": "Paris", "n": 3, "f": 2.5, "nested": { "list": [1, "x"] }, "nil": null });
        let holds = |m: Matcher| e.responses.matches(&m, &args);
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
        assert_eq!(e.responses.count("t", 0), 1);
        assert_eq!(e.responses.count("t", 1), 1);
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
        assert_eq!(e.responses.count("t", 0), 2);
        assert_eq!(e.responses.count("t", 1), 2);
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
        e.responses.rename("t", "u");
        let renamed = Arc::new(ToolSpec {
            name: "u".into(),
            ..(*other).clone()
        });
        assert_eq!(picked(&e, &renamed, json!({})), Some(1), "the count moved");
        e.responses.reset("u");
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
                .map(|_| e.responses.resolve_delay(&delay))
                .collect::<Vec<_>>()
        };
        assert_eq!(schedule(Some(7)), schedule(Some(7)));
        assert_eq!(schedule(None), schedule(None));
        assert_ne!(schedule(Some(7)), schedule(Some(8)));
        let e = engine(None);
        assert_eq!(
            e.responses.resolve_delay(&Delay::Fixed { ms: 42 }),
            Duration::from_millis(42)
        );
        let reversed = Delay::Random {
            min_ms: 9,
            max_ms: 3,
        };
        let d = e.responses.resolve_delay(&reversed);
        assert!((3..=9).contains(&d.as_millis()), "{d:?}");
    }
}
