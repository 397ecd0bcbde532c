//! The suite's client authorization scenarios (`src/scenarios/client/auth/**`): the
//! fixture's own authorization server, preset as the suite's mock
//! ([`AuthScenario`](crate::oauth::AuthScenario)), and the checks the suite's mock emits as
//! requests arrive, replayed from the capture in the order they came: a log line for each
//! request and answer (INFO), discovery, registration, authorization with PKCE, the token
//! exchange, and the bearer token on each MCP request. Each scenario adds its own checks
//! through [`Rules`].
//!
//! The suite runs its authorization server on a port of its own; the decoy serves both roles
//! on one, so an exchange is the authorization server's when its path is one of its
//! endpoints or metadata documents.

mod client_auth;
pub(super) mod client_credentials;
mod discovery;
#[cfg(feature = "oauth-jwt")]
pub(super) mod dpop;
#[cfg(feature = "oauth-jwt")]
pub(super) mod enterprise;
mod issuer;
mod legacy;
mod migration;
mod offline;
mod resource;
mod scope;
#[cfg(feature = "oauth-jwt")]
pub(super) mod workload;

pub(super) use client_auth::{
    basic_cimd_checks, pre_registration_checks, pre_registration_context, token_auth_basic_checks,
    token_auth_none_checks, token_auth_post_checks,
};
pub(super) use discovery::{
    metadata_default_checks, metadata_var1_checks, metadata_var2_checks, metadata_var3_checks,
};
pub(super) use issuer::{
    iss_normalized_checks, iss_not_advertised_checks, iss_supported_checks,
    iss_supported_missing_checks, iss_unexpected_checks, iss_wrong_issuer_checks,
    metadata_issuer_mismatch_checks,
};
pub(super) use legacy::{endpoint_fallback_checks, metadata_backcompat_checks};
pub(super) use migration::migration_checks;
pub(super) use offline::{offline_access_not_supported_checks, offline_access_scope_checks};
pub(super) use resource::resource_mismatch_checks;
pub(super) use scope::{
    from_scopes_supported_checks, from_www_authenticate_checks, omitted_when_undefined_checks,
    retry_limit_checks, step_up_checks,
};

use std::collections::HashMap;

use resource::{Resources, resource_checks};

use base64::Engine as _;
use serde_json::{Map, Value, json};
use sha2::{Digest, Sha256};

use crate::grade::check::{Check, CheckStatus, SpecReference};
use crate::log::{
    AuthorizeRequest, Entry, HttpExchange, HttpKind, Log, Registration, TokenRequest,
};
use crate::oauth::{AuthScenario, OAuth};
use crate::{MockMcpServer, MockMcpServerBuilder, ProtocolVersion, Tool};

/// The suite's `SpecReferences`, by its names.
pub(super) mod refs {
    use crate::grade::check::SpecReference;

    macro_rules! references {
        ($($name:ident = $id:literal, $url:literal;)*) => {
            $(pub(crate) fn $name() -> SpecReference { SpecReference::new($id, $url) })*
        };
    }

