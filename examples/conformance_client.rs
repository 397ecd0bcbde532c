//! An MCP client written to the conformance suite's client contract, on rmcp: the server URL
//! is its last argument, the scenario is in `MCP_CONFORMANCE_SCENARIO`. It does what each
//! scenario asks (`initialize`: connect and close; `tools_call`: call `add_numbers`;
//! `elicitation-sep1034-client-defaults`: accept with the schema's defaults; `sse-retry`:
//! call `test_reconnection`; `request-metadata`, `json-schema-ref-no-deref`: list tools;
//! `json-schema-2020-12-preservation`: echo the schema it was given;
//! `sep-2322-client-request-state`: call the four tools, answering each round; the `http-*-headers`
//! scenarios: use every tool, resource and prompt, or make the calls the context names;
//! `sep-2640-*`: list the skills and, when verifying, load the first one (its SKILL.md
//! checked against its size, digest and frontmatter before any other file is read);
//! `auth/*`: rmcp's OAuth flow from the 401 (the client credentials grant in
//! `auth/client-credentials-*`, the jwt-bearer grant by hand in `auth/wif-jwt-bearer`, rmcp's
//! enterprise-managed authorization in `auth/enterprise-managed-authorization`; it gives up
//! on `auth/dpop*`, as rmcp has no DPoP), then `test-tool` with the token, stepping up its scopes on
//! a 403 (twice at most); at
//! 2026-07-28 it discovers instead of initializing), so
//! `mcp-decoy check-client -- target/debug/examples/conformance_client` grades it, as the
//! suite's own CLI would.
//!
//! ```sh
//! cargo build --example conformance_client
//! cargo run --features decoy-cli -- check-client -- target/debug/examples/conformance_client
//! ```

use rmcp::model::{
    CallToolRequestParams, CallToolResponse, ClientCapabilities, ClientConfig, ClientRequest,
    CustomRequest, CustomResult, ElicitRequestParams, ElicitResult, ElicitationAction,
    ElicitationCapability, GetPromptRequestParams, GetTaskParams, Implementation, ProtocolVersion,
    ReadResourceRequestParams, ServerResult, Skill, SkillResources,
};
use rmcp::model::{CancelTaskParams, UpdateTaskParams};
use rmcp::service::ClientInitializeError;
use rmcp::service::{RequestContext, RoleClient, RunningService};
use rmcp::transport::auth::{AuthClient, AuthError, AuthorizationRequest, OAuthState};
use rmcp::transport::streamable_http_client::{
    AuthRequiredError, InsufficientScopeError, StreamableHttpClient,
    StreamableHttpClientTransportConfig,
};
use rmcp::transport::{StreamableHttpClientTransport, TokioChildProcess};
use rmcp::{ClientHandler, ClientLifecycleMode, ClientServiceExt, ErrorData, ServiceExt};
use serde_json::{Map, Value, json};

#[tokio::main(flavor = "current_thread")]
async fn main() {
    let (Some(url), Ok(scenario)) = (
        std::env::args().skip(1).last(),
        std::env::var("MCP_CONFORMANCE_SCENARIO"),
    ) else {
        eprintln!("usage: conformance_client URL, with MCP_CONFORMANCE_SCENARIO set");
        std::process::exit(2);
    };
    if let Err(error) = run(&url, &scenario).await {
        eprintln!("conformance_client: {scenario}: {error}");
        std::process::exit(1);
    }
}

