//! A validation error tree flattened to what a person reads: one violation per failing
//! keyword, at the instance's JSON pointer, worded with the value at fault
//! (`"5" is not of type "integer"`).

use std::fmt;

use boon::{ErrorKind, InstanceToken, ValidationError};
use serde_json::Value;

/// Characters of a value quoted in a reason; the rest is cut with `...`, since a value at
/// fault may be a whole document.
const MAX_QUOTED: usize = 120;

/// One way a value breaks a schema.
#[derive(Debug, Clone, PartialEq, Eq)]
pub(crate) struct Violation {
    /// JSON pointer into the value; `/` for the value itself.
    pub(crate) pointer: String,
    /// What is wrong there.
    pub(crate) reason: String,
    /// Set when the violation is a member the schema does not allow (`additionalProperties`
    /// or `unevaluatedProperties` false): its name, and `pointer` is the member's own.
    pub(crate) unknown: Option<String>,
}

impl fmt::Display for Violation {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        write!(f, "at {}: {}", self.pointer, self.reason)
    }
}

/// The leaves of `error`, worded against `root`, the value that was validated.
pub(crate) fn flatten(error: &ValidationError<'_, '_>, root: &Value) -> Vec<Violation> {
    let mut out = Vec::new();
    collect(error, root, &mut out);
    out
}

