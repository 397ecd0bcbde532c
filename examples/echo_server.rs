//! Serves the default `echo` tool until Ctrl+C or SIGTERM, for connecting a client by hand.
//!
//! The first line of standard output is the MCP URL, so scripts can read it:
//!
//! ```sh
//! cargo run --example echo_server            # a free port
//! cargo run --example echo_server -- 6280    # a fixed port
//! ```
//!
//! Every JSON-RPC message is summarised on standard error as it arrives.

use std::net::{Ipv4Addr, SocketAddr};
use std::time::Duration;

use mcp_decoy::{MockMcpServer, Tool};

#[tokio::main(flavor = "current_thread")]
async fn main() {
    let port = match std::env::args().nth(1) {
        None => 0,
        Some(arg) => match arg.parse::<u16>() {
            Ok(port) => port,
            Err(_) => {
                eprintln!(
                    "usage: echo_server [PORT]  (PORT must be a number from 0 to 65535, got `{arg}`)"
                );
                std::process::exit(2);
            }
        },
    };
    let server = match MockMcpServer::builder()
        .name("echo")
        .tool(Tool::echo())
        .bind(SocketAddr::from((Ipv4Addr::LOCALHOST, port)))
        .try_start()
        .await
    {
        Ok(server) => server,
        Err(error) => {
            eprintln!("echo_server: {error}");
            std::process::exit(1);
        }
    };
    println!("{}", server.url());
    eprintln!("Serving the `echo` tool. Press Ctrl+C to stop.");

    let printer = async {
        let mut seen = 0;
        loop {
            let log = server.log();
            for (record, message) in log.mcp().records() {
                if record.id > seen {
                    let method = message.method.as_deref().unwrap_or("(response)");
                    eprintln!("#{} {:?} {method}", record.id, message.direction);
                    seen = record.id;
                }
            }
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
        let mut term =
            match tokio::signal::unix::signal(tokio::signal::unix::SignalKind::terminate()) {
                Ok(term) => term,
                Err(_) => return std::future::pending().await,
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
