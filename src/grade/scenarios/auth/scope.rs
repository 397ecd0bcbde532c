//! `auth/scope-from-www-authenticate`, `-from-scopes-supported`, `-omitted-when-undefined`,
//! `-step-up` and `-retry-limit`: which scopes the client asks for, and how it re-authorizes
//! when the server wants more (the suite's `src/scenarios/client/auth/scope-handling.ts`).

use serde_json::json;

use super::{Layout, Rules, judge, refs};
use crate::ProtocolVersion;
use crate::grade::check::{Check, CheckStatus};
use crate::log::{AuthorizeRequest, Log};

/// The scopes an authorization request asked for, split as the suite splits them.
fn requested(request: &AuthorizeRequest) -> Vec<&str> {
    match request.param("scope") {
        Some(scope) if !scope.is_empty() => scope.split(' ').collect(),
        _ => Vec::new(),
    }
}

/// `scope` as the suite's details show it: `none` when absent or empty.
fn shown(request: &AuthorizeRequest) -> &str {
    request
        .param("scope")
        .filter(|s| !s.is_empty())
        .unwrap_or("none")
}

fn should(ok: bool) -> CheckStatus {
    if ok {
        CheckStatus::Success
    } else {
        CheckStatus::Warning
    }
}

/// A scope check the client never reached: a FAILURE, as the suite backfills it.
fn missing(id: &str, name: &str, description: &str, challenge: bool) -> Check {
    let reference = if challenge {
        refs::mcp_scope_challenge_handling()
    } else {
        refs::mcp_scope_selection_strategy()
    };
    Check::new(id, name, description, CheckStatus::Failure, reference)
}

const INCOMPLETE: &str =
    "Client did not complete authorization flow - scope check could not be performed";

/// One check per authorization request on the scopes it asked for.
struct Selection {
    id: &'static str,
    name: &'static str,
    judge: fn(&AuthorizeRequest) -> Check,
}

impl Rules for Selection {
    fn on_authorize(&mut self, request: &AuthorizeRequest, checks: &mut Vec<Check>) {
        checks.push((self.judge)(request));
    }

    fn finish(&mut self, checks: &mut Vec<Check>) {
        if !checks.iter().any(|c| c.id == self.id) {
            checks.push(missing(self.id, self.name, INCOMPLETE, false));
        }
    }
}

pub(crate) fn from_www_authenticate_checks(log: &Log, version: ProtocolVersion) -> Vec<Check> {
    let mut rules = Selection {
        id: "scope-from-www-authenticate",
        name: "Client scope selection from WWW-Authenticate header",
        judge: |request| {
            let ok = requested(request).contains(&"mcp:basic");
            Check::new(
                "scope-from-www-authenticate",
                "Client scope selection from WWW-Authenticate header",
                if ok {
                    "Client correctly used the scope parameter from the WWW-Authenticate header"
                } else {
                    "Client SHOULD use the scope parameter from the WWW-Authenticate header when \
                     provided"
                },
                should(ok),
                refs::mcp_scope_selection_strategy(),
            )
            .details(json!({ "expectedScope": "mcp:basic", "requestedScope": shown(request) }))
        },
    };
    judge(log, version, &Layout::DEFAULT, &mut rules)
}

const SUPPORTED: [&str; 3] = ["mcp:basic", "mcp:read", "mcp:write"];

pub(crate) fn from_scopes_supported_checks(log: &Log, version: ProtocolVersion) -> Vec<Check> {
    let mut rules = Selection {
        id: "scope-from-scopes-supported",
        name: "Client scope selection from scopes_supported",
        judge: |request| {
            let asked = requested(request);
            let absent: Vec<&str> = SUPPORTED
                .into_iter()
                .filter(|s| !asked.contains(s))
                .collect();
            let mut details = json!({
                "scopesSupported": SUPPORTED.join(" "),
                "requestedScope": shown(request),
            });
            if !absent.is_empty() {
                details["missingScopes"] = json!(absent.join(" "));
            }
            Check::new(
                "scope-from-scopes-supported",
                "Client scope selection from scopes_supported",
                if absent.is_empty() {
                    "Client correctly used all scopes from scopes_supported in PRM when scope not \
                     in WWW-Authenticate"
                } else {
                    "Client SHOULD use all scopes from scopes_supported when scope not available \
                     in WWW-Authenticate header"
                },
                should(absent.is_empty()),
                refs::mcp_scope_selection_strategy(),
            )
            .details(details)
        },
    };
    judge(log, version, &Layout::DEFAULT, &mut rules)
}

pub(crate) fn omitted_when_undefined_checks(log: &Log, version: ProtocolVersion) -> Vec<Check> {
    let mut rules = Selection {
        id: "scope-omitted-when-undefined",
        name: "Client scope omission when scopes_supported undefined",
        judge: |request| {
            let scope = request.param("scope").filter(|s| !s.trim().is_empty());
            Check::new(
                "scope-omitted-when-undefined",
                "Client scope omission when scopes_supported undefined",
                if scope.is_none() {
                    "Client correctly omitted scope parameter when scopes_supported is undefined"
                } else {
                    "Client SHOULD omit scope parameter when scopes_supported is undefined and \
                     scope not in WWW-Authenticate"
                },
                should(scope.is_none()),
                refs::mcp_scope_selection_strategy(),
            )
            .details(json!({ "scopeParameter": scope.unwrap_or("omitted") }))
        },
    };
    judge(log, version, &Layout::DEFAULT, &mut rules)
}

/// The first authorization asks for the challenged `mcp:basic`; the second, after the 403,
/// for `mcp:write`, and from 2026-07-28 for the union of both (SEP-2350).
struct StepUp {
    attempts: usize,
    union_required: bool,
}

