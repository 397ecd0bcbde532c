//! `http-custom-headers` and `http-invalid-tool-headers`: a client mirrors the tool
//! parameters an `x-mcp-header` annotation designates into `Mcp-Param-{Name}` headers,
//! encoded as the spec says, and drops a tool whose annotation is invalid (SEP-2243; the
//! suite's `src/scenarios/client/http-custom-headers.ts`).

use base64::Engine as _;
use base64::engine::{DecodePaddingMode, GeneralPurpose, GeneralPurposeConfig};
use serde_json::{Value, json};

use super::{js_string, posts, truthy};
use crate::grade::check::{Check, CheckStatus, SpecReference};
use crate::log::{HttpExchange, Log};
use crate::{MockMcpServer, MockMcpServerBuilder, ProtocolVersion, Tool};

const TOOL: &str = "test_custom_headers";
const NULL_TOOL: &str = "test_custom_headers_null";
const SUPPORTS: &str = "sep-2243-client-supports-custom-headers";
const MIRRORS: &str = "sep-2243-client-mirrors-designated-params";
const ENCODES: &str = "sep-2243-client-encode-values";
const BASE64: &str = "sep-2243-client-base64-unsafe";
const OMIT_NULL: &str = "sep-2243-client-omit-null";
/// Every check `http-custom-headers` can emit; one never emitted is a FAILURE.
const DECLARED: [&str; 5] = [SUPPORTS, MIRRORS, ENCODES, BASE64, OMIT_NULL];

fn custom() -> SpecReference {
    SpecReference::new(
        "SEP-2243-Custom-Headers",
        "https://modelcontextprotocol.io/specification/draft/basic/transports#custom-headers-from-tool-parameters",
    )
}

fn encoding() -> SpecReference {
    SpecReference::new(
        "SEP-2243-Value-Encoding",
        "https://modelcontextprotocol.io/specification/draft/basic/transports#value-encoding",
    )
}

fn tool_definition() -> SpecReference {
    SpecReference::new(
        "SEP-2243-x-mcp-header",
        "https://modelcontextprotocol.io/specification/draft/server/tools#x-mcp-header",
    )
}

/// The annotated parameters of [`TOOL`], in the order the suite checks them after `Region`
/// and `Priority`: (argument, header, JSON type, description).
const OPTIONAL: [(&str, &str, &str, &str); 12] = [
    ("verbose", "Verbose", "boolean", "Boolean value"),
    ("debug", "Debug", "boolean", "Boolean true value"),
    ("empty_val", "EmptyVal", "string", "Empty string value"),
    (
        "method_val",
        "Method",
        "string",
        "Value for header named \"Method\" — tests that x-mcp-header \"Method\" produces \
         Mcp-Param-Method (not Mcp-Method)",
    ),
    (
        "non_ascii_val",
        "NonAscii",
        "string",
        "Non-ASCII string value — requires Base64 encoding",
    ),
    (
        "whitespace_val",
        "Whitespace",
        "string",
        "String with leading/trailing whitespace — requires Base64 encoding",
    ),
    (
        "leading_space_val",
        "LeadingSpace",
        "string",
        "String with leading space only — requires Base64 encoding",
    ),
    (
        "trailing_space_val",
        "TrailingSpace",
        "string",
        "String with trailing space only — requires Base64 encoding",
    ),
    (
        "internal_space_val",
        "InternalSpace",
        "string",
        "String with internal spaces only — plain ASCII, no Base64",
    ),
    (
        "control_char_val",
        "ControlChar",
        "string",
        "String with control characters — requires Base64 encoding",
    ),
    (
        "crlf_val",
        "CrLf",
        "string",
        "String with carriage return and line feed — requires Base64 encoding",
    ),
    (
        "tab_val",
        "Tab",
        "string",
        "String with leading tab — requires Base64 encoding",
    ),
];

fn annotated(kind: &str, description: &str, header: &str) -> Value {
    json!({ "type": kind, "description": description, "x-mcp-header": header })
}

