//! Agent and knowledge-base settings that are Bedrock's own, with AWS's names and values
//! (`InvokeInlineAgent` in the Bedrock Agent Runtime model): written as AWS documents
//! them, validated against AWS's constraints, emitted unchanged by resolution.

use std::collections::BTreeMap;

use serde::{Deserialize, Serialize};
use serde_json::Value;

/// An agent's own Bedrock settings, passed through unchanged: what an inline agent,
/// each of its collaborators and a persistent agent (`CreateAgent`) take alike.
/// Flattened into the definition, into each agent of a resolution and into what
/// publishing sends.
#[serde_with::skip_serializing_none]
#[derive(Debug, Clone, Default, PartialEq, Serialize, Deserialize, utoipa::ToSchema)]
#[serde(rename_all = "camelCase")]
pub struct BedrockSettings {
    /// Bedrock guardrail applied to the agent.
    pub guardrail_configuration: Option<GuardrailConfiguration>,
    /// Seconds of inactivity before Bedrock ends a session (60 to 3,600).
    #[serde(default, rename = "idleSessionTTLInSeconds", skip_serializing_if = "Option::is_none")]
    pub idle_session_ttl_in_seconds: Option<u32>,
    /// Overrides of Bedrock's prompt templates and inference settings.
    pub prompt_override_configuration: Option<PromptOverrideConfiguration>,
    /// ARN of the KMS key that encrypts the agent's session data.
    pub customer_encryption_key_arn: Option<String>,
}

/// How Bedrock orchestrates the agent as a whole: settings of the inline agent that its
/// collaborators (Bedrock's `Collaborator` shape) do not take. Flattened into the
/// definition and into a resolution's `inlineAgent`.
#[serde_with::skip_serializing_none]
#[derive(Debug, Clone, Default, PartialEq, Serialize, Deserialize, utoipa::ToSchema)]
#[serde(rename_all = "camelCase")]
pub struct OrchestrationSettings {
    /// `DEFAULT` or `CUSTOM_ORCHESTRATION`.
    pub orchestration_type: Option<OrchestrationType>,
    /// The orchestrating Lambda, with `orchestrationType: CUSTOM_ORCHESTRATION`.
    pub custom_orchestration: Option<CustomOrchestration>,
    /// Model performance settings.
    pub bedrock_model_configurations: Option<BedrockModelConfigurations>,
}

/// Bedrock's `guardrailConfiguration`: the guardrail applied to the agent.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize, utoipa::ToSchema)]
#[serde(rename_all = "camelCase", deny_unknown_fields)]
pub struct GuardrailConfiguration {
    /// Guardrail id or ARN.
    pub guardrail_identifier: String,
    /// Guardrail version: a number or `DRAFT`.
    pub guardrail_version: String,
}

/// Bedrock's `orchestrationType`.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize, Deserialize, utoipa::ToSchema)]
#[serde(rename_all = "SCREAMING_SNAKE_CASE")]
pub enum OrchestrationType {
    /// Bedrock's own orchestration.
    Default,
    /// A Lambda orchestrates (`customOrchestration` names it).
    CustomOrchestration,
}

/// Bedrock's `customOrchestration`.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize, utoipa::ToSchema)]
#[serde(rename_all = "camelCase", deny_unknown_fields)]
pub struct CustomOrchestration {
    /// Who orchestrates.
    pub executor: OrchestrationExecutor,
}

/// Bedrock's `OrchestrationExecutor`.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize, utoipa::ToSchema)]
#[serde(rename_all = "camelCase", deny_unknown_fields)]
pub struct OrchestrationExecutor {
    /// ARN of the orchestrating Lambda function.
    pub lambda: String,
}

/// Bedrock's `bedrockModelConfigurations`.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize, utoipa::ToSchema)]
#[serde(rename_all = "camelCase", deny_unknown_fields)]
pub struct BedrockModelConfigurations {
    /// Latency setting of the model.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub performance_config: Option<PerformanceConfiguration>,
}

/// Bedrock's `PerformanceConfiguration`.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize, utoipa::ToSchema)]
#[serde(rename_all = "camelCase", deny_unknown_fields)]
pub struct PerformanceConfiguration {
    /// `standard` or `optimized`.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub latency: Option<Latency>,
}

