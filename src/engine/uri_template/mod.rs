//! RFC 6570 URI templates, levels 1 to 3 (every operator, several variables per expression;
//! no level-4 prefix or explode modifiers): parse, expand, and match a concrete URI back to
//! the values of its variables. Pure: no I/O, no state.
//!
//! Matching is the inverse of expansion: a value holds what expansion could have put there,
//! unreserved characters and `%XX` escapes (reserved ones too in `{+var}` and `{#var}`), and
//! comes back percent-decoded. Characters no URI may hold unescaped (a space, `é`) are taken
//! as if escaped, since a client may forget to. A simple or reserved expression (`{id}`,
//! `{+path}`) must match at least one character, so `test://template//data` does not name a
//! resource of `test://template/{id}/data`.

mod matching;

use std::collections::{BTreeMap, HashSet};

use matching::Matcher;

/// A parsed URI template.
#[derive(Debug, Clone, PartialEq, Eq)]
pub(crate) struct UriTemplate {
    parts: Vec<Part>,
}

#[derive(Debug, Clone, PartialEq, Eq)]
enum Part {
    Literal(String),
    Expression { op: Op, vars: Vec<String> },
}

/// The expression operators of RFC 6570 section 3.2.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
enum Op {
    /// `{var}`
    Simple,
    /// `{+var}`
    Reserved,
    /// `{#var}`
    Fragment,
    /// `{.var}`
    Label,
    /// `{/var}`
    Path,
    /// `{;var}`
    PathParam,
    /// `{?var}`
    Query,
    /// `{&var}`
    QueryContinuation,
}

impl Op {
    fn from_char(c: char) -> Option<Op> {
        Some(match c {
            '+' => Op::Reserved,
            '#' => Op::Fragment,
            '.' => Op::Label,
            '/' => Op::Path,
            ';' => Op::PathParam,
            '?' => Op::Query,
            '&' => Op::QueryContinuation,
            _ => return None,
        })
    }

    /// What the expansion starts with when at least one variable is defined.
    fn prefix(self) -> &'static str {
        match self {
            Op::Simple | Op::Reserved => "",
            Op::Fragment => "#",
            Op::Label => ".",
            Op::Path => "/",
            Op::PathParam => ";",
            Op::Query => "?",
            Op::QueryContinuation => "&",
        }
    }

    fn separator(self) -> char {
        match self {
            Op::Simple | Op::Reserved | Op::Fragment => ',',
            Op::Label => '.',
            Op::Path => '/',
            Op::PathParam => ';',
            Op::Query | Op::QueryContinuation => '&',
        }
    }

    /// `name=value` pairs rather than bare values.
    fn named(self) -> bool {
        matches!(self, Op::PathParam | Op::Query | Op::QueryContinuation)
    }

    /// Reserved characters pass through expansion unencoded.
    fn allows_reserved(self) -> bool {
        matches!(self, Op::Reserved | Op::Fragment)
    }

    /// Characters that cannot occur anywhere in this expression's part of a URI: reserved
    /// ones, except where the operator itself writes them (prefix, separator, `=`).
    fn stops_at(self, c: char) -> bool {
        if self.allows_reserved() || !is_reserved(c) {
            return false;
        }
        let structure =
            self.prefix().starts_with(c) || c == self.separator() || (self.named() && c == '=');
        !structure
    }

    /// Whether a value may itself contain the separator, so that extra pieces belong to the
    /// last variable: `,` is reserved, `.` unreserved.
    fn value_may_hold_separator(self) -> bool {
        matches!(self, Op::Reserved | Op::Fragment | Op::Label)
    }
}

/// Why a template does not parse: the character position (0-based) and what is wrong there.
#[derive(Debug, Clone, PartialEq, Eq)]
pub(crate) struct ParseError {
    pub(crate) position: usize,
    pub(crate) reason: String,
}

impl std::fmt::Display for ParseError {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        write!(f, "at position {}: {}", self.position, self.reason)
    }
}

impl std::error::Error for ParseError {}

fn error(position: usize, reason: impl Into<String>) -> ParseError {
    ParseError {
        position,
        reason: reason.into(),
    }
}