    references! {
        rfc_prm_discovery = "RFC-9728", "https://www.rfc-editor.org/rfc/rfc9728.html#section-3.1";
        rfc_auth_server_metadata_request = "RFC-8414-metadata-request",
            "https://www.rfc-editor.org/rfc/rfc8414.html#section-3.1";
        mcp_prm_discovery = "MCP-2025-06-18-PRM-discovery",
            "https://modelcontextprotocol.io/specification/2025-11-25/basic/authorization#protected-resource-metadata-discovery-requirements";
        mcp_auth_discovery = "MCP-Authorization-metadata-discovery",
            "https://modelcontextprotocol.io/specification/2025-11-25/basic/authorization#authorization-server-metadata-discovery";
        mcp_dcr = "MCP-Dynamic-client-registration",
            "https://modelcontextprotocol.io/specification/2025-11-25/basic/client#dynamic-client-registration";
        oauth_authorization_endpoint = "OAUTH-2.1-authorization-endpoint",
            "https://www.ietf.org/archive/id/draft-ietf-oauth-v2-1-13.html#name-authorization-endpoint";
        oauth_token = "OAUTH-2.1-token-request",
            "https://www.ietf.org/archive/id/draft-ietf-oauth-v2-1-13.html#name-token-request";
        mcp_access_token_usage = "MCP-Access-token-usage",
            "https://modelcontextprotocol.io/specification/2025-11-25/basic/authorization#access-token-usage";
        rfc_8707 = "RFC-8707-Resource-Indicators", "https://www.rfc-editor.org/rfc/rfc8707.html";
        mcp_resource_parameter = "MCP-Resource-Parameter-Implementation",
            "https://modelcontextprotocol.io/specification/draft/basic/authorization#resource-parameter-implementation";
        mcp_preregistration = "MCP-Preregistration",
            "https://modelcontextprotocol.io/specification/2025-11-25/basic/authorization#preregistration";
        mcp_pkce = "MCP-PKCE-requirement",
            "https://modelcontextprotocol.io/specification/2025-11-25/basic/authorization#authorization-code-protection";
        mcp_canonical_server_uri = "MCP-Canonical-Server-URI",
            "https://modelcontextprotocol.io/specification/draft/basic/authorization#canonical-server-uri";
        rfc_9728_resource_identity = "RFC-9728-resource-identity",
            "https://www.rfc-editor.org/rfc/rfc9728.html#section-3.3";
        mcp_scope_selection_strategy = "MCP-Scope-selection-strategy",
            "https://modelcontextprotocol.io/specification/2025-11-25/basic/authorization#scope-selection-strategy";
        mcp_scope_challenge_handling = "MCP-Scope-challenge-handling",
            "https://modelcontextprotocol.io/specification/2025-11-25/basic/authorization#scope-challenge-handling";
        mcp_client_id_metadata_documents = "MCP-Client-ID-Metadata-Documents",
            "https://modelcontextprotocol.io/specification/2025-11-25/basic/authorization#client-id-metadata-documents";
        ietf_cimd = "IETF-OAuth-Client-ID-Metadata-Document",
            "https://datatracker.ietf.org/doc/html/draft-ietf-oauth-client-id-metadata-document-00";
        legacy_auth_discovery = "MCP-2025-03-26-Authorization-metadata-discovery",
            "https://modelcontextprotocol.io/specification/2025-03-26/basic/authorization#server-metadata-discovery";
        legacy_auth_url_fallback = "MCP-2025-03-26-Authorization-metadata-url-fallback",
            "https://modelcontextprotocol.io/specification/2025-03-26/basic/authorization#fallbacks-for-servers-without-metadata-discovery";
        sep_2207 = "SEP-2207-Refresh-Token-Guidance",
            "https://github.com/modelcontextprotocol/modelcontextprotocol/pull/2207";
        rfc_9207_iss = "RFC-9207-iss-parameter", "https://www.rfc-editor.org/rfc/rfc9207.html#section-2";
    }
}

/// A part of a compact JWT as a JSON object (0: its header, 1: its claims), its signature
/// unchecked: the fixture's servers checked it, and the checks only name what it said.
#[cfg(feature = "oauth-jwt")]
pub(super) fn jwt_part(jwt: &str, part: usize) -> Option<Map<String, Value>> {
    let jwt = crate::engine::oauth::jwt::Jwt::decode(jwt).ok()?;
    Some(if part == 0 { jwt.header } else { jwt.claims })
}

/// A check with more than one spec reference.
fn cited(mut check: Check, more: SpecReference) -> Check {
    check.spec_references.push(more);
    check
}