async fn run(url: &str, scenario: &str) -> Result<(), Box<dyn std::error::Error>> {
    if scenario.starts_with("auth/") {
        return authorized(url).await;
    }
    // The tasks extension, which a 2026-07-28 task-only tool asks the client to declare.
    let mut capabilities: ClientCapabilities =
        serde_json::from_value(json!({ "extensions": { "io.modelcontextprotocol/tasks": {} } }))?;
    capabilities.elicitation = Some(ElicitationCapability::new());
    let handler = Handler(
        ClientConfig::new(
            capabilities,
            Implementation::new("conformance-client", "1.0.0"),
        )
        .with_protocol_version(ProtocolVersion::V_2025_11_25),
        ListChanged::default(),
    );
    // Over stdio (`check-client --transport stdio`) the grader hands over the server's
    // command, which the client spawns.
    // rmcp's `Auto` mode probes 2026-07-28 and falls back to `initialize`.
    if scenario == "era-fallback-initialize" {
        let transport = StreamableHttpClientTransport::from_uri(url.to_string());
        let auto = ClientLifecycleMode::Auto {
            preferred_versions: vec![ProtocolVersion::V_2026_07_28],
            legacy_version: Some(ProtocolVersion::V_2025_11_25),
        };
        let client = handler.serve_with_lifecycle(transport, auto).await?;
        println!("{}", call(&client, "hello", json!({})).await?);
        client.cancel().await?;
        return Ok(());
    }
    let client = if std::env::var("MCP_CONFORMANCE_TRANSPORT").as_deref() == Ok("stdio") {
        let words: Vec<String> =
            serde_json::from_str(&std::env::var("MCP_CONFORMANCE_SERVER_COMMAND")?)?;
        let (program, args) = words.split_first().ok_or("an empty server command")?;
        let mut command = tokio::process::Command::new(program);
        command.args(args);
        session(handler, TokioChildProcess::new(command)?).await?
    } else {
        session(
            handler,
            StreamableHttpClientTransport::from_uri(url.to_string()),
        )
        .await?
    };
    match scenario {
        "initialize" => {}
        // A host that keeps its tool list fresh: told the list changed, it lists again.
        "list-changed-relisted" => {
            client.list_all_tools().await?;
            println!("{}", call(&client, "refresh_catalog", json!({})).await?);
            let told = client.service().list_changed.notified();
            tokio::time::timeout(std::time::Duration::from_secs(5), told)
                .await
                .map_err(|_| "no notifications/tools/list_changed within 5 s")?;
            client.list_all_tools().await?;
        }
        // Gives up after 1 s: dropping rmcp's call sends `notifications/cancelled`.
        "cancel-on-timeout" => {
            let waited = tokio::time::timeout(
                std::time::Duration::from_secs(1),
                call(&client, "stall", json!({})),
            )
            .await;
            println!("gave up: {}", waited.is_err());
            // rmcp sends the notification from its own task: let it go out before closing.
            tokio::time::sleep(std::time::Duration::from_millis(200)).await;
        }
        // rmcp starts a new session on a 404 by itself (`reinit_on_expired_session`).
        "session-expired-reinitialize" => {
            for _ in 0..3 {
                println!("{}", call(&client, "count_me", json!({})).await?);
            }
        }
        "tools_call" | "tools-call" => {
            let result = call(&client, "add_numbers", json!({ "a": 5, "b": 3 })).await?;
            println!("{result}");
        }
        "elicitation-sep1034-client-defaults" => {
            // The suite's scenario server sends its elicitation on the GET stream, not the
            // call's, and drops it when that stream is not open yet; rmcp opens it beside
            // the first request, so give it a moment.
            tokio::time::sleep(std::time::Duration::from_millis(200)).await;
            let result = call(&client, "test_client_elicitation_defaults", json!({})).await?;
            println!("{result}");
        }
        "sse-retry" => println!("{}", call(&client, "test_reconnection", json!({})).await?),
        // Listing is all these ask; rmcp never fetches a schema's network `$ref`, and it
        // follows `nextCursor` to the last page.
        "request-metadata" | "json-schema-ref-no-deref" | "pagination-followed" => {
            client.list_all_tools().await?;
        }
        // Echo the focal tool's schema as rmcp holds it: what it kept is what the grader sees.
        "json-schema-2020-12-preservation" => {
            let tools = client.list_all_tools().await?;
            let focal = tools
                .iter()
                .find(|t| t.name == "json_schema_2020_12_tool")
                .ok_or("the server lists no json_schema_2020_12_tool")?;
            let schema = Value::Object((*focal.input_schema).clone());
            let echoed = call(&client, "json_schema_echo", json!({ "schema": schema })).await?;
            println!("{echoed}");
        }
        // rmcp answers each input_required round with the handler and retries the call.
        "sep-2322-client-request-state" => {
            for tool in [
                "test_mrtr_echo_state",
                "test_mrtr_unrelated",
                "test_mrtr_no_state",
                "test_mrtr_no_result_type",
            ] {
                println!("{}", call(&client, tool, json!({})).await?);
            }
        }
        // Touch every method the scenario expects a header on; rmcp sends `Mcp-Method` and
        // `Mcp-Name` at 2026-07-28.
        "http-standard-headers" => {
            for tool in client.list_all_tools().await? {
                println!("{}", call(&client, tool.name, json!({})).await?);
            }
            for resource in client.list_all_resources().await? {
                let read = ReadResourceRequestParams::new(resource.uri.clone());
                client.read_resource(read).await?;
            }
            for prompt in client.list_all_prompts().await? {
                client
                    .get_prompt(GetPromptRequestParams::new(prompt.name.clone()))
                    .await?;
            }
        }
        // The calls the context names; rmcp mirrors what `x-mcp-header` designates.
        "http-custom-headers" => {
            client.list_all_tools().await?;
            let context: Value = serde_json::from_str(&std::env::var("MCP_CONFORMANCE_CONTEXT")?)?;
            for planned in context["toolCalls"]
                .as_array()
                .ok_or("no toolCalls in the context")?
            {
                let name = planned["name"]
                    .as_str()
                    .ok_or("a tool call without a name")?;
                let arguments = planned["arguments"].clone();
                println!("{}", call(&client, name.to_string(), arguments).await?);
            }
        }
        // rmcp drops a tool whose `x-mcp-header` is invalid; call what it kept.
        "http-invalid-tool-headers" => {
            for tool in client.list_all_tools().await? {
                let arguments = json!({ "region": "us-west1" });
                println!("{}", call(&client, tool.name, arguments).await?);
            }
        }
        // A host that lists skills and loads one only when needed, verifying its SKILL.md.
        "sep-2640-client-no-prefetch" => {
            client.list_skills(None).await?;
        }
        name if name.starts_with("sep-2640-client-verify-") => {
            let listed = client.list_skills(None).await?;
            let skill = listed.skills.first().ok_or("skills/list lists no skill")?;
            match load_skill(&client, skill).await {
                Ok(()) => println!("loaded {}", skill.uri),
                Err(rejected) => eprintln!("rejected {}: {rejected}", skill.uri),
            }
        }
        // mcp-decoy's own: run the task-only tool as a task and poll it to its end, keeping
        // the interval it gives (rmcp speaks the 2026-07-28 extension; 2025-11-25 by hand).
        "tasks-client-poll" | "tasks-client-input" | "tasks-client-cancel" => {
            let (tool, cancel) = match scenario {
                "tasks-client-poll" => ("slow_job", false),
                "tasks-client-input" => ("confirm_job", false),
                _ => ("endless_job", true),
            };
            let text = if lifecycle().is_some() {
                modern_task(&client, tool, cancel).await?
            } else {
                legacy_task(&client, tool, cancel).await?
            };
            println!("{text}");
        }
        other => return Err(format!("no handler for scenario `{other}`").into()),
    }
    client.cancel().await?;
    Ok(())
}

