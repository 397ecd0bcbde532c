//! The suite's client scenarios that the grader plays: for each, the server it serves and
//! the checks it reads from the capture, as the suite's scenario server
//! (`src/scenarios/client/*.ts` of `@modelcontextprotocol/conformance`) serves and checks.

mod auth;
mod custom_headers;
mod elicitation;
mod fallback;
mod json_schema;
mod lifecycle;
mod list_changed;
mod pagination;
mod preservation;
mod request_metadata;
mod request_state;
mod session;
mod skills;
mod sse_retry;
mod standard_headers;
mod tasks;
mod timeout;
mod tools;

use serde_json::Value;

use super::check::{Check, CheckStatus};
use crate::log::{Entry, HttpExchange, HttpKind, Log, RpcKind, RpcMessage};
use crate::oauth::AuthScenario;
use crate::{MockMcpServer, MockMcpServerBuilder, ProtocolVersion};

/// The suite's named lists of client scenarios; the others (`all`, `draft`, `metadata`,
/// `sep-835`) follow from the names and revisions.
#[derive(Clone, Copy, PartialEq, Eq)]
pub(super) enum List {
    /// Tier 1: `core` (the authorization ones also `auth`).
    Core,
    /// The 2025-03-26 authorization scenarios.
    Backcompat,
    /// The extensions' scenarios, off the spec timeline.
    Extensions,
    /// In `all` only (and `draft` when 2026-07-28 introduced it).
    Other,
    /// mcp-decoy's own, beyond the suite: in `decoy` only, never in the suite's lists.
    Decoy,
}

/// One scenario: its name, where it applies on the spec timeline, what it serves and how it
/// judges.
pub(super) struct Play {
    pub(super) name: &'static str,
    pub(super) description: &'static str,
    pub(super) introduced_in: ProtocolVersion,
    pub(super) removed_in: Option<ProtocolVersion>,
    /// Which of the suite's named lists holds it.
    pub(super) list: List,
    pub(super) serve: fn() -> MockMcpServerBuilder,
    /// What the server needs once it listens (a tool naming its own address).
    pub(super) prepare: fn(&MockMcpServer) -> Result<(), crate::Error>,
    /// The scenario's data for the client (`MCP_CONFORMANCE_CONTEXT`, less its `name`), from
    /// the server once it listens; `None` when the suite hands over none.
    pub(super) context: fn(&MockMcpServer) -> Option<Value>,
    /// A client that exits with an error does not fail the scenario on that alone (the
    /// suite's `allowClientError`: the scenario expects a client to give up).
    pub(super) allow_client_error: bool,
    /// The checks, from the capture and the revision graded at.
    pub(super) judge: fn(&Log, ProtocolVersion) -> Vec<Check>,
    /// Whether the suite checks the client's messages against the schema in this scenario
    /// (`wire-schema-valid`): its scenario servers built on its mock server do, the ones
    /// that answer raw HTTP by hand (`initialize`) do not.
    pub(super) wire: bool,
    /// It can be graded over stdio (and the in-memory duplex): it is not about HTTP
    /// headers, event streams or OAuth.
    pub(super) stdio: bool,
    /// The server speaks only the era of the revision graded at, as the suite's
    /// authorization scenario servers do (a stateless 2026-07-28 server refuses
    /// `initialize`; a 2025 one knows no `server/discover`).
    pub(super) pins_era: bool,
}

impl Play {
    /// An authorization scenario, as the suite lists them: in `core`, no data for the
    /// client, no schema check, a client error fails it.
    const fn auth(
        name: &'static str,
        description: &'static str,
        introduced_in: ProtocolVersion,
        serve: fn() -> MockMcpServerBuilder,
        judge: fn(&Log, ProtocolVersion) -> Vec<Check>,
    ) -> Play {
        Play {
            pins_era: true,
            stdio: false,
            ..Play::plain(name, description, introduced_in, serve, judge)
        }
    }

