//! Forwards one request to the upstream and its answer back: headers and body unmodified in
//! substance (hop-by-hop headers dropped, and the caller's `Origin`, `Referer` and
//! `Sec-Fetch-*`, which the relay checked and the upstream must not take as its own), event
//! streams passed on chunk by chunk as they arrive. The exchange's `http` record gets the upstream's status and timing, or the cause
//! of its failure (then the client gets `502`).

use std::sync::Arc;
use std::time::{Duration, Instant};

use axum::body::{Body, Bytes};
use axum::extract::{Request, State};
use axum::http::{HeaderMap, HeaderValue, Method, StatusCode, header};
use axum::response::{IntoResponse, Response};
use futures::StreamExt;
use serde_json::{Value, json};
use url::Url;

use super::auth::{Face, Leg, route};
use super::record::Exchange;
use super::tap::Tap;
use super::{MAX_UPSTREAM_BODY, Relay};
use crate::engine::Engine;
use crate::engine::capture::{ExchangeId, millis};
use crate::engine::pipeline::plan::{Setting, rules};
use crate::engine::protocol::jsonrpc::{self, RpcError, code};
use crate::engine::transport::http::body::{Unread, read as read_request_body, unreadable};
use crate::engine::transport::http::checks::origin_rejection;
use crate::engine::transport::http::render::{http_fault, transport_error};
use crate::log::mask;
use crate::log::{Entry, FailureCause, Upstream, UpstreamFailure};
use crate::spec::Fault;

/// Headers that belong to one connection (RFC 9110 section 7.6.1), never forwarded; and
/// `Host`, `Content-Length` and `Accept-Encoding`, which the relay's own client sets (so
/// bodies stay uncompressed and readable in the capture).
const NOT_FORWARDED: [&str; 11] = [
    "connection",
    "keep-alive",
    "proxy-connection",
    "proxy-authenticate",
    "te",
    "trailer",
    "transfer-encoding",
    "upgrade",
    "host",
    "content-length",
    "accept-encoding",
];

/// The MCP endpoint of a relay: POST, GET and DELETE forwarded to the upstream.
pub(crate) async fn mcp(
    State(engine): State<Arc<Engine>>,
    request: Request,
    exchange: Option<ExchangeId>,
) -> Response {
    let Some(relay) = engine.relay.as_ref() else {
        return StatusCode::NOT_FOUND.into_response();
    };
    if let Some(rejection) = origin_rejection(&engine, request.headers().get(http::header::ORIGIN))
    {
        return rejection;
    }
    let (parts, body) = request.into_parts();
    let body = match read_request_body(body, engine.limits.max_body_bytes).await {
        Ok(body) => body,
        Err(Unread::TooLarge) => {
            return transport_error(
                StatusCode::PAYLOAD_TOO_LARGE,
                code::INVALID_REQUEST,
                "the request body is too large",
            );
        }
        Err(Unread::Broken(error)) => return unreadable(&error),
    };
    let mut records = if parts.method == Method::POST {
        Exchange::posted(&engine, exchange, &parts.headers, &body)
    } else {
        Exchange::quiet(&engine, exchange, &parts.headers)
    };
    if let Some(response) = fault(&engine, &mut records, &body).await {
        return response;
    }
    let outgoing = Outgoing {
        method: parts.method,
        url: relay.upstream.clone(),
        headers: parts.headers,
        body,
    };
    send(&engine, relay, exchange, outgoing, Some(records), None).await
}

