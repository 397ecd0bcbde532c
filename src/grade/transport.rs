//! How a client program reaches a scenario's server ([`Transport`](crate::log::Transport)):
//! the suite's contract over HTTP (the URL as the last argument), or stdio, where the client
//! spawns the server itself from a command it is handed, as its last argument (one line for a
//! POSIX shell) and in [`SERVER_COMMAND_ENV`] (a JSON array); the server's secret is in a file
//! the command names, so a client that gives its servers a clean environment works too.

use std::ffi::OsString;
use std::path::PathBuf;

use crate::MockMcpServer;

/// The variable that names the transport of a client program's run (`http` or `stdio`).
pub const TRANSPORT_ENV: &str = "MCP_CONFORMANCE_TRANSPORT";
/// The variable that holds the server's command in a stdio run, as a JSON array of strings
/// (the program first).
pub const SERVER_COMMAND_ENV: &str = "MCP_CONFORMANCE_SERVER_COMMAND";

/// What one stdio run hands the client: the server's command, and the private folder that
/// holds its token (removed by [`StdioTarget::remove`] once the run is over).
pub(super) struct StdioTarget {
    pub(super) words: Vec<OsString>,
    folder: PathBuf,
}

impl StdioTarget {
    /// A command that serves `server` over stdio (running `program`, else the bridge
    /// [`MockMcpServer::stdio_command`] finds), its token written to a file only this user
    /// can read.
    pub(super) fn of(
        server: &MockMcpServer,
        program: Option<&std::ffi::OsStr>,
    ) -> Result<StdioTarget, String> {
        let command = match program {
            Some(program) => server.stdio_command_with(program),
            None => server.stdio_command(),
        }
        .map_err(|e| format!("no stdio command for the server: {e}"))?;
        let token = command
            .get_envs()
            .find(|(name, _)| *name == crate::engine::transport::attach::TOKEN_ENV)
            .and_then(|(_, value)| value.map(OsString::from))
            .ok_or("the stdio command carries no token")?;
        let folder = std::env::temp_dir().join(format!(
            "mcp-decoy-grade-{}",
            crate::engine::random::hex_id()
        ));
        private_folder(&folder).map_err(|e| format!("{}: {e}", folder.display()))?;
        let file = folder.join("token");
        std::fs::write(&file, token.as_encoded_bytes())
            .map_err(|e| format!("{}: {e}", file.display()))?;
        let mut words = vec![command.get_program().to_os_string()];
        words.extend(command.get_args().map(OsString::from));
        words.push("--token-file".into());
        words.push(file.into_os_string());
        Ok(StdioTarget { words, folder })
    }

    /// The command as one line for a POSIX shell (the client's last argument).
    pub(super) fn line(&self) -> String {
        self.words
            .iter()
            .map(|word| quoted(&word.to_string_lossy()))
            .collect::<Vec<_>>()
            .join(" ")
    }

    /// The command as a JSON array ([`SERVER_COMMAND_ENV`]).
    pub(super) fn json(&self) -> String {
        let words: Vec<String> = self
            .words
            .iter()
            .map(|w| w.to_string_lossy().into_owned())
            .collect();
        serde_json::Value::from(words).to_string()
    }

    /// Removes the token's folder.
    pub(super) fn remove(self) {
        let _ = std::fs::remove_dir_all(&self.folder);
    }
}

fn private_folder(folder: &std::path::Path) -> std::io::Result<()> {
    let mut builder = std::fs::DirBuilder::new();
    #[cfg(unix)]
    {
        use std::os::unix::fs::DirBuilderExt;
        builder.mode(0o700);
    }
    builder.create(folder)
}

/// `word` as a POSIX shell reads it back: bare when it is only safe characters, else in
/// single quotes (a quote inside closed, escaped and reopened).
fn quoted(word: &str) -> String {
    let safe = !word.is_empty()
        && word
            .bytes()
            .all(|b| b.is_ascii_alphanumeric() || b"_-./:=@,+%".contains(&b));
    if safe {
        word.to_string()
    } else {
        format!("'{}'", word.replace('\'', "'\\''"))
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn words_a_shell_reads_back_as_they_were() {
        assert_eq!(quoted("/usr/bin/mcp-decoy"), "/usr/bin/mcp-decoy");
        assert_eq!(quoted("127.0.0.1:4000"), "127.0.0.1:4000");
        assert_eq!(quoted("/home/Jo Do/bin"), "'/home/Jo Do/bin'");
        assert_eq!(quoted("it's"), "'it'\\''s'");
        assert_eq!(quoted(""), "''");
    }
}
