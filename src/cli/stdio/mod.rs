//! `mcp-decoy stdio`: one server as a process on stdin and stdout, for clients that spawn
//! their servers (Claude Desktop, Cursor, VS Code, every SDK's stdio client).
//!
//! - `mcp-decoy stdio --attach ADDR` with the token in `MCP_DECOY_ATTACH_TOKEN`: the bridge
//!   the app's build of the program a test fixture's `stdio_command` runs (the engine's
//!   `attach/bridge.rs`); the fixture serves, this process only plays its output.
//! - `mcp-decoy stdio NAME`: when an app runs with the config directory, the same bridge to
//!   the app's server `NAME`, so the traffic shows in the app's logs, UI and log stream;
//!   otherwise the server of `servers.json` served in this process (`local.rs`), its log in
//!   `--log-file`.
//!
//! stdout carries JSON-RPC lines only; every message of this command goes to stderr.

mod local;
mod process;

use std::path::Path;

use super::StdioArgs;
use super::runtime_file;

use crate::engine::ATTACH_TOKEN_ENV;
use crate::engine::bridge::{self, Failed};

/// Runs the bridge (blocking reads of stdin and the socket) off the async workers.
async fn bridge(
    addr: std::net::SocketAddr,
    token: String,
    server: Option<String>,
) -> Result<i32, Failed> {
    tokio::task::spawn_blocking(move || {
        bridge::run(addr, &token, server.as_deref(), process::ignore_sigterm)
    })
    .await
    .unwrap_or(Ok(1))
}

/// Runs the command and returns the process's exit status.
pub async fn run(args: &StdioArgs, config_dir: &Path) -> i32 {
    if let Some(addr) = args.attach {
        let from_file = match &args.token_file {
            None => None,
            Some(path) => match crate::file::read_regular(path, 4096)
                .map_err(std::io::Error::from)
                .and_then(|text| bridge::token_in(&text))
            {
                Ok(token) => Some(token),
                Err(error) => {
                    eprintln!("mcp-decoy stdio: --token-file {}: {error}", path.display());
                    return 2;
                }
            },
        };
        let token = args.token.clone().or(from_file).or_else(|| {
            std::env::var(ATTACH_TOKEN_ENV)
                .ok()
                .filter(|t| !t.is_empty())
        });
        let Some(token) = token else {
            eprintln!(
                "mcp-decoy stdio: --attach needs the attach socket's token in {ATTACH_TOKEN_ENV}"
            );
            return 2;
        };
        return bridge(addr, token, None).await.unwrap_or_else(|error| {
            eprintln!("mcp-decoy stdio: {error}");
            1
        });
    }
    let Some(name) = args.name.as_deref() else {
        eprintln!("mcp-decoy stdio: name the server to serve, e.g. `mcp-decoy stdio echo`");
        return 2;
    };
    if let Some(app) = runtime_file::running(config_dir)
        && let Some(stdio) = app.stdio
    {
        match stdio.address.parse() {
            Ok(addr) => match bridge(addr, stdio.token.clone(), Some(name.to_string())).await {
                Ok(code) => return code,
                Err(Failed::Refused(reason)) => {
                    eprintln!(
                        "mcp-decoy stdio: the app (pid {}) refused: {reason}",
                        app.pid
                    );
                    return 1;
                }
                Err(error) => eprintln!(
                    "mcp-decoy stdio: the app (pid {}) is not reachable ({error}); serving from servers.json instead",
                    app.pid
                ),
            },
            Err(_) => eprintln!(
                "mcp-decoy stdio: runtime.json names `{}`, which is not an address; serving from servers.json instead",
                stdio.address
            ),
        }
    }
    local::run(name, config_dir, args.log_file.as_deref()).await
}
