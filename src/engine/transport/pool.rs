//! The threads fixtures are served on: a few current-thread runtimes shared by every
//! fixture of the process, started on first use, instead of a thread and runtime per
//! fixture. A fixture runs the same under either `#[tokio::test]` flavour, since none of its
//! tasks runs on the test's runtime, and its start and drop never wait for a thread to be
//! made (past the first few) or joined.
//!
//! A fixture goes to a runtime that serves none when there is one ([`next`]). Each fixture
//! cancels its own tasks when it stops ([`serve`](super::http::serve)), so what one fixture
//! leaves behind never outlives it on a shared thread.

use std::sync::atomic::{AtomicUsize, Ordering};
use std::sync::{Arc, LazyLock, Mutex};
use std::time::Duration;

use tokio::runtime::Handle;
use tokio_util::sync::CancellationToken;

use crate::error::Error;

/// At most this many threads, however many cores: fixture servers are light, and a test
/// binary's own threads already run its tests in parallel.
pub(crate) const MAX_THREADS: usize = 4;

/// The runtimes started so far, in index order, each with how many fixtures it serves now.
static RUNTIMES: Mutex<Vec<Runtime>> = Mutex::new(Vec::new());

/// A pool runtime and how many fixtures it serves ([`Lease`]).
#[derive(Debug)]
struct Runtime {
    handle: Handle,
    live: Arc<AtomicUsize>,
}

/// A fixture's place on a runtime: counted there until dropped ([`next`]).
#[derive(Debug)]
pub(crate) struct Lease {
    live: Arc<AtomicUsize>,
}

impl Drop for Lease {
    fn drop(&mut self) {
        self.live.fetch_sub(1, Ordering::Relaxed);
    }
}

/// How many threads the pool grows to on this machine, asked once: `available_parallelism`
/// reads the cgroup quota files on every call, which cost a fixture's start more than
/// building its router, and its first call cost 43–73 µs here. It is asked only when every
/// thread so far serves a fixture ([`next`]): a process whose fixtures never overlap (a
/// test alone in its process, as under nextest, or tests run one at a time) never pays it.
fn threads() -> usize {
    static THREADS: LazyLock<usize> = LazyLock::new(|| {
        std::thread::available_parallelism()
            .map_or(1, usize::from)
            .clamp(1, MAX_THREADS)
    });
    *THREADS
}

/// The runtime the next fixture is served on, with its index (below [`MAX_THREADS`]) and
/// the lease that counts it there: the first runtime serving no fixture; when every one
/// serves some, a new thread while the machine has room for one, else the first of those
/// serving the fewest. Fixtures that never overlap (tests run one at a time, or a test
/// alone in its process) all run on one warm thread, and the process starts no other.
pub(crate) fn next() -> Result<(usize, Handle, Lease), Error> {
    let mut runtimes = RUNTIMES.lock().unwrap_or_else(|p| p.into_inner());
    // By count, then index: the first of the least busy.
    let quietest = runtimes
        .iter()
        .enumerate()
        .map(|(index, runtime)| (runtime.live.load(Ordering::Relaxed), index))
        .min();
    let index = match quietest {
        Some((0, index)) => index,
        Some((_, index)) if runtimes.len() >= threads() => index,
        _ => {
            // Threads start in index order.
            let handle = start(runtimes.len())?;
            runtimes.push(Runtime {
                handle,
                live: Arc::default(),
            });
            runtimes.len() - 1
        }
    };
    let runtime = &runtimes[index];
    runtime.live.fetch_add(1, Ordering::Relaxed);
    let lease = Lease {
        live: Arc::clone(&runtime.live),
    };
    Ok((index, runtime.handle.clone(), lease))
}

/// How often a pool runtime's clock ticks while nothing else is timed ([`start`]).
const TICK: Duration = Duration::from_secs(5);

/// A current-thread runtime driven for the rest of the process by a thread of its own.
///
/// The thread keeps one timer going off every [`TICK`]. tokio wakes its reactor with a
/// system call whenever a timer is set to go off before the reactor's next wake-up, and a
/// runtime with no timer at all counts every timer as sooner: so each connection's
/// watchdog, set after its first answer, cost the thread a write to its own eventfd and a
/// turn of its loop (benches/README.md, "Headers in one string, members read in one
/// pass"). With the tick, a timeout of more than [`TICK`] (the defaults are 10 s and 60 s)
/// is never the sooner.
fn start(index: usize) -> Result<Handle, Error> {
    let runtime = tokio::runtime::Builder::new_current_thread()
        .enable_all()
        .build()
        .map_err(Error::Runtime)?;
    let handle = runtime.handle().clone();
    std::thread::Builder::new()
        .name(format!("mcp-decoy-{index}"))
        .spawn(move || {
            runtime.block_on(async {
                loop {
                    tokio::time::sleep(TICK).await;
                }
            })
        })
        .map_err(Error::Runtime)?;
    Ok(handle)
}

/// Runs `task` on `runtime` until it ends or `scope` is cancelled (its fixture stopped),
/// whichever comes first.
pub(crate) fn spawn_scoped<F>(runtime: &Handle, scope: &CancellationToken, task: F)
where
    F: std::future::Future<Output = ()> + Send + 'static,
{
    let scope = scope.clone();
    runtime.spawn(async move {
        // Cancellation first: a task woken by its fixture's stop (a session ended, say)
        // must not answer once the scope is cancelled, as a dropped runtime never would.
        tokio::select! {
            biased;
            () = scope.cancelled() => {}
            () = task => {}
        }
    });
}
