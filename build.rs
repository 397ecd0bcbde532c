//! Compiles the stdio bridge (`src/engine/transport/attach/bridge.rs`, standard library only)
//! into a small program beside this build's output, so `MockMcpServer::stdio_command` can
//! hand a client a server process to spawn without a second build or install of mcp-decoy,
//! and always of this very version. When it cannot be built, the library still builds and
//! `stdio_command` says why (`MCP_DECOY_BRIDGE_ERROR`).

use std::env;
use std::path::PathBuf;
use std::process::Command;

const SOURCE: &str = "src/engine/transport/attach/bridge.rs";

fn main() {
    println!("cargo::rerun-if-changed={SOURCE}");
    println!("cargo::rustc-check-cfg=cfg(mcp_decoy_bridge)");
    match build() {
        Ok(program) => println!("cargo::rustc-env=MCP_DECOY_BRIDGE={}", program.display()),
        Err(reason) => {
            println!("cargo::warning=mcp-decoy: the stdio bridge was not built: {reason}");
            let reason = reason.replace(['\n', '\r'], " ");
            println!("cargo::rustc-env=MCP_DECOY_BRIDGE_ERROR={reason}");
        }
    }
}

fn build() -> Result<PathBuf, String> {
    let out = PathBuf::from(env::var_os("OUT_DIR").ok_or("OUT_DIR is not set")?);
    let rustc = env::var_os("RUSTC").unwrap_or_else(|| "rustc".into());
    let target = env::var("TARGET").map_err(|_| "TARGET is not set")?;
    let suffix = if target.contains("windows") {
        ".exe"
    } else {
        ""
    };
    let program = out.join(format!("mcp-decoy-stdio{suffix}"));
    let mut command = Command::new(&rustc);
    command
        .args([
            "--edition=2024",
            "--crate-type=bin",
            "--crate-name=mcp_decoy_stdio",
        ])
        .args(["--cfg", "mcp_decoy_bridge", "--cap-lints=allow"])
        // Small and quick to build: it only copies bytes between pipes and a socket.
        .args([
            "-C",
            "opt-level=1",
            "-C",
            "debuginfo=0",
            "-C",
            "strip=symbols",
        ])
        .arg("-o")
        .arg(&program)
        .arg(SOURCE);
    if env::var("HOST").ok().as_deref() != Some(target.as_str()) {
        command.args(["--target", &target]);
    }
    let output = command
        .output()
        .map_err(|e| format!("cannot run {}: {e}", rustc.to_string_lossy()))?;
    if !output.status.success() {
        return Err(format!(
            "{} failed ({}): {}",
            rustc.to_string_lossy(),
            output.status,
            String::from_utf8_lossy(&output.stderr).trim()
        ));
    }
    Ok(program)
}
