//! Newline-delimited JSON-RPC over a byte stream (the stdio framing of the 2025-11-25 and
//! 2026-07-28 transport pages): one message per line in each direction, no headers. It
//! serves the library's in-memory duplex and every stdio process (a fixture's bridge, the
//! app's `mcp-decoy stdio`); [`out`] is where the bytes go for each.
//!
//! The peer holds one legacy session at a time, opened by its `initialize`; its server-to-client
//! messages (list changes, requests of a script) are written on the same stream. Requests run
//! concurrently (at most [`IN_FLIGHT`]), so a later `notifications/cancelled` line reaches a
//! slow call. Each line is bounded by the server's body limit; a longer one, or one that is
//! not UTF-8 JSON, gets the JSON-RPC error and the stream goes on. When the peer closes its
//! side, calls still running are cancelled and the session ends at once (the stdio
//! transport's shutdown: the client closes stdin and waits for the server to exit), unless
//! the server was told to ignore EOF. Like the HTTP adapter, this one decides nothing about
//! a message: it reads lines, asks the pipeline, and writes what the outcome says.

pub(crate) mod out;

use std::sync::{Arc, Mutex};
use std::time::Duration;

use serde_json::Value;
use tokio::io::{AsyncBufReadExt, AsyncRead, AsyncReadExt, BufReader};
use tokio::sync::mpsc;
use tokio::task::JoinSet;

use crate::engine::Engine;
use crate::engine::capture;
use crate::engine::methods::listen::Frame;
use crate::engine::pipeline::outcome::{Listening, Outcome, Reply, Shape, Streamed};
use crate::engine::pipeline::{self, Inbound};
use crate::engine::protocol::garble;
use crate::engine::protocol::jsonrpc::code;
use crate::engine::protocol::message::Body;
use crate::engine::protocol::method::INITIALIZE;
use crate::engine::state::session::{Reader, Session};
use crate::engine::state::stream::{Poll, STANDALONE};
use crate::log::Transport;
use crate::spec::Fault;
use out::{Out, Sink};

/// Items queued for the writer before a producer waits: a slow reader holds the server back
/// instead of growing its queue.
const QUEUED: usize = 256;

/// Requests of one peer running at once; past it the adapter stops reading until one ends,
/// so a peer that floods slow calls holds itself back instead of growing the server.
const IN_FLIGHT: usize = 256;

/// The session a peer holds, shared by the tasks answering its requests.
type Slot = Arc<Mutex<Option<Arc<Session>>>>;

/// Where the adapter's output goes: a queue the writer task empties into the sink.
type Queue = mpsc::Sender<Out>;

/// Serves one peer until it closes its side (or an exit fault ends the stream); then its
/// session ends.
pub(crate) async fn serve<R, S>(engine: Arc<Engine>, read: R, sink: S, transport: Transport)
where
    R: AsyncRead + Unpin + Send + 'static,
    S: Sink,
{
    let stdio = engine.spec.stdio;
    let (out, queue) = mpsc::channel::<Out>(QUEUED);
    let mut writer = tokio::spawn(out::write_all(sink, queue));
    let slot: Slot = Arc::default();
    let mut calls = JoinSet::new();
    let in_flight = Arc::new(tokio::sync::Semaphore::new(IN_FLIGHT));
    let limit = engine.limits.max_body_bytes;
    let mut reader = BufReader::new(read);
    if stdio.start_delay_ms > 0 {
        tokio::time::sleep(Duration::from_millis(stdio.start_delay_ms)).await;
    }
    loop {
        // Reap finished calls so the set holds only running ones.
        while calls.try_join_next().is_some() {}
        let line = tokio::select! {
            line = read_line(&mut reader, limit) => line,
            // The writer stopped (an exit, or the peer stopped reading): nothing more to do.
            _ = &mut writer => return end(&engine, &slot, calls).await,
        };
        let line = match line {
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
            transport,
            accepts_stream: true,
            session: current(&slot).map(|s| s.id.clone()),
            ..Inbound::default()
        };
        let parsed = match std::str::from_utf8(&line) {
            Ok(text) if text.trim().is_empty() => continue,
            Ok(text) => {
                Body::parse(text.as_bytes()).map_err(|error| (text.to_string(), error.to_string()))
            }
            Err(error) => Err((
                String::from_utf8_lossy(&line).into_owned(),
                format!("the line is not UTF-8 ({error})"),
            )),
        };
        let message = match parsed {
            Ok(message) => message,
            Err((text, reason)) => {
                let outcome = pipeline::unparsable(&engine, &inbound, text, &reason);
                deliver(&engine, outcome, &out, &slot).await;
                continue;
            }
        };
        // `initialize` and notifications are answered in order, so the next line already
        // finds the session; requests run on their own, so cancellation can overtake them.
        let in_order = match &message {
            Body::One(message) => {
                message.member("id").is_none()
                    || message.member("method").and_then(Value::as_str) == Some(INITIALIZE)
            }
            Body::Batch(_) => true,
        };
        let (engine, out, slot) = (engine.clone(), out.clone(), slot.clone());
        let answer = async move {
            let outcome = match message {
                Body::Batch(batch) => pipeline::batch(&engine, &inbound, batch).await,
                Body::One(message) => pipeline::message(&engine, &inbound, message).await,
            };
            deliver(&engine, outcome, &out, &slot).await;
        };
        if in_order {
            answer.await;
        } else {
            let Ok(permit) = in_flight.clone().acquire_owned().await else {
                break;
            };
            calls.spawn(async move {
                answer.await;
                drop(permit);
            });
        }
    }
    if stdio.ignore_eof {
        // The client closed its side; this server does not notice, so only a signal (or an
        // exit fault, or the server's own end) stops it.
        let _ = (&mut writer).await;
        return end(&engine, &slot, calls).await;
    }
    end(&engine, &slot, calls).await;
    drop(out);
    let _ = writer.await;
}

