//! JSON-RPC 2.0 envelopes: classifying what arrived and building what goes back. Knows no
//! HTTP and no MCP method.

use serde_json::{Map, Value, json};

use super::message::Message;

/// Error codes (JSON-RPC 2.0 and the MCP spec's table).
pub(crate) mod code {
    /// Invalid JSON.
    pub(crate) const PARSE_ERROR: i64 = -32700;
    /// Not a valid request object.
    pub(crate) const INVALID_REQUEST: i64 = -32600;
    /// Unknown or unadvertised method.
    pub(crate) const METHOD_NOT_FOUND: i64 = -32601;
    /// Invalid method parameters.
    pub(crate) const INVALID_PARAMS: i64 = -32602;
    /// The server failed (e.g. a prompt's template rendered something invalid).
    pub(crate) const INTERNAL_ERROR: i64 = -32603;
    /// `resources/read` or `resources/subscribe` of a URI the server does not have
    /// (2025-11-25 server/resources, "Error Handling").
    pub(crate) const RESOURCE_NOT_FOUND: i64 = -32002;
    /// The session id names no live session (implementation-defined range, as the
    /// TypeScript SDK uses it).
    pub(crate) const SESSION_NOT_FOUND: i64 = -32001;
    /// 2026-07-28: a request header disagrees with the body, or is missing (HTTP 400).
    pub(crate) const HEADER_MISMATCH: i64 = -32020;
    /// 2026-07-28: the request needs a client capability its `_meta` did not declare.
    pub(crate) const MISSING_CLIENT_CAPABILITY: i64 = -32021;
    /// 2026-07-28: the requested protocol version is not served (HTTP 400).
    pub(crate) const UNSUPPORTED_PROTOCOL_VERSION: i64 = -32022;
}

/// A JSON-RPC error object.
#[derive(Debug, Clone, PartialEq)]
pub(crate) struct RpcError {
    pub(crate) code: i64,
    pub(crate) message: String,
    pub(crate) data: Option<Value>,
}

impl RpcError {
    pub(crate) fn new(code: i64, message: impl Into<String>) -> Self {
        RpcError {
            code,
            message: message.into(),
            data: None,
        }
    }

    /// A stored JSON-RPC error object (a recorded or a task's error) as an error to answer;
    /// a missing `code` reads as `-32603`.
    pub(crate) fn from_value(error: &Value) -> Self {
        let code = error
            .get("code")
            .and_then(Value::as_i64)
            .unwrap_or(code::INTERNAL_ERROR);
        let message = error
            .get("message")
            .and_then(Value::as_str)
            .unwrap_or_default();
        let rpc = RpcError::new(code, message);
        match error.get("data") {
            Some(data) => rpc.with_data(data.clone()),
            None => rpc,
        }
    }

    pub(crate) fn with_data(mut self, data: Value) -> Self {
        self.data = Some(data);
        self
    }

    pub(crate) fn invalid_params(message: impl Into<String>) -> Self {
        RpcError::new(code::INVALID_PARAMS, message)
    }

    pub(crate) fn to_value(&self) -> Value {
        let mut error = Map::new();
        error.insert("code".into(), json!(self.code));
        error.insert("message".into(), json!(self.message));
        if let Some(data) = &self.data {
            error.insert("data".into(), data.clone());
        }
        Value::Object(error)
    }
}

/// What one JSON value in a POST body turned out to be.
#[derive(Debug, Clone, PartialEq)]
pub(crate) enum Incoming {
    Request {
        id: Value,
        method: String,
        params: Value,
    },
    Notification {
        method: String,
        params: Value,
    },
    Response {
        id: Value,
    },
    Invalid {
        /// The id, when one could be read, so the error can echo it.
        id: Value,
        reason: String,
    },
}

/// Classifies one message, naming the member at fault when it is not valid JSON-RPC.
pub(crate) fn classify(message: &Message) -> Incoming {
    let mut incoming = classify_as(message.members().map(Envelope::of), |params| params.clone());
    if let (Some(handshake), Incoming::Request { params, .. }) =
        (message.handshake(), &mut incoming)
    {
        *params = handshake.value().clone();
    }
    incoming
}

