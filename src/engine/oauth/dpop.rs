//! DPoP (RFC 9449, SEP-1932): proofs of possession a client signs per request with a key
//! of its own, which bind its access token to that key. The token endpoint checks the proof
//! of a token request and binds the token it issues (`token_type` `DPoP`, the key's RFC 7638
//! thumbprint); the resource takes a bound token only with a fresh proof by the same key for
//! that request (`Authorization: DPoP`, `ath`). With nonces on, both ask for the server's
//! nonce first (`use_dpop_nonce`, sections 8 and 9). Feature `oauth-jwt`.

use std::time::SystemTime;

use axum::http::HeaderMap;
use base64::Engine as _;
use base64::engine::general_purpose::URL_SAFE_NO_PAD;
use serde_json::Value;
use sha2::{Digest, Sha256};

use super::issuer::Context;
use super::jwt::{Jwt, PublicKey};
use super::{AuthServer, OAuthError};

/// The proof's JWS `typ` (RFC 9449 section 4.2).
const TYP: &str = "dpop+jwt";
/// How far a proof's `iat` may be from the server's clock, in seconds.
const IAT_WINDOW_SECS: i64 = 300;

/// A proof that verified: the key's thumbprint, its `jti`, and the nonce it carried.
#[derive(Debug)]
pub(super) struct Proof {
    pub(super) jkt: String,
    pub(super) jti: String,
    pub(super) nonce: Option<String>,
}

/// What a request must match: its method and URL, and the access token it carries, if any.
pub(super) struct Expected<'a> {
    pub(super) method: &'a str,
    pub(super) url: &'a str,
    pub(super) access_token: Option<&'a str>,
}

/// The request's `DPoP` proof checked against what it must match (RFC 9449 section 4.3);
/// `Ok(None)` when it carries none.
pub(super) fn check(
    headers: &HeaderMap,
    expected: &Expected<'_>,
    now: SystemTime,
) -> Result<Option<Proof>, String> {
    let mut values = headers.get_all("dpop").iter();
    let Some(value) = values.next() else {
        return Ok(None);
    };
    if values.next().is_some() {
        return Err("more than one DPoP header (RFC 9449 section 4.3)".into());
    }
    let text = value
        .to_str()
        .map_err(|_| "the DPoP header is not text".to_string())?;
    let jwt =
        Jwt::decode(text.trim()).map_err(|why| format!("the DPoP proof is not a JWT: {why}"))?;
    let header = |name: &str| jwt.header.get(name);
    if header("typ").and_then(Value::as_str) != Some(TYP) {
        return Err(format!("the DPoP proof's `typ` must be `{TYP}`"));
    }
    let jwk = header("jwk")
        .ok_or("the DPoP proof has no `jwk` header: the public key it is signed with")?;
    let key = PublicKey::from_jwk(jwk).map_err(|why| format!("the DPoP proof's `jwk`: {why}"))?;
    jwt.verify(&key)
        .map_err(|why| format!("the DPoP proof does not verify: {why}"))?;
    let jti = jwt
        .claim("jti")
        .filter(|j| !j.is_empty())
        .ok_or("the DPoP proof has no `jti`")?
        .to_string();
    if jwt.claim("htm") != Some(expected.method) {
        return Err(format!(
            "the DPoP proof's `htm` {:?} is not this request's method `{}`",
            jwt.claim("htm").unwrap_or_default(),
            expected.method
        ));
    }
    let htu = jwt.claim("htu").ok_or("the DPoP proof has no `htu`")?;
    if htu.contains(['?', '#']) {
        return Err(
            "the DPoP proof's `htu` must have no query or fragment (RFC 9449 section 4.2)".into(),
        );
    }
    if normalized(htu) != normalized(expected.url) {
        return Err(format!(
            "the DPoP proof's `htu` `{htu}` is not this request's URL `{}`",
            expected.url
        ));
    }
    let now = now
        .duration_since(SystemTime::UNIX_EPOCH)
        .map_or(0, |d| i64::try_from(d.as_secs()).unwrap_or(i64::MAX));
    match jwt.time("iat") {
        Some(iat) if now.abs_diff(iat) <= IAT_WINDOW_SECS.unsigned_abs() => {}
        Some(_) => {
            return Err(format!(
                "the DPoP proof's `iat` is more than {IAT_WINDOW_SECS} seconds from the server's clock"
            ));
        }
        None => return Err("the DPoP proof has no `iat`".into()),
    }
    if let Some(token) = expected.access_token {
        let ath = URL_SAFE_NO_PAD.encode(Sha256::digest(token.as_bytes()));
        if jwt.claim("ath") != Some(ath.as_str()) {
            return Err(
                "the DPoP proof's `ath` is not the hash of the access token it comes with".into(),
            );
        }
    }
    Ok(Some(Proof {
        jkt: key.thumbprint(),
        jti,
        nonce: jwt.claim("nonce").map(str::to_string),
    }))
}

