//! `auth/2025-03-26-oauth-metadata-backcompat` and `auth/2025-03-26-oauth-endpoint-fallback`:
//! a 2025-03-26 client finds the authorization server without Protected Resource Metadata,
//! from the metadata at the MCP server's root or from the default endpoints (the suite's
//! `march-spec-backcompat.ts`).

use serde_json::{Map, Value, json};

use super::{Layout, Rules, Servers, expect_milestones, judge, refs};
use crate::ProtocolVersion;
use crate::grade::check::{Check, CheckStatus, SpecReference};
use crate::log::{AuthorizeRequest, Log, Registration, TokenRequest};

/// The milestones of the flow, each a FAILURE when no request reached it.
struct Milestones {
    ids: &'static [&'static str],
    reference: Option<SpecReference>,
}

impl Rules for Milestones {
    fn finish(&mut self, checks: &mut Vec<Check>) {
        let references: Vec<SpecReference> = self.reference.iter().cloned().collect();
        expect_milestones(checks, self.ids, &references);
    }
}

/// A document the suite's servers do not serve: no request path is empty.
const NOWHERE: &str = "";

pub(crate) fn metadata_backcompat_checks(log: &Log, version: ProtocolVersion) -> Vec<Check> {
    let layout = Layout {
        prm: NOWHERE,
        servers: Servers::Mounted,
        ..Layout::DEFAULT
    };
    let mut rules = Milestones {
        ids: &[
            "authorization-server-metadata",
            "client-registration",
            "authorization-request",
            "token-request",
        ],
        reference: Some(refs::legacy_auth_discovery()),
    };
    judge(log, version, &layout, &mut rules)
}

pub(crate) fn endpoint_fallback_checks(log: &Log, version: ProtocolVersion) -> Vec<Check> {
    let layout = Layout {
        as_metadata: NOWHERE,
        prm: NOWHERE,
        servers: Servers::Fallback,
        ..Layout::DEFAULT
    };
    let mut rules = Milestones {
        ids: &[
            "client-registration",
            "authorization-request",
            "token-request",
        ],
        reference: None,
    };
    judge(log, version, &layout, &mut rules)
}

/// The fallback `/authorize`'s check: what the request carried, the challenge only as
/// present or missing.
pub(super) fn fallback_authorization(request: &AuthorizeRequest) -> Check {
    let mut details = Map::new();
    for name in ["response_type", "client_id", "redirect_uri", "state"] {
        if let Some(value) = request.param(name) {
            details.insert(name.into(), json!(value));
        }
    }
    let challenge = request
        .param("code_challenge")
        .is_some_and(|c| !c.is_empty());
    details.insert(
        "code_challenge".into(),
        json!(if challenge { "present" } else { "missing" }),
    );
    if let Some(method) = request.param("code_challenge_method") {
        details.insert("code_challenge_method".into(), json!(method));
    }
    Check::new(
        "authorization-request",
        "AuthorizationRequest",
        "Client made authorization request to fallback endpoint",
        CheckStatus::Success,
        refs::legacy_auth_url_fallback(),
    )
    .details(Value::Object(details))
}

pub(super) fn fallback_token(request: &TokenRequest) -> Check {
    Check::new(
        "token-request",
        "TokenRequest",
        "Client requested access token from fallback endpoint",
        CheckStatus::Success,
        refs::legacy_auth_url_fallback(),
    )
    .details(json!({ "endpoint": "/token", "grantType": request.grant_type() }))
}

pub(super) fn fallback_registration(registration: &Registration) -> Check {
    let mut details = json!({ "endpoint": "/register" });
    if let Some(name) = registration.metadata.get("client_name") {
        details["clientName"] = name.clone();
    }
    Check::new(
        "client-registration",
        "ClientRegistration",
        "Client registered with authorization server at fallback endpoint",
        CheckStatus::Success,
        refs::legacy_auth_url_fallback(),
    )
    .details(details)
}
