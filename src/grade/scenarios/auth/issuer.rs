//! `auth/iss-*` and `auth/metadata-issuer-mismatch`: the client compares the issuer it
//! recorded with the authorization response's `iss` (RFC 9207) and with the metadata's
//! `issuer` (RFC 8414 section 3.3), and stops where they differ (SEP-2468; the suite's
//! `issuer-parameter.ts`).

use serde_json::{Value, json};

use super::{Layout, Rules, cited, judge, refs, untestable, with_details};
use crate::ProtocolVersion;
use crate::grade::check::Check;
use crate::log::{AuthorizeRequest, Entry, HttpKind, Log, Registration, TokenRequest};

/// What the client reached of the flow.
#[derive(Default)]
struct Reached {
    authorization: bool,
    token: bool,
    registration: bool,
}

impl Rules for Reached {
    fn on_authorize(&mut self, _: &AuthorizeRequest, _: &mut Vec<Check>) {
        self.authorization = true;
    }

    fn on_token(&mut self, _: &TokenRequest, _: Option<&str>, _: &mut Vec<Check>) {
        self.token = true;
    }

    fn on_register(&mut self, _: &Registration, _: &mut Vec<Check>) {
        self.registration = true;
    }
}

fn reached(log: &Log, version: ProtocolVersion) -> (Vec<Check>, Reached) {
    let mut reached = Reached::default();
    let checks = judge(log, version, &Layout::DEFAULT, &mut reached);
    (checks, reached)
}

fn metadata_requested(checks: &[Check]) -> bool {
    checks
        .iter()
        .any(|c| c.id == "authorization-server-metadata")
}

/// A scenario where the client must go on to the token request.
fn proceeds(
    log: &Log,
    version: ProtocolVersion,
    id: &str,
    name: &str,
    pass: &str,
    fail: &str,
) -> Vec<Check> {
    let (mut checks, reached) = reached(log, version);
    checks.push(
        Check::new(
            id,
            name,
            if reached.token { pass } else { fail },
            super::pass(reached.token),
            refs::rfc_9207_iss(),
        )
        .details(json!({ "tokenRequestMade": reached.token })),
    );
    checks
}

pub(crate) fn iss_supported_checks(log: &Log, version: ProtocolVersion) -> Vec<Check> {
    proceeds(
        log,
        version,
        "sep-2468-client-compare-iss-supported",
        "Client accepts matching iss when advertised",
        "Client compared advertised iss against recorded issuer and proceeded to token exchange",
        "Client did not proceed to token exchange after receiving a correct iss from a server \
         that advertised support",
    )
}

pub(crate) fn iss_not_advertised_checks(log: &Log, version: ProtocolVersion) -> Vec<Check> {
    proceeds(
        log,
        version,
        "sep-2468-client-proceed-no-iss",
        "Client proceeds when iss absent and not advertised",
        "Client proceeded to token exchange when neither metadata advertised iss support nor \
         redirect contained iss",
        "Client did not proceed to token exchange — should proceed when iss is absent and not \
         advertised",
    )
}

/// A scenario where the client must refuse the authorization response: the suite's
/// `as(...)`, untestable unless the client read the metadata and reached the endpoint.
struct Refusal {
    id: &'static str,
    name: &'static str,
    pass: &'static str,
    fail: &'static str,
    observations: fn(&Log) -> Value,
}

fn refuses(log: &Log, version: ProtocolVersion, refusal: &Refusal) -> Vec<Check> {
    let (mut checks, reached) = reached(log, version);
    if checks.iter().any(|c| c.id == refusal.id) {
        return checks;
    }
    let metadata = metadata_requested(&checks);
    let mut details = (refusal.observations)(log);
    details["metadataRequested"] = json!(metadata);
    details["authReached"] = json!(reached.authorization);
    details["tokenRequestMade"] = json!(reached.token);
    let check = if metadata && reached.authorization {
        let refused = !reached.token;
        details["propertyReached"] = json!(true);
        details["stopReason"] = json!(if refused {
            "declined-before-token-request"
        } else {
            "transmitted-code-to-token-endpoint"
        });
        Check::new(
            refusal.id,
            refusal.name,
            if refused { refusal.pass } else { refusal.fail },
            super::pass(refused),
            refs::rfc_9207_iss(),
        )
        .details(details)
    } else {
        let reason = if metadata {
            "client never reached the authorization endpoint, so it never received an \
             authorization response to validate"
        } else {
            "client never retrieved the authorization server metadata document, so it never \
             recorded the issuer this comparison is made against"
        };
        details["propertyReached"] = json!(false);
        details["stopReason"] = json!(if metadata {
            "authorization-endpoint-not-reached"
        } else {
            "as-metadata-not-requested"
        });
        with_details(
            untestable(
                refusal.id,
                refusal.name,
                refusal.fail,
                reason,
                vec![refs::rfc_9207_iss()],
            ),
            details,
        )
    };
    checks.push(check);
    checks
}