/// Bedrock's `PerformanceConfigLatency`.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize, Deserialize, utoipa::ToSchema)]
#[serde(rename_all = "lowercase")]
pub enum Latency {
    /// Standard latency.
    Standard,
    /// Latency-optimized inference.
    Optimized,
}

/// Bedrock's `promptOverrideConfiguration`.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize, utoipa::ToSchema)]
#[serde(rename_all = "camelCase", deny_unknown_fields)]
pub struct PromptOverrideConfiguration {
    /// ARN of a Lambda that parses the model's raw output.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub override_lambda: Option<String>,
    /// One entry per prompt step overridden (at most 10).
    pub prompt_configurations: Vec<PromptConfiguration>,
}

/// Bedrock's `PromptConfiguration`: one prompt step.
#[serde_with::skip_serializing_none]
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize, utoipa::ToSchema)]
#[serde(rename_all = "camelCase", deny_unknown_fields)]
pub struct PromptConfiguration {
    /// Model-specific request fields, passed to the model as they are.
    pub additional_model_request_fields: Option<Value>,
    /// The prompt template.
    pub base_prompt_template: Option<String>,
    /// Model of this step.
    pub foundation_model: Option<String>,
    /// Inference parameters of this step.
    pub inference_configuration: Option<InferenceConfiguration>,
    /// Whether `overrideLambda` parses this step's output.
    pub parser_mode: Option<CreationMode>,
    /// Whether `basePromptTemplate` replaces the default template.
    pub prompt_creation_mode: Option<CreationMode>,
    /// Whether this step runs.
    pub prompt_state: Option<PromptState>,
    /// The step this entry configures.
    pub prompt_type: Option<PromptType>,
}

/// Bedrock's `InferenceConfiguration`.
#[serde_with::skip_serializing_none]
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize, utoipa::ToSchema)]
#[serde(rename_all = "camelCase", deny_unknown_fields)]
pub struct InferenceConfiguration {
    /// Most tokens in the answer (0 to 8,192).
    pub maximum_length: Option<u32>,
    /// Sequences that stop generation (at most 4).
    pub stop_sequences: Option<Vec<String>>,
    /// Randomness (0 to 1).
    pub temperature: Option<f64>,
    /// Top-K sampling (0 to 500).
    pub top_k: Option<u32>,
    /// Nucleus sampling (0 to 1).
    pub top_p: Option<f64>,
}

/// Bedrock's `CreationMode`.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize, Deserialize, utoipa::ToSchema)]
#[serde(rename_all = "SCREAMING_SNAKE_CASE")]
pub enum CreationMode {
    /// Bedrock's default.
    Default,
    /// Overridden by this configuration.
    Overridden,
}

/// Bedrock's `PromptState`.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize, Deserialize, utoipa::ToSchema)]
#[serde(rename_all = "SCREAMING_SNAKE_CASE")]
pub enum PromptState {
    /// The step runs.
    Enabled,
    /// The step is skipped.
    Disabled,
}

/// Bedrock's `PromptType`.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize, Deserialize, utoipa::ToSchema)]
#[serde(rename_all = "SCREAMING_SNAKE_CASE")]
pub enum PromptType {
    /// Input classification.
    PreProcessing,
    /// Orchestration.
    Orchestration,
    /// Answer generation from knowledge-base results.
    KnowledgeBaseResponseGeneration,
    /// Final answer shaping.
    PostProcessing,
    /// Routing among collaborators (`SUPERVISOR_ROUTER`).
    RoutingClassifier,
}

/// Bedrock's `SearchType` (`overrideSearchType` of a knowledge base).
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize, Deserialize, utoipa::ToSchema)]
#[serde(rename_all = "SCREAMING_SNAKE_CASE")]
pub enum SearchType {
    /// Vector and keyword search combined.
    Hybrid,
    /// Vector search only.
    Semantic,
}

