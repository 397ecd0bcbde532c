//! What the serving examples share: wait for Ctrl+C or SIGTERM, and summarise traffic on
//! standard error while serving.

use std::time::Duration;

use mcp_decoy::MockMcpServer;

/// Prints the MCP URL as the first line of standard output (so scripts can read it), then
/// summarises each JSON-RPC message on standard error until Ctrl+C or SIGTERM.
pub async fn serve(server: MockMcpServer) {
    println!("{}", server.url());
    eprintln!(
        "Serving {} tool(s). Press Ctrl+C to stop.",
        server.tools().len()
    );
    let printer = async {
        let mut seen = 0;
        loop {
            let log = server.log();
            for (record, message) in log.mcp().records() {
                if record.id > seen {
                    let method = message.method.as_deref().unwrap_or("(response)");
                    eprintln!("#{} {:?} {method}", record.id, message.direction);
                }
            }
            // Every record counts as seen, `http` ones too: waiting for a record newer than
            // the last `mcp` one would return at once after a stream's end record and spin,
            // starving the shutdown signal.
            seen = log.records().iter().map(|r| r.id).max().unwrap_or(seen);
            let _ = server
                .wait_for(
                    |log| log.records().iter().any(|r| r.id > seen),
                    Duration::from_secs(3600),
                )
                .await;
        }
    };
    tokio::select! {
        () = printer => {}
        () = shutdown_signal() => {}
    }
    server.shutdown().await;
}

async fn shutdown_signal() {
    #[cfg(unix)]
    {
        use tokio::signal::unix::{SignalKind, signal};
        let Ok(mut term) = signal(SignalKind::terminate()) else {
            let _ = tokio::signal::ctrl_c().await;
            return;
        };
        tokio::select! {
            _ = tokio::signal::ctrl_c() => {}
            _ = term.recv() => {}
        }
    }
    #[cfg(not(unix))]
    {
        let _ = tokio::signal::ctrl_c().await;
    }
}
