//! `$fromNow` and `fromNow()`: a reference time plus an offset such as `2 days 3 hours` or
//! `-1 year`, in json-e's format (`2017-01-19T16:27:20.974Z`).

use chrono::{DateTime, TimeDelta, Utc};

use super::error::Error;

const FORMAT: &str = "%Y-%m-%dT%H:%M:%S%.3fZ";

/// The current time in json-e's format.
pub(crate) fn now() -> String {
    Utc::now().format(FORMAT).to_string()
}

pub(crate) fn from_now(offset: &str, reference: &str) -> Result<String, Error> {
    let reference: DateTime<Utc> = reference
        .parse()
        .map_err(|_| Error::interpreter(format!("`{reference}` is not a date-time")))?;
    let delta = duration(offset)
        .ok_or_else(|| Error::interpreter(format!("String '{offset}' isn't a time expression")))?;
    let at = reference.checked_add_signed(delta).ok_or_else(|| {
        Error::interpreter(format!("`{offset}` from `{reference}` is out of range"))
    })?;
    Ok(at.format(FORMAT).to_string())
}

/// Units in json-e's order; each may appear once, and the longest spelling is tried first.
const UNITS: [(&[&str], i64); 7] = [
    (&["years", "year", "yr", "y"], 365 * 86_400),
    (&["months", "month", "mo"], 30 * 86_400),
    (&["weeks", "week", "wk", "w"], 7 * 86_400),
    (&["days", "day", "d"], 86_400),
    (&["hours", "hour", "h"], 3_600),
    (&["minutes", "minute", "min", "m"], 60),
    (&["seconds", "second", "sec", "s"], 1),
];

fn duration(text: &str) -> Option<TimeDelta> {
    let mut rest = text.trim_start();
    let negative = match rest.as_bytes().first() {
        Some(b'-') => true,
        Some(b'+') => false,
        _ => {
            return units(rest);
        }
    };
    rest = rest[1..].trim_start();
    let delta = units(rest)?;
    Some(if negative { -delta } else { delta })
}

fn units(mut rest: &str) -> Option<TimeDelta> {
    let mut seconds: i64 = 0;
    for (names, scale) in UNITS {
        let digits = rest.bytes().take_while(u8::is_ascii_digit).count();
        if digits == 0 {
            continue;
        }
        let after = rest[digits..].trim_start();
        let Some(name) = names.iter().find(|name| after.starts_with(**name)) else {
            continue;
        };
        let n: i64 = rest[..digits].parse().ok()?;
        seconds = seconds.checked_add(n.checked_mul(scale)?)?;
        rest = after[name.len()..].trim_start();
    }
    if !rest.is_empty() {
        return None;
    }
    TimeDelta::try_seconds(seconds)
}