pub(super) fn server() -> MockMcpServerBuilder {
    let mut properties = serde_json::Map::new();
    properties.insert(
        "region".into(),
        annotated("string", "Plain ASCII string value", "Region"),
    );
    properties.insert(
        "priority".into(),
        annotated("integer", "Integer numeric value", "Priority"),
    );
    for (argument, header, kind, description) in OPTIONAL {
        properties.insert(argument.into(), annotated(kind, description, header));
        if argument == "method_val" {
            // The suite's order of properties: the unannotated number sits here.
            properties.insert(
                "float_val".into(),
                json!({
                    "type": "number",
                    "description": "Floating point value — no x-mcp-header annotation, should not be mirrored"
                }),
            );
        }
    }
    properties.insert(
        "query".into(),
        json!({ "type": "string", "description": "No x-mcp-header annotation - should not be mirrored" }),
    );
    let done = json!({ "content": [{ "type": "text", "text": "Custom headers test completed" }] });
    MockMcpServer::builder()
        .name("http-custom-headers-server")
        .version("1.0.0")
        .tool(
            Tool::new(TOOL)
                .description(
                    "A tool with x-mcp-header annotations to test custom header mirroring and \
                     encoding",
                )
                .input_schema(json!({
                    "type": "object",
                    "properties": properties,
                    "required": ["region", "priority", "query"]
                }))
                .respond_with(done.clone()),
        )
        .tool(
            Tool::new(NULL_TOOL)
                .description("A tool for testing null/omitted x-mcp-header parameter handling")
                .input_schema(json!({
                    "type": "object",
                    "properties": {
                        "region": annotated("string", "Plain ASCII string value", "Region"),
                        "priority": annotated("integer", "Integer numeric value", "Priority"),
                        "verbose": annotated("boolean", "Boolean value — will be null to test omission", "Verbose"),
                        "query": { "type": "string", "description": "No x-mcp-header annotation" }
                    },
                    "required": ["region", "priority", "query"]
                }))
                .respond_with(done),
        )
}

/// The calls the client is to make, with the values that reach each encoding edge.
#[allow(clippy::approx_constant, reason = "the suite's float argument, not π")]
pub(super) fn context(_: &MockMcpServer) -> Option<Value> {
    Some(json!({
        "toolCalls": [
            {
                "name": TOOL,
                "arguments": {
                    "region": "us-west1",
                    "priority": 42,
                    "verbose": false,
                    "debug": true,
                    "empty_val": "",
                    "method_val": "test-method",
                    "float_val": 3.14159,
                    "non_ascii_val": "Hello, 世界",
                    "whitespace_val": " padded ",
                    "leading_space_val": " us-west1",
                    "trailing_space_val": "us-west1 ",
                    "internal_space_val": "us west 1",
                    "control_char_val": "line1\nline2",
                    "crlf_val": "line1\r\nline2",
                    "tab_val": "\tindented",
                    "query": "SELECT * FROM users"
                }
            },
            {
                "name": NULL_TOOL,
                "arguments": { "region": "us-east1", "priority": 1, "verbose": null, "query": "SELECT 1" }
            }
        ]
    }))
}

/// The `tools/call` POSTs, with the tool they name and their arguments.
fn calls(log: &Log) -> Vec<(&HttpExchange, &str, &Value)> {
    posts(log)
        .into_iter()
        .filter(|(_, body)| body["method"] == "tools/call")
        .filter_map(|(exchange, body)| {
            let name = body.pointer("/params/name")?.as_str()?;
            let arguments = body.pointer("/params/arguments").unwrap_or(&Value::Null);
            Some((exchange, name, arguments))
        })
        .collect()
}

pub(super) fn checks(log: &Log, _version: ProtocolVersion) -> Vec<Check> {
    let mut checks = Vec::new();
    let (mut called, mut called_null) = (false, false);
    for (exchange, tool, arguments) in calls(log) {
        if tool == TOOL {
            called = true;
            checks.extend(call_checks(exchange, arguments));
        } else if tool == NULL_TOOL {
            called_null = true;
            let verbose = exchange.request_header("mcp-param-verbose");
            let check = Check::new(
                OMIT_NULL,
                "ClientCustomHeaderOmitNull",
                "Client MUST omit Mcp-Param header when parameter value is null or not provided",
                status(verbose.is_none()),
                custom(),
            );
            checks.push(match verbose {
                Some(value) => check.error(format!(
                    "Mcp-Param-Verbose should be omitted when null/undefined, but got '{value}'"
                )),
                None => check,
            });
        }
    }
    for id in DECLARED {
        if checks.iter().any(|c| c.id == id) {
            continue;
        }
        let why = if id == OMIT_NULL && !called_null {
            "Client did not send a tools/call request for test_custom_headers_null to test \
             null/omitted parameter handling."
        } else if called {
            "Check was not observed: no tool call exercised it."
        } else {
            "Client did not send a tools/call request for test_custom_headers."
        };
        checks.push(
            Check::new(
                id,
                "NotObserved",
                &format!("Declared check {id} was never emitted"),
                CheckStatus::Failure,
                custom(),
            )
            .error(why),
        );
    }
    checks
}

