//! What the line adapter writes and where it goes. The adapter produces [`Out`] items; a
//! [`Sink`] carries them to the peer: straight onto an in-memory stream ([`Plain`]), or as
//! frames to a bridge process that plays them on its own stdout, stderr and exit status
//! (`attach::Framed`). The app's `mcp-decoy stdio` plays them on the real ones.

use std::future::Future;
use std::io;
use std::time::Duration;

use tokio::io::{AsyncWrite, AsyncWriteExt};

/// One thing to write for the peer, in order.
#[derive(Debug, Clone, PartialEq, Eq)]
pub(crate) enum Out {
    /// A message's text; the sink ends it with a newline.
    Line(String),
    /// Bytes as they are: part of a line (a fault's cut or split message).
    Raw(Vec<u8>),
    /// Nothing is written for this long (between the parts of a split message).
    Pause(Duration),
    /// Bytes for the process's stderr; dropped where there is none.
    Stderr(Vec<u8>),
    /// The process exits with this status; on a stream without a process, the stream ends.
    Exit(i32),
}

/// Where [`Out`] items go.
pub(crate) trait Sink: Send + 'static {
    /// Writes one item (a [`Pause`](Out::Pause) is the caller's); `Ok(false)` once the peer's
    /// side has ended ([`Exit`](Out::Exit)), after which nothing more is written.
    fn put(&mut self, out: Out) -> impl Future<Output = io::Result<bool>> + Send;
}

/// A byte stream with no process behind it (the in-memory duplex): stderr is dropped and an
/// exit ends the stream.
pub(crate) struct Plain<W>(pub(crate) W);

impl<W: AsyncWrite + Unpin + Send + 'static> Sink for Plain<W> {
    async fn put(&mut self, out: Out) -> io::Result<bool> {
        match out {
            Out::Line(text) => {
                self.0.write_all(text.as_bytes()).await?;
                self.0.write_all(b"\n").await?;
            }
            Out::Raw(bytes) => self.0.write_all(&bytes).await?,
            Out::Pause(_) | Out::Stderr(_) => {}
            Out::Exit(_) => {
                self.0.shutdown().await?;
                return Ok(false);
            }
        }
        self.0.flush().await?;
        Ok(true)
    }
}

/// `bytes` of numbered log lines, as a chatty server writes to stderr.
pub(crate) fn flood(bytes: u32) -> Vec<u8> {
    let bytes = bytes as usize;
    let mut text = Vec::with_capacity(bytes);
    let mut n = 0u64;
    while text.len() < bytes {
        n += 1;
        let line = format!("mcp-decoy: stderr flood, line {n:08}, on purpose\n");
        text.extend_from_slice(line.as_bytes());
    }
    text.truncate(bytes);
    text
}

/// Writes items until the queue closes, the peer goes, or an exit; pauses happen here so
/// they hold back what follows them, as a slow writer would.
pub(crate) async fn write_all<S: Sink>(mut sink: S, mut queue: tokio::sync::mpsc::Receiver<Out>) {
    while let Some(out) = queue.recv().await {
        if let Out::Pause(pause) = out {
            tokio::time::sleep(pause).await;
            continue;
        }
        match sink.put(out).await {
            Ok(true) => {}
            Ok(false) | Err(_) => break,
        }
    }
}
