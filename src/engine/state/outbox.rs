//! Messages a handler sends while it works on a request: notifications related to the
//! request, and requests to the client whose responses it awaits. They go on the request's
//! own event stream, or on the session's GET stream when the request is answered as JSON.

use std::sync::Arc;
use std::time::Duration;

use serde_json::{Value, json};

use super::session::Session;
use super::stream::STANDALONE;
use crate::engine::protocol::jsonrpc;

#[derive(Debug, Clone)]
pub(crate) struct Outbox {
    session: Arc<Session>,
    stream: u64,
}

impl Outbox {
    /// An outbox writing to `stream`, or to the GET stream when `None`.
    pub(crate) fn new(session: Arc<Session>, stream: Option<u64>) -> Self {
        Outbox {
            session,
            stream: stream.unwrap_or(STANDALONE),
        }
    }

    pub(crate) fn notify(&self, method: &str, params: Value) {
        self.session.push(
            self.stream,
            Some(jsonrpc::notification(method, Some(params))),
        );
    }

    /// Sends a request to the client and waits for its result; the error says what the
    /// client answered instead, or that it did not answer in time. A request the server
    /// stops waiting for (a timeout, or the call that sent it was cancelled) is cancelled
    /// with `notifications/cancelled` (basic/utilities/cancellation: either side may cancel
    /// its own requests), so the client can close its dialog.
    pub(crate) async fn ask(
        &self,
        method: &str,
        params: Value,
        timeout: Duration,
    ) -> Result<Value, String> {
        let (id, reply) = self.session.expect_reply();
        let mut request = json!({ "jsonrpc": "2.0", "id": id, "method": method });
        // JSON-RPC params are an object or an array; `roots/list` usually has none.
        if !params.is_null() {
            request["params"] = params;
        }
        self.session.push(self.stream, Some(request));
        let mut waiting = Waiting {
            outbox: self,
            id,
            abandoned: Some("the tool call that sent this request was cancelled".into()),
        };
        match tokio::time::timeout(timeout, reply).await {
            Ok(Ok(message)) => {
                waiting.abandoned = None;
                match (message.get("result"), message.get("error")) {
                    (Some(result), _) => Ok(result.clone()),
                    (None, Some(error)) => Err(format!(
                        "the client answered {method} with an error: {error}"
                    )),
                    (None, None) => Err(format!(
                        "the client's answer to {method} has neither result nor error"
                    )),
                }
            }
            Ok(Err(_)) => {
                waiting.abandoned = None;
                Err(format!(
                    "the session ended before the client answered {method}"
                ))
            }
            Err(_) => {
                let waited = format!(
                    "the client did not answer {method} within {} ms",
                    timeout.as_millis()
                );
                waiting.abandoned = Some(format!("the server stopped waiting: {waited}"));
                Err(waited)
            }
        }
    }
}

/// A server request awaiting its answer. Dropped unanswered, whether on timeout or because
/// the handler was cancelled mid-await, it stops routing the answer and tells the client.
struct Waiting<'a> {
    outbox: &'a Outbox,
    id: Value,
    /// The reason to send with `notifications/cancelled`; `None` once answered.
    abandoned: Option<String>,
}

impl Drop for Waiting<'_> {
    fn drop(&mut self) {
        self.outbox.session.forget_reply(&self.id);
        if let Some(reason) = self.abandoned.take() {
            self.outbox.notify(
                "notifications/cancelled",
                json!({ "requestId": self.id, "reason": reason }),
            );
        }
    }
}