/// A session over `transport`: initialized, or at 2026-07-28 discovered.
async fn session<T, E, A>(
    handler: Handler,
    transport: T,
) -> Result<RunningService<RoleClient, Handler>, Box<dyn std::error::Error>>
where
    T: rmcp::transport::IntoTransport<RoleClient, E, A>,
    E: std::error::Error + Send + Sync + 'static,
{
    Ok(match lifecycle() {
        Some(discover) => handler.serve_with_lifecycle(transport, discover).await?,
        None => handler.serve(transport).await?,
    })
}

/// The suite says which revision it grades at; 2026-07-28 has no `initialize`, so there the
/// client discovers the server instead.
fn lifecycle() -> Option<ClientLifecycleMode> {
    let modern = std::env::var("MCP_CONFORMANCE_PROTOCOL_VERSION").as_deref() == Ok("2026-07-28");
    modern.then(|| ClientLifecycleMode::Discover {
        preferred_versions: vec![ProtocolVersion::V_2026_07_28],
    })
}

/// The redirect URI this client uses, one the pre-registration scenario registered.
const REDIRECT_URI: &str = "http://localhost:3000/callback";

/// The client's Client ID Metadata Document, the suite's: rmcp uses it as `client_id` where
/// the authorization server advertises metadata documents, and registers elsewhere.
const CLIENT_METADATA_URL: &str = "https://conformance-test.local/client-metadata.json";

/// An `auth/*` scenario: rmcp's OAuth flow from the server's 401 (discovery, registration or
/// the context's pre-registered credentials, authorization, code exchange), the consent
/// approved by following the redirect as a browser would; then a session with the token
/// that lists the tools and calls `test-tool`.
async fn authorized(url: &str) -> Result<(), Box<dyn std::error::Error>> {
    let http = reqwest::Client::builder()
        .redirect(reqwest::redirect::Policy::none())
        .build()?;
    let mut auth: Option<AuthClient<reqwest::Client>> = None;
    let mut upgrades = 0;
    let mut restarted = false;
    loop {
        let outcome = match &auth {
            None => use_test_tool(url, reqwest::Client::default()).await,
            Some(auth) => use_test_tool(url, auth.clone()).await,
        };
        let error = match outcome {
            Ok(text) => {
                println!("{text}");
                return Ok(());
            }
            Err(error) => error,
        };
        match (challenge_of(error.as_ref()), &auth) {
            (Some(Challenge::Unauthorized(header)), None) => {
                auth = Some(authorize(&http, url, &header).await?);
            }
            // The grant is gone, its refresh refused or its new token refused too (a new
            // authorization server, SEP-2352): start over once, from discovery, as a client
            // with no token.
            (Some(Challenge::RefreshFailed | Challenge::Unauthorized(_)), Some(_))
                if !restarted =>
            {
                restarted = true;
                auth = None;
            }
            // A step-up that keeps failing is a loop: three authorizations in all at most.
            (Some(Challenge::InsufficientScope(header)), Some(auth))
                if upgrades < MAX_SCOPE_UPGRADES =>
            {
                upgrades += 1;
                step_up(&http, auth, &header).await?;
            }
            _ => return Err(error),
        }
    }
}

