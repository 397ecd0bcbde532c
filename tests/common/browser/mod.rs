//! A real headless Chromium driven over WebDriver (ChromeDriver), for the web UI's tests.
//!
//! The tests never skip: without Chromium and ChromeDriver they fail, saying what to install
//! (`.ci/run` installs Debian's `chromium` and `chromium-driver`). `CHROME` and
//! `CHROMEDRIVER` name other binaries.

#![allow(
    dead_code,
    reason = "each test binary compiles this module and uses only part of it"
)]

pub mod ui;

use std::path::{Path, PathBuf};
use std::process::{Child, Command, Stdio};
use std::time::{Duration, Instant};

use fantoccini::elements::Element;
use fantoccini::{Client, ClientBuilder, Locator};
use hyper_util::client::legacy::connect::HttpConnector;
use serde_json::{Value, json};

/// How long an element or a condition may take to appear. Generous: a debug app on a loaded
/// CI machine serving a page of thousands of records has taken over 10 s; a hang still fails.
pub const PATIENCE: Duration = Duration::from_secs(30);

const INSTALL: &str = "the web UI tests drive a real Chromium: install it with \
    `sudo apt-get install chromium chromium-driver` (Debian, Ubuntu), or set CHROME and \
    CHROMEDRIVER to the browser and its driver";

fn find(variable: &str, candidates: &[&str]) -> PathBuf {
    if let Some(path) = std::env::var_os(variable) {
        return PathBuf::from(path);
    }
    let path_dirs = std::env::var_os("PATH").unwrap_or_default();
    for name in candidates {
        let direct = Path::new(name);
        if direct.is_absolute() && direct.exists() {
            return direct.to_path_buf();
        }
        for dir in std::env::split_paths(&path_dirs) {
            let candidate = dir.join(name);
            if candidate.exists() {
                return candidate;
            }
        }
    }
    panic!("no `{}` found: {INSTALL}", candidates.join("` or `"));
}

/// ChromeDriver as a child process, shut down on drop (which quits its Chromium), and one
/// browser session on it.
pub struct Browser {
    pub client: Client,
    driver: Child,
    port: u16,
    profile: PathBuf,
}

impl Browser {
    /// A headless Chromium at 1280×800.
    pub async fn start() -> Browser {
        Browser::with_size(1280, 800).await
    }

    /// A headless Chromium with a window of `width`×`height`.
    pub async fn with_size(width: u32, height: u32) -> Browser {
        let chrome = find(
            "CHROME",
            &["/usr/bin/chromium", "chromium", "google-chrome", "chrome"],
        );
        let chromedriver = find("CHROMEDRIVER", &["/usr/bin/chromedriver", "chromedriver"]);
        let port = portpicker::pick_unused_port().expect("a free port for chromedriver");
        let driver = Command::new(&chromedriver)
            .arg(format!("--port={port}"))
            .stdin(Stdio::null())
            .stdout(Stdio::null())
            .stderr(Stdio::null())
            .spawn()
            .unwrap_or_else(|e| panic!("start {}: {e}; {INSTALL}", chromedriver.display()));
        let profile =
            std::env::temp_dir().join(format!("mcp-decoy-chromium-{}-{port}", std::process::id()));
        let mut capabilities = serde_json::Map::new();
        capabilities.insert(
            "goog:chromeOptions".into(),
            json!({
                "binary": chrome,
                // The flags this machine needs: no sandbox as root, and no background
                // networking, whose connections a closed network refuses many at a time.
                "args": [
                    "--headless=new", "--no-sandbox", "--disable-gpu", "--disable-quic",
                    "--no-first-run", "--disable-background-networking",
                    "--disable-component-update", "--disable-sync", "--disable-dev-shm-usage",
                    format!("--window-size={width},{height}"),
                    format!("--user-data-dir={}", profile.display()),
                ]
            }),
        );
        let url = format!("http://127.0.0.1:{port}");
        let deadline = Instant::now() + PATIENCE * 3;
        let client = loop {
            // Plain HTTP: the driver listens on loopback.
            let mut builder = ClientBuilder::new(HttpConnector::new());
            match builder
                .capabilities(capabilities.clone())
                .connect(&url)
                .await
            {
                Ok(client) => break client,
                Err(error) if Instant::now() < deadline => {
                    let _ = error;
                    tokio::time::sleep(Duration::from_millis(100)).await;
                }
                Err(error) => panic!("connect to chromedriver at {url}: {error}; {INSTALL}"),
            }
        };
        Browser {
            client,
            driver,
            port,
            profile,
        }
    }

    /// Opens `url` and waits for the page's script to mark the document ready.
    pub async fn open(&self, url: &str) {
        self.client
            .goto(url)
            .await
            .unwrap_or_else(|e| panic!("open {url}: {e}"));
    }

