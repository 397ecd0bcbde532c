//! A server of `servers.json` served in this process, when no app runs with the config
//! directory: the same engine and line adapter as everywhere, on the real stdin and
//! stdout, with its log records appended to `--log-file` as JSON lines.

use std::collections::BTreeSet;
use std::io::Write;
use std::path::{Path, PathBuf};
use std::sync::Arc;

use super::process::{self, Process};
use crate::cli::config::{self, ConfigFile};
use crate::engine::{Engine, Pools, serve_lines};
use crate::log::{DEFAULT_LOG_BYTES, Direction, Entry, Record, RpcKind, TrafficLog, Transport};
use crate::spec::Limits;

/// Records kept in memory; the file holds them all (up to its own bound).
const LOG_LIMIT: usize = 10_000;

/// The most a `--log-file` grows by in one run; past it, writing stops with a note on stderr.
const MAX_LOG_FILE_BYTES: u64 = 256 * 1024 * 1024;

/// The log's records of this one server carry this source.
const SOURCE: u64 = 1;

pub(super) async fn run(name: &str, config_dir: &Path, log_file: Option<&Path>) -> i32 {
    let path = config_dir.join(config::SERVERS_FILE);
    let config = match config::load(&path) {
        Ok(Some(config)) => config,
        // A fresh machine: the servers the app would create.
        Ok(None) => ConfigFile::default(),
        Err(error) => {
            eprintln!("mcp-decoy stdio: {error}");
            return 1;
        }
    };
    let names: Vec<String> = config.servers.iter().map(|s| s.name.clone()).collect();
    let Some(spec) = config.servers.into_iter().find(|s| s.name == name) else {
        eprintln!(
            "mcp-decoy stdio: {} has no server named `{name}`; it has: {}",
            path.display(),
            if names.is_empty() {
                "none".to_string()
            } else {
                names.join(", ")
            }
        );
        return 1;
    };
    let file = match log_file.map(open_log).transpose() {
        Ok(file) => file,
        Err(error) => {
            eprintln!("mcp-decoy stdio: {error}");
            return 1;
        }
    };
    let log = Arc::new(TrafficLog::new(LOG_LIMIT, DEFAULT_LOG_BYTES));
    let limits = Limits::default();
    let pools = Pools::new(limits.max_retained_event_bytes, limits.max_task_bytes);
    let engine = match Engine::new(spec, limits, Vec::new(), log.clone(), pools, SOURCE) {
        Ok(engine) => engine,
        Err(error) => {
            eprintln!("mcp-decoy stdio: server `{name}`: {error}");
            return 1;
        }
    };
    if engine.spec().stdio.ignore_sigterm {
        process::ignore_sigterm();
    }
    let (done, finished) = tokio::sync::oneshot::channel();
    let writer = file.map(|(file, path)| {
        tokio::spawn(write_log(log.clone(), LogFile::new(file, path), finished))
    });
    serve_lines(engine, tokio::io::stdin(), Process::new(), Transport::Stdio).await;
    if let Some(writer) = writer {
        // The last records (the session's end) reach the file before the process exits.
        let _ = done.send(());
        let _ = writer.await;
    }
    0
}

fn open_log(path: &Path) -> Result<(std::fs::File, PathBuf), String> {
    std::fs::OpenOptions::new()
        .create(true)
        .append(true)
        .open(path)
        .map(|file| (file, path.to_path_buf()))
        .map_err(|error| format!("--log-file {}: {error}", path.display()))
}

/// The JSONL file and which records are in it already.
struct LogFile {
    file: Option<std::fs::File>,
    path: PathBuf,
    ids: BTreeSet<u64>,
    bytes: u64,
    since: u64,
}

impl LogFile {
    fn new(file: std::fs::File, path: PathBuf) -> Self {
        LogFile {
            file: Some(file),
            path,
            ids: BTreeSet::new(),
            bytes: 0,
            since: 0,
        }
    }

    /// Appends each record that completed since the last call (all that are left, when
    /// `last`), once.
    fn append(&mut self, log: &TrafficLog, last: bool) {
        let changes = log.changes_from(SOURCE, self.since, 0);
        self.since = changes.revision;
        for record in changes.records.iter().filter(|r| last || complete(r)) {
            if !self.ids.insert(record.id) {
                continue;
            }
            let Ok(mut line) = serde_json::to_vec(record) else {
                continue;
            };
            line.push(b'\n');
            self.write(&line);
        }
        // Ids this far below the newest have left the ring and cannot change again.
        let kept = changes.newest.saturating_sub(LOG_LIMIT as u64);
        self.ids = self.ids.split_off(&kept);
    }

    fn write(&mut self, line: &[u8]) {
        let Some(file) = self.file.as_mut() else {
            return;
        };
        self.bytes += line.len() as u64;
        let stop = if self.bytes > MAX_LOG_FILE_BYTES {
            Some(format!("it reached {MAX_LOG_FILE_BYTES} bytes in this run"))
        } else {
            file.write_all(line).err().map(|error| error.to_string())
        };
        if let Some(reason) = stop {
            eprintln!(
                "mcp-decoy stdio: {}: {reason}; no more records are written",
                self.path.display()
            );
            self.file = None;
        }
    }
}

/// A request's record is complete once it has its response or its end; every other record
/// is complete when pushed.
fn complete(record: &Record) -> bool {
    match &record.entry {
        Entry::Mcp(m) if m.kind == RpcKind::Request && m.direction == Direction::ClientToServer => {
            m.response.is_some() || m.duration_ms.is_some()
        }
        _ => true,
    }
}

async fn write_log(
    log: Arc<TrafficLog>,
    mut file: LogFile,
    mut finished: tokio::sync::oneshot::Receiver<()>,
) {
    let mut changed = log.subscribe();
    loop {
        file.append(&log, false);
        tokio::select! {
            changed = changed.changed() => if changed.is_err() { break },
            _ = &mut finished => break,
        }
    }
    file.append(&log, true);
}