const MAX_SCOPE_UPGRADES: u32 = 2;

/// rmcp's OAuth flow from the 401's challenge: discovery, registration (or the credentials
/// the context gives), authorization with PKCE, the code exchange.
async fn authorize(
    http: &reqwest::Client,
    url: &str,
    challenge: &str,
) -> Result<AuthClient<reqwest::Client>, Box<dyn std::error::Error>> {
    let scenario = std::env::var("MCP_CONFORMANCE_SCENARIO").unwrap_or_default();
    if scenario.starts_with("auth/client-credentials") {
        return client_credentials(url).await;
    }
    if scenario.starts_with("auth/dpop") {
        return Err("rmcp has no DPoP (RFC 9449): it cannot bind its token to a key".into());
    }
    if scenario == "auth/wif-jwt-bearer" {
        return workload_identity(http, url, challenge).await;
    }
    if scenario == "auth/enterprise-managed-authorization" {
        return enterprise_managed(http, url, challenge).await;
    }
    let mut request = AuthorizationRequest::new(REDIRECT_URI)
        .with_client_name("conformance-client")
        .with_client_metadata_url(CLIENT_METADATA_URL)
        .with_initial_scope_selection()
        .with_challenge(challenge);
    if let Ok(context) = std::env::var("MCP_CONFORMANCE_CONTEXT") {
        let context: Value = serde_json::from_str(&context)?;
        if let Some(id) = context["client_id"].as_str() {
            request = request.with_preregistered_client(id);
        }
        if let Some(secret) = context["client_secret"].as_str() {
            request = request.with_client_secret(secret);
        }
    }
    let mut state = OAuthState::new(url, None).await?;
    state.start_authorization(request).await?;
    let callback = consent(http, &state.get_authorization_url().await?).await?;
    state.handle_callback_url(&callback).await?;
    let manager = state
        .into_authorization_manager()
        .ok_or("rmcp is not authorized after the code exchange")?;
    Ok(AuthClient::new(reqwest::Client::default(), manager))
}

/// SEP-1046: no user, no redirect; the client authenticates as itself with the context's
/// secret (rmcp picks HTTP Basic when the server takes only that) or signs an assertion with
/// its key (`private_key_jwt`).
async fn client_credentials(
    url: &str,
) -> Result<AuthClient<reqwest::Client>, Box<dyn std::error::Error>> {
    use rmcp::transport::auth::{ClientCredentialsConfig, JwtSigningAlgorithm};

    let context: Value = serde_json::from_str(&std::env::var("MCP_CONFORMANCE_CONTEXT")?)?;
    let client_id = context["client_id"]
        .as_str()
        .ok_or("no client_id in the context")?
        .to_string();
    let resource = Some(url.to_string());
    let config = match (
        context["client_secret"].as_str(),
        context["private_key_pem"].as_str(),
    ) {
        (Some(secret), _) => ClientCredentialsConfig::ClientSecret {
            client_id,
            client_secret: secret.to_string(),
            scopes: Vec::new(),
            resource,
        },
        (None, Some(pem)) => ClientCredentialsConfig::PrivateKeyJwt {
            client_id,
            signing_key: pem.as_bytes().to_vec(),
            signing_algorithm: JwtSigningAlgorithm::ES256,
            token_endpoint_audience: None,
            scopes: Vec::new(),
            resource,
        },
        (None, None) => {
            return Err("the context has neither client_secret nor private_key_pem".into());
        }
    };
    let mut state = OAuthState::new(url, None).await?;
    state.authenticate_client_credentials(config).await?;
    let manager = state
        .into_authorization_manager()
        .ok_or("rmcp is not authorized after the client credentials grant")?;
    Ok(AuthClient::new(reqwest::Client::default(), manager))
}

