//! The process side of stdio: [`Out`] items played on the real stdout, stderr and exit
//! status, and the signal a stubborn server ignores.

use std::io;

use tokio::io::AsyncWriteExt;

use crate::engine::{Out, Sink};

/// This process's stdout and stderr.
pub(super) struct Process {
    stdout: tokio::io::Stdout,
    stderr: tokio::io::Stderr,
}

impl Process {
    pub(super) fn new() -> Self {
        Process {
            stdout: tokio::io::stdout(),
            stderr: tokio::io::stderr(),
        }
    }
}

impl Sink for Process {
    async fn put(&mut self, out: Out) -> io::Result<bool> {
        match out {
            Out::Line(text) => {
                self.stdout.write_all(text.as_bytes()).await?;
                self.stdout.write_all(b"\n").await?;
                self.stdout.flush().await?;
            }
            Out::Raw(bytes) => {
                self.stdout.write_all(&bytes).await?;
                self.stdout.flush().await?;
            }
            Out::Stderr(bytes) => {
                self.stderr.write_all(&bytes).await?;
                self.stderr.flush().await?;
            }
            Out::Pause(pause) => tokio::time::sleep(pause).await,
            Out::Exit(code) => {
                let _ = self.stdout.flush().await;
                let _ = self.stderr.flush().await;
                // Now, as a crashing server would: no graceful end for the session.
                std::process::exit(code);
            }
        }
        Ok(true)
    }
}

/// Catches `SIGTERM` and does nothing with it, so only `SIGKILL` ends the process. Called
/// on the app's runtime (or a blocking thread of it).
pub(super) fn ignore_sigterm() {
    #[cfg(unix)]
    {
        use tokio::signal::unix::{SignalKind, signal};
        match signal(SignalKind::terminate()) {
            Ok(mut terminate) => {
                tokio::spawn(async move {
                    while terminate.recv().await.is_some() {
                        eprintln!("mcp-decoy stdio: SIGTERM ignored on purpose (ignoreSigterm)");
                    }
                });
            }
            Err(error) => eprintln!("mcp-decoy stdio: cannot ignore SIGTERM: {error}"),
        }
    }
}