impl Rules for StepUp {
    fn on_authorize(&mut self, request: &AuthorizeRequest, checks: &mut Vec<Check>) {
        self.attempts += 1;
        let asked = requested(request);
        let scope = shown(request);
        match self.attempts {
            1 => {
                let ok = asked.contains(&"mcp:basic");
                checks.push(
                    Check::new(
                        "scope-step-up-initial",
                        "Client initial scope selection for step-up auth",
                        if ok {
                            "Client correctly used scope from WWW-Authenticate header for \
                             initial auth"
                        } else {
                            "Client SHOULD use the scope parameter from the WWW-Authenticate \
                             header"
                        },
                        should(ok),
                        refs::mcp_scope_selection_strategy(),
                    )
                    .details(json!({ "expectedScope": "mcp:basic", "requestedScope": scope })),
                );
            }
            2 => {
                let ok = asked.contains(&"mcp:write");
                checks.push(
                    Check::new(
                        "scope-step-up-escalation",
                        "Client scope escalation for step-up auth",
                        if ok {
                            "Client correctly requested the challenged scope for step-up \
                             authentication"
                        } else {
                            "Client SHOULD request additional scopes when receiving 403 with new \
                             scope requirements"
                        },
                        should(ok),
                        refs::mcp_scope_selection_strategy(),
                    )
                    .details(json!({ "challengedScope": "mcp:write", "requestedScope": scope })),
                );
                if self.union_required {
                    let kept = asked.contains(&"mcp:basic");
                    checks.push(
                        Check::new(
                            "sep-2350-scope-union-on-reauth",
                            "Client accumulates previously-granted scopes on re-authorization",
                            if kept {
                                "Client included previously-granted scopes alongside the newly \
                                 challenged scope when re-authorizing"
                            } else {
                                "Client SHOULD compute the union of previously requested scopes \
                                 and newly challenged scopes when initiating re-authorization \
                                 (SEP-2350); previously-granted scope was dropped"
                            },
                            should(kept),
                            refs::mcp_scope_challenge_handling(),
                        )
                        .details(json!({
                            "previouslyGranted": "mcp:basic",
                            "challengedScope": "mcp:write",
                            "requestedScope": scope,
                        })),
                    );
                }
            }
            _ => {}
        }
    }

    fn verifies(&self, mcp_method: Option<&str>) -> bool {
        lets_through(mcp_method)
    }

    fn finish(&mut self, checks: &mut Vec<Check>) {
        if self.attempts == 0 {
            checks.push(missing(
                "scope-step-up-initial",
                "Client initial scope selection for step-up auth",
                "Client did not make an initial authorization request",
                false,
            ));
        }
        if self.attempts < 2 {
            checks.push(missing(
                "scope-step-up-escalation",
                "Client scope escalation for step-up auth",
                "Client did not make a second authorization request for scope escalation",
                false,
            ));
            if self.union_required {
                checks.push(missing(
                    "sep-2350-scope-union-on-reauth",
                    "Client accumulates previously-granted scopes on re-authorization",
                    "Client did not make a second authorization request - scope union check \
                     could not be performed",
                    true,
                ));
            }
        }
    }
}

/// The suite's step-up middleware lets `initialize` and notifications through unverified.
fn lets_through(mcp_method: Option<&str>) -> bool {
    !mcp_method.is_some_and(|m| m == "initialize" || m.starts_with("notifications/"))
}

pub(crate) fn step_up_checks(log: &Log, version: ProtocolVersion) -> Vec<Check> {
    let mut rules = StepUp {
        attempts: 0,
        union_required: version.is_modern(),
    };
    judge(log, version, &Layout::DEFAULT, &mut rules)
}

/// The most authorization attempts the suite accepts before calling it a loop.
const MAX_ATTEMPTS: usize = 3;

/// An INFO line per authorization attempt, then whether the client stopped in time.
struct RetryLimit {
    attempts: usize,
}

impl Rules for RetryLimit {
    fn on_authorize(&mut self, request: &AuthorizeRequest, checks: &mut Vec<Check>) {
        self.attempts += 1;
        let n = self.attempts;
        checks.push(
            Check::new(
                "scope-retry-auth-attempt",
                &format!("Authorization attempt {n}"),
                &format!("Client made authorization request attempt {n}"),
                CheckStatus::Info,
                refs::mcp_scope_challenge_handling(),
            )
            .details(json!({ "attemptNumber": n, "requestedScope": shown(request) })),
        );
    }

    /// The suite's always-403 middleware never asks the token verifier.
    fn verifies(&self, _mcp_method: Option<&str>) -> bool {
        false
    }

    fn finish(&mut self, checks: &mut Vec<Check>) {
        let n = self.attempts;
        let (status, description) = match n {
            0 => (
                CheckStatus::Failure,
                "Client did not make any authorization requests".to_string(),
            ),
            _ if n <= MAX_ATTEMPTS => (
                CheckStatus::Success,
                format!("Client correctly limited retry attempts to {n} (3 or fewer)"),
            ),
            _ => (
                CheckStatus::Failure,
                format!(
                    "Client made {n} authorization attempts (more than 3). Clients SHOULD \
                     implement retry limits to avoid infinite loops."
                ),
            ),
        };
        let mut check = Check::new(
            "scope-retry-limit",
            "Client retry limit for scope escalation",
            &description,
            status,
            refs::mcp_scope_challenge_handling(),
        );
        if n > 0 {
            check =
                check.details(json!({ "authorizationAttempts": n, "maxAllowed": MAX_ATTEMPTS }));
        }
        checks.push(check);
    }
}

pub(crate) fn retry_limit_checks(log: &Log, version: ProtocolVersion) -> Vec<Check> {
    judge(
        log,
        version,
        &Layout::DEFAULT,
        &mut RetryLimit { attempts: 0 },
    )
}
