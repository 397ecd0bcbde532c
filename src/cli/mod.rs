//! The standalone app `mcp-decoy` (feature `decoy-cli`): many named servers on one MCP
//! listener at `/s/NAME/mcp`, a REST API on a second, localhost-only listener, `servers.json`
//! written after every change. It drives the same engine as the library fixture and knows
//! nothing of the fixture. Behaviour follows `shared/product/mcp-decoy.md`.

pub mod api;
mod app;
mod auth;
pub mod check_client;
pub mod config;
mod options;
mod registry;
pub mod runtime_file;
pub mod skill;
pub mod stdio;
mod ui;

use std::future::Future;
use std::net::{IpAddr, Ipv4Addr, SocketAddr};
use std::path::PathBuf;
use std::sync::Arc;

pub use app::App;
pub use options::{
    CheckClientArgs, Command, MIN_LOG_LIMIT, Options, SkillAction, SkillArgs, StdioArgs,
    default_config_dir,
};

use crate::log::TrafficLog;
use config::ConfigError;
use registry::Registry;
use runtime_file::{RuntimeInfo, RuntimeLock};

/// Why the app could not start or stopped with an error.
#[derive(Debug, thiserror::Error)]
pub enum CliError {
    /// `servers.json` is unusable; every problem is listed.
    #[error(transparent)]
    Config(#[from] ConfigError),
    /// Another instance runs with this config directory.
    #[error(
        "MCP Decoy is already running with this config directory: {api_url} (pid {pid}). Stop it, or give this instance its own --config-dir and ports."
    )]
    AlreadyRunning {
        /// Its API URL.
        api_url: String,
        /// Its process id.
        pid: u32,
    },
    /// A port could not be bound.
    #[error("cannot listen on {addr}: {source}. Choose another port with {option}.")]
    Listen {
        /// The address.
        addr: SocketAddr,
        /// The option that sets it.
        option: &'static str,
        /// The OS error.
        source: std::io::Error,
    },
    /// A file of the config directory could not be used.
    #[error("{path}: {source}")]
    Io {
        /// The file or directory.
        path: PathBuf,
        /// The OS error.
        source: std::io::Error,
    },
    /// A server of `servers.json` could not be hosted.
    #[error(transparent)]
    Engine(#[from] crate::error::Error),
}

/// The host name URLs show for an address: `localhost` for loopback.
fn display_host(ip: IpAddr) -> String {
    match ip {
        ip if ip.is_loopback() => "localhost".into(),
        IpAddr::V6(v6) => format!("[{v6}]"),
        IpAddr::V4(v4) => v4.to_string(),
    }
}

/// The backlog of the app's listeners, as `tokio::net::TcpListener::bind` sets it.
const BACKLOG: u32 = 1024;

async fn bind(addr: SocketAddr, option: &'static str) -> Result<tokio::net::TcpListener, CliError> {
    crate::engine::bind(addr, BACKLOG)
        .map(|(listener, _)| listener)
        .map_err(|source| CliError::Listen {
            addr,
            option,
            source,
        })
}

/// Runs the app until `shutdown` completes: claims the config directory, loads (or
/// creates) `servers.json`, binds both listeners, prints the banner, serves, and removes
/// `runtime.json` on the way out.
pub async fn run(options: Options, shutdown: impl Future<Output = ()>) -> Result<(), CliError> {
    let dir = options.config_dir();
    config::create_private_dir(&dir).map_err(|source| CliError::Io {
        path: dir.clone(),
        source,
    })?;
    let ui_addr = SocketAddr::from((Ipv4Addr::LOCALHOST, options.ui_port));
    let mcp_addr = SocketAddr::new(options.host, options.mcp_port);
    let api_url = format!("http://localhost:{}/api/v1", options.ui_port);
    let mcp_base = format!("http://{}:{}", display_host(options.host), options.mcp_port);
    let registry = Arc::new(Registry::new(
        Arc::new(TrafficLog::new(options.log_limit, options.log_bytes)),
        options.limits(),
        mcp_addr,
    ));
    let attach = attach_socket(&registry).map_err(|source| CliError::Listen {
        addr: SocketAddr::from((Ipv4Addr::LOCALHOST, 0)),
        option: "(the stdio attach socket, on any free port)",
        source,
    })?;
    let api_token = crate::engine::hex_id();
    let info = RuntimeInfo {
        pid: std::process::id(),
        version: env!("CARGO_PKG_VERSION").into(),
        started_at: chrono::Utc::now().to_rfc3339(),
        api_url: api_url.clone(),
        mcp_url_pattern: format!("{mcp_base}/s/{{server}}/mcp"),
        api_token: api_token.clone(),
        stdio: Some(runtime_file::StdioAttach {
            address: attach.addr.to_string(),
            token: attach.token,
        }),
    };
    let lock = match RuntimeLock::acquire(&dir, &info) {
        Ok(Ok(lock)) => lock,
        Ok(Err(runtime_file::Running(other))) => {
            return Err(CliError::AlreadyRunning {
                api_url: other.api_url,
                pid: other.pid,
            });
        }
        Err(source) => {
            return Err(CliError::Io {
                path: dir.join(runtime_file::RUNTIME_FILE),
                source,
            });
        }
    };
    let result = serve(
        options, dir, registry, ui_addr, mcp_addr, mcp_base, api_url, api_token, shutdown,
    )
    .await;
    lock.release();
    result
}