fn status(ok: bool) -> CheckStatus {
    if ok {
        CheckStatus::Success
    } else {
        CheckStatus::Failure
    }
}

/// The checks of one call of [`TOOL`], in the suite's order.
fn call_checks(exchange: &HttpExchange, arguments: &Value) -> Vec<Check> {
    let mirrored = exchange
        .request_headers
        .iter()
        .any(|(name, _)| name.to_ascii_lowercase().starts_with("mcp-param-"));
    let mut checks = vec![{
        let check = Check::new(
            SUPPORTS,
            "ClientSupportsCustomHeaders",
            "Client supports custom headers: calls the x-mcp-header annotated tool and mirrors \
             at least one parameter",
            status(mirrored),
            custom(),
        );
        if mirrored {
            check
        } else {
            check.error("Client called test_custom_headers but sent no Mcp-Param-* headers.")
        }
    }];
    let present = |argument: &str| arguments.get(argument).filter(|v| !v.is_null());
    for (argument, header, kind) in [
        ("region", "Region", "string"),
        ("priority", "Priority", "integer"),
    ]
    .into_iter()
    .chain(OPTIONAL.iter().map(|(a, h, k, _)| (*a, *h, *k)))
    {
        if argument == "non_ascii_val" {
            // The suite checks the unannotated number between `Method` and `NonAscii`.
            checks.push(not_mirrored(
                exchange,
                "mcp-param-floatval",
                "ClientCustomHeaderNoMirrorNumber",
                "Client MUST NOT add Mcp-Param headers for parameters without x-mcp-header \
                 (number-typed float_val is served unannotated per SEP-2243)",
                "Mcp-Param-FloatVal",
                "an unannotated number parameter",
            ));
        }
        if let Some(value) = present(argument) {
            checks.push(param_check(exchange, header, value, kind));
        }
    }
    checks.push(not_mirrored(
        exchange,
        "mcp-param-query",
        "ClientCustomHeaderNoMirrorUnannotated",
        "Client MUST NOT add Mcp-Param headers for parameters without x-mcp-header",
        "Mcp-Param-Query",
        "unannotated parameter",
    ));
    checks
}

fn not_mirrored(
    exchange: &HttpExchange,
    header: &str,
    name: &str,
    description: &str,
    shown: &str,
    what: &str,
) -> Check {
    let sent = exchange.request_header(header);
    let check = Check::new(MIRRORS, name, description, status(sent.is_none()), custom());
    match sent {
        Some(value) => check.error(format!(
            "Found unexpected {shown} header '{value}' for {what}"
        )),
        None => check,
    }
}

/// `Mcp-Param-{header}` against the body's value, by the spec's encoding rules.
fn param_check(exchange: &HttpExchange, header: &str, value: &Value, kind: &str) -> Check {
    let raw = exchange.request_header(&format!("mcp-param-{}", header.to_ascii_lowercase()));
    let expected = if kind == "boolean" {
        // The suite writes any value of a boolean parameter by its truthiness.
        truthy(value).to_string()
    } else {
        js_string(value)
    };
    let unsafe_text = value.as_str().is_some_and(needs_base64);
    let error = match raw {
        None => Some(format!(
            "Missing Mcp-Param-{header} header. Client MUST include headers for x-mcp-header \
             parameters."
        )),
        Some(raw) => encoding_error(raw, &expected, kind),
    };
    let id = if unsafe_text {
        BASE64
    } else if matches!(kind, "number" | "integer" | "boolean") {
        ENCODES
    } else {
        MIRRORS
    };
    let check = Check::new(
        id,
        &format!("ClientCustomHeader_{header}"),
        &format!("Client sends correct Mcp-Param-{header} header ({kind} value)"),
        status(error.is_none()),
        encoding(),
    )
    .details(json!({
        "headerName": format!("Mcp-Param-{header}"),
        "rawHeaderValue": raw,
        "bodyValue": value,
        "valueType": kind,
        "needsBase64": unsafe_text
    }));
    match error {
        Some(error) => check.error(error),
        None => check,
    }
}

/// A value the spec says goes Base64-wrapped: control characters, non-ASCII, or
/// whitespace at either end.
fn needs_base64(value: &str) -> bool {
    value
        .chars()
        .any(|c| (c as u32) < 0x20 || (c as u32) > 0x7e)
        || value != value.trim()
}

