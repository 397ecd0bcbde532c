//! Command-line options, exactly as the product guide's table (`mcp-decoy.md`, "Options").

use std::net::IpAddr;
use std::path::PathBuf;
use std::time::Duration;

use clap::{ArgAction, Args, Parser, Subcommand};

/// The smallest `--log-limit` accepted.
pub const MIN_LOG_LIMIT: usize = 100;
/// The smallest `--log-bytes` accepted: 1 MiB.
const MIN_LOG_BYTES: usize = crate::log::MIN_LOG_BYTES;

/// MCP Decoy hosts mock MCP servers for debugging MCP clients.
#[derive(Debug, Clone, Parser)]
#[command(name = "mcp-decoy", version, disable_version_flag = true)]
pub struct Options {
    /// Port of the MCP listener.
    #[arg(long, value_name = "port", default_value_t = 6280)]
    pub mcp_port: u16,
    /// Port of the UI and API listener.
    #[arg(long, value_name = "port", default_value_t = 6281)]
    pub ui_port: u16,
    /// Bind address of the MCP listener. The UI listener always binds 127.0.0.1.
    #[arg(long, value_name = "address", default_value = "127.0.0.1")]
    pub host: IpAddr,
    /// Config directory, which holds servers.json and runtime.json. MCP Decoy creates it if
    /// needed [default: $XDG_CONFIG_HOME/mcp-decoy or ~/.config/mcp-decoy]
    #[arg(long, value_name = "path", global = true)]
    pub config_dir: Option<PathBuf>,
    /// Log records kept in memory, across all servers. The minimum is 100.
    #[arg(long, value_name = "n", default_value_t = 10_000, value_parser = parse_log_limit)]
    pub log_limit: usize,
    /// Seconds a client may take to send a request's headers, from when it connects or
    /// starts its next request, and again its body, from when the server waits for it;
    /// then its connection is closed. Both listeners.
    #[arg(long, value_name = "secs", default_value = "10", value_parser = parse_seconds)]
    pub header_timeout: Duration,
    /// Seconds a kept-alive connection may wait for its next request; then it is closed.
    /// Open event streams are not affected. Both listeners.
    #[arg(long, value_name = "secs", default_value = "60", value_parser = parse_seconds)]
    pub idle_timeout: Duration,
    /// Connections open at once on each listener; past it a new one is answered 503 and
    /// closed.
    #[arg(long, value_name = "n", default_value_t = 1024, value_parser = parse_max_connections)]
    pub max_connections: usize,
    /// Bytes of memory the log's records may take, across all servers: a number of bytes,
    /// or with a suffix `KiB`, `MiB` or `GiB`. The minimum is 1MiB. Bodies over 8 KiB are
    /// kept cut, marked `truncated`.
    #[arg(long, value_name = "bytes", default_value = "256MiB", value_parser = parse_log_bytes)]
    pub log_bytes: usize,
    /// Bytes of events the sessions of all servers keep together for resumption with
    /// Last-Event-ID; past it the oldest are evicted (a resume that would skip one gets 410).
    /// Same units as --log-bytes; the minimum is 1MiB.
    #[arg(long, value_name = "bytes", default_value = "64MiB", value_parser = parse_log_bytes)]
    pub retained_event_bytes: usize,
    /// Bytes of finished tasks (results, arguments) all servers keep together; past it the
    /// oldest finished tasks are forgotten. Same units as --log-bytes; the minimum is 1MiB.
    #[arg(long, value_name = "bytes", default_value = "64MiB", value_parser = parse_log_bytes)]
    pub task_bytes: usize,
    /// Live sessions each server keeps; past it its oldest session ends.
    #[arg(long, value_name = "n", default_value_t = 10_000, value_parser = parse_max_connections)]
    pub max_sessions: usize,
    /// Bytes of clientInfo and capabilities each server's live sessions keep; past it its
    /// oldest sessions end. Same units as --log-bytes; the minimum is 1MiB.
    #[arg(long, value_name = "bytes", default_value = "64MiB", value_parser = parse_log_bytes)]
    pub session_bytes: usize,
    /// Print the version.
    #[arg(short = 'v', long = "version", action = ArgAction::Version)]
    version: Option<bool>,
    /// Other commands.
    #[command(subcommand)]
    pub command: Option<Command>,
}

