//! One running app with a browser on its UI and an HTTP client for its API, for the web UI's
//! tests: the app from `app_process`, the browser from [`super::Browser`].

use std::path::PathBuf;

use reqwest::StatusCode;
use serde_json::{Value, json};

use super::Browser;
use crate::common::app_process::{Running, Scratch};

/// One running app, a browser on its UI, and an HTTP client for its API.
pub struct Ui {
    pub app: Running,
    _dir: Scratch,
    pub browser: Browser,
    pub http: reqwest::Client,
}

impl Ui {
    /// The app in a scratch directory named for `name`, and a 1280×800 browser on its UI.
    pub async fn start(name: &str) -> Ui {
        Ui::with_browser(name, Browser::start().await).await
    }

    /// The same with the given browser (another window size).
    pub async fn with_browser(name: &str, browser: Browser) -> Ui {
        Ui::with_setup(name, browser, None, &[]).await
    }

    /// The app started with `servers.json` (when given) and extra flags.
    pub async fn with_setup(
        name: &str,
        browser: Browser,
        servers: Option<&str>,
        flags: &[&str],
    ) -> Ui {
        let dir = Scratch::new(name);
        if let Some(servers) = servers {
            std::fs::write(dir.path().join("servers.json"), servers).expect("servers.json");
        }
        let (mcp, ui) = crate::common::app_process::free_ports();
        let mut command = crate::common::app_process::command_in(dir.path(), mcp, ui);
        command.args(flags);
        let app = Running::spawn(command, mcp, ui);
        let http = app.api_client();
        let ui = Ui {
            app,
            _dir: dir,
            browser,
            http,
        };
        ui.browser.open(&ui.url("")).await;
        ui
    }

    /// `http://localhost:UI/PATH`.
    pub fn url(&self, path: &str) -> String {
        format!("http://localhost:{}/{path}", self.app.ui_port)
    }

    pub async fn api_get(&self, path: &str) -> Value {
        let response = self
            .http
            .get(format!("{}{path}", self.app.api()))
            .send()
            .await
            .unwrap_or_else(|e| panic!("GET {path}: {e}"));
        assert_eq!(response.status(), StatusCode::OK, "GET {path}");
        response.json().await.expect("a JSON body")
    }

    pub async fn shot(&self, name: &str) {
        let dir = std::env::var_os("SCREENSHOTS")
            .map(PathBuf::from)
            .unwrap_or_else(|| PathBuf::from(env!("CARGO_TARGET_TMPDIR")).join("screenshots"));
        self.browser
            .screenshot(&dir.join(format!("{name}.png")))
            .await;
    }

    /// Types `text` into the field `selector`, replacing what was there.
    pub async fn fill(&self, selector: &str, text: &str) {
        let field = self.browser.css(selector).await;
        field
            .clear()
            .await
            .unwrap_or_else(|e| panic!("clear {selector}: {e}"));
        field
            .send_keys(text)
            .await
            .unwrap_or_else(|e| panic!("type into {selector}: {e}"));
    }

    /// Sets a field's value the way a paste does (typing JSON key by key is slow and the
    /// editor may auto-indent), then fires `input` so the page sees it.
    pub async fn paste(&self, selector: &str, text: &str) {
        self.browser.css(selector).await;
        let script = format!(
            "const e = document.querySelector({}); e.value = {}; \
             e.dispatchEvent(new Event('input', {{ bubbles: true }}));",
            json!(selector),
            json!(text)
        );
        self.browser.eval(&script).await;
    }
}
