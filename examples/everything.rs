//! Serves every feature at once: the fixtures of the MCP conformance suite's server scenarios
//! (tools with images, audio, logging, progress, sampling and elicitation; `test://`
//! resources and a template; prompts with completion; the tasks extension's tools and a
//! prompt that answers `input_required`), until Ctrl+C or SIGTERM.
//!
//! ```sh
//! cargo run --example everything   # the first line printed is the MCP URL
//! ```

mod common;

#[tokio::main(flavor = "current_thread")]
async fn main() {
    match mcp_decoy::presets::conformance().try_start().await {
        Ok(server) => common::serve(server).await,
        Err(error) => {
            eprintln!("everything: {error}");
            std::process::exit(1);
        }
    }
}
