//! Transport adapters: each turns its own bytes into messages for the pipeline and the
//! pipeline's outcomes back into bytes. Streamable HTTP ([`http`]) and newline-delimited
//! byte streams ([`lines`]: the in-memory duplex, stdio processes) sit side by side; a relay is
//! one more adapter, and none of them reaches into the methods.

pub(crate) mod attach;
pub(crate) mod http;
pub(crate) mod lines;
pub(crate) mod pool;

use std::sync::Arc;

use tokio::io::DuplexStream;
use tokio::runtime::Handle;
use tokio_util::sync::CancellationToken;

use crate::engine::Engine;

/// Bytes one in-memory duplex buffers in each direction before the writer waits.
const DUPLEX_BUFFER: usize = 64 * 1024;

/// A new in-memory connection to `engine`, served by [`lines`] on `runtime` until `scope`
/// ends (its server stopped): the client's end of the duplex.
pub(crate) fn duplex(
    engine: Arc<Engine>,
    runtime: &Handle,
    scope: &CancellationToken,
) -> DuplexStream {
    let (client, server) = tokio::io::duplex(DUPLEX_BUFFER);
    let (read, write) = tokio::io::split(server);
    let served = lines::serve(
        engine,
        read,
        lines::out::Plain(write),
        crate::log::Transport::Memory,
    );
    pool::spawn_scoped(runtime, scope, served);
    client
}
