//! What to tell a client that named something this server does not have: a `tools/call` of
//! a draft or of no tool at all, a request for a method the server does not offer. The
//! error the client gets and the fixture's verification report say the same, from here.

use std::fmt;

use super::Engine;
use super::protocol::method::{INITIALIZE, NAMES};
use crate::spec::ToolSpec;

/// Why a `tools/call` reached no tool.
#[derive(Debug, Clone, PartialEq, Eq)]
pub(crate) enum ToolMiss {
    /// A tool of that name exists but is not published.
    Draft,
    /// No tool has that name; `nearest` is the published tool whose name is closest.
    Unknown { nearest: Option<String> },
}

impl fmt::Display for ToolMiss {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self {
            ToolMiss::Draft => f.write_str(
                "it exists on this server as a draft and is not published, so clients can neither list nor call it",
            ),
            ToolMiss::Unknown {
                nearest: Some(nearest),
            } => write!(f, "no tool has this name; did you mean `{nearest}`?"),
            ToolMiss::Unknown { nearest: None } => {
                f.write_str("no tool has this name, and this server publishes none")
            }
        }
    }
}

impl Engine {
    /// Why `tools/call` of `name` would reach no tool now; `None` when a published tool has
    /// that name. The nearest name is offered however far it is: a test server has few
    /// tools, and the one a test expected is the hint even when the client's name is far
    /// from it (`get_forecast` called, `get_weather` expected).
    pub(crate) fn tool_miss(&self, name: &str) -> Option<ToolMiss> {
        let tools = self.items::<ToolSpec>();
        match tools.iter().find(|t| t.name == name) {
            Some(tool) if tool.published => None,
            Some(_) => Some(ToolMiss::Draft),
            None => Some(ToolMiss::Unknown {
                nearest: nearest(
                    name,
                    tools
                        .iter()
                        .filter(|t| t.published)
                        .map(|t| t.name.as_str()),
                )
                .map(str::to_string),
            }),
        }
    }
}

/// The method this server offers whose name is nearest to `method`, if it is near enough to
/// be a typo (edits to a quarter of its characters at most): unlike tools, the methods are the
/// protocol's, and a far one would be no hint.
pub(crate) fn nearest_method(method: &str) -> Option<&'static str> {
    let candidates = NAMES.iter().copied().chain([INITIALIZE]);
    let found = nearest(method, candidates)?;
    let within = (method.chars().count() / 4).max(1);
    (distance(method, found) <= within && found != method).then_some(found)
}

/// The candidate with the smallest edit distance to `name`; the first of equals.
fn nearest<'a>(name: &str, candidates: impl IntoIterator<Item = &'a str>) -> Option<&'a str> {
    candidates
        .into_iter()
        .map(|candidate| (distance(name, candidate), candidate))
        .min_by_key(|(d, _)| *d)
        .map(|(_, candidate)| candidate)
}

/// Levenshtein distance over characters.
fn distance(a: &str, b: &str) -> usize {
    let b: Vec<char> = b.chars().collect();
    let mut previous: Vec<usize> = (0..=b.len()).collect();
    for (i, ca) in a.chars().enumerate() {
        let mut current = vec![i + 1; b.len() + 1];
        for (j, cb) in b.iter().enumerate() {
            let substitute = previous[j] + usize::from(ca != *cb);
            current[j + 1] = substitute.min(previous[j + 1] + 1).min(current[j] + 1);
        }
        previous = current;
    }
    previous[b.len()]
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn the_nearest_name_is_the_fewest_edits_away() {
        assert_eq!(distance("get_forcast", "get_forecast"), 1);
        assert_eq!(distance("", "abc"), 3);
        assert_eq!(
            nearest("get_forcast", ["echo", "get_forecast", "get_weather"]),
            Some("get_forecast")
        );
        assert_eq!(nearest("x", []), None);
    }

    #[test]
    fn a_method_hint_is_offered_only_for_a_likely_typo() {
        assert_eq!(nearest_method("tools/lst"), Some("tools/list"));
        assert_eq!(nearest_method("prompt/get"), Some("prompts/get"));
        assert_eq!(nearest_method("teleport/now"), None);
        assert_eq!(nearest_method("resources/teleport"), None);
    }
}