/// What one scenario adds to the shared checks, at the moment the suite's mock adds it.
pub(super) trait Rules {
    /// After the shared checks of an authorization request.
    fn on_authorize(&mut self, _request: &AuthorizeRequest, _checks: &mut Vec<Check>) {}
    /// After the shared checks of a token request.
    fn on_token(
        &mut self,
        _request: &TokenRequest,
        _authorization: Option<&str>,
        _checks: &mut Vec<Check>,
    ) {
    }
    /// Whether the suite's resource server asks its token verifier about an MCP request
    /// with this method (and so emits `valid-bearer-token` or `invalid-bearer-token`).
    fn verifies(&self, _mcp_method: Option<&str>) -> bool {
        true
    }
    /// Before the shared checks of a registration (the suite's hook runs first).
    fn on_register(&mut self, _registration: &Registration, _checks: &mut Vec<Check>) {}
    /// Every exchange, first, with the token request it was, if one: the scenario may note
    /// it (DPoP's proofs) or claim it with checks of its own (a server the suite does not
    /// log, the identity provider); `true` claims it, and the shared checks skip it.
    fn observe(
        &mut self,
        _exchange: &HttpExchange,
        _token: Option<&TokenRequest>,
        _checks: &mut Vec<Check>,
    ) -> bool {
        false
    }
    /// When the client is done: the checks declared but never emitted.
    fn finish(&mut self, _checks: &mut Vec<Check>) {}
    /// Whether the scenario ends with the RFC 8707 `resource` checks.
    fn checks_resource(&self) -> bool {
        false
    }
}

/// Where a scenario's documents are, as its preset serves them.
pub(super) struct Layout {
    /// The authorization server metadata path the suite's mock serves.
    pub(super) as_metadata: &'static str,
    /// The resource metadata path whose fetch is `prm-pathbased-requested`.
    pub(super) prm: &'static str,
    /// The issuer has a path: a fetch of the root RFC 8414 document is a FAILURE.
    pub(super) traps_root_as: bool,
    /// The resource metadata is path-based: a fetch of the root one is a FAILURE.
    pub(super) traps_root_prm: bool,
    /// How the suite's servers are laid out, which decides the log lines and the checks
    /// of the authorization endpoints.
    pub(super) servers: Servers,
    /// The authorization server moves (`…/as2`): its metadata below `as_metadata` counts.
    pub(super) migrates: bool,
}

/// The suite's servers for a scenario.
#[derive(Clone, Copy, PartialEq, Eq)]
pub(super) enum Servers {
    /// The MCP server and its mock authorization server, each on a port of its own.
    Apart,
    /// The mock authorization server mounted in the MCP server (2025-03-26 metadata): the
    /// MCP server's logger writes every line, as `incoming-request`.
    Mounted,
    /// No authorization server: the MCP server's own 2025-03-26 fallback endpoints, with
    /// their own checks and no PKCE ones.
    Fallback,
}

const ROOT_AS: &str = "/.well-known/oauth-authorization-server";
const ROOT_PRM: &str = "/.well-known/oauth-protected-resource";
const PATH_PRM: &str = "/.well-known/oauth-protected-resource/mcp";

impl Layout {
    /// The suite's default: RFC 8414 metadata at the root, path-based resource metadata.
    pub(super) const DEFAULT: Layout = Layout {
        as_metadata: ROOT_AS,
        prm: PATH_PRM,
        traps_root_as: false,
        traps_root_prm: false,
        servers: Servers::Apart,
        migrates: false,
    };

    fn is_as_metadata(&self, path: &str) -> bool {
        path == self.as_metadata
            || (self.migrates
                && path
                    .strip_prefix(self.as_metadata)
                    .is_some_and(|rest| rest.starts_with("/as")))
    }
}

/// The scenario's server: the fixture with the preset, its secrets kept in the capture so
/// PKCE and Basic credentials can be checked.
pub(super) fn server(scenario: AuthScenario) -> MockMcpServerBuilder {
    server_with(OAuth::preset(scenario))
}

/// The scenario's server with its own authorization server settings.
pub(super) fn server_with(oauth: OAuth) -> MockMcpServerBuilder {
    MockMcpServer::builder()
        .name("auth-prm-pathbased-server")
        .version("1.0.0")
        .tool(
            Tool::new("test-tool")
                .input_schema(json!({ "type": "object" }))
                .respond_with(json!({ "content": [{ "type": "text", "text": "test" }] })),
        )
        .oauth(oauth)
        .capture_secrets(true)
}

fn is_auth_path(path: &str) -> bool {
    let last = path.rsplit('/').next().unwrap_or_default();
    path.contains("/.well-known/oauth-authorization-server")
        || path.contains("/.well-known/openid-configuration")
        || matches!(last, "authorize" | "token" | "register" | "jwks.json")
}

