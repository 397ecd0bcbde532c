//! `GET /servers/{server}/logs/export.har?secrets=`: the server's `http` exchanges as a HAR 1.2
//! document (one `entries` item per exchange, oldest first), for browsers' network panels and
//! HAR viewers.
//!
//! - An entry has the request's method, URL (`Host` and `X-Forwarded-Proto` as the client
//!   sent them), headers, query and body as text, and the response's status, headers and
//!   body as text. A record kept truncated says `_truncated: true`; `_id` is the record id.
//! - Timings come from the record: `wait` is its `durationMs` (request to response head).
//!   An event stream has no body in the log (its messages are `mcp` records): its content is
//!   empty with a `comment`, and the `stream_end` record that closed it is folded into its
//!   entry as `receive` (the stream's life after the head), so the entries count exchanges.
//! - Secrets are masked as the UI's Copy as curl masks them, unless `secrets=true`: the values
//!   of `Authorization`, `Proxy-Authorization` (both keep their scheme), `Cookie`,
//!   `Set-Cookie`, `X-API-Key` and `Api-Key`, and the OAuth fields ([`SECRET_FIELDS`]) of
//!   the query and of form bodies. JSON bodies are not masked (a tool's `token` argument is
//!   the user's test data), and what the log itself masks (the credentials of
//!   `Authorization`, cookies and API-key headers, OAuth bodies) was never kept, so
//!   `secrets=true` cannot bring it back.
//!
//! Memory: one pass collects the stream ends' lifetimes (two numbers per stream), a second
//! serializes the entries a chunk of records at a time as the client reads, like the JSONL
//! export; neither holds a second copy of the log.

use std::collections::HashMap;
use std::convert::Infallible;
use std::sync::Arc;

use axum::body::Body;
use axum::extract::{Path, State};
use axum::http::{HeaderValue, StatusCode, header};
use axum::response::{IntoResponse, Response};
use bytes::Bytes;
use chrono::SecondsFormat;
use serde_json::{Value, json};

use super::query::{CHUNK, Params, param, params};
use super::{EXPORT_CHUNK, source_of};
use crate::cli::App;
use crate::cli::api::ApiError;
use crate::log::{CREDENTIAL_HEADERS, Entry, Headers, HttpExchange, HttpKind, Record, TrafficLog};

/// What a masked value reads as (the UI's Copy as curl writes the same).
pub(super) const MASK: &str = "********";

/// Query and form fields whose values are secrets (OAuth's token and revocation requests).
pub(super) const SECRET_FIELDS: [&str; 8] = [
    "client_secret",
    "code",
    "code_verifier",
    "refresh_token",
    "access_token",
    "password",
    "client_assertion",
    "token",
];

/// The schema the OpenAPI document gives the HAR answer.
pub(super) fn schema() -> Value {
    json!({ "type": "object", "required": ["log"],
        "description": "A HAR 1.2 document (http://www.softwareishard.com/blog/har-12-spec/): \
            one entry per `http` exchange of the server, oldest first. An event stream's \
            end is folded into the exchange that opened it (`timings.receive`).",
        "properties": { "log": { "type": "object", "required": ["version", "creator", "entries"],
            "properties": {
                "version": { "const": "1.2" },
                "creator": { "type": "object" },
                "entries": { "type": "array", "items": { "type": "object",
                    "required": ["startedDateTime", "time", "request", "response", "cache", "timings"] } } } } } })
}

/// `GET /servers/{server}/logs/export.har?secrets=`: see the module docs.
pub(super) async fn export_har(
    State(app): State<Arc<App>>,
    Path(server): Path<String>,
    query: Params,
) -> Result<Response, ApiError> {
    let source = source_of(&app, &server)?;
    let params = params(query)?;
    let secrets = match param(&params, "secrets") {
        None | Some("false" | "0") => false,
        Some("true" | "1") => true,
        Some(other) => {
            return Err(ApiError::bad_request(
                "secrets",
                format!("`secrets` must be `true` or `false`, not `{other}`"),
            ));
        }
    };
    let log = app.registry.log.clone();
    // The records kept now, up to the newest, as the JSONL export: traffic that arrives while
    // the client reads does not make the download endless.
    let until = log
        .older_from(source, u64::MAX, 1)
        .first()
        .map_or(0, |r| r.id);
    let scan = log.clone();
    let ends = tokio::task::spawn_blocking(move || stream_ends(&scan, source, until))
        .await
        .map_err(|error| {
            tracing::error!(%error, "scanning the log for the HAR export failed");
            ApiError::new(
                StatusCode::INTERNAL_SERVER_ERROR,
                "exporting the log failed",
            )
        })?;
    let mut writer = Writer {
        log,
        source,
        until,
        after: 0,
        ends,
        secrets,
        entries: 0,
        state: Part::Head,
    };
    let chunks = std::iter::from_fn(move || writer.next_chunk());
    let disposition = HeaderValue::from_str(&format!("attachment; filename=\"{server}.har\""))
        .unwrap_or_else(|_| HeaderValue::from_static("attachment; filename=\"logs.har\""));
    Ok((
        [
            (
                header::CONTENT_TYPE,
                HeaderValue::from_static("application/json"),
            ),
            (header::CONTENT_DISPOSITION, disposition),
        ],
        Body::from_stream(futures::stream::iter(
            chunks.map(|chunk| Ok::<_, Infallible>(Bytes::from(chunk))),
        )),
    )
        .into_response())
}

