//! The resource server: the bearer-token check in front of the MCP endpoint (RFC 6750,
//! RFC 9728 section 5.1, MCP authorization "Access Token Usage" and "Scope Challenge
//! Handling"). No token: 401 with the challenge that starts discovery; a token that is
//! unknown, revoked, expired or bound to another resource: 401 `invalid_token`; a token
//! without the scopes a tool needs: 403 `insufficient_scope` naming them (step-up).

use axum::body::Body;
use axum::extract::Request;
use axum::http::{HeaderMap, HeaderValue, Method, StatusCode, header};
use axum::response::{IntoResponse, Response};
use serde_json::{Value, json};

use super::AuthServer;
use super::issuer::Context;
use super::store::Token;
use crate::engine::Engine;
use crate::engine::methods::Principal;
use crate::engine::protocol::jsonrpc::{self, RpcError, code};
use crate::engine::protocol::method::{INITIALIZE, Method as McpMethod};

/// Before the MCP endpoint (`next`), inside the capture, so refusals are recorded.
pub(crate) async fn guard<F, Fut>(engine: &Engine, mut request: Request, next: F) -> Response
where
    F: FnOnce(Request) -> Fut,
    Fut: Future<Output = Response>,
{
    let Some(oauth) = engine.oauth.as_ref() else {
        return next(request).await;
    };
    // A browser's preflight carries no credentials; the endpoint itself answers it.
    if request.method() == Method::OPTIONS {
        return next(request).await;
    }
    let context = match Context::of(oauth, request.headers()) {
        Ok(context) => context,
        Err(error) => {
            let header_value = format!(
                r#"Bearer error="invalid_request", error_description="{}""#,
                quoted(&error.description)
            );
            return respond(
                StatusCode::UNAUTHORIZED,
                header_value,
                Some("invalid_request"),
                &error.description,
            );
        }
    };
    let token = match bearer(request.headers()) {
        // The session's own stream and its end carry no operation: the lifecycle too.
        Bearer::Missing
            if oauth.spec.anonymous_lifecycle
                && matches!(*request.method(), Method::GET | Method::DELETE) =>
        {
            return next(request).await;
        }
        Bearer::Missing if oauth.spec.anonymous_lifecycle && request.method() == Method::POST => {
            let (parts, body) = request.into_parts();
            // The capture layer already read the body within the limit; this is a copy.
            let bytes = axum::body::to_bytes(body, usize::MAX)
                .await
                .unwrap_or_default();
            let messages = messages(&bytes);
            let lifecycle = !messages.is_empty()
                && messages
                    .iter()
                    .all(|m| m.method == INITIALIZE || !m.is_request);
            if lifecycle {
                return next(Request::from_parts(parts, Body::from(bytes))).await;
            }
            return unauthorized(
                oauth,
                &context,
                None,
                "this MCP endpoint requires an OAuth bearer token for everything but initialize and notifications; start with the resource metadata named in WWW-Authenticate",
            );
        }
        Bearer::Missing => {
            return unauthorized(
                oauth,
                &context,
                None,
                "this MCP endpoint requires an OAuth bearer token; start with the resource metadata named in WWW-Authenticate",
            );
        }
        Bearer::Malformed => {
            return unauthorized(
                oauth,
                &context,
                Some("invalid_request"),
                "the Authorization header is not `Bearer TOKEN` (RFC 6750 section 2.1)",
            );
        }
        Bearer::Token(token, dpop) => (token, dpop),
    };
    let (text, dpop) = token;
    let now = engine.clock.now();
    let found = oauth.lock().access.get(&text).cloned();
    let token = match check(found, &context, now) {
        Ok(token) => token,
        Err(description) => {
            return unauthorized(oauth, &context, Some("invalid_token"), &description);
        }
    };
    if let Some(refused) = possession(oauth, &context, &request, &token, &text, dpop, now) {
        return refused;
    }
    request
        .extensions_mut()
        .insert(Principal(format!("oauth:{}", token.client_id)));
    let needs_body = request.method() == Method::POST
        && (oauth.spec.always_insufficient
            || !oauth.spec.tool_scopes.is_empty()
            || oauth.spec.authorization_server_migration);
    if !needs_body {
        return next(request).await;
    }
    let (parts, body) = request.into_parts();
    // The capture layer already read the body within the limit; this is a copy in memory.
    let bytes = axum::body::to_bytes(body, usize::MAX)
        .await
        .unwrap_or_default();
    let messages = messages(&bytes);
    if let Some(missing) = insufficient(oauth, &token, &messages) {
        return challenge(
            oauth,
            &context,
            StatusCode::FORBIDDEN,
            Some("insufficient_scope"),
            Some(missing.scope),
            &missing.description,
        );
    }
    let migrate = oauth.spec.authorization_server_migration
        && messages
            .iter()
            .any(|m| m.is_request && m.method != INITIALIZE)
        && !std::mem::replace(&mut oauth.lock().migrated, true);
    let response = next(Request::from_parts(parts, Body::from(bytes))).await;
    if migrate {
        // The conformance scenario's order: the first authorized request succeeds, then
        // the resource names the new authorization server and refuses the old tokens.
        oauth.migrate();
    }
    response
}

