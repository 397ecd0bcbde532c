//! The real `mcp-decoy` binary as a child process, for the app's integration tests: free
//! ports, a scratch config directory, the banner read from stdout, and a guard that kills the
//! process when the test ends (also when it panics).

#![allow(
    dead_code,
    reason = "each test binary compiles this module and uses only part of it"
)]

use std::io::{BufRead, BufReader, Read};
use std::path::{Path, PathBuf};
use std::process::{Child, Command, ExitStatus, Stdio};
use std::sync::atomic::{AtomicUsize, Ordering};
use std::sync::mpsc;
use std::time::{Duration, Instant};

/// How long start-up, or an exit that should happen, may take before the test gives up.
pub const PATIENCE: Duration = Duration::from_secs(20);

/// The last line of the banner.
pub const READY: &str = "Press Ctrl+C to stop.";

/// A directory under the system temp dir, removed on drop.
#[derive(Debug)]
pub struct Scratch(PathBuf);

impl Scratch {
    /// A new, empty directory whose name says which test made it.
    pub fn new(name: &str) -> Scratch {
        static NEXT: AtomicUsize = AtomicUsize::new(0);
        let dir = std::env::temp_dir().join(format!(
            "mcp-decoy-{name}-{}-{}",
            std::process::id(),
            NEXT.fetch_add(1, Ordering::Relaxed)
        ));
        let _ = std::fs::remove_dir_all(&dir);
        std::fs::create_dir_all(&dir).expect("create the scratch directory");
        Scratch(dir)
    }

    /// Its path.
    pub fn path(&self) -> &Path {
        &self.0
    }
}

impl Drop for Scratch {
    fn drop(&mut self) {
        let _ = std::fs::remove_dir_all(&self.0);
    }
}

/// Two free ports: MCP and UI, never ones this process handed out before. A port is free
/// when picked and bound only when the child starts, so two tests running at once could
/// otherwise be given the same one (`Address already in use` in the second child).
pub fn free_ports() -> (u16, u16) {
    static GIVEN: std::sync::Mutex<Vec<u16>> = std::sync::Mutex::new(Vec::new());
    let mut given = GIVEN.lock().unwrap_or_else(|p| p.into_inner());
    let mut pick = |what: &str| loop {
        let port = portpicker::pick_unused_port().expect(what);
        if !given.contains(&port) {
            given.push(port);
            return port;
        }
    };
    let mcp = pick("a free port for --mcp-port");
    let ui = pick("a free port for --ui-port");
    (mcp, ui)
}

/// The binary with no arguments and a clean environment for the config directory rules.
pub fn command() -> Command {
    let mut command = Command::new(env!("CARGO_BIN_EXE_mcp-decoy"));
    command
        .env_remove("XDG_CONFIG_HOME")
        .stdin(Stdio::null())
        .stdout(Stdio::piped())
        .stderr(Stdio::piped());
    command
}

/// Writes `servers.json` in `dir` with these `servers` (a JSON array).
pub fn write_servers(dir: &Path, servers: serde_json::Value) {
    let file = serde_json::json!({ "servers": servers });
    std::fs::write(dir.join("servers.json"), file.to_string()).expect("write servers.json");
}

/// A `servers.json` with server `loud`, whose tool `shout` logs before echoing `message`:
/// each call answers on an event stream the session keeps for resumption.
pub const SHOUT_SERVERS: &str = r#"{"servers": [{"name": "loud", "tools": [{"name": "shout",
  "script": [{"step": "log", "level": "info", "data": "shouting"}],
  "template": {"content": [{"type": "text", "text": "${args.message}"}]}}]}]}"#;

/// The binary with `--config-dir DIR --mcp-port M --ui-port U`.
pub fn command_in(dir: &Path, mcp_port: u16, ui_port: u16) -> Command {
    let mut command = command();
    command
        .arg("--config-dir")
        .arg(dir)
        .args(["--mcp-port", &mcp_port.to_string()])
        .args(["--ui-port", &ui_port.to_string()]);
    command
}

/// What a process that exited printed.
#[derive(Debug)]
pub struct Exited {
    /// Its exit status.
    pub status: ExitStatus,
    /// Everything on stdout.
    pub stdout: String,
    /// Everything on stderr.
    pub stderr: String,
}

/// Runs `command` to its exit, failing the test if it takes longer than [`PATIENCE`] (an
/// app that should have refused to start but serves instead).
pub fn run_to_exit(mut command: Command) -> Exited {
    let mut child = command.spawn().expect("spawn mcp-decoy");
    let stdout = drain(child.stdout.take().expect("piped stdout"));
    let stderr = drain(child.stderr.take().expect("piped stderr"));
    let Some(status) = wait_for_exit(&mut child) else {
        let _ = child.kill();
        let _ = child.wait();
        panic!(
            "mcp-decoy did not exit within {PATIENCE:?}; it printed:\n{}",
            stdout.join().unwrap_or_default()
        )
    };
    Exited {
        status,
        stdout: stdout.join().unwrap_or_default(),
        stderr: stderr.join().unwrap_or_default(),
    }
}

fn drain(mut pipe: impl Read + Send + 'static) -> std::thread::JoinHandle<String> {
    std::thread::spawn(move || {
        let mut text = String::new();
        let _ = pipe.read_to_string(&mut text);
        text
    })
}