/// `BASE64URL(SHA256(verifier))`.
fn s256(verifier: &str) -> String {
    base64::engine::general_purpose::URL_SAFE_NO_PAD.encode(Sha256::digest(verifier.as_bytes()))
}

/// The query string as the suite's Express reads it: an object of its parameters.
fn query_object(query: Option<&str>) -> Map<String, Value> {
    form_urlencoded::parse(query.unwrap_or_default().as_bytes())
        .map(|(k, v)| (k.into_owned(), Value::String(v.into_owned())))
        .collect()
}

fn headers_object(h: &crate::log::Headers) -> Value {
    Value::Object(
        h.iter()
            .map(|(n, v)| (n.to_ascii_lowercase(), Value::String(v.to_string())))
            .collect(),
    )
}

/// The suite's request logger: an INFO line for the request.
fn incoming(auth: bool, h: &HttpExchange) -> Check {
    let id = if auth {
        "incoming-auth-request"
    } else {
        "incoming-request"
    };
    let body = h.request_body.as_deref().cloned().unwrap_or(json!({}));
    let mut description = format!("Received {} request for {}", h.method, h.path);
    let mut details = json!({ "method": h.method, "path": h.path, "body": body });
    let query = query_object(h.query.as_deref());
    if !query.is_empty() {
        details["query"] = Value::Object(query);
    }
    if let Some(method) = mcp_method(h).filter(|_| !auth) {
        description.push_str(&format!(" (method: {method})"));
        details["mcpMethod"] = json!(method);
    }
    info(id, &description, details)
}

/// The suite's request logger: an INFO line for the answer.
fn outgoing(auth: bool, h: &HttpExchange) -> Check {
    let id = if auth {
        "outgoing-auth-response"
    } else {
        "outgoing-response"
    };
    let status = h.status.unwrap_or_default();
    let mut description = format!("Sent {status} response for {} {}", h.method, h.path);
    let mut details = json!({
        "method": h.method,
        "path": h.path,
        "statusCode": status,
        "headers": headers_object(&h.response_headers)
    });
    if let Some(method) = mcp_method(h).filter(|_| !auth) {
        description.push_str(&format!(" (method: {method})"));
        details["mcpMethod"] = json!(method);
    }
    if let Some(body) = h.response_body.as_deref() {
        details["body"] = body.clone();
    }
    info(id, &description, details)
}

/// The JSON-RPC method of a request to the MCP endpoint, as the suite's logger reads it.
fn mcp_method(h: &HttpExchange) -> Option<&str> {
    (h.path == "/mcp")
        .then(|| h.request_body.as_deref()?.get("method")?.as_str())
        .flatten()
}

fn info(id: &str, description: &str, details: Value) -> Check {
    let mut name = id.to_string();
    if let Some(first) = name.get_mut(0..1) {
        first.make_ascii_uppercase();
    }
    Check::new(
        id,
        &name,
        description,
        CheckStatus::Info,
        refs::oauth_token(),
    )
    .details(details)
    .cited_by(Vec::new())
}

fn pass(ok: bool) -> CheckStatus {
    if ok {
        CheckStatus::Success
    } else {
        CheckStatus::Failure
    }
}

