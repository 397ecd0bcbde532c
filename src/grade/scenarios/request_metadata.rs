//! `request-metadata`: every 2026-07-28 request carries `_meta` (protocol version, client
//! capabilities, client info) and a matching `MCP-Protocol-Version` header, and a client
//! whose first choice of version is refused retries with a supported one (SEP-2575; the
//! suite's `src/scenarios/client/request-metadata.ts`).

use serde_json::{Value, json};

use super::{Latched, truthy};
use crate::grade::check::{Check, CheckStatus, SpecReference};
use crate::log::{Entry, HttpKind, Log};
use crate::{Fault, FaultRule, MockMcpServer, MockMcpServerBuilder, ProtocolVersion};

const MODERN: &str = "2026-07-28";
const META_VERSION: &str = "io.modelcontextprotocol/protocolVersion";
const META_CAPABILITIES: &str = "io.modelcontextprotocol/clientCapabilities";
const META_CLIENT_INFO: &str = "io.modelcontextprotocol/clientInfo";

/// Every check id the scenario emits; one never emitted is a FAILURE, so every client gets
/// the same set.
const DECLARED: [&str; 8] = [
    "sep-2575-http-client-sends-version-header",
    "sep-2575-client-populates-meta",
    "sep-2575-client-sends-client-info",
    "sep-2575-http-version-header-matches-meta",
    "sep-2575-client-declares-roots-capability",
    "sep-2575-client-declares-sampling-capability",
    "sep-2575-client-declares-elicitation-capability",
    "sep-2575-client-retry-supported-version",
];

const CAPABILITIES: [(&str, &str, &str); 3] = [
    (
        "roots",
        "sep-2575-client-declares-roots-capability",
        "ClientDeclaresRootsCapability",
    ),
    (
        "sampling",
        "sep-2575-client-declares-sampling-capability",
        "ClientDeclaresSamplingCapability",
    ),
    (
        "elicitation",
        "sep-2575-client-declares-elicitation-capability",
        "ClientDeclaresElicitationCapability",
    ),
];

fn reference(anchor: &str) -> SpecReference {
    let url = match anchor {
        "header" => {
            "https://modelcontextprotocol.io/specification/draft/basic/transports#protocol-version-header"
        }
        "capabilities" => {
            "https://modelcontextprotocol.io/specification/draft/basic/index#capabilities"
        }
        _ => "https://modelcontextprotocol.io/specification/draft/basic/index#meta",
    };
    SpecReference::new("SEP-2575", url)
}

pub(super) fn server() -> MockMcpServerBuilder {
    MockMcpServer::builder()
        .name("test")
        .version("1.0")
        .protocol_versions([ProtocolVersion::V2026_07_28])
        // The first request is refused as if its version were not served, whatever it asks:
        // the client must retry with the one `supported` names.
        .fault(
            FaultRule::any().times(1).fault(
                Fault::error(-32022, "Unsupported protocol version")
                    .with_data(json!({ "supported": [MODERN], "requested": "" })),
            ),
        )
}

