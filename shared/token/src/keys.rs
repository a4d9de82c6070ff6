//! The registry's signing keys: RSA-2048 (RS256, generated with `rsa`), P-256 (ES256)
//! and Ed25519 (EdDSA) keys (generated with `ring`, the library `jsonwebtoken` signs
//! with), kept as a ring whose first key signs and whose every key is published, tokens
//! issued with `jsonwebtoken`.

use base64::Engine;
use base64::engine::general_purpose::{STANDARD, URL_SAFE_NO_PAD};
use jsonwebtoken::jwk::{
    AlgorithmParameters, CommonParameters, EllipticCurve, EllipticCurveKeyParameters,
    EllipticCurveKeyType, Jwk, JwkSet, OctetKeyPairParameters, OctetKeyPairType, PublicKeyUse,
    RSAKeyParameters, RSAKeyType,
};
use jsonwebtoken::{EncodingKey, Header};
use ring::signature::{
    ECDSA_P256_SHA256_FIXED_SIGNING, EcdsaKeyPair, Ed25519KeyPair, KeyPair as _,
};
use rsa::pkcs1::{DecodeRsaPrivateKey, EncodeRsaPrivateKey};
use rsa::traits::PublicKeyParts;
use serde::{Deserialize, Serialize};
use serde_json::value::RawValue;
use sha2::{Digest, Sha256};

use crate::{Actor, MAX_TOKEN_BYTES, SigningAlgorithm, TokenError, Verifier};

/// Bits of a generated RSA key.
const KEY_BITS: usize = 2048;

/// A public key's members, base64url, as its JWK carries them.
#[derive(Clone)]
enum Public {
    /// RSA: modulus and exponent.
    Rsa { n: String, e: String },
    /// P-256: the point's coordinates.
    P256 { x: String, y: String },
    /// Ed25519: the public key.
    Ed25519 { x: String },
}

/// One private key, named by its `kid` (the RFC 7638 thumbprint of its public key), with
/// the one algorithm it signs with.
#[derive(Clone)]
pub struct SigningKey {
    kid: String,
    algorithm: SigningAlgorithm,
    /// DER of the private key (what the ring's text form keeps): PKCS#1 for RSA, PKCS#8
    /// for P-256 and Ed25519.
    der: Vec<u8>,
    encoding: EncodingKey,
    public: Public,
}

impl std::fmt::Debug for SigningKey {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("SigningKey")
            .field("kid", &self.kid)
            .field("algorithm", &self.algorithm)
            .finish_non_exhaustive()
    }
}

fn not_generated(e: impl std::fmt::Display) -> TokenError {
    TokenError::InvalidKey(format!("key generation failed: {e}"))
}

impl SigningKey {
    /// A new random RSA-2048 key (RS256).
    pub fn generate() -> Result<Self, TokenError> {
        Self::generate_for(SigningAlgorithm::RS256)
    }

    /// A new random key for `algorithm`.
    pub fn generate_for(algorithm: SigningAlgorithm) -> Result<Self, TokenError> {
        let rng = ring::rand::SystemRandom::new();
        match algorithm {
            SigningAlgorithm::RS256 => {
                let mut rng = rsa::rand_core::OsRng;
                let key = rsa::RsaPrivateKey::new(&mut rng, KEY_BITS).map_err(not_generated)?;
                Self::of_rsa(&key)
            }
            SigningAlgorithm::ES256 => {
                let der = EcdsaKeyPair::generate_pkcs8(&ECDSA_P256_SHA256_FIXED_SIGNING, &rng)
                    .map_err(not_generated)?;
                Self::from_der(algorithm, der.as_ref())
            }
            SigningAlgorithm::EdDSA => {
                let der = Ed25519KeyPair::generate_pkcs8(&rng).map_err(not_generated)?;
                Self::from_der(algorithm, der.as_ref())
            }
        }
    }

    /// The RS256 key of a PKCS#1 DER private key.
    pub fn from_pkcs1_der(der: &[u8]) -> Result<Self, TokenError> {
        Self::from_der(SigningAlgorithm::RS256, der)
    }

