//! `startup-rounds N`: start → first `initialize` of every server in alternating rounds, a
//! fresh process per server per round (`startup KIND` with `PEERS_LIVES=300`), then the
//! median of the rounds' p50s and, per round, the fixture's time over wiremock's and over
//! bare axum's; the median CPU time per life of the caller's thread and of the servers' own
//! threads; and the median first life of a process (what a runner that starts a process
//! per test pays every test). A host whose speed drifts between runs (this one's moved by 1.5× within an
//! hour) moves every server of a round alike, so the per-round ratios hold where the
//! absolute figures do not.

use std::process::Command;

use serde_json::{Value, json};

use crate::client::Failure;
use crate::compare::median;

const KINDS: [&str; 4] = ["fixture", "wiremock", "rmcp-stateless", "axum"];
const LIVES: &str = "300";

pub fn run(rounds: usize) -> Result<(), Failure> {
    let me = std::env::current_exe()?;
    // Per kind: the rounds' p50s and `start()` p50s, in µs.
    let mut p50s = vec![Vec::new(); KINDS.len()];
    let mut starts = vec![Vec::new(); KINDS.len()];
    let mut firsts = vec![Vec::new(); KINDS.len()];
    // CPU per life: the caller's thread, and the servers' own threads (the fixture's pool,
    // wiremock's server threads; none for the servers on the caller's runtime).
    let mut callers = vec![Vec::new(); KINDS.len()];
    let mut others = vec![Vec::new(); KINDS.len()];
    for round in 0..rounds {
        for k in 0..KINDS.len() {
            // Each round starts one server later in the list, as `compare` does.
            let index = (k + round) % KINDS.len();
            let output = Command::new(&me)
                .args(["startup", KINDS[index]])
                .env("PEERS_LIVES", LIVES)
                .output()?;
            if !output.status.success() {
                return Err(format!(
                    "startup {} failed: {}",
                    KINDS[index],
                    String::from_utf8_lossy(&output.stderr)
                )
                .into());
            }
            let figures: Value = serde_json::from_slice(&output.stdout)?;
            let read = |key: &str| {
                figures[key]
                    .as_f64()
                    .ok_or_else(|| format!("startup {} printed no {key}", KINDS[index]))
            };
            p50s[index].push(read("p50_us")?);
            starts[index].push(read("start_alone_p50_us")?);
            firsts[index].push(read("first_life_us")?);
            callers[index].push(read("caller_cpu_per_life_us")?);
            others[index].push(read("other_threads_cpu_per_life_us")?);
        }
    }
    let ratio =
        |of: usize, to: usize| median(p50s[of].iter().zip(&p50s[to]).map(|(a, b)| a / b).collect());
    let summary: Vec<Value> = KINDS
        .iter()
        .enumerate()
        .map(|(k, kind)| {
            json!({
                "kind": kind,
                "p50_us": median(p50s[k].clone()),
                "p50_min_us": p50s[k].iter().copied().fold(f64::INFINITY, f64::min),
                "p50_max_us": p50s[k].iter().copied().fold(0.0, f64::max),
                "start_alone_us": median(starts[k].clone()),
                // The first life of each fresh process: lazy initialisation included.
                "first_life_us": median(firsts[k].clone()),
                "caller_cpu_per_life_us": median(callers[k].clone()),
                "other_threads_cpu_per_life_us": median(others[k].clone()),
            })
        })
        .collect();
    println!(
        "{}",
        json!({
            "rounds": rounds,
            "lives_per_round": LIVES,
            // Each process pinned to one core (`PEERS_ONE_CORE`, which the children inherit).
            "one_core": crate::one_core(),
            "servers": summary,
            "fixture_over_wiremock": ratio(0, 1),
            "fixture_over_axum": ratio(0, 3),
        })
    );
    Ok(())
}
