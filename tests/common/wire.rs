//! Raw HTTP/1.1 on one TCP connection, for what an HTTP client hides: half a header, a
//! GET with no `Accept` at all (reqwest always sends `*/*`), one kept-alive connection
//! reused, and whether the server closed the socket. Included alone (`#[path]`) by the tests
//! that need it.

#![allow(
    dead_code,
    reason = "each test binary compiles this module and uses only part of it"
)]

use std::time::Duration;

use tokio::io::{AsyncReadExt, AsyncWriteExt};
use tokio::net::TcpStream;
use tokio::time::Instant;

/// How long a step that should succeed may take; generous for loaded machines.
pub const PATIENCE: Duration = Duration::from_secs(10);

/// A complete response: status, head (lower-cased header lines) and body.
#[derive(Debug)]
pub struct Answer {
    pub status: u16,
    pub head: String,
    pub body: String,
}

impl Answer {
    /// The value of header `name` (lower case), if present.
    pub fn header(&self, name: &str) -> Option<&str> {
        self.head.lines().find_map(|line| {
            let (key, value) = line.split_once(':')?;
            (key.trim() == name).then(|| value.trim())
        })
    }
}

/// One TCP connection and what it has read but not yet consumed.
#[derive(Debug)]
pub struct Wire {
    tcp: TcpStream,
    /// `host:port`, sent as `Host`.
    pub host: String,
    unread: Vec<u8>,
}

/// `127.0.0.1:PORT` of a URL like `http://127.0.0.1:PORT/mcp`.
pub fn authority(url: &str) -> String {
    let rest = url.split_once("://").map_or(url, |(_, rest)| rest);
    rest.split('/').next().unwrap_or(rest).to_string()
}

impl Wire {
    /// Connects to `authority` (`host:port`).
    pub async fn connect(authority: &str) -> Wire {
        let tcp = tokio::time::timeout(PATIENCE, TcpStream::connect(authority))
            .await
            .unwrap_or_else(|_| panic!("connecting to {authority} took over {PATIENCE:?}"))
            .unwrap_or_else(|e| panic!("cannot connect to {authority}: {e}"));
        Wire {
            tcp,
            host: authority.to_string(),
            unread: Vec::new(),
        }
    }

    /// Writes `bytes` as they are.
    pub async fn send(&mut self, bytes: &[u8]) {
        self.tcp
            .write_all(bytes)
            .await
            .expect("write to the server");
    }

    /// Writes a complete request; `headers` come after `Host` (and `Content-Length` when
    /// there is a body).
    pub async fn request(
        &mut self,
        method: &str,
        path: &str,
        headers: &[(&str, &str)],
        body: &str,
    ) {
        let text = self.request_text(method, path, headers, body);
        self.send(text.as_bytes()).await;
    }

    /// The text of a complete request, as [`Wire::request`] sends it.
    pub fn request_text(
        &self,
        method: &str,
        path: &str,
        headers: &[(&str, &str)],
        body: &str,
    ) -> String {
        let mut text = format!("{method} {path} HTTP/1.1\r\nhost: {}\r\n", self.host);
        for (name, value) in headers {
            text.push_str(&format!("{name}: {value}\r\n"));
        }
        if !body.is_empty() {
            text.push_str(&format!("content-length: {}\r\n", body.len()));
        }
        text.push_str("\r\n");
        text.push_str(body);
        text
    }

    /// The text of a 2025-11-25 session's `GET /mcp`, which opens its event stream.
    pub fn session_get_text(&self, session: &str) -> String {
        self.request_text(
            "GET",
            "/mcp",
            &[
                ("accept", "text/event-stream"),
                ("mcp-session-id", session),
                ("mcp-protocol-version", "2025-11-25"),
            ],
            "",
        )
    }

    /// Writes `bytes` and ends the sending side in the same TCP segment, so the server reads
    /// the request and the connection's end at once: a client that hangs up as it sends.
    /// Linux's `TCP_CORK` holds the bytes back until the FIN joins them.
    #[cfg(target_os = "linux")]
    pub async fn send_and_hang_up(&mut self, bytes: &[u8]) {
        use std::os::fd::AsRawFd;
        let on: libc::c_int = 1;
        // SAFETY: the descriptor is this open socket's; the value is an int of its size.
        let set = unsafe {
            libc::setsockopt(
                self.tcp.as_raw_fd(),
                libc::IPPROTO_TCP,
                libc::TCP_CORK,
                (&on as *const libc::c_int).cast(),
                std::mem::size_of::<libc::c_int>() as libc::socklen_t,
            )
        };
        assert_eq!(set, 0, "TCP_CORK: {}", std::io::Error::last_os_error());
        self.send(bytes).await;
        self.tcp.shutdown().await.expect("ending the sending side");
    }

