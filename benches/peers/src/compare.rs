//! Throughput and CPU per call, the issue-16 method: each server in a process of its own
//! pinned to core 0 (`taskset -c 0`), the load generator in another pinned to core 1; one
//! session per connection; rounds interleave the servers (each round starts one server
//! later in the list) and ratios are taken against the bare axum handler within a round.

use std::io::{BufRead, BufReader, Write};
use std::net::{Ipv4Addr, SocketAddr, TcpListener, TcpStream};
use std::path::{Path, PathBuf};
use std::process::{Child, Command, Stdio};
use std::time::{Duration, Instant};

use serde_json::Value;

use crate::client::Failure;

/// A server as the table names it.
#[derive(Clone, Copy, PartialEq)]
enum Server {
    Fixture,
    App,
    RmcpStateless,
    RmcpSse,
    Axum,
}

const SERVERS: [Server; 5] = [
    Server::Fixture,
    Server::App,
    Server::RmcpStateless,
    Server::RmcpSse,
    Server::Axum,
];

impl Server {
    fn label(self) -> &'static str {
        match self {
            Server::Fixture => "mcp-decoy fixture (defaults, capture on)",
            Server::App => "mcp-decoy app `/s/echo/mcp`",
            Server::RmcpStateless => "rmcp 3.11 stateless + JSON responses",
            Server::RmcpSse => "rmcp 3.11 stateful (SSE)",
            Server::Axum => "bare axum handler",
        }
    }
}

/// One server's figures in one round.
#[derive(Clone, Copy, Default)]
struct Sample {
    rps16: f64,
    cpu_us16: f64,
    p50_us1: f64,
    peak_rss_kib: u64,
}

pub fn run(rounds: usize, secs: f64, app: &Path) -> Result<(), Failure> {
    let me = std::env::current_exe()?;
    let mut samples: Vec<Vec<Sample>> = vec![Vec::new(); SERVERS.len()];
    for round in 0..rounds {
        for k in 0..SERVERS.len() {
            let index = (k + round) % SERVERS.len();
            let sample = measure(&me, app, SERVERS[index], secs)?;
            eprintln!(
                "round {} {:<42} {:>8.0} req/s  {:>6.1} µs CPU/call  p50(c=1) {:>6.1} µs  peak {} KiB",
                round + 1,
                SERVERS[index].label(),
                sample.rps16,
                sample.cpu_us16,
                sample.p50_us1,
                sample.peak_rss_kib
            );
            samples[index].push(sample);
        }
    }
    report(&samples);
    Ok(())
}

fn report(samples: &[Vec<Sample>]) {
    let axum = &samples[SERVERS.len() - 1];
    println!(
        "| server | req/s c=16 | ÷ bare axum | server CPU µs/call c=16 | ÷ bare axum | p50 c=1 | ÷ bare axum | peak RSS |"
    );
    println!("|---|---:|---:|---:|---:|---:|---:|---:|");
    for (server, runs) in SERVERS.iter().zip(samples) {
        let ratio = |f: fn(&Sample) -> f64| {
            median(runs.iter().zip(axum).map(|(s, a)| f(s) / f(a)).collect())
        };
        println!(
            "| {} | {:.0} | {:.2} | {:.1} | {:.2} | {:.0} µs | {:.2} | {:.1} MiB |",
            server.label(),
            median(runs.iter().map(|s| s.rps16).collect()),
            ratio(|s| s.rps16),
            median(runs.iter().map(|s| s.cpu_us16).collect()),
            ratio(|s| s.cpu_us16),
            median(runs.iter().map(|s| s.p50_us1).collect()),
            ratio(|s| s.p50_us1),
            runs.iter()
                .map(|s| s.peak_rss_kib)
                .max()
                .unwrap_or_default() as f64
                / 1024.0,
        );
    }
}

pub fn median(mut values: Vec<f64>) -> f64 {
    values.sort_by(f64::total_cmp);
    values.get(values.len() / 2).copied().unwrap_or(f64::NAN)
}

/// Starts `server` on core 0, loads it from core 1 at c=16 (timing its CPU) then c=1.
fn measure(me: &Path, app: &Path, server: Server, secs: f64) -> Result<Sample, Failure> {
    let (mut child, url, _dir) = spawn(me, app, server)?;
    let pid = child.id();
    let before = cpu_ticks(pid)?;
    let c16 = load(me, &url, 16, secs)?;
    let after = cpu_ticks(pid)?;
    let c1 = load(me, &url, 1, secs)?;
    let peak_rss_kib = status_kib(pid, "VmHWM:")?;
    let _ = child.kill();
    let _ = child.wait();
    let requests = c16["requests"].as_f64().unwrap_or(0.0);
    let cpu_secs = (after - before) as f64 / ticks_per_second();
    Ok(Sample {
        rps16: requests / c16["secs"].as_f64().unwrap_or(1.0),
        cpu_us16: cpu_secs * 1e6 / requests,
        p50_us1: c1["p50_us"].as_f64().unwrap_or(f64::NAN),
        peak_rss_kib,
    })
}

