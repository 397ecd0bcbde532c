//! `sep-2322-client-request-state`: a client retrying a multi round-trip request echoes
//! `requestState` exactly, invents none when the server sent none, uses a new JSON-RPC id,
//! keeps a round's answers to its own request, and reads an absent `resultType` as
//! `"complete"` (SEP-2322; the suite's `src/scenarios/client/mrtr-client.ts`).

use serde_json::{Value, json};

use super::{js_string, truthy};
use crate::grade::check::{Check, CheckStatus, SpecReference};
use crate::log::{Log, RpcKind};
use crate::spec::AskMethod;
use crate::{Fault, FaultRule, MockMcpServer, MockMcpServerBuilder, ProtocolVersion, Tool};

const ECHO: &str = "test_mrtr_echo_state";
const NO_STATE: &str = "test_mrtr_no_state";
const UNRELATED: &str = "test_mrtr_unrelated";
const NO_RESULT_TYPE: &str = "test_mrtr_no_result_type";
const ECHOED: &str = "sep-2322-client-request-state-echoed";
const NEW_ID: &str = "sep-2322-client-jsonrpc-id-different";
const OMITTED: &str = "sep-2322-client-no-state-omitted";
const ISOLATED: &str = "sep-2322-client-parallel-isolation";
const DEFAULT_COMPLETE: &str = "sep-2322-default-result-type-complete";
/// Every check the scenario declares; one never emitted is a FAILURE.
const DECLARED: [&str; 5] = [ECHOED, NEW_ID, OMITTED, ISOLATED, DEFAULT_COMPLETE];

fn reference() -> SpecReference {
    SpecReference::new(
        "SEP-2322-MRTR",
        "https://modelcontextprotocol.io/specification/draft/basic/utilities/mrtr",
    )
}

fn confirm(message: &str) -> Value {
    json!({
        "message": message,
        "requestedSchema": {
            "type": "object",
            "properties": { "confirmed": { "type": "boolean", "description": "Confirm?" } }
        }
    })
}

fn answer(text: &str) -> Value {
    json!({ "content": [{ "type": "text", "text": text }] })
}

pub(super) fn server() -> MockMcpServerBuilder {
    let empty = || json!({ "type": "object", "properties": {}, "required": [] });
    MockMcpServer::builder()
        .name("mrtr-mock-server")
        .version("1.0.0")
        .protocol_versions([ProtocolVersion::V2026_07_28])
        .tool(
            Tool::new(ECHO)
                .description(
                    "Test tool: triggers MRTR flow with requestState. Client must echo state back \
                     unchanged.",
                )
                .input_schema(empty())
                .ask(
                    "confirm",
                    AskMethod::Elicitation,
                    confirm("Please confirm to continue"),
                )
                .respond_with(answer("echo-state-ok")),
        )
        .tool(
            Tool::new(NO_STATE)
                .description(
                    "Test tool: triggers MRTR flow WITHOUT requestState. Client must NOT include \
                     requestState in retry.",
                )
                .input_schema(empty())
                .ask(
                    "confirm",
                    AskMethod::Elicitation,
                    confirm("Please confirm to continue (no state test)"),
                )
                .without_request_state()
                .respond_with(answer("no-state-ok")),
        )
        .tool(
            Tool::new(UNRELATED)
                .description(
                    "Test tool: simple tool called between MRTR rounds. Must NOT carry \
                     inputResponses or requestState from another tool.",
                )
                .input_schema(empty())
                .respond_with(answer("unrelated-ok")),
        )
        .tool(
            Tool::new(NO_RESULT_TYPE)
                .description(
                    "Test tool: returns a result without resultType. Client must treat it as \
                     complete (default).",
                )
                .input_schema(empty())
                .respond_with(answer("no-result-type-test-ok")),
        )
        .fault(FaultRule::on_tool(NO_RESULT_TYPE).fault(Fault::OmitResultType))
}

fn judged(id: &str, name: &str, description: &str, errors: Vec<String>, details: Value) -> Check {
    let status = if errors.is_empty() {
        CheckStatus::Success
    } else {
        CheckStatus::Failure
    };
    let check = Check::new(id, name, description, status, reference()).details(details);
    if errors.is_empty() {
        check
    } else {
        check.error(errors.join("; "))
    }
}

