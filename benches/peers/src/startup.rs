//! Start-up and memory, in a fresh process per server (`peers startup KIND`), on a
//! current-thread runtime as under a default `#[tokio::test]`, in a thread of its own as
//! libtest runs a test (`main.rs`, `as_a_test`):
//! - start → first answered `initialize`, p50 of sequential lives (each dropped after);
//! - 1,000 started concurrently, each answered one `initialize`: total time, and the CPU
//!   time of the caller's thread and of the process's other threads over it;
//! - RSS and OS threads per idle server once those 1,000 hold one session each;
//! - dropping the 1,000: until `drop` returns, and until their threads are gone.

use std::time::{Duration, Instant};

use futures::future::join_all;
use serde_json::json;

use crate::client::{Connection, Failure};
use crate::compare::{median, status_kib};
use crate::servers::{self, Kind, Running};

const SEQUENTIAL: usize = 300;

/// `PEERS_LIVES=N` runs N sequential lives and stops there (to profile one phase), reporting
/// with their p50 the CPU time per life of the caller's thread and of the other threads (the
/// servers', when they have their own);
/// `PEERS_PHASES=1` then times a life's phases apart (start, connect, first and second
/// `initialize`); `PEERS_EXIT_IDLE=1` exits while the concurrent servers are idle, so a heap
/// profiler's end-of-run figures (`valgrind --tool=dhat`) are what idle servers hold;
/// `PEERS_SEQUENTIAL=N` runs N sequential lives instead of 300 and goes on (0, to profile
/// the concurrent start alone); `PEERS_GAP_US=N` sleeps N µs after each sequential life, so
/// that each starts cold, as a fixture does between the other work of a test suite.
fn lives_only() -> Option<usize> {
    std::env::var("PEERS_LIVES").ok()?.parse().ok()
}
const CONCURRENT: usize = 1000;

/// glibc's count of heap bytes in use, across every thread's arena: what the servers hold,
/// without the pages malloc keeps after a free that RSS also counts.
pub fn heap_bytes() -> u64 {
    #[repr(C)]
    struct MallInfo2 {
        arena: usize,
        ordblks: usize,
        smblks: usize,
        hblks: usize,
        hblkhd: usize,
        usmblks: usize,
        fsmblks: usize,
        uordblks: usize,
        fordblks: usize,
        keepcost: usize,
    }
    unsafe extern "C" {
        fn mallinfo2() -> MallInfo2;
    }
    // SAFETY: mallinfo2 only reads malloc's own counters.
    let info = unsafe { mallinfo2() };
    (info.uordblks + info.hblkhd) as u64
}

/// CPU time the calling thread has used (user and system), in seconds: what the caller's
/// own runtime spent, apart from the time it waited for the servers.
pub fn thread_cpu_secs() -> f64 {
    #[repr(C)]
    struct Timespec {
        secs: i64,
        nanos: i64,
    }
    unsafe extern "C" {
        fn clock_gettime(clock: i32, out: *mut Timespec) -> i32;
    }
    const CLOCK_THREAD_CPUTIME_ID: i32 = 3;
    let mut now = Timespec { secs: 0, nanos: 0 };
    // SAFETY: clock_gettime writes one timespec through a valid pointer.
    let ok = unsafe { clock_gettime(CLOCK_THREAD_CPUTIME_ID, &mut now) } == 0;
    if ok {
        now.secs as f64 + now.nanos as f64 * 1e-9
    } else {
        f64::NAN
    }
}

/// Run time of every thread of this process but the caller's, in seconds
/// (`/proc/self/task/*/schedstat`): what the servers' own threads spent, if they have any.
pub fn other_threads_cpu_secs() -> f64 {
    let me = std::fs::read_link("/proc/thread-self").ok();
    let Ok(tasks) = std::fs::read_dir("/proc/self/task") else {
        return f64::NAN;
    };
    let mut nanos = 0u64;
    for task in tasks.flatten() {
        let mine = me
            .as_ref()
            .and_then(|m| m.file_name())
            .is_some_and(|m| m == task.file_name());
        if mine {
            continue;
        }
        let stat = std::fs::read_to_string(task.path().join("schedstat")).unwrap_or_default();
        nanos += stat
            .split_whitespace()
            .next()
            .and_then(|n| n.parse::<u64>().ok())
            .unwrap_or(0);
    }
    nanos as f64 * 1e-9
}

