//! json-e's builtin functions. `range` and the string functions charge the budget for what
//! they build before they build it.

use serde_json::Value;

use super::budget::{Budget, ENTRY_BYTES};
use super::error::Error;
use super::fromnow;
use super::scope::Scope;
use super::value::{Builtin, V, stringify};

fn invalid(name: &str) -> Error {
    Error::builtin(format!("invalid arguments to builtin: {name}"))
}

fn string(s: String, budget: &mut Budget<'_>) -> Result<V<'static>, Error> {
    budget.alloc(s.len())?;
    Ok(V::owned(Value::String(s)))
}

pub(crate) fn call<'a>(
    builtin: Builtin,
    args: &[V<'_>],
    scope: &'a Scope<'a>,
    budget: &mut Budget<'_>,
) -> Result<V<'a>, Error> {
    let one = |name: &str| -> Result<&V<'_>, Error> {
        match args {
            [only] => Ok(only),
            _ => Err(Error::builtin(format!("{name} expects one argument"))),
        }
    };
    let number = |name: &str, f: fn(f64) -> f64| -> Result<V<'static>, Error> {
        match one(name)?.json() {
            Some(Value::Number(n)) => Ok(V::number(f(n.as_f64().unwrap_or(f64::NAN)))),
            _ => Err(invalid(name)),
        }
    };
    let text =
        |name: &str| -> Result<&str, Error> { one(name)?.as_str().ok_or_else(|| invalid(name)) };
    match builtin {
        Builtin::Abs => number("abs", f64::abs),
        Builtin::Sqrt => number("sqrt", f64::sqrt),
        Builtin::Ceil => number("ceil", f64::ceil),
        Builtin::Floor => number("floor", f64::floor),
        Builtin::Min | Builtin::Max => {
            let name = if builtin == Builtin::Min {
                "min"
            } else {
                "max"
            };
            let mut best: Option<f64> = None;
            for arg in args {
                let Some(Value::Number(n)) = arg.json() else {
                    return Err(invalid(name));
                };
                let n = n.as_f64().unwrap_or(f64::NAN);
                best = Some(match best {
                    Some(b) if builtin == Builtin::Min => b.min(n),
                    Some(b) => b.max(n),
                    None => n,
                });
            }
            best.map(V::number).ok_or_else(|| invalid(name))
        }
        Builtin::Str => {
            let value = one("str")?.json().ok_or_else(|| invalid("str"))?;
            string(stringify(value).ok_or_else(|| invalid("str"))?, budget)
        }
        Builtin::Len => match one("len")?.json() {
            Some(Value::String(s)) => {
                budget.step((s.len() / 64) as u64)?;
                Ok(V::number(s.chars().count() as f64))
            }
            Some(Value::Array(items)) => Ok(V::number(items.len() as f64)),
            _ => Err(invalid("len")),
        },
        Builtin::Lowercase => string(text("lowercase")?.to_lowercase(), budget),
        Builtin::Uppercase => string(text("uppercase")?.to_uppercase(), budget),
        Builtin::Strip => string(text("strip")?.trim().to_owned(), budget),
        Builtin::Lstrip => string(text("lstrip")?.trim_start().to_owned(), budget),
        Builtin::Rstrip => string(text("rstrip")?.trim_end().to_owned(), budget),
        Builtin::Number => {
            let parsed: f64 = text("number")?
                .parse()
                .map_err(|_| Error::interpreter("string can't be converted to number"))?;
            Ok(V::number(parsed))
        }
        Builtin::Range => range(args, budget),
        Builtin::Join => {
            let [list, separator] = args else {
                return Err(Error::builtin("join expects two arguments"));
            };
            let separator = separator
                .json()
                .and_then(stringify)
                .ok_or_else(|| Error::builtin("invalid separator for join"))?;
            let Some(Value::Array(items)) = list.json() else {
                return Err(invalid("join"));
            };
            let mut out = String::new();
            for (i, item) in items.iter().enumerate() {
                budget.step(1)?;
                let piece = stringify(item).ok_or_else(|| invalid("join"))?;
                let sep = if i > 0 { separator.as_str() } else { "" };
                budget.alloc(sep.len() + piece.len())?;
                out.push_str(sep);
                out.push_str(&piece);
            }
            // The pieces are charged already.
            Ok(V::owned(Value::String(out)))
        }
        Builtin::Split => {
            let [text, separator] = args else {
                return Err(Error::builtin("split expects two arguments"));
            };
            let separator = separator
                .json()
                .and_then(stringify)
                .ok_or_else(|| Error::builtin("invalid separator for split"))?;
            let Some(text) = text.as_str() else {
                return Err(invalid("split"));
            };
            if text.is_empty() {
                return Ok(V::owned(Value::Array(vec![Value::String(String::new())])));
            }
            let mut out = Vec::new();
            for part in text.split(separator.as_str()).filter(|p| !p.is_empty()) {
                budget.step(1)?;
                budget.alloc(part.len() + ENTRY_BYTES)?;
                out.push(Value::String(part.to_owned()));
            }
            Ok(V::owned(Value::Array(out)))
        }
        Builtin::FromNow => {
            let (offset, reference) = match args {
                [offset] => (offset, None),
                [offset, reference] => (offset, Some(reference)),
                _ => return Err(Error::builtin("fromNow expects one or two arguments")),
            };
            let offset = offset.as_str().ok_or_else(|| invalid("fromNow"))?;
            let reference = match reference {
                Some(reference) => reference.as_str().ok_or_else(|| invalid("fromNow"))?,
                None => scope.now(),
            };
            string(fromnow::from_now(offset, reference)?, budget)
        }
        Builtin::Typeof => Ok(V::owned(Value::String(
            one("typeof")?.type_name().to_owned(),
        ))),
        Builtin::Defined => {
            let name = one("defined")?.as_str().ok_or_else(|| invalid("defined"))?;
            Ok(V::owned(Value::Bool(scope.get(name).is_some())))
        }
    }
}

fn range(args: &[V<'_>], budget: &mut Budget<'_>) -> Result<V<'static>, Error> {
    if !(2..=3).contains(&args.len()) {
        return Err(Error::builtin(
            "range requires two arguments and optionally supports a third",
        ));
    }
    let int = |v: &V<'_>| -> Result<i64, Error> {
        match v.as_f64() {
            Some(n) if n.fract() == 0.0 && n.abs() < 9e15 && v.type_name() == "number" => {
                // Integral and in range, so the cast is exact.
                Ok(n as i64)
            }
            _ => Err(invalid("range")),
        }
    };
    let start = int(&args[0])?;
    let stop = int(&args[1])?;
    let step = match args.get(2) {
        Some(step) => int(step)?,
        None => 1,
    };
    if step == 0 {
        return Err(Error::builtin("invalid argument `step` to builtin: range"));
    }
    let span = if step > 0 { stop - start } else { start - stop };
    let count = if span <= 0 {
        0
    } else {
        (span + step.abs() - 1) / step.abs()
    };
    // Charged before anything is built, so `range(0, 10000000000)` costs nothing but the error.
    budget.step(count as u64)?;
    budget.alloc((count as usize).saturating_mul(ENTRY_BYTES))?;
    let items = (0..count).map(|i| Value::from(start + i * step)).collect();
    Ok(V::owned(Value::Array(items)))
}
