//! Evaluates a parsed expression against a scope, charging the budget for every node.

use std::borrow::Cow;

use serde_json::{Map, Value};

use super::budget::{Budget, ENTRY_BYTES};
use super::builtins;
use super::error::Error;
use super::parse::{BinOp, Node, UnOp};
use super::scope::Scope;
use super::value::{V, equal};

pub(crate) fn eval<'a>(
    node: &Node<'_>,
    scope: &'a Scope<'a>,
    budget: &mut Budget<'_>,
) -> Result<V<'a>, Error> {
    budget.step(1)?;
    Ok(match node {
        Node::Number(n) => V::number(*n),
        Node::Str(s) => {
            budget.alloc(s.len())?;
            V::owned(Value::String((*s).to_owned()))
        }
        Node::Bool(b) => V::owned(Value::Bool(*b)),
        Node::Null => V::owned(Value::Null),
        Node::Ident(name) => scope.get(name).ok_or_else(|| Error::unknown(name))?,
        Node::Array(items) => {
            budget.alloc(items.len() * ENTRY_BYTES)?;
            let mut out = Vec::with_capacity(items.len());
            for item in items {
                out.push(own(eval(item, scope, budget)?, budget)?);
            }
            V::owned(Value::Array(out))
        }
        Node::Object(entries) => {
            budget.alloc(entries.len() * ENTRY_BYTES)?;
            let mut out = Map::new();
            for (key, item) in entries {
                let item = own(eval(item, scope, budget)?, budget)?;
                out.insert((*key).to_owned(), item);
            }
            V::owned(Value::Object(out))
        }
        Node::Unary(op, operand) => unary(*op, eval(operand, scope, budget)?)?,
        Node::Binary(left, op, right) => binary(left, *op, right, scope, budget)?,
        Node::Index(target, index) => {
            let target = eval(target, scope, budget)?;
            let index = eval(index, scope, budget)?;
            self::index(target, &index, budget)?
        }
        Node::Slice(target, from, to) => {
            let target = eval(target, scope, budget)?;
            let from = from.as_ref().map(|n| eval(n, scope, budget)).transpose()?;
            let to = to.as_ref().map(|n| eval(n, scope, budget)).transpose()?;
            slice(&target, from.as_ref(), to.as_ref(), budget)?
        }
        Node::Dot(target, name) => {
            let target = eval(target, scope, budget)?;
            if !matches!(target.json(), Some(Value::Object(_))) {
                return Err(Error::interpreter("dot operator expects an object"));
            }
            child(target, |v| v.get(*name), budget)?
                .ok_or_else(|| Error::interpreter(format!("object has no property {name}")))?
        }
        Node::Call(callee, args) => {
            let callee = eval(callee, scope, budget)?;
            let mut values = Vec::with_capacity(args.len());
            for arg in args {
                values.push(eval(arg, scope, budget)?);
            }
            match callee {
                V::Func(builtin) => builtins::call(builtin, &values, scope, budget)?,
                V::Json(_) => {
                    return Err(Error::interpreter(
                        "function invocation requires a function",
                    ));
                }
            }
        }
    })
}

/// Makes `value` owned JSON for the output, charging for what a borrowed value copies.
pub(crate) fn own(value: V<'_>, budget: &mut Budget<'_>) -> Result<Value, Error> {
    if let V::Json(Cow::Borrowed(json)) = &value {
        charge(json, budget)?;
    }
    value.into_json()
}

/// Charges the size of `value`: one step per node, its strings' bytes.
pub(crate) fn charge(value: &Value, budget: &mut Budget<'_>) -> Result<(), Error> {
    let mut stack = vec![value];
    while let Some(value) = stack.pop() {
        budget.step(1)?;
        match value {
            Value::String(s) => budget.alloc(s.len() + ENTRY_BYTES)?,
            Value::Array(items) => {
                budget.alloc(ENTRY_BYTES)?;
                stack.extend(items);
            }
            Value::Object(entries) => {
                budget.alloc(ENTRY_BYTES)?;
                for (key, item) in entries {
                    budget.alloc(key.len())?;
                    stack.push(item);
                }
            }
            _ => budget.alloc(ENTRY_BYTES)?,
        }
    }
    Ok(())
}

