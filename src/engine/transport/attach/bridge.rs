//! The bridge: a process a client spawned whose stdin goes to a server elsewhere (a test's
//! fixture, a running app) over its attach socket, and whose stdout, stderr and exit status
//! play the frames that server sends back. It ends when either side is gone: the server
//! closes the socket, the client closes stdout, or the client closes stdin and the server
//! ends the session.
//!
//! Standard library only, so the crate's build script compiles this file alone into the
//! small program `MockMcpServer::stdio_command` runs (`--cfg mcp_decoy_bridge` adds its
//! `main`): a test of a client that spawns its server needs no second build of mcp-decoy.
//! The app's `mcp-decoy stdio` runs the same code as a module.

use std::io::{self, BufReader, Read, Write};
use std::net::{Shutdown, SocketAddr, TcpStream};
use std::sync::Arc;
use std::sync::atomic::{AtomicBool, Ordering};
use std::time::Duration;

/// The attach protocol's version; a bridge of another version is refused by name.
pub(crate) const VERSION: u32 = 1;
/// Where the bridge reads the attach socket's token: the environment, since a command line
/// shows in every local user's process list and the environment only to its owner.
pub(crate) const TOKEN_ENV: &str = "MCP_DECOY_ATTACH_TOKEN";
/// The longest frame a bridge accepts: past any line the server writes (its body limit).
pub(crate) const MAX_FRAME: usize = 256 * 1024 * 1024;

/// The kind bytes of the frames a server sends: one kind byte, a 4-byte big-endian length,
/// the payload.
pub(crate) const HELLO: u8 = b'H';
pub(crate) const REFUSED: u8 = b'R';
pub(crate) const STDOUT: u8 = b'O';
pub(crate) const STDERR: u8 = b'E';
pub(crate) const EXIT: u8 = b'X';

/// How long the server has to accept the bridge.
const CONNECT_TIMEOUT: Duration = Duration::from_secs(5);

/// Why the bridge could not start serving.
#[derive(Debug)]
pub(crate) enum Failed {
    /// The attach socket did not answer.
    Unreachable { addr: SocketAddr, source: io::Error },
    /// The server refused this bridge, saying why.
    Refused(String),
    /// The other end is no attach socket.
    Protocol { addr: SocketAddr, reason: String },
}

impl std::fmt::Display for Failed {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        match self {
            Failed::Unreachable { addr, source } => write!(
                f,
                "cannot reach {addr}: {source} (has the fixture or app that made this command stopped?)"
            ),
            Failed::Refused(reason) => f.write_str(reason),
            Failed::Protocol { addr, reason } => write!(
                f,
                "the server at {addr} does not speak the attach protocol: {reason}"
            ),
        }
    }
}

