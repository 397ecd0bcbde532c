//! The answer a connection gets past the cap: a `503` written at once, without reading the
//! request, then the socket closes. A warning says so at most once a second.

use std::time::Duration;

use tokio::io::{AsyncReadExt, AsyncWriteExt};
use tokio::net::TcpStream;
use tokio::sync::OwnedSemaphorePermit;
use tokio::time::Instant;

/// The longest a refusal may take, writing included: a client that neither reads nor
/// closes loses its socket then.
const REFUSAL_TIME: Duration = Duration::from_secs(1);

/// The most a refusal reads of what the client sent, only so that closing does not reset
/// the connection (a reset can discard the `503` before the client reads it).
const DRAIN_BYTES: usize = 64 * 1024;

/// The refusal's bytes.
fn response(max_connections: usize, setting: &str) -> String {
    let body = format!(
        "503 Service Unavailable: this mcp-decoy listener already has {max_connections} open \
         connections, its limit ({setting}). Close one, or raise the limit.\n"
    );
    format!(
        "HTTP/1.1 503 Service Unavailable\r\n\
         content-type: text/plain; charset=utf-8\r\n\
         content-length: {}\r\n\
         connection: close\r\n\
         retry-after: 1\r\n\
         \r\n\
         {body}",
        body.len()
    )
}

/// Writes the refusal and closes `tcp`; `_permit` counts it among the refusals under way.
pub(super) async fn refuse(
    mut tcp: TcpStream,
    max_connections: usize,
    setting: &'static str,
    _permit: OwnedSemaphorePermit,
) {
    let refusal = async {
        tcp.write_all(response(max_connections, setting).as_bytes())
            .await?;
        tcp.shutdown().await?;
        let mut sink = [0; 4096];
        let mut drained = 0;
        while drained < DRAIN_BYTES {
            match tcp.read(&mut sink).await? {
                0 => break,
                n => drained += n,
            }
        }
        Ok::<(), std::io::Error>(())
    };
    let _ = tokio::time::timeout(REFUSAL_TIME, refusal).await;
}

/// Rate-limits the warning about refused connections to one a second, counting the ones
/// in between.
#[derive(Debug, Default)]
pub(super) struct Warnings {
    last: Option<Instant>,
    unreported: u64,
}

impl Warnings {
    /// One more connection refused; warns unless a warning went out less than a second ago.
    pub(super) fn note(&mut self, max_connections: usize, setting: &str) {
        self.unreported += 1;
        if self
            .last
            .is_some_and(|last| last.elapsed() < Duration::from_secs(1))
        {
            return;
        }
        tracing::warn!(
            refused = self.unreported,
            "mcp-decoy: refused {} connection(s) with 503: {max_connections} are open, the limit ({setting})",
            self.unreported
        );
        self.last = Some(Instant::now());
        self.unreported = 0;
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn the_refusal_is_a_complete_response_naming_the_limit() {
        let text = response(3, "max_connections");
        let (head, body) = text.split_once("\r\n\r\n").expect("a head and a body");
        assert!(
            head.starts_with("HTTP/1.1 503 Service Unavailable\r\n"),
            "{head}"
        );
        assert!(head.contains("connection: close"), "{head}");
        assert!(
            head.contains(&format!("content-length: {}", body.len())),
            "{head}"
        );
        assert!(body.contains("3 open connections") && body.contains("(max_connections)"));
    }
}