/// The resource metadata the 401's challenge names, and its authorization server's metadata.
async fn discover(
    http: &reqwest::Client,
    challenge: &str,
) -> Result<(Value, Value), Box<dyn std::error::Error>> {
    let prm = challenge_param(challenge, "resource_metadata").ok_or("no resource_metadata")?;
    let prm: Value = http.get(prm).send().await?.json().await?;
    let issuer = url::Url::parse(
        prm["authorization_servers"][0]
            .as_str()
            .ok_or("no authorization server")?,
    )?;
    // RFC 8414 section 3.1: the well-known segment goes before the issuer's path.
    let metadata = format!(
        "{}/.well-known/oauth-authorization-server{}",
        issuer.origin().ascii_serialization(),
        issuer.path().trim_end_matches('/')
    );
    let metadata: Value = http.get(metadata).send().await?.json().await?;
    Ok((prm, metadata))
}

/// rmcp holding a token got outside its own flows.
async fn holding(
    url: &str,
    client_id: &str,
    token: Value,
) -> Result<AuthClient<reqwest::Client>, Box<dyn std::error::Error>> {
    let mut state = OAuthState::new(url, None).await?;
    state
        .set_credentials(client_id, serde_json::from_value(token)?)
        .await?;
    let manager = state
        .into_authorization_manager()
        .ok_or("rmcp is not authorized with the token")?;
    Ok(AuthClient::new(reqwest::Client::default(), manager))
}

/// SEP-990: rmcp's enterprise-managed authorization trades the identity provider's ID
/// token for an ID-JAG there, then the ID-JAG for a token at the MCP server's authorization
/// server, authenticating with the context's secrets.
async fn enterprise_managed(
    http: &reqwest::Client,
    url: &str,
    challenge: &str,
) -> Result<AuthClient<reqwest::Client>, Box<dyn std::error::Error>> {
    use oauth2::ClientSecret;
    use rmcp::transport::auth::default_oauth_http_client;
    use rmcp::transport::auth::enterprise::{
        EmaAuthorizationServer, EmaClientAuthentication, EmaExchangeRequest,
    };

    let context: Value = serde_json::from_str(&std::env::var("MCP_CONFORMANCE_CONTEXT")?)?;
    let field = |name: &str| {
        context[name]
            .as_str()
            .map(str::to_string)
            .ok_or(format!("no {name} in the context"))
    };
    let (prm, metadata) = discover(http, challenge).await?;
    let resource = prm["resource"].as_str().ok_or("no resource")?;
    let idp = EmaAuthorizationServer::new(
        field("idp_issuer")?,
        field("idp_token_endpoint")?,
        field("idp_client_id")?,
    );
    let client_id = field("client_id")?;
    let authorization_server = EmaAuthorizationServer::new(
        metadata["issuer"].as_str().ok_or("no issuer")?,
        metadata["token_endpoint"]
            .as_str()
            .ok_or("no token_endpoint")?,
        client_id.clone(),
    )
    .with_client_authentication(EmaClientAuthentication::ClientSecretBasic(
        ClientSecret::new(field("client_secret")?),
    ));
    let id_token = field("idp_id_token")?;
    let oauth_http = default_oauth_http_client()?;
    let token =
        EmaExchangeRequest::new_with_id_token(idp, authorization_server, resource, &id_token)
            .exchange(&oauth_http, &oauth_http)
            .await?;
    let token = json!({
        "access_token": token.access_token.secret(),
        "token_type": "Bearer",
    });
    holding(url, &client_id, token).await
}

/// SEP-1933: trade the platform's workload JWT for a token with the RFC 7523 jwt-bearer
/// grant. rmcp has no such grant: discovery and the token request are by hand, from the
/// 401's challenge, and rmcp holds the token it gets.
async fn workload_identity(
    http: &reqwest::Client,
    url: &str,
    challenge: &str,
) -> Result<AuthClient<reqwest::Client>, Box<dyn std::error::Error>> {
    let context: Value = serde_json::from_str(&std::env::var("MCP_CONFORMANCE_CONTEXT")?)?;
    let client_id = context["client_id"]
        .as_str()
        .ok_or("no client_id in the context")?;
    let assertion = context["valid_jwt"]
        .as_str()
        .ok_or("no valid_jwt in the context")?;
    let (_, metadata) = discover(http, challenge).await?;
    let token_endpoint = metadata["token_endpoint"]
        .as_str()
        .ok_or("no token_endpoint")?;
    let form = url::form_urlencoded::Serializer::new(String::new())
        .append_pair("grant_type", "urn:ietf:params:oauth:grant-type:jwt-bearer")
        .append_pair("assertion", assertion)
        .append_pair("client_id", client_id)
        .finish();
    let answer = http
        .post(token_endpoint)
        .header("content-type", "application/x-www-form-urlencoded")
        .body(form)
        .send()
        .await?;
    if !answer.status().is_success() {
        // RFC 7523 section 3.1: a refused assertion is final; no retry, no other grant.
        return Err(format!("the jwt-bearer grant was refused: {}", answer.text().await?).into());
    }
    holding(url, client_id, answer.json().await?).await
}

