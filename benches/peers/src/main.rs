//! `mcp-decoy-peers`: mcp-decoy against the servers a user would pick instead (issue 16).
//!
//! - `compare APP_BIN [ROUNDS] [SECS]`: throughput and CPU per call, pinned cores;
//! - `startup KIND`: start-up, memory and threads per server, in this process;
//! - `idle KIND`: RSS and heap per idle server, its clients in a child process
//!   (`initialize-urls`);
//! - `startup-rounds N`: start → first `initialize` of every server in N alternating rounds
//!   of fresh processes, with per-round ratios;
//! - `serve KIND` / `load URL C SECS`: the two halves `compare` runs;
//! - `answers`: checks that wiremock's canned `initialize` answer is the fixture's.
//!
//! `PEERS_ONE_CORE=1` runs any of them on one core (`pin_to_one_core`).
//!
//! `benches/peers/run.sh` runs it all, release and debug.

mod client;
mod compare;
mod idle;
mod load;
mod rounds;
mod servers;
mod startup;

use client::Failure;
use servers::Kind;

/// Runs `job` in a thread of its own while the main thread waits, as libtest runs every
/// test, `--test-threads=1` included: a test binary is never a process of one thread.
///
/// The kernel treats a process of one thread apart: when its descriptor table grows
/// (`expand_files`, each time the table doubles) it skips the RCU grace period that a
/// process of several threads waits for, milliseconds each on this VM. A thousand servers
/// and their clients grow the table several times, so a peer measured alone on the main
/// thread (the bare axum handler, served on the caller's runtime) skipped waits that it
/// pays in any test, while the fixture, whose pool threads make the process a
/// multi-threaded one, did not (benches/README.md, "The caller in a thread of its own").
/// `PEERS_MAIN_THREAD=1` runs on the main thread, as before.
fn as_a_test<F>(runtime: tokio::runtime::Runtime, job: F) -> Result<(), Failure>
where
    F: FnOnce(&tokio::runtime::Runtime) -> Result<(), Failure> + Send + 'static,
{
    if std::env::var_os("PEERS_MAIN_THREAD").is_some() {
        return job(&runtime);
    }
    std::thread::Builder::new()
        .name("test".into())
        .spawn(move || job(&runtime))?
        .join()
        .map_err(|_| "the test thread panicked")?
}

/// With `PEERS_ONE_CORE=1`, pins this process, and so every thread it starts, to the core it
/// is on: the caller and the server then take turns on one core, no wake-up crosses cores,
/// and a life costs what its CPU costs. Without it, whether the two threads wake each other
/// across cores is up to the host, and that alone moved the release start-up ratio from 0.9
/// to 1.35 (benches/README.md, "Start-up when a life is CPU-bound").
fn pin_to_one_core() -> Result<(), Failure> {
    if !one_core() {
        return Ok(());
    }
    // SAFETY: sched_getcpu takes no argument and only reads the calling thread's CPU.
    let cpu =
        usize::try_from(unsafe { libc::sched_getcpu() }).map_err(|_| "sched_getcpu failed")?;
    if cpu >= libc::CPU_SETSIZE as usize {
        return Err(format!("CPU {cpu} is past what a cpu_set_t holds").into());
    }
    // SAFETY: an all-zero cpu_set_t is the empty set; CPU_SET writes inside it (checked
    // above), and sched_setaffinity reads the set of the size given. pid 0 is this thread,
    // which every thread started later inherits from.
    unsafe {
        let mut set: libc::cpu_set_t = std::mem::zeroed();
        libc::CPU_SET(cpu, &mut set);
        if libc::sched_setaffinity(0, std::mem::size_of_val(&set), &set) != 0 {
            return Err(std::io::Error::last_os_error().into());
        }
    }
    Ok(())
}

/// Whether this process was asked to run on one core (`PEERS_ONE_CORE`).
pub fn one_core() -> bool {
    std::env::var_os("PEERS_ONE_CORE").is_some()
}

fn main() -> Result<(), Failure> {
    pin_to_one_core()?;
    let args: Vec<String> = std::env::args().skip(1).collect();
    let runtime = tokio::runtime::Builder::new_current_thread()
        .enable_all()
        .build()?;
    let arg = |i: usize| args.get(i).map(String::as_str);
    let kind = |i: usize| {
        arg(i)
            .and_then(Kind::parse)
            .ok_or("KIND: fixture | rmcp-stateless | rmcp-sse | wiremock | axum")
    };
    match arg(0) {
        Some("serve") => {
            let kind = kind(1)?;
            runtime.block_on(async {
                let server = servers::start(kind).await;
                println!("{}", server.url());
                // Serve until the parent closes stdin or kills us.
                let mut line = String::new();
                let _ = tokio::task::spawn_blocking(move || std::io::stdin().read_line(&mut line)).await;
                drop(server);
                Ok(())
            })
        }
        Some("load") => {
            let url = arg(1).ok_or("URL")?;
            let connections = arg(2).ok_or("C")?.parse()?;
            let secs = arg(3).ok_or("SECS")?.parse()?;
            let figures = runtime.block_on(load::run(url, connections, secs))?;
            load::print(&figures);
            Ok(())
        }
        Some("startup") => {
            let kind = kind(1)?;
            as_a_test(runtime, move |runtime| runtime.block_on(startup::run(kind)))
        }
        Some("idle") => {
            let kind = kind(1)?;
            as_a_test(runtime, move |runtime| runtime.block_on(idle::run(kind)))
        }
        Some("answers") => runtime.block_on(servers::same_answers()),
        Some("initialize-urls") => runtime.block_on(idle::initialize_urls()),
        Some("startup-rounds") => rounds::run(arg(1).unwrap_or("10").parse()?),
        Some("compare") => {
            let app = arg(1).ok_or("APP_BIN: the mcp-decoy binary (--features decoy-cli)")?;
            let rounds = arg(2).unwrap_or("6").parse()?;
            let secs = arg(3).unwrap_or("3").parse()?;
            compare::run(rounds, secs, std::path::Path::new(app))
        }
        _ => Err("usage: mcp-decoy-peers compare APP_BIN [ROUNDS] [SECS] | startup KIND | idle KIND | startup-rounds [N] | serve KIND | load URL C SECS | answers".into()),
    }
}