/// Commands besides serving.
#[derive(Debug, Clone, Subcommand)]
pub enum Command {
    /// Print the agent skill that teaches a coding agent to drive MCP Decoy.
    Skill(SkillArgs),
    /// Serve server NAME of servers.json over stdin and stdout, for clients that spawn
    /// their servers. When the app runs with the same config directory, the traffic shows
    /// in its logs; otherwise in --log-file.
    Stdio(StdioArgs),
    /// Grade an MCP client with the conformance suite's client scenarios: runs the client
    /// command once per scenario, with the scenario's server URL as its last argument and
    /// MCP_CONFORMANCE_SCENARIO and MCP_CONFORMANCE_PROTOCOL_VERSION in its environment, and
    /// prints the suite's checks. Exits 0 only when every scenario run passes.
    CheckClient(CheckClientArgs),
}

/// `mcp-decoy check-client [--scenario NAME]... [--suite S] [--requirements REV]
/// [--spec-version V] [--timeout S] [-j N] [-o DIR] [--expected-failures FILE] [--junit FILE] --
/// COMMAND [ARGS]...`
#[derive(Debug, Clone, Args)]
pub struct CheckClientArgs {
    /// A scenario to run (repeat for more); every graded scenario when none is named.
    #[arg(long = "scenario", value_name = "name", conflicts_with = "suite")]
    pub scenarios: Vec<String>,
    /// Run the graded scenarios of one of the suite's lists: all, core, extensions,
    /// backcompat, auth, metadata, draft, sep-835.
    #[arg(long, value_name = "suite", value_parser = parse_suite)]
    pub suite: Option<crate::grade::Suite>,
    /// The suite's expected-failures YAML: scenarios (or `scenario:check-id`) under
    /// `client:` that may fail; the run then fails only on a failure it does not list or an
    /// entry that now passes.
    #[arg(long, value_name = "file")]
    pub expected_failures: Option<PathBuf>,
    /// Write a JUnit XML report here: a test case per scenario run.
    #[arg(long, value_name = "file")]
    pub junit: Option<PathBuf>,
    /// Run exactly the client scenarios the suite's frozen requirement set of this revision
    /// names (2025-11-25 or 2026-07-28), each at that revision; its `not_scored` ones are
    /// run and reported apart, and never fail the run.
    #[arg(
        long,
        value_name = "revision",
        value_parser = parse_version,
        conflicts_with_all = ["scenarios", "suite", "spec_version"]
    )]
    pub requirements: Option<crate::ProtocolVersion>,
    /// The spec revision to grade at (2025-03-26, 2025-06-18, 2025-11-25, 2026-07-28);
    /// scenarios that do not apply at it are skipped. By default each scenario runs at
    /// 2025-11-25, or 2026-07-28 if that revision introduced it.
    #[arg(long, value_name = "version", value_parser = parse_version)]
    pub spec_version: Option<crate::ProtocolVersion>,
    /// Seconds the client may run per scenario; then it and its processes are killed.
    #[arg(long, value_name = "secs", default_value = "30", value_parser = parse_seconds)]
    pub timeout: Duration,
    /// How many scenarios run at once (each its own server and client process); 1 runs
    /// them one after another. The report lists them in order whatever finishes first.
    #[arg(short = 'j', long, value_name = "n", default_value = "4", value_parser = parse_jobs)]
    pub jobs: usize,
    /// How the client reaches the server: `http` (the URL as its last argument, as the
    /// suite runs a client) or `stdio` (the server's command as its last argument, one line
    /// for a POSIX shell, and in MCP_CONFORMANCE_SERVER_COMMAND as a JSON array; the client
    /// spawns it). Over stdio the scenarios about HTTP headers, event streams and OAuth are
    /// skipped, saying so.
    #[arg(long, value_name = "transport", default_value = "http", value_parser = parse_transport)]
    pub transport: crate::log::Transport,
    /// Write checks.json, stdout.txt and stderr.txt of each scenario under DIR/NAME/, as
    /// the suite writes them.
    #[arg(short = 'o', long = "output-dir", value_name = "dir")]
    pub output_dir: Option<PathBuf>,
    /// The client command and its arguments, after `--`.
    #[arg(last = true, required = true, value_name = "command")]
    pub command: Vec<std::ffi::OsString>,
}

