//! The RFC 8707 `resource` checks the suite adds when a metadata or token-endpoint scenario
//! ends (its `addResourceParameterChecks`): the parameter in both requests, a URI without a
//! fragment, the same in both, and exactly the identifier the resource metadata published.
//! And `auth/resource-mismatch`: a client stops when the metadata names another resource
//! (the suite's `resource-mismatch.ts`).

use serde_json::json;

use super::{Layout, Rules, cited, judge, pass, refs, untestable, with_details};
use crate::ProtocolVersion;
use crate::grade::check::Check;
use crate::log::{AuthorizeRequest, Log};

/// Whether the client went to the authorization endpoint after reading metadata that names
/// `https://evil.example.com/mcp`.
#[derive(Default)]
struct Mismatch {
    authorization_request_made: bool,
}

impl Rules for Mismatch {
    fn on_authorize(&mut self, _: &AuthorizeRequest, _: &mut Vec<Check>) {
        self.authorization_request_made = true;
    }

    fn finish(&mut self, checks: &mut Vec<Check>) {
        let id = "resource-mismatch-rejected";
        if checks.iter().any(|c| c.id == id) {
            return;
        }
        let name = "Client rejects mismatched resource";
        let fail = "Client MUST validate that PRM resource matches the server URL before \
                    proceeding with authorization";
        let requested = checks.iter().any(|c| c.id == "prm-pathbased-requested");
        let details = json!({
            "prmResource": "https://evil.example.com/mcp",
            "expectedBehavior": "Client should NOT proceed with authorization",
            "prmRequested": requested,
            "authorizationRequestMade": self.authorization_request_made
        });
        let references = vec![refs::rfc_8707(), refs::mcp_resource_parameter()];
        let check = if requested {
            let refused = !self.authorization_request_made;
            with_details(
                cite(Check::new(
                    id,
                    name,
                    if refused {
                        "Client correctly rejected authorization when PRM resource does not \
                         match server URL"
                    } else {
                        fail
                    },
                    pass(refused),
                    refs::rfc_8707(),
                ))
                .details(details),
                json!({
                    "propertyReached": true,
                    "stopReason": if refused {
                        "declined-after-reading-prm"
                    } else {
                        "proceeded-to-authorization"
                    }
                }),
            )
        } else {
            let mut check = untestable(
                id,
                name,
                fail,
                "client never requested the Protected Resource Metadata document, so it never \
                 read the resource value it was required to validate",
                references,
            );
            check = with_details(check, details);
            with_details(
                check,
                json!({ "propertyReached": false, "stopReason": "prm-not-requested" }),
            )
        };
        checks.push(check);
    }
}

pub(crate) fn resource_mismatch_checks(log: &Log, version: ProtocolVersion) -> Vec<Check> {
    judge(log, version, &Layout::DEFAULT, &mut Mismatch::default())
}

/// The last `resource` each step saw, as the suite's scenario keeps them; `None` where the
/// step never happened or sent none.
#[derive(Default)]
pub(super) struct Resources {
    /// The authorization request's `resource`.
    pub(super) authorization: Option<String>,
    /// The token request's `resource`.
    pub(super) token: Option<String>,
    /// The `resource` the protected resource metadata served.
    pub(super) published: Option<String>,
}

fn cite(check: Check) -> Check {
    cited(check, refs::mcp_resource_parameter())
}

