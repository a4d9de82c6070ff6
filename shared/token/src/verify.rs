//! Verifying a token against a key set: a `kid` of the set required, the algorithm the
//! set publishes for that key pinned (the header must name it), no `crit` header, the
//! signature, then `iss` and `aud`, `exp`, and `nbf` and `iat` when they lie ahead of
//! the verifier's clock.

use base64::Engine;
use base64::engine::general_purpose::URL_SAFE_NO_PAD;
use jsonwebtoken::errors::ErrorKind;
use jsonwebtoken::jwk::{AlgorithmParameters, EllipticCurve, Jwk, JwkSet, PublicKeyUse};
use jsonwebtoken::{DecodingKey, Validation};
use serde::Deserialize;

use crate::{CLOCK_SKEW_SECONDS, MAX_TOKEN_BYTES, Principal, SigningAlgorithm, TokenError};

/// One published key: its id, the algorithm it carries and the checks made with it.
#[derive(Clone)]
struct Key {
    kid: String,
    algorithm: SigningAlgorithm,
    key: DecodingKey,
    validation: Validation,
}

/// A key set with the issuer and audience a token must name.
#[derive(Clone)]
pub struct Verifier {
    keys: Vec<Key>,
    issuer: String,
    audience: String,
}

impl std::fmt::Debug for Verifier {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        let kids: Vec<&str> = self.keys.iter().map(|k| k.kid.as_str()).collect();
        f.debug_struct("Verifier")
            .field("kids", &kids)
            .field("issuer", &self.issuer)
            .field("audience", &self.audience)
            .finish()
    }
}

/// The header members read before the signature is checked (to pick the key and to
/// name an algorithm that is refused).
#[derive(Deserialize)]
struct Header {
    alg: String,
    #[serde(default)]
    kid: Option<String>,
    /// RFC 7515 4.1.11: extensions the verifier must understand; the registry issues
    /// none and understands none, so any `crit` is refused.
    #[serde(default)]
    crit: Option<serde::de::IgnoredAny>,
}

/// The algorithm a published key carries: its `alg` when that is the one its type and
/// curve sign with, else the one they imply when it has no `alg` (RSA: RS256, P-256:
/// ES256, Ed25519: EdDSA); `None` for any other key (encryption keys, other curves,
/// an `alg` its type cannot sign with), which verifies nothing.
fn algorithm_of(jwk: &Jwk) -> Option<SigningAlgorithm> {
    let implied = match &jwk.algorithm {
        AlgorithmParameters::RSA(_) => SigningAlgorithm::RS256,
        AlgorithmParameters::EllipticCurve(p) if p.curve == EllipticCurve::P256 => {
            SigningAlgorithm::ES256
        }
        AlgorithmParameters::OctetKeyPair(p) if p.curve == EllipticCurve::Ed25519 => {
            SigningAlgorithm::EdDSA
        }
        _ => return None,
    };
    let signs = matches!(jwk.common.public_key_use, None | Some(PublicKeyUse::Signature));
    let named = jwk.common.key_algorithm.is_none_or(|alg| alg == implied.jwk());
    (signs && named).then_some(implied)
}

impl Verifier {
    /// A verifier of tokens signed by a key of `jwks` (its signing keys with a `kid`:
    /// RSA for RS256, P-256 for ES256, Ed25519 for EdDSA, each checked with that
    /// algorithm only), issued by `issuer` for `audience`.
    pub fn new(
        jwks: &JwkSet,
        issuer: impl Into<String>,
        audience: impl Into<String>,
    ) -> Result<Self, TokenError> {
        let issuer = issuer.into();
        let audience = audience.into();
        let mut keys = Vec::new();
        for jwk in &jwks.keys {
            let Some(algorithm) = algorithm_of(jwk) else { continue };
            let Some(kid) = jwk.common.key_id.as_ref() else { continue };
            let key = DecodingKey::from_jwk(jwk)
                .map_err(|e| TokenError::KeySet(format!("key `{kid}`: {e}")))?;
            let mut validation = Validation::new(algorithm.jwt());
            // `exp` is checked against the caller's clock (guards test expiry with theirs)
            validation.validate_exp = false;
            validation.leeway = 0;
            validation.set_required_spec_claims(&["exp", "iss", "aud"]);
            validation.set_issuer(&[&issuer]);
            validation.set_audience(&[&audience]);
            keys.push(Key { kid: kid.clone(), algorithm, key, validation });
        }
        if keys.is_empty() {
            return Err(TokenError::KeySet(
                "no RSA, P-256 or Ed25519 signing key with a `kid`".into(),
            ));
        }
        Ok(Self { keys, issuer, audience })
    }

