//! The modern era (2026-07-28) beside the legacy one on the same endpoint: stateless
//! requests that carry their protocol version and the client's capabilities in `_meta`,
//! checked against the request headers (`2026-07-28/basic/transports/streamable-http.mdx`,
//! `basic/index.mdx`, `basic/versioning.mdx`, `server/discover.mdx`,
//! `server/utilities/caching.mdx`): which message belongs to which era, and the checks a
//! modern request must pass, in the order the conformance suite applies them.
//!
//! The header checks are Streamable HTTP's: a transport without headers (a byte stream)
//! passes `None` and only the `_meta` rules apply.

use std::borrow::Cow;

use base64::Engine as _;
use http::header::AsHeaderName;
use http::{HeaderMap, HeaderValue};
use serde_json::{Value, json};

use super::era::versions_list;
use super::handshake::each_member;
use super::jsonrpc::{RpcError, code, member};
use super::message::Message;
use super::method::{INITIALIZE, Method};
use super::param_headers::{is_tchar, param_headers};
use super::required;
use super::{McpHeaders, Status, VERSION_HEADER_NAME};
use crate::spec::{LogLevel, ProtocolVersion, Step, ToolSpec};

/// `_meta` keys of a modern request (`basic/index.mdx`, "Request metadata").
pub(crate) const META_VERSION: &str = "io.modelcontextprotocol/protocolVersion";
const META_CAPABILITIES: &str = "io.modelcontextprotocol/clientCapabilities";
const META_CLIENT_INFO: &str = "io.modelcontextprotocol/clientInfo";
const META_LOG_LEVEL: &str = "io.modelcontextprotocol/logLevel";
pub(crate) const META_SERVER_INFO: &str = "io.modelcontextprotocol/serverInfo";
pub(crate) use super::required::TASKS_EXTENSION;

const METHOD_HEADER: &str = "mcp-method";
const NAME_HEADER: &str = "mcp-name";

/// Methods that exist only in the legacy era; a modern request for them is an unknown
/// method (`2026-07-28/deprecated.mdx`).
const LEGACY_ONLY: &[&str] = &[
    "initialize",
    "ping",
    "logging/setLevel",
    "resources/subscribe",
    "resources/unsubscribe",
    // The extension removed them: results come inlined in `tasks/get`, and there is no
    // listing (the suite's tasks-dispatch-and-envelope).
    "tasks/result",
    "tasks/list",
];

/// Methods whose complete results carry caching hints (`server/utilities/caching.mdx`).
pub(crate) const CACHEABLE: &[&str] = &[
    "server/discover",
    "tools/list",
    "prompts/list",
    "resources/list",
    "resources/templates/list",
    "resources/read",
    "skills/list",
    "skills/get",
    "resources/directory/read",
];

/// Whether a POSTed message belongs to the modern era: it carries the modern `_meta`
/// version, or it names a non-legacy version in the header without a legacy session. A
/// server that serves no modern version has no modern era at all, and a server that serves
/// only modern versions has nothing else (`basic/versioning.mdx`, "Backward Compatibility").
pub(crate) fn is_modern(
    served: &[ProtocolVersion],
    message: &Message,
    headers: Option<&McpHeaders>,
) -> bool {
    // A legacy-only server answers a modern request as a legacy one would (400: no
    // session), which is what tells a dual-era client to fall back to `initialize`.
    if !served.iter().any(|v| v.is_modern()) {
        return false;
    }
    // A modern-only server validates everything as modern: a legacy `initialize` fails
    // header validation with 400, as the compatibility matrix says.
    if served.iter().all(|v| v.is_modern()) {
        return true;
    }
    let meta_version = match message.handshake() {
        Some(handshake) => handshake.meta().is_some_and(|meta| {
            let mut named = false;
            each_member(meta, |name, _| named |= name == META_VERSION).is_ok() && named
        }),
        None => message
            .member("params")
            .and_then(|p| member(p, "_meta"))
            .and_then(|m| member(m, META_VERSION))
            .is_some(),
    };
    if meta_version {
        return true;
    }
    // Without headers (a byte stream) only `_meta` tells.
    let Some(headers) = headers else {
        return false;
    };
    if headers.session.is_some() {
        return false;
    }
    let header = headers.version.as_ref().map(value_text);
    match header.as_deref().map(ProtocolVersion::parse) {
        Some(Some(version)) => version.is_modern(),
        // A version this server does not know at all, outside any session: answer as modern
        // (-32022), which tells a modern client what is served.
        Some(None) => message.member("method").and_then(Value::as_str) != Some(INITIALIZE),
        None => false,
    }
}

