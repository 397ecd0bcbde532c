//! Matching a concrete URI back to a template: a backtracking walk over its parts, each
//! expression binding what its expansion could have produced.

use std::collections::{BTreeMap, HashSet};

use super::{Op, Part, decode, is_reserved};

/// A backtracking match of the parts against one URI.
pub(super) struct Matcher<'a> {
    pub(super) parts: &'a [Part],
    pub(super) uri: &'a str,
    pub(super) memo: bool,
    /// `(part, byte offset)` pairs from which the rest cannot match.
    pub(super) dead_ends: HashSet<(usize, usize)>,
}

impl Matcher<'_> {
    pub(super) fn from(
        &mut self,
        part: usize,
        pos: usize,
        values: &mut BTreeMap<String, String>,
    ) -> bool {
        if part == self.parts.len() {
            return pos == self.uri.len();
        }
        if self.memo && self.dead_ends.contains(&(part, pos)) {
            return false;
        }
        let matched = match &self.parts[part] {
            Part::Literal(text) => {
                self.uri[pos..].starts_with(text.as_str())
                    && self.from(part + 1, pos + text.len(), values)
            }
            Part::Expression { op, vars } => self.expression(part, pos, *op, vars, values),
        };
        if !matched && self.memo {
            self.dead_ends.insert((part, pos));
        }
        matched
    }

    fn expression(
        &mut self,
        part: usize,
        pos: usize,
        op: Op,
        vars: &[String],
        values: &mut BTreeMap<String, String>,
    ) -> bool {
        let rest = &self.uri[pos..];
        let longest = pos + rest.find(|c| op.stops_at(c)).unwrap_or(rest.len());
        let last = part + 1 == self.parts.len();
        let next_literal = match self.parts.get(part + 1) {
            Some(Part::Literal(text)) => Some(text.as_str()),
            _ => None,
        };
        // Longest first: `{+path}` takes as much as the rest of the template allows.
        for end in (pos..=longest).rev() {
            if !self.uri.is_char_boundary(end) || (last && end != self.uri.len()) {
                continue;
            }
            // Cheap before binding: the literal that follows must start here.
            if next_literal.is_some_and(|text| !self.uri[end..].starts_with(text)) {
                continue;
            }
            let Some(bound) = bind(op, vars, &self.uri[pos..end]) else {
                continue;
            };
            let before = values.clone();
            let consistent = bound
                .into_iter()
                .all(|(name, value)| match values.get(&name) {
                    Some(existing) => *existing == value,
                    None => {
                        values.insert(name, value);
                        true
                    }
                });
            if consistent && self.from(part + 1, end, values) {
                return true;
            }
            *values = before;
        }
        false
    }
}

/// The variables one expression's part of the URI (`text`) gives, if it could have produced
/// it.
fn bind(op: Op, vars: &[String], text: &str) -> Option<Vec<(String, String)>> {
    if text.is_empty() {
        // Every variable undefined; simple and reserved expressions must match something.
        return (!op.prefix().is_empty()).then(Vec::new);
    }
    let body = text.strip_prefix(op.prefix())?;
    let separator = op.separator();
    if op.named() {
        let mut bound: Vec<(String, String)> = Vec::new();
        for piece in body.split(separator) {
            let (name, value) = piece.split_once('=').unwrap_or((piece, ""));
            let known = vars.iter().any(|v| v == name);
            if !known || value.contains(is_reserved) || bound.iter().any(|(n, _)| n == name) {
                return None;
            }
            bound.push((name.to_string(), decode(value)));
        }
        return Some(bound);
    }
    let mut pieces: Vec<&str> = body.split(separator).collect();
    if pieces.len() > vars.len() {
        if !op.value_may_hold_separator() {
            return None;
        }
        let tail = body
            .splitn(vars.len(), separator)
            .last()
            .unwrap_or_default();
        pieces.truncate(vars.len() - 1);
        pieces.push(tail);
    }
    Some(
        vars.iter()
            .zip(pieces)
            .map(|(name, piece)| (name.clone(), decode(piece)))
            .collect(),
    )
}
