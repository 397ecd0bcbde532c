//! Renders a template: interpolation in strings and keys, and json-e's `$` operators.

mod loops;
mod path;

use serde_json::{Map, Value};

use crate::engine::template::jsone::budget::{Budget, ENTRY_BYTES};
use crate::engine::template::jsone::error::{Error, Kind};
use crate::engine::template::jsone::eval::{self, own};
use crate::engine::template::jsone::fromnow;
use crate::engine::template::jsone::parse::{self, is_identifier};
use crate::engine::template::jsone::scope::Scope;
use crate::engine::template::jsone::value::{V, number_text};

/// The deepest a template (and a value a `$reduce` builds) may nest.
pub(crate) const MAX_TEMPLATE_DEPTH: usize = 256;

/// Renders `template`; `None` is json-e's deletion marker (an `$if` without its branch).
pub(crate) fn render(
    template: &Value,
    scope: &Scope<'_>,
    budget: &mut Budget<'_>,
    depth: usize,
) -> Result<Option<Value>, Error> {
    budget.step(1)?;
    if depth > MAX_TEMPLATE_DEPTH {
        return Err(Error::limit(format!(
            "the template nests deeper than {MAX_TEMPLATE_DEPTH} levels"
        )));
    }
    Ok(Some(match template {
        Value::Null | Value::Bool(_) | Value::Number(_) => template.clone(),
        Value::String(s) => Value::String(interpolate(s, scope, budget)?),
        Value::Array(items) => {
            budget.alloc(items.len() * ENTRY_BYTES)?;
            let mut out = Vec::with_capacity(items.len());
            for item in items {
                if let Some(rendered) = render(item, scope, budget, depth + 1)? {
                    out.push(rendered);
                }
            }
            Value::Array(out)
        }
        Value::Object(object) => {
            for key in object.keys().filter(|k| k.starts_with('$')) {
                let shown = interpolate(key, scope, budget)?;
                if shown.starts_with('$') && !shown.starts_with("$$") {
                    return operator(key, object, scope, budget, depth);
                }
            }
            budget.alloc(object.len() * ENTRY_BYTES)?;
            let mut out = Map::new();
            for (key, item) in object {
                let key = key
                    .strip_prefix('$')
                    .filter(|k| k.starts_with('$'))
                    .unwrap_or(key);
                if let Some(rendered) = render(item, scope, budget, depth + 1)? {
                    out.insert(interpolate(key, scope, budget)?, rendered);
                }
            }
            Value::Object(out)
        }
    }))
}

/// Replaces each `${expression}` in `source`; `$${` escapes one.
pub(crate) fn interpolate(
    source: &str,
    scope: &Scope<'_>,
    budget: &mut Budget<'_>,
) -> Result<String, Error> {
    budget.alloc(source.len())?;
    if !source.contains('$') {
        return Ok(source.to_owned());
    }
    let mut out = String::with_capacity(source.len());
    let mut at = 0;
    while let Some(found) = source[at..].find('$') {
        let dollar = at + found;
        let rest = &source[dollar..];
        if rest.starts_with("${") {
            out.push_str(&source[at..dollar]);
            if let Some((text, end)) = path::string_at(source, dollar + 2, scope, budget)? {
                out.push_str(text);
                at = end;
                continue;
            }
            let (node, end) = parse::parse_interpolation(source, dollar + 2)?;
            let value = eval::eval(&node, scope, budget)?;
            match value.json() {
                Some(Value::Number(n)) => out.push_str(&number_text(n)),
                Some(Value::Bool(b)) => out.push_str(if *b { "true" } else { "false" }),
                Some(Value::Null) => {}
                Some(Value::String(s)) => {
                    budget.alloc(s.len())?;
                    out.push_str(s);
                }
                _ => {
                    return Err(Error::template(format!(
                        "interpolation of '{}' produced an array or object",
                        &source[dollar + 2..end - 1]
                    )));
                }
            }
            at = end;
        } else if rest.starts_with("$${") {
            out.push_str(&source[at..=dollar]);
            at = dollar + 2;
        } else {
            out.push_str(&source[at..=dollar]);
            at = dollar + 1;
        }
    }
    out.push_str(&source[at..]);
    Ok(out)
}

pub(super) fn expression<'a>(
    text: &str,
    scope: &'a Scope<'a>,
    budget: &mut Budget<'_>,
) -> Result<V<'a>, Error> {
    let node = parse::parse_all(text)?;
    eval::eval(&node, scope, budget)
}

/// Refuses properties other than the operator and those `allowed` accepts.
pub(super) fn properties(
    operator: &str,
    object: &Map<String, Value>,
    allowed: impl Fn(&str) -> bool,
) -> Result<(), Error> {
    let mut unknown: Vec<&str> = object
        .keys()
        .map(String::as_str)
        .filter(|k| *k != operator && !allowed(k))
        .collect();
    if unknown.is_empty() {
        return Ok(());
    }
    unknown.sort_unstable();
    Err(Error::template(format!(
        "{operator} has undefined properties: {}",
        unknown.join(" ")
    )))
}

