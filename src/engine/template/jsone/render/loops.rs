//! json-e's looping operators: `$map`, `$reduce`, `$find` and `$sort`, each running a part
//! of the template once per element, every iteration charged to the budget.

use serde_json::{Map, Value};

use super::{MAX_TEMPLATE_DEPTH, each_names, properties, render, rendered};
use crate::engine::template::jsone::budget::Budget;
use crate::engine::template::jsone::error::Error;
use crate::engine::template::jsone::eval::{self, own};
use crate::engine::template::jsone::parse;
use crate::engine::template::jsone::scope::Scope;
use crate::engine::template::jsone::value::V;

/// The `each(..)` property of a looping operator and its names.
fn each<'t>(
    operator: &str,
    object: &'t Map<String, Value>,
    allowed: &[&str],
    names: std::ops::RangeInclusive<usize>,
    syntax: &str,
) -> Result<(Vec<&'t str>, &'t Value), Error> {
    let is_each = |p: &str| each_names(p, "each(").is_some_and(|n| names.contains(&n.len()));
    properties(operator, object, |p| allowed.contains(&p) || is_each(p))?;
    let expected = 2 + allowed.len();
    if object.len() != expected {
        let count = ["", "", "two", "three"][expected.min(3)];
        return Err(Error::template(format!(
            "{operator} must have exactly {count} properties"
        )));
    }
    object
        .iter()
        .find(|(k, _)| is_each(k))
        .and_then(|(k, v)| Some((each_names(k, "each(")?, v)))
        .ok_or_else(|| Error::template(format!("{operator} requires {syntax} syntax")))
}

pub(super) fn map(
    object: &Map<String, Value>,
    value: &Value,
    scope: &Scope<'_>,
    budget: &mut Budget<'_>,
    depth: usize,
) -> Result<Value, Error> {
    let (names, body) = each("$map", object, &[], 1..=2, "each(identifier[,identifier])")?;
    match rendered(value, scope, budget, depth)? {
        Value::Object(entries) => {
            let mut out = Map::new();
            for (key, item) in entries {
                let mut child = scope.child();
                if let [value_name, key_name] = names[..] {
                    child.bind(key_name, V::owned(Value::String(key)));
                    child.bind(value_name, V::owned(item));
                } else {
                    let pair = serde_json::json!({ "key": key, "val": item });
                    child.bind(names[0], V::owned(pair));
                }
                match render(body, &child, budget, depth + 1)? {
                    Some(Value::Object(part)) => out.extend(part),
                    _ => {
                        return Err(Error::template(
                            "$map on objects expects each(..) to evaluate to an object",
                        ));
                    }
                }
            }
            Ok(Value::Object(out))
        }
        Value::Array(items) => {
            let mut out = Vec::with_capacity(items.len());
            for (i, item) in items.into_iter().enumerate() {
                let mut child = scope.child();
                child.bind(names[0], V::owned(item));
                if let Some(index) = names.get(1) {
                    child.bind(*index, V::number(i as f64));
                }
                if let Some(rendered) = render(body, &child, budget, depth + 1)? {
                    out.push(rendered);
                }
            }
            Ok(Value::Array(out))
        }
        _ => Err(Error::template(
            "$map value must evaluate to an array or object",
        )),
    }
}

