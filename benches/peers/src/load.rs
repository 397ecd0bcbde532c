//! The load generator: `C` connections, one session each, calling `tools/call echo` back to
//! back. Run it on its own core (`taskset -c 1`); it prints one JSON line of figures.

use std::sync::Arc;
use std::sync::atomic::{AtomicBool, Ordering};
use std::time::{Duration, Instant};

use serde_json::json;

use crate::client::{Connection, Failure};

/// What one load run measured.
pub struct Figures {
    pub requests: u64,
    pub secs: f64,
    pub p50_us: f64,
}

/// `connections` sessions on `url`, warmed for half a second, then measured for `secs`.
pub async fn run(url: &str, connections: usize, secs: f64) -> Result<Figures, Failure> {
    let measuring = Arc::new(AtomicBool::new(false));
    let stop = Arc::new(AtomicBool::new(false));
    let mut workers = Vec::new();
    for _ in 0..connections {
        let mut connection = Connection::open(url).await?;
        connection.initialize().await?;
        let (measuring, stop) = (measuring.clone(), stop.clone());
        workers.push(tokio::spawn(async move {
            let mut latencies = Vec::with_capacity(1 << 16);
            while !stop.load(Ordering::Relaxed) {
                let started = Instant::now();
                let text = connection.call().await?;
                if text != "hello" {
                    return Err(format!("echo answered {text:?}").into());
                }
                if measuring.load(Ordering::Relaxed) && !stop.load(Ordering::Relaxed) {
                    latencies.push(started.elapsed().as_nanos() as u64);
                }
            }
            Ok::<_, Failure>(latencies)
        }));
    }
    tokio::time::sleep(Duration::from_millis(500)).await;
    measuring.store(true, Ordering::Relaxed);
    let started = Instant::now();
    tokio::time::sleep(Duration::from_secs_f64(secs)).await;
    stop.store(true, Ordering::Relaxed);
    let secs = started.elapsed().as_secs_f64();
    let mut all = Vec::new();
    for worker in workers {
        all.extend(worker.await??);
    }
    all.sort_unstable();
    let p50_us = all.get(all.len() / 2).copied().unwrap_or_default() as f64 / 1000.0;
    Ok(Figures {
        requests: all.len() as u64,
        secs,
        p50_us,
    })
}

pub fn print(figures: &Figures) {
    println!(
        "{}",
        json!({"requests": figures.requests, "secs": figures.secs, "p50_us": figures.p50_us})
    );
}