fn load(me: &Path, url: &str, connections: usize, secs: f64) -> Result<Value, Failure> {
    let output = Command::new("taskset")
        .args(["-c", "1"])
        .arg(me)
        .args(["load", url, &connections.to_string(), &secs.to_string()])
        .stderr(Stdio::inherit())
        .output()?;
    if !output.status.success() {
        return Err(format!("the load generator failed on {url}").into());
    }
    Ok(serde_json::from_slice(&output.stdout)?)
}

/// The server's process, its MCP URL, and the app's config directory to remove after.
fn spawn(
    me: &Path,
    app: &Path,
    server: Server,
) -> Result<(Child, String, Option<TempDir>), Failure> {
    if server == Server::App {
        let dir = TempDir::new()?;
        let (mcp, ui) = (free_port()?, free_port()?);
        let child = Command::new("taskset")
            .args(["-c", "0"])
            .arg(app)
            .args(["--mcp-port", &mcp.to_string(), "--ui-port", &ui.to_string()])
            .arg("--config-dir")
            .arg(&dir.0)
            .stdout(Stdio::null())
            .stderr(Stdio::null())
            .stdin(Stdio::piped())
            .spawn()?;
        wait_for(mcp)?;
        return Ok((
            child,
            format!("http://127.0.0.1:{mcp}/s/echo/mcp"),
            Some(dir),
        ));
    }
    let kind = match server {
        Server::Fixture => "fixture",
        Server::RmcpStateless => "rmcp-stateless",
        Server::RmcpSse => "rmcp-sse",
        _ => "axum",
    };
    let mut child = Command::new("taskset")
        .args(["-c", "0"])
        .arg(me)
        .args(["serve", kind])
        .stdin(Stdio::piped())
        .stdout(Stdio::piped())
        .spawn()?;
    let mut line = String::new();
    BufReader::new(child.stdout.take().ok_or("no stdout")?).read_line(&mut line)?;
    if let Some(stdin) = child.stdin.as_mut() {
        let _ = stdin.flush();
    }
    Ok((child, line.trim().to_owned(), None))
}

fn free_port() -> Result<u16, Failure> {
    Ok(
        TcpListener::bind(SocketAddr::from((Ipv4Addr::LOCALHOST, 0)))?
            .local_addr()?
            .port(),
    )
}

fn wait_for(port: u16) -> Result<(), Failure> {
    let deadline = Instant::now() + Duration::from_secs(20);
    while Instant::now() < deadline {
        if TcpStream::connect((Ipv4Addr::LOCALHOST, port)).is_ok() {
            return Ok(());
        }
        std::thread::sleep(Duration::from_millis(20));
    }
    Err(format!("the app did not listen on {port}").into())
}

/// utime + stime of every thread of `pid`, in clock ticks (`/proc/PID/stat`).
fn cpu_ticks(pid: u32) -> Result<u64, Failure> {
    let stat = std::fs::read_to_string(format!("/proc/{pid}/stat"))?;
    let after_name = stat.rsplit_once(')').ok_or("bad stat")?.1;
    let fields: Vec<&str> = after_name.split_whitespace().collect();
    // Fields 14 and 15 of stat(5); the name ends at field 2, so they are at 11 and 12 here.
    Ok(fields[11].parse::<u64>()? + fields[12].parse::<u64>()?)
}

fn ticks_per_second() -> f64 {
    Command::new("getconf")
        .arg("CLK_TCK")
        .output()
        .ok()
        .and_then(|o| String::from_utf8(o.stdout).ok())
        .and_then(|s| s.trim().parse().ok())
        .unwrap_or(100.0)
}

/// A `/proc/PID/status` line in KiB.
pub fn status_kib(pid: u32, key: &str) -> Result<u64, Failure> {
    let status = std::fs::read_to_string(format!("/proc/{pid}/status"))?;
    let line = status
        .lines()
        .find(|l| l.starts_with(key))
        .ok_or("no such status line")?;
    Ok(line
        .split_whitespace()
        .nth(1)
        .ok_or("bad status line")?
        .parse()?)
}

/// A directory removed on drop.
struct TempDir(PathBuf);

impl TempDir {
    fn new() -> std::io::Result<TempDir> {
        let dir = std::env::temp_dir().join(format!(
            "mcp-decoy-peers-{}-{}",
            std::process::id(),
            Instant::now().elapsed().as_nanos() ^ free_port().unwrap_or(0) as u128
        ));
        std::fs::create_dir_all(&dir)?;
        Ok(TempDir(dir))
    }
}

impl Drop for TempDir {
    fn drop(&mut self) {
        let _ = std::fs::remove_dir_all(&self.0);
    }
}