/// [`classify`] of a [`Message`], moving a request's or a notification's `params` out of it
/// instead of copying them: `message` keeps `"params": null` in their place, which
/// [`restore_params`] undoes for whoever needs the message whole (the log, when it cannot
/// keep the body's own text).
pub(crate) fn classify_taking(message: &mut Message) -> Incoming {
    taking(message, false)
}

/// [`classify_taking`], except that the params of an `initialize` read as a handshake stay in
/// the message, and the request's `params` are null: the handshake reads them from there,
/// without making them a value.
pub(crate) fn classify_leaving_handshake(message: &mut Message) -> Incoming {
    taking(message, true)
}

fn taking(message: &mut Message, leave_handshake: bool) -> Incoming {
    let mut incoming = classify_as(message.members().map(Envelope::of), |_| Value::Null);
    if leave_handshake && message.handshake().is_some() {
        return incoming;
    }
    if let Incoming::Request { params, .. } | Incoming::Notification { params, .. } = &mut incoming
        && let Some(slot) = message.member_mut("params")
    {
        *params = slot.take();
    }
    incoming
}

/// Puts back into `message` the `params` that [`classify_taking`] moved out of it (a
/// message whose `params` are still there is left as it is).
pub(crate) fn restore_params(message: &mut Message, params: &Value) {
    if message.handshake().is_some() {
        return;
    }
    if let Some(slot) = message.member_mut("params").filter(|slot| slot.is_null()) {
        *slot = params.clone();
    }
}

/// The classification of a message whose object's members are `found` (`None`: not an
/// object), `params` given by `keep` when it is a request or a notification.
fn classify_as(found: Option<Envelope<'_>>, keep: impl FnOnce(&Value) -> Value) -> Incoming {
    let Some(found) = found else {
        return invalid(Value::Null, "a JSON-RPC message must be a JSON object");
    };
    let raw_id = found.id;
    let echo_id = match raw_id {
        Some(id @ (Value::String(_) | Value::Number(_))) => id.clone(),
        _ => Value::Null,
    };
    if found.jsonrpc.and_then(Value::as_str) != Some("2.0") {
        return invalid(echo_id, r#"`jsonrpc` must be the string "2.0""#);
    }
    if let Some(id) = raw_id {
        let integer = id.as_i64().is_some() || id.as_u64().is_some();
        if !(id.is_string() || integer) {
            let why = match id {
                Value::Null => "`id` must be a string or an integer (MCP forbids null)",
                // serde_json reads an integer past 64 bits as a float, which rounds to the
                // nearest bound at worst.
                Value::Number(n)
                    if n.as_f64().is_some_and(|f| {
                        f.fract() == 0.0 && (f <= i64::MIN as f64 || f >= u64::MAX as f64)
                    }) =>
                {
                    "`id` must be a string or an integer within 64 bits"
                }
                Value::Number(_) => {
                    "`id` must be a string or an integer (written without a fraction or exponent)"
                }
                _ => "`id` must be a string or an integer",
            };
            return invalid(Value::Null, why);
        }
    }
    let params = found.params.unwrap_or(&Value::Null);
    if !(params.is_null() || params.is_object()) {
        return invalid(echo_id, "`params` must be an object");
    }
    let params = keep(params);
    match (found.method, raw_id) {
        (Some(Value::String(method)), Some(id)) => Incoming::Request {
            id: id.clone(),
            method: method.clone(),
            params,
        },
        (Some(Value::String(method)), None) => Incoming::Notification {
            method: method.clone(),
            params,
        },
        (Some(_), _) => invalid(echo_id, "`method` must be a string"),
        (None, Some(id)) => {
            if found.result == found.error {
                invalid(
                    echo_id,
                    "a response must have exactly one of `result` and `error`",
                )
            } else {
                Incoming::Response { id: id.clone() }
            }
        }
        (None, None) => invalid(
            Value::Null,
            "a message needs `method` (request, notification) or `id` (response)",
        ),
    }
}

/// The members of a message that classify it, found in one pass over its members: a
/// message has a handful, and each lookup by name would hash the name (SipHash, which a
/// debug build runs at about 2 K instructions a key).
#[derive(Default)]
struct Envelope<'a> {
    id: Option<&'a Value>,
    jsonrpc: Option<&'a Value>,
    method: Option<&'a Value>,
    params: Option<&'a Value>,
    result: bool,
    error: bool,
}

