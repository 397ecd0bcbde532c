//! `mcp-decoy`: parse the options, run the app until Ctrl+C or SIGTERM.

use clap::Parser;
use mcp_decoy::cli::{self, Command, Options, SkillAction};

#[tokio::main]
async fn main() {
    let options = Options::parse();
    if let Some(Command::Stdio(args)) = &options.command {
        // Exit at once: the runtime's drop would wait for the thread blocked on stdin.
        std::process::exit(cli::stdio::run(args, &options.config_dir()).await);
    }
    if let Some(Command::CheckClient(args)) = &options.command {
        std::process::exit(cli::check_client::run(args).await);
    }
    if let Some(Command::Skill(skill)) = &options.command {
        let outcome = match &skill.action {
            None => {
                print!("{}", cli::skill::text());
                Ok(())
            }
            Some(SkillAction::Install { dir }) => {
                cli::skill::install(dir.clone()).map(|installed| println!("{installed}"))
            }
        };
        if let Err(error) = outcome {
            eprintln!("mcp-decoy: {error}");
            std::process::exit(1);
        }
        return;
    }
    // Listen for the signals before anything else: an async fn would only register its
    // handlers when first polled, after the banner, and a Ctrl+C in between would kill the
    // process with `runtime.json` left behind.
    let shutdown = match shutdown_signal() {
        Ok(shutdown) => shutdown,
        Err(error) => {
            eprintln!("mcp-decoy: cannot listen for Ctrl+C and SIGTERM: {error}");
            std::process::exit(1);
        }
    };
    if let Err(error) = cli::run(options, shutdown).await {
        eprintln!("mcp-decoy: {error}");
        std::process::exit(1);
    }
}

/// A future that completes on Ctrl+C (SIGINT) or SIGTERM, with both handlers installed now.
#[cfg(unix)]
fn shutdown_signal() -> std::io::Result<impl Future<Output = ()>> {
    use tokio::signal::unix::{SignalKind, signal};
    let mut interrupt = signal(SignalKind::interrupt())?;
    let mut terminate = signal(SignalKind::terminate())?;
    Ok(async move {
        tokio::select! {
            _ = interrupt.recv() => {}
            _ = terminate.recv() => {}
        }
    })
}

/// A future that completes on Ctrl+C, with the handler installed now.
#[cfg(not(unix))]
fn shutdown_signal() -> std::io::Result<impl Future<Output = ()>> {
    let mut ctrl_c = tokio::signal::windows::ctrl_c()?;
    Ok(async move {
        ctrl_c.recv().await;
    })
}