/// A part of `target` (an element, a property), borrowed when `target` is.
fn child<'a>(
    target: V<'a>,
    pick: impl FnOnce(&Value) -> Option<&Value>,
    budget: &mut Budget<'_>,
) -> Result<Option<V<'a>>, Error> {
    match target {
        V::Json(Cow::Borrowed(json)) => Ok(pick(json).map(V::borrowed)),
        V::Json(Cow::Owned(json)) => match pick(&json) {
            Some(part) => {
                charge(part, budget)?;
                Ok(Some(V::owned(part.clone())))
            }
            None => Ok(None),
        },
        V::Func(_) => Ok(None),
    }
}

fn unary(op: UnOp, operand: V<'_>) -> Result<V<'static>, Error> {
    match op {
        UnOp::Not => Ok(V::owned(Value::Bool(!operand.truthy()))),
        UnOp::Neg => match operand.as_f64() {
            Some(n) if operand.type_name() == "number" => Ok(V::number(-n)),
            _ => Err(Error::interpreter("This operator expects a number")),
        },
        UnOp::Plus => match operand.as_f64() {
            Some(n) if operand.type_name() == "number" => Ok(V::number(n)),
            _ => Err(Error::interpreter("This operator expects a number")),
        },
    }
}

fn binary<'a>(
    left: &Node<'_>,
    op: BinOp,
    right: &Node<'_>,
    scope: &'a Scope<'a>,
    budget: &mut Budget<'_>,
) -> Result<V<'a>, Error> {
    let l = eval(left, scope, budget)?;
    match op {
        BinOp::Or if l.truthy() => return Ok(V::owned(Value::Bool(true))),
        BinOp::And if !l.truthy() => return Ok(V::owned(Value::Bool(false))),
        _ => {}
    }
    let r = eval(right, scope, budget)?;
    let numbers = match (l.json(), r.json()) {
        (Some(Value::Number(a)), Some(Value::Number(b))) => Some((
            a.as_f64().unwrap_or(f64::NAN),
            b.as_f64().unwrap_or(f64::NAN),
        )),
        _ => None,
    };
    let strings = match (l.json(), r.json()) {
        (Some(Value::String(a)), Some(Value::String(b))) => Some((a.as_str(), b.as_str())),
        _ => None,
    };
    let bool = |b: bool| Ok(V::owned(Value::Bool(b)));
    match op {
        BinOp::Or | BinOp::And => bool(r.truthy()),
        BinOp::Eq => bool(equal(&l, &r)),
        BinOp::Ne => bool(!equal(&l, &r)),
        BinOp::Pow | BinOp::Mul | BinOp::Div | BinOp::Sub => {
            let Some((a, b)) = numbers else {
                return Err(Error::interpreter("This operator expects numbers"));
            };
            let n = match op {
                BinOp::Pow => a.powf(b),
                BinOp::Mul => a * b,
                BinOp::Sub => a - b,
                _ => {
                    let q = a / b;
                    if q.is_infinite() {
                        return Err(Error::interpreter("division by zero"));
                    }
                    q
                }
            };
            Ok(V::number(n))
        }
        BinOp::Add => {
            if let Some((a, b)) = numbers {
                return Ok(V::number(a + b));
            }
            if let Some((a, b)) = strings {
                budget.alloc(a.len() + b.len())?;
                return Ok(V::owned(Value::String(format!("{a}{b}"))));
            }
            Err(Error::interpreter(
                "This operator expects numbers or strings",
            ))
        }
        BinOp::Lt | BinOp::Le | BinOp::Gt | BinOp::Ge => {
            let ordering = match (numbers, strings) {
                (Some((a, b)), _) => a.partial_cmp(&b),
                (_, Some((a, b))) => Some(a.cmp(b)),
                _ => return Err(Error::interpreter("Expected numbers or strings")),
            };
            let Some(ordering) = ordering else {
                return bool(false);
            };
            bool(match op {
                BinOp::Lt => ordering.is_lt(),
                BinOp::Le => ordering.is_le(),
                BinOp::Gt => ordering.is_gt(),
                _ => ordering.is_ge(),
            })
        }
        BinOp::In => {
            let found = match (l.json(), r.json()) {
                (Some(Value::String(needle)), Some(Value::String(hay))) => {
                    budget.step((hay.len() / 64) as u64)?;
                    hay.contains(needle.as_str())
                }
                (_, Some(Value::Array(items))) => {
                    budget.step(items.len() as u64)?;
                    items.iter().any(|item| equal(&l, &V::borrowed(item)))
                }
                (Some(Value::String(key)), Some(Value::Object(entries))) => {
                    entries.contains_key(key)
                }
                _ => return Err(Error::interpreter("Expected proper args for in")),
            };
            bool(found)
        }
    }
}