/// The lifetime of every ended event stream up to `until`, by the id of the exchange that
/// opened it.
fn stream_ends(log: &TrafficLog, source: u64, until: u64) -> HashMap<u64, f64> {
    let mut ends = HashMap::new();
    let mut after = 0;
    while after < until {
        let records = log.newer_from(source, after, CHUNK);
        let Some(last) = records.last() else {
            break;
        };
        after = last.id;
        for record in records.iter().filter(|r| r.id <= until) {
            if let Entry::Http(exchange) = &record.entry {
                if let (HttpKind::StreamEnd, Some(of)) = (exchange.kind, exchange.stream_of) {
                    ends.insert(of, exchange.duration_ms.unwrap_or(0.0));
                }
            }
        }
    }
    ends
}

#[derive(Debug, Clone, Copy, PartialEq, Eq)]
enum Part {
    Head,
    Entries,
    Done,
}

/// The document, written a chunk at a time.
struct Writer {
    log: Arc<TrafficLog>,
    source: u64,
    until: u64,
    after: u64,
    ends: HashMap<u64, f64>,
    secrets: bool,
    entries: usize,
    state: Part,
}

impl Writer {
    fn next_chunk(&mut self) -> Option<Vec<u8>> {
        let mut chunk = Vec::new();
        if self.state == Part::Head {
            let creator = json!({ "name": "mcp-decoy", "version": env!("CARGO_PKG_VERSION") });
            chunk.extend_from_slice(b"{\"log\":{\"version\":\"1.2\",\"creator\":");
            chunk.extend_from_slice(creator.to_string().as_bytes());
            chunk.extend_from_slice(b",\"entries\":[");
            self.state = Part::Entries;
        }
        while self.state == Part::Entries && chunk.len() < EXPORT_CHUNK {
            let records = if self.after < self.until {
                self.log.newer_from(self.source, self.after, CHUNK)
            } else {
                Vec::new()
            };
            let Some(last) = records.last() else {
                chunk.extend_from_slice(b"]}}\n");
                self.state = Part::Done;
                break;
            };
            self.after = last.id;
            for record in records.iter().filter(|r| r.id <= self.until) {
                let Entry::Http(exchange) = &record.entry else {
                    continue;
                };
                if exchange.kind != HttpKind::Exchange {
                    continue;
                }
                let end = self.ends.get(&record.id).copied();
                let item = entry(record, exchange, end, self.secrets);
                if self.entries > 0 {
                    chunk.push(b',');
                }
                match serde_json::to_writer(&mut chunk, &item) {
                    Ok(()) => self.entries += 1,
                    Err(error) => {
                        tracing::error!(%error, id = record.id, "a HAR entry did not serialize")
                    }
                }
            }
        }
        (!chunk.is_empty()).then_some(chunk)
    }
}