/// What a checked modern request declared.
#[derive(Debug, Clone)]
pub(crate) struct Declared {
    pub(crate) version: ProtocolVersion,
    pub(crate) capabilities: Value,
    pub(crate) client_info: Value,
    pub(crate) log_level: Option<LogLevel>,
}

/// A refused request: how it stands and the JSON-RPC error.
pub(crate) type Refusal = (Status, RpcError);

/// What the server serves, as far as the checks of one request need it.
#[derive(Debug, Clone, Copy)]
pub(crate) struct Served<'a> {
    /// Served revisions, newest first.
    pub(crate) versions: &'a [ProtocolVersion],
    /// The tool a `tools/call` names, when the catalog has it.
    pub(crate) tool: Option<&'a ToolSpec>,
    /// The prompt a `prompts/get` names, or the resource template a `resources/read`
    /// reads, when the catalog has it: its kind, name and script, whose `ask`s need their
    /// capabilities as a tool's do.
    pub(crate) asking: Option<(&'static str, &'a str, &'a [Step])>,
    /// Whether the server declares the capability the method belongs to: capabilities
    /// match handlers, so a method of an undeclared one is an unknown method, 404 like any
    /// other (`server/discover.mdx`; transports, "Protocol Version Header").
    pub(crate) declares_method: bool,
    /// Whether the routing headers (`Mcp-Method`, `Mcp-Name`, `Mcp-Param-*`) are checked.
    pub(crate) routing_headers: bool,
}

/// A header's value, trimmed; borrowed unless it had to be mended (not UTF-8).
fn header_text<'a>(headers: &'a HeaderMap, name: impl AsHeaderName) -> Option<Cow<'a, str>> {
    headers.get(name).map(value_text)
}

/// A header value as text, trimmed; borrowed unless it had to be mended (not UTF-8).
fn value_text(value: &HeaderValue) -> Cow<'_, str> {
    match String::from_utf8_lossy(value.as_bytes()) {
        Cow::Borrowed(text) => Cow::Borrowed(text.trim()),
        Cow::Owned(text) => Cow::Owned(text.trim().to_string()),
    }
}

fn mismatch(message: String) -> Refusal {
    (
        Status::BadRequest,
        RpcError::new(code::HEADER_MISMATCH, message),
    )
}

/// The checks of a modern request, in the order the conformance suite's own mock applies
/// them (spec README, section 3): header version present, required `_meta`, header equals
/// `_meta`, version served, then `Mcp-Method` / `Mcp-Name`, then routing.
pub(crate) fn check(
    served: Served<'_>,
    headers: Option<&HeaderMap>,
    method: &str,
    params: &Value,
) -> Result<Declared, Refusal> {
    let header_version = match headers {
        Some(headers) => Some(header_text(headers, &VERSION_HEADER_NAME).ok_or_else(|| {
            mismatch(format!(
                "the MCP-Protocol-Version header is required on every 2026-07-28 request; this server supports {}",
                versions_list(served.versions)
            ))
        })?),
        None => None,
    };
    let meta = params.get("_meta").and_then(Value::as_object);
    let meta_version = meta
        .and_then(|m| m.get(META_VERSION))
        .and_then(Value::as_str)
        .ok_or_else(|| {
            (
                Status::BadRequest,
                RpcError::invalid_params(format!(
                    "`params._meta[\"{META_VERSION}\"]` is required (a string naming the protocol version)"
                )),
            )
        })?;
    let capabilities = meta
        .and_then(|m| m.get(META_CAPABILITIES))
        .filter(|c| c.is_object())
        .cloned()
        .ok_or_else(|| {
            (
                Status::BadRequest,
                RpcError::invalid_params(format!(
                    "`params._meta[\"{META_CAPABILITIES}\"]` is required (an object of the client's capabilities)"
                )),
            )
        })?;
    if let Some(header_version) = header_version.filter(|h| h != meta_version) {
        return Err(mismatch(format!(
            "MCP-Protocol-Version header `{header_version}` does not match `_meta` protocolVersion `{meta_version}`"
        )));
    }
    let names: Vec<&str> = served.versions.iter().map(|v| v.as_str()).collect();
    let version = ProtocolVersion::parse(meta_version)
        .filter(|v| v.is_modern() && served.versions.contains(v))
        .ok_or_else(|| {
            (
                Status::BadRequest,
                RpcError::new(
                    code::UNSUPPORTED_PROTOCOL_VERSION,
                    format!("protocol version `{meta_version}` is not supported; this server supports {}", names.join(", ")),
                )
                .with_data(json!({ "supported": names, "requested": meta_version })),
            )
        })?;
    if let Some(headers) = headers.filter(|_| served.routing_headers) {
        check_method_header(headers, method)?;
        check_name_header(headers, method, params)?;
        check_param_headers(headers, served.tool, params)?;
    }
    if LEGACY_ONLY.contains(&method) || Method::parse(method).is_none() || !served.declares_method {
        return Err((
            Status::NotFound,
            RpcError::new(
                code::METHOD_NOT_FOUND,
                format!("Method not found: `{method}` is not a 2026-07-28 method of this server"),
            ),
        ));
    }
    let missing = |error| (Status::BadRequest, error);
    required::capabilities(method, served.tool, &capabilities).map_err(missing)?;
    if let Some((kind, name, script)) = served.asking {
        let what = format!("{kind} `{name}`");
        required::asks(&what, script, &capabilities).map_err(missing)?;
    }
    let log_level = match meta.and_then(|m| m.get(META_LOG_LEVEL)) {
        None | Some(Value::Null) => None,
        Some(level) => Some(level.as_str().and_then(LogLevel::parse).ok_or_else(|| {
            (
                Status::BadRequest,
                RpcError::invalid_params(format!(
                    "`params._meta[\"{META_LOG_LEVEL}\"]` must be one of debug, info, notice, warning, error, critical, alert, emergency; got {level}"
                )),
            )
        })?),
    };
    let client_info = meta
        .and_then(|m| m.get(META_CLIENT_INFO))
        .cloned()
        .unwrap_or(Value::Null);
    Ok(Declared {
        version,
        capabilities,
        client_info,
        log_level,
    })
}

