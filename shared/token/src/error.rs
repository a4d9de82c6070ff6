//! Why a token is not trusted, or cannot be made.

use crate::MAX_TOKEN_BYTES;

/// Why a token is refused (verifying) or not made (issuing, keys). Each message names
/// the reason, as the decision lines and problems carry it.
#[derive(Debug, Clone, PartialEq, Eq, thiserror::Error)]
pub enum TokenError {
    /// Not a compact JWS, or its parts do not decode (truncated, re-encoded, not JSON).
    #[error("the token is malformed: {0}")]
    Malformed(&'static str),
    /// Longer than any token the registry issues.
    #[error("the token is {0} bytes, at most {MAX_TOKEN_BYTES}")]
    TooLarge(usize),
    /// The header names an algorithm no key carries (`none`, `HS256`, ...), or another
    /// than the one the key set publishes for the header's key.
    #[error(
        "the token's algorithm `{0}` is not accepted (only the algorithm its key carries: RS256, ES256 or EdDSA)"
    )]
    AlgorithmNotAllowed(String),
    /// The header has a `crit` member (RFC 7515 4.1.11): extensions the registry does not
    /// understand, so the token is refused.
    #[error("the token's header has `crit`: no extension is understood")]
    CriticalHeader,
    /// The header names no key.
    #[error("the token names no key (`kid`)")]
    MissingKeyId,
    /// The header names a key the key set does not have.
    #[error("the token's key `{0}` is not in the registry's key set")]
    UnknownKey(String),
    /// The signature does not match: forged, altered, or signed by another key.
    #[error("the token's signature does not match")]
    BadSignature,
    /// Past its `exp`.
    #[error("the token expired at {0}")]
    Expired(i64),
    /// Its `nbf` lies ahead of the verifier's clock by more than the allowed skew.
    #[error("the token is not valid before {0}")]
    NotYetValid(i64),
    /// Its `iat` lies ahead of the verifier's clock by more than the allowed skew.
    #[error("the token is issued in the future, at {0}")]
    IssuedInFuture(i64),
    /// Its `aud` is not the audience this verifier expects.
    #[error("the token's audience is not `{0}`")]
    WrongAudience(String),
    /// Its `iss` is not the issuer this verifier expects.
    #[error("the token's issuer is not `{0}`")]
    WrongIssuer(String),
    /// A claim the registry always sets is missing or of the wrong type.
    #[error("the token's claims are invalid: {0}")]
    InvalidClaims(String),
    /// The key set cannot be used (no signing key with a `kid`, not a JWKS).
    #[error("the key set is unusable: {0}")]
    KeySet(String),
    /// The key set could not be fetched (verifiers with a JWKS URL; fail closed).
    #[error("the key set could not be fetched: {0}")]
    KeySetUnavailable(String),
    /// A signing key is unusable, or a key-ring change is refused.
    #[error("invalid signing key: {0}")]
    InvalidKey(String),
    /// No key of that id in the ring.
    #[error("no key `{0}` in the key ring")]
    NoSuchKey(String),
    /// The signing key cannot be removed (rotate first).
    #[error("key `{0}` signs: rotate first, then remove it")]
    SigningKeyKept(String),
    /// The token would be over [`MAX_TOKEN_BYTES`].
    #[error("the token would be {0} bytes, at most {MAX_TOKEN_BYTES}")]
    TooLargeToIssue(usize),
}

impl TokenError {
    /// Whether the token is refused because it expired (the guard's
    /// `EXPIRED_SIGNED_CONTEXT`, asking the caller to resolve again).
    pub fn is_expired(&self) -> bool {
        matches!(self, Self::Expired(_))
    }

    /// The refusal code of the decision line that refuses a call or a request for this
    /// token: `EXPIRED_SIGNED_CONTEXT` for an expired one, else `INVALID_SIGNED_CONTEXT`
    /// (the message names the reason).
    pub fn refusal_code(&self) -> &'static str {
        if self.is_expired() { "EXPIRED_SIGNED_CONTEXT" } else { "INVALID_SIGNED_CONTEXT" }
    }
}
