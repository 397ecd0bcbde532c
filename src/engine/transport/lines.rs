//! Newline-delimited JSON-RPC over a byte stream (the stdio framing of the 2025-11-25 and
//! 2026-07-28 transport pages): one message per line in each direction, no headers. Today it
//! serves the library's in-memory duplex; stdio is the same adapter on other ends.
//!
//! The peer holds one legacy session at a time, opened by its `initialize`; its server-to-client
//! messages (list changes, requests of a script) are written on the same stream. Requests run
//! concurrently (at most [`IN_FLIGHT`]), so a later `notifications/cancelled` line reaches a
//! slow call. Each line is
//! bounded by the server's body limit; a longer one, or one that is not JSON, gets the
//! JSON-RPC error and the stream goes on. Like the HTTP adapter, this one decides nothing
//! about a message: it reads lines, asks the pipeline, and writes what the outcome says.

use std::sync::{Arc, Mutex};

use serde_json::Value;
use tokio::io::{AsyncBufReadExt, AsyncRead, AsyncReadExt, AsyncWrite, AsyncWriteExt, BufReader};
use tokio::sync::mpsc;

use crate::engine::Engine;
use crate::engine::capture;
use crate::engine::methods::listen::Frame;
use crate::engine::pipeline::outcome::{Listening, Outcome, Reply, Streamed};
use crate::engine::pipeline::{self, Inbound};
use crate::engine::protocol::garble;
use crate::engine::protocol::jsonrpc::code;
use crate::engine::protocol::method::INITIALIZE;
use crate::engine::state::session::{Reader, Session};
use crate::engine::state::stream::{Poll, STANDALONE};
use crate::spec::Fault;

/// Lines queued for the writer before a producer waits: a slow reader holds the server back
/// instead of growing its queue.
const QUEUED_LINES: usize = 256;

/// Requests of one peer running at once; past it the adapter stops reading until one ends,
/// so a peer that floods slow calls holds itself back instead of growing the server.
const IN_FLIGHT: usize = 256;

/// The session a peer holds, shared by the tasks answering its requests.
type Slot = Arc<Mutex<Option<Arc<Session>>>>;

/// Serves one peer until it closes its side; then its session ends.
pub(crate) async fn serve<R, W>(engine: Arc<Engine>, read: R, write: W)
where
    R: AsyncRead + Unpin + Send + 'static,
    W: AsyncWrite + Unpin + Send + 'static,
{
    let (out, lines) = mpsc::channel::<String>(QUEUED_LINES);
    let writer = tokio::spawn(write_lines(write, lines));
    let slot: Slot = Arc::default();
    let in_flight = Arc::new(tokio::sync::Semaphore::new(IN_FLIGHT));
    let limit = engine.limits.max_body_bytes;
    let mut reader = BufReader::new(read);
    loop {
        let line = match read_line(&mut reader, limit).await {
            Line::End => break,
            Line::TooLong => {
                let text = format!("the line exceeds this server's limit of {limit} bytes");
                let outcome = pipeline::refused(
                    crate::engine::protocol::Status::BadRequest,
                    code::INVALID_REQUEST,
                    &text,
                );
                deliver(&engine, outcome, &out, &slot).await;
                continue;
            }
            Line::Text(bytes) => bytes,
        };
        let inbound = Inbound {
            accepts_stream: true,
            session: current(&slot).map(|s| s.id.clone()),
            ..Inbound::default()
        };
        let text = String::from_utf8_lossy(&line);
        if text.trim().is_empty() {
            continue;
        }
        let message = match serde_json::from_str::<Value>(&text) {
            Ok(message) => message,
            Err(error) => {
                let outcome =
                    pipeline::unparsable(&engine, &inbound, text.into_owned(), &error.to_string());
                deliver(&engine, outcome, &out, &slot).await;
                continue;
            }
        };
        // `initialize` and notifications are answered in order, so the next line already
        // finds the session; requests run on their own, so cancellation can overtake them.
        let in_order = message.get("id").is_none()
            || message.get("method").and_then(Value::as_str) == Some(INITIALIZE)
            || message.is_array();
        let (engine, out, slot) = (engine.clone(), out.clone(), slot.clone());
        let answer = async move {
            let outcome = match message {
                Value::Array(batch) => pipeline::batch(&engine, &inbound, batch).await,
                message => pipeline::message(&engine, &inbound, message).await,
            };
            deliver(&engine, outcome, &out, &slot).await;
        };
        if in_order {
            answer.await;
        } else {
            let Ok(permit) = in_flight.clone().acquire_owned().await else {
                break;
            };
            tokio::spawn(async move {
                answer.await;
                drop(permit);
            });
        }
    }
    // The peer is gone: its session ends, which also ends the tasks writing for it.
    if let Some(session) = current(&slot) {
        engine.close_session(&session.id);
    }
    drop(out);
    let _ = writer.await;
}

fn current(slot: &Slot) -> Option<Arc<Session>> {
    slot.lock().unwrap_or_else(|p| p.into_inner()).clone()
}

enum Line {
    Text(Vec<u8>),
    TooLong,
    End,
}