enum Bearer {
    Missing,
    Malformed,
    /// The token, and whether it came as `DPoP` (RFC 9449 section 7.1) rather than `Bearer`.
    Token(String, bool),
}

fn bearer(headers: &HeaderMap) -> Bearer {
    let Some(value) = headers.get(header::AUTHORIZATION) else {
        return Bearer::Missing;
    };
    let Ok(text) = value.to_str() else {
        return Bearer::Malformed;
    };
    match text.split_once(' ') {
        Some((scheme, token))
            if scheme.eq_ignore_ascii_case("bearer") || scheme.eq_ignore_ascii_case("dpop") =>
        {
            let token = token.trim();
            if token.is_empty() || token.contains(' ') {
                Bearer::Malformed
            } else {
                Bearer::Token(token.to_string(), scheme.eq_ignore_ascii_case("dpop"))
            }
        }
        _ => Bearer::Malformed,
    }
}

/// RFC 9449 section 7: a DPoP-bound token comes as `DPoP` with a fresh proof of its key for
/// this request (and the server's nonce when it asks for one); an unbound one as `Bearer`.
#[cfg(feature = "oauth-jwt")]
fn possession(
    oauth: &AuthServer,
    context: &Context,
    request: &Request,
    token: &Token,
    text: &str,
    dpop: bool,
    now: std::time::SystemTime,
) -> Option<Response> {
    use super::dpop;

    let Some(jkt) = &token.jkt else {
        return dpop.then(|| {
            unauthorized(
                oauth,
                context,
                Some("invalid_token"),
                "the access token is not DPoP-bound: present it as `Authorization: Bearer`",
            )
        });
    };
    let refuse = |error: &'static str, why: &str, nonce: bool| {
        Some(dpop_challenge(oauth, context, error, why, nonce))
    };
    if !dpop {
        return refuse(
            "invalid_token",
            "the access token is DPoP-bound: present it as `Authorization: DPoP` with a DPoP proof (RFC 9449 section 7.1)",
            false,
        );
    }
    let url = format!("{}{}", context.origin, request.uri().path());
    let expected = dpop::Expected {
        method: request.method().as_str(),
        url: &url,
        access_token: Some(text),
    };
    let proof = match dpop::check(request.headers(), &expected, now) {
        Ok(Some(proof)) => proof,
        Ok(None) => {
            return refuse(
                "invalid_dpop_proof",
                "the request carries no DPoP proof",
                false,
            );
        }
        Err(why) => return refuse("invalid_dpop_proof", &why, false),
    };
    if proof.jkt != *jkt {
        return refuse(
            "invalid_dpop_proof",
            "the DPoP proof is signed by another key than the one the access token is bound to",
            false,
        );
    }
    if oauth.spec.dpop_nonce && proof.nonce.as_deref() != Some(oauth.dpop_nonce.as_str()) {
        return refuse(
            "use_dpop_nonce",
            "this resource requires a DPoP nonce: send the proof again with the `DPoP-Nonce` of this answer (RFC 9449 section 9)",
            true,
        );
    }
    dpop::take(oauth, &proof, now)
        .err()
        .and_then(|why| refuse("invalid_dpop_proof", &why, false))
}

/// Without `oauth-jwt` no token is bound, and `DPoP` is no scheme here.
#[cfg(not(feature = "oauth-jwt"))]
fn possession(
    oauth: &AuthServer,
    context: &Context,
    _request: &Request,
    _token: &Token,
    _text: &str,
    dpop: bool,
    _now: std::time::SystemTime,
) -> Option<Response> {
    dpop.then(|| {
        unauthorized(
            oauth,
            context,
            Some("invalid_request"),
            "this server does not speak DPoP: present the token as `Authorization: Bearer`",
        )
    })
}

