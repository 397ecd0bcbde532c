//! The replay's state: which interactions answered, where a strict replay stands, and the
//! requests that matched none, kept for the report a fixture prints when dropped. No
//! transport and no engine here: the engine asks [`Player::answer`] and sends what it
//! gets.

use std::fmt::Write as _;
use std::sync::Mutex;

use serde_json::Value;

use super::format::{Cassette, Interaction, RecordedResponse, ServerMessage};
use super::matching::{Difference, Matching, Order, compact, differences, matches};

/// The misses kept for the report; later ones are only counted.
const MAX_MISSES: usize = 100;

/// What an interaction tells the engine to send.
#[derive(Debug, Clone)]
pub(crate) struct Played {
    /// The messages to send before the response.
    pub(crate) messages: Vec<ServerMessage>,
    /// The recorded response.
    pub(crate) response: RecordedResponse,
}

/// A request that matched no interaction.
#[derive(Debug, Clone)]
pub(crate) struct Miss {
    method: String,
    params: Value,
    /// The interaction most like it, and how they differ.
    nearest: Option<(usize, Vec<Difference>)>,
    /// Strict order: the interaction that was due.
    due: Option<usize>,
}

impl Miss {
    /// One line for the client's JSON-RPC error.
    pub(crate) fn message(&self) -> String {
        let mut text = format!(
            "mcp-decoy replay: no recorded interaction matches this {} request",
            self.method
        );
        self.nearest_text(&mut text, "; ");
        text
    }

    /// `data` of the client's error.
    pub(crate) fn data(&self) -> Value {
        serde_json::json!({
            "nearest": self.nearest.as_ref().map(|(n, _)| format!("interactions[{n}]")),
            "differences": self.nearest.as_ref().map(|(_, d)| d.iter().map(ToString::to_string).collect::<Vec<_>>()),
        })
    }

    fn nearest_text(&self, text: &mut String, separator: &str) {
        if let Some(due) = self.due {
            let _ = write!(text, "{separator}strict order: interactions[{due}] was due");
        }
        match &self.nearest {
            Some((n, found)) => {
                let listed: Vec<String> = found.iter().map(ToString::to_string).collect();
                let _ = write!(
                    text,
                    "{separator}nearest: interactions[{n}], which differs at {}",
                    listed.join("; ")
                );
            }
            None => {
                let _ = write!(
                    text,
                    "{separator}the cassette has no {} request",
                    self.method
                );
            }
        }
    }
}

/// A request's params as the report shows them: `_meta` never decides a match.
fn without_meta(params: &Value) -> Value {
    let mut params = params.clone();
    if let Some(object) = params.as_object_mut() {
        object.shift_remove("_meta");
    }
    params
}

#[derive(Debug)]
struct State {
    uses: Vec<u32>,
    next: usize,
    misses: Vec<Miss>,
    dropped_misses: usize,
}

/// A cassette being replayed.
#[derive(Debug)]
pub(crate) struct Player {
    cassette: Cassette,
    matching: Matching,
    state: Mutex<State>,
}

impl Player {
    pub(crate) fn new(cassette: Cassette, matching: Matching) -> Player {
        let state = State {
            uses: vec![0; cassette.interactions.len()],
            next: 0,
            misses: Vec::new(),
            dropped_misses: 0,
        };
        Player {
            cassette,
            matching,
            state: Mutex::new(state),
        }
    }

    pub(crate) fn cassette(&self) -> &Cassette {
        &self.cassette
    }

