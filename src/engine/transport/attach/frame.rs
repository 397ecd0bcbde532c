//! The frames a fixture (or the app) sends to a bridge process over its attach socket: one
//! kind byte, a 4-byte big-endian length, the payload. The bridge plays each on its real
//! stdout, stderr or exit status, so every stdio fault happens in the process the client
//! spawned. The other way, the bridge sends one hello line and then the client's stdin bytes
//! unframed.

use std::io;

use serde::{Deserialize, Serialize};
use tokio::io::{AsyncRead, AsyncReadExt};

use crate::engine::transport::lines::out::Out;

/// The attach protocol's version; a bridge of another version is refused by name.
pub(crate) const VERSION: u32 = 1;

#[cfg_attr(
    not(feature = "decoy-cli"),
    allow(dead_code, reason = "only the app's bridge reads frames")
)]
/// The longest frame a bridge accepts: past any line the server writes (its body limit).
pub(crate) const MAX_FRAME: usize = 256 * 1024 * 1024;

const HELLO: u8 = b'H';
const REFUSED: u8 = b'R';
const STDOUT: u8 = b'O';
const STDERR: u8 = b'E';
const EXIT: u8 = b'X';

/// The bridge's first line: who it is and which server it wants.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "camelCase", deny_unknown_fields)]
pub(crate) struct Request {
    pub(crate) version: u32,
    pub(crate) token: String,
    /// The app's server name; a fixture serves one server and ignores it.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub(crate) server: Option<String>,
}

/// The server's answer to a bridge it accepts: how the process must behave.
#[derive(Debug, Clone, Copy, Default, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "camelCase", deny_unknown_fields)]
pub(crate) struct Hello {
    pub(crate) version: u32,
    pub(crate) ignore_eof: bool,
    pub(crate) ignore_sigterm: bool,
}

#[cfg_attr(
    not(feature = "decoy-cli"),
    allow(dead_code, reason = "only the app's bridge reads frames")
)]
/// What a bridge reads from its socket.
#[derive(Debug, Clone, PartialEq, Eq)]
pub(crate) enum Frame {
    Hello(Hello),
    /// Why the server will not serve this bridge.
    Refused(String),
    Out(Out),
}

fn framed(kind: u8, payload: &[u8]) -> Vec<u8> {
    let mut bytes = Vec::with_capacity(5 + payload.len());
    bytes.push(kind);
    let len = u32::try_from(payload.len()).unwrap_or(u32::MAX);
    bytes.extend_from_slice(&len.to_be_bytes());
    bytes.extend_from_slice(payload);
    bytes
}

/// The frame of one item; `None` for a pause, which the sender plays itself.
pub(crate) fn encode(out: &Out) -> Option<Vec<u8>> {
    Some(match out {
        Out::Line(text) => {
            let mut line = Vec::with_capacity(text.len() + 1);
            line.extend_from_slice(text.as_bytes());
            line.push(b'\n');
            framed(STDOUT, &line)
        }
        Out::Raw(bytes) => framed(STDOUT, bytes),
        Out::Stderr(bytes) => framed(STDERR, bytes),
        Out::Exit(code) => framed(EXIT, &code.to_be_bytes()),
        Out::Pause(_) => return None,
    })
}

pub(crate) fn hello(hello: &Hello) -> Vec<u8> {
    framed(HELLO, &serde_json::to_vec(hello).unwrap_or_default())
}

pub(crate) fn refused(reason: &str) -> Vec<u8> {
    framed(REFUSED, reason.as_bytes())
}

#[cfg_attr(
    not(feature = "decoy-cli"),
    allow(dead_code, reason = "only the app's bridge reads frames")
)]
/// The next frame; `Ok(None)` when the socket closed between frames.
pub(crate) async fn read<R: AsyncRead + Unpin>(read: &mut R) -> io::Result<Option<Frame>> {
    let mut head = [0u8; 5];
    match read.read_exact(&mut head[..1]).await {
        Ok(_) => {}
        Err(error) if error.kind() == io::ErrorKind::UnexpectedEof => return Ok(None),
        Err(error) => return Err(error),
    }
    read.read_exact(&mut head[1..]).await?;
    let len = u32::from_be_bytes([head[1], head[2], head[3], head[4]]) as usize;
    if len > MAX_FRAME {
        return Err(io::Error::new(
            io::ErrorKind::InvalidData,
            format!("a frame of {len} bytes, above the limit of {MAX_FRAME}"),
        ));
    }
    let mut payload = vec![0u8; len];
    read.read_exact(&mut payload).await?;
    let invalid = |what: &str| io::Error::new(io::ErrorKind::InvalidData, what.to_string());
    Ok(Some(match head[0] {
        HELLO => Frame::Hello(
            serde_json::from_slice(&payload).map_err(|e| invalid(&format!("hello: {e}")))?,
        ),
        REFUSED => Frame::Refused(String::from_utf8_lossy(&payload).into_owned()),
        STDOUT => Frame::Out(Out::Raw(payload)),
        STDERR => Frame::Out(Out::Stderr(payload)),
        EXIT => {
            let code: [u8; 4] = payload
                .as_slice()
                .try_into()
                .map_err(|_| invalid("an exit frame of another length than 4"))?;
            Frame::Out(Out::Exit(i32::from_be_bytes(code)))
        }
        other => return Err(invalid(&format!("an unknown frame kind {other:#04x}"))),
    }))
}

#[cfg(test)]
mod tests {
    use super::*;

    #[tokio::test]
    async fn every_item_reads_back_as_what_the_bridge_plays() {
        let items = [
            Out::Line("{\"a\":1}".into()),
            Out::Raw(b"{\"jsonrpc".to_vec()),
            Out::Stderr(b"log\n".to_vec()),
            Out::Exit(3),
        ];
        let mut bytes = hello(&Hello {
            version: VERSION,
            ignore_eof: true,
            ignore_sigterm: false,
        });
        for item in &items {
            bytes.extend(encode(item).unwrap_or_default());
        }
        let mut read = bytes.as_slice();
        assert!(matches!(
            read_frame(&mut read).await,
            Some(Frame::Hello(Hello {
                ignore_eof: true,
                ..
            }))
        ));
        assert_eq!(
            read_frame(&mut read).await,
            Some(Frame::Out(Out::Raw(b"{\"a\":1}\n".to_vec())))
        );
        assert_eq!(
            read_frame(&mut read).await,
            Some(Frame::Out(Out::Raw(b"{\"jsonrpc".to_vec())))
        );
        assert_eq!(
            read_frame(&mut read).await,
            Some(Frame::Out(Out::Stderr(b"log\n".to_vec())))
        );
        assert_eq!(read_frame(&mut read).await, Some(Frame::Out(Out::Exit(3))));
        assert_eq!(read_frame(&mut read).await, None);
        assert!(encode(&Out::Pause(std::time::Duration::from_millis(5))).is_none());
    }

    async fn read_frame(read: &mut &[u8]) -> Option<Frame> {
        super::read(read).await.ok().flatten()
    }

    #[tokio::test]
    async fn a_frame_past_the_limit_is_an_error_not_an_allocation() {
        let mut bytes = vec![STDOUT];
        bytes.extend_from_slice(&u32::MAX.to_be_bytes());
        let error = super::read(&mut bytes.as_slice()).await.err();
        assert_eq!(error.map(|e| e.kind()), Some(io::ErrorKind::InvalidData));
    }
}