/// Everything else on a relay: the OAuth legs and discovery documents, the authorize
/// bounce, and 403 for hosts that are not allowed.
pub(crate) async fn other(
    State(engine): State<Arc<Engine>>,
    request: Request,
    exchange: Option<ExchangeId>,
) -> Response {
    let Some(relay) = engine.relay.as_ref() else {
        return StatusCode::NOT_FOUND.into_response();
    };
    if let Some(refused) = engine.guard.host_rejection(&request) {
        return refused;
    }
    // The same rules as the MCP endpoint: a page of another origin drives no leg.
    if let Some(rejection) = origin_rejection(&engine, request.headers().get(header::ORIGIN)) {
        return rejection;
    }
    let (parts, body) = request.into_parts();
    let face = Face::of(relay, &parts.headers);
    let mut url = match route(relay, parts.uri.path(), parts.uri.query()) {
        Leg::Auth(url) => url,
        Leg::Authorize(mut url) => {
            if let Some(query) = url.query().and_then(|q| face.patch_resource(relay, q)) {
                url.set_query(Some(&query));
            }
            return (StatusCode::FOUND, [(header::LOCATION, url.to_string())]).into_response();
        }
        Leg::Forbidden(host) => return forbidden(&host),
        Leg::Mcp | Leg::NotFound => return StatusCode::NOT_FOUND.into_response(),
    };
    if let Some(refused) = oauth_request_rejection(&parts.method, &parts.headers) {
        return refused;
    }
    let mut body = match read_request_body(body, engine.limits.max_body_bytes).await {
        Ok(body) => body,
        Err(Unread::TooLarge) => return StatusCode::PAYLOAD_TOO_LARGE.into_response(),
        Err(Unread::Broken(_)) => return StatusCode::BAD_REQUEST.into_response(),
    };
    if let Some(query) = url.query().and_then(|q| face.patch_resource(relay, q)) {
        url.set_query(Some(&query));
    }
    let form = parts
        .headers
        .get(header::CONTENT_TYPE)
        .and_then(|v| v.to_str().ok())
        .is_some_and(|v| v.starts_with("application/x-www-form-urlencoded"));
    if form
        && let Ok(text) = std::str::from_utf8(&body)
        && let Some(patched) = face.patch_resource(relay, text)
    {
        body = Bytes::from(patched);
    }
    let outgoing = Outgoing {
        method: parts.method,
        url,
        headers: parts.headers,
        body,
    };
    send(&engine, relay, exchange, outgoing, None, Some(face)).await
}

fn forbidden(host: &str) -> Response {
    let description = format!(
        "the relay reaches only the upstream's host, hosts its OAuth discovery handed out, and those in `upstream_auth_hosts`; `{host}` is none of them"
    );
    (
        StatusCode::FORBIDDEN,
        axum::Json(json!({ "error": "access_denied", "error_description": description })),
    )
        .into_response()
}

/// A server-level fault rule that fires for the single request of the exchange: its delay,
/// then its error or status instead of the upstream's answer (`None`: forward).
async fn fault(engine: &Arc<Engine>, records: &mut Exchange, body: &[u8]) -> Option<Response> {
    if engine.spec.faults.is_empty() {
        return None;
    }
    records.single()?;
    let message: Value = serde_json::from_slice(body).ok()?;
    let method = message.get("method")?.as_str()?;
    let params = message.get("params").cloned().unwrap_or(Value::Null);
    let setting = Setting {
        session: false,
        stream: false,
        byte_stream: false,
        modern: false,
    };
    let planned = rules(engine, method, &params, setting);
    if let Some(recorder) = records.single() {
        recorder.faulted(planned.label(), None);
    }
    if let Some(delay) = planned.delay {
        tokio::time::sleep(delay).await;
    }
    match planned.fault? {
        Fault::Error {
            code,
            message,
            data,
        } => {
            let mut error = RpcError::new(code, message);
            error.data = data;
            let id = records.single_id().cloned().unwrap_or(Value::Null);
            let response = jsonrpc::error(&id, &error);
            records.faulted_with(&response);
            Some(axum::Json(response).into_response())
        }
        Fault::Http {
            status,
            body,
            headers,
        } => Some(http_fault(status, body.as_deref(), &headers)),
        _ => None,
    }
}

/// A request on its way to the upstream.
struct Outgoing {
    method: Method,
    url: Url,
    headers: HeaderMap,
    body: Bytes,
}