const EVIL: &str = "https://evil.example.com";

pub(crate) fn iss_supported_missing_checks(log: &Log, version: ProtocolVersion) -> Vec<Check> {
    refuses(
        log,
        version,
        &Refusal {
            id: "sep-2468-client-reject-missing-iss",
            name: "Client rejects missing iss when required",
            pass: "Client correctly rejected authorization response missing required iss parameter",
            fail: "Client MUST reject authorization response when server advertised iss support \
                   but iss is absent from redirect",
            observations: |_| json!({ "serverAdvertisedSupport": true, "issSentInRedirect": false }),
        },
    )
}

pub(crate) fn iss_wrong_issuer_checks(log: &Log, version: ProtocolVersion) -> Vec<Check> {
    refuses(
        log,
        version,
        &Refusal {
            id: "sep-2468-client-compare-iss-supported",
            name: "Client rejects mismatched iss",
            pass: "Client correctly rejected authorization response with mismatched iss parameter",
            fail: "Client MUST reject authorization response when iss does not match the \
                   authorization server issuer",
            observations: |_| json!({ "serverAdvertisedSupport": true, "issSentInRedirect": EVIL }),
        },
    )
}

pub(crate) fn iss_unexpected_checks(log: &Log, version: ProtocolVersion) -> Vec<Check> {
    refuses(
        log,
        version,
        &Refusal {
            id: "sep-2468-client-compare-iss-unadvertised",
            name: "Client compares unadvertised iss and rejects mismatch",
            pass: "Client correctly compared unadvertised iss against recorded issuer and \
                   rejected the mismatch",
            fail: "Client MUST compare a present iss against the recorded issuer regardless of \
                   metadata advertisement, and reject on mismatch",
            observations: |_| json!({ "serverAdvertisedSupport": false, "issSentInRedirect": EVIL }),
        },
    )
}

pub(crate) fn iss_normalized_checks(log: &Log, version: ProtocolVersion) -> Vec<Check> {
    refuses(
        log,
        version,
        &Refusal {
            id: "sep-2468-client-no-normalization",
            name: "Client compares iss without URL normalization",
            pass: "Client rejected an iss value that only matches the recorded issuer after URL \
                   normalization",
            fail: "Client MUST NOT apply scheme/host case folding, default-port elision, \
                   trailing-slash, or percent-encoding normalization to iss before comparison; \
                   a trailing-slash variant of the issuer must be treated as a mismatch",
            observations: |log| {
                let issuer = issuer(log);
                json!({ "recordedIssuer": issuer, "issSentInRedirect": format!("{issuer}/") })
            },
        },
    )
}

/// The authorization server's issuer: the server's origin, as its requests name it.
fn issuer(log: &Log) -> String {
    log.records()
        .iter()
        .find_map(|record| match &record.entry {
            Entry::Http(h) if h.kind == HttpKind::Exchange => h.request_header("host"),
            _ => None,
        })
        .map(|host| format!("http://{host}"))
        .unwrap_or_default()
}

pub(crate) fn metadata_issuer_mismatch_checks(log: &Log, version: ProtocolVersion) -> Vec<Check> {
    let (mut checks, reached) = reached(log, version);
    let id = "sep-2468-client-validate-metadata-issuer";
    if checks.iter().any(|c| c.id == id) {
        return checks;
    }
    let name = "Client validates metadata issuer against well-known URL";
    let fail = "Client MUST NOT use authorization server metadata whose issuer differs from the \
                issuer identifier used to construct the well-known URL; client used endpoints \
                from the mismatched metadata";
    let metadata = metadata_requested(&checks);
    let used = reached.registration || reached.authorization || reached.token;
    let mut details = json!({
        "expectedIssuer": issuer(log),
        "metadataIssuer": "https://attacker.example.com",
        "metadataRequested": metadata,
        "metadataEndpointsUsed": used
    });
    let references = vec![
        refs::rfc_auth_server_metadata_request(),
        refs::mcp_auth_discovery(),
    ];
    let check = if metadata {
        details["propertyReached"] = json!(true);
        details["stopReason"] = json!(if used {
            "used-poisoned-metadata-endpoints"
        } else {
            "declined-poisoned-metadata"
        });
        cited(
            Check::new(
                id,
                name,
                if used {
                    fail
                } else {
                    "Client rejected authorization server metadata whose issuer does not match \
                     the issuer identifier used to construct the well-known URL"
                },
                super::pass(!used),
                refs::rfc_auth_server_metadata_request(),
            ),
            refs::mcp_auth_discovery(),
        )
        .details(details)
    } else {
        details["propertyReached"] = json!(false);
        details["stopReason"] = json!("as-metadata-not-requested");
        with_details(
            untestable(
                id,
                name,
                fail,
                "client never retrieved the authorization server metadata document, so issuer \
                 validation could not be observed",
                references,
            ),
            details,
        )
    };
    checks.push(check);
    checks
}
