//! The claims of a JWT another party issued and a gateway in front of the registry
//! already validated (AgentCore Gateway's inbound authorizer, agentgateway's `jwtAuth`):
//! read, not verified, because the key that signed it is not the registry's. Only a
//! point configured to trust its gateway reads them (docs/gateways.md).

use jsonwebtoken::{DecodingKey, Validation};
use serde_json::{Map, Value};

use crate::{MAX_TOKEN_BYTES, TokenError};

/// The payload of `token` (a compact JWS), its signature not checked; refused when it is
/// malformed, over [`MAX_TOKEN_BYTES`], or past an `exp` it carries at `now` (Unix seconds).
pub fn unverified_claims(token: &str, now: i64) -> Result<Map<String, Value>, TokenError> {
    if token.len() > MAX_TOKEN_BYTES {
        return Err(TokenError::TooLarge(token.len()));
    }
    let mut validation = Validation::default();
    validation.insecure_disable_signature_validation();
    validation.validate_exp = false;
    validation.validate_aud = false;
    validation.required_spec_claims.clear();
    let claims = jsonwebtoken::decode::<Map<String, Value>>(
        token,
        &DecodingKey::from_secret(&[]),
        &validation,
    )
    .map_err(|_| TokenError::Malformed("not a JWT with a JSON object payload"))?
    .claims;
    match claims.get("exp") {
        None => Ok(claims),
        Some(exp) => match exp.as_f64() {
            Some(exp) if exp.is_finite() && (now as f64) < exp => Ok(claims),
            #[allow(clippy::cast_possible_truncation)]
            Some(exp) if exp.is_finite() => Err(TokenError::Expired(exp as i64)),
            _ => Err(TokenError::InvalidClaims("`exp` is not a number".into())),
        },
    }
}

/// The `iss` of `claims`, when it is a string.
pub fn issuer_of(claims: &Map<String, Value>) -> Option<&str> {
    claims.get("iss").and_then(Value::as_str)
}

#[cfg(test)]
mod tests {
    use super::*;
    use base64::Engine;
    use base64::engine::general_purpose::URL_SAFE_NO_PAD;

    fn jwt(payload: &Value) -> String {
        let part = |v: &Value| URL_SAFE_NO_PAD.encode(serde_json::to_vec(v).unwrap_or_default());
        format!(
            "{}.{}.c2ln",
            part(&serde_json::json!({"alg": "RS256", "typ": "JWT"})),
            part(payload)
        )
    }

    #[test]
    fn claims_are_read_and_exp_is_checked() {
        let claims = unverified_claims(&jwt(&serde_json::json!({"sub": "u-1", "exp": 200})), 100);
        assert_eq!(claims.ok().and_then(|c| c.get("sub").cloned()), Some("u-1".into()));
        let expired = unverified_claims(&jwt(&serde_json::json!({"sub": "u-1", "exp": 200})), 200);
        assert!(matches!(expired, Err(TokenError::Expired(200))));
        let odd = unverified_claims(&jwt(&serde_json::json!({"exp": "soon"})), 1);
        assert!(matches!(odd, Err(TokenError::InvalidClaims(_))));
        assert!(unverified_claims("not-a-jwt", 1).is_err());
        assert!(unverified_claims(&format!("{}.x", "a".repeat(MAX_TOKEN_BYTES)), 1).is_err());
        assert_eq!(
            issuer_of(&serde_json::from_str(r#"{"iss":"https://idp"}"#).unwrap_or_default()),
            Some("https://idp")
        );
    }
}