pub(super) fn checks(log: &Log, _version: crate::ProtocolVersion) -> Vec<Check> {
    let mut checks = Latched::default();
    let mut observed = 0;
    for record in log.records() {
        let Entry::Http(h) = &record.entry else {
            continue;
        };
        if h.kind != HttpKind::Exchange || h.method != "POST" {
            continue;
        }
        let Some(body) = h.request_body.as_ref().map(|b| b.value()) else {
            continue;
        };
        if body.is_string() {
            // Not JSON: the suite answers a parse error and judges nothing.
            continue;
        }
        observed += 1;
        let method = body.get("method").cloned().unwrap_or(Value::Null);
        let meta = body.pointer("/params/_meta");
        let meta_version = meta.and_then(|m| m.get(META_VERSION));
        let header_version = h.request_header("mcp-protocol-version");
        checks.add(
            Check::new(
                "sep-2575-http-client-sends-version-header",
                "ClientSendsVersionHeader",
                "Client sends MCP-Protocol-Version header on every POST",
                pass_if(header_version.is_some(), CheckStatus::Failure),
                reference("header"),
            )
            .details(json!({ "method": method, "headerVersion": header_version })),
        );
        let capabilities = meta.and_then(|m| m.get(META_CAPABILITIES));
        let present = |v: Option<&Value>| v.is_some_and(truthy);
        checks.add(
            Check::new(
                "sep-2575-client-populates-meta",
                "ClientPopulatesMeta",
                "Client populates _meta on every request with the required fields \
                 (protocolVersion, clientCapabilities)",
                pass_if(
                    present(meta_version) && present(capabilities),
                    CheckStatus::Failure,
                ),
                reference("meta"),
            )
            .details(json!({ "method": method, "meta": meta })),
        );
        checks.add(
            Check::new(
                "sep-2575-client-sends-client-info",
                "ClientSendsClientInfo",
                "Client SHOULD include io.modelcontextprotocol/clientInfo in every request's \
                 _meta (spec PR #3002)",
                pass_if(
                    present(meta.and_then(|m| m.get(META_CLIENT_INFO))),
                    CheckStatus::Warning,
                ),
                reference("meta"),
            )
            .details(json!({ "method": method, "meta": meta })),
        );
        let matches = match (header_version, meta_version) {
            (Some(header), Some(meta)) => {
                pass_if(meta.as_str() == Some(header), CheckStatus::Failure)
            }
            _ => CheckStatus::Skipped,
        };
        let mut matched = Check::new(
            "sep-2575-http-version-header-matches-meta",
            "ClientVersionHeaderMatchesMeta",
            "MCP-Protocol-Version header matches _meta.protocolVersion",
            matches,
            reference("header"),
        )
        .details(json!({ "headerVersion": header_version, "metaVersion": meta_version }));
        if matches == CheckStatus::Skipped {
            matched = matched
                .error("the header or `_meta` protocolVersion is missing: nothing to compare");
        }
        checks.add(matched);
        for (name, id, check_name) in CAPABILITIES {
            let value = capabilities.and_then(|c| c.get(name));
            let status = match value {
                None => CheckStatus::Skipped,
                Some(v) => pass_if(v.is_object(), CheckStatus::Failure),
            };
            let mut check = Check::new(
                id,
                check_name,
                &format!("Client declares valid {name} capability if present"),
                status,
                reference("capabilities"),
            )
            .details(json!({ "capabilityValue": value }));
            if status == CheckStatus::Skipped {
                check = check.error(format!("the client declares no `{name}` capability"));
            }
            checks.add(check);
        }
        let retry = "sep-2575-client-retry-supported-version";
        if observed == 1 {
            // This request got the refusal (the fault rule fires once).
            checks.add(
                Check::new(
                    retry,
                    "ClientRetrySupportedVersion",
                    "Client retries with a supported version when first choice is rejected",
                    CheckStatus::Warning,
                    reference("header"),
                )
                .details(json!({ "headerVersion": header_version }))
                .error("the client has not retried after its first request was refused"),
            );
        } else if let Some(check) = checks.get_mut(retry) {
            // Not latched: the newest request tells whether the client came back right.
            let retried = header_version == Some(MODERN)
                && meta_version.and_then(Value::as_str) == Some(MODERN);
            check.status = pass_if(retried, CheckStatus::Warning);
            check.error_message = (!retried).then(|| {
                format!(
                    "the client's retry did not ask for {MODERN} in both the header and `_meta`"
                )
            });
            if let Some(details) = check.details.as_object_mut() {
                details.insert("retryHeaderVersion".into(), json!(header_version));
                details.insert("retryMetaVersion".into(), json!(meta_version));
            }
        }
    }
    let why = if observed == 0 {
        "Check was not observed: the client never sent a request to the scenario server (no \
         handler registered for this scenario?)"
    } else {
        "Check was not observed: no request exercised it"
    };
    let mut checks = checks.into_checks();
    for id in DECLARED {
        if !checks.iter().any(|c| c.id == id) {
            checks.push(
                Check::new(
                    id,
                    "NotObserved",
                    &format!("Declared check {id} was never emitted"),
                    CheckStatus::Failure,
                    reference("meta"),
                )
                .details(json!({ "observed": false, "requestsObserved": observed }))
                .error(why),
            );
        }
    }
    checks
}

fn pass_if(ok: bool, otherwise: CheckStatus) -> CheckStatus {
    if ok { CheckStatus::Success } else { otherwise }
}
