//! Multi round-trip requests (2026-07-28 `basic/patterns/mrtr.mdx`): in the modern era a
//! tool's `ask` steps do not send requests to the client. The call answers
//! `{resultType: "input_required", inputRequests, requestState}` instead, and the client
//! retries the same call with `inputResponses` (the answers, by key) and the `requestState`
//! echoed.
//!
//! Consecutive `ask` steps form one round; a step of another kind between them starts the
//! next. Each retry replays the script from where the previous round stopped, so progress
//! and log steps that already ran are not sent again. The server keeps nothing between
//! rounds: `requestState` carries the step to resume at and the answers so far, signed with
//! HMAC-SHA256 under a key each engine draws at random, bound to the method, the call's
//! params and the tool's script, and valid for [`STATE_TTL`].

use std::time::{Duration, SystemTime, UNIX_EPOCH};

use base64::Engine as _;
use base64::engine::general_purpose::URL_SAFE_NO_PAD;
use hmac::{Hmac, Mac};
use serde::{Deserialize, Serialize};
use serde_json::{Map, Value, json};
use sha2::{Digest, Sha256};

use crate::engine::protocol::jsonrpc::RpcError;
use crate::engine::schema;
use crate::spec::{AskMethod, Step};

/// How long a `requestState` stays valid: long enough for a person to answer a form, short
/// enough to bound replay (`mrtr.mdx`, "a short expiry (TTL)").
pub(crate) const STATE_TTL: Duration = Duration::from_secs(600);

/// Params that are not part of what a `requestState` is bound to: the answers and the state
/// themselves change from round to round, and `_meta` carries per-request metadata.
const UNBOUND_PARAMS: &[&str] = &["inputResponses", "requestState", "_meta"];

type HmacSha256 = Hmac<Sha256>;

/// Signs and checks `requestState` tokens with a key drawn when the engine starts, so a
/// token from another server (or an earlier run) never verifies.
pub(crate) struct Sealer {
    key: [u8; 32],
}

impl std::fmt::Debug for Sealer {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        // The key stays out of debug output and logs.
        f.write_str("Sealer { .. }")
    }
}

impl Sealer {
    /// A sealer with a fresh random key.
    pub(crate) fn new() -> Self {
        Sealer {
            key: crate::engine::random::bytes(),
        }
    }

    fn mac(&self) -> HmacSha256 {
        // HMAC takes keys of any length, so this cannot fail.
        HmacSha256::new_from_slice(&self.key).expect("HMAC-SHA256 accepts a 32-byte key")
    }

    /// `base64url(payload) "." base64url(HMAC(payload))`.
    fn seal(&self, state: &State) -> String {
        let payload = serde_json::to_vec(state).expect("a State serializes to JSON");
        let mut mac = self.mac();
        mac.update(&payload);
        let tag = mac.finalize().into_bytes();
        format!(
            "{}.{}",
            URL_SAFE_NO_PAD.encode(&payload),
            URL_SAFE_NO_PAD.encode(tag)
        )
    }

    /// The state inside `token`, if this sealer signed it and it has not expired at
    /// `now_ms`; the error says which check failed.
    fn open(&self, token: &str, now_ms: u64) -> Result<State, String> {
        const FORGED: &str = "failed its integrity check: this server did not issue it, or it was changed on the way back";
        let (payload, tag) = token.split_once('.').ok_or(FORGED)?;
        let payload = URL_SAFE_NO_PAD.decode(payload).map_err(|_| FORGED)?;
        let tag = URL_SAFE_NO_PAD.decode(tag).map_err(|_| FORGED)?;
        let mut mac = self.mac();
        mac.update(&payload);
        mac.verify_slice(&tag).map_err(|_| FORGED)?;
        let state: State = serde_json::from_slice(&payload).map_err(|_| FORGED)?;
        if state.expires_ms < now_ms {
            return Err(format!(
                "expired {} s ago (a requestState is valid for {} s)",
                (now_ms - state.expires_ms) / 1000,
                STATE_TTL.as_secs()
            ));
        }
        Ok(state)
    }
}

/// What a `requestState` carries. Short field names keep the token small.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
struct State {
    /// SHA-256 over the method, the bound params and the tool's script.
    #[serde(rename = "d")]
    digest: String,
    /// How many `input_required` results this call has had, this one included.
    #[serde(rename = "r")]
    round: u32,
    /// The script step the next round starts at.
    #[serde(rename = "s")]
    resume: usize,
    /// The answers so far, by key.
    #[serde(rename = "a")]
    answers: Map<String, Value>,
    /// Unix milliseconds after which the state is refused.
    #[serde(rename = "e")]
    expires_ms: u64,
    /// Who the request's credentials named (2026-07-28 MRTR, "Server Requirements": state
    /// presented by another principal is refused); `None` on a server without credentials.
    #[serde(rename = "p", default, skip_serializing_if = "Option::is_none")]
    principal: Option<String>,
}

fn now_ms() -> u64 {
    SystemTime::now()
        .duration_since(UNIX_EPOCH)
        .map(|d| u64::try_from(d.as_millis()).unwrap_or(u64::MAX))
        .unwrap_or(0)
}

