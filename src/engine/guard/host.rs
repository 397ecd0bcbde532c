//! The names a `Host` header or an allowed-host entry gives: split into host and port,
//! told loopback or not, and matched against the allowed-host patterns.

use std::borrow::Cow;
use std::net::IpAddr;

use super::MAX_HOST_BYTES;

/// Splits `host[:port]` or `[v6][:port]` into a lower-case host (brackets kept for IPv6)
/// and the port; `None` for text that is no authority.
pub(super) fn split_authority(authority: &str) -> Option<(Cow<'_, str>, Option<u16>)> {
    let (host, port) = if authority.starts_with('[') {
        let end = authority.find(']')?;
        let (host, rest) = authority.split_at(end + 1);
        match rest {
            "" => (host, None),
            _ => (host, Some(rest.strip_prefix(':')?)),
        }
    } else {
        match authority.rsplit_once(':') {
            Some((host, port)) => (host, Some(port)),
            None => (authority, None),
        }
    };
    let port = match port {
        Some(port) => Some(port.parse::<u16>().ok()?),
        None => None,
    };
    if host.is_empty() {
        return None;
    }
    let host = if host.bytes().any(|b| b.is_ascii_uppercase()) {
        Cow::Owned(host.to_ascii_lowercase())
    } else {
        Cow::Borrowed(host)
    };
    Some((host, port))
}

/// `127.0.0.1:PORT` or `localhost:PORT`, as a local client names the server it reached: a
/// loopback name, allowed at once without the general parse below (a debug build's
/// `rsplit_once`, port and address parsing cost 3 K instructions a request).
pub(super) fn is_plain_loopback(authority: &[u8]) -> bool {
    let port = authority
        .strip_prefix(b"127.0.0.1:")
        .or_else(|| authority.strip_prefix(b"localhost:"));
    let Some(port) = port.filter(|port| (1..=5).contains(&port.len())) else {
        return false;
    };
    // An index loop, as the rest of the Host check's fast way: a port's digits and value.
    let mut value = 0u32;
    let mut at = 0;
    while at < port.len() {
        let digit = port[at];
        if !digit.is_ascii_digit() {
            return false;
        }
        value = value * 10 + u32::from(digit - b'0');
        at += 1;
    }
    value <= u32::from(u16::MAX)
}

pub(super) fn is_loopback_host(host: &str) -> bool {
    if host == "localhost" {
        return true;
    }
    let bare = host
        .strip_prefix('[')
        .and_then(|h| h.strip_suffix(']'))
        .unwrap_or(host);
    bare.parse::<IpAddr>().is_ok_and(|ip| ip.is_loopback())
}

/// One allowed-host entry: `name`, `name:port`, `*.suffix` (any subdomain), or an IPv6
/// address in brackets.
#[derive(Debug)]
pub(super) struct HostPattern {
    pub(super) source: String,
    host: String,
    port: Option<u16>,
}

impl HostPattern {
    pub(super) fn parse(entry: &str) -> Result<Self, String> {
        if entry.is_empty() {
            return Err("must not be empty".into());
        }
        if entry.len() > MAX_HOST_BYTES {
            return Err(format!(
                "is {} bytes; a host has at most {MAX_HOST_BYTES}",
                entry.len()
            ));
        }
        if entry.contains("://") || entry.contains('/') {
            return Err(format!(
                "`{entry}` is a URL; give the host name only, as the Host header carries it (e.g. `mcp.example.com` or `mcp.example.com:8443`)"
            ));
        }
        let (host, port) = split_authority(entry)
            .ok_or_else(|| format!("`{entry}` is not a host name or `host:port`"))?;
        let name = host.strip_prefix("*.").unwrap_or(&host);
        let valid = if name.starts_with('[') {
            name.strip_prefix('[')
                .and_then(|n| n.strip_suffix(']'))
                .is_some_and(|n| n.parse::<std::net::Ipv6Addr>().is_ok())
        } else {
            !name.is_empty()
                && name
                    .chars()
                    .all(|c| c.is_ascii_alphanumeric() || matches!(c, '-' | '.' | '_'))
        };
        if !valid {
            return Err(format!(
                "`{entry}` is not a host name: use letters, digits, `-`, `.` and `_`, an optional `*.` prefix for any subdomain, and an optional `:port`"
            ));
        }
        Ok(HostPattern {
            source: entry.to_string(),
            host: host.into_owned(),
            port,
        })
    }

    pub(super) fn matches(&self, host: &str, port: Option<u16>) -> bool {
        if self.port.is_some() && self.port != port {
            return false;
        }
        match self.host.strip_prefix('*') {
            // `*.example.com`: a subdomain, not `example.com` itself.
            Some(suffix) => host.len() > suffix.len() && host.ends_with(suffix),
            None => self.host == host,
        }
    }
}
