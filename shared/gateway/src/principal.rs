//! Who a gateway's caller is: the registry's principal token, verified, or claims the
//! gateway validated, mapped (decision 94).

use std::sync::Arc;

use registry_policy::{Point, Refusal, Refused, RuleSource};
use registry_token::{Principal, issuer_of, unverified_claims};
use serde_json::{Map, Value};

use crate::config::GatewayConfig;

/// What a gateway hands over about the caller.
#[derive(Debug, Clone, Copy)]
pub enum Caller<'a> {
    /// A bearer token as the gateway received it (an `Authorization` header's value,
    /// with or without `Bearer `): the registry's principal token is verified against
    /// the registry's keys; another JWT (its `iss` not the registry's) is read through the
    /// claims mapping, when one is configured, as one its gateway validated.
    Bearer(&'a str),
    /// Claims a gateway already validated (agentgateway's `jwt`), through the mapping.
    Claims(&'a Map<String, Value>),
    /// No principal: every call and every listed tool is denied.
    Anonymous,
}

/// The principal a call is decided for.
#[derive(Debug)]
pub(crate) struct Known {
    /// The request context, as JSON text.
    pub context: Context,
    /// The agent making the call, when known.
    pub agent_id: Option<String>,
    /// The session it counts in, when the principal carries one.
    pub session_id: Option<String>,
}

/// A principal's context: the token's (verified once per token) or the mapped claims'.
#[derive(Debug)]
pub(crate) enum Context {
    Token(Arc<Principal>),
    Claims(String),
}

impl Context {
    pub fn json(&self) -> &str {
        match self {
            Self::Token(principal) => principal.context_json(),
            Self::Claims(json) => json,
        }
    }
}

/// Finds who `caller` is at `now_ms`, or why it cannot be told.
pub(crate) async fn identify<S: RuleSource>(
    config: &GatewayConfig,
    point: &Point<S>,
    caller: Caller<'_>,
    now_ms: i64,
) -> Result<Known, Refused> {
    let token = match caller {
        Caller::Anonymous => {
            return Err(Refused {
                refusal: Refusal::NoPrincipal,
                message: "no bearer token and no claims".into(),
            });
        }
        Caller::Claims(claims) => return mapped(config, claims),
        Caller::Bearer(value) => bearer(value),
    };
    let Some(keys) = &config.keys else {
        let claims = unverified_claims(token, now_ms.div_euclid(1000)).map_err(invalid)?;
        return mapped(config, &claims);
    };
    match point.verify(keys, token, now_ms).await {
        Ok(principal) => Ok(Known {
            agent_id: Some(principal.agent_id().to_owned()),
            session_id: Some(principal.session_id().to_owned()),
            context: Context::Token(principal),
        }),
        Err(refused) if config.claims.is_some() => {
            // another issuer's token, which the gateway validated: its claims
            let claims = unverified_claims(token, now_ms.div_euclid(1000)).map_err(invalid)?;
            if issuer_of(&claims) == Some(keys.issuer()) {
                return Err(refused);
            }
            mapped(config, &claims)
        }
        Err(refused) => Err(refused),
    }
}

/// The token of an `Authorization` header's value (`Bearer` is optional, any case).
fn bearer(value: &str) -> &str {
    let value = value.trim();
    match value.split_once(' ') {
        Some((scheme, token)) if scheme.eq_ignore_ascii_case("bearer") => token.trim(),
        _ => value,
    }
}

fn invalid(e: registry_token::TokenError) -> Refused {
    let refusal =
        if e.is_expired() { Refusal::ExpiredSignedContext } else { Refusal::InvalidSignedContext };
    Refused { refusal, message: e.to_string() }
}

/// The principal `claims` map to, with the configured agent unless the mapping names one
/// (a claim mapped to `agentId` that is not an agent id is refused).
fn mapped(config: &GatewayConfig, claims: &Map<String, Value>) -> Result<Known, Refused> {
    let Some(mapping) = &config.claims else {
        return Err(Refused {
            refusal: Refusal::InvalidSignedContext,
            message: "not the registry's principal token, and no claims mapping is configured (REGISTRY_GATEWAY_CLAIMS)".into(),
        });
    };
    let (context, agent) = mapping.apply(claims);
    let agent_id = match agent {
        None => config.agent.clone(),
        Some(Value::String(id)) if registry_core::validate::is_id(id) => Some(id.clone()),
        // never looked up: the table refuses some, and none is an agent
        Some(_) => {
            return Err(Refused {
                refusal: Refusal::InvalidSignedContext,
                message: "the claim mapped to `agentId` is not an agent id".into(),
            });
        }
    };
    Ok(Known { context: Context::Claims(context.to_string()), agent_id, session_id: None })
}
