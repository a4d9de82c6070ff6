//! The signature algorithms a key of the registry's ring carries (decision 113): each key
//! signs with one, the key set publishes it as the key's `alg`, and a verifier checks a
//! token with the algorithm of the key its `kid` names, never the one its header asks for.

use serde::{Deserialize, Serialize};

/// A key's signature algorithm. `RS256` is the default: API Gateway's JWT authorizers
/// accept RSA keys only.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash, Default, Serialize, Deserialize)]
pub enum SigningAlgorithm {
    /// RSASSA-PKCS1-v1_5 with SHA-256, an RSA-2048 key (`kty RSA`).
    #[default]
    RS256,
    /// ECDSA on P-256 with SHA-256 (`kty EC`, `crv P-256`).
    ES256,
    /// Ed25519 (`kty OKP`, `crv Ed25519`).
    EdDSA,
}

/// Every algorithm a key can carry, the default first.
pub const ALGORITHMS: [SigningAlgorithm; 3] =
    [SigningAlgorithm::RS256, SigningAlgorithm::ES256, SigningAlgorithm::EdDSA];

/// A name that is none of [`ALGORITHMS`].
#[derive(Debug, Clone, PartialEq, Eq, thiserror::Error)]
#[error("`{0}` is not a signing algorithm of the key ring (RS256, ES256 or EdDSA)")]
pub struct UnknownAlgorithm(pub String);

impl SigningAlgorithm {
    /// The JOSE name (`alg`).
    pub fn as_str(self) -> &'static str {
        match self {
            Self::RS256 => "RS256",
            Self::ES256 => "ES256",
            Self::EdDSA => "EdDSA",
        }
    }

    /// The algorithm of the JOSE name `name`, exactly as spelled.
    pub fn of_name(name: &str) -> Option<Self> {
        ALGORITHMS.into_iter().find(|a| a.as_str() == name)
    }

    /// `jsonwebtoken`'s name for it.
    pub fn jwt(self) -> jsonwebtoken::Algorithm {
        match self {
            Self::RS256 => jsonwebtoken::Algorithm::RS256,
            Self::ES256 => jsonwebtoken::Algorithm::ES256,
            Self::EdDSA => jsonwebtoken::Algorithm::EdDSA,
        }
    }

    /// `jsonwebtoken`'s JWK `alg` for it.
    pub fn jwk(self) -> jsonwebtoken::jwk::KeyAlgorithm {
        match self {
            Self::RS256 => jsonwebtoken::jwk::KeyAlgorithm::RS256,
            Self::ES256 => jsonwebtoken::jwk::KeyAlgorithm::ES256,
            Self::EdDSA => jsonwebtoken::jwk::KeyAlgorithm::EdDSA,
        }
    }
}

impl std::fmt::Display for SigningAlgorithm {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.write_str(self.as_str())
    }
}

impl std::str::FromStr for SigningAlgorithm {
    type Err = UnknownAlgorithm;

    fn from_str(text: &str) -> Result<Self, Self::Err> {
        Self::of_name(text).ok_or_else(|| UnknownAlgorithm(text.chars().take(32).collect()))
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn names_read_back_exactly() {
        for algorithm in ALGORITHMS {
            assert_eq!(algorithm.as_str().parse::<SigningAlgorithm>(), Ok(algorithm));
        }
        assert!("rs256".parse::<SigningAlgorithm>().is_err());
        assert!("HS256".parse::<SigningAlgorithm>().is_err());
        assert_eq!(SigningAlgorithm::default(), SigningAlgorithm::RS256);
    }
}