fn stage(what: &str) {
    if std::env::var_os("PEERS_VERBOSE").is_some() {
        eprintln!("{what}");
    }
}

pub async fn run(kind: Kind) -> Result<(), Failure> {
    // The first server of a process pays lazy initialisation: reported apart (a test runner
    // that runs each test in a process of its own, as nextest does, pays it every test).
    let (_, first_life) = life(kind).await?;
    let sequential = lives_only()
        .or_else(|| std::env::var("PEERS_SEQUENTIAL").ok()?.parse().ok())
        .unwrap_or(SEQUENTIAL);
    let mut lives = Vec::with_capacity(sequential);
    let (caller_before, others_before) = (thread_cpu_secs(), other_threads_cpu_secs());
    let gap = std::env::var("PEERS_GAP_US")
        .ok()
        .and_then(|g| g.parse().ok());
    for _ in 0..sequential {
        lives.push(life(kind).await?);
        if let Some(gap) = gap {
            std::thread::sleep(Duration::from_micros(gap));
        }
    }
    let per_life = |secs: f64| secs / sequential as f64 * 1e6;
    let caller_cpu_us = per_life(thread_cpu_secs() - caller_before);
    let others_cpu_us = per_life(other_threads_cpu_secs() - others_before);
    stage("sequential done");
    if std::env::var_os("PEERS_PHASES").is_some() {
        let mut phases = Vec::with_capacity(sequential);
        for _ in 0..sequential {
            phases.push(phased(kind).await?);
            for _ in 0..4 {
                tokio::task::yield_now().await;
            }
        }
        let p50 = |i: usize| median(phases.iter().map(|p: &[f64; 4]| p[i]).collect()) * 1e6;
        println!(
            "{}",
            json!({"kind": kind.name(), "start_us": p50(0), "connect_us": p50(1),
                   "first_initialize_us": p50(2), "second_initialize_us": p50(3)})
        );
        return Ok(());
    }
    if lives_only().is_some() {
        let p50 = median(lives.iter().map(|l| l.1).collect()) * 1e6;
        let start = median(lives.iter().map(|l| l.0).collect()) * 1e6;
        println!(
            "{}",
            json!({"kind": kind.name(), "p50_us": p50, "start_alone_p50_us": start,
                   "first_life_us": first_life * 1e6,
                   "caller_cpu_per_life_us": caller_cpu_us,
                   "other_threads_cpu_per_life_us": others_cpu_us})
        );
        return Ok(());
    }
    tokio::time::sleep(Duration::from_millis(300)).await;
    let me = std::process::id();
    let (rss_before, threads_before) = (status_kib(me, "VmRSS:")?, status_kib(me, "Threads:")?);
    let heap_before = heap_bytes();
    let started = Instant::now();
    let cpu_before = thread_cpu_secs();
    let others_before = other_threads_cpu_secs();
    let concurrent_count = std::env::var("PEERS_CONCURRENT")
        .ok()
        .and_then(|n| n.parse().ok())
        .unwrap_or(CONCURRENT);
    let servers = join_all((0..concurrent_count).map(|_| answered(kind))).await;
    let concurrent = started.elapsed();
    let caller_cpu = thread_cpu_secs() - cpu_before;
    let others_cpu = other_threads_cpu_secs() - others_before;
    stage("concurrent done");
    let servers = servers.into_iter().collect::<Result<Vec<_>, _>>()?;
    tokio::time::sleep(Duration::from_millis(500)).await;
    let (rss_after, threads_after) = (status_kib(me, "VmRSS:")?, status_kib(me, "Threads:")?);
    let heap_after = heap_bytes();
    if std::env::var_os("PEERS_EXIT_IDLE").is_some() {
        println!(
            "{}",
            json!({"kind": kind.name(), "concurrent_ms": concurrent.as_secs_f64() * 1e3,
                   "caller_cpu_ms": caller_cpu * 1e3,
                   "other_threads_cpu_ms": others_cpu * 1e3,
                   "heap_per_server_kib": (heap_after as f64 - heap_before as f64) / concurrent_count as f64 / 1024.0})
        );
        std::process::exit(0);
    }
    let started = Instant::now();
    if kind == Kind::Wiremock {
        // Dropping a thousand pooled wiremock servers at once stalls (its `Drop` blocks on
        // `verify`); its drop is not what is compared, so they are left to the exit.
        std::mem::forget(servers);
    } else {
        drop(servers);
    }
    let dropped = started.elapsed();
    while status_kib(me, "Threads:")? > threads_before && started.elapsed() < Duration::from_secs(5)
    {
        tokio::time::sleep(Duration::from_micros(200)).await;
    }
    let gone = started.elapsed();
    println!(
        "{}",
        json!({
            "kind": kind.name(),
            "p50_us": median(lives.iter().map(|l| l.1).collect()) * 1e6,
            "start_alone_p50_us": median(lives.iter().map(|l| l.0).collect()) * 1e6,
            "first_life_us": first_life * 1e6,
            "concurrent_ms": concurrent.as_secs_f64() * 1e3,
            "caller_cpu_ms": caller_cpu * 1e3,
            "other_threads_cpu_ms": others_cpu * 1e3,
            "rss_per_server_kib": (rss_after as f64 - rss_before as f64) / concurrent_count as f64,
            "heap_per_server_kib": (heap_after as f64 - heap_before as f64) / concurrent_count as f64 / 1024.0,
            "threads_per_server": (threads_after as f64 - threads_before as f64) / concurrent_count as f64,
            // The process's threads around the 1,000: the fixture's pool starts a shared
            // thread when every one it has serves a fixture, up to one per core.
            "process_threads_before": threads_before,
            "process_threads_after": threads_after,
            "drop_ms": (kind != Kind::Wiremock).then_some(dropped.as_secs_f64() * 1e3),
            // wiremock's pool keeps its servers (and their threads) for reuse.
            "drop_until_threads_gone_ms": if status_kib(me, "Threads:")? > threads_before {
                None
            } else {
                Some(gone.as_secs_f64() * 1e3)
            },
        })
    );
    Ok(())
}