fn collect(error: &ValidationError<'_, '_>, root: &Value, out: &mut Vec<Violation>) {
    let tokens = &error.instance_location.tokens;
    let pointer = pointer(tokens);
    let value = lookup(root, tokens);
    let shown = || quoted(value);
    let mut push = |reason: String| {
        out.push(Violation {
            pointer: pointer.clone(),
            reason,
            unknown: None,
        });
    };
    match &error.kind {
        // Wrappers: what failed is inside.
        ErrorKind::Group
        | ErrorKind::Schema { .. }
        | ErrorKind::Reference { .. }
        | ErrorKind::AllOf
        | ErrorKind::PropertyName { .. }
        | ErrorKind::ContentSchema
            if !error.causes.is_empty() =>
        {
            for cause in &error.causes {
                collect(cause, root, out);
            }
        }
        ErrorKind::AnyOf | ErrorKind::OneOf(None) => {
            // A tagged union fails every branch; when exactly one branch fails only for
            // members it does not allow, that is the branch meant, and those members are
            // the problem.
            let mut meant = error.causes.iter().filter(|cause| only_unknown(cause));
            match (meant.next(), meant.next()) {
                (Some(branch), None) => collect(branch, root, out),
                _ => {
                    let keyword = if matches!(error.kind, ErrorKind::AnyOf) {
                        "anyOf"
                    } else {
                        "oneOf"
                    };
                    push(format!(
                        "{} is not valid under any of the schemas listed in the '{keyword}' keyword",
                        shown()
                    ));
                }
            }
        }
        ErrorKind::OneOf(Some(_)) => push(format!(
            "{} is valid under more than one of the schemas listed in the 'oneOf' keyword",
            shown()
        )),
        ErrorKind::AdditionalProperties { got } => {
            for member in got {
                out.push(unknown(&pointer, member));
            }
        }
        ErrorKind::FalseSchema => match tokens.last() {
            // `unevaluatedProperties: false` reports each member it refuses this way.
            Some(InstanceToken::Prop(member)) => {
                let parent = self::pointer(&tokens[..tokens.len() - 1]);
                out.push(unknown(&parent, member));
            }
            _ => push(format!("False schema does not allow {}", shown())),
        },
        ErrorKind::Required { want } => {
            for property in want {
                push(format!("{} is a required property", quoted_str(property)));
            }
        }
        ErrorKind::Dependency { prop, missing }
        | ErrorKind::DependentRequired { prop, missing } => {
            for property in missing {
                push(format!(
                    "{} is a required property when {} is present",
                    quoted_str(property),
                    quoted_str(prop)
                ));
            }
        }
        ErrorKind::Type { want, .. } => {
            let names: Vec<String> = want.iter().map(|t| format!("\"{t}\"")).collect();
            match names.as_slice() {
                [one] => push(format!("{} is not of type {one}", shown())),
                many => push(format!("{} is not of types {}", shown(), many.join(", "))),
            }
        }
        ErrorKind::Enum { want } => {
            let options: Vec<String> = want.iter().map(|v| quoted(Some(v))).collect();
            push(format!(
                "{} is not one of [{}]",
                shown(),
                options.join(", ")
            ));
        }
        ErrorKind::Const { want } => push(format!("{} was expected", quoted(Some(want)))),
        ErrorKind::Minimum { want, .. } => {
            push(format!("{} is less than the minimum of {want}", shown()));
        }
        ErrorKind::Maximum { want, .. } => {
            push(format!("{} is greater than the maximum of {want}", shown()));
        }
        ErrorKind::ExclusiveMinimum { want, .. } => push(format!(
            "{} is less than or equal to the minimum of {want}",
            shown()
        )),
        ErrorKind::ExclusiveMaximum { want, .. } => push(format!(
            "{} is greater than or equal to the maximum of {want}",
            shown()
        )),
        ErrorKind::MultipleOf { want, .. } => {
            push(format!("{} is not a multiple of {want}", shown()));
        }
        ErrorKind::MinLength { want, .. } => {
            push(format!(
                "{} is shorter than {want} character{}",
                shown(),
                plural(*want)
            ));
        }
        ErrorKind::MaxLength { want, .. } => {
            push(format!(
                "{} is longer than {want} character{}",
                shown(),
                plural(*want)
            ));
        }
        ErrorKind::MinItems { want, .. } => {
            push(format!(
                "{} has fewer than {want} item{}",
                shown(),
                plural(*want)
            ));
        }
        ErrorKind::MaxItems { want, .. } => {
            push(format!(
                "{} has more than {want} item{}",
                shown(),
                plural(*want)
            ));
        }
        ErrorKind::MinProperties { want, .. } => push(format!(
            "{} has fewer than {want} propert{}",
            shown(),
            if *want == 1 { "y" } else { "ies" }
        )),
        ErrorKind::MaxProperties { want, .. } => push(format!(
            "{} has more than {want} propert{}",
            shown(),
            if *want == 1 { "y" } else { "ies" }
        )),
        ErrorKind::UniqueItems { got } => push(format!(
            "{} has non-unique elements (items {} and {} are equal)",
            shown(),
            got[0],
            got[1]
        )),
        ErrorKind::Pattern { want, .. } => {
            push(format!("{} does not match {}", shown(), quoted_str(want)));
        }
        ErrorKind::Format { want, .. } => push(format!("{} is not a \"{want}\"", shown())),
        ErrorKind::Not => push(format!(
            "{} must not be valid under the 'not' schema",
            shown()
        )),
        ErrorKind::Contains => push(format!(
            "none of the items of {} are valid under the 'contains' schema",
            shown()
        )),
        // The rest (content checks, reference cycles, min/maxContains) word themselves well.
        other => push(other.to_string()),
    }
}

fn unknown(parent: &str, member: &str) -> Violation {
    // RFC 6901: `~` and `/` inside a member name are escaped.
    let escaped = member.replace('~', "~0").replace('/', "~1");
    let pointer = if parent == "/" {
        format!("/{escaped}")
    } else {
        format!("{parent}/{escaped}")
    };
    Violation {
        pointer,
        reason: format!("unknown field `{member}`"),
        unknown: Some(member.to_string()),
    }
}

/// Whether every leaf of `error` is a member the schema does not allow.
fn only_unknown(error: &ValidationError<'_, '_>) -> bool {
    match &error.kind {
        ErrorKind::AdditionalProperties { .. } => true,
        ErrorKind::FalseSchema => matches!(
            error.instance_location.tokens.last(),
            Some(InstanceToken::Prop(_))
        ),
        ErrorKind::Group
        | ErrorKind::Schema { .. }
        | ErrorKind::Reference { .. }
        | ErrorKind::AllOf => !error.causes.is_empty() && error.causes.iter().all(only_unknown),
        _ => false,
    }
}

