//! The values an expression computes: JSON borrowed from the context or built by the
//! expression, or a builtin function. json-e computes with f64 numbers; JSON that passes
//! through untouched keeps its own representation.

use std::borrow::Cow;

use serde_json::{Number, Value};

use super::error::Error;

/// A computed value: borrowed where it came from the context, so `args.message` copies nothing
/// until it lands in the output.
#[derive(Debug, Clone)]
pub(crate) enum V<'a> {
    Json(Cow<'a, Value>),
    Func(Builtin),
}

impl<'a> V<'a> {
    pub(crate) fn owned(value: Value) -> Self {
        V::Json(Cow::Owned(value))
    }

    pub(crate) fn borrowed(value: &'a Value) -> Self {
        V::Json(Cow::Borrowed(value))
    }

    pub(crate) fn number(n: f64) -> Self {
        V::owned(number(n))
    }

    pub(crate) fn json(&self) -> Option<&Value> {
        match self {
            V::Json(value) => Some(value),
            V::Func(_) => None,
        }
    }

    pub(crate) fn into_json(self) -> Result<Value, Error> {
        match self {
            V::Json(value) => Ok(value.into_owned()),
            V::Func(_) => Err(Error::template("cannot represent JSON-e functions as JSON")),
        }
    }

    pub(crate) fn truthy(&self) -> bool {
        match self {
            V::Json(value) => truthy(value),
            V::Func(_) => true,
        }
    }

    pub(crate) fn type_name(&self) -> &'static str {
        match self {
            V::Func(_) => "function",
            V::Json(value) => match value.as_ref() {
                Value::Null => "null",
                Value::Bool(_) => "boolean",
                Value::Number(_) => "number",
                Value::String(_) => "string",
                Value::Array(_) => "array",
                Value::Object(_) => "object",
            },
        }
    }

    pub(crate) fn as_f64(&self) -> Option<f64> {
        self.json().and_then(Value::as_f64)
    }

    pub(crate) fn as_str(&self) -> Option<&str> {
        self.json().and_then(Value::as_str)
    }
}

pub(crate) fn truthy(value: &Value) -> bool {
    match value {
        Value::Null => false,
        Value::Bool(b) => *b,
        Value::Number(n) => n.as_f64().is_some_and(|n| n != 0.0),
        Value::String(s) => !s.is_empty(),
        Value::Array(a) => !a.is_empty(),
        Value::Object(o) => !o.is_empty(),
    }
}

/// json-e's equality: numbers compare as f64 (`1 == 1.0`), containers deeply.
pub(crate) fn equal(a: &V<'_>, b: &V<'_>) -> bool {
    match (a, b) {
        (V::Json(a), V::Json(b)) => json_equal(a, b),
        (V::Func(a), V::Func(b)) => a == b,
        _ => false,
    }
}

pub(crate) fn json_equal(a: &Value, b: &Value) -> bool {
    match (a, b) {
        (Value::Number(a), Value::Number(b)) => a.as_f64() == b.as_f64(),
        (Value::Array(a), Value::Array(b)) => {
            a.len() == b.len() && a.iter().zip(b).all(|(a, b)| json_equal(a, b))
        }
        (Value::Object(a), Value::Object(b)) => {
            a.len() == b.len()
                && a.iter()
                    .all(|(k, v)| b.get(k).is_some_and(|other| json_equal(v, other)))
        }
        _ => a == b,
    }
}

/// An f64 result as JSON: integral values within the exactly representable range become
/// integers, so `1 + 1` renders `2`, not `2.0`. NaN and infinities have no JSON form; the
/// operators that could make them report an error first, so they render as `null`.
pub(crate) fn number(n: f64) -> Value {
    const EXACT: f64 = 9_007_199_254_740_992.0; // 2^53
    if n.fract() == 0.0 && n.abs() < EXACT {
        // In range and integral, so the cast is exact.
        return Value::Number(Number::from(n as i64));
    }
    Number::from_f64(n).map_or(Value::Null, Value::Number)
}

/// json-e's string form of a scalar, as interpolation and `str()` write it; `None` for
/// containers.
pub(crate) fn stringify(value: &Value) -> Option<String> {
    Some(match value {
        Value::Null => "null".to_owned(),
        Value::Bool(b) => b.to_string(),
        Value::String(s) => s.clone(),
        Value::Number(n) => number_text(n),
        Value::Array(_) | Value::Object(_) => return None,
    })
}

pub(crate) fn number_text(n: &Number) -> String {
    if n.is_i64() || n.is_u64() {
        return n.to_string();
    }
    match n.as_f64() {
        Some(f) if f.fract() == 0.0 && f.abs() < 1e21 => format!("{f:.0}"),
        Some(f) => format!("{f}"),
        None => n.to_string(),
    }
}

/// json-e's builtin functions, the one kind of value that is not JSON.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub(crate) enum Builtin {
    Abs,
    Str,
    Len,
    Min,
    Max,
    Sqrt,
    Ceil,
    Floor,
    Lowercase,
    Uppercase,
    Number,
    Strip,
    Lstrip,
    Rstrip,
    Range,
    Join,
    Split,
    FromNow,
    Typeof,
    Defined,
}

impl Builtin {
    pub(crate) fn named(name: &str) -> Option<Self> {
        Some(match name {
            "abs" => Builtin::Abs,
            "str" => Builtin::Str,
            "len" => Builtin::Len,
            "min" => Builtin::Min,
            "max" => Builtin::Max,
            "sqrt" => Builtin::Sqrt,
            "ceil" => Builtin::Ceil,
            "floor" => Builtin::Floor,
            "lowercase" => Builtin::Lowercase,
            "uppercase" => Builtin::Uppercase,
            "number" => Builtin::Number,
            "strip" => Builtin::Strip,
            "lstrip" => Builtin::Lstrip,
            "rstrip" => Builtin::Rstrip,
            "range" => Builtin::Range,
            "join" => Builtin::Join,
            "split" => Builtin::Split,
            "fromNow" => Builtin::FromNow,
            "typeof" => Builtin::Typeof,
            "defined" => Builtin::Defined,
            _ => return None,
        })
    }
}
