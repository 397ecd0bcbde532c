//! The JSON-RPC conversation alone, for snapshots that read as the client's story: each
//! message once, without the HTTP exchanges that carried it, normalised as a [`Transcript`]
//! is, and members an SDK adds of its own dropped on request.

use serde::Serialize;
use serde_json::{Map, Value};

use super::record::{Direction, RequestEnd, RpcKind};
use super::transcript::{Transcript, TranscriptEntry};

/// The JSON-RPC messages of a [`Transcript`] and nothing else, from
/// [`Log::conversation`](super::Log::conversation): a request and its answer in one entry,
/// `jsonrpc` left out, session ids, ports, OAuth's random values and credentials
/// normalised as in the transcript. Where a transcript of an initialize, a listing and a
/// call repeats every body (the `http` exchange and the `mcp` record), this has each once.
///
/// What a client SDK adds of its own (its `clientInfo`, the capabilities it declares, a
/// `_meta.progressToken` on every request) changes with the SDK's version; drop it with
/// [`without`](Self::without) or [`without_client_details`](Self::without_client_details)
/// so an upgrade of the client's SDK leaves the snapshot alone.
///
/// # Example
/// ```
/// # #[tokio::main(flavor = "current_thread")]
/// # async fn main() {
/// use mcp_decoy::{MockMcpServer, Tool};
/// use serde_json::json;
///
/// let server = MockMcpServer::builder().tool(Tool::echo()).start().await;
/// let http = reqwest::Client::new();
/// let initialize = json!({ "jsonrpc": "2.0", "id": 1, "method": "initialize", "params": {
///     "protocolVersion": "2025-11-25", "capabilities": {},
///     "clientInfo": { "name": "my-client", "version": "0.3.1" } } });
/// http.post(server.url())
///     .header("accept", "application/json, text/event-stream")
///     .json(&initialize)
///     .send()
///     .await
///     .expect("initialize");
///
/// let conversation = server.log().conversation().without_client_details();
/// let entries = serde_json::to_value(&conversation).expect("serializes");
/// assert_eq!(entries[0]["client"]["method"], "initialize");
/// assert!(entries[0]["client"]["params"].get("clientInfo").is_none());
/// assert_eq!(entries[0]["server"]["result"]["protocolVersion"], "2025-11-25");
/// // insta::assert_json_snapshot!(conversation);
/// # }
/// ```
#[derive(Debug, Clone, PartialEq, Serialize)]
#[serde(transparent)]
pub struct Conversation {
    entries: Vec<ConversationEntry>,
}

/// One message of a [`Conversation`], or a request with its answer.
#[derive(Debug, Clone, PartialEq, Serialize)]
#[serde(rename_all = "camelCase")]
#[non_exhaustive]
pub struct ConversationEntry {
    /// Position in the conversation, from 1.
    pub n: usize,
    /// `[session-N]`, when the message belongs to a session.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub session: Option<String>,
    /// What the client sent: a request, a notification, or its answer to a server's
    /// request.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub client: Option<Value>,
    /// What the server sent: the answer to the client's request in the same entry, or a
    /// request or notification of its own.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub server: Option<Value>,
    /// Why a request of the client got no answer (see
    /// [`RpcMessage::end`](super::RpcMessage::end)); left out when answered or pending.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub end: Option<RequestEnd>,
    /// The faults that fired for it (see [`RpcMessage::fault`](super::RpcMessage::fault)).
    #[serde(skip_serializing_if = "Option::is_none")]
    pub fault: Option<String>,
    /// The log keeps the message or its answer cut (see
    /// [`RpcMessage::truncated`](super::RpcMessage::truncated)).
    #[serde(skip_serializing_if = "std::ops::Not::not")]
    pub truncated: bool,
}

/// The members [`Conversation::without_client_details`] drops: what identifies the SDK
/// rather than what the client asked.
const CLIENT_DETAILS: &[&str] = &["params.clientInfo", "params.capabilities", "params._meta"];

