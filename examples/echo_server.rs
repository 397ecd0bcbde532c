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

mod common;

use std::net::{Ipv4Addr, SocketAddr};

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
    common::serve(server).await;
}
