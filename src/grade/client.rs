//! A client under test run as the conformance suite runs one: its command with the server URL
//! appended as the last argument and the suite's variables in its environment, bounded in
//! time and output, its whole process tree ended when it is done.

use std::ffi::OsString;
use std::io::Read;
use std::process::{Command, Stdio};
use std::sync::{Arc, Mutex};
use std::time::{Duration, Instant};

use serde::Serialize;

/// How much of each of the client's stdout and stderr a report keeps; the rest is read and
/// dropped, so a client that floods its output neither blocks nor fills memory.
const MAX_OUTPUT: usize = 1024 * 1024;

/// The suite's default time for one client run.
const DEFAULT_TIMEOUT: Duration = Duration::from_secs(30);

/// The client program to grade: run as `program args… URL`, as the suite runs a client.
#[derive(Debug, Clone)]
pub struct ClientCommand {
    program: OsString,
    args: Vec<OsString>,
    timeout: Duration,
    transport: crate::log::Transport,
    server_program: Option<OsString>,
}

impl ClientCommand {
    /// The client `program`, run with no arguments but the server URL.
    pub fn new(program: impl Into<OsString>) -> Self {
        ClientCommand {
            program: program.into(),
            args: Vec::new(),
            timeout: DEFAULT_TIMEOUT,
            transport: crate::log::Transport::Http,
            server_program: None,
        }
    }

    /// Over stdio, the program the server's command runs (`mcp-decoy` itself, whose
    /// `stdio --attach` serves the scenario), instead of the bridge this crate's build
    /// compiled ([`MockMcpServer::stdio_command`](crate::MockMcpServer::stdio_command)).
    pub fn stdio_server_program(mut self, program: impl Into<OsString>) -> Self {
        self.server_program = Some(program.into());
        self
    }

    pub(super) fn server_program(&self) -> Option<&std::ffi::OsStr> {
        self.server_program.as_deref()
    }

    /// How the client reaches the server (default [`Transport::Http`](crate::log::Transport::Http),
    /// the URL as its last argument); [`Transport::Stdio`](crate::log::Transport::Stdio) hands it
    /// the server's command instead, which it spawns.
    pub fn transport(mut self, transport: crate::log::Transport) -> Self {
        self.transport = transport;
        self
    }

    /// The transport it is graded over.
    pub fn transport_used(&self) -> crate::log::Transport {
        self.transport
    }

    /// An argument before the server URL.
    pub fn arg(mut self, arg: impl Into<OsString>) -> Self {
        self.args.push(arg.into());
        self
    }

    /// Arguments before the server URL.
    pub fn args<I: IntoIterator<Item = A>, A: Into<OsString>>(mut self, args: I) -> Self {
        self.args.extend(args.into_iter().map(Into::into));
        self
    }

    /// How long the client may run (default 30 s, as the suite's); then it and every process
    /// it started are killed and the scenario fails.
    pub fn timeout(mut self, timeout: Duration) -> Self {
        self.timeout = timeout;
        self
    }

    /// The command line, for reports.
    pub fn display(&self) -> String {
        std::iter::once(&self.program)
            .chain(&self.args)
            .map(|a| a.to_string_lossy().into_owned())
            .collect::<Vec<_>>()
            .join(" ")
    }

