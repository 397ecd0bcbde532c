//! Reads the events of a relayed event stream as its chunks pass, for the capture only: the
//! chunks themselves go on to the client untouched. Bounded: an event larger than
//! [`MAX_UPSTREAM_BODY`](super::MAX_UPSTREAM_BODY) is skipped (its data never parsed), and
//! the reader holds at most one such event's bytes.

use super::MAX_UPSTREAM_BODY;

/// The data of complete events, fed chunk by chunk (WHATWG HTML, "Event stream
/// interpretation": lines end with CRLF, LF or CR; an empty line dispatches the event).
#[derive(Debug, Default)]
pub(crate) struct Events {
    /// The line being read.
    line: Vec<u8>,
    /// The `data` lines of the event being read, joined by `\n`.
    data: Vec<u8>,
    has_data: bool,
    /// The event outgrew the bound: the rest of it is skipped.
    skipping: bool,
    /// The previous chunk ended with CR, so a leading LF belongs to that line end.
    after_cr: bool,
    /// Whether any event was skipped.
    pub(crate) skipped: bool,
}

impl Events {
    /// Feeds one chunk; returns the data of each event it completed.
    pub(crate) fn feed(&mut self, chunk: &[u8]) -> Vec<Vec<u8>> {
        let mut done = Vec::new();
        for &byte in chunk {
            if std::mem::take(&mut self.after_cr) && byte == b'\n' {
                continue;
            }
            match byte {
                b'\n' | b'\r' => {
                    self.after_cr = byte == b'\r';
                    let line = std::mem::take(&mut self.line);
                    if line.is_empty() {
                        if self.has_data && !self.skipping {
                            done.push(std::mem::take(&mut self.data));
                        }
                        self.data.clear();
                        self.has_data = false;
                        self.skipping = false;
                    } else {
                        self.field(&line);
                    }
                }
                _ if self.skipping => {}
                _ => {
                    self.line.push(byte);
                    if self.line.len() + self.data.len() > MAX_UPSTREAM_BODY {
                        self.skip();
                    }
                }
            }
        }
        done
    }

    fn skip(&mut self) {
        self.skipping = true;
        self.skipped = true;
        self.line = Vec::new();
        self.data = Vec::new();
    }

    fn field(&mut self, line: &[u8]) {
        if self.skipping {
            return;
        }
        let (name, value) = match line.iter().position(|&b| b == b':') {
            Some(at) => {
                let value = &line[at + 1..];
                (&line[..at], value.strip_prefix(b" ").unwrap_or(value))
            }
            None => (line, &b""[..]),
        };
        if name != b"data" {
            return;
        }
        if self.has_data {
            self.data.push(b'\n');
        }
        self.data.extend_from_slice(value);
        self.has_data = true;
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn events_split_across_chunks_and_line_ends_are_read_whole() {
        let mut events = Events::default();
        let mut out = events.feed(b"id: 1\r\nevent: message\r\ndata: {\"a\"");
        assert!(out.is_empty());
        out.extend(events.feed(b":1}\r"));
        out.extend(events.feed(b"\n\r\n: keep-alive\n\ndata: x\ndata: y\n\n"));
        assert_eq!(out, vec![b"{\"a\":1}".to_vec(), b"x\ny".to_vec()]);
    }

    #[test]
    fn an_event_without_data_dispatches_nothing() {
        let mut events = Events::default();
        assert!(events.feed(b"id: 0\nretry: 5\n\n").is_empty());
    }
}
