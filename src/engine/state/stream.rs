//! The event streams of one session, with ids for resumption (2025-11-25 transports,
//! "Resumability and Redelivery").
//!
//! Every SSE stream, the session's GET stream and each POST that answers with a stream, is a
//! buffer of events here; an HTTP body is only a reader with a cursor. So a client that loses
//! a connection can come back with `GET` + `Last-Event-ID: <stream>-<seq>` and read on from
//! where it was, and a handler keeps writing whether or not anyone reads. Bounded: each stream
//! keeps its newest events, a session keeps its newest streams, and every event is charged
//! in bytes to the pool the server's sessions share ([`Pool`]), which evicts the oldest
//! events of any session past its budget. A resume that would skip an evicted event is
//! refused ([`Attach::Evicted`]), never replayed with a silent gap.

use std::collections::{BTreeMap, VecDeque};
use std::sync::Arc;

use serde_json::Value;

use super::pool::{GiveUp, Key, Pool};

/// The session's standalone stream, opened by GET (list_changed, resources/updated, ...).
pub(crate) const STANDALONE: u64 = 0;

/// Events kept per stream for replay.
const MAX_EVENTS_PER_STREAM: usize = 1_000;
/// Finished POST streams kept per session for resumption.
const MAX_STREAMS: usize = 64;

/// One event: `None` is the priming event (an id with empty data).
#[derive(Debug, Clone)]
pub(crate) struct Event {
    pub(crate) seq: u64,
    pub(crate) message: Option<Value>,
    /// What the pool was charged for it.
    bytes: usize,
}

#[derive(Debug, Default)]
struct Stream {
    events: VecDeque<Event>,
    next_seq: u64,
    /// The highest sequence number a reader has taken (for a fresh GET to start after).
    delivered: Option<u64>,
    finished: bool,
    /// The reader allowed to read; a newer reader takes over from an older one.
    reader: Option<u64>,
    /// The first event that reader has yet to take.
    reading_from: u64,
    /// The highest sequence number dropped (for the pool's budget or the count limit): a
    /// resume from before it would miss events.
    evicted: Option<u64>,
}

impl Stream {
    /// Whether event `seq` is live work: its reader is attached and has yet to take it.
    fn needs(&self, seq: u64) -> bool {
        self.reader.is_some() && seq >= self.reading_from
    }
}

/// What a reader's next poll found.
#[derive(Debug)]
pub(crate) enum Poll {
    Event(Event),
    Wait,
    Closed,
}

/// Why a reader could not attach.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub(crate) enum Attach {
    /// The session never had this stream.
    Unknown,
    /// Events after the client's last one were evicted (or the whole stream was): resuming
    /// would skip them.
    Evicted,
}

/// All streams of one session.
#[derive(Debug)]
pub(crate) struct Streams {
    /// The GET stream, which every session has: a field of its own, so that a session
    /// without POST streams allocates no map node (a B-tree leaf is about 1 KiB).
    standalone: Stream,
    /// POST streams by id, from `STANDALONE + 1`.
    streams: BTreeMap<u64, Stream>,
    next_stream: u64,
    next_reader: u64,
    max_standalone: usize,
    /// The byte budget every event is charged to.
    pool: Arc<Pool>,
}

impl Streams {
    pub(crate) fn new(max_standalone: usize, pool: Arc<Pool>) -> Self {
        Streams {
            standalone: Stream::default(),
            streams: BTreeMap::new(),
            next_stream: STANDALONE + 1,
            next_reader: 1,
            max_standalone: max_standalone.max(1),
            pool,
        }
    }

    /// Gives back to the pool what a dropped stream held.
    fn release(pool: &Pool, stream: Stream, evicted: bool) {
        for event in stream.events {
            pool.release(event.bytes, evicted);
        }
    }

    fn get_mut(&mut self, stream: u64) -> Option<&mut Stream> {
        match stream {
            STANDALONE => Some(&mut self.standalone),
            _ => self.streams.get_mut(&stream),
        }
    }

    /// Opens a stream for one POSTed request.
    pub(crate) fn open(&mut self) -> u64 {
        let id = self.next_stream;
        self.next_stream += 1;
        self.streams.insert(id, Stream::default());
        if self.streams.len() > MAX_STREAMS {
            let posts: Vec<u64> = self.streams.keys().copied().collect();
            // Drop the oldest finished streams first; an unfinished one still has a writer.
            for old in posts {
                if self.streams.len() <= MAX_STREAMS {
                    break;
                }
                if self.streams.get(&old).is_some_and(|s| s.finished) {
                    if let Some(gone) = self.streams.remove(&old) {
                        Self::release(&self.pool, gone, true);
                    }
                }
            }
        }
        id
    }

