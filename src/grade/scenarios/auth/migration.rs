//! `auth/authorization-server-migration`: after the first request it accepts with a token,
//! the resource names a new authorization server; the client registers with it and never
//! presents the old server's client there (SEP-2352; the suite's
//! `authorization-server-migration.ts`).
//!
//! The suite runs the two authorization servers on ports of their own; the decoy moves its
//! one to a new issuer (`…/as2`) at that moment, with its endpoints under `/oauth/as2`, so a
//! request belongs to the new server by its path.

use serde_json::json;

use super::client_auth::basic_credentials;
use super::{Layout, Rules, judge, refs};
use crate::ProtocolVersion;
use crate::grade::check::Check;
use crate::log::{AuthorizeRequest, Log, Registration, TokenRequest};

/// Whether an endpoint's path is the new authorization server's.
fn at_new_server(path: &str) -> bool {
    path.contains("/oauth/as")
}

#[derive(Default)]
struct Migration {
    /// The client ids the first authorization server issued.
    previous: Vec<String>,
    reregistered: bool,
    seen_at_authorize: bool,
    seen_at_token: bool,
}

impl Migration {
    fn is_previous(&self, client_id: Option<&str>) -> bool {
        client_id.is_some_and(|id| self.previous.iter().any(|p| p == id))
    }
}

impl Rules for Migration {
    fn on_register(&mut self, registration: &Registration, _: &mut Vec<Check>) {
        if at_new_server(&registration.path) {
            self.reregistered = true;
        } else {
            self.previous.extend(registration.client_id.clone());
        }
    }

    fn on_authorize(&mut self, request: &AuthorizeRequest, _: &mut Vec<Check>) {
        if at_new_server(&request.path) && self.is_previous(request.client_id()) {
            self.seen_at_authorize = true;
        }
    }

    fn on_token(
        &mut self,
        request: &TokenRequest,
        authorization: Option<&str>,
        _: &mut Vec<Check>,
    ) {
        let basic = authorization
            .filter(|a| a.starts_with("Basic "))
            .map(basic_credentials);
        let basic_id = basic.as_deref().and_then(|c| c.split(':').next());
        let client_id = request.param("client_id").or(basic_id);
        if at_new_server(&request.path) && self.is_previous(client_id) {
            self.seen_at_token = true;
        }
    }

    fn finish(&mut self, checks: &mut Vec<Check>) {
        let reused = self.seen_at_authorize || self.seen_at_token;
        checks.push(Check::new(
            "sep-2352-reregister-on-as-change",
            "Client re-registers with the new authorization server",
            if self.reregistered {
                "Client performed Dynamic Client Registration with the new authorization server \
                 after PRM authorization_servers changed"
            } else {
                "Client MUST re-register with the new authorization server when PRM \
                 authorization_servers changes (SEP-2352); no registration request was observed \
                 at the new AS"
            },
            super::pass(self.reregistered),
            refs::mcp_dcr(),
        ));
        checks.push(
            Check::new(
                "sep-2352-no-reuse-on-as-change",
                "Client does not reuse the previous AS client credentials",
                if reused {
                    "Client MUST NOT reuse client credentials from a different authorization \
                     server (SEP-2352); the previous AS client_id was observed at the new AS"
                } else {
                    "Client did not present the previous AS client_id at the new authorization \
                     server"
                },
                super::pass(!reused),
                refs::mcp_dcr(),
            )
            .details(json!({
                "previousClientId": self.previous.first(),
                "seenAtAuthorize": self.seen_at_authorize,
                "seenAtToken": self.seen_at_token
            })),
        );
        checks.push(Check::new(
            "sep-2352-no-cross-as-credential-reuse",
            "Client does not assume credentials are portable across authorization servers",
            if reused {
                "Client MUST NOT assume that credentials valid for one authorization server will \
                 be accepted by another (SEP-2352)"
            } else {
                "Client treated credentials as bound to the issuing authorization server"
            },
            super::pass(!reused),
            refs::mcp_dcr(),
        ));
    }
}

pub(crate) fn migration_checks(log: &Log, version: ProtocolVersion) -> Vec<Check> {
    let layout = Layout {
        migrates: true,
        ..Layout::DEFAULT
    };
    judge(log, version, &layout, &mut Migration::default())
}
