//! `runtime.json`: one running instance per config directory. It records the process, and a
//! second instance reads it to say which one is running; a file left by a killed process is
//! detected (its pid is gone) and replaced.

use std::fs::{self, OpenOptions};
use std::io::Write;
use std::path::{Path, PathBuf};

use serde::{Deserialize, Serialize};

/// The file name in the config directory.
pub const RUNTIME_FILE: &str = "runtime.json";

/// What `runtime.json` holds.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "camelCase")]
pub struct RuntimeInfo {
    /// The process id.
    pub pid: u32,
    /// The version of the running app.
    pub version: String,
    /// When it started (RFC 3339).
    pub started_at: String,
    /// The REST API's base URL.
    pub api_url: String,
    /// The MCP URL of a server, with `{server}` for its name.
    pub mcp_url_pattern: String,
    /// The REST API's secret for this run: every API call sends it as
    /// `Authorization: Bearer`. The file is readable by its owner only.
    #[serde(default, skip_serializing_if = "String::is_empty")]
    pub api_token: String,
    /// Where `mcp-decoy stdio NAME` attaches to this app, so its traffic lands in the app's
    /// log; absent in files of older releases.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub stdio: Option<StdioAttach>,
}

/// The app's attach socket for stdio processes and the secret they must name.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "camelCase")]
pub struct StdioAttach {
    /// `127.0.0.1:PORT`.
    pub address: String,
    /// The token a bridge names; the file is readable by its owner only.
    pub token: String,
}

/// The app running with config directory `dir`, if one is (its file names a live process).
pub fn running(dir: &Path) -> Option<RuntimeInfo> {
    let text = fs::read_to_string(dir.join(RUNTIME_FILE)).ok()?;
    let info: RuntimeInfo = serde_json::from_str(&text).ok()?;
    alive(info.pid).then_some(info)
}

/// Another instance owns the directory.
#[derive(Debug, Clone)]
pub struct Running(pub RuntimeInfo);

/// Holds `runtime.json` while the app runs; `release` removes it.
#[derive(Debug)]
pub struct RuntimeLock {
    path: PathBuf,
}

impl RuntimeLock {
    /// Claims `dir` for this process, or says which live process has it.
    pub fn acquire(
        dir: &Path,
        info: &RuntimeInfo,
    ) -> std::io::Result<Result<RuntimeLock, Running>> {
        let path = dir.join(RUNTIME_FILE);
        for _ in 0..2 {
            // create_new: two instances starting together cannot both win.
            // Owner-only: the file holds the stdio attach token.
            let mut options = OpenOptions::new();
            options.write(true).create_new(true);
            #[cfg(unix)]
            std::os::unix::fs::OpenOptionsExt::mode(&mut options, 0o600);
            match options.open(&path) {
                Ok(mut file) => {
                    let text = serde_json::to_string_pretty(info).map_err(std::io::Error::other)?;
                    file.write_all(text.as_bytes())?;
                    file.sync_all()?;
                    return Ok(Ok(RuntimeLock { path }));
                }
                Err(error) if error.kind() == std::io::ErrorKind::AlreadyExists => {
                    let existing = fs::read_to_string(&path)
                        .ok()
                        .and_then(|text| serde_json::from_str::<RuntimeInfo>(&text).ok());
                    match existing {
                        Some(other) if other.pid != std::process::id() && alive(other.pid) => {
                            return Ok(Err(Running(other)));
                        }
                        // Stale (a killed process) or unreadable (a torn write): replace it.
                        _ => fs::remove_file(&path)?,
                    }
                }
                Err(error) => return Err(error),
            }
        }
        Err(std::io::Error::other(format!(
            "{} keeps reappearing; is another instance starting?",
            path.display()
        )))
    }

    /// Removes `runtime.json` (clean shutdown).
    pub fn release(self) {
        let _ = fs::remove_file(&self.path);
    }
}

/// Whether a process with this id exists: `/proc/<pid>` on Linux, else `ps -p <pid>` (macOS
/// and the BSDs have no `/proc`, and the crate forbids the `unsafe` a `kill(pid, 0)` needs).
/// When neither can tell, assume it does: refusing to start beats two instances sharing
/// one `servers.json`.
fn alive(pid: u32) -> bool {
    let proc = Path::new("/proc");
    if proc.join("self").exists() {
        return proc.join(pid.to_string()).exists();
    }
    alive_by_ps(pid).unwrap_or(true)
}

/// `ps -p <pid>` succeeds when the process exists; `None` when `ps` cannot run.
fn alive_by_ps(pid: u32) -> Option<bool> {
    std::process::Command::new("ps")
        .args(["-p", &pid.to_string()])
        .stdout(std::process::Stdio::null())
        .stderr(std::process::Stdio::null())
        .status()
        .ok()
        .map(|status| status.success())
}

#[cfg(test)]
mod tests {
    use super::*;

    fn info(pid: u32) -> RuntimeInfo {
        RuntimeInfo {
            pid,
            version: "0".into(),
            started_at: "now".into(),
            api_url: "http://localhost:6281/api/v1".into(),
            mcp_url_pattern: "http://localhost:6280/s/{server}/mcp".into(),
            api_token: String::new(),
            stdio: None,
        }
    }

    #[test]
    fn liveness_is_told_by_proc_and_by_ps_alike() {
        assert!(alive(std::process::id()));
        // Above the kernel's pid_max (at most 2^22), so no process has it.
        assert!(!alive(4_000_000_000));
        if let Some(own) = alive_by_ps(std::process::id()) {
            assert!(own);
            assert_eq!(alive_by_ps(4_000_000_000), Some(false));
        }
    }

    #[test]
    fn a_stale_file_is_replaced_and_a_live_one_refuses() {
        let dir = std::env::temp_dir().join(format!("mcp-decoy-runtime-{}", std::process::id()));
        fs::create_dir_all(&dir).expect("temp dir");
        let path = dir.join(RUNTIME_FILE);
        // A pid that cannot exist on Linux (above pid_max).
        fs::write(&path, serde_json::to_string(&info(u32::MAX)).expect("json")).expect("write");
        let lock = RuntimeLock::acquire(&dir, &info(std::process::id()))
            .expect("io")
            .expect("the stale file is replaced");
        // pid 1 is always alive.
        fs::write(&path, serde_json::to_string(&info(1)).expect("json")).expect("write");
        let refused = RuntimeLock::acquire(&dir, &info(std::process::id())).expect("io");
        assert!(matches!(refused, Err(Running(other)) if other.pid == 1));
        lock.release();
        assert!(!path.exists());
        let _ = fs::remove_dir_all(&dir);
    }
}