    /// The element with `data-testid` `id`, waiting for it.
    pub async fn testid(&self, id: &str) -> Element {
        self.css(&format!("[data-testid=\"{id}\"]")).await
    }

    /// The first element matching `selector`, waiting for it.
    pub async fn css(&self, selector: &str) -> Element {
        self.client
            .wait()
            .at_most(PATIENCE)
            .for_element(Locator::Css(selector))
            .await
            .unwrap_or_else(|e| panic!("no element `{selector}` within {PATIENCE:?}: {e}"))
    }

    /// Every element matching `selector` now.
    pub async fn all(&self, selector: &str) -> Vec<Element> {
        self.client
            .find_all(Locator::Css(selector))
            .await
            .unwrap_or_else(|e| panic!("find `{selector}`: {e}"))
    }

    /// Clicks the element with `data-testid` `id`.
    pub async fn click(&self, id: &str) {
        self.testid(id)
            .await
            .click()
            .await
            .unwrap_or_else(|e| panic!("click `{id}`: {e}"));
    }

    /// Waits until the text of `selector` satisfies `want`, and returns it.
    pub async fn text_until(
        &self,
        selector: &str,
        what: &str,
        want: impl Fn(&str) -> bool,
    ) -> String {
        let deadline = Instant::now() + PATIENCE;
        let mut last = String::new();
        while Instant::now() < deadline {
            if let Ok(element) = self.client.find(Locator::Css(selector)).await {
                if let Ok(text) = element.text().await {
                    if want(&text) {
                        return text;
                    }
                    last = text;
                }
            }
            tokio::time::sleep(Duration::from_millis(50)).await;
        }
        panic!("`{selector}`: {what} within {PATIENCE:?}; last text: {last:?}");
    }

    /// Waits until `condition` holds (polled), panicking with `what` otherwise.
    pub async fn until<F, Fut>(&self, what: &str, mut condition: F)
    where
        F: FnMut() -> Fut,
        Fut: std::future::Future<Output = bool>,
    {
        let deadline = Instant::now() + PATIENCE;
        while Instant::now() < deadline {
            if condition().await {
                return;
            }
            tokio::time::sleep(Duration::from_millis(50)).await;
        }
        panic!("{what} did not happen within {PATIENCE:?}");
    }

    /// Runs `script` in the page and returns its value.
    pub async fn eval(&self, script: &str) -> Value {
        self.client
            .execute(script, vec![])
            .await
            .unwrap_or_else(|e| panic!("run `{script}`: {e}"))
    }

    /// Saves a PNG screenshot of the page to `path`.
    pub async fn screenshot(&self, path: &Path) {
        let png = self
            .client
            .screenshot()
            .await
            .unwrap_or_else(|e| panic!("screenshot: {e}"));
        if let Some(dir) = path.parent() {
            std::fs::create_dir_all(dir).expect("create the screenshot directory");
        }
        std::fs::write(path, png).expect("write the screenshot");
    }

    /// Ends the browser session (closing Chromium); drop kills the driver either way.
    pub async fn close(self) {
        let _ = self.client.clone().close().await;
    }
}

impl Drop for Browser {
    fn drop(&mut self) {
        // ChromeDriver's own `GET /shutdown` quits its sessions' browsers and then exits. A
        // killed driver leaves its Chromium running, also after the session was deleted
        // (headless Chromium may still be quitting then) or when a test panicked first.
        shutdown_driver(self.port);
        let deadline = Instant::now() + PATIENCE;
        while Instant::now() < deadline {
            if matches!(self.driver.try_wait(), Ok(Some(_))) {
                break;
            }
            std::thread::sleep(Duration::from_millis(50));
        }
        let _ = self.driver.kill();
        let _ = self.driver.wait();
        let _ = std::fs::remove_dir_all(&self.profile);
    }
}

/// Asks the ChromeDriver on `port` to shut down, and reads its answer (sent once the
/// browsers have quit).
fn shutdown_driver(port: u16) {
    use std::io::{Read, Write};
    let address = std::net::SocketAddr::from(([127, 0, 0, 1], port));
    let Ok(mut stream) = std::net::TcpStream::connect_timeout(&address, Duration::from_secs(2))
    else {
        return;
    };
    let _ = stream.set_read_timeout(Some(PATIENCE));
    let request =
        format!("GET /shutdown HTTP/1.1\r\nHost: 127.0.0.1:{port}\r\nConnection: close\r\n\r\n");
    if stream.write_all(request.as_bytes()).is_ok() {
        let mut answer = Vec::new();
        let _ = stream.read_to_end(&mut answer);
    }
}
