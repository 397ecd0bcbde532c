//! The attach socket: how a process that a client spawned (`mcp-decoy stdio --attach`)
//! reaches a server living elsewhere (a test's fixture, or a running app) and serves its
//! stdin and stdout from it. The bridge connects to a loopback port, names the token it was
//! given (and, for the app, the server), and gets a [`frame::Hello`]; from then on its
//! stdin bytes go to the line adapter unchanged and the adapter's output comes back as
//! frames. So the fixture's capture, expectations and faults apply to a real child process.

#[cfg_attr(
    not(feature = "decoy-cli"),
    allow(
        dead_code,
        reason = "the library runs it as its own program, built by build.rs"
    )
)]
pub(crate) mod bridge;
pub(crate) mod frame;

use std::collections::VecDeque;
use std::net::{Ipv4Addr, SocketAddr};
use std::sync::{Arc, Mutex};
use std::time::Duration;

use subtle::ConstantTimeEq;
use tokio::io::{AsyncBufReadExt, AsyncReadExt, AsyncWrite, AsyncWriteExt, BufReader};
use tokio::net::{TcpListener, TcpStream};
use tokio::runtime::Handle;
use tokio_util::sync::CancellationToken;

use super::lines::{self, out::Out, out::Sink};
use crate::engine::Engine;
use crate::log::Transport;

pub(crate) use bridge::TOKEN_ENV;

/// Bridges served at once; past it a new one is refused with a message it prints. Only a
/// bridge that named the token takes a place.
const MAX_BRIDGES: usize = 256;

/// How long a bridge has to send its hello line (a real one sends it as it connects), and
/// how long that line may be.
const HELLO_TIMEOUT: Duration = Duration::from_secs(2);
const MAX_HELLO: u64 = 4 * 1024;

/// Connections waiting for their hello at once; a new one past it closes the oldest, so
/// idle connections cannot keep a real bridge out.
const MAX_WAITING: usize = 32;

/// The socket to a bridge process (`mcp-decoy stdio --attach`): each item one frame.
pub(crate) struct Framed<W>(pub(crate) W);

impl<W: AsyncWrite + Unpin + Send + 'static> Sink for Framed<W> {
    async fn put(&mut self, out: Out) -> std::io::Result<bool> {
        let exit = matches!(out, Out::Exit(_));
        if let Some(bytes) = frame::encode(&out) {
            self.0.write_all(&bytes).await?;
            self.0.flush().await?;
        }
        if exit {
            self.0.shutdown().await?;
        }
        Ok(!exit)
    }
}

/// Finds the engine a bridge asks for (by server name, for the app), or says why not.
pub(crate) type Resolve = Arc<dyn Fn(Option<&str>) -> Result<Arc<Engine>, String> + Send + Sync>;

/// Where bridges connect, and the secret they must name.
#[derive(Debug, Clone, PartialEq, Eq)]
pub(crate) struct Attach {
    pub(crate) addr: SocketAddr,
    pub(crate) token: String,
}

/// Binds a loopback port now, so the caller can hand out its address, and serves bridges
/// on `runtime` until `scope` ends (the fixture that opened it stopped).
pub(crate) fn listen(
    runtime: &Handle,
    scope: &CancellationToken,
    resolve: Resolve,
) -> std::io::Result<Attach> {
    let listener = std::net::TcpListener::bind((Ipv4Addr::LOCALHOST, 0))?;
    listener.set_nonblocking(true)?;
    let attach = Attach {
        addr: listener.local_addr()?,
        token: new_token(),
    };
    let token = attach.token.clone();
    let bridges = scope.clone();
    let accepting = async move {
        match TcpListener::from_std(listener) {
            Ok(listener) => accept(listener, token, resolve, bridges).await,
            Err(error) => tracing::error!(%error, "mcp-decoy: cannot register the attach socket"),
        }
    };
    crate::engine::transport::pool::spawn_scoped(runtime, scope, accepting);
    Ok(attach)
}

/// 128 random bits, hex: a bridge made for another fixture (one that reused the port)
/// cannot attach by mistake.
fn new_token() -> String {
    crate::engine::random::hex_id()
}

/// The connections waiting for their hello, oldest first, each with what closes it.
#[derive(Debug, Default)]
struct Waiting {
    queue: VecDeque<(u64, CancellationToken)>,
    next: u64,
}

impl Waiting {
    /// Adds a connection, closing the oldest past [`MAX_WAITING`].
    fn enter(waiting: &Mutex<Waiting>) -> (u64, CancellationToken) {
        let mut waiting = waiting.lock().unwrap_or_else(|p| p.into_inner());
        while waiting.queue.len() >= MAX_WAITING {
            if let Some((_, oldest)) = waiting.queue.pop_front() {
                oldest.cancel();
            }
        }
        waiting.next += 1;
        let entry = (waiting.next, CancellationToken::new());
        waiting.queue.push_back(entry.clone());
        entry
    }