/// A refusal of `initialize`, which 2026-07-28 does not have, also names the versions this
/// server supports: a legacy client has no way forward, and this message may be all its
/// user sees (`basic/versioning.mdx`, "Backward Compatibility").
pub(crate) fn explain_initialize(
    versions: &[ProtocolVersion],
    method: &str,
    mut error: RpcError,
) -> RpcError {
    if method == INITIALIZE && !error.message.contains("this server supports") {
        error.message = format!(
            "{}; this server supports {} and 2026-07-28 has no initialize",
            error.message,
            versions_list(versions)
        );
    }
    error
}

/// `Mcp-Method` must equal `method`, case-sensitively.
fn check_method_header(headers: &HeaderMap, method: &str) -> Result<(), Refusal> {
    match header_text(headers, METHOD_HEADER) {
        Some(sent) if sent == method => Ok(()),
        Some(sent) => Err(mismatch(format!(
            "Mcp-Method header `{sent}` does not match the body's method `{method}`"
        ))),
        None => Err(mismatch(format!(
            "the Mcp-Method header is required; send `Mcp-Method: {method}`"
        ))),
    }
}

/// `Mcp-Name` must equal `params.name` (tools/call, prompts/get), `params.uri`
/// (resources/read) or `params.taskId` (tasks/get, tasks/update, tasks/cancel: the tasks
/// extension's "Streamable HTTP: Routing Headers"), after decoding the `=?base64?…?=` form.
fn check_name_header(headers: &HeaderMap, method: &str, params: &Value) -> Result<(), Refusal> {
    let field = match Method::parse(method) {
        Some(Method::ToolsCall | Method::PromptsGet) => "name",
        Some(Method::ResourcesRead) => "uri",
        Some(Method::TasksGet | Method::TasksUpdate | Method::TasksCancel) => "taskId",
        _ => return Ok(()),
    };
    let Some(expected) = params.get(field).and_then(Value::as_str) else {
        // The handler reports the missing field as -32602.
        return Ok(());
    };
    let Some(sent) = header_text(headers, NAME_HEADER) else {
        return Err(mismatch(format!(
            "the Mcp-Name header is required for {method}; send the value of params.{field}"
        )));
    };
    let decoded = decode_header_value(&sent)
        .map_err(|reason| mismatch(format!("Mcp-Name header `{sent}`: {reason}")))?;
    if decoded == expected {
        Ok(())
    } else {
        Err(mismatch(format!(
            "Mcp-Name header `{decoded}` does not match params.{field} `{expected}`"
        )))
    }
}

