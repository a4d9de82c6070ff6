//! The wire-format data model (SPEC section 3): camelCase JSON, unknown fields captured
//! so validation can reject them by path, map keys kept byte for byte.

mod agent;
mod bedrock;
mod definition;
mod lifecycle;
mod limits;
mod meta;
mod rollout;
mod tool;

pub use agent::{AgentCollaboration, AgentDefinition, Collaborator, HistoryRelay, KnowledgeBase};
pub use bedrock::{
    BedrockModelConfigurations, BedrockRerankingConfiguration, BedrockSettings, CreationMode,
    CustomOrchestration, FilterAttribute, GuardrailConfiguration, InferenceConfiguration, Latency,
    OrchestrationExecutor, OrchestrationSettings, OrchestrationType, PerformanceConfiguration,
    PromptConfiguration, PromptOverrideConfiguration, PromptState, PromptType,
    RerankingConfiguration, RerankingField, RerankingMetadataConfiguration,
    RerankingModelConfiguration, RerankingType, RetrievalFilter, SearchType, SelectionMode,
    SelectiveModeConfiguration,
};
pub use definition::{Definition, Kind};
pub use lifecycle::{Lifecycle, LifecycleStatus};
pub use limits::{AgentLimits, RateKey, RateLimit};
pub use meta::{Publication, ServerFields};
pub use rollout::{RolloutPolicy, Stickiness};
pub use tool::{AgentFramework, ExecutionType, McpAuth, ToolDefinition, ToolTarget};

/// Fields a client sent that the model does not know; validation rejects each by path.
pub type Unknown = std::collections::BTreeMap<String, serde_json::Value>;

/// String-to-string map whose keys are stored and returned byte for byte.
pub type Tags = std::collections::BTreeMap<String, String>;
