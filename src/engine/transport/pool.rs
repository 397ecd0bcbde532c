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
/// reads the cgroup quota files on every call, a cost larger than the rest of a fixture's
/// start (benches/README.md, "Start-up and memory"). It is asked only when every
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
/// serves some, a new thread while the machine has room for one, else (or when no thread
/// can start) the first of those serving the fewest. Fixtures that never overlap (tests run
/// one at a time, or a test alone in its process) all run on one warm thread, and the
/// process starts no other.
pub(crate) fn next() -> Result<(usize, Handle, Lease), Error> {
    let mut runtimes = RUNTIMES.lock().unwrap_or_else(|p| p.into_inner());
    let index = choose(&mut runtimes, threads, start)?;
    let runtime = &runtimes[index];
    runtime.live.fetch_add(1, Ordering::Relaxed);
    let lease = Lease {
        live: Arc::clone(&runtime.live),
    };
    Ok((index, runtime.handle.clone(), lease))
}

/// [`next`]'s choice among `runtimes`, starting one with `start` when it needs a new
/// thread (`threads` is the limit, asked only then). A thread that cannot start (the
/// process is out of threads or memory) leaves the fixture on a busy one, when there is
/// one: served late beats not served.
fn choose(
    runtimes: &mut Vec<Runtime>,
    threads: impl FnOnce() -> usize,
    start: impl FnOnce(usize) -> Result<Handle, Error>,
) -> Result<usize, Error> {
    // By count, then index: the first of the least busy.
    let quietest = runtimes
        .iter()
        .enumerate()
        .map(|(index, runtime)| (runtime.live.load(Ordering::Relaxed), index))
        .min();
    match quietest {
        Some((0, index)) => return Ok(index),
        Some((_, index)) if runtimes.len() >= threads() => return Ok(index),
        _ => {}
    }
    // Threads start in index order.
    match start(runtimes.len()) {
        Ok(handle) => {
            runtimes.push(Runtime {
                handle,
                live: Arc::default(),
            });
            Ok(runtimes.len() - 1)
        }
        Err(error) => match quietest {
            Some((_, index)) => {
                tracing::debug!(%error, "mcp-decoy: no new pool thread; a busy one serves");
                Ok(index)
            }
            None => Err(error),
        },
    }
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

#[cfg(test)]
mod tests {
    use super::*;

    /// Runtimes serving these many fixtures each, on one handle (the choice never runs them).
    fn serving(counts: &[usize], handle: &Handle) -> Vec<Runtime> {
        counts
            .iter()
            .map(|&count| Runtime {
                handle: handle.clone(),
                live: Arc::new(AtomicUsize::new(count)),
            })
            .collect()
    }

    /// A runtime for the handle of [`serving`], which the choice never runs.
    fn unused_runtime() -> tokio::runtime::Runtime {
        tokio::runtime::Builder::new_current_thread()
            .build()
            .expect("a runtime")
    }

    fn unable(_: usize) -> Result<Handle, Error> {
        Err(Error::Runtime(std::io::Error::other("no more threads")))
    }

    #[test]
    fn a_fixture_goes_to_the_first_idle_thread_else_a_new_one_else_the_least_busy() {
        let runtime = unused_runtime();
        let handle = runtime.handle().clone();
        let new = |_: usize| Ok(handle.clone());
        let never_asked = || -> usize { panic!("the limit is asked only for a new thread") };

        let mut idle_second = serving(&[1, 0, 0], &handle);
        assert_eq!(choose(&mut idle_second, never_asked, new).ok(), Some(1));

        let mut all_busy = serving(&[2, 1], &handle);
        assert_eq!(choose(&mut all_busy, || 4, new).ok(), Some(2));
        assert_eq!(all_busy.len(), 3, "a new thread while the machine has room");

        let mut full = serving(&[2, 1, 1], &handle);
        assert_eq!(choose(&mut full, || 3, new).ok(), Some(1));
        assert_eq!(full.len(), 3);

        let mut none = Vec::new();
        assert_eq!(choose(&mut none, || 4, new).ok(), Some(0));
    }

    #[test]
    fn a_thread_that_cannot_start_leaves_the_fixture_on_a_busy_one() {
        let runtime = unused_runtime();
        let handle = runtime.handle().clone();

        let mut busy = serving(&[3, 2], &handle);
        assert_eq!(choose(&mut busy, || 4, unable).ok(), Some(1));
        assert_eq!(busy.len(), 2);

        let mut none = Vec::new();
        let error = choose(&mut none, || 4, unable).expect_err("nothing to serve on");
        assert!(error.to_string().contains("no more threads"), "{error}");
    }
}