impl UriTemplate {
    /// Parses `text`; the error names the position of the first mistake.
    pub(crate) fn parse(text: &str) -> Result<Self, ParseError> {
        let chars: Vec<char> = text.chars().collect();
        let mut parts = Vec::new();
        let mut literal = String::new();
        let mut i = 0;
        while i < chars.len() {
            match chars[i] {
                '}' => return Err(error(i, "`}` without a matching `{`")),
                '{' => {
                    let open = i;
                    let close = (open + 1..chars.len())
                        .find(|&j| chars[j] == '}' || chars[j] == '{')
                        .filter(|&j| chars[j] == '}')
                        .ok_or_else(|| {
                            error(open, "the expression opened here has no closing `}`")
                        })?;
                    if !literal.is_empty() {
                        parts.push(Part::Literal(std::mem::take(&mut literal)));
                    }
                    parts.push(expression(&chars[open + 1..close], open + 1)?);
                    i = close + 1;
                }
                c => {
                    literal.push(c);
                    i += 1;
                }
            }
        }
        if !literal.is_empty() {
            parts.push(Part::Literal(literal));
        }
        Ok(UriTemplate { parts })
    }

    /// The variable names, each once, in order of first appearance.
    #[allow(
        dead_code,
        reason = "for completion/complete and the app's template checks"
    )]
    pub(crate) fn variables(&self) -> Vec<&str> {
        let mut seen = HashSet::new();
        self.expressions()
            .flat_map(|(_, vars)| vars.iter().map(String::as_str))
            .filter(|v| seen.insert(*v))
            .collect()
    }

    fn expressions(&self) -> impl Iterator<Item = (Op, &[String])> {
        self.parts.iter().filter_map(|p| match p {
            Part::Expression { op, vars } => Some((*op, vars.as_slice())),
            Part::Literal(_) => None,
        })
    }

    /// The URI for these values (RFC 6570 section 3); a variable without a value is undefined.
    #[allow(dead_code, reason = "the inverse of `matches`, for tests and the app")]
    pub(crate) fn expand(&self, values: &BTreeMap<String, String>) -> String {
        let mut out = String::new();
        for part in &self.parts {
            match part {
                Part::Literal(text) => out.push_str(text),
                Part::Expression { op, vars } => {
                    let defined: Vec<(&String, &String)> = vars
                        .iter()
                        .filter_map(|name| values.get(name).map(|value| (name, value)))
                        .collect();
                    for (n, (name, value)) in defined.into_iter().enumerate() {
                        if n == 0 {
                            out.push_str(op.prefix());
                        } else {
                            out.push(op.separator());
                        }
                        if op.named() {
                            out.push_str(name);
                            // `;name` but `?name=` for an empty value (RFC 6570 section 3.2.1).
                            if value.is_empty() && *op == Op::PathParam {
                                continue;
                            }
                            out.push('=');
                        }
                        encode(&mut out, value, op.allows_reserved());
                    }
                }
            }
        }
        out
    }

    /// The variables of `uri` if it is an expansion of this template, percent-decoded; an
    /// optional variable that the URI leaves out (`{?q}`) is absent from the map.
    pub(crate) fn matches(&self, uri: &str) -> Option<BTreeMap<String, String>> {
        let mut names = HashSet::new();
        // Remembering dead ends is only sound when no variable appears twice: otherwise
        // whether the rest matches depends on the values bound so far.
        let memo = self
            .expressions()
            .flat_map(|(_, vars)| vars.iter())
            .all(|v| names.insert(v.as_str()));
        let mut matcher = Matcher {
            parts: &self.parts,
            uri,
            memo,
            dead_ends: HashSet::new(),
        };
        let mut values = BTreeMap::new();
        matcher.from(0, 0, &mut values).then_some(values)
    }
}