async fn send(
    engine: &Arc<Engine>,
    relay: &Relay,
    exchange: Option<ExchangeId>,
    outgoing: Outgoing,
    records: Option<Exchange>,
    face: Option<Face>,
) -> Response {
    let face = face.unwrap_or_else(|| Face::of(relay, &outgoing.headers));
    let target = outgoing.url.clone();
    let mut upstream = Upstream {
        url: mask::url(target.as_str()),
        status: None,
        duration_ms: None,
        version: None,
        failure: None,
    };
    let request = relay
        .client
        .request(outgoing.method, target.clone())
        .headers(forwarded(&outgoing.headers))
        .body(outgoing.body);
    let started = Instant::now();
    let answer = match tokio::time::timeout(relay.timeout, request.send()).await {
        Ok(Ok(answer)) => answer,
        Ok(Err(error)) => return failed(engine, exchange, upstream, records, classify(&error)),
        Err(_) => {
            let failure = UpstreamFailure {
                cause: FailureCause::Timeout,
                detail: format!("no response head within {} ms", relay.timeout.as_millis()),
            };
            return failed(engine, exchange, upstream, records, failure);
        }
    };
    upstream.status = Some(answer.status().as_u16());
    upstream.duration_ms = Some(millis(started));
    upstream.version = Some(version_name(answer.version()));
    let status = answer.status();
    let mut headers = HeaderMap::new();
    for (name, value) in answer.headers() {
        if NOT_FORWARDED.contains(&name.as_str()) {
            continue;
        }
        let value = if name == header::WWW_AUTHENTICATE {
            let text = value.to_str().unwrap_or_default();
            HeaderValue::from_str(&face.challenge(relay, text)).unwrap_or_else(|_| value.clone())
        } else {
            value.clone()
        };
        headers.append(name.clone(), value);
    }
    let mut records = records;
    if let Some(records) = records.as_mut() {
        records.answered_with(&headers);
    }
    let stream = headers
        .get(header::CONTENT_TYPE)
        .and_then(|v| v.to_str().ok())
        .is_some_and(|v| v.starts_with("text/event-stream"));
    if stream {
        let Ok(permit) = relay.streams.clone().try_acquire_owned() else {
            return failed(
                engine,
                exchange,
                upstream,
                records,
                UpstreamFailure {
                    cause: FailureCause::Protocol,
                    detail: format!(
                        "more than {} event streams relayed at once",
                        super::MAX_OPEN_STREAMS
                    ),
                },
            );
        };
        note(engine, exchange, upstream);
        let tap = Tap::new(engine.clone(), exchange, records, permit);
        let mut response = Response::new(tap.relay(answer));
        *response.status_mut() = status;
        *response.headers_mut() = headers;
        return response;
    }
    let body = match read_body(answer, relay.timeout).await {
        Ok(body) => body,
        Err(failure) => return failed(engine, exchange, upstream, records, failure),
    };
    note(engine, exchange, upstream);
    let json = headers
        .get(header::CONTENT_TYPE)
        .and_then(|v| v.to_str().ok())
        .is_some_and(|v| v.contains("json"));
    let mut body = body;
    if json
        && records.is_none()
        && status.is_success()
        && let Ok(mut document) = serde_json::from_slice::<Value>(&body)
        && face.metadata(relay, &target, &mut document)
    {
        body = Bytes::from(document.to_string());
    }
    if let Some(mut records) = records {
        if json {
            records.json(&body);
        }
        records.finish();
    }
    let mut response = Response::new(Body::from(body));
    *response.status_mut() = status;
    *response.headers_mut() = headers;
    response
}

/// What an OAuth leg or discovery document is asked with: `GET`, or a `POST` of JSON
/// (registration) or a form (token, revocation). Anything else is refused, not forwarded:
/// the legs reach hosts the relay was told about, never for a request of another kind.
fn oauth_request_rejection(method: &Method, headers: &HeaderMap) -> Option<Response> {
    match *method {
        Method::GET | Method::HEAD => None,
        Method::POST => {
            let kind = headers
                .get(header::CONTENT_TYPE)
                .and_then(|v| v.to_str().ok())
                .unwrap_or_default()
                .to_ascii_lowercase();
            let accepted = ["application/json", "application/x-www-form-urlencoded"];
            if accepted.iter().any(|a| kind.starts_with(a)) {
                return None;
            }
            let shown = if kind.is_empty() {
                "none"
            } else {
                kind.as_str()
            };
            Some(
                (
                    StatusCode::UNSUPPORTED_MEDIA_TYPE,
                    axum::Json(json!({ "error": "invalid_request", "error_description": format!(
                        "a relayed OAuth request carries `application/json` or `application/x-www-form-urlencoded`, not `{shown}`"
                    ) })),
                )
                    .into_response(),
            )
        }
        _ => Some(
            (
                StatusCode::METHOD_NOT_ALLOWED,
                [(header::ALLOW, "GET, HEAD, POST")],
                axum::Json(
                    json!({ "error": "invalid_request", "error_description": format!(
                    "the relay's OAuth legs take GET and POST, not {method}"
                ) }),
                ),
            )
                .into_response(),
        ),
    }
}