fn pointer(tokens: &[InstanceToken<'_>]) -> String {
    if tokens.is_empty() {
        return "/".into();
    }
    let mut text = String::new();
    for token in tokens {
        text.push('/');
        match token {
            InstanceToken::Prop(name) => text.push_str(&name.replace('~', "~0").replace('/', "~1")),
            InstanceToken::Item(index) => text.push_str(&index.to_string()),
        }
    }
    text
}

fn lookup<'v>(root: &'v Value, tokens: &[InstanceToken<'_>]) -> Option<&'v Value> {
    tokens.iter().try_fold(root, |value, token| match token {
        InstanceToken::Prop(name) => value.get(name.as_ref()),
        InstanceToken::Item(index) => value.get(index),
    })
}

/// The value as JSON, cut to [`MAX_QUOTED`] characters.
fn quoted(value: Option<&Value>) -> String {
    match value {
        Some(value) => cut(value.to_string()),
        None => "the value".into(),
    }
}

fn quoted_str(text: &str) -> String {
    cut(Value::String(text.to_string()).to_string())
}

fn cut(text: String) -> String {
    match text.char_indices().nth(MAX_QUOTED) {
        Some((end, _)) => format!("{}...", &text[..end]),
        None => text,
    }
}

fn plural(n: usize) -> &'static str {
    if n == 1 { "" } else { "s" }
}

#[cfg(test)]
mod tests {
    use super::super::compile::compile;
    use serde_json::json;

    fn reasons(schema: serde_json::Value, value: serde_json::Value) -> Vec<String> {
        compile(&schema)
            .expect("compiles")
            .violations(&value)
            .iter()
            .map(|v| v.to_string())
            .collect()
    }

    #[test]
    fn each_keyword_names_the_value_at_fault() {
        assert_eq!(
            reasons(json!({ "type": "integer" }), json!("5")),
            [r#"at /: "5" is not of type "integer""#]
        );
        assert_eq!(
            reasons(json!({ "enum": ["a", "b"] }), json!("c")),
            [r#"at /: "c" is not one of ["a", "b"]"#]
        );
        assert_eq!(
            reasons(
                json!({ "items": { "maxLength": 2 } }),
                json!(["ok", "long"])
            ),
            [r#"at /1: "long" is longer than 2 characters"#]
        );
        let long = "x".repeat(500);
        let reason = &reasons(json!({ "type": "integer" }), json!(long))[0];
        assert!(
            reason.len() < 200 && reason.contains("xxx... is not of type"),
            "{reason}"
        );
    }

    #[test]
    fn unknown_members_point_at_themselves_and_pick_the_branch_meant() {
        let step = json!({ "oneOf": [
            { "type": "object", "properties": { "delay": { "type": "integer" } }, "required": ["delay"], "additionalProperties": false },
            { "type": "object", "properties": { "log": { "type": "string" } }, "required": ["log"], "additionalProperties": false }
        ] });
        let violations = compile(&step)
            .expect("compiles")
            .violations(&json!({ "delay": 5, "unit": "ms" }));
        assert_eq!(violations.len(), 1, "{violations:?}");
        assert_eq!(violations[0].pointer, "/unit");
        assert_eq!(violations[0].unknown.as_deref(), Some("unit"));
        let neither = reasons(step, json!({ "other": 1 }));
        assert_eq!(
            neither,
            [
                r#"at /: {"other":1} is not valid under any of the schemas listed in the 'oneOf' keyword"#
            ]
        );
        let uneval = json!({ "properties": { "a": {} }, "unevaluatedProperties": false });
        assert_eq!(
            reasons(uneval, json!({ "a": 1, "b/c": 2 })),
            ["at /b~1c: unknown field `b/c`"]
        );
    }
}
