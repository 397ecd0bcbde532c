//! `initialize` and `ping` (lifecycle page; ping utility page).

use std::sync::Arc;

use serde::Serialize;
use serde_json::value::RawValue;
use serde_json::{Value, json};

use crate::engine::Engine;
use crate::engine::declared::ServerInfo;
use crate::engine::protocol::era;
use crate::engine::protocol::handshake::Handshake;
use crate::engine::protocol::jsonrpc::{RpcError, write_result_head};
use crate::engine::state::sent::Sent;
use crate::engine::state::session::Session;
use crate::log::Transport;
use crate::log::write_str;

/// The `initialize` result (spec `InitializeResult`), members in the order they are written.
#[derive(Debug, Serialize)]
#[serde(rename_all = "camelCase")]
pub(crate) struct Initialized<'a> {
    protocol_version: &'static str,
    capabilities: &'static RawValue,
    server_info: ServerInfo<'a>,
    #[serde(skip_serializing_if = "Option::is_none")]
    instructions: Option<&'a str>,
}

impl Initialized<'_> {
    /// The success response to the `initialize` whose id is `id`, as JSON text. Written by
    /// hand: the same text `serde_json` writes for the typed response (the tests below hold
    /// them equal), without a debug build's byte-at-a-time escaping of a dozen constant
    /// names, which took 55 K of the 614 K instructions of a first answer.
    pub(crate) fn response_text(&self, id: &Value) -> serde_json::Result<Vec<u8>> {
        // Most answers fit: one allocation, no regrowing.
        let mut out = Vec::with_capacity(512);
        write_result_head(&mut out, id)?;
        out.extend_from_slice(br#"{"protocolVersion":"#);
        write_str(&mut out, self.protocol_version);
        out.extend_from_slice(br#","capabilities":"#);
        out.extend_from_slice(self.capabilities.get().as_bytes());
        out.extend_from_slice(br#","serverInfo":"#);
        self.server_info.write(&mut out)?;
        if let Some(instructions) = self.instructions {
            out.extend_from_slice(br#","instructions":"#);
            write_str(&mut out, instructions);
        }
        out.extend_from_slice(b"}}");
        Ok(out)
    }
}

/// What an `initialize` asked for, checked: the revision it requested, and the client's
/// `clientInfo` and `capabilities`, which its session keeps.
pub(crate) struct Hello {
    requested: String,
    client_info: Sent,
    capabilities: Sent,
}

impl Hello {
    /// Checks the params of an `initialize` that its message kept as a handshake, reading
    /// them from their text.
    pub(crate) fn of_handshake(handshake: &Handshake) -> Result<Hello, RpcError> {
        let requested = handshake
            .protocol_version()
            .and_then(string)
            .ok_or_else(|| must_be("protocolVersion", "a string"))?;
        let capabilities =
            object(handshake.capabilities()).ok_or_else(|| must_be("capabilities", "an object"))?;
        let client_info =
            object(handshake.client_info()).ok_or_else(|| must_be("clientInfo", "an object"))?;
        client_info_strings(handshake.client_info_strings())?;
        Ok(Hello {
            requested,
            client_info: Sent::text(client_info),
            capabilities: Sent::text(capabilities),
        })
    }

    /// Checks the params of an `initialize` read as a value, moving out what the session
    /// keeps.
    pub(crate) fn of_params(params: Value) -> Result<Hello, RpcError> {
        // One pass over the params, moving out what the session keeps, instead of a lookup
        // by name (and a hash of the name) for each member read and each member moved.
        let (mut requested, mut capabilities, mut client_info) = (None, None, None);
        if let Value::Object(members) = params {
            for (key, value) in members {
                match key.as_str() {
                    "protocolVersion" => requested = Some(value),
                    "capabilities" => capabilities = Some(value),
                    "clientInfo" => client_info = Some(value),
                    _ => {}
                }
            }
        }
        let Some(Value::String(requested)) = requested else {
            return Err(must_be("protocolVersion", "a string"));
        };
        let capabilities = capabilities
            .filter(Value::is_object)
            .ok_or_else(|| must_be("capabilities", "an object"))?;
        let client_info = client_info
            .filter(Value::is_object)
            .ok_or_else(|| must_be("clientInfo", "an object"))?;
        let mut strings = [false; 2];
        for (key, value) in client_info.as_object().into_iter().flatten() {
            match key.as_str() {
                "name" => strings[0] = value.is_string(),
                "version" => strings[1] = value.is_string(),
                _ => {}
            }
        }
        client_info_strings(strings)?;
        Ok(Hello {
            requested,
            client_info: client_info.into(),
            capabilities: capabilities.into(),
        })
    }
}

/// The string whose JSON text is `text`, when it is one: its text between the quotes when
/// it has no escape, which is every version a client sends.
fn string(text: &str) -> Option<String> {
    let inner = text.strip_prefix('"')?.strip_suffix('"')?;
    if !inner.contains('\\') {
        return Some(inner.to_string());
    }
    serde_json::from_str(text).ok()
}

/// `text`, when it is a JSON object's.
fn object(text: Option<&str>) -> Option<&str> {
    text.filter(|text| text.starts_with('{'))
}

/// `-32602` unless `clientInfo.name` and `clientInfo.version` are strings (`strings`, in
/// that order).
fn client_info_strings(strings: [bool; 2]) -> Result<(), RpcError> {
    for (field, is_string) in ["name", "version"].into_iter().zip(strings) {
        if !is_string {
            return Err(RpcError::invalid_params(format!(
                "initialize: `params.clientInfo.{field}` must be a string"
            )));
        }
    }
    Ok(())
}

/// Negotiates the revision `hello` requested and opens a session, which keeps the client's
/// `clientInfo` and `capabilities`.
pub(crate) fn initialize(
    engine: &Engine,
    hello: Hello,
    transport: Transport,
) -> Result<(Initialized<'_>, Arc<Session>), RpcError> {
    let Hello {
        requested,
        client_info,
        capabilities,
    } = hello;
    let Some(version) = era::negotiate(&requested, &engine.versions) else {
        return Err(RpcError::new(
            crate::engine::protocol::jsonrpc::code::INVALID_REQUEST,
            format!(
                "initialize: this server serves only the stateless protocol ({}), which has no initialize; send requests with `_meta` instead",
                crate::engine::protocol::era::versions_list(&engine.versions)
            ),
        )
        .with_data(json!({ "supported": engine.versions.iter().map(|v| v.as_str()).collect::<Vec<_>>(), "requested": requested })));
    };
    let session = engine
        .sessions
        .create(version, client_info, capabilities, transport);
    let result = Initialized {
        protocol_version: version.as_str(),
        capabilities: engine.declared_text(version),
        server_info: engine.identity(),
        instructions: engine.spec.instructions.as_deref(),
    };
    Ok((result, session))
}

/// `-32602` saying what `params.<key>` must be.
fn must_be(key: &str, what: &str) -> RpcError {
    RpcError::invalid_params(format!("initialize: `params.{key}` must be {what}"))
}

/// `ping` answers an empty result.
pub(crate) fn ping() -> Value {
    json!({})
}

#[cfg(test)]
mod tests {
    use super::*;

    /// The response as `serde_json` writes the typed value: what the hand-written text must
    /// equal byte for byte.
    fn reference(id: &Value, result: &Initialized<'_>) -> Vec<u8> {
        #[derive(Serialize)]
        struct Response<'a, R> {
            jsonrpc: &'static str,
            id: &'a Value,
            result: &'a R,
        }
        serde_json::to_vec(&Response {
            jsonrpc: "2.0",
            id,
            result,
        })
        .expect("serializable")
    }

    #[test]
    fn the_written_response_is_the_text_serde_json_writes() {
        let capabilities: &'static RawValue =
            Box::leak(RawValue::from_string(r#"{"tools":{"listChanged":true}}"#.into()).unwrap());
        let recorded = json!({ "name": "upstream", "version": "9", "icons": [] });
        let infos = [
            ServerInfo::Configured {
                name: "mcp-decoy",
                version: "0.1.0",
                title: None,
            },
            ServerInfo::Configured {
                name: "quote \" backslash \\ newline \n tab \t nul \u{0} é 漢 🙂",
                version: "\u{1f}",
                title: Some("title / with \u{7f} and \r"),
            },
            ServerInfo::Recorded(&recorded),
        ];
        let ids = [
            json!(0),
            json!(-7),
            json!(u64::MAX),
            json!("id \"quoted\" \\ \u{2028}"),
        ];
        for info in infos {
            for instructions in [None, Some("Use `echo`.\n\"Quoted\" \\ \u{1}")] {
                for id in &ids {
                    let initialized = Initialized {
                        protocol_version: "2025-11-25",
                        capabilities,
                        server_info: info,
                        instructions,
                    };
                    let written = initialized.response_text(id).expect("written");
                    assert_eq!(
                        String::from_utf8_lossy(&written),
                        String::from_utf8_lossy(&reference(id, &initialized)),
                    );
                }
            }
        }
    }
}