/// An integral f64 as i64, for indexes and slice bounds.
fn integer(value: &V<'_>) -> Option<i64> {
    match value.json() {
        Some(Value::Number(n)) => {
            if let Some(i) = n.as_i64() {
                return Some(i);
            }
            let f = n.as_f64()?;
            // Truncation is the test: only integral values in range come back equal.
            let i = f as i64;
            (i as f64 == f).then_some(i)
        }
        _ => None,
    }
}

fn index<'a>(target: V<'a>, index: &V<'_>, budget: &mut Budget<'_>) -> Result<V<'a>, Error> {
    match target.json() {
        Some(Value::Array(items)) => {
            let len = items.len() as i64;
            let mut i = integer(index).ok_or_else(|| {
                Error::interpreter("should only use integers to access arrays or strings")
            })?;
            if i < 0 {
                i += len;
            }
            if i < 0 || i >= len {
                return Err(Error::interpreter("index out of bounds"));
            }
            let i = i as usize;
            child(target, |v| v.get(i), budget)?
                .ok_or_else(|| Error::interpreter("index out of bounds"))
        }
        Some(Value::String(text)) => {
            let mut i = integer(index).ok_or_else(|| {
                Error::interpreter("should only use integers to access arrays or strings")
            })?;
            budget.step((text.len() / 64) as u64)?;
            if i < 0 {
                i = (i + text.chars().count() as i64).max(0);
            }
            match text.chars().nth(i as usize) {
                Some(c) => Ok(V::owned(Value::String(c.to_string()))),
                None => Err(Error::interpreter(
                    "index out of bounds or not on utf8 boundary",
                )),
            }
        }
        Some(Value::Object(_)) => {
            match index.json() {
                Some(Value::String(key)) => {
                    let key = key.clone();
                    Ok(child(target, |v| v.get(&key), budget)?
                        .unwrap_or_else(|| V::owned(Value::Null)))
                }
                _ => Err(Error::interpreter("object keys must be strings")),
            }
        }
        _ => Err(Error::interpreter(
            "indexing operator expects an object, string, or array",
        )),
    }
}

fn slice<'a>(
    target: &V<'a>,
    from: Option<&V<'_>>,
    to: Option<&V<'_>>,
    budget: &mut Budget<'_>,
) -> Result<V<'a>, Error> {
    let len = match target.json() {
        Some(Value::String(s)) => {
            budget.step((s.len() / 64) as u64)?;
            s.chars().count()
        }
        Some(Value::Array(items)) => items.len(),
        _ => return Err(Error::interpreter("can only slice strings and arrays")),
    };
    let bound = |v: Option<&V<'_>>, default: usize| -> Result<usize, Error> {
        let Some(v) = v else { return Ok(default) };
        let mut i =
            integer(v).ok_or_else(|| Error::interpreter("slice indices must be integers"))?;
        if i < 0 {
            i += len as i64;
        }
        Ok(i.clamp(0, len as i64) as usize)
    };
    let (a, b) = (bound(from, 0)?, bound(to, len)?);
    let b = b.max(a);
    Ok(match target.json() {
        Some(Value::String(s)) => {
            let text: String = s.chars().skip(a).take(b - a).collect();
            budget.alloc(text.len())?;
            V::owned(Value::String(text))
        }
        Some(Value::Array(items)) => {
            let part = &items[a..b];
            let mut out = Vec::with_capacity(part.len());
            for item in part {
                charge(item, budget)?;
                out.push(item.clone());
            }
            V::owned(Value::Array(out))
        }
        _ => V::owned(Value::Null),
    })
}

/// A value's depth, walked without recursion; values a `$reduce` feeds back into itself
/// could otherwise nest deep enough to overflow the recursive code that reads them.
pub(crate) fn depth(value: &Value) -> usize {
    let mut deepest = 0;
    let mut stack = vec![(value, 1)];
    while let Some((value, level)) = stack.pop() {
        deepest = deepest.max(level);
        match value {
            Value::Array(items) => stack.extend(items.iter().map(|v| (v, level + 1))),
            Value::Object(entries) => stack.extend(entries.values().map(|v| (v, level + 1))),
            _ => {}
        }
    }
    deepest
}