impl<'a> Envelope<'a> {
    /// Reads the members of an object (a name sent twice: the last one counts, as in a map).
    fn of(members: impl IntoIterator<Item = (&'a str, &'a Value)>) -> Envelope<'a> {
        let mut found = Envelope::default();
        for (key, value) in members {
            match key {
                "id" => found.id = Some(value),
                "jsonrpc" => found.jsonrpc = Some(value),
                "method" => found.method = Some(value),
                "params" => found.params = Some(value),
                "result" => found.result = true,
                "error" => found.error = true,
                _ => {}
            }
        }
        found
    }
}

/// The member `key` of `value`, found by comparing names rather than by hashing `key`: the
/// objects of a message are small, and a debug build hashes at about 2 K instructions a key.
pub(crate) fn member<'a>(value: &'a Value, key: &str) -> Option<&'a Value> {
    value
        .as_object()?
        .iter()
        .find(|(name, _)| *name == key)
        .map(|(_, value)| value)
}

fn invalid(id: Value, reason: &str) -> Incoming {
    Incoming::Invalid {
        id,
        reason: reason.to_string(),
    }
}

/// The start of a success response, up to its result's value: `{"jsonrpc":"2.0","id":ID,"result":`.
pub(crate) fn write_result_head(out: &mut Vec<u8>, id: &Value) -> serde_json::Result<()> {
    out.extend_from_slice(br#"{"jsonrpc":"2.0","id":"#);
    serde_json::to_writer(&mut *out, id)?;
    out.extend_from_slice(br#","result":"#);
    Ok(())
}

/// A success response as JSON text: byte for byte what `serde_json` writes for
/// [`result`]'s value, without building its three-member map, which a debug build hashes
/// at about 3 K instructions a member.
pub(crate) fn result_text(id: &Value, result: &Value) -> Vec<u8> {
    // Most answers fit: one allocation, no regrowing.
    let mut out = Vec::with_capacity(256);
    // Writing to a `Vec` cannot fail, and no limit is set.
    let _ = write_result_head(&mut out, id);
    let _ = crate::log::write_value(&mut out, result, usize::MAX);
    out.push(b'}');
    out
}

/// A success response.
pub(crate) fn result(id: &Value, result: Value) -> Value {
    // Built by hand: `json!` would copy `result` (it serializes what it interpolates).
    let mut response = Map::with_capacity(3);
    response.insert("jsonrpc".into(), Value::String("2.0".into()));
    response.insert("id".into(), id.clone());
    response.insert("result".into(), result);
    Value::Object(response)
}

/// An error response; without `id` when the request's id could not be read (`id` is
/// `Value::Null`), because MCP's `JSONRPCErrorResponse` has `id?: string | number`
/// (2025-11-25 basic/index.mdx "Error Responses") and the transport's HTTP errors carry "a
/// JSON-RPC error response that has no `id`" (basic/transports.mdx, every revision): the
/// JSON-RPC 2.0 `"id": null` fails the MCP schema.
pub(crate) fn error(id: &Value, error: &RpcError) -> Value {
    if id.is_null() {
        return json!({ "jsonrpc": "2.0", "error": error.to_value() });
    }
    json!({ "jsonrpc": "2.0", "id": id, "error": error.to_value() })
}

/// A notification.
pub(crate) fn notification(method: &str, params: Option<Value>) -> Value {
    match params {
        Some(params) => json!({ "jsonrpc": "2.0", "method": method, "params": params }),
        None => json!({ "jsonrpc": "2.0", "method": method }),
    }
}

#[cfg(test)]
mod tests {
    use proptest::prelude::*;

    use super::*;
    use crate::log::text::tests::any_value;

    proptest! {
        #[test]
        fn a_result_written_as_text_is_what_serde_json_writes_for_its_value(
            id in prop_oneof![any::<i64>().prop_map(Value::from), ".{0,8}".prop_map(Value::from)],
            value in any_value(),
        ) {
            let expected = serde_json::to_vec(&result(&id, value.clone())).expect("a Value serializes");
            prop_assert_eq!(result_text(&id, &value), expected);
        }
    }

    #[test]
    fn classifies_each_shape() {
        let classify = |message: Value| classify(&Message::from(message));
        let req = classify(json!({"jsonrpc": "2.0", "id": 1, "method": "ping"}));
        assert!(matches!(req, Incoming::Request { .. }));
        let note = classify(json!({"jsonrpc": "2.0", "method": "notifications/initialized"}));
        assert!(matches!(note, Incoming::Notification { .. }));
        let resp = classify(json!({"jsonrpc": "2.0", "id": "a", "result": {}}));
        assert!(matches!(resp, Incoming::Response { .. }));
    }

    #[test]
    fn an_id_of_the_wrong_kind_is_refused_saying_what_is_wrong_with_it() {
        let cases = [
            ("null", "MCP forbids null"),
            ("1.5", "without a fraction"),
            ("9.3e18", "without a fraction"),
            ("true", "a string or an integer"),
            ("-9223372036854775809", "within 64 bits"),
            ("18446744073709551616", "within 64 bits"),
        ];
        for (id, says) in cases {
            let text = format!(r#"{{"jsonrpc": "2.0", "id": {id}, "method": "ping"}}"#);
            let message: Value = serde_json::from_str(&text).expect("JSON");
            let Incoming::Invalid { id: echoed, reason } = classify(&Message::from(message)) else {
                panic!("{id}: refused");
            };
            assert_eq!(echoed, Value::Null, "{id}");
            assert!(reason.contains(says), "{id}: {reason}");
            assert!(id == "null" || !reason.contains("null"), "{id}: {reason}");
        }
        // The largest integers are ids.
        for id in [json!(i64::MIN), json!(u64::MAX)] {
            let message = json!({"jsonrpc": "2.0", "id": id, "method": "ping"});
            assert!(matches!(
                classify(&Message::from(message)),
                Incoming::Request { .. }
            ));
        }
    }

    #[test]
    fn taking_moves_the_params_out_and_restoring_puts_them_back_in_place() {
        let original =
            json!({"jsonrpc": "2.0", "params": {"name": "echo"}, "id": 1, "method": "tools/call"});
        let mut message = Message::from(original.clone());
        let Incoming::Request { params, .. } = classify_taking(&mut message) else {
            panic!("a request");
        };
        assert_eq!(params, json!({"name": "echo"}));
        assert_eq!(message.member("params"), Some(&Value::Null));
        restore_params(&mut message, &params);
        // Same members in the same order: the log writes the message's text from it.
        assert_eq!(message.into_value().to_string(), original.to_string());
        // An invalid message keeps its params, as sent.
        let mut bad =
            Message::from(json!({"jsonrpc": "2.0", "id": 1, "method": 7, "params": {"a": 1}}));
        assert!(matches!(
            classify_taking(&mut bad),
            Incoming::Invalid { .. }
        ));
        assert_eq!(bad.member("params"), Some(&json!({"a": 1})));
        // A message that is no object is invalid, as `classify` finds it.
        assert!(matches!(
            classify_taking(&mut Message::from(json!([1]))),
            Incoming::Invalid { .. }
        ));
    }

    #[test]
    fn an_error_leaves_out_an_id_it_could_not_read_and_echoes_one_it_could() {
        let error = RpcError::new(code::PARSE_ERROR, "Parse error");
        assert_eq!(
            super::error(&Value::Null, &error),
            json!({"jsonrpc": "2.0", "error": {"code": -32700, "message": "Parse error"}})
        );
        assert_eq!(super::error(&json!(7), &error)["id"], json!(7));
    }

    #[test]
    fn names_the_member_at_fault() {
        let cases = [
            (json!([]), "JSON object"),
            (json!({"id": 1, "method": "ping"}), "`jsonrpc`"),
            (
                json!({"jsonrpc": "2.0", "id": null, "method": "ping"}),
                "`id`",
            ),
            (
                json!({"jsonrpc": "2.0", "id": 1.5, "method": "ping"}),
                "`id`",
            ),
            (json!({"jsonrpc": "2.0", "id": 1, "method": 7}), "`method`"),
            (
                json!({"jsonrpc": "2.0", "id": 1, "method": "x", "params": [1]}),
                "`params`",
            ),
            (json!({"jsonrpc": "2.0", "id": 1}), "exactly one"),
        ];
        for (message, needle) in cases {
            match classify(&Message::from(message.clone())) {
                Incoming::Invalid { reason, .. } => {
                    assert!(reason.contains(needle), "{message}: {reason}")
                }
                other => panic!("{message} classified as {other:?}"),
            }
        }
    }
}
