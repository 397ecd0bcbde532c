//! A small OAuth client written from the MCP authorization pages, raw `reqwest` and no
//! browser, so each preset test can walk the flow step by step and show what a correct
//! client sees: the challenge, the metadata documents, the redirect, the token answer.
//!
//! Each step is a function the tests call in order, keeping what it saw in [`Flow`] so the
//! test can assert on it; [`Flow::run`] chains them. The rules it applies, and where they
//! come from (spec pack `/work/shared/spec/`):
//! - discovery: header URL, then path form, then root (2026-07-28
//!   `basic/authorization/authorization-server-discovery.mdx` "Protected Resource Metadata
//!   Discovery Requirements"); RFC 8414 then OpenID, inserted then appended, and the
//!   metadata `issuer` must equal the issuer the URL was built from ("Authorization Server
//!   Metadata Discovery"); 2025-03-26 fallbacks when there is no resource metadata
//!   (2025-03-26 `basic/authorization.mdx` "Server Metadata Discovery", "Fallbacks for
//!   Servers without Metadata Discovery");
//! - the resource metadata's `resource` must be the server's URL (`index.mdx` "Canonical
//!   Server URI");
//! - registration: pre-registered, then CIMD, then DCR (`client-registration.mdx`);
//! - scopes: challenge, then `scopes_supported`, else omitted; `offline_access` only if the
//!   authorization server lists it (`index.mdx` "Scope Selection Strategy", "Refresh Tokens");
//! - the `iss` table of `index.mdx` "Authorization Response Validation", byte for byte.

#![allow(dead_code, reason = "each test uses the steps it needs")]

use base64::Engine as _;
use base64::engine::general_purpose::{STANDARD, URL_SAFE_NO_PAD};
use serde_json::{Value, json};
use sha2::{Digest, Sha256};

/// Where the authorization server redirects to. Never served: the client reads the
/// `Location` header instead of following it.
pub const REDIRECT_URI: &str = "http://localhost:3000/callback";

/// Why a correct client stops.
#[derive(Debug, Clone, PartialEq)]
pub enum Refusal {
    /// The resource metadata names another resource.
    ResourceMismatch { claimed: String },
    /// The authorization server metadata names another issuer.
    MetadataIssuerMismatch { expected: String, claimed: String },
    /// `iss` was advertised but the redirect has none.
    IssMissing,
    /// The redirect's `iss` is not the recorded issuer, byte for byte.
    IssMismatch { expected: String, received: String },
    /// No way to register: no pre-registered client, CIMD or DCR.
    NoRegistration,
}

/// An HTTP answer as the client saw it.
#[derive(Debug, Clone)]
pub struct Seen {
    pub url: String,
    pub status: u16,
    pub headers: reqwest::header::HeaderMap,
    pub body: Value,
}

impl Seen {
    pub fn header(&self, name: &str) -> Option<&str> {
        self.headers.get(name).and_then(|v| v.to_str().ok())
    }
}

/// The endpoints the client uses, from metadata or the 2025-03-26 defaults.
#[derive(Debug, Clone, Default)]
pub struct Endpoints {
    pub issuer: Option<String>,
    pub authorization: String,
    pub token: String,
    pub registration: Option<String>,
    pub metadata: Value,
}

/// Client credentials.
#[derive(Debug, Clone)]
pub struct Credentials {
    pub client_id: String,
    pub secret: Option<String>,
    /// `client_secret_basic`, `client_secret_post` or `none`.
    pub auth_method: String,
}

/// What the client knows before it starts.
#[derive(Debug, Clone, Default)]
pub struct Config {
    /// Pre-registered credentials (id, secret) and the method to use them with.
    pub pre_registered: Option<(String, Option<String>, String)>,
    /// The URL of this client's Client ID Metadata Document, if it has one.
    pub metadata_document: Option<String>,
}

/// Everything one run saw, in order.
#[derive(Debug, Default)]
pub struct Flow {
    pub http: reqwest::Client,
    pub mcp_url: String,
    pub config: Config,
    pub challenge: Option<Seen>,
    pub resource_metadata: Option<Seen>,
    pub endpoints: Option<Endpoints>,
    pub credentials: Option<Credentials>,
    pub scope: Option<String>,
    pub redirect: Option<reqwest::Url>,
    pub token: Option<Seen>,
    pub access_token: Option<String>,
    pub refresh_token: Option<String>,
    /// Send no `resource` (a 2025-03-26 client, before RFC 8707 joined MCP).
    pub without_resource: bool,
    verifier: String,
    state: String,
}