/// `value` with every object's keys sorted, so the digest does not depend on the order a
/// client serializes the same arguments in.
fn canonical(value: &Value) -> Value {
    match value {
        Value::Object(map) => {
            let mut keys: Vec<&String> = map.keys().collect();
            keys.sort();
            Value::Object(
                keys.into_iter()
                    .map(|k| (k.clone(), canonical(&map[k])))
                    .collect(),
            )
        }
        Value::Array(items) => Value::Array(items.iter().map(canonical).collect()),
        other => other.clone(),
    }
}

/// What a `requestState` is bound to: the method, the params without [`UNBOUND_PARAMS`],
/// and the script (a tool edited between rounds invalidates its states).
fn digest(method: &str, params: &Value, script: &[Step]) -> String {
    let mut bound = params.as_object().cloned().unwrap_or_default();
    for key in UNBOUND_PARAMS {
        bound.remove(*key);
    }
    // `tools/call` reads absent or null arguments as `{}`; so does the binding.
    if bound.get("arguments").is_none_or(Value::is_null) {
        bound.insert("arguments".into(), json!({}));
    }
    let script = serde_json::to_value(script).unwrap_or(Value::Null);
    let text = canonical(&json!([method, bound, script])).to_string();
    let hash = Sha256::digest(text.as_bytes());
    URL_SAFE_NO_PAD.encode(hash)
}

/// The result type a client's answer to `method` must have.
pub(crate) fn answer_type(method: AskMethod) -> &'static str {
    match method {
        AskMethod::Sampling => "CreateMessageResult",
        AskMethod::Elicitation => "ElicitResult",
        AskMethod::Roots => "ListRootsResult",
    }
}

fn invalid_param(field: &str, reason: impl std::fmt::Display) -> RpcError {
    RpcError::invalid_params(format!("`params.{field}` {reason}"))
        .with_data(json!({ "field": field }))
}

/// The MRTR bookkeeping of one modern `tools/call`: which steps already ran in earlier
/// rounds, the answers so far, and the requests of the round being gathered.
#[derive(Debug)]
pub(crate) struct Rounds<'a> {
    sealer: &'a Sealer,
    digest: String,
    principal: Option<String>,
    /// Rounds before this request.
    round: u32,
    /// Steps before this index ran in earlier rounds; they are skipped.
    resume: usize,
    answers: Map<String, Value>,
    /// `params.inputResponses`.
    responses: Map<String, Value>,
    /// Whether the script is still in the round the client answered; answers for later
    /// rounds' keys are not taken (the client cannot have seen those requests).
    answering: bool,
    /// The requests of the round being gathered: step index, key, request.
    pending: Vec<(usize, String, Value)>,
}

impl<'a> Rounds<'a> {
    /// Reads `requestState` and `inputResponses` from `params`; a state that fails its
    /// checks, or fields of the wrong type, are `-32602` naming the field.
    pub(crate) fn start(
        sealer: &'a Sealer,
        principal: Option<&str>,
        method: &str,
        params: &Value,
        script: &[Step],
    ) -> Result<Self, RpcError> {
        let digest = digest(method, params, script);
        let start_over =
            "; send the call again without requestState and inputResponses to start over";
        let (round, resume, answers) = match params.get("requestState") {
            None => (0, 0, Map::new()),
            Some(Value::String(token)) => {
                let state = sealer.open(token, now_ms()).map_err(|reason| {
                    invalid_param("requestState", format!("{reason}{start_over}"))
                })?;
                if state.digest != digest {
                    return Err(invalid_param(
                        "requestState",
                        format!(
                            "was issued for a different request (another tool or other arguments, or the tool changed since){start_over}"
                        ),
                    ));
                }
                if state.principal.as_deref() != principal {
                    return Err(invalid_param(
                        "requestState",
                        format!(
                            "was issued to another principal (other credentials than this request's){start_over}"
                        ),
                    ));
                }
                (state.round, state.resume, state.answers)
            }
            Some(other) => {
                return Err(invalid_param(
                    "requestState",
                    format!(
                        "must be the string from the previous input_required result, got {other}"
                    ),
                ));
            }
        };
        let responses = match params.get("inputResponses") {
            None => Map::new(),
            Some(Value::Object(responses)) => responses.clone(),
            Some(other) => {
                return Err(invalid_param(
                    "inputResponses",
                    format!("must be an object of answers by inputRequests key, got {other}"),
                ));
            }
        };
        Ok(Rounds {
            sealer,
            digest,
            principal: principal.map(str::to_string),
            round,
            resume,
            answers,
            responses,
            answering: true,
            pending: Vec::new(),
        })
    }

    /// The answers carried by `requestState`.
    pub(crate) fn answers(&self) -> &Map<String, Value> {
        &self.answers
    }

    /// Whether step `n` ran in an earlier round.
    pub(crate) fn skips(&self, n: usize) -> bool {
        n < self.resume
    }