/// The next line without its newline, reading at most `limit` bytes of it; the rest of a
/// longer line is read and dropped.
async fn read_line<R: AsyncRead + Unpin>(reader: &mut BufReader<R>, limit: usize) -> Line {
    let mut line = Vec::new();
    let bound = u64::try_from(limit).unwrap_or(u64::MAX).saturating_add(1);
    match (&mut *reader)
        .take(bound)
        .read_until(b'\n', &mut line)
        .await
    {
        Ok(0) | Err(_) => return Line::End,
        Ok(_) => {}
    }
    if line.last() == Some(&b'\n') {
        line.pop();
        if line.last() == Some(&b'\r') {
            line.pop();
        }
        return Line::Text(line);
    }
    if line.len() <= limit {
        // The stream ended inside the line: what arrived is the last message.
        return Line::Text(line);
    }
    let mut rest = Vec::new();
    loop {
        rest.clear();
        match (&mut *reader)
            .take(64 * 1024)
            .read_until(b'\n', &mut rest)
            .await
        {
            Ok(0) | Err(_) => return Line::End,
            Ok(_) if rest.last() == Some(&b'\n') => return Line::TooLong,
            Ok(_) => {}
        }
    }
}

async fn write_lines<W: AsyncWrite + Unpin>(mut write: W, mut lines: mpsc::Receiver<String>) {
    while let Some(line) = lines.recv().await {
        let written = async {
            write.write_all(line.as_bytes()).await?;
            write.write_all(b"\n").await?;
            write.flush().await
        };
        if written.await.is_err() {
            break;
        }
    }
}

/// Writes an outcome as lines.
async fn deliver(engine: &Arc<Engine>, outcome: Outcome, out: &mpsc::Sender<String>, slot: &Slot) {
    match outcome {
        Outcome::Accepted => {}
        Outcome::Reply(reply) => reply_lines(engine, reply, out, slot).await,
        Outcome::Stream(streamed) => stream_lines(engine, streamed, out).await,
        Outcome::Listen(listening) => listen_lines(engine, listening, out).await,
        // An HTTP status means nothing on a byte stream: the request goes unanswered.
        Outcome::Status { status, .. } => {
            tracing::debug!(status, "an http fault on a byte stream: nothing is written");
        }
    }
}

async fn reply_lines(engine: &Arc<Engine>, reply: Reply, out: &mpsc::Sender<String>, slot: &Slot) {
    let Reply {
        body,
        fault,
        opened,
        ..
    } = reply;
    if let Some(id) = opened {
        open_session(engine, &id, out, slot);
    }
    let text = match fault.as_ref().map(|(fault, _)| fault) {
        Some(Fault::MalformedJson) => garble::malformed(&body),
        Some(Fault::TruncatedStream | Fault::CloseConnection) => garble::half(&body),
        Some(Fault::HangingStream) => return,
        Some(Fault::DuplicateResponse) => {
            let _ = out.send(body.to_string()).await;
            body.to_string()
        }
        _ => body.to_string(),
    };
    let _ = out.send(text).await;
}

/// Holds the session `initialize` opened and writes its server-to-client messages (what the
/// GET stream carries over HTTP) until it ends.
fn open_session(engine: &Arc<Engine>, id: &str, out: &mpsc::Sender<String>, slot: &Slot) {
    let Some(session) = engine.sessions.get(id) else {
        return;
    };
    let previous = slot
        .lock()
        .unwrap_or_else(|p| p.into_inner())
        .replace(session.clone());
    if let Some(previous) = previous {
        engine.close_session(&previous.id);
    }
    if let Some(reader) = session.attach(STANDALONE, None) {
        tokio::spawn(forward(engine.clone(), session, reader, out.clone()));
    }
}

async fn stream_lines(engine: &Arc<Engine>, streamed: Streamed, out: &mpsc::Sender<String>) {
    let Streamed {
        session, reader, ..
    } = streamed;
    forward(engine.clone(), session, reader, out.clone()).await;
}

/// Writes the messages of one session stream as lines until it closes, recording each the
/// server sent (a response's record is the pipeline's).
async fn forward(
    engine: Arc<Engine>,
    session: Arc<Session>,
    mut reader: Reader,
    out: mpsc::Sender<String>,
) {
    loop {
        match session.poll(&mut reader) {
            Poll::Event(event) => {
                let Some(message) = event.message else {
                    continue;
                };
                capture::sent(&engine, &session, None, &message);
                if out.send(message.to_string()).await.is_err() {
                    break;
                }
            }
            Poll::Closed => break,
            Poll::Wait => {
                if reader.wake.changed().await.is_err() {
                    break;
                }
            }
        }
    }
    session.detach(&reader);
}

async fn listen_lines(engine: &Arc<Engine>, listening: Listening, out: &mpsc::Sender<String>) {
    let Listening {
        session,
        mut subscription,
        record,
    } = listening;
    let mut record = Some(record);
    while let Some(frame) = subscription.next().await {
        let line = match frame {
            Frame::Notification(message) => {
                capture::sent(engine, &session, None, &message);
                message.to_string()
            }
            Frame::Final(response) => {
                if let Some(record) = record.take() {
                    record.answered(&response, None);
                }
                response.to_string()
            }
            Frame::KeepAlive => continue,
        };
        if out.send(line).await.is_err() {
            break;
        }
    }
}