    /// A verifier of the JWKS document `text` (as `GET /.well-known/jwks.json` answers).
    pub fn from_jwks_json(
        text: &str,
        issuer: impl Into<String>,
        audience: impl Into<String>,
    ) -> Result<Self, TokenError> {
        let jwks: JwkSet = serde_json::from_str(text)
            .map_err(|e| TokenError::KeySet(format!("not a JWKS document: {e}")))?;
        Self::new(&jwks, issuer, audience)
    }

    /// Whether the set has the key `kid`.
    pub fn knows(&self, kid: &str) -> bool {
        self.keys.iter().any(|k| k.kid == kid)
    }

    /// The algorithm the set publishes for `kid`, when it has that key.
    pub fn algorithm_of(&self, kid: &str) -> Option<SigningAlgorithm> {
        self.keys.iter().find(|k| k.kid == kid).map(|k| k.algorithm)
    }

    /// The issuer expected.
    pub fn issuer(&self) -> &str {
        &self.issuer
    }

    /// The key id `token`'s header names, read without verifying anything; `Err` for a
    /// token that is refused before its key is looked for (too large, not a JWS, an
    /// algorithm no key can carry, a `crit` header, no `kid`).
    pub fn key_id(token: &str) -> Result<String, TokenError> {
        Self::header_of(token).map(|(_, kid)| kid)
    }

    /// The algorithm and the key id `token`'s header names, as [`Verifier::key_id`].
    fn header_of(token: &str) -> Result<(SigningAlgorithm, String), TokenError> {
        if token.len() > MAX_TOKEN_BYTES {
            return Err(TokenError::TooLarge(token.len()));
        }
        let mut parts = token.split('.');
        let (Some(header), Some(_), Some(_), None) =
            (parts.next(), parts.next(), parts.next(), parts.next())
        else {
            return Err(TokenError::Malformed("not three dot-separated parts"));
        };
        let header = URL_SAFE_NO_PAD
            .decode(header)
            .map_err(|_| TokenError::Malformed("the header is not base64url"))?;
        let header: Header = serde_json::from_slice(&header)
            .map_err(|_| TokenError::Malformed("the header is not a JWS header"))?;
        let Some(algorithm) = SigningAlgorithm::of_name(&header.alg) else {
            return Err(TokenError::AlgorithmNotAllowed(header.alg.chars().take(32).collect()));
        };
        if header.crit.is_some() {
            return Err(TokenError::CriticalHeader);
        }
        Ok((algorithm, header.kid.ok_or(TokenError::MissingKeyId)?))
    }

    /// Verifies `token` at `now` (Unix seconds): the header's `kid` must be a key of the
    /// set and its algorithm the one the set publishes for that key (a token whose header
    /// names another is refused, whatever it names), with no `crit` header; then the
    /// signature with that key and algorithm, then
    /// `iss` and `aud`, then `exp` (a token is valid while `now < exp`), then `nbf` and
    /// `iat`: neither may lie more than [`CLOCK_SKEW_SECONDS`] after `now`. Only then
    /// are the claims read.
    pub fn verify(&self, token: &str, now: i64) -> Result<Principal, TokenError> {
        let (algorithm, kid) = Self::header_of(token)?;
        let Some(key) = self.keys.iter().find(|k| k.kid == kid) else {
            return Err(TokenError::UnknownKey(kid.chars().take(64).collect()));
        };
        if algorithm != key.algorithm {
            return Err(TokenError::AlgorithmNotAllowed(algorithm.as_str().into()));
        }
        let data = jsonwebtoken::decode::<Principal>(token, &key.key, &key.validation).map_err(
            |e| match e.into_kind() {
                ErrorKind::InvalidSignature => TokenError::BadSignature,
                ErrorKind::InvalidAudience => TokenError::WrongAudience(self.audience.clone()),
                ErrorKind::InvalidIssuer => TokenError::WrongIssuer(self.issuer.clone()),
                ErrorKind::InvalidAlgorithm | ErrorKind::InvalidAlgorithmName => {
                    TokenError::AlgorithmNotAllowed(algorithm.as_str().into())
                }
                ErrorKind::MissingRequiredClaim(claim) => {
                    TokenError::InvalidClaims(format!("no `{claim}`"))
                }
                ErrorKind::Json(e) => TokenError::InvalidClaims(e.to_string()),
                ErrorKind::Base64(_) => TokenError::Malformed("a part is not base64url"),
                ErrorKind::Utf8(_) => TokenError::Malformed("a part is not UTF-8"),
                _ => TokenError::Malformed("not a compact JWS"),
            },
        )?;
        let principal = data.claims;
        if now >= principal.exp {
            return Err(TokenError::Expired(principal.exp));
        }
        let ahead = now.saturating_add(CLOCK_SKEW_SECONDS);
        if let Some(nbf) = principal.nbf.filter(|nbf| *nbf > ahead) {
            return Err(TokenError::NotYetValid(nbf));
        }
        if principal.iat > ahead {
            return Err(TokenError::IssuedInFuture(principal.iat));
        }
        Ok(principal)
    }
}