    /// A scenario in `core` that hands the client no data, checks no schema, fails on a
    /// client error and serves either era.
    const fn plain(
        name: &'static str,
        description: &'static str,
        introduced_in: ProtocolVersion,
        serve: fn() -> MockMcpServerBuilder,
        judge: fn(&Log, ProtocolVersion) -> Vec<Check>,
    ) -> Play {
        Play {
            name,
            description,
            introduced_in,
            removed_in: None,
            list: List::Core,
            serve,
            prepare: nothing,
            context: no_context,
            allow_client_error: false,
            judge,
            wire: false,
            stdio: true,
            pins_era: false,
        }
    }

    /// A skills extension scenario: its server answers raw HTTP by hand in the suite (no
    /// schema check), in either era; graded at 2025-11-25 unless told, as the suite does.
    const fn skills(
        name: &'static str,
        description: &'static str,
        serve: fn() -> MockMcpServerBuilder,
        judge: fn(&Log, ProtocolVersion) -> Vec<Check>,
    ) -> Play {
        Play::plain(
            name,
            description,
            ProtocolVersion::V2025_11_25,
            serve,
            judge,
        )
        .in_list(List::Extensions)
    }

    const fn in_list(mut self, list: List) -> Play {
        self.list = list;
        self
    }

    const fn removed_in(mut self, version: ProtocolVersion) -> Play {
        self.removed_in = Some(version);
        self
    }

    const fn with_context(mut self, context: fn(&MockMcpServer) -> Option<Value>) -> Play {
        self.context = context;
        self
    }

    const fn allowing_client_error(mut self) -> Play {
        self.allow_client_error = true;
        self
    }
}

