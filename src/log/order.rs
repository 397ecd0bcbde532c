//! The order of a transcript: arrival order, except where the network lets one client
//! story arrive in more than one order (the rules are on [`Transcript`](super::Transcript)). Pure: records in,
//! the same records out, reordered, less the `GET`s whose fate only timing decides.

use std::collections::{HashMap, HashSet};

use super::record::{Entry, HttpExchange, HttpKind, Record, SESSION_HEADER};

/// The records in transcript order (the rules are on [`Transcript`](super::Transcript)): arrival order, with
/// `GET` streams moved down to where they first matter and the stream ends around a
/// session's `DELETE` moved before it, so that every order the network allows for one
/// client's story gives one transcript; a session's `GET` that carried nothing is left out
/// when its fate is a race ([`raced_gets`]).
pub(super) fn canonical(records: &[Record]) -> Vec<&Record> {
    let index: HashMap<u64, usize> = records.iter().enumerate().map(|(i, r)| (r.id, i)).collect();
    let session = |i: usize| session_of(records, &index, i);
    let raced = raced_gets(records);
    let mut order: Vec<usize> = (0..records.len())
        .filter(|&i| !raced.contains(&records[i].id))
        .collect();

    // Stream ends around each DELETE: collected on both sides, up to the nearest other
    // record of the same session, then put back just before the DELETE.
    let mut at = 0;
    while at < order.len() {
        let deleted = match http(&records[order[at]]) {
            Some(h) if h.kind == HttpKind::Exchange && h.method == "DELETE" => session(order[at]),
            _ => None,
        };
        let Some(deleted) = deleted else {
            at += 1;
            continue;
        };
        let is_end = |i: usize| http(&records[i]).is_some_and(|h| h.kind == HttpKind::StreamEnd);
        let mut ends: Vec<usize> = Vec::new();
        for &i in order[..at].iter().rev() {
            if session(i) == Some(deleted) {
                if !is_end(i) {
                    break;
                }
                ends.push(i);
            }
        }
        for &i in &order[at + 1..] {
            if session(i) == Some(deleted) {
                if !is_end(i) {
                    break;
                }
                ends.push(i);
            }
        }
        // Opening order: the stream_of exchange's place in the log.
        ends.sort_by_key(|&i| stream_of(records, &index, i).unwrap_or(i));
        let delete = order[at];
        order.retain(|i| !ends.contains(i));
        let Some(place) = order.iter().position(|&i| i == delete) else {
            break;
        };
        let moved = ends.len();
        order.splice(place..place, ends);
        at = place + moved + 1;
    }

    // GET streams, each moved down to just before the first record that is its own.
    for g in 0..records.len() {
        let Some(h) = http(&records[g]) else {
            continue;
        };
        if h.kind != HttpKind::Exchange || h.method != "GET" || !is_event_stream(h) {
            continue;
        }
        let id = records[g].id;
        let Some(from) = order.iter().position(|&i| i == g) else {
            continue;
        };
        order.remove(from);
        let own = order[from..].iter().position(|&i| match &records[i].entry {
            Entry::Http(e) => e.stream_of == Some(id),
            Entry::Mcp(m) => m.carried_by == Some(id),
        });
        match own {
            Some(offset) => order.insert(from + offset, g),
            None => order.push(g),
        }
    }
    order.into_iter().map(|i| &records[i]).collect()
}

/// The ids of a session's `GET`s that carried no message and whose fate is a race with the
/// session's end, with their stream ends: a client opens such a stream beside its requests
/// and drops it as it closes the session, so whether the server saw it at all, and then
/// opened it (ended by the `DELETE`), refused it `404` (the session was already gone), or saw
/// its connection close before an answer, is timing. A `GET` that carried a message, or that
/// was refused for another reason (no `Accept`, a session the log never saw), stays.
fn raced_gets(records: &[Record]) -> HashSet<u64> {
    let carriers: HashSet<u64> = records
        .iter()
        .filter_map(|r| match &r.entry {
            Entry::Mcp(m) => m.carried_by,
            Entry::Http(_) => None,
        })
        .collect();
    let minted: HashSet<&str> = records
        .iter()
        .filter_map(|r| http(r)?.response_header(SESSION_HEADER))
        .collect();
    let mut raced: HashSet<u64> = records
        .iter()
        .filter(|r| !carriers.contains(&r.id))
        .filter(|r| {
            http(r).is_some_and(|h| {
                h.kind == HttpKind::Exchange
                    && h.method == "GET"
                    && h.request_header(SESSION_HEADER).is_some_and(|session| {
                        h.status.is_none()
                            || is_event_stream(h)
                            || (h.status == Some(404) && minted.contains(session))
                    })
            })
        })
        .map(|r| r.id)
        .collect();
    let ends: Vec<u64> = records
        .iter()
        .filter(|r| {
            http(r).is_some_and(|h| {
                h.kind == HttpKind::StreamEnd && h.stream_of.is_some_and(|of| raced.contains(&of))
            })
        })
        .map(|r| r.id)
        .collect();
    raced.extend(ends);
    raced
}

