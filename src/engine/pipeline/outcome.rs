//! What the pipeline hands back to a transport: the answer to one message (or batch) as a
//! value, with the fault that shapes it still named. No bytes here: turning an outcome into
//! bytes on the wire is the adapter's render step, the only place a fault becomes bytes.

use std::sync::Arc;

use serde_json::Value;

use crate::engine::capture::Recorder;
use crate::engine::methods::listen::Subscription;
pub(crate) use crate::engine::protocol::Status;
use crate::engine::state::faults::HangPermit;
use crate::engine::state::session::{Reader, Session};
use crate::log::Json;
use crate::spec::Fault;

/// The answer to one incoming message or batch.
#[derive(Debug)]
// `Reply` is the common answer: boxing it would cost every answer an allocation to save a
// few hundred bytes of stack on the rare others.
#[allow(clippy::large_enum_variant)]
pub(crate) enum Outcome {
    /// Nothing to send back: a notification, a client's response, a cancelled request.
    Accepted,
    /// One JSON value answers: a response, an error, or a batch's responses.
    Reply(Reply),
    /// A JSON answer that no fault shapes, written once as text: the record shares it and
    /// the transport sends it, framed as `framing` says. `opened` as in [`Reply`].
    Written {
        text: Json,
        opened: Option<String>,
        framing: Framing,
    },
    /// The answer is a stream of the session's events (the handler runs on its own task).
    Stream(Streamed),
    /// `subscriptions/listen`: a stream of change notifications until either side ends it
    /// (boxed: its filter is the largest answer by far, and the others are common).
    Listen(Box<Listening>),
    /// A fault answers instead of the server: an HTTP status with its body and headers.
    Status {
        status: u16,
        body: Option<String>,
        headers: Vec<(String, String)>,
    },
}

/// A JSON answer.
#[derive(Debug)]
pub(crate) struct Reply {
    pub(crate) status: Status,
    pub(crate) body: Value,
    /// `Plain` always travels as JSON; `Mode` follows the server's response mode (JSON, or
    /// one event on a stream).
    pub(crate) framing: Framing,
    /// A fault that breaks the answer on its way out (malformed, truncated, cut, duplicated,
    /// hanging), with the session it belongs to.
    pub(crate) fault: Option<(Fault, Arc<Session>)>,
    /// The id of the session this answer opened (`initialize`).
    pub(crate) opened: Option<String>,
    /// `body` as JSON text, when the capture already wrote it (sent as is).
    pub(crate) text: Option<Json>,
}

/// How a [`Reply`] travels.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub(crate) enum Framing {
    Plain,
    Mode,
}

impl Outcome {
    /// A JSON answer whose text the capture already wrote.
    pub(crate) fn json_with_text(status: Status, body: Value, text: Option<Json>) -> Outcome {
        Outcome::Reply(Reply {
            status,
            body,
            framing: Framing::Plain,
            fault: None,
            opened: None,
            text,
        })
    }

    /// A plain JSON answer with no fault.
    pub(crate) fn json(status: Status, body: Value) -> Outcome {
        Outcome::json_with_text(status, body, None)
    }

    /// An answer in the server's response mode.
    pub(crate) fn in_mode(body: Value) -> Outcome {
        Outcome::Reply(Reply {
            status: Status::Ok,
            body,
            framing: Framing::Mode,
            fault: None,
            opened: None,
            text: None,
        })
    }

    /// A plain answer that a fault may break.
    pub(crate) fn faulty(body: Value, fault: Option<Fault>, session: &Arc<Session>) -> Outcome {
        Outcome::Reply(Reply {
            status: Status::Ok,
            body,
            framing: Framing::Plain,
            fault: fault.map(|fault| (fault, session.clone())),
            opened: None,
            text: None,
        })
    }
}

/// An answer on a stream of the session: what to read and how the stream misbehaves.
#[derive(Debug)]
pub(crate) struct Streamed {
    pub(crate) session: Arc<Session>,
    pub(crate) reader: Reader,
    pub(crate) shape: Shape,
    /// Holds a hanging stream's place in the server's count.
    pub(crate) hang: Option<HangPermit>,
}

/// An open `subscriptions/listen` stream and the record its final response closes.
#[derive(Debug)]
pub(crate) struct Listening {
    pub(crate) session: Arc<Session>,
    pub(crate) subscription: Subscription,
    pub(crate) record: Recorder,
}

/// How a request's event stream misbehaves; the adapter's stream writer carries it out.
#[derive(Debug, Clone, Copy, Default, PartialEq, Eq)]
pub(crate) enum Shape {
    #[default]
    Normal,
    /// The response event's data is not JSON. It carries no id, as if garbled in transit:
    /// a client that resumes gets the buffered response intact.
    Malformed,
    /// The connection breaks where the response would be written; the response stays in the
    /// stream's buffer, so a client that resumes with `Last-Event-ID` still gets it.
    Cut,
    /// The priming event carries `retry`, then the server ends the stream; the response waits
    /// in the buffer for the client's `GET` with `Last-Event-ID`.
    Poll { retry_ms: u64 },
    /// `count` `notifications/message` after the priming event (or first), not captured
    /// one by one (the fault's label says how many).
    Flood { count: u32 },
    /// Never ends on its own; its reader finishes the stream when it goes, so the session
    /// can evict it.
    Hang,
    /// Byte streams: the process exits with this status where the response would be written.
    Exit(i32),
    /// Byte streams: the response's line goes out in two writes this many milliseconds apart.
    Split(u64),
    /// Byte streams: this many bytes on stderr before anything else.
    Stderr(u32),
}

impl Shape {
    pub(crate) fn of(fault: Option<&Fault>) -> Shape {
        match fault {
            Some(Fault::MalformedJson) => Shape::Malformed,
            Some(Fault::CloseConnection) => Shape::Cut,
            Some(Fault::SsePolling { retry_ms }) => Shape::Poll {
                retry_ms: *retry_ms,
            },
            Some(Fault::NotificationFlood { count }) => Shape::Flood {
                count: (*count).min(crate::engine::validate::faults::MAX_FLOOD),
            },
            Some(Fault::HangingStream) => Shape::Hang,
            Some(Fault::Exit { code }) => Shape::Exit(*code),
            Some(Fault::SplitMessage { pause_ms }) => Shape::Split(*pause_ms),
            Some(Fault::StderrFlood { bytes }) => Shape::Stderr(*bytes),
            _ => Shape::Normal,
        }
    }
}