/// The client's headers as the upstream gets them: hop-by-hop headers dropped, and what a
/// browser says of the page that sent the request (`Origin`, `Referer`, `Sec-Fetch-*`),
/// which the relay checked itself and must not lend to the upstream.
fn forwarded(headers: &HeaderMap) -> HeaderMap {
    let mut out = HeaderMap::new();
    for (name, value) in headers {
        let name_text = name.as_str();
        if NOT_FORWARDED.contains(&name_text)
            || name == header::ORIGIN
            || name == header::REFERER
            || name_text.starts_with("sec-fetch-")
        {
            continue;
        }
        out.append(name.clone(), value.clone());
    }
    out
}

/// Reads a body that is no event stream, bounded in size and time.
async fn read_body(answer: reqwest::Response, timeout: Duration) -> Result<Bytes, UpstreamFailure> {
    let read = async {
        let mut chunks = answer.bytes_stream();
        let mut body = Vec::new();
        while let Some(chunk) = chunks.next().await {
            let chunk = chunk.map_err(|e| classify(&e))?;
            if body.len() + chunk.len() > MAX_UPSTREAM_BODY {
                return Err(UpstreamFailure {
                    cause: FailureCause::Protocol,
                    detail: format!(
                        "the response body exceeds the relay's limit of {MAX_UPSTREAM_BODY} bytes"
                    ),
                });
            }
            body.extend_from_slice(&chunk);
        }
        Ok(Bytes::from(body))
    };
    match tokio::time::timeout(timeout, read).await {
        Ok(result) => result,
        Err(_) => Err(UpstreamFailure {
            cause: FailureCause::Timeout,
            detail: format!(
                "the response body did not arrive within {} ms",
                timeout.as_millis()
            ),
        }),
    }
}

/// The name the capture gives an HTTP version, spelled out rather than left to `Debug`.
fn version_name(version: reqwest::Version) -> String {
    match version {
        reqwest::Version::HTTP_09 => "HTTP/0.9".into(),
        reqwest::Version::HTTP_10 => "HTTP/1.0".into(),
        reqwest::Version::HTTP_11 => "HTTP/1.1".into(),
        reqwest::Version::HTTP_2 => "HTTP/2.0".into(),
        reqwest::Version::HTTP_3 => "HTTP/3.0".into(),
        other => format!("{other:?}"),
    }
}

/// Writes the upstream leg into the exchange's record.
fn note(engine: &Engine, exchange: Option<ExchangeId>, upstream: Upstream) {
    let Some(ExchangeId(id)) = exchange else {
        return;
    };
    engine.log.update(id, |entry| {
        if let Entry::Http(h) = entry {
            h.upstream = Some(Box::new(upstream));
        }
    });
}

/// `502` naming the cause, which the record keeps too.
fn failed(
    engine: &Engine,
    exchange: Option<ExchangeId>,
    mut upstream: Upstream,
    records: Option<Exchange>,
    failure: UpstreamFailure,
) -> Response {
    let message = format!(
        "the upstream {} gave no answer ({}): {}",
        upstream.url,
        failure.cause.as_str(),
        failure.detail
    );
    upstream.failure = Some(failure);
    note(engine, exchange, upstream);
    if let Some(records) = records {
        records.finish();
    }
    transport_error(StatusCode::BAD_GATEWAY, code::INTERNAL_ERROR, &message)
}

/// Names the cause of a failed upstream request from the HTTP client's error chain.
fn classify(error: &reqwest::Error) -> UpstreamFailure {
    let mut chain = Vec::new();
    let mut refused = false;
    let mut source: Option<&(dyn std::error::Error + 'static)> = Some(error);
    while let Some(current) = source {
        if let Some(io) = current.downcast_ref::<std::io::Error>() {
            refused |= io.kind() == std::io::ErrorKind::ConnectionRefused;
        }
        let text = current.to_string();
        if chain.last() != Some(&text) {
            chain.push(text);
        }
        source = current.source();
    }
    let detail = chain.join(": ");
    let lower = detail.to_ascii_lowercase();
    let cause = if error.is_timeout() {
        FailureCause::Timeout
    } else if refused {
        FailureCause::ConnectRefused
    } else if lower.contains("certificate") || lower.contains("tls") || lower.contains("handshake")
    {
        FailureCause::Tls
    } else if error.is_connect() {
        FailureCause::Connect
    } else {
        FailureCause::Protocol
    };
    UpstreamFailure { cause, detail }
}
