//! A capture becomes a cassette: each client request that got a response is one
//! interaction, with the server's messages that belonged to it, the handshakes go to
//! `server`, and every value is normalised and redacted (see [`normalise`](super::normalise)).
//! It reads only `mcp` records (and the `host` of `http` ones), which a relay writes as a
//! mock does.

use serde_json::Value;

use super::format::{
    Cassette, Interaction, MessageKind, RecordedRequest, RecordedResponse, ServerMessage,
};
use super::normalise::{self, Volatile};
use crate::log::{Direction, Entry, Log, Record, RequestEnd, RpcKind, RpcMessage};

/// Requests that are no exchange worth replaying: the replay answers them itself.
const HOUSEKEEPING: [&str; 2] = ["ping", "subscriptions/listen"];

impl Log {
    /// The captured session as a [`Cassette`](crate::cassette::Cassette): one interaction per
    /// request that was answered, in arrival order, with the progress, log messages and
    /// requests to the client that belonged to it (those its response's event stream
    /// carried, or that name its progress token), and the `initialize` and
    /// `server/discover` answers. Secrets are masked (members named like tokens, keys,
    /// passwords; bearer credentials in text), and what varies between runs (JSON-RPC ids,
    /// session ids, times, the port, `requestState` and task ids, progress tokens) is left
    /// out or labelled, so recording the same session twice gives the same file.
    ///
    /// # Example
    /// ```
    /// # #[tokio::main(flavor = "current_thread")]
    /// # async fn main() {
    /// use mcp_decoy::{MockMcpServer, Tool};
    ///
    /// let server = MockMcpServer::builder().tool(Tool::echo()).start().await;
    /// // After the client under test ran its session:
    /// let cassette = server.log().to_cassette();
    /// # let dir = std::env::temp_dir().join(format!("doc-cassette-{}", std::process::id()));
    /// # std::fs::create_dir_all(&dir).unwrap();
    /// cassette.save(dir.join("echo.json")).expect("written");
    /// # }
    /// ```
    pub fn to_cassette(&self) -> Cassette {
        of(self.records())
    }
}

struct Open<'a> {
    message: &'a RpcMessage,
    record: u64,
    interaction: Interaction,
}

pub(crate) fn of(records: &[Record]) -> Cassette {
    let volatile = Volatile::of(records);
    let mcp: Vec<(u64, &RpcMessage)> = records
        .iter()
        .filter_map(|r| match &r.entry {
            Entry::Mcp(m) => Some((r.id, m)),
            Entry::Http(_) => None,
        })
        .collect();
    let mut cassette = Cassette::new();
    let mut open: Vec<Open<'_>> = Vec::new();
    for &(record, message) in &mcp {
        let from_client = message.direction == Direction::ClientToServer;
        if !from_client
            || message.kind != RpcKind::Request
            || message.end != Some(RequestEnd::Answered)
        {
            continue;
        }
        let (Some(method), Some(response)) =
            (&message.method, recorded(message.response.as_deref()))
        else {
            continue;
        };
        match (method.as_str(), &response) {
            ("initialize", RecordedResponse::Result(result)) => {
                cassette
                    .server
                    .initialize
                    .get_or_insert_with(|| result.clone());
            }
            ("server/discover", RecordedResponse::Result(result)) => {
                cassette
                    .server
                    .discover
                    .get_or_insert_with(|| result.clone());
            }
            ("initialize" | "server/discover", _) => {}
            (method, _) if HOUSEKEEPING.contains(&method) => {}
            (method, _) => open.push(Open {
                message,
                record,
                interaction: Interaction {
                    protocol_version: message.protocol_version.clone(),
                    request: RecordedRequest {
                        method: method.to_string(),
                        params: message.message.get("params").cloned(),
                    },
                    messages: Vec::new(),
                    response,
                    truncated: message.truncated,
                },
            }),
        }
    }
    for &(record, message) in &mcp {
        if message.direction != Direction::ServerToClient {
            continue;
        }
        let Some(method) = &message.method else {
            continue;
        };
        let Some(owner) = owner(&open, record, message) else {
            continue;
        };
        let kind = if message.kind == RpcKind::Request {
            MessageKind::Request
        } else {
            MessageKind::Notification
        };
        let answer = (kind == MessageKind::Request)
            .then(|| answer(&mcp, record, message))
            .flatten();
        open[owner].interaction.messages.push(ServerMessage {
            kind,
            method: method.clone(),
            params: message.message.get("params").cloned(),
            answer,
        });
    }
    cassette.interactions = open.into_iter().map(|o| o.interaction).collect();
    normalise_all(&mut cassette, &volatile);
    cassette
}

fn recorded(response: Option<&Value>) -> Option<RecordedResponse> {
    let response = response?;
    if let Some(result) = response.get("result") {
        return Some(RecordedResponse::Result(result.clone()));
    }
    response
        .get("error")
        .map(|error| RecordedResponse::Error(error.clone()))
}

/// The request a server message belonged to: the one whose event stream carried it, else
/// the one whose progress token it names, else (a request to the client, a log message or
/// progress on a stream of its own) the latest request of its session before it.
fn owner(open: &[Open<'_>], record: u64, message: &RpcMessage) -> Option<usize> {
    let before = |o: &&Open<'_>| o.record < record;
    let latest = |pick: &dyn Fn(&Open<'_>) -> bool| {
        open.iter()
            .enumerate()
            .filter(|(_, o)| before(o) && pick(o))
            .map(|(n, _)| n)
            .next_back()
    };
    if let Some(carrier) = message.carried_by
        && let Some(n) = latest(&|o| o.message.carried_by == Some(carrier))
    {
        return Some(n);
    }
    if let Some(token) = message.params().get("progressToken")
        && let Some(n) = latest(&|o| {
            o.message
                .params()
                .get("_meta")
                .and_then(|m| m.get("progressToken"))
                == Some(token)
        })
    {
        return Some(n);
    }
    let related = message.kind == RpcKind::Request
        || matches!(
            message.method.as_deref(),
            Some("notifications/progress" | "notifications/message")
        );
    if !related {
        return None;
    }
    latest(&|o| o.message.session == message.session)
}

/// The client's answer to a server request: its response record with the same id.
fn answer(
    mcp: &[(u64, &RpcMessage)],
    record: u64,
    request: &RpcMessage,
) -> Option<RecordedResponse> {
    let id = request.rpc_id()?;
    mcp.iter()
        .filter(|(r, m)| {
            *r > record
                && m.direction == Direction::ClientToServer
                && m.kind == RpcKind::Response
                && m.session == request.session
                && m.rpc_id() == Some(id)
        })
        .find_map(|(_, m)| recorded(Some(&m.message)))
}

fn normalise_all(cassette: &mut Cassette, volatile: &Volatile) {
    let each = |value: &mut Value| {
        volatile.apply(value);
        normalise::redact(value);
    };
    for value in [
        &mut cassette.server.initialize,
        &mut cassette.server.discover,
    ]
    .into_iter()
    .flatten()
    {
        each(value);
    }
    for interaction in &mut cassette.interactions {
        if let Some(params) = &mut interaction.request.params {
            normalise::progress_token(params, true);
            each(params);
        }
        match &mut interaction.response {
            RecordedResponse::Result(value) | RecordedResponse::Error(value) => each(value),
        }
        for message in &mut interaction.messages {
            if let Some(params) = &mut message.params {
                normalise::progress_token(params, false);
                each(params);
            }
            if let Some(RecordedResponse::Result(value) | RecordedResponse::Error(value)) =
                &mut message.answer
            {
                each(value);
            }
        }
    }
}
