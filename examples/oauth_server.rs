//! Serves the `echo` tool behind OAuth 2.1 until Ctrl+C or SIGTERM, for pointing an OAuth
//! client at it by hand. The server is its own authorization server and approves every
//! authorization at once (no browser step), so a client completes the whole flow alone:
//! discovery from the 401, registration, authorization, token exchange, then MCP calls.
//!
//! The first line of standard output is the MCP URL, so scripts can read it:
//!
//! ```sh
//! cargo run --example oauth_server            # a free port
//! cargo run --example oauth_server -- 6281    # a fixed port
//! ```
//!
//! Every JSON-RPC message is summarised on standard error as it arrives; the OAuth
//! requests are in the server's capture (with secrets masked).

mod common;

use std::net::{Ipv4Addr, SocketAddr};

use mcp_decoy::oauth::OAuth;
use mcp_decoy::{MockMcpServer, Tool};

#[tokio::main(flavor = "current_thread")]
async fn main() {
    let port = match std::env::args().nth(1) {
        None => 0,
        Some(arg) => match arg.parse::<u16>() {
            Ok(port) => port,
            Err(_) => {
                eprintln!(
                    "usage: oauth_server [PORT]  (PORT must be a number from 0 to 65535, got `{arg}`)"
                );
                std::process::exit(2);
            }
        },
    };
    let server = match MockMcpServer::builder()
        .name("echo")
        .tool(Tool::echo())
        .oauth(OAuth::new())
        .bind(SocketAddr::from((Ipv4Addr::LOCALHOST, port)))
        .try_start()
        .await
    {
        Ok(server) => server,
        Err(error) => {
            eprintln!("oauth_server: {error}");
            std::process::exit(1);
        }
    };
    eprintln!(
        "OAuth 2.1 with auto-approve; issuer {}, resource metadata {}/.well-known/oauth-protected-resource/mcp",
        server.oauth().issuer(),
        server.base_url()
    );
    common::serve(server).await;
}
