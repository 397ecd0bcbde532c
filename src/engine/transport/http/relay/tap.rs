//! The tap on a relayed event stream: its chunks go on to the client as they arrive, while
//! its events become `mcp` records and its first bytes the `http` record's body (cut as the
//! capture cuts any body, `truncated` set).

use std::sync::Arc;

use axum::body::{Body, Bytes};
use futures::StreamExt;
use serde_json::Value;

use super::record::Exchange;
use super::sse::Events;
use crate::engine::Engine;
use crate::engine::capture::ExchangeId;
use crate::log::{Entry, FailureCause, Json, MAX_CAPTURED_BYTES, UpstreamFailure};

/// Watches a relayed event stream for the capture: its events become `mcp` records, its
/// first bytes the `http` record's body (cut as the capture cuts any body).
pub(crate) struct Tap {
    engine: Arc<Engine>,
    exchange: Option<ExchangeId>,
    events: Events,
    records: Option<Exchange>,
    kept: Vec<u8>,
    cut: bool,
    broke: Option<String>,
    _permit: tokio::sync::OwnedSemaphorePermit,
}

impl Tap {
    pub(crate) fn new(
        engine: Arc<Engine>,
        exchange: Option<ExchangeId>,
        records: Option<Exchange>,
        permit: tokio::sync::OwnedSemaphorePermit,
    ) -> Tap {
        Tap {
            engine,
            exchange,
            events: Events::default(),
            records,
            kept: Vec::new(),
            cut: false,
            broke: None,
            _permit: permit,
        }
    }

    /// The client's body: the upstream's chunks as they arrive, each seen by the tap.
    pub(crate) fn relay(self, answer: reqwest::Response) -> Body {
        let chunks = futures::stream::unfold(
            (answer.bytes_stream(), self),
            |(mut chunks, mut tap)| async move {
                match chunks.next().await {
                    Some(Ok(chunk)) => {
                        tap.saw(&chunk);
                        Some((Ok::<Bytes, std::io::Error>(chunk), (chunks, tap)))
                    }
                    Some(Err(error)) => {
                        tap.broke = Some(error.to_string());
                        tap.end();
                        None
                    }
                    None => {
                        tap.end();
                        None
                    }
                }
            },
        );
        Body::from_stream(chunks)
    }

    fn saw(&mut self, chunk: &[u8]) {
        let room = MAX_CAPTURED_BYTES.saturating_sub(self.kept.len());
        self.kept.extend_from_slice(&chunk[..chunk.len().min(room)]);
        self.cut |= chunk.len() > room;
        let done = self.events.feed(chunk);
        if let Some(records) = self.records.as_mut() {
            for data in done {
                records.event(&data);
            }
        }
    }

    /// The stream ended (or broke off): requests left unanswered close without a response.
    fn end(&mut self) {
        if let Some(records) = self.records.take() {
            records.finish();
        }
    }
}

impl Drop for Tap {
    fn drop(&mut self) {
        // A client that went away leaves its open requests cancelled.
        if let Some(records) = self.records.take() {
            records.abandon();
        }
        let Some(ExchangeId(id)) = self.exchange else {
            return;
        };
        let mut text = String::from_utf8_lossy(&self.kept).into_owned();
        if self.cut {
            text.push_str("... (cut)");
        }
        let body = (!text.is_empty()).then(|| Json::from(Value::String(text)));
        let cut = self.cut || self.events.skipped;
        let broke = self.broke.take();
        self.engine.log.update(id, |entry| {
            if let Entry::Http(h) = entry {
                h.response_body = body;
                h.truncated |= cut;
                if let (Some(detail), Some(upstream)) = (broke, h.upstream.as_mut()) {
                    upstream.failure = Some(UpstreamFailure {
                        cause: FailureCause::Protocol,
                        detail: format!("the event stream broke off: {detail}"),
                    });
                }
            }
        });
    }
}
