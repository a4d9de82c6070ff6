//! Verifying a token against a key set: `RS256` pinned, a `kid` of the set required, no
//! `crit` header, the signature, then `iss` and `aud`, `exp`, and `nbf` and `iat` when
//! they lie ahead of the verifier's clock.

use base64::Engine;
use base64::engine::general_purpose::URL_SAFE_NO_PAD;
use jsonwebtoken::errors::ErrorKind;
use jsonwebtoken::jwk::{AlgorithmParameters, JwkSet, KeyAlgorithm, PublicKeyUse};
use jsonwebtoken::{Algorithm, DecodingKey, Validation};
use serde::Deserialize;

use crate::{ALGORITHM, CLOCK_SKEW_SECONDS, MAX_TOKEN_BYTES, Principal, TokenError};

/// A key set with the issuer and audience a token must name.
#[derive(Clone)]
pub struct Verifier {
    keys: Vec<(String, DecodingKey)>,
    issuer: String,
    audience: String,
    validation: Validation,
}

impl std::fmt::Debug for Verifier {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        let kids: Vec<&str> = self.keys.iter().map(|(kid, _)| kid.as_str()).collect();
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

impl Verifier {
    /// A verifier of tokens signed by a key of `jwks` (its RSA keys with a `kid`, for
    /// signing, `RS256` or no `alg`), issued by `issuer` for `audience`.
    pub fn new(
        jwks: &JwkSet,
        issuer: impl Into<String>,
        audience: impl Into<String>,
    ) -> Result<Self, TokenError> {
        let mut keys = Vec::new();
        for jwk in &jwks.keys {
            let usable = matches!(jwk.algorithm, AlgorithmParameters::RSA(_))
                && matches!(jwk.common.key_algorithm, None | Some(KeyAlgorithm::RS256))
                && matches!(jwk.common.public_key_use, None | Some(PublicKeyUse::Signature));
            let Some(kid) = jwk.common.key_id.as_ref().filter(|_| usable) else { continue };
            let key = DecodingKey::from_jwk(jwk)
                .map_err(|e| TokenError::KeySet(format!("key `{kid}`: {e}")))?;
            keys.push((kid.clone(), key));
        }
        if keys.is_empty() {
            return Err(TokenError::KeySet("no RSA signing key with a `kid`".into()));
        }
        let issuer = issuer.into();
        let audience = audience.into();
        let mut validation = Validation::new(Algorithm::RS256);
        // `exp` is checked against the caller's clock (guards test expiry with theirs)
        validation.validate_exp = false;
        validation.leeway = 0;
        validation.set_required_spec_claims(&["exp", "iss", "aud"]);
        validation.set_issuer(&[&issuer]);
        validation.set_audience(&[&audience]);
        Ok(Self { keys, issuer, audience, validation })
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
        self.keys.iter().any(|(k, _)| k == kid)
    }

    /// The issuer expected.
    pub fn issuer(&self) -> &str {
        &self.issuer
    }

    /// The key id `token`'s header names, read without verifying anything; `Err` for a
    /// token that is refused before its key is looked for (too large, not a JWS, another
    /// algorithm, a `crit` header, no `kid`).
    pub fn key_id(token: &str) -> Result<String, TokenError> {
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
        if header.alg != ALGORITHM {
            return Err(TokenError::AlgorithmNotAllowed(header.alg.chars().take(32).collect()));
        }
        if header.crit.is_some() {
            return Err(TokenError::CriticalHeader);
        }
        header.kid.ok_or(TokenError::MissingKeyId)
    }

    /// Verifies `token` at `now` (Unix seconds): the header's algorithm must be `RS256`
    /// and its `kid` a key of the set, with no `crit` header; then the signature, then
    /// `iss` and `aud`, then `exp` (a token is valid while `now < exp`), then `nbf` and
    /// `iat`: neither may lie more than [`CLOCK_SKEW_SECONDS`] after `now`. Only then
    /// are the claims read.
    pub fn verify(&self, token: &str, now: i64) -> Result<Principal, TokenError> {
        let kid = Self::key_id(token)?;
        let Some((_, key)) = self.keys.iter().find(|(k, _)| *k == kid) else {
            return Err(TokenError::UnknownKey(kid.chars().take(64).collect()));
        };
        let data =
            jsonwebtoken::decode::<Principal>(token, key, &self.validation).map_err(|e| match e
                .into_kind()
            {
                ErrorKind::InvalidSignature => TokenError::BadSignature,
                ErrorKind::InvalidAudience => TokenError::WrongAudience(self.audience.clone()),
                ErrorKind::InvalidIssuer => TokenError::WrongIssuer(self.issuer.clone()),
                ErrorKind::InvalidAlgorithm | ErrorKind::InvalidAlgorithmName => {
                    TokenError::AlgorithmNotAllowed(ALGORITHM.into())
                }
                ErrorKind::MissingRequiredClaim(claim) => {
                    TokenError::InvalidClaims(format!("no `{claim}`"))
                }
                ErrorKind::Json(e) => TokenError::InvalidClaims(e.to_string()),
                ErrorKind::Base64(_) => TokenError::Malformed("a part is not base64url"),
                ErrorKind::Utf8(_) => TokenError::Malformed("a part is not UTF-8"),
                _ => TokenError::Malformed("not a compact JWS"),
            })?;
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