pub(super) const PLAYS: &[Play] = &[
    Play {
        name: "initialize",
        description: "Tests MCP client initialization handshake",
        introduced_in: ProtocolVersion::V2025_06_18,
        removed_in: Some(ProtocolVersion::V2026_07_28),
        list: List::Core,
        serve: lifecycle::initialize_server,
        prepare: nothing,
        context: no_context,
        allow_client_error: false,
        judge: lifecycle::initialize_checks,
        wire: false,
        stdio: true,
        pins_era: false,
    },
    Play {
        name: "tools_call",
        description: "Tests calling tools with various parameter types",
        introduced_in: ProtocolVersion::V2025_06_18,
        removed_in: None,
        list: List::Core,
        serve: tools::tools_call_server,
        prepare: nothing,
        context: no_context,
        allow_client_error: false,
        judge: tools::tools_call_checks,
        wire: true,
        stdio: true,
        pins_era: false,
    },
    Play {
        name: "elicitation-sep1034-client-defaults",
        description: "Tests client applies default values for omitted elicitation fields (SEP-1034)",
        introduced_in: ProtocolVersion::V2025_11_25,
        removed_in: Some(ProtocolVersion::V2026_07_28),
        list: List::Core,
        serve: elicitation::server,
        prepare: nothing,
        context: no_context,
        allow_client_error: false,
        judge: elicitation::checks,
        wire: false,
        stdio: true,
        pins_era: false,
    },
    Play {
        name: "sse-retry",
        description: "Tests that client respects SSE retry field timing and reconnects properly (SEP-1699)",
        introduced_in: ProtocolVersion::V2025_11_25,
        removed_in: Some(ProtocolVersion::V2026_07_28),
        list: List::Core,
        serve: sse_retry::server,
        prepare: nothing,
        context: no_context,
        allow_client_error: false,
        judge: sse_retry::checks,
        wire: false,
        stdio: false,
        pins_era: false,
    },
    Play {
        name: "request-metadata",
        description: "Per-request _meta and MCP-Protocol-Version header obligations (SEP-2575)",
        introduced_in: ProtocolVersion::V2026_07_28,
        removed_in: None,
        list: List::Other,
        serve: request_metadata::server,
        prepare: nothing,
        context: no_context,
        allow_client_error: false,
        judge: request_metadata::checks,
        wire: false,
        stdio: false,
        pins_era: false,
    },
    Play::auth(
        "auth/metadata-default",
        "Tests Basic OAuth metadata discovery flow.",
        ProtocolVersion::V2025_11_25,
        || auth::server(AuthScenario::MetadataDefault),
        auth::metadata_default_checks,
    ),
    Play::auth(
        "auth/metadata-var1",
        "Tests Basic OAuth metadata discovery flow.",
        ProtocolVersion::V2025_11_25,
        || auth::server(AuthScenario::MetadataVar1),
        auth::metadata_var1_checks,
    ),
    Play::auth(
        "auth/metadata-var2",
        "Tests Basic OAuth metadata discovery flow.",
        ProtocolVersion::V2025_11_25,
        || auth::server(AuthScenario::MetadataVar2),
        auth::metadata_var2_checks,
    ),
    Play::auth(
        "auth/metadata-var3",
        "Tests Basic OAuth metadata discovery flow.",
        ProtocolVersion::V2025_11_25,
        || auth::server(AuthScenario::MetadataVar3),
        auth::metadata_var3_checks,
    ),
    Play::auth(
        "auth/basic-cimd",
        "Tests OAuth flow with Client ID Metadata Documents (SEP-991/URL-based client IDs). Server advertises client_id_metadata_document_supported=true and client should use URL as client_id instead of DCR.",
        ProtocolVersion::V2025_11_25,
        || auth::server(AuthScenario::BasicCimd),
        auth::basic_cimd_checks,
    ),
    Play::auth(
        "auth/scope-from-www-authenticate",
        "Tests that client uses scope parameter from WWW-Authenticate header when provided",
        ProtocolVersion::V2025_11_25,
        || auth::server(AuthScenario::ScopeFromWwwAuthenticate),
        auth::from_www_authenticate_checks,
    ),
    Play::auth(
        "auth/scope-from-scopes-supported",
        "Tests that client uses all scopes from scopes_supported when scope not in WWW-Authenticate header",
        ProtocolVersion::V2025_11_25,
        || auth::server(AuthScenario::ScopeFromScopesSupported),
        auth::from_scopes_supported_checks,
    ),
    Play::auth(
        "auth/scope-omitted-when-undefined",
        "Tests that client omits scope parameter when scopes_supported is undefined",
        ProtocolVersion::V2025_11_25,
        || auth::server(AuthScenario::ScopeOmittedWhenUndefined),
        auth::omitted_when_undefined_checks,
    ),
    Play::auth(
        "auth/scope-step-up",
        "Tests that client handles step-up authentication with different scope requirements per operation",
        ProtocolVersion::V2025_11_25,
        || auth::server(AuthScenario::ScopeStepUp),
        auth::step_up_checks,
    ),
    Play::auth(
        "auth/scope-retry-limit",
        "Tests that client implements retry limits to prevent infinite authorization loops on repeated 403 responses",
        ProtocolVersion::V2025_11_25,
        || auth::server(AuthScenario::ScopeRetryLimit),
        auth::retry_limit_checks,
    )
    .allowing_client_error(),
    Play::auth(
        "auth/token-endpoint-auth-basic",
        "Tests that client uses HTTP Basic authentication (client_secret_basic) when server only supports client_secret_basic",
        ProtocolVersion::V2025_06_18,
        || auth::server(AuthScenario::TokenEndpointAuthBasic),
        auth::token_auth_basic_checks,
    ),
    Play::auth(
        "auth/token-endpoint-auth-post",
        "Tests that client uses client_secret_post when server only supports client_secret_post",
        ProtocolVersion::V2025_06_18,
        || auth::server(AuthScenario::TokenEndpointAuthPost),
        auth::token_auth_post_checks,
    ),
    Play::auth(
        "auth/token-endpoint-auth-none",
        "Tests that client uses no authentication (public client) when server only supports none",
        ProtocolVersion::V2025_06_18,
        || auth::server(AuthScenario::TokenEndpointAuthNone),
        auth::token_auth_none_checks,
    ),
    Play::auth(
        "auth/pre-registration",
        "Tests OAuth flow with pre-registered client credentials. Server does not support DCR.",
        ProtocolVersion::V2025_11_25,
        || auth::server(AuthScenario::PreRegistration),
        auth::pre_registration_checks,
    )
    .with_context(auth::pre_registration_context),
    Play::auth(
        "auth/2025-03-26-oauth-metadata-backcompat",
        "Tests 2025-03-26 spec OAuth flow: no PRM (Protected Resource Metadata), OAuth metadata at root location",
        ProtocolVersion::V2025_03_26,
        || auth::server(AuthScenario::LegacyMetadataBackcompat),
        auth::metadata_backcompat_checks,
    )
    .removed_in(ProtocolVersion::V2025_06_18)
    .in_list(List::Backcompat),
    Play::auth(
        "auth/2025-03-26-oauth-endpoint-fallback",
        "Tests OAuth flow with no metadata endpoints, relying on fallback to standard OAuth endpoints at server root (2025-03-26 spec behavior)",
        ProtocolVersion::V2025_03_26,
        || auth::server(AuthScenario::LegacyEndpointFallback),
        auth::endpoint_fallback_checks,
    )
    .removed_in(ProtocolVersion::V2025_06_18)
    .in_list(List::Backcompat),
    Play::auth(
        "auth/resource-mismatch",
        "Tests that client rejects when PRM resource does not match server URL",
        ProtocolVersion::V2026_07_28,
        || auth::server(AuthScenario::ResourceMismatch),
        auth::resource_mismatch_checks,
    )
    .in_list(List::Other).allowing_client_error(),
    Play::auth(
        "auth/offline-access-scope",
        "Tests that a client that wants a refresh token handles offline_access scope and refresh_token grant type when AS supports them (SEP-2207)",
        ProtocolVersion::V2026_07_28,
        || auth::server(AuthScenario::OfflineAccessScope),
        auth::offline_access_scope_checks,
    )
    .in_list(List::Other),
    Play::auth(
        "auth/offline-access-not-supported",
        "Tests that client does not request offline_access when AS does not list it in scopes_supported (SEP-2207)",
        ProtocolVersion::V2026_07_28,
        || auth::server(AuthScenario::OfflineAccessNotSupported),
        auth::offline_access_not_supported_checks,
    )
    .in_list(List::Other),
    Play::auth(
        "auth/authorization-server-migration",
        "Tests that a client, when the PRM authorization_servers changes to a new issuer, re-registers with the new authorization server and does not reuse credentials from the previous one (SEP-2352).",
        ProtocolVersion::V2026_07_28,
        || auth::server(AuthScenario::AuthorizationServerMigration),
        auth::migration_checks,
    )
    .in_list(List::Other),
    Play::auth(
        "auth/iss-supported",
        "Tests that client accepts authorization response when server advertises and sends correct iss parameter",
        ProtocolVersion::V2026_07_28,
        || auth::server(AuthScenario::IssSupported),
        auth::iss_supported_checks,
    )
    .in_list(List::Other),
    Play::auth(
        "auth/iss-not-advertised",
        "Tests that client accepts authorization response when server does not advertise or send iss parameter",
        ProtocolVersion::V2026_07_28,
        || auth::server(AuthScenario::IssNotAdvertised),
        auth::iss_not_advertised_checks,
    )
    .in_list(List::Other),
    Play::auth(
        "auth/iss-supported-missing",
        "Tests that client rejects authorization response when server advertised iss support but omitted iss from redirect",
        ProtocolVersion::V2026_07_28,
        || auth::server(AuthScenario::IssSupportedMissing),
        auth::iss_supported_missing_checks,
    )
    .in_list(List::Other).allowing_client_error(),
    Play::auth(
        "auth/iss-wrong-issuer",
        "Tests that client rejects authorization response when iss does not match the authorization server issuer",
        ProtocolVersion::V2026_07_28,
        || auth::server(AuthScenario::IssWrongIssuer),
        auth::iss_wrong_issuer_checks,
    )
    .in_list(List::Other).allowing_client_error(),
    Play::auth(
        "auth/iss-unexpected",
        "Tests that client compares iss against recorded issuer even when not advertised, and rejects on mismatch",
        ProtocolVersion::V2026_07_28,
        || auth::server(AuthScenario::IssUnexpected),
        auth::iss_unexpected_checks,
    )
    .in_list(List::Other).allowing_client_error(),
    Play::auth(
        "auth/iss-normalized",
        "Tests that client compares iss using simple string comparison without applying URL normalization",
        ProtocolVersion::V2026_07_28,
        || auth::server(AuthScenario::IssNormalized),
        auth::iss_normalized_checks,
    )
    .in_list(List::Other).allowing_client_error(),
    Play::auth(
        "auth/metadata-issuer-mismatch",
        "Tests that client rejects authorization server metadata whose issuer does not match the issuer used to construct the well-known URL",
        ProtocolVersion::V2026_07_28,
        || auth::server(AuthScenario::MetadataIssuerMismatch),
        auth::metadata_issuer_mismatch_checks,
    )
    .in_list(List::Other).allowing_client_error(),
    #[cfg(feature = "oauth-jwt")]
    Play::auth(
        "auth/client-credentials-jwt",
        "Tests OAuth client_credentials flow with private_key_jwt authentication (SEP-1046)",
        ProtocolVersion::V2025_11_25,
        auth::client_credentials::jwt::server,
        auth::client_credentials::jwt::checks,
    )
    .in_list(List::Extensions)
    .with_context(auth::client_credentials::jwt::context),
    Play::auth(
        "auth/client-credentials-basic",
        "Tests OAuth client_credentials flow with client_secret_basic authentication",
        ProtocolVersion::V2025_11_25,
        auth::client_credentials::basic_server,
        auth::client_credentials::basic_checks,
    )
    .in_list(List::Extensions)
    .with_context(auth::client_credentials::basic_context),
    #[cfg(feature = "oauth-jwt")]
    Play::auth(
        "auth/enterprise-managed-authorization",
        "Tests complete SEP-990 flow: token exchange + JWT bearer grant (Enterprise-Managed Authorization)",
        ProtocolVersion::V2025_11_25,
        auth::enterprise::server,
        auth::enterprise::checks,
    )
    .in_list(List::Extensions)
    .with_context(auth::enterprise::context),
    #[cfg(feature = "oauth-jwt")]
    Play::auth(
        "auth/dpop",
        "Tests that an MCP client requests a DPoP-bound access token (a valid DPoP proof at the token request) and presents it using the DPoP Authorization scheme (not Bearer) with a fresh, well-formed DPoP proof on each POST /mcp request, when the server does not require a nonce (SEP-1932 / RFC 9449 §5, §7.1, §4.2–4.3).",
        ProtocolVersion::V2025_11_25,
        auth::dpop::plain_server,
        auth::dpop::plain_checks,
    )
    .in_list(List::Extensions),
    #[cfg(feature = "oauth-jwt")]
    Play::auth(
        "auth/dpop-nonce",
        "Tests that an MCP client, when the authorization server and MCP server require a DPoP nonce, retries the token request and the MCP request with the server-supplied nonce (RFC 9449 §8/§9) — on top of requesting a DPoP-bound token and presenting it with the DPoP Authorization scheme and a fresh proof per request (SEP-1932 / RFC 9449 §5, §7.1, §4.2–4.3).",
        ProtocolVersion::V2025_11_25,
        auth::dpop::nonce_server,
        auth::dpop::nonce_checks,
    )
    .in_list(List::Extensions),
    #[cfg(feature = "oauth-jwt")]
    Play::auth(
        "auth/wif-jwt-bearer",
        "Tests the RFC 7523 JWT-bearer grant for workload identity federation (SEP-1933). The client must: use grant_type=urn:ietf:params:oauth:grant-type:jwt-bearer, include the workload JWT as the assertion parameter, and surface errors (invalid_grant, invalid_scope, unauthorized_client) without retrying or switching grant types.",
        ProtocolVersion::V2025_11_25,
        auth::workload::server,
        auth::workload::checks,
    )
    .in_list(List::Extensions)
    .with_context(auth::workload::context),
    Play {
        name: "sep-2322-client-request-state",
        description: "Tests client MRTR behavior: requestState echo, no-state omission, and JSON-RPC id uniqueness (SEP-2322)",
        introduced_in: ProtocolVersion::V2026_07_28,
        removed_in: None,
        list: List::Other,
        serve: request_state::server,
        prepare: nothing,
        context: no_context,
        allow_client_error: false,
        judge: request_state::checks,
        wire: false,
        stdio: true,
        pins_era: false,
    },
    Play {
        name: "http-standard-headers",
        description: "Tests that client includes Mcp-Method and Mcp-Name headers on HTTP POST requests (SEP-2243)",
        introduced_in: ProtocolVersion::V2026_07_28,
        removed_in: None,
        list: List::Other,
        serve: standard_headers::server,
        prepare: nothing,
        context: no_context,
        allow_client_error: false,
        judge: standard_headers::checks,
        wire: false,
        stdio: false,
        pins_era: false,
    },
    Play {
        name: "http-custom-headers",
        description: "Tests that client mirrors x-mcp-header tool parameters into Mcp-Param headers with correct encoding (SEP-2243)",
        introduced_in: ProtocolVersion::V2026_07_28,
        removed_in: None,
        list: List::Other,
        serve: custom_headers::server,
        prepare: nothing,
        context: custom_headers::context,
        allow_client_error: false,
        judge: custom_headers::checks,
        wire: false,
        stdio: false,
        pins_era: false,
    },
    Play {
        name: "http-invalid-tool-headers",
        description: "Tests that client rejects tools with invalid x-mcp-header annotations (SEP-2243)",
        introduced_in: ProtocolVersion::V2026_07_28,
        removed_in: None,
        list: List::Other,
        serve: custom_headers::invalid_server,
        prepare: nothing,
        context: no_context,
        allow_client_error: true,
        judge: custom_headers::invalid_checks,
        wire: false,
        stdio: false,
        pins_era: false,
    },
    Play {
        name: "json-schema-ref-no-deref",
        description: "Tests that a client does not automatically dereference a network-URI `$ref` in a tool's inputSchema (SEP-2106)",
        introduced_in: ProtocolVersion::V2026_07_28,
        removed_in: None,
        list: List::Other,
        serve: json_schema::server,
        prepare: json_schema::prepare,
        context: no_context,
        allow_client_error: false,
        judge: json_schema::checks,
        wire: false,
        stdio: true,
        pins_era: false,
    },
    Play {
        name: "json-schema-2020-12-preservation",
        description: "Validates client-side preservation of JSON Schema 2020-12 keywords (SEP-1613, SEP-2106)",
        introduced_in: ProtocolVersion::V2025_11_25,
        removed_in: None,
        list: List::Other,
        serve: preservation::server,
        prepare: nothing,
        context: no_context,
        allow_client_error: false,
        judge: preservation::checks,
        wire: true,
        stdio: true,
        pins_era: false,
    },
    Play::skills(
        "sep-2640-client-no-prefetch",
        "A client MUST NOT retrieve a skill file before the skill is loaded",
        skills::no_prefetch_server,
        skills::no_prefetch_checks,
    ),
    Play::skills(
        "sep-2640-client-verify-digest",
        "When a host retrieves a file listed in a skill's resources, it MUST verify the content against that entry's digest, and MUST NOT use unverified content.",
        skills::verify_digest_server,
        skills::verify_digest_checks,
    )
    .allowing_client_error(),
    Play::skills(
        "sep-2640-client-verify-size",
        "A read whose byte length differs from the entry's size is a verification failure equivalent to a digest mismatch, whether or not the host goes on to compute the digest.",
        skills::verify_size_server,
        skills::verify_size_checks,
    )
    .allowing_client_error(),
    Play::skills(
        "sep-2640-client-verify-frontmatter",
        "After fetching a SKILL.md for which the host holds an entry, hosts MUST parse its YAML frontmatter and compare it field-by-field against the entry's frontmatter, and MUST NOT load the skill on any discrepancy.",
        skills::verify_frontmatter_server,
        skills::verify_frontmatter_checks,
    )
    .allowing_client_error(),
    Play::plain(
        "pagination-followed",
        "Tests that a client follows nextCursor through every page of tools/list; mcp-decoy's own",
        ProtocolVersion::V2025_11_25,
        pagination::server,
        pagination::checks,
    )
    .in_list(List::Decoy),
    Play {
        // 2026-07-28 sends list changes on `subscriptions/listen` streams only.
        removed_in: Some(ProtocolVersion::V2026_07_28),
        ..Play::plain(
            "list-changed-relisted",
            "Tests that a client lists the tools again after notifications/tools/list_changed; mcp-decoy's own",
            ProtocolVersion::V2025_03_26,
            list_changed::server,
            list_changed::checks,
        )
    }
    .in_list(List::Decoy),
    Play {
        stdio: false,
        removed_in: Some(ProtocolVersion::V2026_07_28),
        ..Play::plain(
            "session-expired-reinitialize",
            "Tests that a client whose session ended (404) starts a new one with initialize and goes on, never sending the old session id again; mcp-decoy's own",
            ProtocolVersion::V2025_03_26,
            session::server,
            session::checks,
        )
    }
    .in_list(List::Decoy),
    Play {
        stdio: false,
        removed_in: Some(ProtocolVersion::V2026_07_28),
        ..Play::plain(
            "era-fallback-initialize",
            "Tests that a client preferring 2026-07-28, refused by a server of the legacy revisions only, falls back to initialize and works; mcp-decoy's own",
            ProtocolVersion::V2025_11_25,
            fallback::server,
            fallback::checks,
        )
    }
    .in_list(List::Decoy),
    Play::plain(
        "cancel-on-timeout",
        "Tests that a client that stops waiting for a slow tool call cancels it (notifications/cancelled; at 2026-07-28 closing the stream also does); mcp-decoy's own",
        ProtocolVersion::V2025_11_25,
        timeout::server,
        timeout::checks,
    )
    .in_list(List::Decoy),
    Play::plain(
        "tasks-client-poll",
        "Tests that a client runs a task-only tool as a task, polls it to a terminal status keeping its poll interval, stops, and names the task in Mcp-Name (2026-07-28); mcp-decoy's own",
        ProtocolVersion::V2025_11_25,
        tasks::server,
        tasks::checks,
    )
    .in_list(List::Decoy),
    Play::plain(
        "tasks-client-input",
        "Tests that a client answers the input a task asks for mid-task (input_required: the request on the tasks/result stream at 2025-11-25, tasks/update at 2026-07-28) and follows the task to its end; mcp-decoy's own",
        ProtocolVersion::V2025_11_25,
        tasks::input_server,
        tasks::input_checks,
    )
    .in_list(List::Decoy),
    Play::plain(
        "tasks-client-cancel",
        "Tests that a client cancels a task that never ends with tasks/cancel, and stops polling once it is cancelled; mcp-decoy's own",
        ProtocolVersion::V2025_11_25,
        tasks::cancel_server,
        tasks::cancel_checks,
    )
    .in_list(List::Decoy),
];

