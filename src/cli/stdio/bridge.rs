//! The bridge: this process's stdin goes to a server elsewhere (a test's fixture, a running
//! app) over its attach socket, and what that server writes comes back as frames this
//! process plays on its own stdout, stderr and exit status. It ends when either side is
//! gone: the server closes the socket, the client closes stdout, or the client closes
//! stdin and the server ends the session.

use std::net::SocketAddr;
use std::sync::Arc;
use std::sync::atomic::{AtomicBool, Ordering};
use std::time::Duration;

use tokio::io::{AsyncReadExt, AsyncWriteExt, BufReader};
use tokio::net::TcpStream;

use super::process::{self, Process};
use crate::engine::Sink;
use crate::engine::attach::frame::{self, Frame};

/// How long the server has to accept the bridge.
const CONNECT_TIMEOUT: Duration = Duration::from_secs(5);

/// Why the bridge could not start serving.
#[derive(Debug, thiserror::Error)]
pub(super) enum Failed {
    #[error(
        "cannot reach {addr}: {source} (has the fixture or app that made this command stopped?)"
    )]
    Unreachable {
        addr: SocketAddr,
        source: std::io::Error,
    },
    #[error("{0}")]
    Refused(String),
    #[error("the server at {addr} does not speak the attach protocol: {reason}")]
    Protocol { addr: SocketAddr, reason: String },
}

/// Attaches to `addr` and bridges until one side is gone; the exit status.
pub(super) async fn run(
    addr: SocketAddr,
    token: &str,
    server: Option<&str>,
) -> Result<i32, Failed> {
    let unreachable = |source| Failed::Unreachable { addr, source };
    let stream = match tokio::time::timeout(CONNECT_TIMEOUT, TcpStream::connect(addr)).await {
        Ok(connected) => connected.map_err(unreachable)?,
        Err(_) => {
            return Err(unreachable(std::io::Error::from(
                std::io::ErrorKind::TimedOut,
            )));
        }
    };
    // The server times its writes (split messages): Nagle must not merge them.
    let _ = stream.set_nodelay(true);
    let (read, mut write) = stream.into_split();
    let request = frame::Request {
        version: frame::VERSION,
        token: token.to_string(),
        server: server.map(str::to_string),
    };
    let mut hello = serde_json::to_vec(&request).unwrap_or_default();
    hello.push(b'\n');
    write.write_all(&hello).await.map_err(unreachable)?;
    let mut read = BufReader::new(read);
    let protocol = |reason: String| Failed::Protocol { addr, reason };
    let hello = match tokio::time::timeout(CONNECT_TIMEOUT, frame::read(&mut read)).await {
        Ok(Ok(Some(Frame::Hello(hello)))) => hello,
        Ok(Ok(Some(Frame::Refused(reason)))) => return Err(Failed::Refused(reason)),
        Ok(Ok(Some(other))) => return Err(protocol(format!("{other:?} before its hello"))),
        Ok(Ok(None)) => return Err(protocol("it closed the connection".into())),
        Ok(Err(error)) => return Err(protocol(error.to_string())),
        Err(_) => return Err(protocol("no hello within 5 s".into())),
    };
    if hello.ignore_sigterm {
        process::ignore_sigterm();
    }

    let stdin_closed = Arc::new(AtomicBool::new(false));
    let closed = stdin_closed.clone();
    tokio::spawn(async move {
        let mut stdin = tokio::io::stdin();
        let mut chunk = vec![0u8; 64 * 1024];
        loop {
            // Unreadable stdin counts as its end: the client is as good as gone.
            let n = stdin.read(&mut chunk).await.unwrap_or_default();
            if n == 0 {
                closed.store(true, Ordering::SeqCst);
                // The server sees EOF and ends the session (or ignores it, if told to).
                let _ = write.shutdown().await;
                return;
            }
            // A failed write means the server is gone, not the client: the reading side
            // reports that, so this must not count as the client's EOF.
            if write.write_all(&chunk[..n]).await.is_err() {
                return;
            }
        }
    });

    let mut sink = Process::new();
    loop {
        match frame::read(&mut read).await {
            Ok(Some(Frame::Out(out))) => {
                // The client closed our stdout (EPIPE): it is gone, so is the session.
                if sink.put(out).await.is_err() {
                    return Ok(0);
                }
            }
            Ok(Some(other)) => {
                eprintln!("mcp-decoy stdio: unexpected {other:?} from the server; stopping");
                return Ok(1);
            }
            Ok(None) if stdin_closed.load(Ordering::SeqCst) => return Ok(0),
            Ok(None) => {
                eprintln!(
                    "mcp-decoy stdio: the server at {addr} ended (its fixture dropped, or the app stopped)"
                );
                return Ok(1);
            }
            Err(error) => {
                eprintln!("mcp-decoy stdio: the connection to {addr} broke: {error}");
                return Ok(1);
            }
        }
    }
}
