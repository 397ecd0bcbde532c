//! How long `server.log().transcript()` takes when a client sent many OAuth authorization
//! requests, each with a `state` and a PKCE challenge of its own (issue 43: every such value
//! becomes a placeholder, replaced wherever it appears). One row per request count, the
//! median of five transcripts of the same log.
//!
//! `cargo bench --bench transcript`; debug, as tests run it: `cargo bench --profile dev
//! --bench transcript`. `TRANSCRIPT_REQUESTS=1000,4000` sets the counts.

use std::time::{Duration, Instant};

use mcp_decoy::oauth::OAuth;
use mcp_decoy::{MockMcpServer, Tool};

const DEFAULT_REQUESTS: [usize; 3] = [1_000, 4_000, 9_000];

fn main() {
    let filter = std::env::args().skip(1).find(|a| !a.starts_with('-'));
    if filter.is_some_and(|f| !"transcript".contains(f.as_str())) {
        return;
    }
    let counts: Vec<usize> = match std::env::var("TRANSCRIPT_REQUESTS") {
        Ok(text) => text
            .split(',')
            .map(|n| {
                n.trim()
                    .parse()
                    .expect("TRANSCRIPT_REQUESTS: whole numbers")
            })
            .collect(),
        Err(_) => DEFAULT_REQUESTS.to_vec(),
    };
    let rt = tokio::runtime::Builder::new_current_thread()
        .enable_all()
        .build()
        .expect("a runtime");
    println!("| authorization requests | records | transcript (median of 5) |");
    println!("|---:|---:|---:|");
    for n in counts {
        rt.block_on(async {
            let server = MockMcpServer::builder()
                .tool(Tool::echo())
                .oauth(OAuth::new())
                .start()
                .await;
            let http = reqwest::Client::builder()
                .redirect(reqwest::redirect::Policy::none())
                .build()
                .expect("a client");
            let base = server.base_url();
            for i in 0..n {
                let url = format!(
                    "{base}/oauth/authorize?response_type=code&client_id=bench&state=state-{i:012}&code_challenge=challenge-{i:012}&code_challenge_method=S256"
                );
                let _ = http.get(url).send().await.expect("an answer").bytes().await;
            }
            let log = server.log();
            let mut times: Vec<Duration> = (0..5)
                .map(|_| {
                    let started = Instant::now();
                    let transcript = log.transcript();
                    let took = started.elapsed();
                    assert_eq!(transcript.entries().len(), log.records().len());
                    took
                })
                .collect();
            times.sort();
            println!("| {n} | {} | {:.1} ms |", log.records().len(), times[2].as_secs_f64() * 1000.0);
        });
    }
}