pub(super) fn checks(log: &Log, _version: ProtocolVersion) -> Vec<Check> {
    let mut checks: Vec<Check> = Vec::new();
    // The echo tool's latest first call: its id and the state the server answered it.
    let mut original: Option<(Value, Option<String>)> = None;
    let calls = log
        .mcp()
        .from_client()
        .kind(RpcKind::Request)
        .method("tools/call")
        .all();
    for call in calls {
        let params = call.params();
        let id = call.rpc_id().cloned().unwrap_or(Value::Null);
        let responses = params.get("inputResponses");
        let retried = responses.is_some_and(truthy);
        let state = params.get("requestState");
        match params.get("name").and_then(Value::as_str) {
            Some(ECHO) if !retried => {
                let sent = call
                    .result()
                    .and_then(|r| r.get("requestState"))
                    .and_then(Value::as_str)
                    .map(str::to_string);
                original = Some((id, sent));
            }
            Some(ECHO) => {
                let (original_id, sent) = original.clone().unwrap_or((Value::Null, None));
                let mut errors = Vec::new();
                match state.filter(|s| truthy(s)) {
                    None => errors.push("Client did not include requestState in retry".to_string()),
                    Some(echoed) if echoed.as_str() != sent.as_deref() => errors.push(
                        "requestState was not echoed back exactly — clients MUST NOT inspect, \
                         parse, or modify it"
                            .to_string(),
                    ),
                    Some(_) => {}
                }
                checks.push(judged(
                    ECHOED,
                    "MRTRClientRequestStateEchoed",
                    "Client MUST echo back the exact value of requestState when retrying",
                    errors,
                    json!({
                        "requestStateSent": sent,
                        "requestStateReceived": state,
                        "originalId": original_id
                    }),
                ));
                let mut errors = Vec::new();
                if id == original_id {
                    errors.push(format!(
                        "JSON-RPC id is the same on retry ({}) — MUST be different",
                        js_string(&id)
                    ));
                }
                checks.push(judged(
                    NEW_ID,
                    "MRTRClientJsonRpcIdDifferent",
                    "The JSON-RPC id MUST be different between the initial request and the retry",
                    errors,
                    json!({ "originalId": original_id, "retryId": id }),
                ));
            }
            Some(NO_STATE) if retried => {
                let errors = state
                    .map(|s| {
                        format!(
                            "Client included requestState (\"{}\") but server did not send one — \
                             MUST NOT include it",
                            js_string(s)
                        )
                    })
                    .into_iter()
                    .collect();
                checks.push(judged(
                    OMITTED,
                    "MRTRClientNoStateOmitted",
                    "If InputRequiredResult does not contain requestState, client MUST NOT \
                     include one in the retry",
                    errors,
                    json!({ "requestStateReceived": state }),
                ));
            }
            Some(UNRELATED) => {
                let mut errors = Vec::new();
                if responses.is_some() {
                    errors.push(
                        "Unrelated tool call included inputResponses from another tool's MRTR flow"
                            .to_string(),
                    );
                }
                if state.is_some() {
                    errors.push(
                        "Unrelated tool call included requestState from another tool's MRTR flow"
                            .to_string(),
                    );
                }
                checks.push(judged(
                    ISOLATED,
                    "MRTRClientParallelIsolation",
                    "inputRequests and requestState MUST NOT be used for any other request the \
                     client may be sending",
                    errors,
                    json!({ "inputResponsesReceived": responses, "requestStateReceived": state }),
                ));
            }
            Some(NO_RESULT_TYPE) => {
                let description = "Client MUST assume resultType \"complete\" when not specified";
                if retried {
                    // A retry undoes the pass its first call earned.
                    if let Some(at) = checks.iter().position(|c| c.id == DEFAULT_COMPLETE) {
                        checks.remove(at);
                    }
                    checks.push(
                        Check::new(
                            DEFAULT_COMPLETE,
                            "DefaultResultTypeComplete",
                            description,
                            CheckStatus::Failure,
                            reference(),
                        )
                        .error(
                            "Client retried with inputResponses even though the result had no \
                             resultType (should default to complete)",
                        ),
                    );
                } else {
                    checks.push(Check::new(
                        DEFAULT_COMPLETE,
                        "DefaultResultTypeComplete",
                        description,
                        CheckStatus::Success,
                        reference(),
                    ));
                }
            }
            _ => {}
        }
    }
    for id in DECLARED {
        if !checks.iter().any(|c| c.id == id) {
            checks.push(
                Check::new(
                    id,
                    id,
                    &format!("MRTR client check: {id}"),
                    CheckStatus::Failure,
                    reference(),
                )
                .details(json!({
                    "message": "Tool was not called by client or MRTR flow not completed"
                }))
                .error("Tool was not called by client or MRTR flow not completed"),
            );
        }
    }
    checks
}
