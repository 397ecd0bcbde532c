//! Checks fault rules, faults and session expiry, at start and when a rule is added live:
//! each problem names the member at fault (`faults[0].fault.status`, `rule.times`).

use http::{HeaderName, HeaderValue};

use super::matchers::{check_delay, check_matcher};
use crate::engine::protocol::method::Method;
use crate::error::Error;
use crate::spec::{Fault, FaultRule, SessionExpiry};

/// The most notifications one [`Fault::NotificationFlood`] sends.
pub(crate) const MAX_FLOOD: u32 = 100_000;

/// The longest pause of a [`Fault::SplitMessage`], in milliseconds.
pub(crate) const MAX_SPLIT_PAUSE_MS: u64 = 60_000;

/// The most bytes one [`Fault::StderrFlood`] writes.
pub(crate) const MAX_STDERR_FLOOD: u32 = 16 * 1024 * 1024;

/// Rules one server may have: a test that adds rules in a loop must stay bounded.
pub(crate) const MAX_RULES: usize = 1_000;

pub(crate) fn too_many_rules(count: usize) -> Error {
    Error::InvalidConfig {
        field: "faults",
        reason: format!("{count} fault rules; a server has at most {MAX_RULES}"),
    }
}

/// What is wrong with a fault: the member at fault (`status`, `headers[1]`, `count`) and why.
pub(crate) fn fault_problem(fault: &Fault) -> Option<(String, String)> {
    match fault {
        Fault::Http {
            status, headers, ..
        } => {
            if !(100..=999).contains(status) {
                return Some((
                    "status".into(),
                    format!("is {status}, not an HTTP status (200-999)"),
                ));
            }
            if (100..200).contains(status) {
                return Some((
                    "status".into(),
                    format!(
                        "is {status}, an informational status (1xx) that cannot be a final response"
                    ),
                ));
            }
            for (n, (name, value)) in headers.iter().enumerate() {
                if HeaderName::from_bytes(name.as_bytes()).is_err() {
                    return Some((
                        format!("headers[{n}]"),
                        format!("names `{name}`, which is not a valid header name"),
                    ));
                }
                if HeaderValue::from_str(value).is_err() {
                    return Some((
                        format!("headers[{n}]"),
                        format!("has the value `{value}`, which is not a valid header value"),
                    ));
                }
            }
            None
        }
        Fault::NotificationFlood { count } if *count > MAX_FLOOD => Some((
            "count".into(),
            format!("is {count}, above the limit of {MAX_FLOOD}"),
        )),
        Fault::Exit { code } if !(0..=255).contains(code) => Some((
            "code".into(),
            format!("is {code}, not an exit status (0-255)"),
        )),
        Fault::SplitMessage { pause_ms } if *pause_ms > MAX_SPLIT_PAUSE_MS => Some((
            "pauseMs".into(),
            format!("is {pause_ms}, above the limit of {MAX_SPLIT_PAUSE_MS}"),
        )),
        Fault::StderrFlood { bytes } if *bytes > MAX_STDERR_FLOOD => Some((
            "bytes".into(),
            format!("is {bytes}, above the limit of {MAX_STDERR_FLOOD}"),
        )),
        _ => None,
    }
}

/// What is wrong with one server-level rule: the field relative to the rule, and why.
fn rule_problem(rule: &FaultRule) -> Option<(String, String)> {
    if let Some(fault) = &rule.fault
        && let Some((member, reason)) = fault_problem(fault)
    {
        return Some((format!("fault.{member}"), reason));
    }
    if let Some(delay) = &rule.delay
        && let Err(problem) = check_delay(delay, "delay")
    {
        return Some(problem);
    }
    if let Some(when) = &rule.when
        && let Err(problem) = check_matcher(when, "when")
    {
        return Some(problem);
    }
    if rule.times == Some(0) {
        return Some((
            "times".into(),
            "is 0, so the rule would never fire; leave `times` out to fire for every matching request".into(),
        ));
    }
    if let (Some(method), Some(_)) = (&rule.method, &rule.tool)
        && Method::parse(method) != Some(Method::ToolsCall)
    {
        return Some((
            "tool".into(),
            format!("is set while `method` is `{method}`; only `tools/call` names a tool"),
        ));
    }
    None
}

/// Checks one server-level rule added live; the error names `rule.<field>`.
pub(crate) fn check_rule(rule: &FaultRule) -> Result<(), Error> {
    match rule_problem(rule) {
        Some((field, reason)) => Err(Error::InvalidFault {
            field: format!("rule.{field}"),
            reason,
        }),
        None => Ok(()),
    }
}

/// Checks the server's rules and session expiry at start.
pub(crate) fn check_spec(rules: &[FaultRule], expiry: Option<&SessionExpiry>) -> Result<(), Error> {
    if rules.len() > MAX_RULES {
        return Err(too_many_rules(rules.len()));
    }
    for (n, rule) in rules.iter().enumerate() {
        if let Some((field, reason)) = rule_problem(rule) {
            return Err(Error::InvalidFault {
                field: format!("faults[{n}].{field}"),
                reason,
            });
        }
    }
    if let Some(expiry) = expiry {
        let invalid = |reason: &str| Error::InvalidConfig {
            field: "session_expiry",
            reason: reason.into(),
        };
        if expiry.after_requests.is_none() && expiry.after_ms.is_none() {
            return Err(invalid(
                "set `after_requests`, `after_ms` or both; neither would never expire a session",
            ));
        }
        if expiry.after_requests == Some(0) || expiry.after_ms == Some(0) {
            return Err(invalid(
                "must be at least 1: a session that expires at once cannot serve a request",
            ));
        }
    }
    Ok(())
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn bad_statuses_headers_and_floods_are_refused_naming_the_field() {
        for (fault, member) in [
            (Fault::http(42), "status"),
            (Fault::http(101), "status"),
            (
                Fault::http(503).with_header("bad header", "x"),
                "headers[0]",
            ),
            (Fault::notification_flood(MAX_FLOOD + 1), "count"),
        ] {
            let (field, _) = fault_problem(&fault).expect("refused");
            assert_eq!(field, member);
            let rule = FaultRule::any().fault(fault);
            let error = check_spec(&[rule], None).expect_err("refused");
            assert!(
                error
                    .to_string()
                    .contains(&format!("`faults[0].fault.{member}`")),
                "{error}"
            );
        }
        assert!(fault_problem(&Fault::http(429).with_header("Retry-After", "1")).is_none());
    }
}