/// The shared checks of the whole run, in the order the requests came, with the scenario's
/// own where its rules put them, then its declared ones.
pub(super) fn judge(
    log: &Log,
    version: ProtocolVersion,
    layout: &Layout,
    rules: &mut dyn Rules,
) -> Vec<Check> {
    let oauth = log.oauth();
    let authorizations: HashMap<u64, AuthorizeRequest> = oauth
        .authorization_requests()
        .into_iter()
        .map(|r| (r.record, r))
        .collect();
    let tokens: HashMap<u64, TokenRequest> = oauth
        .token_requests()
        .into_iter()
        .map(|r| (r.record, r))
        .collect();
    let registrations: HashMap<u64, Registration> = oauth
        .registrations()
        .into_iter()
        .map(|r| (r.record, r))
        .collect();
    let mut checks = Vec::new();
    let mut challenge: Option<String> = None;
    let mut granted: Vec<String> = Vec::new();
    let mut issued: Vec<String> = Vec::new();
    let mut resources = Resources::default();
    for record in log.records() {
        let Entry::Http(h) = &record.entry else {
            continue;
        };
        if h.kind != HttpKind::Exchange {
            continue;
        }
        if rules.observe(h, tokens.get(&record.id), &mut checks) {
            continue;
        }
        let auth = layout.servers == Servers::Apart && is_auth_path(&h.path);
        let fallback = layout.servers == Servers::Fallback;
        checks.push(incoming(auth, h));
        let get = h.method.eq_ignore_ascii_case("GET");
        if get && layout.is_as_metadata(&h.path) {
            checks.push(
                cited(
                    Check::new(
                        "authorization-server-metadata",
                        "AuthorizationServerMetadata",
                        "Client requested authorization server metadata",
                        CheckStatus::Success,
                        refs::rfc_auth_server_metadata_request(),
                    ),
                    refs::mcp_auth_discovery(),
                )
                .details(json!({ "url": url_of(h), "path": h.path })),
            );
        } else if get && layout.traps_root_as && h.path == ROOT_AS {
            checks.push(
                cited(
                    Check::new(
                        "authorization-server-metadata-wrong-path",
                        "AuthorizationServerMetadataWrongPath",
                        "Client requested authorization server at the root path when the AS URL \
                     has a path-based location",
                        CheckStatus::Failure,
                        refs::rfc_auth_server_metadata_request(),
                    ),
                    refs::mcp_auth_discovery(),
                )
                .details(json!({ "url": url_of(h) })),
            );
        } else if get && h.path == layout.prm {
            resources.published = h
                .response_body
                .as_deref()
                .and_then(|b| b.get("resource"))
                .and_then(Value::as_str)
                .map(str::to_string);
            checks.push(
                cited(
                    Check::new(
                        "prm-pathbased-requested",
                        "PRMPathBasedRequested",
                        "Client requested PRM metadata at path-based location",
                        CheckStatus::Success,
                        refs::rfc_prm_discovery(),
                    ),
                    refs::mcp_prm_discovery(),
                )
                .details(json!({ "url": url_of(h), "path": h.path })),
            );
        } else if get && layout.traps_root_prm && h.path == ROOT_PRM {
            checks.push(
                cited(
                    Check::new(
                        "prm-priority-order",
                        "PRM Priority Order",
                        "Client requested PRM metadata at root location on a server with \
                     path-based PRM",
                        CheckStatus::Failure,
                        refs::rfc_prm_discovery(),
                    ),
                    refs::mcp_prm_discovery(),
                )
                .details(json!({ "url": url_of(h), "path": h.path })),
            );
        } else if let Some(request) = authorizations.get(&record.id) {
            challenge = request.param("code_challenge").map(str::to_string);
            resources.authorization = request.param("resource").map(str::to_string);
            if fallback {
                checks.push(legacy::fallback_authorization(request));
            } else {
                authorization_checks(request, &mut checks);
                rules.on_authorize(request, &mut checks);
            }
        } else if let Some(request) = tokens.get(&record.id) {
            let authorization = h.request_header("authorization");
            resources.token = request.param("resource").map(str::to_string);
            if fallback {
                checks.push(legacy::fallback_token(request));
            } else {
                token_checks(request, challenge.as_deref(), &mut checks);
                rules.on_token(request, authorization, &mut checks);
            }
            let answer = h.response_body.as_deref();
            if let Some(scope) = answer.and_then(|b| b.get("scope")).and_then(Value::as_str) {
                granted = scope.split(' ').map(str::to_string).collect();
            }
            let token = answer.and_then(|b| b.get("access_token"));
            issued.extend(token.and_then(Value::as_str).map(str::to_string));
        } else if let Some(registration) = registrations.get(&record.id) {
            if fallback {
                checks.push(legacy::fallback_registration(registration));
            } else {
                rules.on_register(registration, &mut checks);
                registration_checks(registration, version, &mut checks);
            }
        } else if h.path == "/mcp" && h.method.eq_ignore_ascii_case("POST") {
            let check = rules
                .verifies(mcp_method(h))
                .then(|| bearer_check(h, &granted, &issued))
                .flatten();
            checks.extend(check);
        }
        if h.status.is_some() {
            checks.push(outgoing(auth, h));
        }
    }
    rules.finish(&mut checks);
    if rules.checks_resource() {
        resource_checks(&resources, &mut checks);
    }
    checks
}