/// One `{...}`: `body` is what lies between the braces, starting at `offset` in the template.
fn expression(body: &[char], offset: usize) -> Result<Part, ParseError> {
    let Some(&first) = body.first() else {
        return Err(error(offset - 1, "empty expression `{}`"));
    };
    if matches!(first, '=' | ',' | '!' | '@' | '|') {
        return Err(error(
            offset,
            format!("operator `{first}` is reserved by RFC 6570 for future extensions"),
        ));
    }
    let (op, start) = match Op::from_char(first) {
        Some(op) => (op, 1),
        None => (Op::Simple, 0),
    };
    let mut vars = Vec::new();
    let mut begin = start;
    for end in start..=body.len() {
        if end < body.len() && body[end] != ',' {
            continue;
        }
        vars.push(varname(&body[begin..end], offset + begin)?);
        begin = end + 1;
    }
    Ok(Part::Expression { op, vars })
}

fn varname(name: &[char], offset: usize) -> Result<String, ParseError> {
    if name.is_empty() {
        return Err(error(offset, "missing variable name"));
    }
    for (i, &c) in name.iter().enumerate() {
        let at = offset + i;
        match c {
            '*' => {
                return Err(error(
                    at,
                    "the explode modifier `*` is RFC 6570 level 4, which is not supported",
                ));
            }
            ':' => {
                return Err(error(
                    at,
                    "the prefix modifier `:` is RFC 6570 level 4, which is not supported",
                ));
            }
            '%' => {
                let hex = |k: usize| name.get(k).is_some_and(char::is_ascii_hexdigit);
                if !(hex(i + 1) && hex(i + 2)) {
                    return Err(error(at, "`%` in a variable name must start a %XX escape"));
                }
            }
            '.' if i == 0 || i + 1 == name.len() || name[i - 1] == '.' => {
                return Err(error(
                    at,
                    "`.` in a variable name must sit between other characters",
                ));
            }
            c if c.is_ascii_alphanumeric() || c == '_' || c == '.' => {}
            c => {
                return Err(error(
                    at,
                    format!(
                        "{c:?} is not allowed in a variable name (letters, digits, `_`, `.`, %XX)"
                    ),
                ));
            }
        }
    }
    Ok(name.iter().collect())
}

fn is_unreserved(c: char) -> bool {
    c.is_ascii_alphanumeric() || matches!(c, '-' | '.' | '_' | '~')
}

fn is_reserved(c: char) -> bool {
    matches!(
        c,
        ':' | '/'
            | '?'
            | '#'
            | '['
            | ']'
            | '@'
            | '!'
            | '$'
            | '&'
            | '\''
            | '('
            | ')'
            | '*'
            | '+'
            | ','
            | ';'
            | '='
    )
}

fn encode(out: &mut String, value: &str, allow_reserved: bool) {
    let chars: Vec<char> = value.chars().collect();
    let mut i = 0;
    while i < chars.len() {
        let c = chars[i];
        let escape = allow_reserved
            && c == '%'
            && chars.get(i + 1).is_some_and(char::is_ascii_hexdigit)
            && chars.get(i + 2).is_some_and(char::is_ascii_hexdigit);
        if escape {
            out.extend(&chars[i..i + 3]);
            i += 3;
            continue;
        }
        if is_unreserved(c) || (allow_reserved && is_reserved(c)) {
            out.push(c);
        } else {
            let mut buf = [0u8; 4];
            for byte in c.encode_utf8(&mut buf).bytes() {
                out.push_str(&format!("%{byte:02X}"));
            }
        }
        i += 1;
    }
}

/// Percent-decodes `text`; a `%` that starts no escape stays as it is, and bytes that are
/// not UTF-8 become U+FFFD.
fn decode(text: &str) -> String {
    let bytes = text.as_bytes();
    let mut out = Vec::with_capacity(bytes.len());
    let mut i = 0;
    while i < bytes.len() {
        let hex = |k: usize| {
            bytes
                .get(k)
                .and_then(|b| char::from(*b).to_digit(16))
                .map(|d| d as u8)
        };
        match (bytes[i], hex(i + 1), hex(i + 2)) {
            (b'%', Some(high), Some(low)) => {
                out.push(high << 4 | low);
                i += 3;
            }
            (byte, _, _) => {
                out.push(byte);
                i += 1;
            }
        }
    }
    String::from_utf8_lossy(&out).into_owned()
}

#[cfg(test)]
mod tests;