impl Flow {
    pub fn new(mcp_url: &str) -> Self {
        Flow {
            http: reqwest::Client::builder()
                .redirect(reqwest::redirect::Policy::none())
                .build()
                .expect("build a reqwest client that does not follow redirects"),
            mcp_url: mcp_url.to_string(),
            ..Flow::default()
        }
    }

    pub fn with_config(mut self, config: Config) -> Self {
        self.config = config;
        self
    }

    /// The whole flow up to a token; `Err` when a correct client must stop.
    pub async fn run(&mut self) -> Result<(), Refusal> {
        self.unauthenticated_request().await;
        self.discover().await?;
        self.register().await?;
        self.choose_scope(None);
        self.authorize().await?;
        self.exchange_code().await;
        Ok(())
    }

    /// An `initialize` without a token; the server should answer 401.
    pub async fn unauthenticated_request(&mut self) -> &Seen {
        let seen = self.post_mcp(initialize(), None, None).await;
        self.challenge = Some(seen);
        self.challenge.as_ref().expect("just set")
    }

    /// An MCP request with a bearer token.
    pub async fn post_mcp(&self, body: Value, token: Option<&str>, session: Option<&str>) -> Seen {
        let mut request = self
            .http
            .post(&self.mcp_url)
            .header("content-type", "application/json")
            .header("accept", "application/json, text/event-stream")
            .header("mcp-protocol-version", "2025-11-25");
        if let Some(token) = token {
            request = request.bearer_auth(token);
        }
        if let Some(session) = session {
            request = request.header("mcp-session-id", session);
        }
        let response = request
            .body(body.to_string())
            .send()
            .await
            .expect("POST the MCP endpoint");
        seen(&self.mcp_url, response).await
    }

    /// `initialize` and `notifications/initialized` with the access token; the session id.
    pub async fn open_session(&self) -> Result<String, Seen> {
        let token = self
            .access_token
            .as_deref()
            .expect("a token before the MCP call");
        let answer = self.post_mcp(initialize(), Some(token), None).await;
        if answer.status != 200 {
            return Err(answer);
        }
        let session = answer
            .header("mcp-session-id")
            .expect("a session id")
            .to_string();
        let initialized = json!({"jsonrpc": "2.0", "method": "notifications/initialized"});
        let ack = self
            .post_mcp(initialized, Some(token), Some(&session))
            .await;
        assert_eq!(
            ack.status, 202,
            "notifications/initialized is accepted: {:?}",
            ack.body
        );
        Ok(session)
    }

    /// GET a JSON document.
    pub async fn get(&self, url: &str) -> Seen {
        let response = self
            .http
            .get(url)
            .send()
            .await
            .expect("GET a metadata document");
        seen(url, response).await
    }

    fn origin(&self) -> reqwest::Url {
        let mut origin = reqwest::Url::parse(&self.mcp_url).expect("the MCP URL parses");
        origin.set_path("");
        origin.set_query(None);
        origin
    }

    fn at_origin(&self, path: &str) -> String {
        format!("{}{}", self.origin().as_str().trim_end_matches('/'), path)
    }

    /// Resource metadata, then authorization server metadata, or the 2025-03-26 fallbacks.
    pub async fn discover(&mut self) -> Result<(), Refusal> {
        let header_url = self
            .challenge
            .as_ref()
            .and_then(|c| c.header("www-authenticate"))
            .and_then(|h| challenge_param(h, "resource_metadata"));
        let mcp_path = reqwest::Url::parse(&self.mcp_url)
            .expect("MCP URL")
            .path()
            .to_string();
        let mut candidates: Vec<String> = header_url.into_iter().collect();
        candidates
            .push(self.at_origin(&format!("/.well-known/oauth-protected-resource{mcp_path}")));
        candidates.push(self.at_origin("/.well-known/oauth-protected-resource"));
        for candidate in candidates {
            let answer = self.get(&candidate).await;
            if answer.status == 200 {
                self.resource_metadata = Some(answer);
                break;
            }
        }
        let Some(document) = self.resource_metadata.as_ref().map(|s| s.body.clone()) else {
            return self.discover_2025_03_26().await;
        };
        let claimed = document["resource"]
            .as_str()
            .unwrap_or_default()
            .to_string();
        if !resource_matches(&claimed, &self.mcp_url) {
            return Err(Refusal::ResourceMismatch { claimed });
        }
        let issuer = document["authorization_servers"][0]
            .as_str()
            .expect("authorization_servers names an issuer")
            .to_string();
        self.discover_issuer(&issuer).await
    }

