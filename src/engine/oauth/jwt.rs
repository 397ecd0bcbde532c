//! Signed JWTs (RFC 7515 compact JWS, ES256 on P-256) for the grants that carry one: client
//! assertions of `private_key_jwt` (RFC 7523 section 2.2) and the keys that sign them.
//! Feature `oauth-jwt` (aws-lc-rs, which rustls already builds for the app and the tests).

use aws_lc_rs::rand::SystemRandom;
use aws_lc_rs::signature::{
    ECDSA_P256_SHA256_FIXED, ECDSA_P256_SHA256_FIXED_SIGNING, EcdsaKeyPair, KeyPair,
    UnparsedPublicKey,
};
use base64::Engine as _;
use base64::engine::general_purpose::{STANDARD, URL_SAFE_NO_PAD};
use serde_json::{Map, Value, json};

/// The one JWS algorithm keys here sign and verify with.
pub(crate) const ALGORITHM: &str = "ES256";

/// Compact JWTs longer than this are refused before decoding (a client assertion is a few
/// hundred bytes).
const MAX_JWT: usize = 16 * 1024;

/// An ES256 key pair (P-256): what a client signs its assertions with, made where the test
/// needs one.
///
/// ```
/// use mcp_decoy::oauth::SigningKey;
///
/// let key = SigningKey::generate();
/// assert!(key.private_key_pem().starts_with("-----BEGIN PRIVATE KEY-----"));
/// assert_eq!(key.public_jwk()["crv"], "P-256");
/// ```
pub struct SigningKey {
    pair: EcdsaKeyPair,
}

impl std::fmt::Debug for SigningKey {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("SigningKey")
            .field("public_jwk", &self.public_jwk())
            .finish_non_exhaustive()
    }
}

impl SigningKey {
    /// A fresh key pair from the OS's random source.
    ///
    /// # Panics
    /// When the OS gives no randomness, as every secret of the server needs.
    pub fn generate() -> SigningKey {
        let pair = EcdsaKeyPair::generate(&ECDSA_P256_SHA256_FIXED_SIGNING)
            .expect("mcp-decoy: the OS's random source failed to make a P-256 key");
        SigningKey { pair }
    }

    /// The key in a PKCS #8 PEM (`-----BEGIN PRIVATE KEY-----`, P-256), as a client reads its
    /// key from a file or the conformance suite's context (`private_key_pem`).
    ///
    /// ```
    /// use mcp_decoy::oauth::SigningKey;
    ///
    /// let key = SigningKey::generate();
    /// let again = SigningKey::from_pkcs8_pem(&key.private_key_pem()).expect("a P-256 key");
    /// assert_eq!(again.public_jwk(), key.public_jwk());
    /// assert!(SigningKey::from_pkcs8_pem("not a key").is_err());
    /// ```
    pub fn from_pkcs8_pem(pem: &str) -> Result<SigningKey, String> {
        let body: String = pem
            .trim()
            .strip_prefix("-----BEGIN PRIVATE KEY-----")
            .and_then(|rest| rest.strip_suffix("-----END PRIVATE KEY-----"))
            .ok_or("not a PKCS #8 PEM: it must be one `-----BEGIN PRIVATE KEY-----` block")?
            .split_whitespace()
            .collect();
        let der = STANDARD
            .decode(body)
            .map_err(|_| "the PEM's body is not base64".to_string())?;
        EcdsaKeyPair::from_pkcs8(&ECDSA_P256_SHA256_FIXED_SIGNING, &der)
            .map(|pair| SigningKey { pair })
            .map_err(|why| format!("not a P-256 private key in PKCS #8: {why}"))
    }