    /// Whether requests are waiting to be sent as `input_required`.
    pub(crate) fn has_pending(&self) -> bool {
        !self.pending.is_empty()
    }

    /// Called before a step that is not an `ask`: the round the client answered is over.
    pub(crate) fn leave_round(&mut self) {
        self.answering = false;
    }

    /// The answer to `key`: carried by the state, or sent in `inputResponses` for the round
    /// the client answered. An answer that is not a valid result for `method` is `-32602`
    /// naming it.
    pub(crate) fn answer(
        &mut self,
        key: &str,
        method: AskMethod,
    ) -> Result<Option<Value>, RpcError> {
        if let Some(answer) = self.answers.get(key) {
            return Ok(Some(answer.clone()));
        }
        if !self.answering {
            return Ok(None);
        }
        let Some(answer) = self.responses.get(key) else {
            return Ok(None);
        };
        let problems = schema::definition_problems(answer_type(method), answer);
        if !problems.is_empty() {
            return Err(invalid_param(
                &format!("inputResponses.{key}"),
                format!(
                    "must be a {} (the answer to {}): {}",
                    answer_type(method),
                    method.method(),
                    problems.join("; ")
                ),
            ));
        }
        self.answers.insert(key.to_string(), answer.clone());
        Ok(Some(answer.clone()))
    }

    /// Adds step `n`'s request to the round being gathered.
    pub(crate) fn ask(&mut self, n: usize, key: &str, method: AskMethod, params: Value) {
        if self.pending.iter().any(|(_, k, _)| k == key) {
            // inputRequests keys are unique within a result (mrtr.mdx); the first ask wins.
            return;
        }
        // `roots/list` usually has no params; the request object still gets `{}`.
        let params = if params.is_null() { json!({}) } else { params };
        self.pending.push((
            n,
            key.to_string(),
            json!({ "method": method.method(), "params": params }),
        ));
    }

    /// The `InputRequiredResult` asking for the gathered requests, with a `requestState`
    /// that resumes at the first of them and carries the answers so far.
    pub(crate) fn input_required(&self) -> Value {
        let resume = self.pending.first().map_or(self.resume, |(n, _, _)| *n);
        let state = State {
            digest: self.digest.clone(),
            round: self.round.saturating_add(1),
            resume,
            answers: self.answers.clone(),
            expires_ms: now_ms()
                .saturating_add(u64::try_from(STATE_TTL.as_millis()).unwrap_or(u64::MAX)),
            principal: self.principal.clone(),
        };
        let requests: Map<String, Value> = self
            .pending
            .iter()
            .map(|(_, key, request)| (key.clone(), request.clone()))
            .collect();
        json!({
            "resultType": "input_required",
            "inputRequests": requests,
            "requestState": self.sealer.seal(&state),
        })
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn state() -> State {
        State {
            digest: "d".into(),
            round: 1,
            resume: 0,
            answers: Map::new(),
            expires_ms: 1_000_000,
            principal: None,
        }
    }

    #[test]
    fn a_sealed_state_opens_with_the_same_key_only() {
        let sealer = Sealer::new();
        let token = sealer.seal(&state());
        assert_eq!(sealer.open(&token, 0), Ok(state()));
        let other = Sealer::new();
        assert!(other.open(&token, 0).unwrap_err().contains("integrity"));
    }

    #[test]
    fn a_changed_state_fails_its_integrity_check() {
        let sealer = Sealer::new();
        let token = sealer.seal(&state());
        for tampered in [
            format!("{token}-TAMPERED"),
            token.replacen('e', "f", 1),
            String::new(),
            "no-dot".into(),
        ] {
            let error = sealer.open(&tampered, 0).expect_err("tampered state");
            assert!(error.contains("integrity"), "{tampered}: {error}");
        }
    }

    #[test]
    fn an_expired_state_is_refused_naming_the_ttl() {
        let sealer = Sealer::new();
        let token = sealer.seal(&state());
        let error = sealer.open(&token, 1_000_000 + 5_000).expect_err("expired");
        assert!(error.contains("expired 5 s ago"), "{error}");
        assert!(error.contains("600 s"), "{error}");
    }

    #[test]
    fn the_digest_ignores_key_order_meta_and_the_mrtr_fields() {
        let a = json!({ "name": "t", "arguments": { "x": 1, "y": 2 } });
        let b = json!({
            "arguments": { "y": 2, "x": 1 }, "name": "t",
            "_meta": { "progressToken": 1 }, "requestState": "s", "inputResponses": {}
        });
        assert_eq!(digest("tools/call", &a, &[]), digest("tools/call", &b, &[]));
        let c = json!({ "name": "t", "arguments": { "x": 1, "y": 3 } });
        assert_ne!(digest("tools/call", &a, &[]), digest("tools/call", &c, &[]));
        assert_ne!(
            digest("tools/call", &a, &[]),
            digest("prompts/get", &a, &[])
        );
        let none = json!({ "name": "t" });
        let empty = json!({ "name": "t", "arguments": {} });
        assert_eq!(
            digest("tools/call", &none, &[]),
            digest("tools/call", &empty, &[])
        );
    }
}