fn http(record: &Record) -> Option<&HttpExchange> {
    match &record.entry {
        Entry::Http(h) => Some(h),
        Entry::Mcp(_) => None,
    }
}

fn is_event_stream(h: &HttpExchange) -> bool {
    h.response_header("content-type")
        .is_some_and(|v| v.starts_with("text/event-stream"))
}

/// For a stream end, the log index of the exchange that opened its stream.
fn stream_of(records: &[Record], index: &HashMap<u64, usize>, i: usize) -> Option<usize> {
    http(&records[i])
        .and_then(|h| h.stream_of)
        .and_then(|id| index.get(&id).copied())
}

/// The session record `i` belongs to: the session header of an exchange (sent, or minted by
/// `initialize`), the session of the exchange whose stream ended, a message's own.
fn session_of<'a>(records: &'a [Record], index: &HashMap<u64, usize>, i: usize) -> Option<&'a str> {
    match &records[i].entry {
        Entry::Http(h) if h.kind == HttpKind::StreamEnd => {
            let opened = stream_of(records, index, i)?;
            let h = http(&records[opened])?;
            h.request_header(SESSION_HEADER)
                .or_else(|| h.response_header(SESSION_HEADER))
        }
        Entry::Http(h) => h
            .request_header(SESSION_HEADER)
            .or_else(|| h.response_header(SESSION_HEADER)),
        Entry::Mcp(m) => m.session.as_deref(),
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::log::Headers;
    use crate::log::record::RpcMessage;
    use crate::log::{Transcript, TranscriptEntry};
    use chrono::Utc;
    use serde_json::json;

    fn record(id: u64, entry: Entry) -> Record {
        Record {
            id,
            source: 0,
            revision: id,
            size: 0,
            at: Utc::now(),
            entry,
        }
    }

    fn exchange(id: u64, method: &str, session: &str, stream: bool) -> Record {
        let content_type = if stream {
            "text/event-stream"
        } else {
            "application/json"
        };
        record(
            id,
            Entry::Http(HttpExchange {
                kind: HttpKind::Exchange,
                method: method.into(),
                path: "/mcp".into(),
                query: None,
                request_headers: [(SESSION_HEADER, session)].into_iter().collect(),
                request_body: None,
                status: Some(200),
                response_headers: [("content-type", content_type)].into_iter().collect(),
                response_body: None,
                duration_ms: None,
                stream_of: None,
                upstream: None,
                truncated: false,
                unanswered: false,
            }),
        )
    }

    fn stream_end(id: u64, of: u64, method: &str) -> Record {
        record(
            id,
            Entry::Http(HttpExchange {
                kind: HttpKind::StreamEnd,
                method: method.into(),
                path: "/mcp".into(),
                query: None,
                request_headers: Headers::new(),
                request_body: None,
                status: None,
                response_headers: Headers::new(),
                response_body: None,
                duration_ms: None,
                stream_of: Some(of),
                upstream: None,
                truncated: false,
                unanswered: false,
            }),
        )
    }

    fn call(id: u64, carried_by: u64, session: &str) -> Record {
        // Decoded rather than built, so a field added to `RpcMessage` (with its default)
        // does not break this test.
        let message: RpcMessage = serde_json::from_value(json!({
            "kind": "request",
            "direction": "client_to_server",
            "method": "tools/call",
            "name": "echo",
            "session": session,
            "carriedBy": carried_by,
            "message": { "jsonrpc": "2.0", "id": 1, "method": "tools/call" },
        }))
        .expect("an RpcMessage");
        record(id, Entry::Mcp(message))
    }

    /// The request lines of a transcript with each entry's kind, for comparing orders.
    fn story(records: &[Record]) -> Vec<String> {
        Transcript::of(records)
            .entries()
            .iter()
            .map(|entry| match entry {
                TranscriptEntry::Http { kind, request, .. } => format!("{request} {kind:?}"),
                TranscriptEntry::Mcp { carried_by, .. } => format!("mcp by {carried_by:?}"),
            })
            .collect()
    }

    #[test]
    fn a_session_closed_by_its_client_gives_one_transcript_whatever_the_arrival_order() {
        // Arrange: a GET stream that carried a message opens before or after the call, its
        // end comes before or after the DELETE: the four orders a client that closes its own
        // session can produce.
        let get = || exchange(1, "GET", "s", true);
        let post = || exchange(2, "POST", "s", false);
        let pushed = || call(6, 1, "s");
        let call = || call(3, 2, "s");
        let end = || stream_end(4, 1, "GET");
        let delete = || exchange(5, "DELETE", "s", false);
        let orders = [
            vec![get(), post(), call(), pushed(), end(), delete()],
            vec![get(), post(), call(), pushed(), delete(), end()],
            vec![post(), call(), get(), pushed(), end(), delete()],
            vec![post(), call(), get(), pushed(), delete(), end()],
        ];

        // Act
        let stories: Vec<Vec<String>> = orders.iter().map(|o| story(o)).collect();

        // Assert
        assert_eq!(
            stories[0],
            [
                "POST /mcp Exchange",
                "mcp by Some(1)",
                "GET /mcp Exchange",
                "mcp by Some(3)",
                "GET /mcp StreamEnd",
                "DELETE /mcp Exchange"
            ]
        );
        for other in &stories[1..] {
            assert_eq!(other, &stories[0]);
        }
        let Some(TranscriptEntry::Http { stream_of, .. }) =
            Transcript::of(&orders[1]).entries().get(4).cloned()
        else {
            panic!("the stream end is the fifth entry");
        };
        assert_eq!(stream_of, Some(3), "stream_of follows the GET's new place");
    }

    /// Sets what the GET `record` got: a status (and an event stream or not), or nothing.
    fn answered(mut record: Record, status: Option<u16>, stream: bool) -> Record {
        if let Entry::Http(h) = &mut record.entry {
            h.status = status;
            h.unanswered = status.is_none();
            if !stream {
                h.response_headers = Headers::new();
            }
        }
        record
    }

    #[test]
    fn an_idle_get_that_races_the_sessions_end_leaves_one_transcript_whatever_its_fate() {
        // Arrange: the session is minted by initialize; the client's idle GET stream either
        // opens and is ended by the DELETE, comes after the DELETE (404), loses its
        // connection before an answer, or is never sent.
        let mut init = exchange(1, "POST", "", false);
        if let Entry::Http(h) = &mut init.entry {
            h.request_headers = Headers::new();
            h.response_headers = [(SESSION_HEADER, "s")].into_iter().collect();
        }
        let answer = || call(2, 1, "s");
        let get = || exchange(3, "GET", "s", true);
        let delete = || exchange(4, "DELETE", "s", false);
        let runs = [
            vec![
                init.clone(),
                answer(),
                get(),
                stream_end(5, 3, "GET"),
                delete(),
            ],
            vec![
                init.clone(),
                answer(),
                delete(),
                answered(get(), Some(404), false),
            ],
            vec![
                init.clone(),
                answer(),
                answered(get(), None, false),
                delete(),
            ],
            vec![init.clone(), answer(), delete()],
        ];

        // Act
        let stories: Vec<Vec<String>> = runs.iter().map(|r| story(r)).collect();

        // Assert
        assert_eq!(
            stories[3],
            [
                "POST /mcp Exchange",
                "mcp by Some(1)",
                "DELETE /mcp Exchange"
            ]
        );
        for (run, other) in stories.iter().enumerate() {
            assert_eq!(other, &stories[3], "run {run}");
        }
    }

    #[test]
    fn a_get_refused_for_a_reason_of_its_own_stays_in_the_transcript() {
        // Arrange: a GET for a session id no response ever minted, and one without the
        // session header at all: what the client sent, not a race.
        let unknown = answered(exchange(1, "GET", "never-minted", true), Some(404), false);
        let mut sessionless = answered(exchange(2, "GET", "", false), Some(400), false);
        if let Entry::Http(h) = &mut sessionless.entry {
            h.request_headers = Headers::new();
        }

        // Act + Assert
        assert_eq!(
            story(&[unknown, sessionless]),
            ["GET /mcp Exchange", "GET /mcp Exchange"]
        );
    }

    #[test]
    fn a_get_stream_sits_before_the_first_message_it_carried() {
        // Arrange: a GET that carried a message, opened before an unrelated call.
        let records = vec![
            exchange(1, "GET", "s", true),
            exchange(2, "POST", "s", false),
            call(3, 2, "s"),
            call(4, 1, "s"),
        ];

        // Act + Assert
        assert_eq!(
            story(&records),
            [
                "POST /mcp Exchange",
                "mcp by Some(1)",
                "GET /mcp Exchange",
                "mcp by Some(3)"
            ]
        );
    }

    #[test]
    fn stream_ends_after_later_requests_of_the_session_stay_where_they_are() {
        // Arrange: the DELETE was refused and the session went on; the stream, which
        // carried a message, ended later.
        let records = vec![
            exchange(1, "GET", "s", true),
            exchange(2, "DELETE", "s", false),
            exchange(3, "POST", "s", false),
            call(5, 1, "s"),
            stream_end(4, 1, "GET"),
        ];

        // Act + Assert
        assert_eq!(
            story(&records),
            [
                "DELETE /mcp Exchange",
                "POST /mcp Exchange",
                "GET /mcp Exchange",
                "mcp by Some(3)",
                "GET /mcp StreamEnd"
            ]
        );
    }
}
