//! The frames a fixture (or the app) sends to a bridge process over its attach socket: one
//! kind byte, a 4-byte big-endian length, the payload. The bridge plays each on its real
//! stdout, stderr or exit status (`bridge.rs`, which reads them), so every stdio fault
//! happens in the process the client spawned. The other way, the bridge sends one hello line
//! and then the client's stdin bytes unframed.

use serde::{Deserialize, Serialize};

use crate::engine::transport::lines::out::Out;

pub(crate) use super::bridge::VERSION;
use super::bridge::{EXIT, HELLO, REFUSED, STDERR, STDOUT};

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

#[cfg(test)]
mod tests {
    use super::super::bridge::read_frame;
    use super::*;

    #[test]
    fn every_item_reads_back_as_what_the_bridge_plays() {
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
        bytes.extend(refused("no"));
        let mut read = bytes.as_slice();
        let mut next = || read_frame(&mut read).ok().flatten();
        assert_eq!(
            next(),
            Some((
                HELLO,
                br#"{"version":1,"ignoreEof":true,"ignoreSigterm":false}"#.to_vec()
            ))
        );
        assert_eq!(next(), Some((STDOUT, b"{\"a\":1}\n".to_vec())));
        assert_eq!(next(), Some((STDOUT, b"{\"jsonrpc".to_vec())));
        assert_eq!(next(), Some((STDERR, b"log\n".to_vec())));
        assert_eq!(next(), Some((EXIT, 3i32.to_be_bytes().to_vec())));
        assert_eq!(next(), Some((REFUSED, b"no".to_vec())));
        assert_eq!(next(), None);
        assert!(encode(&Out::Pause(std::time::Duration::from_millis(5))).is_none());
    }
}