    /// Appends an event; `None` writes the priming event. Returns the pool key and bytes
    /// it was charged, for [`Pool::track`] once the session's lock is released.
    pub(crate) fn push(&mut self, stream: u64, message: Option<Value>) -> Option<(Key, usize)> {
        let limit = if stream == STANDALONE {
            self.max_standalone
        } else {
            MAX_EVENTS_PER_STREAM
        };
        // Borrowed field by field: the stream mutably, the pool beside it.
        let Streams {
            standalone,
            streams,
            pool,
            ..
        } = self;
        let s = match stream {
            STANDALONE => standalone,
            _ => streams.get_mut(&stream)?,
        };
        if s.finished {
            return None;
        }
        let seq = s.next_seq;
        s.next_seq += 1;
        let bytes = size_of::<Event>() + message.as_ref().map_or(0, crate::log::size::value);
        pool.charge(bytes);
        s.events.push_back(Event {
            seq,
            message,
            bytes,
        });
        while s.events.len() > limit {
            if let Some(old) = s.events.pop_front() {
                s.evicted = Some(old.seq);
                pool.release(old.bytes, true);
            }
        }
        Some(((stream, seq), bytes))
    }

    /// The pool asks for event `seq` of `stream` back.
    pub(crate) fn give_up(&mut self, (stream, seq): Key) -> GiveUp {
        let Some(s) = self.get_mut(stream) else {
            return GiveUp::Gone;
        };
        let Ok(at) = s.events.binary_search_by_key(&seq, |e| e.seq) else {
            return GiveUp::Gone;
        };
        if s.needs(seq) {
            return GiveUp::Live;
        }
        s.events.remove(at);
        s.evicted = Some(s.evicted.map_or(seq, |e| e.max(seq)));
        // An idle session gives back the room its queue grew to, not only the events.
        if s.events.capacity() > 4 * s.events.len() + 16 {
            s.events.shrink_to_fit();
        }
        // A finished POST stream with nothing left is forgotten; a resume of it is refused.
        if stream != STANDALONE && s.finished && s.events.is_empty() {
            self.streams.remove(&stream);
        }
        GiveUp::Freed
    }

    /// Whether event `seq` of `stream` is still kept.
    pub(crate) fn holds(&self, (stream, seq): Key) -> bool {
        let s = match stream {
            STANDALONE => Some(&self.standalone),
            _ => self.streams.get(&stream),
        };
        s.is_some_and(|s| s.events.binary_search_by_key(&seq, |e| e.seq).is_ok())
    }

    /// Marks a stream complete: its readers end once they have read everything.
    pub(crate) fn finish(&mut self, stream: u64) {
        if let Some(s) = self.get_mut(stream) {
            s.finished = true;
        }
    }

    /// Attaches a reader, which takes over from any earlier one. `after` is the last event
    /// the client saw; `None` starts after what earlier readers took (or at the start).
    /// Returns the reader id and its first cursor; a resume (`after`) of a stream that lost
    /// events past it is refused.
    pub(crate) fn attach(&mut self, stream: u64, after: Option<u64>) -> Result<(u64, u64), Attach> {
        let reader = self.next_reader;
        self.next_reader += 1;
        let issued = stream < self.next_stream;
        let Some(s) = self.get_mut(stream) else {
            return Err(if issued {
                Attach::Evicted
            } else {
                Attach::Unknown
            });
        };
        if let (Some(seen), Some(evicted)) = (after, s.evicted) {
            if evicted > seen {
                return Err(Attach::Evicted);
            }
        }
        s.reader = Some(reader);
        let cursor = match (after, s.delivered) {
            (Some(seen), _) => seen + 1,
            (None, Some(delivered)) => delivered + 1,
            (None, None) => 0,
        };
        s.reading_from = cursor;
        Ok((reader, cursor))
    }

    pub(crate) fn detach(&mut self, stream: u64, reader: u64) {
        if let Some(s) = self.get_mut(stream) {
            if s.reader == Some(reader) {
                s.reader = None;
            }
        }
    }

    /// The next event at or after `cursor` for this reader.
    pub(crate) fn poll(&mut self, stream: u64, reader: u64, cursor: u64) -> Poll {
        let Some(s) = self.get_mut(stream) else {
            return Poll::Closed;
        };
        if s.reader != Some(reader) {
            return Poll::Closed;
        }
        // Events are in sequence order: the first at or after the cursor, by bisection.
        let at = s.events.partition_point(|e| e.seq < cursor);
        match s.events.get(at) {
            Some(event) => {
                let event = event.clone();
                s.delivered = Some(s.delivered.map_or(event.seq, |d| d.max(event.seq)));
                s.reading_from = event.seq + 1;
                Poll::Event(event)
            }
            None if s.finished => Poll::Closed,
            None => Poll::Wait,
        }
    }