/// The inside of an `=?base64?…?=` value, if it is one.
fn base64_inner(raw: &str) -> Option<&str> {
    raw.strip_prefix("=?base64?")?.strip_suffix("?=")
}

/// Decodes as Node's `Buffer.from(text, "base64")` does: padding optional, bad input giving
/// what it can rather than an error.
fn decode_base64(text: &str) -> String {
    let lenient = GeneralPurpose::new(
        &base64::alphabet::STANDARD,
        GeneralPurposeConfig::new()
            .with_decode_padding_mode(DecodePaddingMode::Indifferent)
            .with_decode_allow_trailing_bits(true),
    );
    let bytes = lenient
        .decode(text.trim_end_matches('='))
        .unwrap_or_default();
    String::from_utf8_lossy(&bytes).into_owned()
}

fn encoding_error(raw: &str, expected: &str, kind: &str) -> Option<String> {
    let numeric = matches!(kind, "number" | "integer");
    if needs_base64(expected) {
        let Some(inner) = base64_inner(raw) else {
            return Some(format!(
                "Value '{expected}' requires Base64 encoding but header was sent as plain: '{raw}'"
            ));
        };
        let decoded = decode_base64(inner);
        if numeric {
            return compare_numbers(&decoded, expected);
        }
        return (decoded != expected).then(|| {
            format!(
                "Base64-decoded header value '{decoded}' does not match body value '{expected}'"
            )
        });
    }
    let decoded = base64_inner(raw).map_or_else(|| raw.to_string(), decode_base64);
    if numeric {
        return compare_numbers(&decoded, expected);
    }
    (decoded != expected).then(|| {
        format!("Header value '{decoded}' (raw: '{raw}') does not match body value '{expected}'")
    })
}

/// Integers must be equal as numbers (`42` and `42.0`), decimals within 1e-9.
fn compare_numbers(header: &str, body: &str) -> Option<String> {
    // JavaScript's `Number("")` is 0.
    let number = |text: &str| match text.trim() {
        "" => Some(0.0),
        text => text.parse::<f64>().ok().filter(|n| !n.is_nan()),
    };
    let (Some(h), Some(b)) = (number(header), number(body)) else {
        return Some(format!(
            "Non-numeric value in number comparison: header='{header}', body='{body}'"
        ));
    };
    let show = |n: f64| js_string(&json!(n));
    if b.fract() == 0.0 {
        (h != b).then(|| {
            format!(
                "Numeric header value {} does not match body value {}",
                show(h),
                show(b)
            )
        })
    } else {
        let difference = (h - b).abs();
        (difference > 1e-9).then(|| {
            format!(
                "Numeric header value {} does not match body value {} (difference {} exceeds \
                 tolerance 1e-9)",
                show(h),
                show(b),
                show(difference)
            )
        })
    }
}

// ---------------------------------------------------------------------------------------
// http-invalid-tool-headers

