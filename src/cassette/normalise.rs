//! What varies between two recordings of the same session, replaced by stable labels so the
//! files are byte-identical: session ids (`[session-N]`), the listener's port
//! (`127.0.0.1:[port]`), the server's `requestState` and `taskId` values (`[state-N]`,
//! `[task-N]`, consistent across the file so a replayed client sends back what the replay
//! handed out) and progress tokens. JSON-RPC ids and times are not written at all. Secrets
//! are masked by member name, with the capture's mask text.

use serde_json::Value;

use crate::log::mask::MASK;
use crate::log::{Entry, Record};

/// What a recorded progress token reads as; the replay sends the live request's token.
pub(crate) const PROGRESS_TOKEN: &str = "[progress-token]";

/// Members whose string values are handed out by the server and echoed back by the client.
const ECHOED: [(&str, &str); 2] = [("requestState", "state"), ("taskId", "task")];

/// The volatile texts of one capture and their labels, longest first.
#[derive(Debug, Default)]
pub(crate) struct Volatile {
    labels: Vec<(String, String)>,
}

impl Volatile {
    /// Collects the volatile values of a capture, labelled in order of appearance.
    pub(crate) fn of(records: &[Record]) -> Volatile {
        let mut volatile = Volatile::default();
        let mut sessions = 0;
        for record in records {
            match &record.entry {
                Entry::Http(exchange) => {
                    if let Some((host, port)) = exchange
                        .request_header("host")
                        .and_then(|h| h.rsplit_once(':'))
                        && !port.is_empty()
                        && port.bytes().all(|b| b.is_ascii_digit())
                    {
                        volatile.add(format!("{host}:{port}"), format!("{host}:[port]"));
                        volatile.add(format!("{host}%3A{port}"), format!("{host}%3A[port]"));
                    }
                }
                Entry::Mcp(message) => {
                    if let Some(session) = &message.session
                        && !volatile.has(session)
                    {
                        sessions += 1;
                        volatile.add(session.clone(), format!("[session-{sessions}]"));
                    }
                    if let Some(response) = &message.response {
                        volatile.echoed(response);
                    }
                }
            }
        }
        // Longer first, so a value that contains another is replaced whole.
        volatile
            .labels
            .sort_by_key(|(from, _)| std::cmp::Reverse(from.len()));
        volatile
    }

    fn has(&self, text: &str) -> bool {
        self.labels.iter().any(|(from, _)| from == text)
    }

    fn add(&mut self, from: String, to: String) {
        if !from.is_empty() && !self.has(&from) {
            self.labels.push((from, to));
        }
    }

    fn echoed(&mut self, value: &Value) {
        match value {
            Value::Object(map) => {
                for (name, member) in map {
                    let label = ECHOED.iter().find(|(n, _)| n == name).map(|(_, l)| *l);
                    match (label, member) {
                        (Some(label), Value::String(text)) if !self.has(text) => {
                            let n = self
                                .labels
                                .iter()
                                .filter(|(_, to)| to.starts_with(&format!("[{label}-")))
                                .count();
                            self.add(text.clone(), format!("[{label}-{}]", n + 1));
                        }
                        _ => self.echoed(member),
                    }
                }
            }
            Value::Array(items) => items.iter().for_each(|item| self.echoed(item)),
            _ => {}
        }
    }

    /// Replaces every volatile text in the strings of `value`.
    pub(crate) fn apply(&self, value: &mut Value) {
        match value {
            Value::String(text) => {
                for (from, to) in &self.labels {
                    if text.contains(from.as_str()) {
                        *text = text.replace(from.as_str(), to);
                    }
                }
            }
            Value::Array(items) => items.iter_mut().for_each(|item| self.apply(item)),
            Value::Object(map) => map.values_mut().for_each(|member| self.apply(member)),
            _ => {}
        }
    }
}

/// Replaces a request's `_meta.progressToken` (or a progress notification's
/// `progressToken`) with [`PROGRESS_TOKEN`].
pub(crate) fn progress_token(params: &mut Value, in_meta: bool) {
    let holder = if in_meta {
        params.get_mut("_meta")
    } else {
        Some(params)
    };
    if let Some(token) = holder.and_then(|h| h.get_mut("progressToken")) {
        *token = Value::String(PROGRESS_TOKEN.into());
    }
}

/// Whether a member of this name holds a secret: credentials, tokens (not progress
/// tokens, not counts of model tokens), keys, passwords, cookies.
fn is_secret(name: &str) -> bool {
    let folded: String = name
        .chars()
        .filter(|c| !matches!(c, '_' | '-'))
        .collect::<String>()
        .to_ascii_lowercase();
    if folded == "progresstoken" {
        return false;
    }
    [
        "token",
        "secret",
        "password",
        "passwd",
        "apikey",
        "authorization",
        "cookie",
        "verifier",
        "privatekey",
    ]
    .iter()
    .any(|end| folded.ends_with(end))
}

/// Masks secret members at any depth, and bearer credentials in any string.
pub(crate) fn redact(value: &mut Value) {
    match value {
        Value::Object(map) => {
            for (name, member) in map.iter_mut() {
                if is_secret(name) && (member.is_string() || member.is_number()) {
                    *member = Value::String(MASK.into());
                } else {
                    redact(member);
                }
            }
        }
        Value::Array(items) => items.iter_mut().for_each(redact),
        Value::String(text) => {
            for scheme in ["Bearer ", "Basic "] {
                if let Some(at) = text.find(scheme) {
                    let start = at + scheme.len();
                    let end = text[start..]
                        .find(|c: char| c.is_whitespace() || c == '"')
                        .map_or(text.len(), |n| start + n);
                    text.replace_range(start..end, MASK);
                }
            }
        }
        _ => {}
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use serde_json::json;

    #[test]
    fn secrets_are_masked_by_name_and_bearers_in_text() {
        let mut value = json!({
            "api_key": "k1", "password": 7, "accessToken": "t", "progressToken": "p",
            "maxTokens": 100, "note": "sent Authorization: Bearer abc.def to it",
            "nested": [{ "client_secret": "s" }]
        });
        redact(&mut value);
        assert_eq!(
            value,
            json!({
                "api_key": MASK, "password": MASK, "accessToken": MASK, "progressToken": "p",
                "maxTokens": 100, "note": "sent Authorization: Bearer [redacted] to it",
                "nested": [{ "client_secret": MASK }]
            })
        );
    }
}