/// Waits up to [`PATIENCE`] for `child` to exit.
pub fn wait_for_exit(child: &mut Child) -> Option<ExitStatus> {
    let deadline = Instant::now() + PATIENCE;
    while Instant::now() < deadline {
        if let Some(status) = child.try_wait().expect("poll the child") {
            return Some(status);
        }
        std::thread::sleep(Duration::from_millis(10));
    }
    None
}

/// `apiToken` of the `runtime.json` beside the `servers.json` the banner's `Config` line names.
fn api_token_of(banner: &str) -> String {
    let config = banner
        .lines()
        .find_map(|line| line.split_once("Config").map(|(_, rest)| rest.trim()))
        .unwrap_or_else(|| panic!("no Config line in the banner:\n{banner}"));
    let runtime = Path::new(config).with_file_name("runtime.json");
    let text =
        std::fs::read_to_string(&runtime).unwrap_or_else(|e| panic!("{}: {e}", runtime.display()));
    let info: serde_json::Value = serde_json::from_str(&text).expect("runtime.json is JSON");
    info["apiToken"]
        .as_str()
        .unwrap_or_else(|| panic!("no apiToken in {text}"))
        .to_string()
}

/// A running `mcp-decoy`, killed on drop.
#[derive(Debug)]
pub struct Running {
    child: Child,
    /// The banner, up to and including [`READY`].
    pub banner: String,
    /// Its MCP port.
    pub mcp_port: u16,
    /// Its UI port.
    pub ui_port: u16,
    /// The REST API's secret for this run, from `runtime.json` beside the `servers.json` the
    /// banner names.
    pub api_token: String,
    stderr: Option<std::thread::JoinHandle<String>>,
}

impl Running {
    /// Starts the binary in `dir` on two free ports and waits for the banner.
    pub fn start(dir: &Path) -> Running {
        let (mcp_port, ui_port) = free_ports();
        Running::spawn(command_in(dir, mcp_port, ui_port), mcp_port, ui_port)
    }

    /// Spawns `command` (which must listen on these ports) and waits for the banner; panics
    /// with what the process printed if it exits first or is silent for too long.
    pub fn spawn(mut command: Command, mcp_port: u16, ui_port: u16) -> Running {
        let mut child = command.spawn().expect("spawn mcp-decoy");
        let stdout = child.stdout.take().expect("piped stdout");
        let stderr = drain(child.stderr.take().expect("piped stderr"));
        let (tx, rx) = mpsc::channel();
        std::thread::spawn(move || {
            for line in BufReader::new(stdout).lines() {
                let Ok(line) = line else { break };
                if tx.send(line).is_err() {
                    break;
                }
            }
        });
        let mut banner = String::new();
        let deadline = Instant::now() + PATIENCE;
        loop {
            let left = deadline.saturating_duration_since(Instant::now());
            match rx.recv_timeout(left) {
                Ok(line) => {
                    banner.push_str(&line);
                    banner.push('\n');
                    if line.contains(READY) {
                        break;
                    }
                }
                Err(_) => {
                    let _ = child.kill();
                    let _ = child.wait();
                    let stderr = stderr.join().unwrap_or_default();
                    panic!("mcp-decoy printed no banner; stdout:\n{banner}\nstderr:\n{stderr}");
                }
            }
        }
        let api_token = api_token_of(&banner);
        Running {
            child,
            banner,
            mcp_port,
            ui_port,
            api_token,
            stderr: Some(stderr),
        }
    }

    /// An HTTP client that names this run's API secret on every request.
    pub fn api_client(&self) -> reqwest::Client {
        let mut headers = reqwest::header::HeaderMap::new();
        let bearer = format!("Bearer {}", self.api_token);
        headers.insert(
            reqwest::header::AUTHORIZATION,
            bearer.parse().expect("a header value"),
        );
        reqwest::Client::builder()
            .default_headers(headers)
            .build()
            .expect("a reqwest client")
    }

    /// The process id.
    pub fn pid(&self) -> u32 {
        self.child.id()
    }

    /// `http://localhost:UI/api/v1`.
    pub fn api(&self) -> String {
        format!("http://localhost:{}/api/v1", self.ui_port)
    }

    /// `http://localhost:MCP/s/NAME/mcp`.
    pub fn mcp_url(&self, server: &str) -> String {
        format!("http://localhost:{}/s/{server}/mcp", self.mcp_port)
    }

    /// Sends `signal` (`TERM`, `INT`, `KILL`) with the `kill` command.
    pub fn signal(&self, signal: &str) {
        let status = Command::new("kill")
            .arg(format!("-{signal}"))
            .arg(self.pid().to_string())
            .status()
            .expect("run kill");
        assert!(status.success(), "kill -{signal} {} failed", self.pid());
    }

    /// Waits for the process to exit; returns its status and stderr.
    pub fn wait(mut self) -> (ExitStatus, String) {
        let status = wait_for_exit(&mut self.child)
            .unwrap_or_else(|| panic!("mcp-decoy did not exit within {PATIENCE:?}"));
        let stderr = self
            .stderr
            .take()
            .and_then(|h| h.join().ok())
            .unwrap_or_default();
        (status, stderr)
    }
}

impl Drop for Running {
    fn drop(&mut self) {
        let _ = self.child.kill();
        let _ = self.child.wait();
    }
}