/// `each(x)`, `each(x,i)` (or three names for `$reduce`): the names, if `key` has this form.
pub(crate) fn each_names<'k>(key: &'k str, prefix: &str) -> Option<Vec<&'k str>> {
    let inner = key.strip_prefix(prefix)?.strip_suffix(')')?;
    let names: Vec<&str> = inner.split(',').map(str::trim_start).collect();
    names.iter().all(|n| is_identifier(n)).then_some(names)
}

pub(super) fn rendered(
    value: &Value,
    scope: &Scope<'_>,
    budget: &mut Budget<'_>,
    depth: usize,
) -> Result<Value, Error> {
    Ok(render(value, scope, budget, depth + 1)?.unwrap_or(Value::Null))
}

fn operator(
    operator: &str,
    object: &Map<String, Value>,
    scope: &Scope<'_>,
    budget: &mut Budget<'_>,
    depth: usize,
) -> Result<Option<Value>, Error> {
    let Some(value) = object.get(operator) else {
        return Err(Error::template(format!(
            "$<identifier> is reserved; use $$<identifier> ({operator})"
        )));
    };
    let none = |_: &str| false;
    Ok(Some(match operator {
        "$eval" => {
            properties(operator, object, none)?;
            let Value::String(text) = value else {
                return Err(Error::template("$eval must be given a string expression"));
            };
            own(expression(text, scope, budget)?, budget)?
        }
        "$if" => {
            properties(operator, object, |p| p == "then" || p == "else")?;
            let Value::String(text) = value else {
                return Err(Error::template("$if can evaluate string expressions only"));
            };
            let branch = if expression(text, scope, budget)?.truthy() {
                "then"
            } else {
                "else"
            };
            return match object.get(branch) {
                Some(branch) => render(branch, scope, budget, depth + 1),
                None => Ok(None),
            };
        }
        "$json" => {
            properties(operator, object, none)?;
            let value = rendered(value, scope, budget, depth)?;
            let text = sorted_json(&value);
            budget.alloc(text.len())?;
            Value::String(text)
        }
        "$let" => return let_(object, value, scope, budget, depth),
        "$map" => return loops::map(object, value, scope, budget, depth).map(Some),
        "$reduce" => return loops::reduce(object, value, scope, budget, depth),
        "$find" => return loops::find(object, value, scope, budget, depth),
        "$match" => {
            properties(operator, object, none)?;
            let Value::Object(cases) = value else {
                return Err(Error::template("$match can evaluate objects only"));
            };
            // json-e takes the cases in the lexical order of their conditions.
            let mut cases: Vec<(&String, &Value)> = cases.iter().collect();
            cases.sort_by(|a, b| a.0.cmp(b.0));
            let mut out = Vec::new();
            for (condition, item) in cases {
                if condition_holds(condition, scope, budget)? {
                    out.push(rendered(item, scope, budget, depth)?);
                }
            }
            Value::Array(out)
        }
        "$switch" => {
            let Value::Object(cases) = value else {
                return Err(Error::template("$switch can evaluate objects only"));
            };
            let mut chosen = None;
            for (condition, item) in cases {
                if condition == "$default" || !condition_holds(condition, scope, budget)? {
                    continue;
                }
                if chosen.is_some() {
                    return Err(Error::template(
                        "$switch can only have one truthy condition",
                    ));
                }
                chosen = Some(item);
            }
            return match chosen.or_else(|| cases.get("$default")) {
                Some(item) => render(item, scope, budget, depth + 1),
                None => Ok(None),
            };
        }
        "$flatten" | "$flattenDeep" => {
            properties(operator, object, none)?;
            let Value::Array(items) = rendered(value, scope, budget, depth)? else {
                return Err(Error::template(format!(
                    "{operator} value must evaluate to an array"
                )));
            };
            let mut out = Vec::new();
            flatten(items, operator == "$flattenDeep", &mut out);
            Value::Array(out)
        }
        "$fromNow" => {
            properties(operator, object, |p| p == "from")?;
            let reference = match object.get("from") {
                Some(from) => match rendered(from, scope, budget, depth)? {
                    Value::String(from) => from,
                    _ => return Err(Error::template("$fromNow expects a string")),
                },
                None => scope.now().to_owned(),
            };
            let Value::String(offset) = rendered(value, scope, budget, depth)? else {
                return Err(Error::template("$fromNow expects a string"));
            };
            Value::String(fromnow::from_now(&offset, &reference)?)
        }
        "$merge" | "$mergeDeep" => {
            properties(operator, object, none)?;
            let message = format!("{operator} value must evaluate to an array of objects");
            let Value::Array(items) = rendered(value, scope, budget, depth)? else {
                return Err(Error::template(message));
            };
            let mut out = Map::new();
            for item in items {
                let Value::Object(entries) = item else {
                    return Err(Error::template(message));
                };
                for (key, item) in entries {
                    budget.step(1)?;
                    match (out.get_mut(&key), operator == "$mergeDeep") {
                        (Some(existing), true) => merge_deep(existing, item),
                        _ => {
                            out.insert(key, item);
                        }
                    }
                }
            }
            Value::Object(out)
        }
        "$reverse" => {
            properties(operator, object, none)?;
            let Value::Array(mut items) = rendered(value, scope, budget, depth)? else {
                return Err(Error::template("$reverse value must evaluate to an array"));
            };
            items.reverse();
            Value::Array(items)
        }
        "$sort" => return loops::sort(object, value, scope, budget, depth).map(Some),
        _ => {
            return Err(Error::template(format!(
                "$<identifier> is reserved; use $$<identifier> ({operator})"
            )));
        }
    }))
}

