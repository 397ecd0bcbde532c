//! `json-schema-2020-12-preservation`: a client keeps the JSON Schema 2020-12 vocabulary of a
//! tool's `inputSchema` (SEP-1613, SEP-2106), shown by echoing the schema it holds back
//! through a tool (the suite's `src/scenarios/client/json-schema-2020-12-preservation.ts`).

use serde_json::{Map, Value, json};

use crate::grade::check::{Check, CheckStatus, SpecReference};
use crate::log::Log;
use crate::{MockMcpServer, MockMcpServerBuilder, ProtocolVersion, Tool};

const FOCAL: &str = "json_schema_2020_12_tool";
const ECHO: &str = "json_schema_echo";
const DIALECT: &str = "https://json-schema.org/draft/2020-12/schema";
/// SEP-2106's keywords are required from this revision; before it, stripping them is SKIPPED.
const SEP_2106_FROM: ProtocolVersion = ProtocolVersion::V2026_07_28;

fn sep_1613() -> SpecReference {
    SpecReference::new(
        "SEP-1613",
        "https://github.com/modelcontextprotocol/specification/pull/655",
    )
}

fn sep_2106() -> SpecReference {
    SpecReference::new(
        "SEP-2106",
        "https://github.com/modelcontextprotocol/modelcontextprotocol/pull/2106",
    )
}

/// The suite's `JSON_SCHEMA_2020_12_FIXTURE`: every keyword the checks look for.
fn focal_schema() -> Value {
    json!({
        "$schema": DIALECT,
        "type": "object",
        "$defs": {
            "address": {
                "$anchor": "addressDef",
                "type": "object",
                "properties": { "street": { "type": "string" }, "city": { "type": "string" } }
            }
        },
        "properties": {
            "name": { "type": "string" },
            "address": { "$ref": "#/$defs/address" },
            "contactMethod": { "type": "string", "enum": ["phone", "email"] },
            "phone": { "type": "string" },
            "email": { "type": "string" }
        },
        "allOf": [{ "anyOf": [{ "required": ["phone"] }, { "required": ["email"] }] }],
        "if": {
            "properties": { "contactMethod": { "const": "phone" } },
            "required": ["contactMethod"]
        },
        "then": { "required": ["phone"] },
        "else": { "required": ["email"] },
        "additionalProperties": false
    })
}

pub(super) fn server() -> MockMcpServerBuilder {
    MockMcpServer::builder()
        .tool(
            Tool::new(FOCAL)
                .description("Tool with JSON Schema 2020-12 features")
                .input_schema(focal_schema())
                .respond_with(json!({ "content": [{ "type": "text", "text": "ok" }] })),
        )
        .tool(
            Tool::new(ECHO)
                .description(
                    "Echoes back an arbitrary JSON Schema object so the harness can observe \
                     what the client preserved.",
                )
                .input_schema(json!({
                    "type": "object",
                    "properties": {
                        "schema": {
                            "type": "object",
                            "description": format!(
                                "The inputSchema the client observed for {FOCAL}, passed back verbatim."
                            )
                        }
                    },
                    "required": ["schema"]
                }))
                .respond_with(json!({ "content": [{ "type": "text", "text": "echoed" }] })),
        )
}

/// A check with the suite's id and name, judged by `ok`.
fn verdict(
    id: &str,
    name: &str,
    description: &str,
    ok: bool,
    failed: CheckStatus,
    reference: SpecReference,
) -> Check {
    let status = if ok { CheckStatus::Success } else { failed };
    Check::new(id, name, description, status, reference)
}

pub(super) fn checks(log: &Log, version: ProtocolVersion) -> Vec<Check> {
    let listed = log.mcp().from_client().method("tools/list").count() > 0;
    // The newest echo whose `schema` is an object, as the suite keeps it.
    let echo: Option<Map<String, Value>> = log
        .tool_calls(ECHO)
        .into_iter()
        .rev()
        .find_map(|call| call.arguments.get("schema")?.as_object().cloned());

    let mut found = verdict(
        "json-schema-2020-12-client-tool-found",
        "JsonSchema2020_12ClientToolFound",
        &format!("Client called tools/list and the mock server advertised '{FOCAL}'"),
        listed,
        CheckStatus::Failure,
        sep_1613(),
    )
    .details(json!({ "toolsListCalled": listed }));
    if !listed {
        found = found.error(
            "Client never called tools/list; the scenario cannot observe schema preservation",
        );
    }
    let mut completed = verdict(
        "json-schema-2020-12-client-echo-completed",
        "JsonSchema2020_12ClientEchoCompleted",
        &format!("Client called tools/call '{ECHO}' with a 'schema' object argument"),
        echo.is_some(),
        CheckStatus::Failure,
        sep_1613(),
    )
    .details(json!({ "echoCompleted": echo.is_some() }));
    let Some(echo) = echo else {
        completed = completed.error(
            "Client did not echo back the inputSchema; downstream preservation checks are SKIPPED",
        );
        return [found, completed].into_iter().chain(unjudged()).collect();
    };
    let mut checks = vec![found, completed];
    checks.extend(sep_1613_checks(&echo));
    checks.extend(sep_2106_checks(&echo, version));
    checks
}