    /// The `algorithm` key of its DER private key: PKCS#1 for RS256 (at least 2048 bits),
    /// PKCS#8 for ES256 (P-256) and EdDSA (Ed25519, with its public key).
    pub fn from_der(algorithm: SigningAlgorithm, der: &[u8]) -> Result<Self, TokenError> {
        let b64 = |bytes: &[u8]| URL_SAFE_NO_PAD.encode(bytes);
        match algorithm {
            SigningAlgorithm::RS256 => {
                let key = rsa::RsaPrivateKey::from_pkcs1_der(der)
                    .map_err(|_| TokenError::InvalidKey("not a PKCS#1 RSA private key".into()))?;
                if key.size() * 8 < KEY_BITS {
                    return Err(TokenError::InvalidKey(format!("shorter than {KEY_BITS} bits")));
                }
                Self::of_rsa(&key)
            }
            SigningAlgorithm::ES256 => {
                let rng = ring::rand::SystemRandom::new();
                let pair = EcdsaKeyPair::from_pkcs8(&ECDSA_P256_SHA256_FIXED_SIGNING, der, &rng)
                    .map_err(|_| TokenError::InvalidKey("not a PKCS#8 P-256 private key".into()))?;
                // the uncompressed point: 0x04, then x and y of 32 bytes each
                let point = pair.public_key().as_ref();
                let (Some(x), Some(y)) = (point.get(1..33), point.get(33..65)) else {
                    return Err(TokenError::InvalidKey("not a P-256 public point".into()));
                };
                let public = Public::P256 { x: b64(x), y: b64(y) };
                Ok(Self::of(algorithm, der, EncodingKey::from_ec_der(der), public))
            }
            SigningAlgorithm::EdDSA => {
                let pair = Ed25519KeyPair::from_pkcs8(der).map_err(|_| {
                    TokenError::InvalidKey("not a PKCS#8 v2 Ed25519 private key".into())
                })?;
                let public = Public::Ed25519 { x: b64(pair.public_key().as_ref()) };
                Ok(Self::of(algorithm, der, EncodingKey::from_ed_der(der), public))
            }
        }
    }

    fn of_rsa(key: &rsa::RsaPrivateKey) -> Result<Self, TokenError> {
        let der = key
            .to_pkcs1_der()
            .map_err(|_| TokenError::InvalidKey("the key does not encode".into()))?
            .as_bytes()
            .to_vec();
        let n = URL_SAFE_NO_PAD.encode(key.n().to_bytes_be());
        let e = URL_SAFE_NO_PAD.encode(key.e().to_bytes_be());
        let encoding = EncodingKey::from_rsa_der(&der);
        Ok(Self::of(SigningAlgorithm::RS256, &der, encoding, Public::Rsa { n, e }))
    }