/// One HAR entry for the exchange `record`; `end` is the lifetime of the event stream it
/// opened, once that ended.
fn entry(record: &Record, exchange: &HttpExchange, end: Option<f64>, secrets: bool) -> Value {
    let proto = match exchange.request_header("x-forwarded-proto") {
        Some("https") => "https",
        _ => "http",
    };
    let host = exchange.request_header("host").unwrap_or("localhost");
    let query = exchange
        .query
        .as_deref()
        .map(|q| if secrets { q.to_string() } else { mask_form(q) });
    let url = match &query {
        Some(q) => format!("{proto}://{host}{}?{q}", exchange.path),
        None => format!("{proto}://{host}{}", exchange.path),
    };
    let query_string: Vec<Value> = query
        .as_deref()
        .map(|q| {
            form_urlencoded::parse(q.as_bytes())
                .map(|(name, value)| json!({ "name": name, "value": value }))
                .collect()
        })
        .unwrap_or_default();
    let request_type = exchange.request_header("content-type").unwrap_or("");
    let mut request = json!({
        "method": exchange.method,
        "url": url,
        "httpVersion": "HTTP/1.1",
        "cookies": cookies(&exchange.request_headers, "cookie", secrets),
        "headers": headers(&exchange.request_headers, secrets),
        "queryString": query_string,
        "headersSize": -1,
        "bodySize": 0,
    });
    if let Some(body) = &exchange.request_body {
        let mut text = body_text(body);
        if !secrets && request_type.starts_with("application/x-www-form-urlencoded") {
            text = mask_form(&text);
        }
        request["bodySize"] = json!(body_size(exchange, true, &text));
        request["postData"] = json!({ "mimeType": request_type, "text": text });
    }
    let response_type = exchange.response_header("content-type").unwrap_or("");
    let stream = response_type.starts_with("text/event-stream");
    let mut content = json!({ "size": 0, "mimeType": response_type });
    let mut response_size = json!(0);
    if let Some(body) = &exchange.response_body {
        let text = body_text(body);
        let size = body_size(exchange, false, &text);
        content["size"] = json!(size.max(0));
        content["text"] = json!(text);
        response_size = json!(size);
    } else if stream {
        content["comment"] = json!(format!(
            "an event stream: its messages are the mcp log records carried by http #{}",
            record.id
        ));
        response_size = json!(-1);
    }
    let status = exchange.status.unwrap_or(0);
    let status_text = StatusCode::from_u16(status)
        .ok()
        .and_then(|s| s.canonical_reason())
        .unwrap_or("");
    let response = json!({
        "status": status,
        "statusText": status_text,
        "httpVersion": "HTTP/1.1",
        "cookies": cookies(&exchange.response_headers, "set-cookie", secrets),
        "headers": headers(&exchange.response_headers, secrets),
        "content": content,
        "redirectURL": exchange.response_header("location").unwrap_or(""),
        "headersSize": -1,
        "bodySize": response_size,
    });
    let wait = exchange.duration_ms.unwrap_or(0.0);
    let receive = end.map_or(0.0, |total| (total - wait).max(0.0));
    let mut item = json!({
        "startedDateTime": record.at.to_rfc3339_opts(SecondsFormat::Millis, true),
        "time": wait + receive,
        "request": request,
        "response": response,
        "cache": {},
        "timings": { "blocked": -1, "dns": -1, "connect": -1, "ssl": -1,
            "send": 0, "wait": wait, "receive": receive },
        "_id": record.id,
    });
    if exchange.unanswered {
        item["comment"] = json!("no response: the connection closed before the answer");
    } else if exchange.status.is_none() {
        item["comment"] = json!("no response yet: the handler was still running");
    } else if stream && end.is_none() {
        item["comment"] = json!("the event stream was still open");
    }
    if exchange.truncated {
        item["_truncated"] = json!(true);
    }
    item
}

/// A body as text: a text body as it is, JSON as its compact text.
fn body_text(body: &Value) -> String {
    match body {
        Value::String(text) => text.clone(),
        other => other.to_string(),
    }
}

/// The body's size in bytes: its `Content-Length`, else the length of its text (the log
/// keeps JSON parsed, so that is its compact text), or `-1` when the log keeps it cut.
fn body_size(exchange: &HttpExchange, request: bool, text: &str) -> i64 {
    let declared = if request {
        exchange.request_header("content-length")
    } else {
        exchange.response_header("content-length")
    };
    match declared.and_then(|v| v.trim().parse().ok()) {
        Some(length) => length,
        None if exchange.truncated => -1,
        None => i64::try_from(text.len()).unwrap_or(i64::MAX),
    }
}

fn headers(list: &Headers, secrets: bool) -> Vec<Value> {
    list.iter()
        .map(|(name, value)| {
            let value = if secrets {
                value.to_string()
            } else {
                mask_header(name, value)
            };
            json!({ "name": name, "value": value })
        })
        .collect()
}

/// The cookies of the `name` headers (`cookie`: `a=1; b=2`; `set-cookie`: one each).
fn cookies(list: &Headers, name: &str, secrets: bool) -> Vec<Value> {
    let mut out = Vec::new();
    for (_, value) in list.iter().filter(|(n, _)| n.eq_ignore_ascii_case(name)) {
        let pairs: Vec<&str> = if name == "cookie" {
            value.split(';').collect()
        } else {
            value.split(';').take(1).collect()
        };
        for pair in pairs {
            let (cookie, content) = pair.trim().split_once('=').unwrap_or((pair.trim(), ""));
            if cookie.is_empty() {
                continue;
            }
            let content = if secrets { content } else { MASK };
            out.push(json!({ "name": cookie, "value": content }));
        }
    }
    out
}

