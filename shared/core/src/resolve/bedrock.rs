//! The InvokeInlineAgent shapes resolution returns: action groups, knowledge bases and
//! collaborator configurations, with Bedrock's field names.

use registry_types::BedrockFunction;
use serde::{Deserialize, Serialize};

use crate::model::{
    ExecutionType, HistoryRelay, KnowledgeBase, RerankingConfiguration, RetrievalFilter,
    SearchType, ToolDefinition,
};

/// Bedrock's `customControl` values.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize, Deserialize, utoipa::ToSchema)]
pub enum CustomControl {
    /// Bedrock returns the call to the runtime, which runs the tool (MCP and inline tools).
    #[serde(rename = "RETURN_CONTROL")]
    ReturnControl,
}

/// Bedrock's `actionGroupExecutor`: `{lambda: arn}` or `{customControl: "RETURN_CONTROL"}`.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize, utoipa::ToSchema)]
#[serde(rename_all = "camelCase")]
pub enum ActionGroupExecutor {
    /// ARN of the Lambda function Bedrock invokes.
    Lambda(String),
    /// The runtime executes the tool itself.
    CustomControl(CustomControl),
}

/// Bedrock's `functionSchema`.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize, utoipa::ToSchema)]
pub struct FunctionSchema {
    /// The tool's functions in Bedrock's shape.
    pub functions: Vec<BedrockFunction>,
}

/// One Bedrock `AgentActionGroup`: a tool.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize, utoipa::ToSchema)]
#[serde(rename_all = "camelCase")]
pub struct ActionGroup {
    /// The tool's `name`.
    pub action_group_name: String,
    /// The tool's description.
    pub description: String,
    /// Who runs the tool.
    pub action_group_executor: ActionGroupExecutor,
    /// The tool's functions.
    pub function_schema: FunctionSchema,
}

impl ActionGroup {
    /// The action group of `tool`; `None` when the fields its `executionType` needs
    /// are missing (validation refuses such tools on write).
    pub fn of(tool: &ToolDefinition) -> Option<Self> {
        let executor = match tool.execution_type {
            ExecutionType::Lambda => ActionGroupExecutor::Lambda(tool.lambda_arn.clone()?),
            ExecutionType::Mcp | ExecutionType::Inline => {
                tool.target()?;
                ActionGroupExecutor::CustomControl(CustomControl::ReturnControl)
            }
        };
        let functions = registry_types::bedrock_functions(
            tool.function_schema.as_deref().unwrap_or_default(),
            tool.types.as_ref(),
        );
        Some(Self {
            action_group_name: tool.name.clone(),
            description: tool.description.clone(),
            action_group_executor: executor,
            function_schema: FunctionSchema { functions },
        })
    }
}

/// Bedrock's `vectorSearchConfiguration`.
#[serde_with::skip_serializing_none]
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize, utoipa::ToSchema)]
#[serde(rename_all = "camelCase")]
pub struct VectorSearchConfiguration {
    /// How many results retrieval returns.
    pub number_of_results: Option<u32>,
    /// Retrieval filter on metadata.
    pub filter: Option<RetrievalFilter>,
    /// `HYBRID` or `SEMANTIC`.
    pub override_search_type: Option<SearchType>,
    /// Reranking of the results.
    pub reranking_configuration: Option<RerankingConfiguration>,
}

/// Bedrock's `retrievalConfiguration`.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize, utoipa::ToSchema)]
#[serde(rename_all = "camelCase")]
pub struct RetrievalConfiguration {
    /// Vector search settings.
    pub vector_search_configuration: VectorSearchConfiguration,
}

/// One Bedrock inline-agent `KnowledgeBase`.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize, utoipa::ToSchema)]
#[serde(rename_all = "camelCase")]
pub struct ResolvedKnowledgeBase {
    /// Knowledge base id.
    pub knowledge_base_id: String,
    /// What the knowledge base holds.
    pub description: String,
    /// Present when the definition sets any retrieval setting.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub retrieval_configuration: Option<RetrievalConfiguration>,
}

impl From<&KnowledgeBase> for ResolvedKnowledgeBase {
    fn from(kb: &KnowledgeBase) -> Self {
        let search = VectorSearchConfiguration {
            number_of_results: kb.number_of_results,
            filter: kb.filter.clone(),
            override_search_type: kb.override_search_type,
            reranking_configuration: kb.reranking_configuration.clone(),
        };
        let any = search.number_of_results.is_some()
            || search.filter.is_some()
            || search.override_search_type.is_some()
            || search.reranking_configuration.is_some();
        Self {
            knowledge_base_id: kb.id.clone(),
            description: kb.description.clone(),
            retrieval_configuration: any
                .then_some(RetrievalConfiguration { vector_search_configuration: search }),
        }
    }
}