/// Attaches to `addr`, naming `token` (and, for the app, `server`), and bridges until one
/// side is gone; the exit status. `ignore_sigterm` is called when the server asks the
/// process to survive `SIGTERM` (a stubborn server, for a client's escalation to `SIGKILL`).
pub(crate) fn run(
    addr: SocketAddr,
    token: &str,
    server: Option<&str>,
    ignore_sigterm: fn(),
) -> Result<i32, Failed> {
    let unreachable = |source| Failed::Unreachable { addr, source };
    let stream = TcpStream::connect_timeout(&addr, CONNECT_TIMEOUT).map_err(unreachable)?;
    // The server times its writes (split messages): Nagle must not merge them.
    let _ = stream.set_nodelay(true);
    let mut write = stream.try_clone().map_err(unreachable)?;
    write
        .write_all(hello_line(token, server).as_bytes())
        .map_err(unreachable)?;
    let protocol = |reason: String| Failed::Protocol { addr, reason };
    let _ = stream.set_read_timeout(Some(CONNECT_TIMEOUT));
    let mut read = BufReader::new(stream);
    let hello = match read_frame(&mut read) {
        Ok(Some((HELLO, hello))) => hello,
        Ok(Some((REFUSED, reason))) => {
            return Err(Failed::Refused(
                String::from_utf8_lossy(&reason).into_owned(),
            ));
        }
        Ok(Some((kind, _))) => {
            return Err(protocol(format!(
                "a frame of kind {kind:#04x} before its hello"
            )));
        }
        Ok(None) => return Err(protocol("it closed the connection".into())),
        Err(error)
            if matches!(
                error.kind(),
                io::ErrorKind::WouldBlock | io::ErrorKind::TimedOut
            ) =>
        {
            return Err(protocol("no hello within 5 s".into()));
        }
        Err(error) => return Err(protocol(error.to_string())),
    };
    let _ = read.get_ref().set_read_timeout(None);
    if asks(&hello, "ignoreSigterm") {
        ignore_sigterm();
    }

    let stdin_closed = Arc::new(AtomicBool::new(false));
    let closed = stdin_closed.clone();
    std::thread::spawn(move || {
        let mut stdin = io::stdin().lock();
        let mut chunk = vec![0u8; 64 * 1024];
        loop {
            // Unreadable stdin counts as its end: the client is as good as gone.
            let n = stdin.read(&mut chunk).unwrap_or_default();
            if n == 0 {
                closed.store(true, Ordering::SeqCst);
                // The server sees EOF and ends the session (or ignores it, if told to).
                let _ = write.shutdown(Shutdown::Write);
                return;
            }
            // A failed write means the server is gone, not the client: the reading side
            // reports that, so this must not count as the client's EOF.
            if write.write_all(&chunk[..n]).is_err() {
                return;
            }
        }
    });

    let (mut stdout, mut stderr) = (io::stdout(), io::stderr());
    loop {
        match read_frame(&mut read) {
            Ok(Some((STDOUT, bytes))) => {
                // The client closed our stdout (EPIPE): it is gone, so is the session.
                if stdout
                    .write_all(&bytes)
                    .and_then(|()| stdout.flush())
                    .is_err()
                {
                    return Ok(0);
                }
            }
            Ok(Some((STDERR, bytes))) => {
                let _ = stderr.write_all(&bytes).and_then(|()| stderr.flush());
            }
            Ok(Some((EXIT, code))) => {
                let code = <[u8; 4]>::try_from(code.as_slice()).map_or(1, i32::from_be_bytes);
                let _ = stdout.flush();
                let _ = stderr.flush();
                // Now, as a crashing server would: no graceful end for the session.
                std::process::exit(code);
            }
            Ok(Some((kind, _))) => {
                eprintln!(
                    "mcp-decoy stdio: unexpected frame of kind {kind:#04x} from the server; stopping"
                );
                return Ok(1);
            }
            Ok(None) if stdin_closed.load(Ordering::SeqCst) => return Ok(0),
            Ok(None) => {
                eprintln!(
                    "mcp-decoy stdio: the server at {addr} ended (its fixture dropped, or the app stopped)"
                );
                return Ok(1);
            }
            Err(error) => {
                eprintln!("mcp-decoy stdio: the connection to {addr} broke: {error}");
                return Ok(1);
            }
        }
    }
}

/// The bridge's first line: `{"version":1,"token":"…","server":"…"}`.
fn hello_line(token: &str, server: Option<&str>) -> String {
    let mut line = format!("{{\"version\":{VERSION},\"token\":");
    json_string(&mut line, token);
    if let Some(server) = server {
        line.push_str(",\"server\":");
        json_string(&mut line, server);
    }
    line.push_str("}\n");
    line
}

/// Appends `text` as a JSON string.
fn json_string(out: &mut String, text: &str) {
    out.push('"');
    for c in text.chars() {
        match c {
            '"' => out.push_str("\\\""),
            '\\' => out.push_str("\\\\"),
            c if u32::from(c) < 0x20 => out.push_str(&format!("\\u{:04x}", u32::from(c))),
            c => out.push(c),
        }
    }
    out.push('"');
}

/// Whether the server's hello (compact JSON of booleans) sets `member`.
fn asks(hello: &[u8], member: &str) -> bool {
    let wanted = format!("\"{member}\":true");
    hello
        .windows(wanted.len())
        .any(|window| window == wanted.as_bytes())
}

/// The next frame's kind and payload; `Ok(None)` when the socket closed between frames.
pub(crate) fn read_frame(read: &mut impl Read) -> io::Result<Option<(u8, Vec<u8>)>> {
    let mut head = [0u8; 5];
    match read.read_exact(&mut head[..1]) {
        Ok(()) => {}
        Err(error) if error.kind() == io::ErrorKind::UnexpectedEof => return Ok(None),
        Err(error) => return Err(error),
    }
    read.read_exact(&mut head[1..])?;
    let len = u32::from_be_bytes([head[1], head[2], head[3], head[4]]) as usize;
    if len > MAX_FRAME {
        return Err(io::Error::new(
            io::ErrorKind::InvalidData,
            format!("a frame of {len} bytes, above the limit of {MAX_FRAME}"),
        ));
    }
    let mut payload = vec![0u8; len];
    read.read_exact(&mut payload)?;
    Ok(Some((head[0], payload)))
}