/// `Mcp-Param-{Name}` headers of a `tools/call` (`basic/transports/streamable-http.mdx`,
/// "Custom Headers from Tool Parameters"): for each `x-mcp-header` property with a value in
/// the arguments, the header must be there and equal it after decoding; integers compare
/// numerically, booleans as `true`/`false`. An absent or null argument needs no header.
fn check_param_headers(
    headers: &HeaderMap,
    tool: Option<&ToolSpec>,
    params: &Value,
) -> Result<(), Refusal> {
    let Some(tool) = tool else {
        return Ok(());
    };
    let arguments = params.get("arguments").unwrap_or(&Value::Null);
    for annotation in param_headers(&tool.input_schema) {
        // A tool published with `allow_invalid_headers` may carry annotations no client can
        // mirror; only well-formed names are checked.
        let Some(name) = annotation
            .header
            .as_str()
            .filter(|n| !n.is_empty() && n.chars().all(is_tchar))
        else {
            continue;
        };
        let header = format!("Mcp-Param-{name}");
        let field = format!("params.arguments.{}", annotation.path.join("."));
        let mut sent = headers.get_all(header.to_ascii_lowercase().as_str()).iter();
        let (first, again) = (sent.next(), sent.next());
        if again.is_some() {
            return Err(mismatch(format!(
                "the {header} header was sent more than once"
            )));
        }
        let sent = match first {
            None => None,
            Some(value) => Some(value.to_str().map(str::trim).map_err(|_| {
                mismatch(format!(
                    "the {header} header has characters outside visible ASCII; send such values as =?base64?…?="
                ))
            })?),
        };
        let decoded = match sent {
            None => None,
            Some(raw) => Some(
                decode_header_value(raw)
                    .map_err(|reason| mismatch(format!("{header} header `{raw}`: {reason}")))?,
            ),
        };
        let value = annotation
            .path
            .iter()
            .try_fold(arguments, |value, key| value.get(*key))
            .filter(|v| !v.is_null());
        let Some(value) = value else {
            continue;
        };
        // Objects and arrays are never mirrored (only a tool published with invalid
        // annotations can have them).
        let Some(expected) = header_form(value) else {
            continue;
        };
        let Some(decoded) = decoded else {
            return Err(mismatch(format!(
                "the {header} header is required: {field} is {value}; send `{header}: {expected}` (=?base64?…?= for values that are not plain visible ASCII)"
            )));
        };
        let equal = match value {
            Value::Number(number) => numerically_equal(&decoded, number),
            _ => decoded == expected,
        };
        if !equal {
            return Err(mismatch(format!(
                "{header} header `{decoded}` does not match {field} `{expected}`"
            )));
        }
    }
    Ok(())
}

/// How a primitive argument travels in a header: strings as they are, numbers in decimal,
/// booleans as `true`/`false`; `None` for objects and arrays.
fn header_form(value: &Value) -> Option<String> {
    match value {
        Value::String(text) => Some(text.clone()),
        Value::Number(number) => Some(number.to_string()),
        Value::Bool(flag) => Some(flag.to_string()),
        _ => None,
    }
}

/// Whether header text names the same number as the argument (`42`, `42.0` and `4.2e1`
/// all match 42).
fn numerically_equal(text: &str, number: &serde_json::Number) -> bool {
    if let (Ok(sent), Some(expected)) = (text.parse::<i64>(), number.as_i64()) {
        return sent == expected;
    }
    if let (Ok(sent), Some(expected)) = (text.parse::<u64>(), number.as_u64()) {
        return sent == expected;
    }
    match (text.parse::<f64>(), number.as_f64()) {
        (Ok(sent), Some(expected)) => sent.is_finite() && sent == expected,
        _ => false,
    }
}

/// Decodes a header value: `=?base64?…?=` is strict base64 of UTF-8; anything without the
/// whole wrapper is literal (`server/tools.mdx`, "x-mcp-header").
pub(crate) fn decode_header_value(value: &str) -> Result<String, String> {
    let Some(inner) = value
        .strip_prefix("=?base64?")
        .and_then(|v| v.strip_suffix("?="))
    else {
        return Ok(value.to_string());
    };
    let bytes = base64::engine::general_purpose::STANDARD
        .decode(inner)
        .map_err(|e| format!("the =?base64?…?= value is not valid base64 ({e})"))?;
    String::from_utf8(bytes).map_err(|_| "the =?base64?…?= value is not UTF-8".to_string())
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn header_values_decode_only_the_whole_base64_wrapper() {
        assert_eq!(
            decode_header_value("=?base64?aMOpbGxv?=").as_deref(),
            Ok("héllo")
        );
        assert_eq!(
            decode_header_value("=?base64?aGVsbG8").as_deref(),
            Ok("=?base64?aGVsbG8")
        );
        assert!(decode_header_value("=?base64?a*b?=").is_err());
        assert_eq!(
            decode_header_value("=?base64?aGVsbG8=?=").as_deref(),
            Ok("hello")
        );
        assert!(
            decode_header_value("=?base64?aGVsbG8?=").is_err(),
            "missing padding"
        );
    }
}