    fn of(algorithm: SigningAlgorithm, der: &[u8], encoding: EncodingKey, public: Public) -> Self {
        // RFC 7638: SHA-256 of the required members, lexicographic, no whitespace
        let thumbprint = match &public {
            Public::Rsa { n, e } => format!(r#"{{"e":"{e}","kty":"RSA","n":"{n}"}}"#),
            Public::P256 { x, y } => {
                format!(r#"{{"crv":"P-256","kty":"EC","x":"{x}","y":"{y}"}}"#)
            }
            Public::Ed25519 { x } => format!(r#"{{"crv":"Ed25519","kty":"OKP","x":"{x}"}}"#),
        };
        let kid = URL_SAFE_NO_PAD.encode(Sha256::digest(thumbprint.as_bytes()));
        Self { kid, algorithm, der: der.to_vec(), encoding, public }
    }

    /// The key id.
    pub fn kid(&self) -> &str {
        &self.kid
    }

    /// The algorithm it signs with.
    pub fn algorithm(&self) -> SigningAlgorithm {
        self.algorithm
    }

    /// The public key as a JWK (`kty`, `use sig`, `alg`, `kid`; `n`/`e`, `crv`/`x`/`y`
    /// or `crv`/`x`).
    pub fn public_jwk(&self) -> Jwk {
        let algorithm = match &self.public {
            Public::Rsa { n, e } => AlgorithmParameters::RSA(RSAKeyParameters {
                key_type: RSAKeyType::RSA,
                n: n.clone(),
                e: e.clone(),
            }),
            Public::P256 { x, y } => {
                AlgorithmParameters::EllipticCurve(EllipticCurveKeyParameters {
                    key_type: EllipticCurveKeyType::EC,
                    curve: EllipticCurve::P256,
                    x: x.clone(),
                    y: y.clone(),
                })
            }
            Public::Ed25519 { x } => AlgorithmParameters::OctetKeyPair(OctetKeyPairParameters {
                key_type: OctetKeyPairType::OctetKeyPair,
                curve: EllipticCurve::Ed25519,
                x: x.clone(),
            }),
        };
        Jwk {
            common: CommonParameters {
                public_key_use: Some(PublicKeyUse::Signature),
                key_algorithm: Some(self.algorithm.jwk()),
                key_id: Some(self.kid.clone()),
                ..CommonParameters::default()
            },
            algorithm,
        }
    }
}

/// A key of the ring, with when it was made and when it stopped signing.
#[derive(Debug, Clone)]
pub struct RingKey {
    /// The key.
    pub key: SigningKey,
    /// When it was made (Unix seconds).
    pub created_at: i64,
    /// When a rotation made another key sign (Unix seconds); `None` for the signing key.
    pub retired_at: Option<i64>,
}

/// The ring's text form: one JSON document.
#[derive(Serialize, Deserialize)]
#[serde(rename_all = "camelCase")]
struct RingText {
    keys: Vec<KeyText>,
}

#[derive(Serialize, Deserialize)]
#[serde(rename_all = "camelCase")]
struct KeyText {
    kid: String,
    /// The key's algorithm; absent: RS256 (rings written before keys had one).
    #[serde(default, skip_serializing_if = "is_rs256")]
    algorithm: SigningAlgorithm,
    created_at: i64,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    retired_at: Option<i64>,
    /// Base64 of the DER private key (PKCS#1 for RS256, PKCS#8 for ES256 and EdDSA).
    private_key: String,
}

fn is_rs256(algorithm: &SigningAlgorithm) -> bool {
    *algorithm == SigningAlgorithm::RS256
}

/// What a token is issued for.
#[derive(Debug, Clone, Copy)]
pub struct TokenRequest<'a> {
    /// `iss`: the registry's issuer name (its URL).
    pub issuer: &'a str,
    /// `aud`.
    pub audience: &'a str,
    /// `sub`: the user id of the context, when it has one.
    pub user_id: Option<&'a str>,
    /// `act.sub`: the agent resolved.
    pub agent_id: &'a str,
    /// `sid`: the session.
    pub session_id: &'a str,
    /// `ctx`: the request context's JSON text (checked already).
    pub context_json: &'a str,
    /// `iat` (Unix seconds).
    pub now: i64,
    /// Seconds until `exp`.
    pub ttl_seconds: i64,
}

/// The claims as issued (the context borrowed, not parsed into values).
#[derive(Serialize)]
struct Issued<'a> {
    iss: &'a str,
    #[serde(skip_serializing_if = "Option::is_none")]
    sub: Option<&'a str>,
    act: Actor,
    aud: &'a str,
    sid: &'a str,
    iat: i64,
    exp: i64,
    jti: String,
    ctx: &'a RawValue,
}

/// The registry's keys: the first signs, every one is published (until removed).
#[derive(Debug, Clone)]
pub struct KeyRing {
    keys: Vec<RingKey>,
}

impl KeyRing {
    /// A ring of one new RS256 key made at `now`.
    pub fn generate(now: i64) -> Result<Self, TokenError> {
        Self::generate_for(SigningAlgorithm::RS256, now)
    }

    /// A ring of one new `algorithm` key made at `now`.
    pub fn generate_for(algorithm: SigningAlgorithm, now: i64) -> Result<Self, TokenError> {
        let key = SigningKey::generate_for(algorithm)?;
        Ok(Self { keys: vec![RingKey { key, created_at: now, retired_at: None }] })
    }

    /// A ring of `keys` (the first signs); `Err` when empty.
    pub fn new(keys: Vec<RingKey>) -> Result<Self, TokenError> {
        if keys.is_empty() {
            return Err(TokenError::InvalidKey("a key ring needs a key".into()));
        }
        Ok(Self { keys })
    }

    /// Reads the text form [`KeyRing::to_text`] writes.
    pub fn parse(text: &str) -> Result<Self, TokenError> {
        let ring: RingText = serde_json::from_str(text)
            .map_err(|e| TokenError::InvalidKey(format!("not a key ring document: {e}")))?;
        let keys = ring
            .keys
            .into_iter()
            .map(|k| {
                let der = STANDARD
                    .decode(k.private_key.trim())
                    .map_err(|_| TokenError::InvalidKey(format!("key `{}`: not base64", k.kid)))?;
                let key = SigningKey::from_der(k.algorithm, &der)?;
                if key.kid != k.kid {
                    return Err(TokenError::InvalidKey(format!(
                        "key `{}` is not the thumbprint of its public key",
                        k.kid
                    )));
                }
                Ok(RingKey { key, created_at: k.created_at, retired_at: k.retired_at })
            })
            .collect::<Result<Vec<_>, _>>()?;
        Self::new(keys)
    }