/// `http://host/path?query` as the suite's Express shows `req.url`: the path and query.
fn url_of(h: &HttpExchange) -> String {
    match &h.query {
        Some(query) => format!("{}?{query}", h.path),
        None => h.path.clone(),
    }
}

fn authorization_checks(request: &AuthorizeRequest, checks: &mut Vec<Check>) {
    let query: Map<String, Value> = request
        .params
        .iter()
        .map(|(k, v)| (k.clone(), Value::String(v.clone())))
        .collect();
    checks.push(
        Check::new(
            "authorization-request",
            "AuthorizationRequest",
            "Client made authorization request",
            CheckStatus::Success,
            refs::oauth_authorization_endpoint(),
        )
        .details(json!({ "query": query })),
    );
    let sent = request
        .param("code_challenge")
        .is_some_and(|c| !c.is_empty());
    checks.push(Check::new(
        "pkce-code-challenge-sent",
        "PKCE Code Challenge",
        if sent {
            "Client sent code_challenge in authorization request"
        } else {
            "Client MUST send code_challenge in authorization request"
        },
        pass(sent),
        refs::mcp_pkce(),
    ));
    let method = request.code_challenge_method();
    let s256 = method == Some("S256");
    checks.push(
        Check::new(
            "pkce-s256-method-used",
            "PKCE S256 Method",
            if s256 {
                "Client used S256 code challenge method"
            } else {
                "Client MUST use S256 code challenge method when technically capable"
            },
            pass(s256),
            refs::mcp_pkce(),
        )
        .details(json!({ "method": method.filter(|m| !m.is_empty()).unwrap_or("not specified") })),
    );
}

fn token_checks(request: &TokenRequest, challenge: Option<&str>, checks: &mut Vec<Check>) {
    let grant = request.grant_type();
    checks.push(
        Check::new(
            "token-request",
            "TokenRequest",
            "Client requested access token",
            CheckStatus::Success,
            refs::oauth_token(),
        )
        .details(json!({ "endpoint": "/token", "grantType": grant })),
    );
    if grant != Some("authorization_code") {
        return;
    }
    let verifier = request.param("code_verifier").filter(|v| !v.is_empty());
    let challenge = challenge.filter(|c| !c.is_empty());
    checks.push(Check::new(
        "pkce-code-verifier-sent",
        "PKCE Code Verifier",
        if verifier.is_some() {
            "Client sent code_verifier in token request"
        } else {
            "Client MUST send code_verifier in token request"
        },
        pass(verifier.is_some()),
        refs::mcp_pkce(),
    ));
    let computed = verifier.filter(|_| challenge.is_some()).map(s256);
    let matches = computed.is_some() && computed.as_deref() == challenge;
    let description = match (challenge, verifier) {
        (None, None) => "Neither code_challenge nor code_verifier were sent - PKCE is required",
        (None, Some(_)) => {
            "code_challenge was not sent in authorization request - PKCE is required"
        }
        (Some(_), None) => "code_verifier was not sent in token request - PKCE is required",
        _ if matches => "code_verifier correctly matches code_challenge (S256)",
        _ => "code_verifier does not match code_challenge",
    };
    checks.push(
        Check::new(
            "pkce-verifier-matches-challenge",
            "PKCE Verifier Validation",
            description,
            pass(matches),
            refs::mcp_pkce(),
        )
        .details(json!({
            "matches": matches,
            "storedChallenge": challenge.unwrap_or("not sent"),
            "computedChallenge": computed.as_deref().unwrap_or("not computed")
        })),
    );
}