/// A header's value, masked when it is a secret: `Bearer abc` keeps its scheme, since what
/// kind of credential it was is not the secret.
pub(super) fn mask_header(name: &str, value: &str) -> String {
    let name = name.to_ascii_lowercase();
    if !CREDENTIAL_HEADERS.contains(&name.as_str()) {
        return value.to_string();
    }
    let scheme = matches!(name.as_str(), "authorization" | "proxy-authorization")
        .then(|| value.split_once(' ').map(|(scheme, _)| scheme))
        .flatten()
        .filter(|scheme| !scheme.is_empty());
    match scheme {
        Some(scheme) => format!("{scheme} {MASK}"),
        None => MASK.to_string(),
    }
}

/// `a=1&code=xyz` → `a=1&code=********`; the text is otherwise kept as it was.
pub(super) fn mask_form(text: &str) -> String {
    text.split('&')
        .map(|pair| {
            let Some((raw_name, _)) = pair.split_once('=') else {
                return pair.to_string();
            };
            let name = form_urlencoded::parse(raw_name.as_bytes())
                .next()
                .map(|(n, _)| n.into_owned())
                .unwrap_or_default();
            if SECRET_FIELDS.contains(&name.as_str()) {
                format!("{raw_name}={MASK}")
            } else {
                pair.to_string()
            }
        })
        .collect::<Vec<_>>()
        .join("&")
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn headers_keep_only_the_scheme_of_a_credential_and_nothing_of_a_cookie() {
        assert_eq!(
            mask_header("Authorization", "Bearer abc"),
            "Bearer ********"
        );
        assert_eq!(mask_header("authorization", "opaque"), MASK);
        assert_eq!(mask_header("cookie", "sid=abc; theme=dark"), MASK);
        assert_eq!(mask_header("x-api-key", "k1 k2"), MASK);
        assert_eq!(
            mask_header("content-type", "application/json"),
            "application/json"
        );
    }

    #[test]
    fn forms_keep_names_and_other_values() {
        assert_eq!(
            mask_form("grant_type=authorization_code&code=abc&client_id=c&client_secret=s"),
            "grant_type=authorization_code&code=********&client_id=c&client_secret=********"
        );
        assert_eq!(mask_form("flag&state=s"), "flag&state=s");
    }

    #[test]
    fn an_entry_has_the_exchange_its_timings_and_masked_secrets() {
        let record: Record = serde_json::from_value(json!({
            "id": 7, "at": "2026-01-02T03:04:05.678Z", "layer": "http", "kind": "exchange",
            "method": "POST", "path": "/s/echo/mcp", "query": "code=abc&x=1",
            "requestHeaders": [["host", "localhost:6280"], ["authorization", "Bearer [redacted]"],
                ["cookie", "sid=abc"], ["content-type", "application/json"]],
            "requestBody": { "jsonrpc": "2.0", "id": 1, "method": "ping" },
            "status": 200, "responseHeaders": [["content-type", "text/event-stream"]],
            "durationMs": 2.5
        }))
        .expect("a record");
        let Entry::Http(exchange) = &record.entry else {
            panic!("an http record");
        };

        let masked = entry(&record, exchange, Some(1002.5), false);

        assert_eq!(masked["startedDateTime"], "2026-01-02T03:04:05.678Z");
        assert_eq!(
            masked["request"]["url"],
            "http://localhost:6280/s/echo/mcp?code=********&x=1"
        );
        assert_eq!(masked["request"]["headers"][1]["value"], "Bearer ********");
        assert_eq!(masked["request"]["headers"][2]["value"], MASK);
        assert_eq!(
            masked["request"]["cookies"],
            json!([{ "name": "sid", "value": MASK }])
        );
        assert_eq!(
            masked["request"]["postData"]["text"],
            r#"{"jsonrpc":"2.0","id":1,"method":"ping"}"#
        );
        assert_eq!(masked["response"]["status"], 200);
        assert_eq!(masked["response"]["statusText"], "OK");
        assert_eq!(masked["timings"]["wait"], 2.5);
        assert_eq!(masked["timings"]["receive"], 1000.0);
        assert_eq!(masked["time"], 1002.5);
        let open = entry(&record, exchange, None, true);
        assert_eq!(open["request"]["headers"][2]["value"], "sid=abc");
        assert_eq!(
            open["request"]["queryString"][0],
            json!({ "name": "code", "value": "abc" })
        );
        assert_eq!(open["comment"], "the event stream was still open");
    }
}