fn parse_jobs(text: &str) -> Result<usize, String> {
    match text.parse::<usize>() {
        Ok(n @ 1..=64) => Ok(n),
        _ => Err(format!("`{text}` is not a number of jobs from 1 to 64")),
    }
}

fn parse_transport(text: &str) -> Result<crate::log::Transport, String> {
    use crate::log::Transport;
    [Transport::Http, Transport::Stdio]
        .into_iter()
        .find(|t| t.as_str() == text)
        .ok_or_else(|| format!("`{text}` is not a transport: `http` or `stdio`"))
}

fn parse_suite(text: &str) -> Result<crate::grade::Suite, String> {
    crate::grade::Suite::parse(text).ok_or_else(|| {
        let names: Vec<&str> = crate::grade::Suite::ALL
            .iter()
            .map(|s| s.as_str())
            .collect();
        format!("`{text}` is not a suite: use {}", names.join(", "))
    })
}

fn parse_version(text: &str) -> Result<crate::ProtocolVersion, String> {
    crate::ProtocolVersion::parse(text).ok_or_else(|| {
        format!("`{text}` is not a revision: use 2025-03-26, 2025-06-18, 2025-11-25 or 2026-07-28")
    })
}

/// `mcp-decoy stdio NAME [--log-file F]`, or `mcp-decoy stdio --attach ADDR` (the token in
/// `MCP_DECOY_ATTACH_TOKEN`) as a test fixture's command runs it.
#[derive(Debug, Clone, Args)]
pub struct StdioArgs {
    /// The server of servers.json to serve.
    #[arg(value_name = "NAME", required_unless_present = "attach")]
    pub name: Option<String>,
    /// Append the server's log records to this file as JSON lines, when no app runs with
    /// the config directory.
    #[arg(long, value_name = "path")]
    pub log_file: Option<PathBuf>,
    /// Serve from the fixture or app listening here (written by `stdio_command`), with the
    /// socket's token in MCP_DECOY_ATTACH_TOKEN.
    #[arg(long, value_name = "address", conflicts_with_all = ["name", "log_file"])]
    pub attach: Option<std::net::SocketAddr>,
    /// The secret the attach socket expects, when not in MCP_DECOY_ATTACH_TOKEN (a command
    /// line is visible to every local user).
    #[arg(
        long,
        value_name = "token",
        requires = "attach",
        conflicts_with = "token_file"
    )]
    pub token: Option<String>,
    /// A file holding that secret (its first line), for a client that does not pass its
    /// environment on to the servers it spawns (the grader's stdio runs write one).
    #[arg(long, value_name = "path", requires = "attach")]
    pub token_file: Option<PathBuf>,
}

/// `mcp-decoy skill [install [--dir D]]`.
#[derive(Debug, Clone, Args)]
pub struct SkillArgs {
    /// What to do with the skill.
    #[command(subcommand)]
    pub action: Option<SkillAction>,
}

/// `mcp-decoy skill install`.
#[derive(Debug, Clone, Subcommand)]
pub enum SkillAction {
    /// Write .agents/skills/mcp-decoy/SKILL.md and link .claude/skills/mcp-decoy to it.
    Install {
        /// The directory that holds .agents/ and .claude/ [default: your home directory]
        #[arg(long, value_name = "path")]
        dir: Option<PathBuf>,
    },
}