/// The six preservation checks, SKIPPED: there is no echo to read.
fn unjudged() -> Vec<Check> {
    let why = "Skipped because the client did not complete the schema echo";
    [
        (
            "json-schema-2020-12-client-$schema-preserved",
            "JsonSchema2020_12Client$SchemaPreserved",
            "Client preserved the $schema field of the focal tool inputSchema",
            sep_1613(),
        ),
        (
            "json-schema-2020-12-client-$defs-preserved",
            "JsonSchema2020_12Client$DefsPreserved",
            "Client preserved the $defs field of the focal tool inputSchema",
            sep_1613(),
        ),
        (
            "json-schema-2020-12-client-additionalProperties-preserved",
            "JsonSchema2020_12ClientAdditionalPropertiesPreserved",
            "Client preserved the additionalProperties field of the focal tool inputSchema",
            sep_1613(),
        ),
        (
            "sep-2106-client-composition-keywords-preserved",
            "JsonSchema2020_12ClientCompositionKeywordsPreserved",
            "Client preserved composition keywords (allOf/anyOf) on the focal tool inputSchema",
            sep_2106(),
        ),
        (
            "sep-2106-client-conditional-keywords-preserved",
            "JsonSchema2020_12ClientConditionalKeywordsPreserved",
            "Client preserved conditional keywords (if/then/else) on the focal tool inputSchema",
            sep_2106(),
        ),
        (
            "sep-2106-client-anchor-keyword-preserved",
            "JsonSchema2020_12ClientAnchorKeywordPreserved",
            "Client preserved the $anchor keyword inside $defs.address",
            sep_2106(),
        ),
    ]
    .into_iter()
    .map(|(id, name, description, reference)| {
        Check::new(id, name, description, CheckStatus::Skipped, reference).error(why)
    })
    .collect()
}

/// `$schema`, `$defs` and `additionalProperties` (SEP-1613): required at every revision.
fn sep_1613_checks(echo: &Map<String, Value>) -> Vec<Check> {
    let schema = echo.get("$schema");
    let schema_ok = schema.and_then(Value::as_str) == Some(DIALECT);
    let mut schema_check = verdict(
        "json-schema-2020-12-client-$schema-preserved",
        "JsonSchema2020_12Client$SchemaPreserved",
        &format!("Client preserved $schema = '{DIALECT}'"),
        schema_ok,
        CheckStatus::Failure,
        sep_1613(),
    )
    .details(json!({ "hasSchema": schema.is_some(), "schemaValue": schema }));
    match schema {
        None => schema_check = schema_check.error(
            "$schema missing from echoed inputSchema — client likely stripped it during parsing",
        ),
        Some(value) if !schema_ok => {
            schema_check = schema_check.error(format!("$schema has unexpected value: {value}"))
        }
        Some(_) => {}
    }

    let defs = echo.get("$defs");
    let has_address = defs.and_then(|d| d.get("address")).is_some();
    let defs_keys: Vec<&String> = defs
        .and_then(Value::as_object)
        .map(|d| d.keys().collect())
        .unwrap_or_default();
    let mut defs_check = verdict(
        "json-schema-2020-12-client-$defs-preserved",
        "JsonSchema2020_12Client$DefsPreserved",
        "Client preserved $defs with the expected nested definitions",
        has_address,
        CheckStatus::Failure,
        sep_1613(),
    )
    .details(json!({ "hasDefs": defs.is_some(), "defsKeys": defs_keys }));
    if defs.is_none() {
        defs_check = defs_check.error(
            "$defs missing from echoed inputSchema — client likely stripped it during parsing",
        );
    } else if !has_address {
        defs_check = defs_check.error("$defs exists but missing expected \"address\" definition");
    }

    let additional = echo.get("additionalProperties");
    let additional_ok = additional == Some(&Value::Bool(false));
    let mut additional_check = verdict(
        "json-schema-2020-12-client-additionalProperties-preserved",
        "JsonSchema2020_12ClientAdditionalPropertiesPreserved",
        "Client preserved additionalProperties = false on the focal inputSchema",
        additional_ok,
        CheckStatus::Failure,
        sep_1613(),
    )
    .details(json!({ "hasAdditionalProps": additional.is_some(), "value": additional }));
    match additional {
        None => {
            additional_check = additional_check.error(
                "additionalProperties missing from echoed inputSchema — client likely stripped \
                 it during parsing",
            )
        }
        Some(value) if !additional_ok => {
            additional_check = additional_check.error(format!(
                "additionalProperties has unexpected value: {value}"
            ))
        }
        Some(_) => {}
    }
    vec![schema_check, defs_check, additional_check]
}