    /// RFC 8414 and OpenID candidates for `issuer`, in the 2026-07-28 priority order.
    async fn discover_issuer(&mut self, issuer: &str) -> Result<(), Refusal> {
        let url = reqwest::Url::parse(issuer).expect("the issuer is a URL");
        let origin = format!("{}://{}", url.scheme(), url.host_str().expect("host"))
            + &url.port().map(|p| format!(":{p}")).unwrap_or_default();
        let path = url.path().trim_end_matches('/');
        let candidates = if path.is_empty() {
            vec![
                format!("{origin}/.well-known/oauth-authorization-server"),
                format!("{origin}/.well-known/openid-configuration"),
            ]
        } else {
            vec![
                format!("{origin}/.well-known/oauth-authorization-server{path}"),
                format!("{origin}/.well-known/openid-configuration{path}"),
                format!("{origin}{path}/.well-known/openid-configuration"),
            ]
        };
        for candidate in candidates {
            let answer = self.get(&candidate).await;
            if answer.status != 200 {
                continue;
            }
            let claimed = answer.body["issuer"]
                .as_str()
                .unwrap_or_default()
                .to_string();
            if claimed != issuer {
                return Err(Refusal::MetadataIssuerMismatch {
                    expected: issuer.to_string(),
                    claimed,
                });
            }
            self.endpoints = Some(endpoints_of(&answer.body, Some(issuer.to_string())));
            return Ok(());
        }
        panic!("no authorization server metadata answered for {issuer}");
    }

    /// 2025-03-26: metadata at the MCP server's origin, else `/authorize`, `/token`,
    /// `/register` there.
    async fn discover_2025_03_26(&mut self) -> Result<(), Refusal> {
        let answer = self
            .get(&self.at_origin("/.well-known/oauth-authorization-server"))
            .await;
        self.endpoints = Some(if answer.status == 200 {
            let issuer = answer.body["issuer"].as_str().map(str::to_string);
            endpoints_of(&answer.body, issuer)
        } else {
            Endpoints {
                issuer: None,
                authorization: self.at_origin("/authorize"),
                token: self.at_origin("/token"),
                registration: Some(self.at_origin("/register")),
                metadata: Value::Null,
            }
        });
        Ok(())
    }

    /// Pre-registered, then CIMD, then DCR.
    pub async fn register(&mut self) -> Result<(), Refusal> {
        let endpoints = self
            .endpoints
            .clone()
            .expect("discovery before registration");
        if let Some((client_id, secret, method)) = self.config.pre_registered.clone() {
            self.credentials = Some(Credentials {
                client_id,
                secret,
                auth_method: method,
            });
            return Ok(());
        }
        if let Some(url) = &self.config.metadata_document
            && endpoints.metadata["client_id_metadata_document_supported"] == json!(true)
        {
            self.credentials = Some(Credentials {
                client_id: url.clone(),
                secret: None,
                auth_method: "none".into(),
            });
            return Ok(());
        }
        let Some(registration) = endpoints.registration else {
            return Err(Refusal::NoRegistration);
        };
        // RFC 8414: without the list, `client_secret_basic` is the default.
        let method = endpoints.metadata["token_endpoint_auth_methods_supported"][0]
            .as_str()
            .unwrap_or("client_secret_basic")
            .to_string();
        let body = json!({
            "client_name": "decoy-preset-tests",
            "redirect_uris": [REDIRECT_URI],
            "grant_types": ["authorization_code", "refresh_token"],
            "response_types": ["code"],
            "token_endpoint_auth_method": method,
            "application_type": "native",
        });
        let response = self
            .http
            .post(&registration)
            .json(&body)
            .send()
            .await
            .expect("POST the registration endpoint");
        let answer = seen(&registration, response).await;
        assert_eq!(
            answer.status, 201,
            "registration succeeds: {:?}",
            answer.body
        );
        self.credentials = Some(Credentials {
            client_id: answer.body["client_id"]
                .as_str()
                .expect("client_id")
                .to_string(),
            secret: answer.body["client_secret"].as_str().map(str::to_string),
            auth_method: answer.body["token_endpoint_auth_method"]
                .as_str()
                .unwrap_or(&method)
                .to_string(),
        });
        Ok(())
    }