/// SEP-2350: rmcp asks for what it holds and what the 403 challenged, together.
async fn step_up(
    http: &reqwest::Client,
    auth: &AuthClient<reqwest::Client>,
    challenge: &str,
) -> Result<(), Box<dyn std::error::Error>> {
    let scope = challenge_param(challenge, "scope").ok_or("a 403 without a scope")?;
    let upgrade = auth
        .auth_manager
        .lock()
        .await
        .request_scope_upgrade(&scope)
        .await?;
    let callback = reqwest::Url::parse(&consent(http, &upgrade).await?)?;
    let param = |name: &str| {
        callback
            .query_pairs()
            .find(|(k, _)| k == name)
            .map(|(_, v)| v.into_owned())
    };
    let code = param("code").ok_or("the step-up redirect has no code")?;
    let csrf = param("state").ok_or("the step-up redirect has no state")?;
    auth.auth_manager
        .lock()
        .await
        .exchange_code_for_token_with_issuer(&code, &csrf, param("iss").as_deref())
        .await?;
    Ok(())
}

/// A session through `http` (with a token or without): list the tools, call `test-tool`.
async fn use_test_tool<C>(url: &str, http: C) -> Result<String, Box<dyn std::error::Error>>
where
    C: StreamableHttpClient + Send + Sync + 'static,
{
    let config = StreamableHttpClientTransportConfig::with_uri(url.to_string());
    let transport = StreamableHttpClientTransport::with_client(http, config);
    let config = ClientConfig::new(
        ClientCapabilities::default(),
        Implementation::new("conformance-client", "1.0.0"),
    );
    let client = match lifecycle() {
        Some(discover) => config.serve_with_lifecycle(transport, discover).await?,
        None => config.serve(transport).await?,
    };
    let result = match client.list_all_tools().await {
        Ok(_) => {
            client
                .call_tool(CallToolRequestParams::new("test-tool"))
                .await
        }
        Err(error) => Err(error),
    };
    let _ = client.cancel().await;
    let result = result?;
    let text = result.content.first().and_then(|c| c.as_text());
    Ok(text.map(|t| t.text.clone()).unwrap_or_default())
}

/// The authorization endpoint's redirect back to the client, as a user who consents.
async fn consent(http: &reqwest::Client, url: &str) -> Result<String, Box<dyn std::error::Error>> {
    let answer = http.get(url).send().await?;
    let location = answer
        .headers()
        .get("location")
        .ok_or("the authorization endpoint did not redirect")?;
    Ok(location.to_str()?.to_string())
}

/// What the server asked for when it refused.
enum Challenge {
    /// A 401: no token, or one it does not take.
    Unauthorized(String),
    /// A 403 `insufficient_scope`: a token with more scopes.
    InsufficientScope(String),
    /// A 401 rmcp answered with a refresh that the authorization server refused.
    RefreshFailed,
}