fn registration_checks(
    registration: &Registration,
    version: ProtocolVersion,
    checks: &mut Vec<Check>,
) {
    let mut details = json!({ "endpoint": "/register" });
    if let Some(name) = registration.metadata.get("client_name") {
        details["clientName"] = name.clone();
    }
    checks.push(
        Check::new(
            "client-registration",
            "ClientRegistration",
            "Client registered with authorization server",
            CheckStatus::Success,
            refs::mcp_dcr(),
        )
        .details(details),
    );
    // SEP-837 arrives with the stateless revision; before it the suite emits nothing.
    if !version.is_modern() {
        return;
    }
    let kind = registration.metadata.get("application_type");
    let valid = matches!(kind.and_then(Value::as_str), Some("native" | "web"));
    let description = match kind {
        _ if valid => format!(
            "Client specified application_type \"{}\" during Dynamic Client Registration",
            kind.and_then(Value::as_str).unwrap_or_default()
        ),
        None => "Client MUST specify an appropriate application_type during Dynamic Client \
                 Registration (SEP-837); field was omitted"
            .to_string(),
        Some(other) => format!(
            "Client MUST specify an appropriate application_type during Dynamic Client \
             Registration (SEP-837); got \"{}\", expected \"native\" or \"web\"",
            super::js_string(other)
        ),
    };
    checks.push(
        Check::new(
            "sep-837-application-type-present",
            "DCR application_type specified",
            &description,
            pass(valid),
            refs::mcp_dcr(),
        )
        .details(json!({ "application_type": kind.cloned().unwrap_or(json!("(omitted)")) })),
    );
}

/// The suite's token verifier, on an MCP POST that carries a bearer token: valid when the
/// server took it (anything but a `401`) or issued it (the suite's verifier knows every
/// token its server made, even one the resource now refuses).
fn bearer_check(h: &HttpExchange, granted: &[String], issued: &[String]) -> Option<Check> {
    let header = h.request_header("authorization")?;
    let (scheme, token) = header.split_once(' ')?;
    if !scheme.eq_ignore_ascii_case("bearer") {
        return None;
    }
    let token = token.trim();
    let prefix: String = token.chars().take(15).collect();
    Some(
        if h.status == Some(401) && !issued.iter().any(|t| t == token) {
            Check::new(
                "invalid-bearer-token",
                "InvalidBearerToken",
                "Client provided invalid bearer token",
                CheckStatus::Failure,
                refs::mcp_access_token_usage(),
            )
            .details(json!({
                "message": "Token verification failed",
                "token": if token.is_empty() { "missing".to_string() } else {
                    format!("{}...", token.chars().take(10).collect::<String>())
                }
            }))
        } else {
            Check::new(
                "valid-bearer-token",
                "ValidBearerToken",
                "Client provided valid bearer token",
                CheckStatus::Success,
                refs::mcp_access_token_usage(),
            )
            .details(json!({ "token": format!("{prefix}..."), "scopes": granted }))
        },
    )
}

/// The suite's `Expected Check Missing: ID` for each milestone no request reached, cited to
/// `references` (none in some scenarios).
fn expect_milestones(checks: &mut Vec<Check>, ids: &[&str], references: &[SpecReference]) {
    for id in ids {
        backfill(checks, id, || {
            let title = format!("Expected Check Missing: {id}");
            Check::new(id, &title, &title, CheckStatus::Failure, refs::rfc_8707())
                .cited_by(references.to_vec())
        });
    }
}

/// The suite's backfill of a declared check no request emitted.
pub(super) fn backfill(checks: &mut Vec<Check>, id: &str, make: impl FnOnce() -> Check) {
    if !checks.iter().any(|c| c.id == id) {
        checks.push(make());
    }
}

/// The suite's check for a property the client never came near: a FAILURE that says it
/// could not be observed, and why.
fn untestable(
    id: &str,
    name: &str,
    description: &str,
    reason: &str,
    references: Vec<SpecReference>,
) -> Check {
    Check::new(
        id,
        name,
        description,
        CheckStatus::Failure,
        refs::rfc_8707(),
    )
    .cited_by(references)
    .error(format!("Not testable: {reason}"))
    .details(json!({ "untestable": true, "reason": reason }))
}

/// Adds members to a check's details object.
fn with_details(mut check: Check, more: Value) -> Check {
    if let (Value::Object(details), Value::Object(more)) = (&mut check.details, more) {
        details.extend(more);
    }
    check
}