/// The checks no request emitted already, in the suite's order.
pub(super) fn resource_checks(resources: &Resources, checks: &mut Vec<Check>) {
    let has = |checks: &[Check], id: &str| checks.iter().any(|c| c.id == id);
    // The suite tests these two for truth, so an empty `resource` counts as none sent.
    let authorization = resources.authorization.as_deref().filter(|r| !r.is_empty());
    let token = resources.token.as_deref().filter(|r| !r.is_empty());
    for (id, name, sent, place) in [
        (
            "resource-parameter-in-authorization",
            "Resource parameter in authorization request",
            authorization,
            "authorization request",
        ),
        (
            "resource-parameter-in-token",
            "Resource parameter in token request",
            token,
            "token request",
        ),
    ] {
        if has(checks, id) {
            continue;
        }
        let description = match sent {
            Some(_) => format!("Client included resource parameter in {place}"),
            None => format!("Client MUST include resource parameter in {place} per RFC 8707"),
        };
        checks.push(cite(
            Check::new(
                id,
                name,
                &description,
                pass(sent.is_some()),
                refs::rfc_8707(),
            )
            .details(json!({ "resource": sent.unwrap_or("not provided") })),
        ));
    }
    if let Some(resource) = authorization
        .or(token)
        .filter(|_| !has(checks, "resource-parameter-valid-uri"))
    {
        let error = match url::Url::parse(resource) {
            Ok(url) if url.fragment().is_some() => {
                Some("contains fragment (not allowed per RFC 8707)")
            }
            Ok(_) => None,
            Err(_) => Some("invalid URI format"),
        };
        let description = match error {
            None => {
                "Resource parameter is a valid canonical URI (has scheme, no fragment)".to_string()
            }
            Some(error) => format!("Resource parameter is invalid: {error}"),
        };
        let mut details = json!({ "resource": resource });
        if let Some(error) = error {
            details["error"] = json!(error);
        }
        checks.push(cite(
            Check::new(
                "resource-parameter-valid-uri",
                "Resource parameter is valid canonical URI",
                &description,
                pass(error.is_none()),
                refs::rfc_8707(),
            )
            .details(details),
        ));
    }
    if let (Some(authorization), Some(token)) = (authorization, token)
        && !has(checks, "resource-parameter-consistency")
    {
        let consistent = authorization == token;
        checks.push(cite(
            Check::new(
                "resource-parameter-consistency",
                "Resource parameter consistency",
                if consistent {
                    "Resource parameter is consistent between authorization and token requests"
                } else {
                    "Resource parameter MUST be consistent between authorization and token requests"
                },
                pass(consistent),
                refs::rfc_8707(),
            )
            .details(json!({ "authorizationResource": authorization, "tokenResource": token })),
        ));
    }
    if !has(checks, "resource-parameter-matches-prm") {
        matches_published(resources, checks);
    }
}

/// Byte for byte the metadata's `resource` (here an empty one counts as sent, as the suite
/// compares it with `undefined`).
fn matches_published(resources: &Resources, checks: &mut Vec<Check>) {
    let Some(published) = resources.published.as_deref() else {
        return;
    };
    let sent: Vec<(&str, &str)> = [
        ("authorization", resources.authorization.as_deref()),
        ("token", resources.token.as_deref()),
    ]
    .into_iter()
    .filter_map(|(place, value)| Some((place, value?)))
    .collect();
    if sent.is_empty() {
        return;
    }
    let differing: Vec<&str> = sent
        .iter()
        .filter(|(_, value)| *value != published)
        .map(|(place, _)| *place)
        .collect();
    let matches = differing.is_empty();
    let failure = format!(
        "Client MUST send the resource identifier exactly as published in protected resource \
         metadata; the {} request sent a different value (a URL parser that appends \"/\" to a \
         pathless identifier is the usual cause)",
        differing.join(" and ")
    );
    let mut check = Check::new(
        "resource-parameter-matches-prm",
        "Resource parameter matches protected resource metadata",
        if matches {
            "Client sent the resource identifier exactly as published in protected resource \
             metadata"
        } else {
            &failure
        },
        pass(matches),
        refs::rfc_8707(),
    )
    .details(json!({
        "prmResource": published,
        "authorizationResource": resources.authorization.as_deref().unwrap_or("not provided"),
        "tokenResource": resources.token.as_deref().unwrap_or("not provided"),
    }));
    check.spec_references.extend([
        refs::mcp_resource_parameter(),
        refs::mcp_canonical_server_uri(),
        refs::rfc_9728_resource_identity(),
    ]);
    if !matches {
        check.error_message = Some(failure.clone());
    }
    checks.push(check);
}