    /// The private key as PKCS #8 PEM (`-----BEGIN PRIVATE KEY-----`), as the conformance
    /// suite hands it to a client (`private_key_pem`).
    pub fn private_key_pem(&self) -> String {
        let der = self
            .pair
            .to_pkcs8v1()
            .expect("mcp-decoy: a generated P-256 key exports as PKCS #8");
        let encoded = STANDARD.encode(der.as_ref());
        let mut pem = String::from("-----BEGIN PRIVATE KEY-----\n");
        for line in encoded.as_bytes().chunks(64) {
            pem.push_str(&String::from_utf8_lossy(line));
            pem.push('\n');
        }
        pem.push_str("-----END PRIVATE KEY-----\n");
        pem
    }

    /// The public key as a JWK (RFC 7517: `kty` `EC`, `crv` `P-256`, `x`, `y`), as a
    /// pre-registered `private_key_jwt` client names it.
    pub fn public_jwk(&self) -> Value {
        let point = self.pair.public_key().as_ref();
        // An uncompressed SEC 1 point: 0x04, then x and y of 32 bytes each.
        let (x, y) = point[1..].split_at(32);
        json!({
            "kty": "EC",
            "crv": "P-256",
            "x": URL_SAFE_NO_PAD.encode(x),
            "y": URL_SAFE_NO_PAD.encode(y),
        })
    }

    /// Its public half, to verify with.
    pub(crate) fn public_key(&self) -> PublicKey {
        PublicKey {
            point: self.pair.public_key().as_ref().to_vec(),
        }
    }

    /// A compact JWT of `claims`, signed ES256, with `alg` (and `typ` when given) in its
    /// header.
    pub fn sign(&self, typ: Option<&str>, claims: &Value) -> String {
        let mut header = json!({ "alg": ALGORITHM });
        if let Some(typ) = typ {
            header["typ"] = json!(typ);
        }
        self.sign_with_header(header, claims)
    }

    /// A DPoP proof (RFC 9449 section 4.2) by this key for one request: `htm` `method`,
    /// `htu` `url` (no query), a fresh `jti`, `iat` now, `ath` when it comes with an
    /// access token, and the server's `nonce` when it asked for one.
    ///
    /// ```
    /// use mcp_decoy::oauth::SigningKey;
    ///
    /// let key = SigningKey::generate();
    /// let proof = key.dpop_proof("POST", "http://127.0.0.1:9/mcp", Some("the-token"), None);
    /// assert_eq!(proof.split('.').count(), 3);
    /// ```
    pub fn dpop_proof(
        &self,
        method: &str,
        url: &str,
        access_token: Option<&str>,
        nonce: Option<&str>,
    ) -> String {
        use sha2::{Digest, Sha256};

        let now = std::time::SystemTime::now()
            .duration_since(std::time::UNIX_EPOCH)
            .map_or(0, |d| d.as_secs());
        let mut jti = [0u8; 16];
        // Uniqueness is all a jti needs; the OS's randomness gives it.
        let _ = getrandom::fill(&mut jti);
        let mut claims = json!({
            "jti": URL_SAFE_NO_PAD.encode(jti), "htm": method, "htu": url, "iat": now,
        });
        if let Some(token) = access_token {
            claims["ath"] = json!(URL_SAFE_NO_PAD.encode(Sha256::digest(token.as_bytes())));
        }
        if let Some(nonce) = nonce {
            claims["nonce"] = json!(nonce);
        }
        let header = json!({ "typ": "dpop+jwt", "alg": ALGORITHM, "jwk": self.public_jwk() });
        self.sign_with_header(header, &claims)
    }

    pub(crate) fn sign_with_header(&self, header: Value, claims: &Value) -> String {
        let input = format!(
            "{}.{}",
            URL_SAFE_NO_PAD.encode(header.to_string()),
            URL_SAFE_NO_PAD.encode(claims.to_string())
        );
        let signature = self
            .pair
            .sign(&SystemRandom::new(), input.as_bytes())
            .expect("mcp-decoy: ES256 signing with a generated key");
        format!("{input}.{}", URL_SAFE_NO_PAD.encode(signature.as_ref()))
    }
}

/// A P-256 public key read from a JWK.
#[derive(Debug, Clone)]
pub(crate) struct PublicKey {
    point: Vec<u8>,
}