/// A 401 with `WWW-Authenticate: DPoP …` (RFC 9449 section 7.1), and the server's nonce when
/// it asks for one (section 9).
#[cfg(feature = "oauth-jwt")]
fn dpop_challenge(
    oauth: &AuthServer,
    context: &Context,
    error: &'static str,
    description: &str,
    nonce: bool,
) -> Response {
    let mut params = vec![
        format!(r#"error="{error}""#),
        format!(r#"error_description="{}""#, quoted(description)),
        r#"algs="ES256""#.to_string(),
    ];
    if let Some(path) = oauth.resource_metadata_path(&context.mount) {
        params.push(format!(r#"resource_metadata="{}""#, context.url(&path)));
    }
    let mut response = respond(
        StatusCode::UNAUTHORIZED,
        format!("DPoP {}", params.join(", ")),
        Some(error),
        description,
    );
    if nonce && let Ok(value) = HeaderValue::from_str(&oauth.dpop_nonce) {
        response.headers_mut().insert("dpop-nonce", value);
    }
    response
}

/// The token, if it may be used here now; otherwise why not.
fn check(
    found: Option<Token>,
    context: &Context,
    now: std::time::SystemTime,
) -> Result<Token, String> {
    let token = found.ok_or_else(|| "the access token is unknown or was revoked".to_string())?;
    if token.expired(now) {
        return Err("the access token expired".into());
    }
    if let Some(resource) = &token.resource
        && *resource != context.resource
    {
        return Err(format!(
            "the access token was issued for resource `{resource}`, not this server (`{}`)",
            context.resource
        ));
    }
    Ok(token)
}

/// One JSON-RPC message of the body, as far as scopes care.
struct Message {
    method: String,
    tool: Option<String>,
    is_request: bool,
}

fn messages(bytes: &[u8]) -> Vec<Message> {
    let Ok(value) = serde_json::from_slice::<Value>(bytes) else {
        return Vec::new();
    };
    let list = match value {
        Value::Array(list) => list,
        single => vec![single],
    };
    list.iter()
        .filter_map(|m| {
            let method = m.get("method")?.as_str()?.to_string();
            Some(Message {
                tool: m
                    .pointer("/params/name")
                    .and_then(Value::as_str)
                    .map(str::to_string),
                is_request: m.get("id").is_some(),
                method,
            })
        })
        .collect()
}

struct Missing {
    /// The `scope` of the 403 challenge.
    scope: String,
    description: String,
}

/// What the token lacks for these messages, if anything. The challenge names the token's
/// scopes and the new ones together (MCP "Scope Challenge Handling", recommended approach),
/// so the client does not lose what it has, unless the server names only what is lacking.
fn insufficient(oauth: &AuthServer, token: &Token, messages: &[Message]) -> Option<Missing> {
    if oauth.spec.always_insufficient
        && messages
            .iter()
            .any(|m| m.is_request && m.method != INITIALIZE)
    {
        let scope = oauth
            .spec
            .challenge_scope
            .clone()
            .unwrap_or_else(|| oauth.spec.scopes_supported.join(" "));
        return Some(Missing {
            scope,
            description:
                "this server never finds the token's scopes sufficient (a retry-limit test)".into(),
        });
    }
    for message in messages
        .iter()
        .filter(|m| McpMethod::parse(&m.method) == Some(McpMethod::ToolsCall))
    {
        let Some(tool) = &message.tool else { continue };
        let any = || oauth.spec.tool_scopes.get(crate::spec::OAuthSpec::ANY_TOOL);
        let Some(required) = oauth.spec.tool_scopes.get(tool).or_else(any) else {
            continue;
        };
        let lacking: Vec<&String> = required
            .iter()
            .filter(|s| !token.scopes.contains(s))
            .collect();
        if lacking.is_empty() {
            continue;
        }
        let mut scope: Vec<String> = if oauth.spec.challenge_lacking_only {
            Vec::new()
        } else {
            token.scopes.clone()
        };
        scope.extend(
            required
                .iter()
                .filter(|s| !scope.contains(s))
                .cloned()
                .collect::<Vec<_>>(),
        );
        return Some(Missing {
            scope: scope.join(" "),
            description: format!(
                "tool `{tool}` needs scope {}",
                lacking
                    .iter()
                    .map(|s| s.as_str())
                    .collect::<Vec<_>>()
                    .join(" ")
            ),
        });
    }
    None
}

/// A 401 whose challenge names the scope the server wants to start with.
fn unauthorized(
    oauth: &AuthServer,
    context: &Context,
    error: Option<&'static str>,
    description: &str,
) -> Response {
    let scope = oauth.spec.challenge_scope.clone();
    challenge(
        oauth,
        context,
        StatusCode::UNAUTHORIZED,
        error,
        scope,
        description,
    )
}

/// A 401/403 with `WWW-Authenticate: Bearer …` (RFC 6750 section 3; no `error` when no
/// token was sent) and the same error as JSON.
fn challenge(
    oauth: &AuthServer,
    context: &Context,
    status: StatusCode,
    error: Option<&'static str>,
    scope: Option<String>,
    description: &str,
) -> Response {
    let mut params: Vec<String> = Vec::new();
    if let Some(error) = error {
        params.push(format!(r#"error="{error}""#));
        params.push(format!(r#"error_description="{}""#, quoted(description)));
    }
    if oauth.spec.resource_metadata_in_challenge
        && let Some(path) = oauth.resource_metadata_path(&context.mount)
    {
        params.push(format!(r#"resource_metadata="{}""#, context.url(&path)));
    }
    if let Some(scope) = scope.filter(|s| !s.is_empty()) {
        params.push(format!(r#"scope="{}""#, quoted(&scope)));
    }
    if params.is_empty() {
        params.push(r#"realm="mcp-decoy""#.into());
    }
    let header_value = format!("Bearer {}", params.join(", "));
    let mut response = respond(status, header_value, error, description);
    if oauth.spec.dpop && status == StatusCode::UNAUTHORIZED {
        // RFC 9449 section 7.1: both schemes may be offered, each its own challenge.
        let mut dpop = vec![r#"algs="ES256""#.to_string()];
        if let Some(path) = oauth.resource_metadata_path(&context.mount) {
            dpop.push(format!(r#"resource_metadata="{}""#, context.url(&path)));
        }
        if let Ok(value) = HeaderValue::from_str(&format!("DPoP {}", dpop.join(", "))) {
            response
                .headers_mut()
                .append(header::WWW_AUTHENTICATE, value);
        }
    }
    response
}

fn respond(
    status: StatusCode,
    challenge: String,
    error: Option<&str>,
    description: &str,
) -> Response {
    // A JSON-RPC error without id, like the API-key guard's, so a client reading the body
    // as JSON-RPC still understands it; the OAuth error code is in `data` and the header.
    // A request without credentials gets no error code (RFC 6750 section 3.1), only why.
    let data = match error {
        Some(error) => json!({ "error": error }),
        None => json!({ "reason": "missing" }),
    };
    let rpc = RpcError::new(
        code::INVALID_REQUEST,
        format!("Unauthorized: {description}"),
    )
    .with_data(data);
    let mut response = (status, axum::Json(jsonrpc::error(&Value::Null, &rpc))).into_response();
    if let Ok(value) = HeaderValue::from_str(&challenge) {
        response
            .headers_mut()
            .insert(header::WWW_AUTHENTICATE, value);
    }
    response
}

/// Text safe inside a quoted-string: no `"`, `\` or control characters.
fn quoted(text: &str) -> String {
    text.chars()
        .map(|c| match c {
            '"' => '\'',
            '\\' => '/',
            c if c.is_control() => ' ',
            c => c,
        })
        .collect()
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn bearer_tokens_are_read_strictly() {
        let read = |v: &'static str| {
            let mut headers = HeaderMap::new();
            headers.insert(header::AUTHORIZATION, HeaderValue::from_static(v));
            match bearer(&headers) {
                Bearer::Token(t, _) => Some(t),
                _ => None,
            }
        };
        assert_eq!(read("Bearer abc").as_deref(), Some("abc"));
        assert_eq!(read("bearer abc").as_deref(), Some("abc"));
        assert_eq!(read("Basic abc"), None);
        assert_eq!(read("Bearer a b"), None);
        assert!(matches!(bearer(&HeaderMap::new()), Bearer::Missing));
    }

    #[test]
    fn challenge_texts_cannot_break_the_quoted_string() {
        assert_eq!(quoted("a \"b\" \\ c\n"), "a 'b' / c ");
    }
}