    /// The scope of the authorization request: `explicit`, else the challenge's, else the
    /// resource metadata's `scopes_supported`, else none; plus `offline_access` when the
    /// authorization server lists it.
    pub fn choose_scope(&mut self, explicit: Option<&str>) {
        let from_challenge = self
            .challenge
            .as_ref()
            .and_then(|c| c.header("www-authenticate"))
            .and_then(|h| challenge_param(h, "scope"));
        let from_metadata = self.resource_metadata.as_ref().and_then(|m| {
            let scopes: Vec<&str> = m.body["scopes_supported"]
                .as_array()?
                .iter()
                .filter_map(Value::as_str)
                .collect();
            (!scopes.is_empty()).then(|| scopes.join(" "))
        });
        let mut scope = explicit
            .map(str::to_string)
            .or(from_challenge)
            .or(from_metadata);
        let offline = self.endpoints.as_ref().is_some_and(|e| {
            e.metadata["scopes_supported"]
                .as_array()
                .is_some_and(|s| s.iter().any(|v| v == "offline_access"))
        });
        if offline
            && let Some(scope) = scope.as_mut()
            && !scope.split(' ').any(|s| s == "offline_access")
        {
            scope.push_str(" offline_access");
        }
        self.scope = scope;
    }

    /// The authorization request (auto-approved: the answer is a redirect) and the checks
    /// of its response.
    pub async fn authorize(&mut self) -> Result<(), Refusal> {
        let endpoints = self
            .endpoints
            .clone()
            .expect("discovery before authorization");
        let credentials = self
            .credentials
            .clone()
            .expect("registration before authorization");
        self.verifier = URL_SAFE_NO_PAD.encode(random::<32>());
        self.state = URL_SAFE_NO_PAD.encode(random::<16>());
        let challenge = URL_SAFE_NO_PAD.encode(Sha256::digest(self.verifier.as_bytes()));
        let mut url =
            reqwest::Url::parse(&endpoints.authorization).expect("authorization endpoint");
        {
            let mut query = url.query_pairs_mut();
            query
                .append_pair("response_type", "code")
                .append_pair("client_id", &credentials.client_id)
                .append_pair("redirect_uri", REDIRECT_URI)
                .append_pair("code_challenge", &challenge)
                .append_pair("code_challenge_method", "S256")
                .append_pair("state", &self.state);
            if let Some(resource) = self.resource() {
                query.append_pair("resource", &resource);
            }
            if let Some(scope) = &self.scope {
                query.append_pair("scope", scope);
            }
        }
        let response = self
            .http
            .get(url.as_str())
            .send()
            .await
            .expect("GET the authorization endpoint");
        let status = response.status().as_u16();
        let location = response
            .headers()
            .get("location")
            .and_then(|v| v.to_str().ok())
            .map(str::to_string);
        assert!(
            (300..400).contains(&status),
            "auto-approve redirects back, got {status}: {}",
            response.text().await.unwrap_or_default()
        );
        let redirect =
            reqwest::Url::parse(&location.expect("a Location")).expect("the Location parses");
        let param = |name: &str| {
            redirect
                .query_pairs()
                .find(|(k, _)| k == name)
                .map(|(_, v)| v.into_owned())
        };
        assert_eq!(
            param("state").as_deref(),
            Some(self.state.as_str()),
            "state is echoed"
        );
        let (iss, advertised) = (
            param("iss"),
            endpoints.metadata["authorization_response_iss_parameter_supported"] == json!(true),
        );
        self.redirect = Some(redirect.clone());
        match (iss, advertised) {
            (Some(received), _) => {
                let expected = endpoints.issuer.clone().unwrap_or_default();
                if received != expected {
                    return Err(Refusal::IssMismatch { expected, received });
                }
            }
            (None, true) => return Err(Refusal::IssMissing),
            (None, false) => {}
        }
        Ok(())
    }

    /// The resource indicator (RFC 8707) to send: the one the resource metadata names, else
    /// the MCP URL; none for a 2025-03-26 client.
    pub fn resource(&self) -> Option<String> {
        if self.without_resource {
            return None;
        }
        let named = self
            .resource_metadata
            .as_ref()
            .and_then(|m| m.body["resource"].as_str().map(str::to_string));
        Some(named.unwrap_or_else(|| self.mcp_url.clone()))
    }

    /// The code exchange; keeps the tokens of a 200.
    pub async fn exchange_code(&mut self) -> &Seen {
        let code = self
            .redirect
            .as_ref()
            .and_then(|r| {
                r.query_pairs()
                    .find(|(k, _)| k == "code")
                    .map(|(_, v)| v.into_owned())
            })
            .expect("the redirect carries a code");
        let verifier = self.verifier.clone();
        let mut params = vec![
            ("grant_type", "authorization_code".to_string()),
            ("code", code),
            ("redirect_uri", REDIRECT_URI.to_string()),
            ("code_verifier", verifier),
        ];
        params.extend(self.resource().map(|r| ("resource", r)));
        self.token_request(params).await
    }

