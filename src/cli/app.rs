//! The app's shared state: the registry, the config file, and the one lock that makes every
//! change and its write to `servers.json` a single step.

use std::path::PathBuf;
use std::sync::Arc;

use tokio::sync::{Mutex, watch};

use super::config::{self, ConfigFile};
use super::registry::Registry;
use crate::error::Error;

/// What the REST API works on.
#[derive(Debug)]
pub struct App {
    pub(crate) registry: Arc<Registry>,
    pub(crate) config_path: PathBuf,
    pub(crate) ui_port: u16,
    /// `http://HOST:PORT` of the MCP listener.
    pub(crate) mcp_base: String,
    /// Held across a change and its save, so writes never interleave and an acknowledged
    /// change is on disk.
    pub(crate) writes: Mutex<()>,
    /// Flips to true at shutdown, ending log streams.
    pub(crate) closing: watch::Sender<bool>,
    /// The file's `$schema`, kept across rewrites.
    schema: Option<String>,
    /// The REST API's secret for this run (`runtime.json`'s `apiToken`).
    pub(crate) api_token: String,
}

impl App {
    pub(crate) fn new(
        registry: Arc<Registry>,
        config_path: PathBuf,
        ui_port: u16,
        mcp_base: String,
        schema: Option<String>,
        api_token: String,
    ) -> Self {
        App {
            registry,
            config_path,
            ui_port,
            mcp_base,
            writes: Mutex::new(()),
            closing: watch::channel(false).0,
            schema,
            api_token,
        }
    }

    /// Writes the current servers to `servers.json` (call with `writes` held).
    pub(crate) fn persist(&self) -> Result<(), Error> {
        let config = ConfigFile {
            schema: self.schema.clone(),
            servers: self.registry.specs(),
        };
        config::save(&self.config_path, &config)
    }

    /// Ends the API's long-lived streams (shutdown).
    pub(crate) fn close_streams(&self) {
        let _ = self.closing.send(true);
    }

    /// The MCP URL of a server.
    pub(crate) fn mcp_url(&self, server: &str) -> String {
        format!("{}/s/{server}/mcp", self.mcp_base)
    }
}