fn parse_log_limit(text: &str) -> Result<usize, String> {
    let n: usize = text
        .parse()
        .map_err(|_| format!("`{text}` is not a whole number"))?;
    if n < MIN_LOG_LIMIT {
        return Err(format!("the minimum is {MIN_LOG_LIMIT}, got {n}"));
    }
    Ok(n)
}

/// A duration in seconds, whole or decimal (`0.5`), above zero and at most a day.
fn parse_seconds(text: &str) -> Result<Duration, String> {
    let secs: f64 = text
        .trim()
        .parse()
        .map_err(|_| format!("`{text}` is not a number of seconds"))?;
    if secs.is_nan() || secs <= 0.0 {
        return Err(format!("must be more than 0 seconds, got {text}"));
    }
    if secs > MAX_TIMEOUT_SECS {
        return Err(format!(
            "the maximum is {MAX_TIMEOUT_SECS} seconds (a day), got {text}"
        ));
    }
    Ok(Duration::from_secs_f64(secs))
}

/// The longest `--header-timeout` or `--idle-timeout` accepted, in seconds.
const MAX_TIMEOUT_SECS: f64 = 86_400.0;

fn parse_max_connections(text: &str) -> Result<usize, String> {
    let n: usize = text
        .parse()
        .map_err(|_| format!("`{text}` is not a whole number"))?;
    if n == 0 {
        return Err("the minimum is 1".into());
    }
    Ok(n)
}

/// `--log-bytes` and the other byte budgets: `268435456`, `256MiB`, `512KiB`, `1GiB` (the
/// suffix in any case, a space before it allowed).
fn parse_log_bytes(text: &str) -> Result<usize, String> {
    let trimmed = text.trim();
    let digits = trimmed
        .find(|c: char| !c.is_ascii_digit())
        .unwrap_or(trimmed.len());
    let (number, suffix) = trimmed.split_at(digits);
    let unit: usize = match suffix.trim().to_ascii_lowercase().as_str() {
        "" | "b" => 1,
        "kib" => 1024,
        "mib" => 1024 * 1024,
        "gib" => 1024 * 1024 * 1024,
        _ => {
            return Err(format!(
                "`{text}` is not a size: a whole number of bytes, or one with KiB, MiB or GiB"
            ));
        }
    };
    let n = number
        .parse::<usize>()
        .ok()
        .and_then(|n| n.checked_mul(unit))
        .ok_or_else(|| {
            format!("`{text}` is not a size: a whole number of bytes, or one with KiB, MiB or GiB")
        })?;
    if n < MIN_LOG_BYTES {
        return Err(format!(
            "the minimum is 1MiB ({MIN_LOG_BYTES} bytes), got {n} bytes"
        ));
    }
    Ok(n)
}

impl Options {
    /// The limits every server of the app gets, from the flags.
    pub(crate) fn limits(&self) -> crate::spec::Limits {
        crate::spec::Limits {
            max_sessions: self.max_sessions,
            max_session_bytes: self.session_bytes,
            max_retained_event_bytes: self.retained_event_bytes,
            max_task_bytes: self.task_bytes,
            ..crate::spec::Limits::default()
        }
    }

    /// The config directory: `--config-dir`, else `$XDG_CONFIG_HOME/mcp-decoy` when that is
    /// an absolute path, else `~/.config/mcp-decoy`.
    pub fn config_dir(&self) -> PathBuf {
        if let Some(dir) = &self.config_dir {
            return dir.clone();
        }
        default_config_dir(
            std::env::var_os("XDG_CONFIG_HOME").map(PathBuf::from),
            std::env::var_os("HOME").map(PathBuf::from),
        )
    }
}