    /// The text form: a JSON document with each key's id, algorithm (when not RS256),
    /// times and private key's DER (base64).
    pub fn to_text(&self) -> String {
        let ring = RingText {
            keys: self
                .keys
                .iter()
                .map(|k| KeyText {
                    kid: k.key.kid.clone(),
                    algorithm: k.key.algorithm,
                    created_at: k.created_at,
                    retired_at: k.retired_at,
                    private_key: STANDARD.encode(&k.key.der),
                })
                .collect(),
        };
        serde_json::to_string_pretty(&ring).unwrap_or_default()
    }

    /// The key that signs.
    pub fn signing(&self) -> &SigningKey {
        &self.keys[0].key
    }

    /// Every key, the signing one first.
    pub fn keys(&self) -> &[RingKey] {
        &self.keys
    }

    /// The public keys, as `GET /.well-known/jwks.json` answers.
    pub fn jwks(&self) -> JwkSet {
        JwkSet { keys: self.keys.iter().map(|k| k.key.public_jwk()).collect() }
    }

    /// A verifier of this ring's tokens issued by `issuer` for `audience`.
    pub fn verifier(&self, issuer: &str, audience: &str) -> Result<Verifier, TokenError> {
        Verifier::new(&self.jwks(), issuer, audience)
    }

    /// This ring with a new RS256 signing key made at `now`: the old signing key stays
    /// (retired at `now`) so its tokens verify until they expire; keys retired more than
    /// `ttl_seconds` ago, whose tokens have all expired, are dropped.
    pub fn rotate(&self, now: i64, ttl_seconds: i64) -> Result<Self, TokenError> {
        self.rotate_to(SigningKey::generate()?, now, ttl_seconds)
    }

    /// [`KeyRing::rotate`] with `key` as the new signing key (made already: a rotation
    /// that lost a race applies the same key to the ring that won it); a key already in
    /// the ring is not added twice.
    pub fn rotate_to(
        &self,
        key: SigningKey,
        now: i64,
        ttl_seconds: i64,
    ) -> Result<Self, TokenError> {
        let kid = key.kid.clone();
        let mut keys = vec![RingKey { key, created_at: now, retired_at: None }];
        for old in self.keys.iter().filter(|k| k.key.kid != kid) {
            let retired_at = old.retired_at.unwrap_or(now);
            if retired_at.saturating_add(ttl_seconds) > now {
                keys.push(RingKey { retired_at: Some(retired_at), ..old.clone() });
            }
        }
        Self::new(keys)
    }

    /// This ring without the retired key `kid` (its tokens are refused from then on);
    /// the signing key cannot be removed.
    pub fn remove(&self, kid: &str) -> Result<Self, TokenError> {
        match self.keys.iter().position(|k| k.key.kid == kid) {
            None => Err(TokenError::NoSuchKey(kid.chars().take(64).collect())),
            Some(0) => Err(TokenError::SigningKeyKept(kid.to_owned())),
            Some(at) => {
                let mut keys = self.keys.clone();
                keys.remove(at);
                Self::new(keys)
            }
        }
    }

    /// A token for `request`, signed by the signing key.
    pub fn issue(&self, request: &TokenRequest<'_>) -> Result<String, TokenError> {
        let ctx: &RawValue = serde_json::from_str(request.context_json)
            .map_err(|_| TokenError::InvalidClaims("the context is not JSON".into()))?;
        let claims = Issued {
            iss: request.issuer,
            sub: request.user_id,
            act: Actor { sub: request.agent_id.to_owned() },
            aud: request.audience,
            sid: request.session_id,
            iat: request.now,
            exp: request.now.saturating_add(request.ttl_seconds),
            jti: uuid::Uuid::now_v7().to_string(),
            ctx,
        };
        let key = self.signing();
        let mut header = Header::new(key.algorithm.jwt());
        header.kid = Some(key.kid.clone());
        let token = jsonwebtoken::encode(&header, &claims, &key.encoding)
            .map_err(|e| TokenError::InvalidKey(format!("signing failed: {e}")))?;
        if token.len() > MAX_TOKEN_BYTES {
            return Err(TokenError::TooLargeToIssue(token.len()));
        }
        Ok(token)
    }
}
