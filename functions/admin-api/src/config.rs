//! The function's configuration, read once at start from the environment
//! (docs/deploy.md lists every variable).

use registry_api::principal_keys::{DEFAULT_AUDIENCE, TokenSettings};
use registry_api::{DiscoverySettings, ReviewPolicy};
use registry_config::{ConfigError, Secrets, Table, Vars, boolean, names};

use crate::role_map::{ROLE_MAP_MEANING, RoleMap};

/// Everything the admin API function is configured with.
#[derive(Debug, Clone)]
pub struct Config {
    /// Who holds which role ([`names::ROLE_MAP`]).
    pub roles: RoleMap,
    /// The registry's table.
    pub table: Table,
    /// The secret holding the principal token's signing keys
    /// ([`names::SIGNING_KEYS_SECRET`]; `None`: no tokens issued).
    pub signing_keys_secret: Option<String>,
    /// What principal tokens are issued as: `iss` ([`names::TOKEN_ISSUER`]) and `aud`
    /// ([`names::TOKEN_AUDIENCE`]), both `agent-registry` by default; one hour; new keys
    /// of [`names::TOKEN_ALGORITHM`] (`RS256` by default).
    pub tokens: TokenSettings,
    /// Which writes need review ([`names::REQUIRE_REVIEW`], [`names::REVIEW_APPROVALS`]).
    pub review: ReviewPolicy,
    /// Where tools' client secrets are kept.
    pub secrets: Secrets,
    /// Endpoints of the AWS APIs the registry acts on (verify, test-invoke, publish).
    pub endpoints: registry_aws::Endpoints,
    /// Discovery's namespace and anonymous principal ([`names::DISCOVERY_NAMESPACE`],
    /// [`names::DISCOVERY_ANONYMOUS`]).
    pub discovery: DiscoverySettings,
}

/// A review approvals count outside 1 to 10.
#[derive(Debug, Clone, Copy, thiserror::Error)]
#[error("must be an integer from 1 to 10")]
pub struct BadApprovals;

impl Config {
    /// Reads every variable through `vars`; `Err` names each missing or invalid one.
    pub fn read(mut vars: Vars<'_>) -> Result<Self, ConfigError> {
        let roles = vars.required_parsed(names::ROLE_MAP, ROLE_MAP_MEANING, RoleMap::parse);
        let table = Table::read(&mut vars);
        let signing_keys_secret = vars.optional(names::SIGNING_KEYS_SECRET);
        let mut tokens = TokenSettings::new(DEFAULT_AUDIENCE);
        tokens.issuer = vars.optional(names::TOKEN_ISSUER).unwrap_or(tokens.issuer);
        tokens.audience = vars.optional(names::TOKEN_AUDIENCE).unwrap_or(tokens.audience);
        tokens.algorithm = vars.parsed(names::TOKEN_ALGORITHM, str::parse).unwrap_or_default();
        let review = ReviewPolicy {
            required: vars.parsed(names::REQUIRE_REVIEW, boolean).unwrap_or(false),
            approvals: vars
                .parsed(names::REVIEW_APPROVALS, |text| match text.parse::<u32>() {
                    Ok(n) if (1..=10).contains(&n) => Ok(n),
                    _ => Err(BadApprovals),
                })
                .unwrap_or(1),
        };
        let secrets = Secrets::read(&vars);
        let endpoints = registry_aws::Endpoints {
            lambda: vars.optional(names::LAMBDA_ENDPOINT_URL),
            lambda_invoke: vars.optional(names::LAMBDA_INVOKE_ENDPOINT_URL),
            bedrock: vars.optional(names::BEDROCK_ENDPOINT_URL),
        };
        let namespace = vars.parsed(names::DISCOVERY_NAMESPACE, |ns| {
            DiscoverySettings::parse(Some(ns), None).map(|s| s.namespace)
        });
        let anonymous = vars.parsed(names::DISCOVERY_ANONYMOUS, |json| {
            DiscoverySettings::parse(None, Some(json)).map(|s| s.anonymous)
        });
        let discovery = DiscoverySettings {
            namespace: namespace.unwrap_or_else(|| DiscoverySettings::default().namespace),
            anonymous: anonymous.flatten(),
        };
        vars.finish()?;
        let roles = roles.ok_or_else(|| ConfigError::missing(names::ROLE_MAP, ROLE_MAP_MEANING))?;
        Ok(Self {
            roles,
            table,
            signing_keys_secret,
            tokens,
            review,
            secrets,
            endpoints,
            discovery,
        })
    }
}

#[cfg(test)]
mod tests {
    use std::collections::HashMap;

    use super::*;

    const ROLES: &str = include_str!("../role-map.example.json");

    fn read(pairs: &[(&str, &str)]) -> Result<Config, ConfigError> {
        let env: HashMap<&str, &str> = pairs.iter().copied().collect();
        Config::read(Vars::new(|name| env.get(name).map(|v| (*v).to_owned())))
    }

    #[test]
    fn a_complete_configuration_is_read_once_into_the_struct() {
        let config = read(&[
            (names::ROLE_MAP, ROLES),
            (names::TABLE, " registry "),
            (names::REQUIRE_REVIEW, "true"),
            (names::REVIEW_APPROVALS, "2"),
            (names::LAMBDA_ENDPOINT_URL, "http://127.0.0.1:1"),
        ])
        .unwrap();
        assert_eq!(config.table.name, "registry");
        assert_eq!(config.review, ReviewPolicy { required: true, approvals: 2 });
        assert_eq!(config.endpoints.lambda.as_deref(), Some("http://127.0.0.1:1"));
        assert_eq!(config.secrets.prefix, registry_config::DEFAULT_SECRETS_PREFIX);
        assert!(config.signing_keys_secret.is_none() && config.table.cursor_key.is_none());
        assert_eq!(config.tokens.issuer, "agent-registry");
    }

    #[test]
    fn every_bad_variable_is_named() {
        let err =
            read(&[(names::REQUIRE_REVIEW, "yes"), (names::REVIEW_APPROVALS, "0")]).unwrap_err();
        let named: Vec<_> = err.problems.iter().map(|p| p.name()).collect();
        assert_eq!(
            named,
            [names::ROLE_MAP, names::TABLE, names::REQUIRE_REVIEW, names::REVIEW_APPROVALS]
        );
        let text = err.to_string();
        assert!(text.contains("REGISTRY_ROLE_MAP is not set: it must hold JSON"), "{text}");
        assert!(
            text.contains("REGISTRY_REVIEW_APPROVALS is invalid: must be an integer"),
            "{text}"
        );
    }

    #[test]
    fn an_invalid_role_map_is_named_with_its_entry() {
        let err =
            read(&[(names::ROLE_MAP, r#"{"admin": ["*"]}"#), (names::TABLE, "t")]).unwrap_err();
        assert!(err.to_string().starts_with("REGISTRY_ROLE_MAP is invalid: /admin/0: "), "{err}");
    }
}