fn nothing(_: &MockMcpServer) -> Result<(), crate::Error> {
    Ok(())
}

fn no_context(_: &MockMcpServer) -> Option<Value> {
    None
}

/// The client's POSTs whose body is JSON, with it, oldest first (a body that is not JSON is
/// kept as text: the suite answers it a parse error and judges nothing).
fn posts(log: &Log) -> Vec<(&HttpExchange, &Value)> {
    log.records()
        .iter()
        .filter_map(|record| match &record.entry {
            Entry::Http(h) if h.kind == HttpKind::Exchange && h.method == "POST" => {
                let body = h.request_body.as_ref()?.value();
                (!body.is_string()).then_some((h, body))
            }
            _ => None,
        })
        .collect()
}

/// JavaScript truthiness, as the suite tests a member it reads.
fn truthy(value: &Value) -> bool {
    match value {
        Value::Null => false,
        Value::Bool(b) => *b,
        Value::Number(n) => n.as_f64().is_some_and(|n| n != 0.0),
        Value::String(s) => !s.is_empty(),
        Value::Array(_) | Value::Object(_) => true,
    }
}

/// JavaScript's `String(value)`, as the suite prints a value it compares.
fn js_string(value: &Value) -> String {
    match value {
        Value::String(text) => text.clone(),
        Value::Number(n) => match n.as_f64() {
            Some(f) if f.fract() == 0.0 && f.abs() < 9e15 => format!("{}", f as i64),
            _ => n.to_string(),
        },
        Value::Array(items) => items
            .iter()
            .map(|v| {
                if v.is_null() {
                    String::new()
                } else {
                    js_string(v)
                }
            })
            .collect::<Vec<_>>()
            .join(","),
        Value::Object(_) => "[object Object]".into(),
        Value::Bool(b) => b.to_string(),
        Value::Null => "null".into(),
    }
}

