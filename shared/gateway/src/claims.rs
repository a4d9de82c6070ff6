//! Claims a gateway validated, mapped to the request context the rules read (decision
//! 94): a JSON object from a context path to the claim that fills it.

use serde_json::{Map, Value};

/// Where a mapped claim goes: a request-context field, or the agent making the call.
#[derive(Debug, Clone, PartialEq, Eq)]
enum Target {
    /// `user.<field>`, `account.<field>` or `customData.<field>`.
    Context(&'static str, String),
    /// `agentId`: the agent whose limits apply.
    Agent,
}

/// A claim: a top-level member, or a JSON Pointer (`/realm_access/roles`) into the claims.
#[derive(Debug, Clone, PartialEq, Eq)]
struct Claim(String);

impl Claim {
    fn of<'c>(&self, claims: &'c Map<String, Value>) -> Option<&'c Value> {
        if self.0.starts_with('/') {
            let (first, rest) = self.0[1..].split_once('/').unwrap_or((&self.0[1..], ""));
            let top = claims.get(&first.replace("~1", "/").replace("~0", "~"))?;
            if rest.is_empty() { Some(top) } else { top.pointer(&format!("/{rest}")) }
        } else {
            claims.get(&self.0)
        }
    }
}

/// How claims become the principal's request context.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct ClaimsMapping {
    entries: Vec<(Target, Claim)>,
}

/// A mapping that cannot be used: every problem.
#[derive(Debug, Clone, PartialEq, Eq, thiserror::Error)]
#[error("{}", .problems.join("; "))]
pub struct MappingError {
    /// One line per problem.
    pub problems: Vec<String>,
}

impl ClaimsMapping {
    /// Parses a mapping: a JSON object from context path (`user.userId`, `user.roles`,
    /// `user.userType`, `user.email`, `account.accountId`, `customData.<name>`, `agentId`)
    /// to claim (a member name, or a JSON Pointer starting with `/`).
    pub fn parse(text: &str) -> Result<Self, MappingError> {
        let one = |p: String| MappingError { problems: vec![p] };
        let object: Map<String, Value> = serde_json::from_str(text)
            .map_err(|e| one(format!("must be a JSON object of context path to claim: {e}")))?;
        let mut entries = Vec::new();
        let mut problems = Vec::new();
        for (path, claim) in object {
            let target = match path.split_once('.') {
                _ if path == "agentId" => Some(Target::Agent),
                Some((section, field)) if !field.is_empty() && !field.contains('.') => {
                    let section = match section {
                        "user" => Some("user"),
                        "account" => Some("account"),
                        "customData" => Some("customData"),
                        _ => None,
                    };
                    section.map(|s| Target::Context(s, field.to_owned()))
                }
                _ => None,
            };
            let Some(target) = target else {
                problems.push(format!(
                    "`{path}` is not a context path: `user.<field>`, `account.<field>`, `customData.<name>` or `agentId`"
                ));
                continue;
            };
            match claim {
                Value::String(claim) if !claim.is_empty() => entries.push((target, Claim(claim))),
                _ => problems.push(format!("`{path}` must name a claim (a non-empty string)")),
            }
        }
        if entries.is_empty() && problems.is_empty() {
            problems.push("maps no claim".to_owned());
        }
        if problems.is_empty() { Ok(Self { entries }) } else { Err(MappingError { problems }) }
    }

    /// The request context `claims` map to (claims absent leave their field out), and
    /// the agent when `agentId` is mapped to a string claim.
    pub fn apply(&self, claims: &Map<String, Value>) -> (Value, Option<String>) {
        let mut context = Map::new();
        let mut agent = None;
        for (target, claim) in &self.entries {
            let Some(value) = claim.of(claims) else { continue };
            match target {
                Target::Agent => agent = value.as_str().map(str::to_owned),
                Target::Context(section, field) => {
                    let section =
                        context.entry(*section).or_insert_with(|| Value::Object(Map::new()));
                    if let Value::Object(section) = section {
                        section.insert(field.clone(), value.clone());
                    }
                }
            }
        }
        (Value::Object(context), agent)
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use serde_json::json;

    fn claims(value: Value) -> Map<String, Value> {
        match value {
            Value::Object(map) => map,
            _ => Map::new(),
        }
    }

    #[test]
    fn claims_fill_the_context_they_are_mapped_to() {
        let mapping = ClaimsMapping::parse(
            r#"{"user.userId": "sub", "user.roles": "/realm_access/roles",
                "customData.tenant": "custom:tenant", "agentId": "client_id"}"#,
        )
        .unwrap_or_else(|e| panic!("{e}"));
        let (context, agent) = mapping.apply(&claims(json!({
            "sub": "u-1", "realm_access": {"roles": ["staff"]}, "client_id": "support-bot"
        })));
        assert_eq!(context, json!({"user": {"userId": "u-1", "roles": ["staff"]}}));
        assert_eq!(agent.as_deref(), Some("support-bot"));
    }

    #[test]
    fn a_bad_mapping_names_every_problem() {
        let Err(e) =
            ClaimsMapping::parse(r#"{"user": "sub", "request.toolId": "x", "user.roles": 3}"#)
        else {
            panic!("accepted");
        };
        assert_eq!(e.problems.len(), 3, "{e}");
        assert!(ClaimsMapping::parse("[]").is_err());
        assert!(ClaimsMapping::parse("{}").is_err());
    }
}