pub(super) fn reduce(
    object: &Map<String, Value>,
    value: &Value,
    scope: &Scope<'_>,
    budget: &mut Budget<'_>,
    depth: usize,
) -> Result<Option<Value>, Error> {
    let (names, body) = each(
        "$reduce",
        object,
        &["initial"],
        2..=3,
        "each(identifier,identifier[,identifier])",
    )?;
    let Value::Array(items) = rendered(value, scope, budget, depth)? else {
        return Err(Error::template("$reduce value must evaluate to an array"));
    };
    let mut acc = object.get("initial").cloned().unwrap_or(Value::Null);
    for (i, item) in items.into_iter().enumerate() {
        let mut child = scope.child();
        child.bind(names[0], V::owned(acc.clone()));
        child.bind(names[1], V::owned(item));
        if let Some(index) = names.get(2) {
            child.bind(*index, V::number(i as f64));
        }
        if let Some(next) = render(body, &child, budget, depth + 1)? {
            // The accumulator feeds back into itself: keep it shallow enough for the
            // recursive code (equality, serialization, drop) that reads it later.
            let deep = eval::depth(&next);
            budget.step(deep as u64)?;
            if deep > MAX_TEMPLATE_DEPTH {
                return Err(Error::limit(format!(
                    "$reduce built a value nested deeper than {MAX_TEMPLATE_DEPTH} levels"
                )));
            }
            acc = next;
        }
    }
    Ok(Some(acc))
}

pub(super) fn find(
    object: &Map<String, Value>,
    value: &Value,
    scope: &Scope<'_>,
    budget: &mut Budget<'_>,
    depth: usize,
) -> Result<Option<Value>, Error> {
    let (names, body) = each("$find", object, &[], 1..=2, "each(identifier[,identifier])")?;
    let Value::Array(items) = rendered(value, scope, budget, depth)? else {
        return Err(Error::template("$find value must be an array"));
    };
    let Value::String(test) = body else {
        return Err(Error::template(
            "$find can evaluate string expressions only",
        ));
    };
    let node = parse::parse_all(test)?;
    for (i, item) in items.iter().enumerate() {
        let mut child = scope.child();
        child.bind(names[0], V::borrowed(item));
        if let Some(index) = names.get(1) {
            child.bind(*index, V::number(i as f64));
        }
        if eval::eval(&node, &child, budget)?.truthy() {
            return render(item, &child, budget, depth + 1);
        }
    }
    Ok(None)
}

pub(super) fn sort(
    object: &Map<String, Value>,
    value: &Value,
    scope: &Scope<'_>,
    budget: &mut Budget<'_>,
    depth: usize,
) -> Result<Value, Error> {
    let is_by = |p: &str| each_names(p, "by(").is_some_and(|n| n.len() == 1);
    properties("$sort", object, is_by)?;
    let same_type = || Error::template("$sorted values to be sorted must have the same type");
    let Value::Array(items) = rendered(value, scope, budget, depth)? else {
        return Err(same_type());
    };
    if items.is_empty() {
        return Ok(Value::Array(items));
    }
    let by: Vec<(&String, &Value)> = object.iter().filter(|(k, _)| is_by(k)).collect();
    let keys: Vec<Value> = match by[..] {
        [] => items.clone(),
        [(key, expr)] => {
            let name = each_names(key, "by(")
                .and_then(|n| n.first().copied())
                .unwrap_or_default();
            let Value::String(expr) = expr else {
                return Err(Error::interpreter("invalid expression in $sorted by"));
            };
            let node = parse::parse_all(expr)?;
            let mut keys = Vec::with_capacity(items.len());
            for item in &items {
                let mut child = scope.child();
                child.bind(name, V::borrowed(item));
                keys.push(own(eval::eval(&node, &child, budget)?, budget)?);
            }
            keys
        }
        _ => return Err(Error::template("only one by(..) is allowed")),
    };
    budget.step(items.len() as u64 * 16)?;
    let mut pairs: Vec<(Value, Value)> = keys.into_iter().zip(items).collect();
    if pairs.iter().all(|(k, _)| k.is_string()) {
        pairs.sort_by(|a, b| a.0.as_str().cmp(&b.0.as_str()));
    } else if pairs.iter().all(|(k, _)| k.is_number()) {
        pairs.sort_by(|a, b| {
            let (a, b) = (a.0.as_f64(), b.0.as_f64());
            a.partial_cmp(&b).unwrap_or(std::cmp::Ordering::Equal)
        });
    } else {
        return Err(same_type());
    }
    Ok(Value::Array(
        pairs.into_iter().map(|(_, item)| item).collect(),
    ))
}