/// The attach token in the first line of `text`, a token file's contents (the grader writes
/// one, readable by its owner only, for clients that do not pass their environment on).
#[cfg(any(mcp_decoy_bridge, feature = "decoy-cli"))]
pub(crate) fn token_in(text: &[u8]) -> io::Result<String> {
    let text = String::from_utf8_lossy(text);
    let token = text.lines().next().unwrap_or_default().trim().to_string();
    if token.is_empty() {
        return Err(io::Error::new(
            io::ErrorKind::InvalidData,
            "the file holds no token",
        ));
    }
    Ok(token)
}

/// The bridge's own read of a token file (it builds on the standard library alone): only a
/// regular file, so a FIFO named here cannot hold the open, and only its first 4 KiB.
#[cfg(mcp_decoy_bridge)]
fn token_from_file(path: &std::path::Path) -> io::Result<String> {
    if !std::fs::metadata(path)?.is_file() {
        return Err(io::Error::new(
            io::ErrorKind::InvalidInput,
            "not a regular file",
        ));
    }
    let mut text = Vec::new();
    std::fs::File::open(path)?
        .take(4096)
        .read_to_end(&mut text)?;
    token_in(&text)
}

/// The program the build script makes of this file: `stdio --attach ADDR [--token-file
/// PATH]`, the token in [`TOKEN_ENV`] or that file, as the app's `mcp-decoy stdio --attach`
/// takes them.
#[cfg(mcp_decoy_bridge)]
fn main() {
    let args: Vec<String> = std::env::args().skip(1).collect();
    let (addr, token_file) = match args.as_slice() {
        [stdio, attach, addr] if stdio == "stdio" && attach == "--attach" => {
            (addr.parse().ok(), None)
        }
        [stdio, attach, addr, flag, file]
            if stdio == "stdio" && attach == "--attach" && flag == "--token-file" =>
        {
            (addr.parse().ok(), Some(std::path::PathBuf::from(file)))
        }
        _ => (None, None),
    };
    let Some(addr) = addr else {
        eprintln!(
            "mcp-decoy stdio: usage: stdio --attach ADDR [--token-file PATH] (else the token in {TOKEN_ENV}); got {args:?}"
        );
        std::process::exit(2);
    };
    let from_file = match token_file.as_deref().map(token_from_file) {
        None => None,
        Some(Ok(token)) => Some(token),
        Some(Err(error)) => {
            eprintln!("mcp-decoy stdio: --token-file: {error}");
            std::process::exit(2);
        }
    };
    let Some(token) = from_file.or_else(|| std::env::var(TOKEN_ENV).ok().filter(|t| !t.is_empty()))
    else {
        eprintln!("mcp-decoy stdio: --attach needs the attach socket's token in {TOKEN_ENV}");
        std::process::exit(2);
    };
    let code = run(addr, &token, None, sigterm::ignore).unwrap_or_else(|error| {
        eprintln!("mcp-decoy stdio: {error}");
        1
    });
    std::process::exit(code);
}

#[cfg(mcp_decoy_bridge)]
mod sigterm {
    /// Leaves `SIGTERM` ignored, so only `SIGKILL` ends the process.
    pub(super) fn ignore() {
        #[cfg(unix)]
        {
            const SIGTERM: i32 = 15;
            const SIG_IGN: usize = 1;
            unsafe extern "C" {
                fn signal(signum: i32, handler: usize) -> usize;
            }
            // SAFETY: installs the libc's own `SIG_IGN` disposition; no handler code runs.
            unsafe {
                signal(SIGTERM, SIG_IGN);
            }
            eprintln!("mcp-decoy stdio: SIGTERM ignored on purpose (ignoreSigterm)");
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn the_hello_line_is_json_whatever_the_names_hold() {
        let line = hello_line("a\"b\\c", Some("weird\nname"));
        assert_eq!(
            line,
            "{\"version\":1,\"token\":\"a\\\"b\\\\c\",\"server\":\"weird\\u000aname\"}\n"
        );
        assert!(hello_line("t", None).ends_with("\"token\":\"t\"}\n"));
    }

    #[test]
    fn a_hello_asks_only_for_what_it_sets() {
        let hello = br#"{"version":1,"ignoreEof":true,"ignoreSigterm":false}"#;
        assert!(asks(hello, "ignoreEof"));
        assert!(!asks(hello, "ignoreSigterm"));
    }

    #[test]
    fn a_frame_past_the_limit_is_an_error_not_an_allocation() {
        let mut bytes = vec![STDOUT];
        bytes.extend_from_slice(&u32::MAX.to_be_bytes());
        let error = read_frame(&mut bytes.as_slice()).err();
        assert_eq!(error.map(|e| e.kind()), Some(io::ErrorKind::InvalidData));
    }
}
