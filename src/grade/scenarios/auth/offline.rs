//! `auth/offline-access-scope` and `auth/offline-access-not-supported`: a client that wants a
//! refresh token asks for `offline_access` and the `refresh_token` grant only where the
//! authorization server lists them (SEP-2207; the suite's `offline-access.ts`).

use serde_json::json;

use super::{Layout, Rules, backfill, judge, refs};
use crate::ProtocolVersion;
use crate::grade::check::{Check, CheckStatus};
use crate::log::{AuthorizeRequest, Log, Registration};

fn asks_offline(request: &AuthorizeRequest) -> bool {
    request
        .param("scope")
        .is_some_and(|scope| scope.split(' ').any(|s| s == "offline_access"))
}

fn requested_scope(request: &AuthorizeRequest) -> &str {
    request
        .param("scope")
        .filter(|s| !s.is_empty())
        .unwrap_or("none")
}

fn sep_2207(id: &str, name: &str, description: &str, status: CheckStatus) -> Check {
    Check::new(id, name, description, status, refs::sep_2207())
}

/// The suite reads the grant types of a registration; a client that used a metadata
/// document instead is reported as not inspected (INFO), as the suite's `checks.json` has it.
#[derive(Default)]
struct OfflineAccess {
    grant_types_checked: bool,
}

impl Rules for OfflineAccess {
    fn on_register(&mut self, registration: &Registration, checks: &mut Vec<Check>) {
        let grants = registration.grant_types();
        let refresh = grants.contains(&"refresh_token");
        self.grant_types_checked = true;
        checks.push(
            sep_2207(
                "sep-2207-client-metadata-grant-types",
                "Client metadata includes refresh_token grant type (DCR)",
                if refresh {
                    "Client correctly included refresh_token in grant_types during dynamic \
                     client registration"
                } else {
                    "Client SHOULD include refresh_token in grant_types client metadata (SEP-2207)"
                },
                if refresh {
                    CheckStatus::Success
                } else {
                    CheckStatus::Warning
                },
            )
            .details(json!({
                "registrationMethod": "DCR",
                "grantTypes": if grants.is_empty() { "none".to_string() } else { grants.join(" ") }
            })),
        );
    }

    fn on_authorize(&mut self, request: &AuthorizeRequest, checks: &mut Vec<Check>) {
        let asked = asks_offline(request);
        checks.push(
            sep_2207(
                "sep-2207-offline-access-requested",
                "Client requests offline_access scope",
                if asked {
                    "Client included offline_access in authorization request scope when AS lists \
                     it in scopes_supported"
                } else {
                    "Client MAY include offline_access in scope when AS metadata lists it in \
                     scopes_supported (SEP-2207). Client chose not to request it."
                },
                if asked {
                    CheckStatus::Success
                } else {
                    CheckStatus::Info
                },
            )
            .details(json!({
                "asScopesSupported": "mcp:basic offline_access",
                "requestedScope": requested_scope(request)
            })),
        );
    }

    fn finish(&mut self, checks: &mut Vec<Check>) {
        if !self.grant_types_checked {
            checks.push(
                sep_2207(
                    "sep-2207-client-metadata-grant-types",
                    "Client metadata includes refresh_token grant type",
                    "Client did not use DCR or fetchable CIMD — grant_types could not be inspected",
                    CheckStatus::Info,
                )
                .details(json!({ "registrationMethod": "unknown" })),
            );
        }
        backfill(checks, "sep-2207-offline-access-requested", || {
            sep_2207(
                "sep-2207-offline-access-requested",
                "Client requests offline_access scope",
                "Client did not complete authorization flow — offline_access scope check could \
                 not be performed",
                CheckStatus::Failure,
            )
        });
    }
}

pub(crate) fn offline_access_scope_checks(log: &Log, version: ProtocolVersion) -> Vec<Check> {
    judge(
        log,
        version,
        &Layout::DEFAULT,
        &mut OfflineAccess::default(),
    )
}

/// `offline_access` is listed nowhere: asking for it is a FAILURE.
struct NotSupported;

impl Rules for NotSupported {
    fn on_authorize(&mut self, request: &AuthorizeRequest, checks: &mut Vec<Check>) {
        let asked = asks_offline(request);
        checks.push(
            sep_2207(
                "sep-2207-offline-access-not-requested",
                "Client does not request unsupported offline_access",
                if asked {
                    "Client MUST NOT request offline_access when it is not listed in AS \
                     scopes_supported (SEP-2207)"
                } else {
                    "Client correctly did not request offline_access when AS does not list it in \
                     scopes_supported"
                },
                super::pass(!asked),
            )
            .details(json!({
                "asScopesSupported": "mcp:basic mcp:read",
                "requestedScope": requested_scope(request)
            })),
        );
    }

    fn finish(&mut self, checks: &mut Vec<Check>) {
        backfill(checks, "sep-2207-offline-access-not-requested", || {
            sep_2207(
                "sep-2207-offline-access-not-requested",
                "Client does not request unsupported offline_access",
                "Client did not complete authorization flow — offline_access scope check could \
                 not be performed",
                CheckStatus::Failure,
            )
        });
    }
}

pub(crate) fn offline_access_not_supported_checks(
    log: &Log,
    version: ProtocolVersion,
) -> Vec<Check> {
    judge(log, version, &Layout::DEFAULT, &mut NotSupported)
}
