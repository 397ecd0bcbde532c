//! `idle KIND`: what idle servers cost the process that runs them, with their clients in
//! another process. `startup KIND` measures memory with its clients in its own process, so
//! its RSS per server also holds what the clients' connections left in malloc's arenas
//! (the same for every server); here only the servers' own allocations count.
//!
//! This process starts 1,000 servers on its current-thread runtime, hands their URLs to a
//! child (`initialize-urls`), which opens a connection to each, answers one `initialize`
//! on every one at once and closes them; once it exits and 500 ms have passed, the RSS and
//! heap gained, per server, are what 1,000 idle servers with one live session each hold.

use std::process::Stdio;
use std::time::Duration;

use futures::future::join_all;
use serde_json::json;
use tokio::io::{AsyncBufReadExt, AsyncWriteExt, BufReader};

use crate::client::{Connection, Failure};
use crate::compare::status_kib;
use crate::servers::{self, Kind};
use crate::startup::heap_bytes;

const SERVERS: usize = 1000;

pub async fn run(kind: Kind) -> Result<(), Failure> {
    // The first server of a process pays lazy initialisation; it is not what is measured.
    let first = servers::start(kind).await;
    Connection::open(&first.url())
        .await?
        .initialize_only()
        .await?;
    drop(first);
    tokio::time::sleep(Duration::from_millis(300)).await;
    let me = std::process::id();
    let (rss_before, heap_before) = (status_kib(me, "VmRSS:")?, heap_bytes());
    let running = join_all((0..SERVERS).map(|_| servers::start(kind))).await;
    let urls: String = running.iter().map(|s| s.url() + "\n").collect();
    let mut child = tokio::process::Command::new(std::env::current_exe()?)
        .arg("initialize-urls")
        .stdin(Stdio::piped())
        .stdout(Stdio::piped())
        .spawn()?;
    let mut stdin = child.stdin.take().ok_or("child stdin")?;
    stdin.write_all(urls.as_bytes()).await?;
    drop(stdin);
    let mut answered = String::new();
    let mut stdout = BufReader::new(child.stdout.take().ok_or("child stdout")?);
    stdout.read_line(&mut answered).await?;
    let status = child.wait().await?;
    if !status.success() || answered.trim() != SERVERS.to_string() {
        return Err(format!("the clients answered {answered:?} ({status})").into());
    }
    tokio::time::sleep(Duration::from_millis(500)).await;
    let (rss_after, heap_after) = (status_kib(me, "VmRSS:")?, heap_bytes());
    println!(
        "{}",
        json!({
            "kind": kind.name(),
            "rss_per_server_kib": (rss_after as f64 - rss_before as f64) / SERVERS as f64,
            "heap_per_server_kib": (heap_after as f64 - heap_before as f64) / SERVERS as f64 / 1024.0,
        })
    );
    if kind == Kind::Wiremock {
        // Its pooled servers' `Drop` blocks on `verify` when a thousand go at once.
        std::mem::forget(running);
    }
    Ok(())
}

/// The child: one `initialize` on every URL of stdin, all at once; prints how many.
pub async fn initialize_urls() -> Result<(), Failure> {
    let mut lines = BufReader::new(tokio::io::stdin()).lines();
    let mut urls = Vec::new();
    while let Some(line) = lines.next_line().await? {
        urls.push(line);
    }
    let answered = join_all(urls.iter().map(|url| async move {
        let mut connection = Connection::open(url).await?;
        connection.initialize_only().await?;
        Ok::<_, Failure>(())
    }))
    .await;
    let answered = answered.into_iter().collect::<Result<Vec<_>, _>>()?;
    println!("{}", answered.len());
    Ok(())
}