/// The client's first request with `method`.
fn first_request<'a>(log: &'a Log, method: &str) -> Option<&'a RpcMessage> {
    log.mcp().from_client().method(method).first()
}

/// Whether the client called the tool `tool` (whatever came of it).
fn called(log: &Log, tool: &str) -> bool {
    log.mcp()
        .from_client()
        .method("tools/call")
        .all()
        .into_iter()
        .any(|m| m.params()["name"] == tool)
}

/// The client's answer to the server's request `asked` (a record of its own: the client
/// sent it in its own HTTP request).
fn answer_to<'a>(log: &'a Log, asked: &RpcMessage) -> Option<&'a RpcMessage> {
    let id = asked.rpc_id()?;
    log.mcp()
        .from_client()
        .kind(RpcKind::Response)
        .filter(|m| m.rpc_id() == Some(id))
        .first()
}

/// JavaScript's `typeof` of a JSON value, as the suite words a wrong type.
fn js_type(value: &Value) -> &'static str {
    match value {
        Value::String(_) => "string",
        Value::Number(_) => "number",
        Value::Bool(_) => "boolean",
        Value::Null | Value::Array(_) | Value::Object(_) => "object",
    }
}

/// Checks judged once per request, keeping the worst status seen for each id: one
/// non-conformant request is a violation even if later ones conform (the suite's
/// `addOrUpdateCheck`). An equal or worse result replaces the kept one, so its details are
/// the newest.
#[derive(Default)]
struct Latched {
    checks: Vec<Check>,
}

impl Latched {
    fn add(&mut self, check: Check) {
        match self.checks.iter_mut().find(|c| c.id == check.id) {
            None => self.checks.push(check),
            Some(kept) if severity(check.status) >= severity(kept.status) => *kept = check,
            Some(_) => {}
        }
    }

    fn get_mut(&mut self, id: &str) -> Option<&mut Check> {
        self.checks.iter_mut().find(|c| c.id == id)
    }

    fn into_checks(self) -> Vec<Check> {
        self.checks
    }
}

fn severity(status: CheckStatus) -> u8 {
    match status {
        CheckStatus::Failure => 3,
        CheckStatus::Warning => 2,
        CheckStatus::Success | CheckStatus::Info => 1,
        CheckStatus::Skipped => 0,
    }
}
