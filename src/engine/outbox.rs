//! Messages a handler sends while it works on a request: notifications related to the
//! request, and requests to the client whose responses it awaits. They go on the request's
//! own event stream, or on the session's GET stream when the request is answered as JSON.

use std::sync::Arc;
use std::time::Duration;

use serde_json::{Value, json};

use super::jsonrpc;
use super::session::Session;
use super::stream::STANDALONE;

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
    /// client answered instead, or that it did not answer in time.
    pub(crate) async fn ask(
        &self,
        method: &str,
        params: Value,
        timeout: Duration,
    ) -> Result<Value, String> {
        let (id, reply) = self.session.expect_reply();
        self.session.push(
            self.stream,
            Some(json!({ "jsonrpc": "2.0", "id": id, "method": method, "params": params })),
        );
        match tokio::time::timeout(timeout, reply).await {
            Ok(Ok(message)) => match (message.get("result"), message.get("error")) {
                (Some(result), _) => Ok(result.clone()),
                (None, Some(error)) => Err(format!(
                    "the client answered {method} with an error: {error}"
                )),
                (None, None) => Err(format!(
                    "the client's answer to {method} has neither result nor error"
                )),
            },
            Ok(Err(_)) => Err(format!(
                "the session ended before the client answered {method}"
            )),
            Err(_) => {
                self.session.forget_reply(&id);
                Err(format!(
                    "the client did not answer {method} within {} ms",
                    timeout.as_millis()
                ))
            }
        }
    }
}