    fn leave(waiting: &Mutex<Waiting>, id: u64) {
        let mut waiting = waiting.lock().unwrap_or_else(|p| p.into_inner());
        waiting.queue.retain(|(entry, _)| *entry != id);
    }
}

async fn accept(listener: TcpListener, token: String, resolve: Resolve, scope: CancellationToken) {
    let token = Arc::new(token);
    let slots = Arc::new(tokio::sync::Semaphore::new(MAX_BRIDGES));
    let waiting = Arc::new(Mutex::new(Waiting::default()));
    loop {
        let stream = match listener.accept().await {
            Ok((stream, _)) => stream,
            Err(error) => {
                // Out of descriptors, say: wait instead of spinning on the error.
                tracing::debug!(%error, "mcp-decoy: attach accept failed");
                tokio::time::sleep(Duration::from_millis(50)).await;
                continue;
            }
        };
        // Split messages and stderr floods are timed writes: Nagle would merge them.
        let _ = stream.set_nodelay(true);
        let (token, resolve, slots) = (token.clone(), resolve.clone(), slots.clone());
        let (id, crowded_out) = Waiting::enter(&waiting);
        let waiting = waiting.clone();
        let bridged = async move {
            let greeted = tokio::select! {
                greeted = greet(stream, &token, &resolve) => greeted,
                () = crowded_out.cancelled() => None,
            };
            Waiting::leave(&waiting, id);
            let Some((engine, read, mut write)) = greeted else {
                return;
            };
            match slots.try_acquire_owned() {
                Ok(slot) => {
                    bridge(engine, read, write).await;
                    drop(slot);
                }
                Err(_) => {
                    let reason = format!("this server already serves {MAX_BRIDGES} stdio bridges");
                    let _ = write.write_all(&frame::refused(&reason)).await;
                }
            }
        };
        crate::engine::transport::pool::spawn_scoped(&Handle::current(), &scope, bridged);
    }
}

/// A bridge's connection, its read half buffered.
type Reader = BufReader<tokio::net::tcp::OwnedReadHalf>;
type Writer = tokio::net::tcp::OwnedWriteHalf;

/// Reads the hello and admits the bridge: its engine and the connection's halves, or
/// `None` once it was told why not.
async fn greet(
    stream: TcpStream,
    token: &str,
    resolve: &Resolve,
) -> Option<(Arc<Engine>, Reader, Writer)> {
    let (read, mut write) = stream.into_split();
    let mut read = BufReader::new(read);
    let admitted = match tokio::time::timeout(HELLO_TIMEOUT, hello_line(&mut read)).await {
        Ok(Ok(request)) => admit(&request, token, resolve),
        Ok(Err(reason)) => Err(reason),
        Err(_) => Err(format!(
            "no hello line within {} s",
            HELLO_TIMEOUT.as_secs()
        )),
    };
    match admitted {
        Ok(engine) => Some((engine, read, write)),
        Err(reason) => {
            let _ = write.write_all(&frame::refused(&reason)).await;
            None
        }
    }
}

/// Serves an admitted bridge until it ends.
async fn bridge(engine: Arc<Engine>, read: Reader, mut write: Writer) {
    let stdio = engine.spec.stdio;
    let hello = frame::Hello {
        version: frame::VERSION,
        ignore_eof: stdio.ignore_eof,
        ignore_sigterm: stdio.ignore_sigterm,
    };
    if write.write_all(&frame::hello(&hello)).await.is_err() {
        return;
    }
    lines::serve(engine, read, Framed(write), Transport::Stdio).await;
}

async fn hello_line<R: tokio::io::AsyncRead + Unpin>(
    read: &mut BufReader<R>,
) -> Result<frame::Request, String> {
    let mut line = Vec::new();
    (&mut *read)
        .take(MAX_HELLO)
        .read_until(b'\n', &mut line)
        .await
        .map_err(|error| format!("reading the hello line: {error}"))?;
    if line.last() != Some(&b'\n') {
        return Err(format!(
            "the hello line is missing or longer than {MAX_HELLO} bytes"
        ));
    }
    serde_json::from_slice(&line).map_err(|error| format!("the hello line: {error}"))
}

fn admit(request: &frame::Request, token: &str, resolve: &Resolve) -> Result<Arc<Engine>, String> {
    if request.version != frame::VERSION {
        return Err(format!(
            "this bridge speaks attach protocol {}, the server {}: use the mcp-decoy binary of the same release as the library",
            request.version,
            frame::VERSION
        ));
    }
    if !bool::from(request.token.as_bytes().ct_eq(token.as_bytes())) {
        return Err("the token does not match this server's (is the fixture that made the command still alive?)".into());
    }
    resolve(request.server.as_deref())
}