impl PublicKey {
    /// Reads `{"kty": "EC", "crv": "P-256", "x": …, "y": …}`; a private member (`d`) or a
    /// point off the curve is refused.
    pub(crate) fn from_jwk(jwk: &Value) -> Result<PublicKey, String> {
        let Some(members) = jwk.as_object() else {
            return Err("the JWK must be an object".into());
        };
        let text = |name: &str| members.get(name).and_then(Value::as_str);
        if text("kty") != Some("EC") || text("crv") != Some("P-256") {
            return Err(
                "the JWK must be a P-256 key (`\"kty\": \"EC\", \"crv\": \"P-256\"`): ES256 is the algorithm supported".into(),
            );
        }
        if members.contains_key("d") {
            return Err("the JWK holds a private key (`d`); give the public key only".into());
        }
        let coordinate = |name: &str| -> Result<Vec<u8>, String> {
            let bytes = text(name)
                .and_then(|v| URL_SAFE_NO_PAD.decode(v).ok())
                .ok_or_else(|| format!("the JWK's `{name}` must be base64url"))?;
            if bytes.len() != 32 {
                return Err(format!("the JWK's `{name}` must be 32 bytes for P-256"));
            }
            Ok(bytes)
        };
        let mut point = vec![0x04];
        point.extend(coordinate("x")?);
        point.extend(coordinate("y")?);
        let key = PublicKey { point };
        // A signature check on a point off the curve fails as a parse error, not a mismatch:
        // tell the two apart once, here.
        if !key.on_curve() {
            return Err("the JWK's `x` and `y` are not a point on P-256".into());
        }
        Ok(key)
    }

    /// The RFC 7638 thumbprint: base64url SHA-256 of the JWK's required members in order.
    pub(crate) fn thumbprint(&self) -> String {
        use sha2::{Digest, Sha256};

        let (x, y) = self.point[1..].split_at(32);
        let canonical = format!(
            r#"{{"crv":"P-256","kty":"EC","x":"{}","y":"{}"}}"#,
            URL_SAFE_NO_PAD.encode(x),
            URL_SAFE_NO_PAD.encode(y)
        );
        URL_SAFE_NO_PAD.encode(Sha256::digest(canonical.as_bytes()))
    }

    fn on_curve(&self) -> bool {
        aws_lc_rs::signature::ParsedPublicKey::new(&ECDSA_P256_SHA256_FIXED, &self.point).is_ok()
    }
}

/// A compact JWT split and decoded, its signature not yet checked.
#[derive(Debug, Clone)]
pub(crate) struct Jwt {
    pub(crate) header: Map<String, Value>,
    pub(crate) claims: Map<String, Value>,
    input: String,
    signature: Vec<u8>,
}

impl Jwt {
    /// Splits `text` into its three parts and decodes the header and claims (JSON objects).
    pub(crate) fn decode(text: &str) -> Result<Jwt, String> {
        if text.len() > MAX_JWT {
            return Err(format!("the JWT is longer than {MAX_JWT} bytes"));
        }
        let parts: Vec<&str> = text.split('.').collect();
        let [header, claims, signature] = parts[..] else {
            return Err("not a compact JWS: it must be three base64url parts joined by `.`".into());
        };
        let object = |part: &str, what: &str| -> Result<Map<String, Value>, String> {
            let bytes = URL_SAFE_NO_PAD
                .decode(part)
                .map_err(|_| format!("the JWT's {what} is not base64url"))?;
            match serde_json::from_slice(&bytes) {
                Ok(Value::Object(map)) => Ok(map),
                _ => Err(format!("the JWT's {what} is not a JSON object")),
            }
        };
        Ok(Jwt {
            header: object(header, "header")?,
            claims: object(claims, "claims")?,
            input: format!("{header}.{claims}"),
            signature: URL_SAFE_NO_PAD
                .decode(signature)
                .map_err(|_| "the JWT's signature is not base64url".to_string())?,
        })
    }