/// Bedrock's `RetrievalFilter`: exactly one condition, or `andAll`/`orAll` of at least two.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize, utoipa::ToSchema)]
#[serde(rename_all = "camelCase", deny_unknown_fields)]
pub enum RetrievalFilter {
    /// Every filter holds (at least two).
    #[schema(no_recursion)]
    AndAll(Vec<RetrievalFilter>),
    /// Some filter holds (at least two).
    #[schema(no_recursion)]
    OrAll(Vec<RetrievalFilter>),
    /// The attribute equals the value.
    Equals(FilterAttribute),
    /// The attribute differs from the value.
    NotEquals(FilterAttribute),
    /// The attribute is greater than the value.
    GreaterThan(FilterAttribute),
    /// The attribute is at least the value.
    GreaterThanOrEquals(FilterAttribute),
    /// The attribute is less than the value.
    LessThan(FilterAttribute),
    /// The attribute is at most the value.
    LessThanOrEquals(FilterAttribute),
    /// The attribute is one of the values.
    In(FilterAttribute),
    /// The attribute is none of the values.
    NotIn(FilterAttribute),
    /// The list attribute contains the value.
    ListContains(FilterAttribute),
    /// The attribute starts with the value.
    StartsWith(FilterAttribute),
    /// The attribute contains the value.
    StringContains(FilterAttribute),
}

/// Bedrock's `FilterAttribute`.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize, utoipa::ToSchema)]
#[serde(rename_all = "camelCase", deny_unknown_fields)]
pub struct FilterAttribute {
    /// Metadata attribute name (1 to 100 characters).
    pub key: String,
    /// The value compared with (any JSON value).
    pub value: Value,
}

/// Bedrock's `VectorSearchRerankingConfiguration`.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize, utoipa::ToSchema)]
#[serde(rename_all = "camelCase", deny_unknown_fields)]
pub struct RerankingConfiguration {
    /// Always `BEDROCK_RERANKING_MODEL`.
    #[serde(rename = "type")]
    pub kind: RerankingType,
    /// The reranking model and its settings.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub bedrock_reranking_configuration: Option<BedrockRerankingConfiguration>,
}

/// Bedrock's reranking configuration type.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize, Deserialize, utoipa::ToSchema)]
#[serde(rename_all = "SCREAMING_SNAKE_CASE")]
pub enum RerankingType {
    /// A Bedrock reranking model.
    BedrockRerankingModel,
}

/// Bedrock's `VectorSearchBedrockRerankingConfiguration`.
#[serde_with::skip_serializing_none]
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize, utoipa::ToSchema)]
#[serde(rename_all = "camelCase", deny_unknown_fields)]
pub struct BedrockRerankingConfiguration {
    /// The reranking model.
    pub model_configuration: RerankingModelConfiguration,
    /// How many results to rerank (1 to 100).
    pub number_of_reranked_results: Option<u32>,
    /// Which metadata fields the reranker sees.
    pub metadata_configuration: Option<RerankingMetadataConfiguration>,
}

/// Bedrock's `VectorSearchBedrockRerankingModelConfiguration`.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize, utoipa::ToSchema)]
#[serde(rename_all = "camelCase", deny_unknown_fields)]
pub struct RerankingModelConfiguration {
    /// ARN of the reranking foundation model.
    pub model_arn: String,
    /// Model-specific request fields.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub additional_model_request_fields: Option<BTreeMap<String, Value>>,
}

/// Bedrock's `MetadataConfigurationForReranking`.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize, utoipa::ToSchema)]
#[serde(rename_all = "camelCase", deny_unknown_fields)]
pub struct RerankingMetadataConfiguration {
    /// `SELECTIVE` or `ALL`.
    pub selection_mode: SelectionMode,
    /// The fields, for `SELECTIVE`.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub selective_mode_configuration: Option<SelectiveModeConfiguration>,
}

/// Bedrock's `RerankingMetadataSelectionMode`.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize, Deserialize, utoipa::ToSchema)]
#[serde(rename_all = "SCREAMING_SNAKE_CASE")]
pub enum SelectionMode {
    /// Only the fields named.
    Selective,
    /// Every field.
    All,
}

/// Bedrock's `RerankingMetadataSelectiveModeConfiguration`: one of the two lists.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize, utoipa::ToSchema)]
#[serde(rename_all = "camelCase", deny_unknown_fields)]
pub enum SelectiveModeConfiguration {
    /// Fields the reranker sees (1 to 100).
    FieldsToInclude(Vec<RerankingField>),
    /// Fields the reranker does not see (1 to 100).
    FieldsToExclude(Vec<RerankingField>),
}

/// Bedrock's `FieldForReranking`.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize, utoipa::ToSchema)]
#[serde(rename_all = "camelCase", deny_unknown_fields)]
pub struct RerankingField {
    /// Metadata field name (1 to 2,000 characters).
    pub field_name: String,
}
