//! The server-level fault rules of one server with their counters, and the count of
//! requests hanging on purpose. Which rule fires for a request is decided here, under the
//! rules' own counters; what the fault then does is the pipeline's plan and the transport's
//! render. Rules are checked by `validate::faults` before they get here.

use std::sync::atomic::{AtomicU64, AtomicUsize, Ordering};
use std::sync::{Arc, RwLock, RwLockReadGuard, RwLockWriteGuard};

use serde_json::Value;

use super::responses::Responses;
use crate::engine::protocol::method::Method;
use crate::engine::validate::faults::{MAX_RULES, too_many_rules};
use crate::error::Error;
use crate::spec::FaultRule;

/// The most requests hanging at once ([`Fault::HangingStream`](crate::spec::Fault)); past
/// it a hang is refused (JSON: `503`; event stream: it ends without the response), so a
/// client that never closes cannot pile up connections without end.
pub(crate) const MAX_HANGING: usize = 1_000;

/// One server's fault rules with their counters, and its hanging requests.
#[derive(Debug)]
pub(crate) struct Faults {
    rules: RwLock<Vec<Arc<Rule>>>,
    hanging: Arc<AtomicUsize>,
}

#[derive(Debug)]
struct Rule {
    spec: FaultRule,
    /// Matching requests seen so far (skipped, fired and let through alike).
    seen: AtomicU64,
}

impl Faults {
    pub(crate) fn new(rules: &[FaultRule]) -> Self {
        Faults {
            rules: RwLock::new(rules.iter().cloned().map(Rule::new).collect()),
            hanging: Arc::default(),
        }
    }

    fn read(&self) -> RwLockReadGuard<'_, Vec<Arc<Rule>>> {
        self.rules.read().unwrap_or_else(|p| p.into_inner())
    }

    /// Whether no rule is set, so no params need reading to match one.
    pub(crate) fn is_empty(&self) -> bool {
        self.read().is_empty()
    }

    fn write(&self) -> RwLockWriteGuard<'_, Vec<Arc<Rule>>> {
        self.rules.write().unwrap_or_else(|p| p.into_inner())
    }

    /// Adds a checked rule after the others, unless the server already has [`MAX_RULES`].
    pub(crate) fn add(&self, rule: FaultRule) -> Result<(), Error> {
        let mut rules = self.write();
        if rules.len() >= MAX_RULES {
            return Err(too_many_rules(rules.len() + 1));
        }
        rules.push(Rule::new(rule));
        Ok(())
    }

    /// Removes every rule.
    pub(crate) fn clear(&self) {
        self.write().clear();
    }

    /// The rules as they are now.
    pub(crate) fn rules(&self) -> Vec<FaultRule> {
        self.read().iter().map(|r| r.spec.clone()).collect()
    }

    /// Forgets the rules' counters (a restart).
    pub(crate) fn reset(&self) {
        let mut rules = self.write();
        *rules = rules.iter().map(|r| Rule::new(r.spec.clone())).collect();
    }

    /// The first rule that fires for this request, counting the request in every rule it
    /// matches up to that one (the rules after it do not see the request). `args` are the
    /// call's arguments as matchers read them (`pipeline::resolve`).
    pub(crate) fn fire(
        &self,
        responses: &Responses,
        method: &str,
        params: &Value,
        args: &Value,
    ) -> Option<FaultRule> {
        self.read()
            .iter()
            .find(|rule| rule.matches(responses, method, params, args) && rule.fires())
            .map(|rule| rule.spec.clone())
    }

    /// A place among the hanging requests, unless [`MAX_HANGING`] already hang.
    pub(crate) fn hang_permit(&self) -> Option<HangPermit> {
        self.hanging
            .fetch_update(Ordering::AcqRel, Ordering::Acquire, |n| {
                (n < MAX_HANGING).then_some(n + 1)
            })
            .ok()?;
        Some(HangPermit(self.hanging.clone()))
    }
}

impl Rule {
    fn new(spec: FaultRule) -> Arc<Rule> {
        Arc::new(Rule {
            spec,
            seen: AtomicU64::new(0),
        })
    }

    fn matches(&self, responses: &Responses, method: &str, params: &Value, args: &Value) -> bool {
        let spec = &self.spec;
        if spec.method.as_deref().is_some_and(|m| m != method) {
            return false;
        }
        if let Some(tool) = &spec.tool {
            if Method::parse(method) != Some(Method::ToolsCall)
                || params.get("name").and_then(Value::as_str) != Some(tool)
            {
                return false;
            }
        }
        match &spec.when {
            Some(matcher) => responses.matches(matcher, args),
            None => true,
        }
    }

    /// Counts a matching request in; whether the rule fires for it.
    fn fires(&self) -> bool {
        let n = self.seen.fetch_add(1, Ordering::Relaxed);
        n >= self.spec.skip
            && self
                .spec
                .times
                .is_none_or(|times| n - self.spec.skip < times)
    }
}

/// One hanging request's place in the count; given back on drop.
#[derive(Debug)]
pub(crate) struct HangPermit(Arc<AtomicUsize>);

impl Drop for HangPermit {
    fn drop(&mut self) {
        self.0.fetch_sub(1, Ordering::AcqRel);
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_rule_fires_after_skip_for_times_then_lets_requests_through() {
        let rule = Rule::new(FaultRule::on_method("ping").skip(1).times(2));
        let fired: Vec<bool> = (0..5).map(|_| rule.fires()).collect();
        assert_eq!(fired, [false, true, true, false, false]);
    }
}