impl Conversation {
    pub(crate) fn of(transcript: &Transcript) -> Conversation {
        let entries = transcript
            .entries()
            .iter()
            .filter_map(|entry| match entry {
                TranscriptEntry::Mcp {
                    kind,
                    direction,
                    session,
                    message,
                    response,
                    end,
                    fault,
                    truncated,
                    ..
                } => {
                    let message = Some(bare(message.clone()));
                    let answer = response.clone().map(bare);
                    let (client, server) = match (direction, kind) {
                        (Direction::ClientToServer, RpcKind::Request) => (message, answer),
                        (Direction::ClientToServer, _) => (message, None),
                        (Direction::ServerToClient, _) => (None, message),
                    };
                    Some(ConversationEntry {
                        n: 0,
                        session: session.clone(),
                        client,
                        server,
                        end: *end,
                        fault: fault.clone(),
                        truncated: *truncated,
                    })
                }
                TranscriptEntry::Http { .. } => None,
            })
            .enumerate()
            .map(|(i, entry)| ConversationEntry { n: i + 1, ..entry })
            .collect();
        Conversation { entries }
    }

    /// The entries, in transcript order.
    pub fn entries(&self) -> &[ConversationEntry] {
        &self.entries
    }

    /// Drops the member at `path` (dotted, from a message's root: `params._meta`,
    /// `result.serverInfo.version`) from every message and answer that has it, as a user
    /// drops what a client SDK adds of its own. A path no message has changes nothing.
    ///
    /// # Example
    /// ```
    /// # #[tokio::main(flavor = "current_thread")]
    /// # async fn main() {
    /// # let server = mcp_decoy::MockMcpServer::builder().start().await;
    /// // rmcp puts `_meta.progressToken` on each call; the conversation without it:
    /// let conversation = server.log().conversation().without("params._meta.progressToken");
    /// # assert!(conversation.entries().is_empty());
    /// # }
    /// ```
    pub fn without(mut self, path: &str) -> Conversation {
        let steps: Vec<&str> = path.split('.').filter(|s| !s.is_empty()).collect();
        for entry in &mut self.entries {
            for value in [&mut entry.client, &mut entry.server].into_iter().flatten() {
                remove(value, &steps);
            }
        }
        self
    }

    /// Drops what identifies the client's SDK rather than what it asked: `params.clientInfo`
    /// and `params.capabilities` (of `initialize`) and every `params._meta` (progress
    /// tokens, and in 2026-07-28 the client's version and capabilities on each request).
    pub fn without_client_details(self) -> Conversation {
        CLIENT_DETAILS
            .iter()
            .fold(self, |conversation, path| conversation.without(path))
    }
}

/// A message without its `jsonrpc` member, the same on every message, and with `id` and
/// `method` first whatever order the client's SDK wrote them in.
fn bare(message: Value) -> Value {
    let Value::Object(mut map) = message else {
        return message;
    };
    map.remove("jsonrpc");
    let mut ordered = Map::with_capacity(map.len());
    for first in ["id", "method"] {
        if let Some(value) = map.remove(first) {
            ordered.insert(first.to_string(), value);
        }
    }
    ordered.extend(map);
    Value::Object(ordered)
}

fn remove(value: &mut Value, steps: &[&str]) {
    let Some((last, parents)) = steps.split_last() else {
        return;
    };
    let mut here: &mut Map<String, Value> = match value {
        Value::Object(map) => map,
        _ => return,
    };
    for step in parents {
        match here.get_mut(*step) {
            Some(Value::Object(map)) => here = map,
            _ => return,
        }
    }
    here.remove(*last);
}

#[cfg(test)]
mod tests {
    use super::*;
    use serde_json::json;

    #[test]
    fn a_path_is_dropped_where_it_exists_and_nothing_else_changes() {
        let mut message =
            json!({ "params": { "_meta": { "progressToken": 1, "keep": 2 }, "name": "x" } });
        remove(&mut message, &["params", "_meta", "progressToken"]);
        remove(&mut message, &["params", "name", "deeper"]);
        remove(&mut message, &["result"]);
        assert_eq!(
            message,
            json!({ "params": { "_meta": { "keep": 2 }, "name": "x" } })
        );
    }
}
