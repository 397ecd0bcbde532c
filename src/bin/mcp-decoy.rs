//! `mcp-decoy`: parse the options, run the app until Ctrl+C or SIGTERM.

use clap::Parser;
use mcp_decoy::cli::{self, Command, Options, SkillAction};

#[tokio::main]
async fn main() {
    let options = Options::parse();
    if let Some(Command::Skill(skill)) = &options.command {
        let outcome = match &skill.action {
            None => {
                print!("{}", cli::skill::text());
                Ok(())
            }
            Some(SkillAction::Install { dir }) => cli::skill::install(dir.clone()).map(|path| {
                println!("Installed the skill at {}", path.display());
            }),
        };
        if let Err(error) = outcome {
            eprintln!("mcp-decoy: {error}");
            std::process::exit(1);
        }
        return;
    }
    if let Err(error) = cli::run(options, shutdown_signal()).await {
        eprintln!("mcp-decoy: {error}");
        std::process::exit(1);
    }
}

async fn shutdown_signal() {
    #[cfg(unix)]
    {
        use tokio::signal::unix::{SignalKind, signal};
        let Ok(mut term) = signal(SignalKind::terminate()) else {
            let _ = tokio::signal::ctrl_c().await;
            return;
        };
        tokio::select! {
            _ = tokio::signal::ctrl_c() => {}
            _ = term.recv() => {}
        }
    }
    #[cfg(not(unix))]
    {
        let _ = tokio::signal::ctrl_c().await;
    }
}