/// Bedrock's `relayConversationHistory`.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize, Deserialize, utoipa::ToSchema)]
#[serde(rename_all = "SCREAMING_SNAKE_CASE")]
pub enum RelayConversationHistory {
    /// The supervisor relays the conversation to the collaborator.
    ToCollaborator,
    /// The collaborator sees only what the supervisor sends (our `TO_AGENT`).
    Disabled,
}

impl From<HistoryRelay> for RelayConversationHistory {
    fn from(relay: HistoryRelay) -> Self {
        match relay {
            HistoryRelay::ToCollaborator => Self::ToCollaborator,
            HistoryRelay::ToAgent => Self::Disabled,
        }
    }
}

/// One Bedrock `CollaboratorConfiguration`.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize, utoipa::ToSchema)]
#[serde(rename_all = "camelCase")]
pub struct CollaboratorConfiguration {
    /// The collaborator's `agentName`.
    pub collaborator_name: String,
    /// What the supervisor should use the collaborator for.
    pub collaborator_instruction: String,
    /// History relay mode.
    pub relay_conversation_history: RelayConversationHistory,
    /// The collaborator's published alias, when Bedrock calls it there.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub agent_alias_arn: Option<String>,
}

/// Bedrock's agent-name pattern `([0-9a-zA-Z][_-]?){1,100}` applied to an agent id:
/// other characters become `-`, runs of `_`/`-` collapse to one, a leading separator
/// is dropped, and the result is cut after 100 alphanumerics.
pub fn agent_name(agent_id: &str) -> String {
    let mut out = String::with_capacity(agent_id.len());
    let mut alnum = 0;
    let mut last_sep = true; // no separator at the start
    for c in agent_id.chars() {
        if c.is_ascii_alphanumeric() {
            if alnum == 100 {
                break;
            }
            out.push(c);
            alnum += 1;
            last_sep = false;
        } else if !last_sep {
            out.push(if c == '_' { '_' } else { '-' });
            last_sep = true;
        }
    }
    if out.is_empty() {
        out.push_str("agent");
    }
    out
}

/// `name` made distinct from every name in `taken` by a numeric suffix (`-2`, `-3`, ...),
/// cut so the result still has at most 100 alphanumerics; `name` itself when it is free.
pub fn unique_name(name: &str, taken: &[&str]) -> String {
    if !taken.contains(&name) {
        return name.to_string();
    }
    (2..)
        .map(|n: usize| {
            let suffix = n.to_string();
            let mut keep = 100 - suffix.len();
            let mut out: String = name
                .chars()
                .take_while(|c| {
                    if c.is_ascii_alphanumeric() {
                        if keep == 0 {
                            return false;
                        }
                        keep -= 1;
                    }
                    true
                })
                .collect();
            if !out.ends_with(['-', '_']) {
                out.push('-');
            }
            out.push_str(&suffix);
            out
        })
        .find(|candidate| !taken.contains(&candidate.as_str()))
        .unwrap_or_else(|| name.to_string())
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn colliding_names_get_a_suffix_within_the_pattern() {
        let pattern = regex::Regex::new("^([0-9a-zA-Z][_-]?){1,100}$").unwrap();
        assert_eq!(agent_name("team.x"), agent_name("team-x"));
        assert_eq!(unique_name("team-x", &[]), "team-x");
        assert_eq!(unique_name("team-x", &["team-x"]), "team-x-2");
        assert_eq!(unique_name("team-x", &["team-x", "team-x-2"]), "team-x-3");
        let long = "a".repeat(100);
        let named = unique_name(&long, &[long.as_str()]);
        assert!(pattern.is_match(&named), "{named}");
        assert_ne!(named, long);
    }

    #[test]
    fn agent_names_follow_the_bedrock_pattern() {
        let pattern = regex::Regex::new("^([0-9a-zA-Z][_-]?){1,100}$").unwrap();
        for (id, want) in [
            ("weather-agent", "weather-agent"),
            ("billing.agent@v2", "billing-agent-v2"),
            ("a__b", "a_b"),
            ("x:-y", "x-y"),
            ("-", "agent"),
            ("...a", "a"),
        ] {
            let name = agent_name(id);
            assert_eq!(name, want, "{id}");
            assert!(pattern.is_match(&name), "{name}");
        }
        let long = "a".repeat(128);
        assert!(pattern.is_match(&agent_name(&long)));
        assert_eq!(agent_name(&long).len(), 100);
    }
}