    /// Runs the client with `target` (the URL, or the server's command line) as its last
    /// argument and `env`, and waits for it, at most the timeout.
    pub(super) fn run(&self, target: &str, env: &[(&'static str, String)]) -> ClientRun {
        let started = Instant::now();
        let mut command = Command::new(&self.program);
        command
            .args(&self.args)
            .arg(target)
            .envs(env.iter().map(|(k, v)| (*k, v.as_str())))
            .stdin(Stdio::null())
            .stdout(Stdio::piped())
            .stderr(Stdio::piped());
        #[cfg(unix)]
        {
            use std::os::unix::process::CommandExt;
            // Its own process group, so everything it starts can be ended with it.
            command.process_group(0);
        }
        let mut child = match command.spawn() {
            Ok(child) => child,
            Err(error) => {
                return ClientRun {
                    failure: Some(format!("could not start `{}`: {error}", self.display())),
                    ..ClientRun::default()
                };
            }
        };
        let stdout = capture(child.stdout.take());
        let stderr = capture(child.stderr.take());
        let mut run = ClientRun::default();
        loop {
            match child.try_wait() {
                Ok(Some(status)) => {
                    run.exit_code = status.code();
                    break;
                }
                Ok(None) if started.elapsed() >= self.timeout => {
                    run.timed_out = true;
                    break;
                }
                Ok(None) => std::thread::sleep(Duration::from_millis(10)),
                Err(error) => {
                    run.failure = Some(format!("could not wait for the client: {error}"));
                    break;
                }
            }
        }
        // Whatever the client left running ends with it; what was ending as it exited (a
        // helper reading the client's stdin to its end) gets a moment to go by itself.
        let grace = if run.timed_out {
            Duration::ZERO
        } else {
            EXIT_GRACE
        };
        run.left_processes = end_group(child.id(), grace) && !run.timed_out;
        let _ = child.kill();
        let _ = child.wait();
        run.duration_ms = started.elapsed().as_secs_f64() * 1000.0;
        (run.stdout, run.stdout_cut) = take(&stdout);
        (run.stderr, run.stderr_cut) = take(&stderr);
        run
    }
}

type Captured = Arc<Mutex<(Vec<u8>, bool)>>;

/// Reads a pipe to its end on a thread of its own, keeping the first [`MAX_OUTPUT`] bytes.
fn capture(
    pipe: Option<impl Read + Send + 'static>,
) -> (Captured, Option<std::thread::JoinHandle<()>>) {
    let kept: Captured = Arc::default();
    let Some(mut pipe) = pipe else {
        return (kept, None);
    };
    let into = kept.clone();
    let reader = std::thread::spawn(move || {
        let mut chunk = [0u8; 16 * 1024];
        while let Ok(n) = pipe.read(&mut chunk) {
            if n == 0 {
                return;
            }
            let mut kept = into.lock().unwrap_or_else(|p| p.into_inner());
            let room = MAX_OUTPUT.saturating_sub(kept.0.len());
            kept.0.extend_from_slice(&chunk[..n.min(room)]);
            kept.1 |= n > room;
        }
    });
    (kept, Some(reader))
}

/// The text a pipe gave, once its reader is done (the group is ended, so it ends).
fn take(captured: &(Captured, Option<std::thread::JoinHandle<()>>)) -> (String, bool) {
    if let Some(reader) = &captured.1 {
        // A descendant outside the group may hold the pipe; do not wait for it forever.
        let deadline = Instant::now() + Duration::from_secs(2);
        while !reader.is_finished() && Instant::now() < deadline {
            std::thread::sleep(Duration::from_millis(5));
        }
    }
    let kept = captured.0.lock().unwrap_or_else(|p| p.into_inner());
    (String::from_utf8_lossy(&kept.0).into_owned(), kept.1)
}

/// How long the client's processes may take to end after it exits before they count as
/// left running (tsx's esbuild service, say, ends on its own once its parent is gone).
const EXIT_GRACE: Duration = Duration::from_millis(500);

/// Kills every process of the client's group still there after `grace`; whether any was.
#[cfg(unix)]
fn end_group(pid: u32, grace: Duration) -> bool {
    let group = format!("-{pid}");
    let signal = |signal: &str| {
        Command::new("kill")
            .args([signal, "--", &group])
            .stderr(Stdio::null())
            .status()
            .is_ok_and(|s| s.success())
    };
    let running = || group_running(pid).unwrap_or_else(|| signal("-0"));
    let deadline = Instant::now() + grace;
    let mut alive = running();
    while alive && Instant::now() < deadline {
        std::thread::sleep(Duration::from_millis(25));
        alive = running();
    }
    if alive {
        signal("-KILL");
    }
    alive
}

/// Whether a process of group `pid` is running, not a zombie (one that ended and that no
/// parent reaped yet, as in a container whose init does not reap): from `/proc`, where
/// there is one.
#[cfg(unix)]
fn group_running(pid: u32) -> Option<bool> {
    let entries = std::fs::read_dir("/proc").ok()?;
    let group = pid.to_string();
    Some(entries.flatten().any(|entry| {
        let Ok(stat) = std::fs::read_to_string(entry.path().join("stat")) else {
            return false;
        };
        // `pid (comm) state ppid pgrp …`; `comm` may hold spaces and parentheses.
        let Some((_, rest)) = stat.rsplit_once(')') else {
            return false;
        };
        let mut fields = rest.split_whitespace();
        let state = fields.next();
        let pgrp = fields.nth(1);
        pgrp == Some(group.as_str()) && !matches!(state, Some("Z" | "X"))
    }))
}

#[cfg(not(unix))]
fn end_group(_pid: u32, _grace: Duration) -> bool {
    false
}

/// How the client's run went.
#[derive(Debug, Clone, Default, PartialEq, Serialize)]
#[serde(rename_all = "camelCase")]
#[non_exhaustive]
pub struct ClientRun {
    /// Its exit status; `None` when it was killed (a timeout, a signal).
    pub exit_code: Option<i32>,
    /// It ran past its timeout and was killed.
    pub timed_out: bool,
    /// It exited but left processes of its own running (they were killed).
    pub left_processes: bool,
    /// It could not be started or waited for, and why.
    pub failure: Option<String>,
    /// Milliseconds from start to its end.
    pub duration_ms: f64,
    /// Its standard output (the first MiB).
    pub stdout: String,
    /// Its standard output was longer.
    pub stdout_cut: bool,
    /// Its standard error (the first MiB).
    pub stderr: String,
    /// Its standard error was longer.
    pub stderr_cut: bool,
}

impl ClientRun {
    /// Why the run fails its scenario whatever the checks say, if it does: it could not
    /// start, timed out, left processes, or exited with an error (unless the scenario
    /// expects the client to refuse, `allow_error`).
    pub fn problem(&self, allow_error: bool) -> Option<String> {
        if let Some(failure) = &self.failure {
            return Some(failure.clone());
        }
        if self.timed_out {
            return Some(format!(
                "the client timed out after {:.0} ms and was killed",
                self.duration_ms
            ));
        }
        if self.left_processes {
            return Some("the client exited but left processes running (they were killed)".into());
        }
        match self.exit_code {
            Some(0) => None,
            _ if allow_error => None,
            Some(code) => Some(format!("the client exited with status {code}")),
            None => Some("the client was killed by a signal".into()),
        }
    }
}