/// An `htu` as RFC 9449 section 4.3 compares it: scheme and host in lower case, no default
/// port, no trailing slash.
fn normalized(url: &str) -> String {
    match url::Url::parse(url) {
        Ok(parsed) => {
            let port = parsed.port().map(|p| format!(":{p}")).unwrap_or_default();
            format!(
                "{}://{}{port}{}",
                parsed.scheme(),
                parsed.host_str().unwrap_or_default().to_ascii_lowercase(),
                parsed.path().trim_end_matches('/')
            )
        }
        Err(_) => url.to_string(),
    }
}

/// The proof of a token request, when the server speaks DPoP: the key to bind the token to.
/// A bad proof is `invalid_dpop_proof`; without the server's nonce, `use_dpop_nonce`.
pub(super) fn token_request(
    oauth: &AuthServer,
    context: &Context,
    headers: &HeaderMap,
    now: SystemTime,
) -> Result<Option<String>, OAuthError> {
    if !oauth.spec.dpop {
        return Ok(None);
    }
    let url = context.endpoint(oauth, "token");
    let expected = Expected {
        method: "POST",
        url: &url,
        access_token: None,
    };
    let refuse = |why: String| OAuthError::bad("invalid_dpop_proof", why);
    let Some(proof) = check(headers, &expected, now).map_err(refuse)? else {
        return Ok(None);
    };
    if oauth.spec.dpop_nonce && proof.nonce.as_deref() != Some(oauth.dpop_nonce.as_str()) {
        return Err(OAuthError::bad(
            "use_dpop_nonce",
            "this authorization server requires a DPoP nonce: send the proof again with the `DPoP-Nonce` of this answer (RFC 9449 section 8)",
        )
        .with_nonce(oauth.dpop_nonce.clone()));
    }
    take(oauth, &proof, now).map_err(refuse)?;
    Ok(Some(proof.jkt))
}

/// Records the proof's `jti`: a second use is a replay (RFC 9449 section 11.1). Spent ones
/// are kept as long as their `iat` window and the store's bound allow.
pub(super) fn take(oauth: &AuthServer, proof: &Proof, now: SystemTime) -> Result<(), String> {
    let mut state = oauth.lock();
    let window = std::time::Duration::from_secs(2 * IAT_WINDOW_SECS.unsigned_abs());
    state
        .proofs
        .remove_where(|seen| now.duration_since(*seen).is_ok_and(|age| age > window));
    if state.proofs.get(&proof.jti).is_some() {
        return Err(
            "the DPoP proof's `jti` was already used: a proof is good for one request".into(),
        );
    }
    state.proofs.insert(proof.jti.clone(), now);
    Ok(())
}

#[cfg(test)]
mod tests {
    use axum::http::HeaderValue;
    use serde_json::json;

    use super::*;
    use crate::engine::oauth::jwt::SigningKey;

    // Claims come from outside: an `iat` at the ends of the range is refused, not a panic.
    #[test]
    fn an_iat_far_from_now_is_refused() {
        let key = SigningKey::generate();
        let url = "http://127.0.0.1:9/mcp";
        for iat in [i64::MIN, i64::MAX, 0] {
            let proof = key.sign_with_header(
                json!({ "typ": TYP, "alg": "ES256", "jwk": key.public_jwk() }),
                &json!({ "jti": "j", "htm": "POST", "htu": url, "iat": iat }),
            );
            let mut headers = HeaderMap::new();
            headers.insert("dpop", HeaderValue::from_str(&proof).expect("ASCII"));
            let expected = Expected {
                method: "POST",
                url,
                access_token: None,
            };
            let error = check(&headers, &expected, SystemTime::now()).expect_err("far off");
            assert!(error.contains("`iat`"), "{error}");
        }
    }
}