    /// Whether any reader is attached to the standalone stream.
    pub(crate) fn standalone_open(&self) -> bool {
        self.standalone.reader.is_some()
    }

    /// Ends every stream (the session is over) and frees their events.
    pub(crate) fn close_all(&mut self) {
        for s in std::iter::once(&mut self.standalone).chain(self.streams.values_mut()) {
            s.finished = true;
            s.reader = None;
            for event in s.events.drain(..) {
                self.pool.release(event.bytes, false);
            }
        }
    }
}

impl Drop for Streams {
    fn drop(&mut self) {
        self.close_all();
    }
}

/// `<stream>-<seq>`: unique across the session's streams, and names the stream to resume.
pub(crate) fn event_id(stream: u64, seq: u64) -> String {
    format!("{stream}-{seq}")
}

/// Parses a `Last-Event-ID` this server issued.
pub(crate) fn parse_event_id(text: &str) -> Option<(u64, u64)> {
    let (stream, seq) = text.trim().split_once('-')?;
    Some((stream.parse().ok()?, seq.parse().ok()?))
}

#[cfg(test)]
mod tests {
    use super::*;
    use serde_json::json;

    #[test]
    fn a_resumed_reader_replays_what_it_missed_on_that_stream_only() {
        let mut streams = Streams::new(10, Arc::new(Pool::new(usize::MAX)));
        let post = streams.open();
        streams.push(post, None);
        streams.push(post, Some(json!("a")));
        streams.push(STANDALONE, Some(json!("elsewhere")));
        let (first, cursor) = streams.attach(post, None).expect("stream");
        assert!(matches!(
            streams.poll(post, first, cursor),
            Poll::Event(Event {
                seq: 0,
                message: None,
                ..
            })
        ));
        // The connection drops after the priming event; the result arrives meanwhile.
        streams.push(post, Some(json!("result")));
        streams.finish(post);
        let (resumed, cursor) = streams.attach(post, Some(0)).expect("stream");
        assert!(
            matches!(streams.poll(post, first, 1), Poll::Closed),
            "taken over"
        );
        let Poll::Event(a) = streams.poll(post, resumed, cursor) else {
            panic!("replay")
        };
        assert_eq!(a.message, Some(json!("a")));
        let Poll::Event(r) = streams.poll(post, resumed, a.seq + 1) else {
            panic!("result")
        };
        assert_eq!(r.message, Some(json!("result")));
        assert!(matches!(
            streams.poll(post, resumed, r.seq + 1),
            Poll::Closed
        ));
    }

    #[test]
    fn a_fresh_get_reads_only_what_was_not_delivered() {
        let pool = Arc::new(Pool::new(usize::MAX));
        let mut streams = Streams::new(2, pool.clone());
        for n in 0..3 {
            streams.push(STANDALONE, Some(json!(n)));
        }
        let (reader, cursor) = streams.attach(STANDALONE, None).expect("standalone");
        let Poll::Event(e) = streams.poll(STANDALONE, reader, cursor) else {
            panic!()
        };
        assert_eq!(
            e.message,
            Some(json!(1)),
            "the oldest was dropped by the bound"
        );
        let (again, cursor) = streams.attach(STANDALONE, None).expect("standalone");
        let Poll::Event(e) = streams.poll(STANDALONE, again, cursor) else {
            panic!()
        };
        assert_eq!(e.message, Some(json!(2)));
        // Two more push out events 1 and 2: a client that saw only 1 cannot resume.
        streams.push(STANDALONE, Some(json!(3)));
        streams.push(STANDALONE, Some(json!(4)));
        assert_eq!(streams.attach(STANDALONE, Some(1)), Err(Attach::Evicted));
        assert!(streams.attach(STANDALONE, Some(2)).is_ok());
        assert_eq!(streams.attach(9, Some(0)), Err(Attach::Unknown));
        assert_eq!(pool.usage().evicted, 3);
        drop(streams);
        assert_eq!(
            pool.usage().used_bytes,
            0,
            "a dropped session gives everything back"
        );
        assert_eq!(parse_event_id(&event_id(3, 7)), Some((3, 7)));
        assert_eq!(parse_event_id("x-1"), None);
    }
}