    fn state(&self) -> std::sync::MutexGuard<'_, State> {
        self.state.lock().unwrap_or_else(|p| p.into_inner())
    }

    /// Whether the interaction a request would get sends messages before its response, so
    /// the answer needs an event stream. Changes nothing.
    pub(crate) fn talks(&self, method: &str, params: &Value) -> bool {
        let state = self.state();
        self.find(&state, method, params)
            .is_ok_and(|n| !self.cassette.interactions[n].messages.is_empty())
    }

    /// The recorded answer to a request, or the miss, which the report keeps.
    pub(crate) fn answer(&self, method: &str, params: &Value) -> Result<Played, Box<Miss>> {
        let mut state = self.state();
        match self.find(&state, method, params) {
            Ok(n) => {
                state.uses[n] += 1;
                state.next = n + 1;
                let Interaction {
                    messages, response, ..
                } = &self.cassette.interactions[n];
                Ok(Played {
                    messages: messages.clone(),
                    response: response.clone(),
                })
            }
            Err(miss) => {
                if state.misses.len() < MAX_MISSES {
                    state.misses.push((*miss).clone());
                } else {
                    state.dropped_misses += 1;
                }
                Err(miss)
            }
        }
    }

    fn find(&self, state: &State, method: &str, params: &Value) -> Result<usize, Box<Miss>> {
        let interactions = &self.cassette.interactions;
        let differ = |n: usize| {
            differences(
                interactions[n].request.params(),
                params,
                &self.matching.ignore,
            )
        };
        let miss = |nearest, due| {
            Box::new(Miss {
                method: method.to_string(),
                params: without_meta(params),
                nearest,
                due,
            })
        };
        if self.matching.order == Order::Strict {
            let n = state.next;
            return match interactions.get(n) {
                Some(due) if due.request.method == method => {
                    let found = differ(n);
                    if found.is_empty() {
                        Ok(n)
                    } else {
                        Err(miss(Some((n, found)), Some(n)))
                    }
                }
                Some(_) => Err(miss(self.nearest(method, params), Some(n))),
                None => Err(miss(self.nearest(method, params), None)),
            };
        }
        // The first unused match, else the last match (a repeated request repeats).
        let mut last = None;
        for (n, interaction) in interactions.iter().enumerate() {
            if interaction.request.method != method
                || !matches(interaction.request.params(), params, &self.matching.ignore)
            {
                continue;
            }
            if state.uses[n] == 0 {
                return Ok(n);
            }
            last = Some(n);
        }
        last.ok_or_else(|| miss(self.nearest(method, params), None))
    }

    /// The interaction of the same method with the fewest differences.
    fn nearest(&self, method: &str, params: &Value) -> Option<(usize, Vec<Difference>)> {
        self.cassette
            .interactions
            .iter()
            .enumerate()
            .filter(|(_, i)| i.request.method == method)
            .map(|(n, i)| {
                (
                    n,
                    differences(i.request.params(), params, &self.matching.ignore),
                )
            })
            .min_by_key(|(_, found)| found.len())
    }

    /// The requests that matched nothing, as the drop report tells them.
    pub(crate) fn misses_report(&self) -> Option<String> {
        let state = self.state();
        if state.misses.is_empty() {
            return None;
        }
        let total = state.misses.len() + state.dropped_misses;
        let mut text =
            format!("mcp-decoy replay: {total} request(s) matched no recorded interaction:\n");
        for miss in &state.misses {
            let _ = writeln!(text, "  - {} {}", miss.method, compact(&miss.params));
            let mut detail = String::new();
            miss.nearest_text(&mut detail, "\n    ");
            text.push_str(detail.trim_start_matches('\n'));
            text.push('\n');
        }
        if state.dropped_misses > 0 {
            let _ = writeln!(text, "  ... and {} more", state.dropped_misses);
        }
        Some(text)
    }

    /// The interactions no request used, as `expect_all_used` tells them.
    pub(crate) fn unused_report(&self) -> Option<String> {
        let state = self.state();
        let unused: Vec<usize> = (0..state.uses.len())
            .filter(|&n| state.uses[n] == 0)
            .collect();
        if unused.is_empty() {
            return None;
        }
        let mut text = format!(
            "mcp-decoy replay: {} of {} recorded interactions were never used:\n",
            unused.len(),
            state.uses.len()
        );
        for n in unused {
            let request = &self.cassette.interactions[n].request;
            let _ = writeln!(
                text,
                "  - interactions[{n}]: {} {}",
                request.method,
                compact(&without_meta(request.params()))
            );
        }
        Some(text)
    }

    /// Forgets what was used and missed (a restart).
    pub(crate) fn rewind(&self) {
        let mut state = self.state();
        state.uses.iter_mut().for_each(|u| *u = 0);
        state.next = 0;
        state.misses.clear();
        state.dropped_misses = 0;
    }
}