/// The socket `mcp-decoy stdio NAME` attaches to, so a spawned process serves the app's
/// server `NAME` and its traffic lands in the app's log.
fn attach_socket(registry: &Arc<Registry>) -> std::io::Result<crate::engine::Attach> {
    let registry = registry.clone();
    crate::engine::listen_for_attach(
        &tokio::runtime::Handle::current(),
        // The app's socket lives as long as the app.
        &tokio_util::sync::CancellationToken::new(),
        Arc::new(move |name| {
            let Some(name) = name else {
                return Err("name a server: this app hosts several".into());
            };
            registry
                .get(name)
                .map(|hosted| hosted.engine)
                .ok_or_else(|| {
                    let names: Vec<String> = registry.all().into_iter().map(|(n, _)| n).collect();
                    format!(
                        "this app has no server named `{name}`; it has: {}",
                        names.join(", ")
                    )
                })
        }),
    )
}

#[allow(
    clippy::too_many_arguments,
    reason = "the pieces `run` prepared, in order"
)]
async fn serve(
    options: Options,
    dir: PathBuf,
    registry: Arc<Registry>,
    ui_addr: SocketAddr,
    mcp_addr: SocketAddr,
    mcp_base: String,
    api_url: String,
    api_token: String,
    shutdown: impl Future<Output = ()>,
) -> Result<(), CliError> {
    let config_path = dir.join(config::SERVERS_FILE);
    let config = config::load_or_create(&config_path)?;
    let mcp_listener = bind(mcp_addr, "--mcp-port").await?;
    let ui_listener = bind(ui_addr, "--ui-port").await?;

    let schema = config.schema.clone();
    for server in config.servers {
        registry.host(server, None)?;
    }
    let app = Arc::new(App::new(
        registry.clone(),
        config_path.clone(),
        options.ui_port,
        mcp_base.clone(),
        schema,
        api_token,
    ));

    print_banner(
        &api_url,
        options.ui_port,
        &config_path,
        &mcp_base,
        &registry,
    );

    let connections = crate::engine::Connections {
        header_read_timeout: options.header_timeout,
        idle_timeout: options.idle_timeout,
        max_connections: options.max_connections,
    };
    let (stop_tx, stop_rx) = tokio::sync::watch::channel(false);
    let stopped = |mut rx: tokio::sync::watch::Receiver<bool>| async move {
        let _ = rx.wait_for(|stop| *stop).await;
    };
    let mcp = crate::engine::serve(
        mcp_listener,
        registry::mcp_router(registry.clone()),
        connections,
        "--max-connections",
        stopped(stop_rx.clone()),
    );
    let ui = crate::engine::serve(
        ui_listener,
        api::router(app.clone()),
        connections,
        "--max-connections",
        stopped(stop_rx),
    );
    // The listeners serve until told to stop.
    let servers = async { tokio::join!(mcp, ui) };
    tokio::pin!(servers);
    tokio::select! {
        _ = &mut servers => {}
        () = shutdown => {
            // Long-lived streams would hold a graceful shutdown open: end the sessions first.
            for (_, hosted) in registry.all() {
                hosted.engine.end();
            }
            app.close_streams();
            let _ = stop_tx.send(true);
            // A connection that ignores the stop would hold the exit: give up on it, saying so.
            if tokio::time::timeout(std::time::Duration::from_secs(2), servers)
                .await
                .is_err()
            {
                eprintln!(
                    "mcp-decoy: connections were still open 2 s after the stop; closing them"
                );
            }
        }
    }
    Ok(())
}

fn print_banner(
    api_url: &str,
    ui_port: u16,
    config_path: &std::path::Path,
    mcp_base: &str,
    registry: &Registry,
) {
    let mut text = String::new();
    text.push_str(&format!("┌  MCP Decoy v{}\n│\n", env!("CARGO_PKG_VERSION")));
    text.push_str(&format!("◆  UI        http://localhost:{ui_port}\n│\n"));
    text.push_str(&format!("●  API       {api_url}\n│\n"));
    text.push_str(&format!("●  Config    {}\n│\n", config_path.display()));
    text.push_str("●  Servers\n");
    for (name, _) in registry.all() {
        text.push_str(&format!("│    {name}  {mcp_base}/s/{name}/mcp\n"));
    }
    text.push_str("│\n│  Press Ctrl+C to stop.\n");
    print!("{text}");
    use std::io::Write as _;
    let _ = std::io::stdout().flush();
}
