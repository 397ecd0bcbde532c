//! Checks a tool's alternative responses: each problem names the field as `servers.json`
//! spells it (`responses[1].when.regex.pattern`).

use super::matchers::{check_delay, check_matcher};
use crate::engine::template;
use crate::error::Error;
use crate::spec::ToolSpec;

/// Responses one tool may have: a list edited over the REST API must stay bounded.
pub(crate) const MAX_RESPONSES: usize = 1_000;

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

#[cfg(test)]
pub(crate) mod tests {
    use super::*;
    use crate::spec::{Comparison, Delay, Fault, Matcher, ResponseSpec};
    use serde_json::json;

    /// A response with a text result.
    pub(crate) fn ok(text: &str) -> ResponseSpec {
        ResponseSpec {
            result: Some(json!({ "content": [{ "type": "text", "text": text }] })),
            ..ResponseSpec::default()
        }
    }

    /// The tool `t` with these responses.
    pub(crate) fn spec(responses: Vec<ResponseSpec>) -> ToolSpec {
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