    /// A refresh with the refresh token.
    pub async fn refresh(&mut self) -> &Seen {
        let refresh = self.refresh_token.clone().expect("a refresh token");
        let mut params = vec![
            ("grant_type", "refresh_token".to_string()),
            ("refresh_token", refresh),
        ];
        params.extend(self.resource().map(|r| ("resource", r)));
        self.token_request(params).await
    }

    async fn token_request(&mut self, mut params: Vec<(&'static str, String)>) -> &Seen {
        let endpoints = self
            .endpoints
            .clone()
            .expect("discovery before the token request");
        let credentials = self
            .credentials
            .clone()
            .expect("registration before the token request");
        let mut request = self.http.post(&endpoints.token);
        match credentials.auth_method.as_str() {
            "client_secret_basic" => {
                // RFC 6749 section 2.3.1: form-encode id and secret, then Base64.
                let user = form_component(&credentials.client_id);
                let password = form_component(credentials.secret.as_deref().unwrap_or_default());
                let basic = STANDARD.encode(format!("{user}:{password}"));
                request = request.header("authorization", format!("Basic {basic}"));
            }
            "client_secret_post" => {
                params.push(("client_id", credentials.client_id.clone()));
                params.push((
                    "client_secret",
                    credentials.secret.clone().unwrap_or_default(),
                ));
            }
            _ => params.push(("client_id", credentials.client_id.clone())),
        }
        let body = form_urlencoded::Serializer::new(String::new())
            .extend_pairs(params.iter().map(|(k, v)| (*k, v.as_str())))
            .finish();
        let response = request
            .header("content-type", "application/x-www-form-urlencoded")
            .body(body)
            .send()
            .await
            .expect("POST the token endpoint");
        let answer = seen(&endpoints.token, response).await;
        if answer.status == 200 {
            self.access_token = answer.body["access_token"].as_str().map(str::to_string);
            if let Some(refresh) = answer.body["refresh_token"].as_str() {
                self.refresh_token = Some(refresh.to_string());
            }
        }
        self.token = Some(answer);
        self.token.as_ref().expect("just set")
    }
}

fn form_component(text: &str) -> String {
    form_urlencoded::byte_serialize(text.as_bytes()).collect()
}

fn endpoints_of(metadata: &Value, issuer: Option<String>) -> Endpoints {
    Endpoints {
        issuer,
        authorization: metadata["authorization_endpoint"]
            .as_str()
            .expect("authorization_endpoint")
            .to_string(),
        token: metadata["token_endpoint"]
            .as_str()
            .expect("token_endpoint")
            .to_string(),
        registration: metadata["registration_endpoint"]
            .as_str()
            .map(str::to_string),
        metadata: metadata.clone(),
    }
}

/// The `resource` of the metadata must identify this server: the MCP URL itself, or (for
/// the root document) a prefix of it on the same origin.
fn resource_matches(claimed: &str, mcp_url: &str) -> bool {
    let (Ok(claimed), Ok(mcp)) = (reqwest::Url::parse(claimed), reqwest::Url::parse(mcp_url))
    else {
        return false;
    };
    claimed.origin() == mcp.origin()
        && claimed.fragment().is_none()
        && mcp.path().starts_with(claimed.path().trim_end_matches('/'))
}

async fn seen(url: &str, response: reqwest::Response) -> Seen {
    let status = response.status().as_u16();
    let headers = response.headers().clone();
    let text = response.text().await.unwrap_or_default();
    Seen {
        url: url.to_string(),
        status,
        headers,
        body: serde_json::from_str(&text).unwrap_or(Value::String(text)),
    }
}

pub fn initialize() -> Value {
    json!({
        "jsonrpc": "2.0",
        "id": 1,
        "method": "initialize",
        "params": {
            "protocolVersion": "2025-11-25",
            "capabilities": {},
            "clientInfo": {"name": "decoy-preset-tests", "version": "1.0.0"}
        }
    })
}

/// An auth-param of a `WWW-Authenticate` value, unquoted (enough for the decoy's headers:
/// `name="value"` pairs separated by `, `).
pub fn challenge_param(header: &str, name: &str) -> Option<String> {
    let needle = format!("{name}=\"");
    let start = header.find(&needle)? + needle.len();
    let end = header[start..].find('"')?;
    Some(header[start..start + end].to_string())
}

/// `N` bytes from the OS generator, for PKCE verifiers and `state`.
fn random<const N: usize>() -> [u8; N] {
    let mut bytes = [0u8; N];
    getrandom::fill(&mut bytes).expect("the OS random number generator");
    bytes
}