fn condition_holds(
    condition: &str,
    scope: &Scope<'_>,
    budget: &mut Budget<'_>,
) -> Result<bool, Error> {
    match expression(condition, scope, budget) {
        Ok(value) => Ok(value.truthy()),
        Err(error) if error.kind == Kind::Limit => Err(error),
        Err(_) => Err(Error::template("parsing error in condition")),
    }
}

fn let_(
    object: &Map<String, Value>,
    value: &Value,
    scope: &Scope<'_>,
    budget: &mut Budget<'_>,
    depth: usize,
) -> Result<Option<Value>, Error> {
    properties("$let", object, |p| p == "in")?;
    if !value.is_object() {
        return Err(Error::template("$let value must be an object"));
    }
    let Value::Object(bindings) = value else {
        return Err(Error::template("$let value must be an object"));
    };
    let mut child = scope.child();
    if bindings
        .keys()
        .any(|k| k.starts_with('$') && !k.starts_with("$$"))
    {
        // The bindings are an operator (`{"$eval": "{a: 1}"}`): bind what it renders to.
        let Value::Object(bound) = rendered(value, scope, budget, depth)? else {
            return Err(Error::template("$let value must be an object"));
        };
        for (name, item) in bound {
            if !is_identifier(&name) {
                return Err(Error::template(
                    "top level keys of $let must follow /[a-zA-Z_][a-zA-Z0-9_]*/",
                ));
            }
            child.bind(name, V::owned(item));
        }
        return match object.get("in") {
            Some(body) => render(body, &child, budget, depth + 1),
            None => Err(Error::template("$let operator requires an `in` clause")),
        };
    }
    for (name, bound) in bindings {
        let name = interpolate(name, scope, budget)?;
        if !is_identifier(&name) {
            return Err(Error::template(
                "top level keys of $let must follow /[a-zA-Z_][a-zA-Z0-9_]*/",
            ));
        }
        // A binding that is one `$eval` keeps what it evaluates to, so a builtin can be
        // bound to a new name (`{"$let": {"f": {"$eval": "max"}}, ...}`).
        let value = match bound
            .as_object()
            .and_then(|o| o.get("$eval").filter(|_| o.len() == 1))
        {
            Some(Value::String(text)) => match expression(text, scope, budget)? {
                V::Func(f) => V::Func(f),
                json => V::owned(own(json, budget)?),
            },
            _ => match render(bound, scope, budget, depth + 1)? {
                Some(bound) => V::owned(bound),
                None => continue,
            },
        };
        child.bind(name, value);
    }
    let Some(body) = object.get("in") else {
        return Err(Error::template("$let operator requires an `in` clause"));
    };
    render(body, &child, budget, depth + 1)
}

fn flatten(items: Vec<Value>, deep: bool, out: &mut Vec<Value>) {
    for item in items {
        match item {
            Value::Array(inner) if deep => flatten(inner, true, out),
            Value::Array(inner) => out.extend(inner),
            other => out.push(other),
        }
    }
}

fn merge_deep(into: &mut Value, from: Value) {
    match (into, from) {
        (Value::Array(a), Value::Array(b)) => a.extend(b),
        (Value::Object(a), Value::Object(b)) => {
            for (key, item) in b {
                match a.get_mut(&key) {
                    Some(existing) => merge_deep(existing, item),
                    None => {
                        a.insert(key, item);
                    }
                }
            }
        }
        (into, from) => *into = from,
    }
}

/// `$json` writes keys sorted, as json-e does, so its output does not depend on the order a
/// template was written in.
fn sorted_json(value: &Value) -> String {
    fn sorted(value: &Value) -> Value {
        match value {
            Value::Object(entries) => {
                let mut keys: Vec<&String> = entries.keys().collect();
                keys.sort();
                Value::Object(
                    keys.into_iter()
                        .map(|k| (k.clone(), sorted(&entries[k])))
                        .collect(),
                )
            }
            Value::Array(items) => Value::Array(items.iter().map(sorted).collect()),
            other => other.clone(),
        }
    }
    sorted(value).to_string()
}