/// Each invalid tool, the `x-mcp-header` constraint it breaks (the id of the check that the
/// client did not call it), its description and its `inputSchema`.
fn invalid_tools() -> Vec<(&'static str, &'static str, &'static str, Value)> {
    let one = |property: &str, schema: Value| {
        let mut properties = serde_json::Map::new();
        properties.insert(property.into(), schema);
        json!({ "type": "object", "properties": properties, "required": [property] })
    };
    let two = |a: &str, b: &str| {
        json!({
            "type": "object",
            "properties": {
                "field1": { "type": "string", "x-mcp-header": a },
                "field2": { "type": "string", "x-mcp-header": b }
            },
            "required": ["field1", "field2"]
        })
    };
    let primitive = "sep-2243-x-mcp-header-primitive-only";
    let charset = "sep-2243-x-mcp-header-charset";
    let unique = "sep-2243-x-mcp-header-unique";
    vec![
        (
            "invalid_empty_header",
            "sep-2243-x-mcp-header-not-empty",
            "x-mcp-header MUST NOT be empty (MUST be rejected by client)",
            one("value", json!({ "type": "string", "x-mcp-header": "" })),
        ),
        (
            "invalid_object_header",
            primitive,
            "x-mcp-header MUST only be on primitive types (MUST be rejected)",
            one("data", json!({ "type": "object", "x-mcp-header": "Data" })),
        ),
        (
            "invalid_array_header",
            primitive,
            "x-mcp-header MUST only be on primitive types (MUST be rejected)",
            one(
                "items",
                json!({ "type": "array", "items": { "type": "string" }, "x-mcp-header": "Items" }),
            ),
        ),
        (
            "invalid_null_header",
            primitive,
            "x-mcp-header MUST only be on primitive types (MUST be rejected)",
            one("nil", json!({ "type": "null", "x-mcp-header": "Nil" })),
        ),
        (
            "invalid_number_header",
            primitive,
            "x-mcp-header MUST NOT be on number type (MUST be rejected)",
            one(
                "score",
                json!({ "type": "number", "x-mcp-header": "Score" }),
            ),
        ),
        (
            "invalid_duplicate_same_case",
            unique,
            "Duplicate x-mcp-header \"Region\" on two properties (MUST be rejected)",
            two("Region", "Region"),
        ),
        (
            "invalid_duplicate_diff_case",
            unique,
            "Duplicate case-insensitive x-mcp-header \"MyField\"/\"myfield\" (MUST be rejected)",
            two("MyField", "myfield"),
        ),
        (
            "invalid_space_in_name",
            charset,
            "x-mcp-header MUST NOT contain space (MUST be rejected)",
            one(
                "value",
                json!({ "type": "string", "x-mcp-header": "My Region" }),
            ),
        ),
        (
            "invalid_colon_in_name",
            charset,
            "x-mcp-header MUST NOT contain colon (MUST be rejected)",
            one(
                "value",
                json!({ "type": "string", "x-mcp-header": "Region:Primary" }),
            ),
        ),
        (
            "invalid_non_ascii_name",
            charset,
            "x-mcp-header MUST contain only ASCII chars (MUST be rejected)",
            one(
                "value",
                json!({ "type": "string", "x-mcp-header": "Région" }),
            ),
        ),
        (
            "invalid_control_char_name",
            charset,
            "x-mcp-header MUST NOT contain control chars (MUST be rejected)",
            one(
                "value",
                json!({ "type": "string", "x-mcp-header": "Region\t1" }),
            ),
        ),
    ]
}

pub(super) fn invalid_server() -> MockMcpServerBuilder {
    let received = json!({ "content": [{ "type": "text", "text": "Tool call received" }] });
    let mut builder = MockMcpServer::builder()
        .name("http-invalid-tool-headers-server")
        .version("1.0.0")
        .tool(
            Tool::new("valid_tool")
                .description("A valid tool with correct x-mcp-header")
                .input_schema(json!({
                    "type": "object",
                    "properties": { "region": { "type": "string", "x-mcp-header": "Region" } },
                    "required": ["region"]
                }))
                .respond_with(received.clone()),
        );
    for (name, _, description, schema) in invalid_tools() {
        builder = builder.tool(
            Tool::new(name)
                .description(description)
                .input_schema(schema)
                .allow_invalid_headers()
                .respond_with(received.clone()),
        );
    }
    builder
}

pub(super) fn invalid_checks(log: &Log, _version: ProtocolVersion) -> Vec<Check> {
    let called: Vec<&str> = calls(log).into_iter().map(|(_, name, _)| name).collect();
    let listed = posts(log)
        .iter()
        .any(|(_, body)| body["method"] == "tools/list");
    let mut checks = Vec::new();
    if !listed {
        checks.push(
            Check::new(
                "sep-2243-invalid-tool-tools-list-gate",
                "ClientInvalidToolHeadersToolsList",
                "Client requests tools/list",
                CheckStatus::Failure,
                tool_definition(),
            )
            .error("Client did not send a tools/list request."),
        );
    }
    let kept = called.contains(&"valid_tool");
    let check = Check::new(
        "sep-2243-client-reject-invalid-tool",
        "ClientKeepsValidTool",
        "Client MUST keep valid tools while excluding invalid ones",
        status(kept),
        tool_definition(),
    );
    checks.push(if kept {
        check
    } else {
        check.error(
            "Client did not call 'valid_tool'. A single malformed tool definition must not \
             prevent other valid tools from being used.",
        )
    });
    for (name, constraint, _, _) in invalid_tools() {
        let used = called.contains(&name);
        let check = Check::new(
            constraint,
            &format!("ClientRejectsInvalidTool_{name}"),
            &format!("Client MUST NOT call tool '{name}' with invalid x-mcp-header"),
            status(!used),
            tool_definition(),
        );
        checks.push(if used {
            check.error(format!(
                "Client called '{name}' which has an invalid x-mcp-header. Clients MUST reject \
                 (exclude) such tools."
            ))
        } else {
            check
        });
    }
    checks
}