/// Composition, conditionals and `$anchor` (SEP-2106): a FAILURE from 2026-07-28, SKIPPED
/// with the reason before it.
fn sep_2106_checks(echo: &Map<String, Value>, version: ProtocolVersion) -> Vec<Check> {
    let failed = if version >= SEP_2106_FROM {
        CheckStatus::Failure
    } else {
        CheckStatus::Skipped
    };
    let suffix = if failed == CheckStatus::Skipped {
        format!(
            " (run targets protocol version {}; SEP-2106 applies from {})",
            version.as_str(),
            SEP_2106_FROM.as_str()
        )
    } else {
        String::new()
    };
    let target = version.as_str();

    let all_of = echo.get("allOf").and_then(Value::as_array);
    let has_all_of = all_of.is_some_and(|a| !a.is_empty());
    let has_any_of = all_of.is_some_and(|a| a.iter().any(|sub| sub["anyOf"].is_array()));
    let mut composition = verdict(
        "sep-2106-client-composition-keywords-preserved",
        "JsonSchema2020_12ClientCompositionKeywordsPreserved",
        "Client preserved composition keywords (allOf/anyOf) on the focal inputSchema",
        has_all_of && has_any_of,
        failed,
        sep_2106(),
    )
    .details(json!({
        "hasAllOf": has_all_of,
        "hasNestedAnyOf": has_any_of,
        "targetProtocolVersion": target
    }));
    if !has_all_of {
        composition = composition.error(format!(
            "allOf missing from echoed inputSchema — composition keyword was likely stripped{suffix}"
        ));
    } else if !has_any_of {
        composition = composition.error(format!(
            "nested anyOf missing from echoed allOf — composition keyword was likely stripped{suffix}"
        ));
    }

    let [has_if, has_then, has_else] = ["if", "then", "else"].map(|k| echo.contains_key(k));
    let mut conditional = verdict(
        "sep-2106-client-conditional-keywords-preserved",
        "JsonSchema2020_12ClientConditionalKeywordsPreserved",
        "Client preserved conditional keywords (if/then/else) on the focal inputSchema",
        has_if && has_then && has_else,
        failed,
        sep_2106(),
    )
    .details(json!({
        "hasIf": has_if,
        "hasThen": has_then,
        "hasElse": has_else,
        "targetProtocolVersion": target
    }));
    if !(has_if && has_then && has_else) {
        conditional = conditional.error(format!(
            "Conditional keywords missing (if={has_if}, then={has_then}, else={has_else}) — \
             likely stripped{suffix}"
        ));
    }

    let anchor = echo
        .get("$defs")
        .and_then(|d| d.get("address"))
        .and_then(|a| a.get("$anchor"));
    let mut anchor_check = verdict(
        "sep-2106-client-anchor-keyword-preserved",
        "JsonSchema2020_12ClientAnchorKeywordPreserved",
        "Client preserved $anchor inside $defs.address",
        anchor.is_some(),
        failed,
        sep_2106(),
    )
    .details(json!({ "hasAnchor": anchor.is_some(), "anchorValue": anchor }));
    if anchor.is_none() {
        anchor_check = anchor_check.error(format!(
            "$anchor missing from echoed $defs.address — reference keyword was likely stripped{suffix}"
        ));
    }
    vec![composition, conditional, anchor_check]
}
