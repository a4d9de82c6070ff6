//! Importing a Bedrock agent into the registry: read it with `registry-aws`, check every
//! definition it yields as a write would, and (when asked) write the tools, then the
//! agent.

use registry_aws::Imported;
use registry_core::{AgentDefinition, ToolDefinition, Violation};
use serde::{Deserialize, Serialize};

use crate::auth::{Principal, Role};
use crate::publish::from_aws;
use crate::write::require;
use crate::{Publishing, Resource, ServiceError, from_json};

/// Which Bedrock agent to import, and whether to write the result.
#[derive(Debug, Clone, Deserialize, utoipa::ToSchema)]
#[serde(rename_all = "camelCase", deny_unknown_fields)]
pub struct ImportRequest {
    /// The Bedrock agent id.
    pub agent_id: String,
    /// Write the definitions (tools first, then the agent) when every one is valid.
    #[serde(default)]
    pub apply: bool,
}

/// The definitions read from Bedrock, what was left out, and what a write would refuse.
#[derive(Debug, Clone, Serialize, utoipa::ToSchema)]
#[serde(rename_all = "camelCase")]
pub struct ImportReport {
    /// The definitions and what could not be represented.
    #[serde(flatten)]
    pub imported: Imported,
    /// Validation problems, at `/agent/...` or `/tools/<i>/...`; nothing is written
    /// while any remain.
    pub problems: Vec<Violation>,
    /// Whether the definitions were written.
    pub applied: bool,
}

impl Publishing {
    /// Reads Bedrock agent `request.agent_id` into registry definitions, and writes them
    /// when asked (editor).
    pub async fn import_bedrock(
        &self,
        principal: &Principal,
        request: &ImportRequest,
    ) -> Result<ImportReport, ServiceError> {
        // Reading goes through the server's own AWS credentials: editors only, like
        // verify and test-invoke, so a reader cannot browse the account's agents.
        require(principal, Role::Editor, "import from Bedrock")?;
        let imported =
            self.aws_clients()?.import_agent(&request.agent_id).await.map_err(from_aws)?;
        let mut problems = Vec::new();
        let mut tools = Vec::new();
        for (i, value) in imported.tools.iter().enumerate() {
            match checked::<ToolDefinition>(value) {
                Ok(tool) => tools.push(tool),
                Err(found) => problems.extend(at(&format!("/tools/{i}"), found)),
            }
        }
        let agent = checked::<AgentDefinition>(&imported.agent)
            .map_err(|found| problems.extend(at("/agent", found)))
            .ok();
        let applied = request.apply && problems.is_empty();
        if applied && let Some(agent) = agent {
            for tool in tools {
                let id = tool.tool_id.clone();
                self.catalog.apply(principal, &id, tool, None, None).await?;
            }
            let id = agent.agent_id.clone();
            self.catalog.apply(principal, &id, agent, None, None).await?;
        }
        Ok(ImportReport { imported, problems, applied })
    }
}

/// `value` as a definition that passes a write's own validation.
fn checked<R: Resource + serde::de::DeserializeOwned>(
    value: &serde_json::Value,
) -> Result<R, Vec<Violation>> {
    let definition: R = from_json(value.clone())?;
    definition.validate()?;
    Ok(definition)
}

/// `violations` under `prefix`.
fn at(prefix: &str, violations: Vec<Violation>) -> Vec<Violation> {
    violations
        .into_iter()
        .map(|v| Violation { path: format!("{prefix}{}", v.path), message: v.message })
        .collect()
}