/// The peer is gone: calls still running are cancelled (their records say so) and the
/// session ends, which also ends the tasks writing for it.
async fn end(engine: &Arc<Engine>, slot: &Slot, mut calls: JoinSet<()>) {
    calls.abort_all();
    while calls.join_next().await.is_some() {}
    if let Some(session) = current(slot) {
        engine.close_session(&session.id);
    }
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

/// Writes an outcome as lines.
async fn deliver(engine: &Arc<Engine>, outcome: Outcome, out: &Queue, slot: &Slot) {
    match outcome {
        Outcome::Accepted => {}
        Outcome::Reply(reply) => reply_lines(engine, reply, out, slot).await,
        // Every answer is a line here, whatever its framing.
        Outcome::Written { text, opened, .. } => {
            if let Some(id) = opened {
                open_session(engine, &id, out, slot);
            }
            let line = String::from_utf8_lossy(text.text()).into_owned();
            let _ = out.send(Out::Line(line)).await;
        }
        Outcome::Stream(streamed) => stream_lines(engine, streamed, out).await,
        Outcome::Listen(listening) => listen_lines(engine, *listening, out).await,
        // An HTTP status means nothing on a byte stream: the request goes unanswered.
        Outcome::Status { status, .. } => {
            tracing::debug!(status, "an http fault on a byte stream: nothing is written");
        }
    }
}

async fn reply_lines(engine: &Arc<Engine>, reply: Reply, out: &Queue, slot: &Slot) {
    let Reply {
        body,
        fault,
        opened,
        ..
    } = reply;
    if let Some(id) = opened {
        open_session(engine, &id, out, slot);
    }
    let fault = fault.map(|(fault, _)| fault);
    for item in reply_items(fault.as_ref(), &body) {
        if out.send(item).await.is_err() {
            return;
        }
    }
}

/// What a JSON answer becomes on a byte stream, given the fault that breaks it.
fn reply_items(fault: Option<&Fault>, body: &Value) -> Vec<Out> {
    match fault {
        Some(Fault::MalformedJson) => vec![Out::Line(garble::malformed(body))],
        Some(Fault::TruncatedStream) => vec![Out::Line(garble::half(body))],
        // A server that dies mid-write: half a line, then the process is gone.
        Some(Fault::CloseConnection) => {
            vec![Out::Raw(garble::half(body).into_bytes()), Out::Exit(1)]
        }
        Some(Fault::HangingStream) => Vec::new(),
        Some(Fault::DuplicateResponse) => {
            vec![Out::Line(body.to_string()), Out::Line(body.to_string())]
        }
        Some(Fault::Exit { code }) => vec![Out::Exit(*code)],
        Some(Fault::SplitMessage { pause_ms }) => split(&body.to_string(), *pause_ms),
        Some(Fault::StderrFlood { bytes }) => {
            vec![Out::Stderr(out::flood(*bytes)), Out::Line(body.to_string())]
        }
        _ => vec![Out::Line(body.to_string())],
    }
}

/// A message's line in two writes, `pause_ms` apart; the newline comes with the second.
fn split(text: &str, pause_ms: u64) -> Vec<Out> {
    let mut middle = text.len() / 2;
    while !text.is_char_boundary(middle) {
        middle -= 1;
    }
    let mut second = text.as_bytes()[middle..].to_vec();
    second.push(b'\n');
    vec![
        Out::Raw(text.as_bytes()[..middle].to_vec()),
        Out::Pause(Duration::from_millis(pause_ms)),
        Out::Raw(second),
    ]
}

/// Holds the session `initialize` opened and writes its server-to-client messages (what the
/// GET stream carries over HTTP) until it ends.
fn open_session(engine: &Arc<Engine>, id: &str, out: &Queue, slot: &Slot) {
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
    if let Ok(reader) = session.attach(STANDALONE, None) {
        tokio::spawn(forward(engine.clone(), session, reader, out.clone(), None));
    }
}

async fn stream_lines(engine: &Arc<Engine>, streamed: Streamed, out: &Queue) {
    let Streamed {
        session,
        reader,
        shape,
        ..
    } = streamed;
    if let Shape::Stderr(bytes) = shape {
        let _ = out.send(Out::Stderr(out::flood(bytes))).await;
    }
    let split = match shape {
        Shape::Split(pause_ms) => Some(pause_ms),
        _ => None,
    };
    forward(engine.clone(), session, reader, out.clone(), split).await;
    // The response was never pushed (see `Delivery`): the process dies in its place.
    if let Shape::Exit(code) = shape {
        let _ = out.send(Out::Exit(code)).await;
    }
}

/// Writes the messages of one session stream as lines until it closes, recording each the
/// server sent (a response's record is the pipeline's).
async fn forward(
    engine: Arc<Engine>,
    session: Arc<Session>,
    mut reader: Reader,
    out: Queue,
    split_response: Option<u64>,
) {
    loop {
        match session.poll(&mut reader) {
            Poll::Event(event) => {
                let Some(message) = event.message else {
                    continue;
                };
                capture::sent(&engine, &session, None, &message);
                let text = message.to_string();
                let items = match split_response {
                    Some(pause_ms) if message.get("method").is_none() => split(&text, pause_ms),
                    _ => vec![Out::Line(text)],
                };
                for item in items {
                    if out.send(item).await.is_err() {
                        return session.detach(&reader);
                    }
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

async fn listen_lines(engine: &Arc<Engine>, listening: Listening, out: &Queue) {
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
        if out.send(Out::Line(line)).await.is_err() {
            break;
        }
    }
}