/// The guide's rule: a relative `XDG_CONFIG_HOME` is ignored.
pub fn default_config_dir(xdg: Option<PathBuf>, home: Option<PathBuf>) -> PathBuf {
    match xdg {
        Some(xdg) if xdg.is_absolute() => xdg.join("mcp-decoy"),
        _ => home
            .unwrap_or_else(|| PathBuf::from("."))
            .join(".config")
            .join("mcp-decoy"),
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn defaults_follow_the_guide() {
        let options = Options::try_parse_from(["mcp-decoy"]).expect("no arguments");
        assert_eq!(
            (options.mcp_port, options.ui_port, options.log_limit),
            (6280, 6281, 10_000)
        );
        assert_eq!(options.log_bytes, 256 * 1024 * 1024);
        assert_eq!(options.host.to_string(), "127.0.0.1");
        assert_eq!(
            (
                options.header_timeout,
                options.idle_timeout,
                options.max_connections
            ),
            (Duration::from_secs(10), Duration::from_secs(60), 1024)
        );
    }

    #[test]
    fn connection_limits_take_seconds_and_refuse_zero_naming_the_flag() {
        let options = Options::try_parse_from([
            "mcp-decoy",
            "--header-timeout",
            "0.5",
            "--idle-timeout",
            "2",
            "--max-connections",
            "8",
        ])
        .expect("valid limits");
        assert_eq!(options.header_timeout, Duration::from_millis(500));
        assert_eq!(options.idle_timeout, Duration::from_secs(2));
        assert_eq!(options.max_connections, 8);
        for (flag, value, reason) in [
            ("--header-timeout", "0", "more than 0 seconds"),
            ("--idle-timeout", "-1", "more than 0 seconds"),
            ("--idle-timeout", "soon", "not a number of seconds"),
            ("--header-timeout", "NaN", "more than 0 seconds"),
            ("--header-timeout", "100000", "maximum is 86400"),
            ("--max-connections", "0", "minimum is 1"),
            ("--max-connections", "many", "not a whole number"),
        ] {
            let arg = format!("{flag}={value}");
            let error = Options::try_parse_from(["mcp-decoy", &arg]).expect_err(value);
            let text = error.to_string();
            assert!(
                text.contains(flag) && text.contains(reason),
                "{flag} {value}: {text}"
            );
        }
    }

    #[test]
    fn log_limit_below_100_is_refused_naming_the_minimum() {
        let error =
            Options::try_parse_from(["mcp-decoy", "--log-limit", "99"]).expect_err("too small");
        assert!(error.to_string().contains("minimum is 100"), "{error}");
    }

    #[test]
    fn log_bytes_takes_bytes_or_binary_units_and_refuses_less_than_1_mib() {
        let bytes = |text: &str| {
            Options::try_parse_from(["mcp-decoy", "--log-bytes", text]).map(|o| o.log_bytes)
        };
        assert_eq!(bytes("1048576").expect("plain bytes"), 1 << 20);
        assert_eq!(bytes("64MiB").expect("MiB"), 64 << 20);
        assert_eq!(bytes("2048 kib").expect("KiB"), 2 << 20);
        assert_eq!(bytes("1GiB").expect("GiB"), 1 << 30);
        let small = bytes("1000").expect_err("too small");
        assert!(small.to_string().contains("minimum is 1MiB"), "{small}");
        let zero = bytes("0").expect_err("zero");
        assert!(zero.to_string().contains("--log-bytes"), "{zero}");
        let unit = bytes("5MB").expect_err("a decimal unit");
        assert!(unit.to_string().contains("KiB, MiB or GiB"), "{unit}");
    }

    #[test]
    fn a_relative_xdg_config_home_is_ignored() {
        let home = Some(PathBuf::from("/home/dana"));
        assert_eq!(
            default_config_dir(Some(PathBuf::from("/x")), home.clone()),
            PathBuf::from("/x/mcp-decoy")
        );
        assert_eq!(
            default_config_dir(Some(PathBuf::from("rel")), home),
            PathBuf::from("/home/dana/.config/mcp-decoy")
        );
    }
}
