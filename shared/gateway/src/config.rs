//! A gateway point's configuration, from its environment (docs/deploy.md).

use std::sync::Arc;
use std::time::Duration;

use registry_config::{ConfigError, Vars, names};
use registry_policy::{
    DEFAULT_MAX_STALENESS, ISSUER_ENV, JWKS_ENV, JWKS_URL_ENV, key_source, max_staleness,
};
use registry_token::KeySource;

use crate::claims::ClaimsMapping;

/// The claims mapping ([`ClaimsMapping::parse`]); unset: only the registry's principal
/// token is accepted.
pub const CLAIMS_ENV: &str = names::GATEWAY_CLAIMS;
/// The agent whose session limits apply to callers known by claims (unless the
/// mapping names one per caller).
pub const AGENT_ENV: &str = names::GATEWAY_AGENT;

/// What a gateway point needs besides its rule source.
#[derive(Debug, Clone)]
pub struct GatewayConfig {
    /// The registry's public keys, issuer and audience, for principal tokens; `None`:
    /// callers are known by claims only.
    pub keys: Option<Arc<KeySource>>,
    /// How claims the gateway validated become the request context; `None`: claims
    /// are refused.
    pub claims: Option<ClaimsMapping>,
    /// The agent whose limits apply to callers known by claims.
    pub agent: Option<String>,
    /// The oldest what was read may be when the source cannot be read.
    pub max_staleness: Duration,
}

impl GatewayConfig {
    /// A point that accepts the registry's principal tokens verified with `keys`.
    pub fn new(keys: KeySource) -> Self {
        Self {
            keys: Some(Arc::new(keys)),
            claims: None,
            agent: None,
            max_staleness: DEFAULT_MAX_STALENESS,
        }
    }

    /// Reads the registry's keys (as the guard: `REGISTRY_TOKEN_ISSUER` with
    /// `REGISTRY_JWKS_URL` or `REGISTRY_JWKS`, `REGISTRY_TOKEN_AUDIENCE`), [`CLAIMS_ENV`],
    /// [`AGENT_ENV`] and the staleness bound through `var`: the keys, a claims mapping
    /// or both; `Err` names every problem.
    pub fn from_vars(var: impl Fn(&str) -> Option<String>) -> Result<Self, ConfigError> {
        let mut vars = Vars::new(var);
        let claims = vars.parsed(CLAIMS_ENV, ClaimsMapping::parse);
        let claims_set = vars.optional(CLAIMS_ENV).is_some();
        let keys_set =
            [ISSUER_ENV, JWKS_URL_ENV, JWKS_ENV].iter().any(|n| vars.optional(n).is_some());
        let keys = if keys_set || !claims_set { key_source(&mut vars).map(Arc::new) } else { None };
        let agent = vars.parsed(AGENT_ENV, |id| {
            if registry_core::validate::is_id(id) {
                Ok(id.to_owned())
            } else {
                Err("must be an agent id")
            }
        });
        let max_staleness = max_staleness(&mut vars);
        vars.finish()?;
        Ok(Self { keys, claims, agent, max_staleness })
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use std::collections::HashMap;

    fn config(vars: &[(&str, &str)]) -> Result<GatewayConfig, ConfigError> {
        let vars: HashMap<String, String> =
            vars.iter().map(|(k, v)| ((*k).to_owned(), (*v).to_owned())).collect();
        GatewayConfig::from_vars(|name| vars.get(name).cloned())
    }

    #[test]
    fn keys_or_claims_are_needed_and_every_problem_is_named() {
        let none = config(&[]).err().map(|e| e.to_string()).unwrap_or_default();
        assert!(none.contains(ISSUER_ENV) && none.contains(JWKS_URL_ENV), "{none}");
        let claims_only =
            config(&[(CLAIMS_ENV, r#"{"user.userId":"sub"}"#), (AGENT_ENV, "support-bot")]);
        assert!(claims_only.as_ref().is_ok_and(|c| c.keys.is_none() && c.agent.is_some()));
        let bad =
            config(&[(CLAIMS_ENV, "{}"), (AGENT_ENV, "not an id")]).err().map(|e| e.problems.len());
        assert_eq!(bad, Some(2));
    }
}
