//! Server-sent events read from a raw response body, field by field (`id`, `event`,
//! `retry`, `data`), for the tests that check what the stream itself carries: priming
//! events, event ids, retry hints, a stream cut short.

use std::pin::Pin;
use std::time::Duration;

use bytes::Bytes;
use futures::{Stream, StreamExt};
use reqwest::Response;
use serde_json::Value;

use super::PATIENCE;

/// One server-sent event; comment-only blocks (keep-alives) are skipped unless the reader
/// keeps them ([`with_comments`]).
#[derive(Debug, Clone, Default, PartialEq)]
pub struct Event {
    pub id: Option<String>,
    pub event: Option<String>,
    pub retry: Option<u64>,
    pub data: String,
    /// The text of a comment-only block (`: …`), trimmed.
    pub comment: Option<String>,
}

impl Event {
    /// The priming event (2025-11-25 basic/transports, "Sending Messages to the Server"): an
    /// id and empty data.
    pub fn is_priming(&self) -> bool {
        self.id.is_some() && self.event.is_none() && self.data.is_empty()
    }

    /// The data as JSON; panics when it is not.
    pub fn json(&self) -> Value {
        serde_json::from_str(&self.data)
            .unwrap_or_else(|e| panic!("SSE data is not JSON ({e}): {:?}", self.data))
    }

    /// The data as JSON, `None` when it is not.
    pub fn try_json(&self) -> Option<Value> {
        serde_json::from_str(&self.data).ok()
    }

    /// The event id `<stream>-<seq>`, split in two.
    pub fn stream_and_seq(&self) -> (u64, u64) {
        let id = self.id.as_deref().expect("the event has an id");
        let (stream, seq) = id
            .split_once('-')
            .unwrap_or_else(|| panic!("event id `{id}` is not <stream>-<seq>"));
        (
            stream.parse().expect("the stream part is a number"),
            seq.parse().expect("the sequence part is a number"),
        )
    }
}

type ByteStream = Pin<Box<dyn Stream<Item = reqwest::Result<Bytes>> + Send>>;

/// The events of one response body.
pub struct Events {
    stream: ByteStream,
    buffer: String,
    keep_priming: bool,
    keep_comments: bool,
    /// The body ended with an error (the connection broke).
    pub broke: bool,
}

/// Every event of a response, priming events included.
pub fn events(response: Response) -> Events {
    Events {
        stream: Box::pin(response.bytes_stream()),
        buffer: String::new(),
        keep_priming: true,
        keep_comments: false,
        broke: false,
    }
}

/// Every block of a response, comment-only blocks (keep-alives) included, which an SSE
/// library would hide.
pub fn with_comments(response: Response) -> Events {
    Events {
        keep_comments: true,
        ..events(response)
    }
}

/// The events of a response after its priming events.
pub fn events_after_priming(response: Response) -> Events {
    Events {
        keep_priming: false,
        ..events(response)
    }
}

impl Events {
    /// The next event, `None` at the end; panics if neither comes within `wait`.
    pub async fn next(&mut self, wait: Duration) -> Option<Event> {
        tokio::time::timeout(wait, self.next_event())
            .await
            .unwrap_or_else(|_| panic!("no SSE event and no end of stream within {wait:?}"))
    }

    /// [`next`](Self::next) within [`PATIENCE`], naming what the test waits for.
    pub async fn next_for(&mut self, what: &str) -> Option<Event> {
        tokio::time::timeout(PATIENCE, self.next_event())
            .await
            .unwrap_or_else(|_| {
                panic!("no SSE event and no end of stream while waiting for {what}")
            })
    }

    /// The next event, panicking if the stream ended first.
    pub async fn expect(&mut self, what: &str) -> Event {
        self.next_for(what)
            .await
            .unwrap_or_else(|| panic!("the stream ended before {what}"))
    }

    /// Waits up to `wait`; `Err` when nothing came (the stream is still open).
    pub async fn try_next(&mut self, wait: Duration) -> Result<Option<Event>, ()> {
        tokio::time::timeout(wait, self.next_event())
            .await
            .map_err(|_| ())
    }

    /// Every event until the stream ends, each within `wait` of the one before.
    pub async fn all(&mut self, wait: Duration) -> Vec<Event> {
        let mut all = Vec::new();
        while let Some(event) = self.next(wait).await {
            all.push(event);
        }
        all
    }

    /// Every remaining event until the stream ends, each within [`PATIENCE`].
    pub async fn rest(&mut self, what: &str) -> Vec<Event> {
        let mut events = Vec::new();
        while let Some(event) = self.next_for(what).await {
            events.push(event);
        }
        events
    }

    async fn next_event(&mut self) -> Option<Event> {
        loop {
            if let Some(end) = self.buffer.find("\n\n") {
                let block: String = self.buffer.drain(..end + 2).collect();
                if let Some(event) = parse(&block, self.keep_comments) {
                    if self.keep_priming || !event.is_priming() {
                        return Some(event);
                    }
                }
                continue;
            }
            match self.stream.next().await {
                Some(Ok(chunk)) => self
                    .buffer
                    .push_str(&String::from_utf8_lossy(&chunk).replace("\r\n", "\n")),
                Some(Err(_)) => {
                    self.broke = true;
                    return None;
                }
                None => return None,
            }
        }
    }
}

/// One block's fields; `None` for a block of comments only, unless `comments` are kept.
fn parse(block: &str, comments: bool) -> Option<Event> {
    let mut event = Event::default();
    let mut data: Vec<&str> = Vec::new();
    let mut seen = false;
    for line in block.lines() {
        if let Some(comment) = line.strip_prefix(':') {
            event
                .comment
                .get_or_insert_with(|| comment.trim().to_string());
            continue;
        }
        let (field, value) = line.split_once(':').unwrap_or((line, ""));
        let value = value.strip_prefix(' ').unwrap_or(value);
        match field {
            "id" => event.id = Some(value.to_string()),
            "event" => event.event = Some(value.to_string()),
            "retry" => event.retry = value.parse().ok(),
            "data" => data.push(value),
            _ => continue,
        }
        seen = true;
    }
    event.data = data.join("\n");
    if seen {
        event.comment = None;
    }
    (seen || (comments && event.comment.is_some())).then_some(event)
}