/// The `WWW-Authenticate` challenge somewhere in the error's chain.
fn challenge_of(error: &(dyn std::error::Error + 'static)) -> Option<Challenge> {
    let classify = |header: &str| {
        if header.contains("insufficient_scope") {
            Challenge::InsufficientScope(header.to_string())
        } else {
            Challenge::Unauthorized(header.to_string())
        }
    };
    let mut current = Some(error);
    while let Some(error) = current {
        if let Some(refused) = error.downcast_ref::<InsufficientScopeError>() {
            return Some(Challenge::InsufficientScope(
                refused.www_authenticate_header.clone(),
            ));
        }
        if let Some(refused) = error.downcast_ref::<AuthRequiredError>() {
            return Some(classify(&refused.www_authenticate_header));
        }
        if let Some(AuthError::TokenRefreshFailed(_)) = error.downcast_ref::<AuthError>() {
            return Some(Challenge::RefreshFailed);
        }
        if let Some(initialize) = error.downcast_ref::<ClientInitializeError>() {
            return initialize.auth_challenge().map(classify);
        }
        current = error.source();
    }
    None
}

/// A parameter of a `WWW-Authenticate: Bearer` challenge.
fn challenge_param(challenge: &str, name: &str) -> Option<String> {
    let start = challenge.find(&format!("{name}=\""))? + name.len() + 2;
    let end = challenge[start..].find('"')? + start;
    Some(challenge[start..end].to_string())
}

/// Calls `tool` and gives the text of its first content block.
async fn call(
    client: &RunningService<RoleClient, Handler>,
    tool: impl Into<std::borrow::Cow<'static, str>>,
    arguments: Value,
) -> Result<String, Box<dyn std::error::Error>> {
    let mut call = CallToolRequestParams::new(tool);
    if let Value::Object(arguments) = arguments {
        call = call.with_arguments(arguments);
    }
    let result = client.call_tool(call).await?;
    let text = result.content.first().and_then(|c| c.as_text());
    Ok(text.map(|t| t.text.clone()).unwrap_or_default())
}

/// The 2026-07-28 tasks extension on rmcp: the call answers a task, `tasks/get` follows it
/// (rmcp names it in `Mcp-Name`) every `pollIntervalMs` until it ends, input it asks for is
/// answered with `tasks/update` (each field's default, as a user who changes nothing); with
/// `cancel`, the task is cancelled after the first poll and polled once more.
async fn modern_task(
    client: &RunningService<RoleClient, Handler>,
    tool: &'static str,
    cancel: bool,
) -> Result<String, Box<dyn std::error::Error>> {
    let CallToolResponse::Task(created) = client
        .call_tool_once(CallToolRequestParams::new(tool))
        .await?
    else {
        return Err(format!("{tool} did not answer a task").into());
    };
    let id = created.task.task_id;
    let mut interval = created.task.poll_interval_ms.unwrap_or(1000);
    let mut polled_once = false;
    loop {
        tokio::time::sleep(std::time::Duration::from_millis(interval)).await;
        if cancel && polled_once {
            client.cancel_task(CancelTaskParams::new(&id)).await?;
        }
        let polled = client.get_task(GetTaskParams::new(&id)).await?;
        polled_once = true;
        let task = serde_json::to_value(&polled)?;
        interval = task["pollIntervalMs"].as_u64().unwrap_or(interval);
        match task["status"].as_str() {
            Some("completed") => return Ok(task["result"].to_string()),
            Some(status @ ("failed" | "cancelled")) => return Ok(format!("the task {status}")),
            Some("input_required") => {
                let answers = task["inputRequests"]
                    .as_object()
                    .into_iter()
                    .flatten()
                    .map(|(key, request)| (key.clone(), accept_defaults(&request["params"])))
                    .collect();
                client
                    .update_task(UpdateTaskParams::new(&id, answers))
                    .await?;
            }
            _ => {}
        }
    }
}

/// 2025-11-25 tasks, which rmcp does not send: `tools/call` with `params.task`, `tasks/get`
/// every `pollInterval` until the task ends, then `tasks/result`; on `input_required`,
/// `tasks/result` at once, whose stream brings the requests (the handler answers them);
/// with `cancel`, `tasks/cancel` after the first poll.
async fn legacy_task(
    client: &RunningService<RoleClient, Handler>,
    tool: &'static str,
    cancel: bool,
) -> Result<String, Box<dyn std::error::Error>> {
    let created = custom(
        client,
        "tools/call",
        json!({ "name": tool, "arguments": {}, "task": { "ttl": 60000 } }),
    )
    .await?;
    let id = created["task"]["taskId"]
        .as_str()
        .ok_or_else(|| format!("{tool} did not answer a task: {created}"))?
        .to_string();
    let mut interval = created["task"]["pollInterval"].as_u64().unwrap_or(1000);
    loop {
        tokio::time::sleep(std::time::Duration::from_millis(interval)).await;
        let task = custom(client, "tasks/get", json!({ "taskId": id })).await?;
        interval = task["pollInterval"].as_u64().unwrap_or(interval);
        match task["status"].as_str() {
            Some("completed" | "input_required") => break,
            Some(status @ ("failed" | "cancelled")) => return Ok(format!("the task {status}")),
            _ if cancel => {
                let cancelled = custom(client, "tasks/cancel", json!({ "taskId": id })).await?;
                return Ok(format!("the task {}", cancelled["status"]));
            }
            _ => {}
        }
    }
    Ok(custom(client, "tasks/result", json!({ "taskId": id }))
        .await?
        .to_string())
}

/// An elicitation accepted with the defaults its schema gives (SEP-1034).
fn accept_defaults(params: &Value) -> Value {
    let defaults: Map<String, Value> = params["requestedSchema"]["properties"]
        .as_object()
        .into_iter()
        .flatten()
        .filter_map(|(name, property)| Some((name.clone(), property.get("default")?.clone())))
        .collect();
    json!({ "action": "accept", "content": defaults })
}

/// A request rmcp has no type for, its result as JSON.
async fn custom(
    client: &RunningService<RoleClient, Handler>,
    method: &str,
    params: Value,
) -> Result<Value, Box<dyn std::error::Error>> {
    let request = ClientRequest::CustomRequest(CustomRequest::new(method, Some(params)));
    Ok(match client.send_request(request).await? {
        ServerResult::CustomResult(CustomResult(value)) => value,
        other => serde_json::to_value(other)?,
    })
}

/// A host's load of a skill (SEP-2640, "Integrity and Verification"), on rmcp's skills
/// API: the entry checked with `Skill::validate`, SKILL.md read and checked against its
/// size and digest (`SkillResource::verify`) and its frontmatter against the entry's, and
/// only then the skill's other files, each verified too.
async fn load_skill(
    client: &RunningService<RoleClient, Handler>,
    skill: &Skill,
) -> Result<(), Box<dyn std::error::Error>> {
    skill.validate()?;
    let SkillResources::Files(files) = &skill.resources else {
        return Err("a dynamic skill publishes no manifest to verify against".into());
    };
    let manifest = files
        .iter()
        .find(|f| f.uri == skill.uri)
        .ok_or("the entry lists no digest for its SKILL.md")?;
    let text = read_text(client, &skill.uri).await?;
    manifest.verify(text.as_bytes())?;
    let listed = serde_json::to_value(&skill.frontmatter)?;
    let read = Value::Object(frontmatter(&text)?);
    if read != listed {
        return Err(format!(
            "the frontmatter differs from the entry's: file {read}, entry {listed}"
        )
        .into());
    }
    for file in files.iter().filter(|f| f.uri != skill.uri) {
        file.verify(read_text(client, &file.uri).await?.as_bytes())?;
    }
    Ok(())
}

async fn read_text(
    client: &RunningService<RoleClient, Handler>,
    uri: &str,
) -> Result<String, Box<dyn std::error::Error>> {
    let read = client
        .read_resource(ReadResourceRequestParams::new(uri.to_string()))
        .await?;
    let contents = serde_json::to_value(&read.contents)?;
    Ok(contents[0]["text"].as_str().ok_or("no text")?.to_string())
}

/// A SKILL.md's frontmatter, its string fields (all the suite's skills have), to compare
/// with the entry's (rmcp reads no SKILL.md).
fn frontmatter(text: &str) -> Result<Map<String, Value>, Box<dyn std::error::Error>> {
    let body = text.strip_prefix("---\n").ok_or("no frontmatter")?;
    let (yaml, _) = body.split_once("\n---").ok_or("unclosed frontmatter")?;
    let docs = yaml_rust2::YamlLoader::load_from_str(yaml)?;
    let hash = docs
        .first()
        .and_then(|d| d.as_hash())
        .ok_or("frontmatter is no mapping")?;
    Ok(hash
        .iter()
        .filter_map(|(k, v)| Some((k.as_str()?.to_string(), json!(v.as_str()?))))
        .collect())
}

/// The client's side of server requests: an elicitation is accepted with the defaults its
/// schema gives (SEP-1034), as a user who changes nothing; a changed tool list is told to
/// whoever waits on `list_changed`.
struct Handler(ClientConfig, ListChanged);

/// Set when the server says the tool list changed (a permit is kept until taken).
#[derive(Default)]
struct ListChanged {
    list_changed: tokio::sync::Notify,
}

impl std::ops::Deref for Handler {
    type Target = ListChanged;
    fn deref(&self) -> &ListChanged {
        &self.1
    }
}

impl ClientHandler for Handler {
    fn get_info(&self) -> ClientConfig {
        self.0.clone()
    }

    async fn on_tool_list_changed(&self, _context: rmcp::service::NotificationContext<RoleClient>) {
        self.list_changed.notify_one();
    }

    async fn create_elicitation(
        &self,
        request: ElicitRequestParams,
        _context: RequestContext<RoleClient>,
    ) -> Result<ElicitResult, ErrorData> {
        let ElicitRequestParams::FormElicitationParams {
            requested_schema, ..
        } = request
        else {
            return Ok(ElicitResult::new(ElicitationAction::Decline));
        };
        let schema = serde_json::to_value(requested_schema).unwrap_or_default();
        let defaults: Map<String, Value> = schema["properties"]
            .as_object()
            .into_iter()
            .flatten()
            .filter_map(|(name, property)| Some((name.clone(), property.get("default")?.clone())))
            .collect();
        Ok(ElicitResult::new(ElicitationAction::Accept).with_content(Value::Object(defaults)))
    }
}