    /// POSTs a JSON-RPC message to `path` with the headers a client sends.
    pub async fn post_json(&mut self, path: &str, extra: &[(&str, &str)], body: &str) {
        let mut headers = vec![
            ("content-type", "application/json"),
            ("accept", "application/json, text/event-stream"),
        ];
        headers.extend_from_slice(extra);
        self.request("POST", path, &headers, body).await;
    }

    /// Reads more bytes into `unread`; `false` once the server closed (or reset) the socket.
    async fn fill(&mut self, deadline: Instant, what: &str) -> bool {
        let mut chunk = [0; 8192];
        match tokio::time::timeout_at(deadline, self.tcp.read(&mut chunk)).await {
            Err(_) => panic!(
                "{what}: nothing within {PATIENCE:?}; so far: {}",
                self.text()
            ),
            Ok(Ok(0)) | Ok(Err(_)) => false,
            Ok(Ok(n)) => {
                self.unread.extend_from_slice(&chunk[..n]);
                true
            }
        }
    }

    fn text(&self) -> String {
        String::from_utf8_lossy(&self.unread).into_owned()
    }

    /// Reads a response's status line and headers.
    pub async fn head(&mut self) -> Answer {
        let deadline = Instant::now() + PATIENCE;
        loop {
            if let Some(end) = find(&self.unread, b"\r\n\r\n") {
                let head = String::from_utf8_lossy(&self.unread[..end]).to_lowercase();
                self.unread.drain(..end + 4);
                let status = head
                    .split_whitespace()
                    .nth(1)
                    .and_then(|s| s.parse().ok())
                    .unwrap_or_else(|| panic!("no status in {head:?}"));
                return Answer {
                    status,
                    head,
                    body: String::new(),
                };
            }
            if !self.fill(deadline, "a response head").await {
                panic!(
                    "the server closed before a response head; got {:?}",
                    self.text()
                );
            }
        }
    }

    /// Reads one whole response that has a `Content-Length`.
    pub async fn response(&mut self) -> Answer {
        let mut answer = self.head().await;
        let length: usize = answer
            .header("content-length")
            .and_then(|n| n.parse().ok())
            .unwrap_or_else(|| panic!("no content-length in {:?}", answer.head));
        let deadline = Instant::now() + PATIENCE;
        while self.unread.len() < length {
            if !self.fill(deadline, "a response body").await {
                panic!("the server closed within a response body");
            }
        }
        let body: Vec<u8> = self.unread.drain(..length).collect();
        answer.body = String::from_utf8_lossy(&body).into_owned();
        answer
    }

    /// Reads until `needle` arrives; returns everything read so far.
    pub async fn read_until(&mut self, needle: &str) -> String {
        let deadline = Instant::now() + PATIENCE;
        while find(&self.unread, needle.as_bytes()).is_none() {
            if !self.fill(deadline, needle).await {
                panic!("the server closed before `{needle}`; got {:?}", self.text());
            }
        }
        let text = self.text();
        self.unread.clear();
        text
    }

    /// Waits until the server closes the connection; returns what arrived before, and
    /// when the close was seen.
    pub async fn closed(&mut self) -> (String, Instant) {
        let deadline = Instant::now() + PATIENCE;
        while self
            .fill(deadline, "the server closing the connection")
            .await
        {}
        (self.text(), Instant::now())
    }
}

fn find(haystack: &[u8], needle: &[u8]) -> Option<usize> {
    haystack
        .windows(needle.len())
        .position(|window| window == needle)
}

pub const INITIALIZE: &str = r#"{"jsonrpc":"2.0","id":1,"method":"initialize","params":{"protocolVersion":"2025-11-25","capabilities":{},"clientInfo":{"name":"wire","version":"1"}}}"#;
pub const INITIALIZED: &str = r#"{"jsonrpc":"2.0","method":"notifications/initialized"}"#;
pub const PING: &str = r#"{"jsonrpc":"2.0","id":2,"method":"ping"}"#;

/// Initializes a 2025-11-25 session on `wire`; returns its id.
pub async fn initialize(wire: &mut Wire) -> String {
    wire.post_json("/mcp", &[], INITIALIZE).await;
    let answer = wire.response().await;
    assert_eq!(answer.status, 200, "initialize: {answer:?}");
    let session = answer
        .header("mcp-session-id")
        .unwrap_or_else(|| panic!("no session id in {:?}", answer.head))
        .to_string();
    let headers = [
        ("mcp-session-id", session.as_str()),
        ("mcp-protocol-version", "2025-11-25"),
    ];
    wire.post_json("/mcp", &headers, INITIALIZED).await;
    assert_eq!(
        wire.response().await.status,
        202,
        "notifications/initialized"
    );
    session
}

/// Pings on `session` over `wire`; the answer's status.
pub async fn ping(wire: &mut Wire, session: &str) -> u16 {
    let headers = [
        ("mcp-session-id", session),
        ("mcp-protocol-version", "2025-11-25"),
    ];
    wire.post_json("/mcp", &headers, PING).await;
    wire.response().await.status
}
