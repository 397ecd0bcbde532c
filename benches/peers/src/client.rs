//! A minimal MCP client over one HTTP/1.1 keep-alive connection (hyper), the same for every
//! server measured: it sends `initialize`, `notifications/initialized` and `tools/call echo`,
//! and reads each answer whole, from a JSON body or an event stream.

use std::net::SocketAddr;

use bytes::Bytes;
use http_body_util::{BodyExt, Full};
use hyper::client::conn::http1::SendRequest;
use hyper::{Request, StatusCode};
use hyper_util::rt::TokioIo;
use serde_json::Value;

pub const PROTOCOL: &str = "2025-11-25";

/// One connection to one server, with the session it opened (if the server keeps sessions).
pub struct Connection {
    sender: SendRequest<Full<Bytes>>,
    host: String,
    path: String,
    session: Option<String>,
    next_id: u64,
}

pub type Failure = Box<dyn std::error::Error + Send + Sync>;

/// `http://HOST:PORT/PATH` split into the address to dial and the path.
pub fn parse_url(url: &str) -> Result<(SocketAddr, String), Failure> {
    let rest = url.strip_prefix("http://").ok_or("only http:// URLs")?;
    let (authority, path) = rest.split_once('/').unwrap_or((rest, ""));
    Ok((authority.parse()?, format!("/{path}")))
}

impl Connection {
    /// Dials `url` (Nagle off) without saying anything yet.
    pub async fn open(url: &str) -> Result<Connection, Failure> {
        let (addr, path) = parse_url(url)?;
        let tcp = tokio::net::TcpStream::connect(addr).await?;
        tcp.set_nodelay(true)?;
        // Closed with a reset, so no connection of the bench lingers in TIME_WAIT: a run
        // leaves tens of thousands of them, and while they last (60 s) every connect and
        // bind searches past them, which moved start-up figures by 3× between runs.
        tcp.set_zero_linger()?;
        let (sender, connection) = hyper::client::conn::http1::handshake(TokioIo::new(tcp)).await?;
        tokio::spawn(async move {
            let _ = connection.await;
        });
        Ok(Connection {
            sender,
            host: addr.to_string(),
            path,
            session: None,
            next_id: 0,
        })
    }

    /// `initialize` then `notifications/initialized`, keeping the session id it was given.
    pub async fn initialize(&mut self) -> Result<Value, Failure> {
        let answer = self.initialize_only().await?;
        let (status, _, _) = self
            .post(r#"{"jsonrpc":"2.0","method":"notifications/initialized"}"#.into())
            .await?;
        if status != StatusCode::ACCEPTED {
            return Err(format!("notifications/initialized answered {status}").into());
        }
        Ok(answer)
    }

    /// `initialize` alone: the session id it was given and the answer's body, as sent.
    pub async fn initialize_bytes(&mut self) -> Result<(Option<String>, Bytes), Failure> {
        let body = format!(
            r#"{{"jsonrpc":"2.0","id":0,"method":"initialize","params":{{"protocolVersion":"{PROTOCOL}","capabilities":{{}},"clientInfo":{{"name":"bench","version":"1.0.0"}}}}}}"#
        );
        let (status, session, answer) = self.post(body).await?;
        if status != StatusCode::OK {
            return Err(format!("initialize answered {status}").into());
        }
        Ok((session, answer))
    }

    /// `initialize` alone, answered.
    pub async fn initialize_only(&mut self) -> Result<Value, Failure> {
        let (session, answer) = self.initialize_bytes().await?;
        self.session = session;
        message(&answer)
    }

    /// One `tools/call` of `echo`; returns the text it echoed.
    pub async fn call(&mut self) -> Result<String, Failure> {
        self.next_id += 1;
        let body = format!(
            r#"{{"jsonrpc":"2.0","id":{},"method":"tools/call","params":{{"name":"echo","arguments":{{"message":"hello"}}}}}}"#,
            self.next_id
        );
        let (status, _, answer) = self.post(body).await?;
        if status != StatusCode::OK {
            return Err(format!("tools/call answered {status}").into());
        }
        let answer = message(&answer)?;
        answer
            .pointer("/result/content/0/text")
            .and_then(Value::as_str)
            .map(str::to_owned)
            .ok_or_else(|| format!("tools/call answered {answer}").into())
    }

    async fn post(&mut self, body: String) -> Result<(StatusCode, Option<String>, Bytes), Failure> {
        let mut request = Request::post(&self.path)
            .header("host", &self.host)
            .header("content-type", "application/json")
            .header("accept", "application/json, text/event-stream")
            .header("mcp-protocol-version", PROTOCOL);
        if let Some(session) = &self.session {
            request = request.header("mcp-session-id", session);
        }
        self.sender.ready().await?;
        let response = self
            .sender
            .send_request(request.body(Full::new(Bytes::from(body)))?)
            .await?;
        let status = response.status();
        let session = response
            .headers()
            .get("mcp-session-id")
            .and_then(|v| v.to_str().ok())
            .map(str::to_owned);
        let body = response.into_body().collect().await?.to_bytes();
        Ok((status, session, body))
    }
}

/// The JSON-RPC response in a body: the body itself, or the event-stream event that holds
/// a `result` or an `error`.
fn message(body: &[u8]) -> Result<Value, Failure> {
    if let Ok(value) = serde_json::from_slice::<Value>(body) {
        return Ok(value);
    }
    let text = std::str::from_utf8(body)?;
    for line in text.lines() {
        if let Some(data) = line.strip_prefix("data:")
            && let Ok(value) = serde_json::from_str::<Value>(data.trim_start())
            && (value.get("result").is_some() || value.get("error").is_some())
        {
            return Ok(value);
        }
    }
    Err(format!("no JSON-RPC response in {text:?}").into())
}