    /// A string claim.
    pub(crate) fn claim(&self, name: &str) -> Option<&str> {
        self.claims.get(name).and_then(Value::as_str)
    }

    /// Whether `alg` is ES256 and the signature verifies with `key`.
    pub(crate) fn verify(&self, key: &PublicKey) -> Result<(), String> {
        match self.header.get("alg").and_then(Value::as_str) {
            Some(ALGORITHM) => {}
            Some(other) => {
                return Err(format!(
                    "the JWT is signed with `{other}`; the registered key verifies {ALGORITHM} only"
                ));
            }
            None => return Err("the JWT's header has no `alg`".into()),
        }
        UnparsedPublicKey::new(&ECDSA_P256_SHA256_FIXED, &key.point)
            .verify(self.input.as_bytes(), &self.signature)
            .map_err(|_| "the JWT's signature does not verify with the client's key".to_string())
    }

    /// The audience: `aud` as a string or an array of strings.
    pub(crate) fn audience(&self) -> Vec<&str> {
        match self.claims.get("aud") {
            Some(Value::String(aud)) => vec![aud],
            Some(Value::Array(auds)) => auds.iter().filter_map(Value::as_str).collect(),
            _ => Vec::new(),
        }
    }

    /// A NumericDate claim (`exp`, `iat`, `nbf`), in whole seconds.
    pub(crate) fn time(&self, name: &str) -> Option<i64> {
        let value = self.claims.get(name)?;
        value
            .as_i64()
            .or_else(|| value.as_f64().filter(|f| f.is_finite()).map(|f| f as i64))
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_signed_jwt_verifies_with_its_public_key_only() {
        let key = SigningKey::generate();
        let token = key.sign(Some("JWT"), &json!({ "iss": "me", "aud": ["a", "b"] }));
        let jwt = Jwt::decode(&token).expect("decodes");
        assert_eq!(jwt.claim("iss"), Some("me"));
        assert_eq!(jwt.audience(), ["a", "b"]);
        let public = PublicKey::from_jwk(&key.public_jwk()).expect("a valid JWK");
        jwt.verify(&public).expect("verifies");
        let other = PublicKey::from_jwk(&SigningKey::generate().public_jwk()).expect("valid");
        assert!(jwt.verify(&other).is_err());
        let tampered = format!("{}x", &token[..token.len() - 1]);
        let tampered = Jwt::decode(&tampered).map(|j| j.verify(&public));
        assert!(!matches!(tampered, Ok(Ok(()))));
    }

    #[test]
    fn the_thumbprint_is_rfc_7638s() {
        // A key and its thumbprint as jose (`calculateJwkThumbprint`) computes them.
        let jwk = json!({
            "kty": "EC", "crv": "P-256",
            "x": "K1s9UdW_2nYbep6fhLGLLdFjsqndtetGaSri1c-xveY",
            "y": "OQu-x0set-R3Nhj_m87SfBZ3_S8NtuD5GEHBDvHwmjI",
        });
        let key = PublicKey::from_jwk(&jwk).expect("a valid JWK");
        assert_eq!(
            key.thumbprint(),
            "fPq3oUis5EAt1nhH4dQtJEuF5vJzYUt6HQ3ppTcYT0U"
        );
    }

    #[test]
    fn bad_jwks_name_what_is_wrong() {
        let mut jwk = SigningKey::generate().public_jwk();
        jwk["x"] = json!(URL_SAFE_NO_PAD.encode([1u8; 32]));
        let error = PublicKey::from_jwk(&jwk).expect_err("off the curve");
        assert!(error.contains("not a point on P-256"), "{error}");
        let error = PublicKey::from_jwk(&json!({ "kty": "RSA" })).expect_err("RSA");
        assert!(error.contains("P-256"), "{error}");
        let mut private = SigningKey::generate().public_jwk();
        private["d"] = json!("x");
        assert!(PublicKey::from_jwk(&private).is_err());
    }
}