/// One life, timed from start to the answer of its first `initialize`.
async fn life(kind: Kind) -> Result<(f64, f64), Failure> {
    let started = Instant::now();
    let server = servers::start(kind).await;
    let start = started.elapsed().as_secs_f64();
    let mut connection = Connection::open(&server.url()).await?;
    connection.initialize_only().await?;
    let elapsed = started.elapsed().as_secs_f64();
    close_then_stop(connection, server).await;
    Ok((start, elapsed))
}

/// One life in phases: `start()`, the connection, the first `initialize` and a second one
/// on the same connection (what a warm server takes), each timed on its own.
async fn phased(kind: Kind) -> Result<[f64; 4], Failure> {
    let t0 = Instant::now();
    let server = servers::start(kind).await;
    let t1 = Instant::now();
    let mut connection = Connection::open(&server.url()).await?;
    let t2 = Instant::now();
    connection.initialize_only().await?;
    let t3 = Instant::now();
    connection.initialize_only().await?;
    let t4 = Instant::now();
    close_then_stop(connection, server).await;
    let secs = |a: Instant, b: Instant| (b - a).as_secs_f64();
    Ok([secs(t0, t1), secs(t1, t2), secs(t2, t3), secs(t3, t4)])
}

/// Closes the client's connection (with a reset: no TIME_WAIT, `Connection::open`) before
/// the server stops, so neither side leaves a socket in TIME_WAIT: a server that closed
/// first would, and a run's thousands of them slow every later connect and bind.
async fn close_then_stop(connection: Connection, server: Running) {
    drop(connection);
    for _ in 0..4 {
        tokio::task::yield_now().await;
    }
    drop(server);
}

/// A server that has answered one `initialize` (its connection closed after).
async fn answered(kind: Kind) -> Result<Running, Failure> {
    let server = servers::start(kind).await;
    let mut connection = Connection::open(&server.url()).await?;
    connection.initialize_only().await?;
    Ok(server)
}
