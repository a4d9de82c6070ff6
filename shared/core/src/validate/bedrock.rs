//! AWS's own constraints on what resolution emits (the Bedrock Agent Runtime model of
//! `InvokeInlineAgent`, and `CreateAgent` where publishing is stricter), each violation
//! naming the AWS shape and its limit.

use std::sync::LazyLock;

use regex::Regex;

use super::common::literal;
use crate::model::{
    AgentCollaboration, AgentDefinition, BedrockRerankingConfiguration, FilterAttribute,
    InferenceConfiguration, KnowledgeBase, OrchestrationType, PromptOverrideConfiguration,
    RetrievalFilter, SelectiveModeConfiguration,
};
use crate::pointer;
use crate::violation::Violations;

/// Fewest characters of an agent instruction (AWS `Instruction`).
pub const MIN_INSTRUCTION: usize = 40;
/// Most characters of an agent instruction (AWS `CreateAgent` `Instruction`).
pub const MAX_INSTRUCTION: usize = 4_000;
/// Most characters of an action-group, knowledge-base or agent description (AWS
/// `ResourceDescription`, `Description`).
pub const MAX_BEDROCK_DESCRIPTION: usize = 200;
/// Session idle time-out bounds of an inline agent, in seconds (AWS `SessionTTL`).
pub const SESSION_TTL: std::ops::RangeInclusive<u32> = 60..=3_600;

/// AWS `ModelIdentifier` (Bedrock Agent Runtime): a model id, inference profile or ARN.
static MODEL: LazyLock<Regex> = LazyLock::new(|| {
    whole(
        r#"(^arn:aws(-[^:]+)?:bedrock:[a-z0-9-]{1,20}:(([0-9]{12}:custom-model/[a-z0-9-]{1,63}[.]{1}[a-z0-9-]{1,63}(([:][a-z0-9-]{1,63}){0,2})?/[a-z0-9]{12})|(:foundation-model/([a-z0-9-]{1,63}[.]{1}[a-z0-9-]{1,63}([.]?[a-z0-9-]{1,63})([:][a-z0-9-]{1,63}){0,2})))|(([a-z0-9-]{1,63}[.]{1}[a-z0-9-]{1,63}([.]?[a-z0-9-]{1,63})([:][a-z0-9-]{1,63}){0,2}))|(([0-9a-zA-Z][_-]?)+))$|(^arn:aws(|-us-gov|-cn|-iso|-iso-b):bedrock:(|[0-9a-z-]{1,20}):(|[0-9]{12}):inference-profile/[a-zA-Z0-9-:.]+)$"#,
    )
});
/// AWS `KmsKeyArn`.
static KMS_KEY: LazyLock<Regex> = LazyLock::new(|| {
    whole(r#"^arn:aws(|-cn|-us-gov):kms:[a-zA-Z0-9-]*:[0-9]{12}:key/[a-zA-Z0-9-]{36}$"#)
});
/// AWS `GuardrailIdentifierWithArn`.
static GUARDRAIL_ID: LazyLock<Regex> = LazyLock::new(|| {
    whole(
        r#"^(([a-z0-9]+)|(arn:aws(-[^:]+)?:bedrock:[a-z0-9-]{1,20}:[0-9]{12}:guardrail/[a-z0-9]+))$"#,
    )
});
/// AWS `GuardrailVersion`.
static GUARDRAIL_VERSION: LazyLock<Regex> =
    LazyLock::new(|| whole(r#"^(([1-9][0-9]{0,7})|(DRAFT))$"#));
/// AWS `AgentAliasArn` (Bedrock Agent Runtime).
static ALIAS_ARN: LazyLock<Regex> = LazyLock::new(|| {
    whole(
        r#"^arn:aws(-[^:]+)?:bedrock:[a-z0-9-]{1,20}:[0-9]{12}:agent-alias/[0-9a-zA-Z]{10}/[0-9a-zA-Z]{10}$"#,
    )
});
/// AWS `BedrockRerankingModelArn`.
static RERANKING_MODEL: LazyLock<Regex> = LazyLock::new(|| {
    whole(r#"^(arn:aws(-[^:]+)?:bedrock:[a-z0-9-]{1,20}::foundation-model/(.*))?$"#)
});
/// AWS `KnowledgeBaseId` (Bedrock Agents): ten letters or digits.
static KNOWLEDGE_BASE_ID: LazyLock<Regex> = LazyLock::new(|| whole(r"^[0-9a-zA-Z]{10}$"));

/// An AWS pattern, matched against the whole value (some AWS patterns anchor only
/// some of their alternatives).
fn whole(pattern: &str) -> Regex {
    literal(&format!("^(?:{pattern})$"))
}

/// Records a violation unless `s` has `min..=max` characters; `shape` is AWS's name.
fn length(v: &mut Violations, path: &str, s: &str, min: usize, max: usize, shape: &str) {
    let n = s.chars().count();
    if n < min || n > max {
        let bounds =
            if max == usize::MAX { format!("at least {min}") } else { format!("{min} to {max}") };
        v.push(path, format!("must be {bounds} characters (AWS `{shape}`; got {n})"));
    }
}

fn range<T: PartialOrd + std::fmt::Display + Copy>(
    v: &mut Violations,
    path: &str,
    value: Option<T>,
    min: T,
    max: T,
    shape: &str,
) {
    if let Some(value) = value
        && (value < min || value > max)
    {
        v.push(path, format!("must be between {min} and {max} (AWS `{shape}`; got {value})"));
    }
}

fn pattern(v: &mut Violations, path: &str, s: &str, re: &Regex, shape: &str, example: &str) {
    if !re.is_match(s) {
        v.push(path, format!("`{s}` does not match AWS `{shape}`, e.g. {example}"));
    }
}

/// Records a violation unless `model` is an AWS `ModelIdentifier`.
pub fn check_model(v: &mut Violations, path: &str, model: &str) {
    length(v, path, model, 1, 2_048, "ModelIdentifier");
    pattern(
        v,
        path,
        model,
        &MODEL,
        "ModelIdentifier",
        "anthropic.claude-3-5-sonnet-20240620-v1:0, an inference profile or a model ARN",
    );
}

/// The agent settings Bedrock takes from the definition (instruction, model, guardrail,
/// session time-out, prompt overrides, encryption key, orchestration, collaboration).
pub fn check_agent(v: &mut Violations, def: &AgentDefinition) {
    length(v, "/basePrompt", &def.base_prompt, MIN_INSTRUCTION, MAX_INSTRUCTION, "Instruction");
    match def.foundation_model.as_deref() {
        None => v.push(
            "/foundationModel",
            "is required (AWS `InvokeInlineAgent` and `CreateAgent` need a model)",
        ),
        Some(model) => check_model(v, "/foundationModel", model),
    }
    if let Some(description) = &def.description {
        length(v, "/description", description, 1, MAX_BEDROCK_DESCRIPTION, "Description");
    }
    if let Some(g) = &def.bedrock.guardrail_configuration {
        let at = "/guardrailConfiguration";
        length(
            v,
            &pointer(at, "guardrailIdentifier"),
            &g.guardrail_identifier,
            1,
            2_048,
            "GuardrailIdentifierWithArn",
        );
        pattern(
            v,
            &pointer(at, "guardrailIdentifier"),
            &g.guardrail_identifier,
            &GUARDRAIL_ID,
            "GuardrailIdentifierWithArn",
            "abc123 or a guardrail ARN",
        );
        pattern(
            v,
            &pointer(at, "guardrailVersion"),
            &g.guardrail_version,
            &GUARDRAIL_VERSION,
            "GuardrailVersion",
            "1 or DRAFT",
        );
    }
    range(
        v,
        "/idleSessionTTLInSeconds",
        def.bedrock.idle_session_ttl_in_seconds,
        *SESSION_TTL.start(),
        *SESSION_TTL.end(),
        "SessionTTL",
    );
    if let Some(arn) = &def.bedrock.customer_encryption_key_arn {
        pattern(
            v,
            "/customerEncryptionKeyArn",
            arn,
            &KMS_KEY,
            "KmsKeyArn",
            "arn:aws:kms:us-east-1:123456789012:key/<key id>",
        );
    }
    if let Some(p) = &def.bedrock.prompt_override_configuration {
        check_prompt_override(v, "/promptOverrideConfiguration", p);
    }
    match (def.orchestration.orchestration_type, &def.orchestration.custom_orchestration) {
        (Some(OrchestrationType::CustomOrchestration), None) => v.push(
            "/customOrchestration",
            "is required with orchestrationType CUSTOM_ORCHESTRATION (the orchestrating Lambda)",
        ),
        (Some(OrchestrationType::CustomOrchestration), Some(c)) => {
            super::common::check_lambda_arn(
                v,
                "/customOrchestration/executor/lambda",
                &c.executor.lambda,
            );
        }
        (_, Some(_)) => v.push(
            "/customOrchestration",
            "is only used with orchestrationType CUSTOM_ORCHESTRATION",
        ),
        _ => {}
    }
    let collaborates = def.collaborators.as_ref().is_some_and(|c| !c.is_empty());
    if collaborates && def.agent_collaboration == Some(AgentCollaboration::Disabled) {
        v.push(
            "/agentCollaboration",
            "an agent with collaborators needs SUPERVISOR or SUPERVISOR_ROUTER (AWS `AgentCollaboration`)",
        );
    }
    for (i, c) in def.collaborators.iter().flatten().enumerate() {
        if let Some(arn) = &c.agent_alias_arn {
            let at = pointer(&pointer("/collaborators", i), "agentAliasArn");
            pattern(
                v,
                &at,
                arn,
                &ALIAS_ARN,
                "AgentAliasArn",
                "arn:aws:bedrock:us-east-1:123456789012:agent-alias/AGENT12345/ALIAS12345",
            );
        }
    }
}

fn check_prompt_override(v: &mut Violations, at: &str, p: &PromptOverrideConfiguration) {
    if let Some(arn) = &p.override_lambda {
        super::common::check_lambda_arn(v, &pointer(at, "overrideLambda"), arn);
    }
    let list = pointer(at, "promptConfigurations");
    if p.prompt_configurations.len() > 10 {
        v.push(
            &list,
            format!(
                "at most 10 prompt configurations (AWS `PromptConfigurations`; got {})",
                p.prompt_configurations.len()
            ),
        );
    }
    for (i, c) in p.prompt_configurations.iter().enumerate() {
        let at = pointer(&list, i);
        if let Some(t) = &c.base_prompt_template {
            length(v, &pointer(&at, "basePromptTemplate"), t, 1, 100_000, "BasePromptTemplate");
        }
        if let Some(model) = &c.foundation_model {
            check_model(v, &pointer(&at, "foundationModel"), model);
        }
        if let Some(inference) = &c.inference_configuration {
            check_inference(v, &pointer(&at, "inferenceConfiguration"), inference);
        }
    }
}

fn check_inference(v: &mut Violations, at: &str, c: &InferenceConfiguration) {
    range(v, &pointer(at, "maximumLength"), c.maximum_length, 0, 8_192, "MaximumLength");
    range(v, &pointer(at, "temperature"), c.temperature, 0.0, 1.0, "Temperature");
    range(v, &pointer(at, "topK"), c.top_k, 0, 500, "TopK");
    range(v, &pointer(at, "topP"), c.top_p, 0.0, 1.0, "TopP");
    if let Some(stops) = &c.stop_sequences
        && stops.len() > 4
    {
        v.push(
            pointer(at, "stopSequences"),
            format!("at most 4 stop sequences (AWS `StopSequences`; got {})", stops.len()),
        );
    }
}

/// A knowledge base as Bedrock takes it: id, description, retrieval settings.
pub fn check_knowledge_base(v: &mut Violations, at: &str, kb: &KnowledgeBase) {
    pattern(
        v,
        &pointer(at, "id"),
        &kb.id,
        &KNOWLEDGE_BASE_ID,
        "KnowledgeBaseId",
        "KB12345678 (ten letters or digits)",
    );
    length(
        v,
        &pointer(at, "description"),
        &kb.description,
        1,
        MAX_BEDROCK_DESCRIPTION,
        "ResourceDescription",
    );
    range(v, &pointer(at, "numberOfResults"), kb.number_of_results, 1, 100, "NumberOfResults");
    if let Some(filter) = &kb.filter {
        check_filter(v, &pointer(at, "filter"), filter, 0);
    }
    if let Some(r) =
        kb.reranking_configuration.as_ref().and_then(|r| r.bedrock_reranking_configuration.as_ref())
    {
        check_reranking(
            v,
            &pointer(&pointer(at, "rerankingConfiguration"), "bedrockRerankingConfiguration"),
            r,
        );
    }
}

/// Deepest nesting of `andAll`/`orAll` accepted in a retrieval filter.
pub const MAX_FILTER_DEPTH: usize = 5;

/// Most filters in one `andAll`/`orAll` (AWS's model sets no maximum; the registry's
/// bound).
pub const MAX_FILTER_LIST: usize = 16;

fn check_filter(v: &mut Violations, at: &str, filter: &RetrievalFilter, depth: usize) {
    use RetrievalFilter as F;
    match filter {
        F::AndAll(list) | F::OrAll(list) => {
            let name = if matches!(filter, F::AndAll(_)) { "andAll" } else { "orAll" };
            let at = pointer(at, name);
            if list.len() < 2 {
                v.push(
                    &at,
                    format!(
                        "needs at least 2 filters (AWS `RetrievalFilterList`; got {})",
                        list.len()
                    ),
                );
            }
            super::common::check_count(
                v,
                &at,
                list.len(),
                MAX_FILTER_LIST,
                "the registry's bound; AWS's model sets none",
            );
            if depth >= MAX_FILTER_DEPTH {
                v.push(&at, format!("filters nest at most {MAX_FILTER_DEPTH} levels deep"));
                return;
            }
            for (i, f) in list.iter().enumerate() {
                check_filter(v, &pointer(&at, i), f, depth + 1);
            }
        }
        F::Equals(a) => check_attribute(v, at, "equals", a),
        F::NotEquals(a) => check_attribute(v, at, "notEquals", a),
        F::GreaterThan(a) => check_attribute(v, at, "greaterThan", a),
        F::GreaterThanOrEquals(a) => check_attribute(v, at, "greaterThanOrEquals", a),
        F::LessThan(a) => check_attribute(v, at, "lessThan", a),
        F::LessThanOrEquals(a) => check_attribute(v, at, "lessThanOrEquals", a),
        F::In(a) => check_attribute(v, at, "in", a),
        F::NotIn(a) => check_attribute(v, at, "notIn", a),
        F::ListContains(a) => check_attribute(v, at, "listContains", a),
        F::StartsWith(a) => check_attribute(v, at, "startsWith", a),
        F::StringContains(a) => check_attribute(v, at, "stringContains", a),
    }
}

fn check_attribute(v: &mut Violations, at: &str, operator: &str, a: &FilterAttribute) {
    length(v, &pointer(&pointer(at, operator), "key"), &a.key, 1, 100, "FilterKey");
}

fn check_reranking(v: &mut Violations, at: &str, r: &BedrockRerankingConfiguration) {
    let arn = &r.model_configuration.model_arn;
    let model_at = pointer(&pointer(at, "modelConfiguration"), "modelArn");
    length(v, &model_at, arn, 1, 2_048, "BedrockRerankingModelArn");
    pattern(
        v,
        &model_at,
        arn,
        &RERANKING_MODEL,
        "BedrockRerankingModelArn",
        "arn:aws:bedrock:us-west-2::foundation-model/amazon.rerank-v1:0",
    );
    range(
        v,
        &pointer(at, "numberOfRerankedResults"),
        r.number_of_reranked_results,
        1,
        100,
        "NumberOfRerankedResults",
    );
    if let Some(fields) =
        r.metadata_configuration.as_ref().and_then(|m| m.selective_mode_configuration.as_ref())
    {
        let (name, list) = match fields {
            SelectiveModeConfiguration::FieldsToInclude(l) => ("fieldsToInclude", l),
            SelectiveModeConfiguration::FieldsToExclude(l) => ("fieldsToExclude", l),
        };
        let at = pointer(
            &pointer(&pointer(at, "metadataConfiguration"), "selectiveModeConfiguration"),
            name,
        );
        if list.is_empty() || list.len() > 100 {
            v.push(
                &at,
                format!("must list 1 to 100 fields (AWS `FieldsForReranking`; got {})", list.len()),
            );
        }
        for (i, f) in list.iter().enumerate() {
            length(
                v,
                &pointer(&pointer(&at, i), "fieldName"),
                &f.field_name,
                1,
                2_000,
                "FieldForRerankingFieldNameString",
            );
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn aws_patterns_compile_and_match_their_examples() {
        for (re, good, bad) in [
            (&*MODEL, "anthropic.claude-3-5-sonnet-20240620-v1:0", "my model!"),
            (&*MODEL, "us.anthropic.claude-3-5-haiku-20241022-v1:0", "anthropic claude"),
            (
                &*MODEL,
                "arn:aws:bedrock:us-east-1:123456789012:inference-profile/us.anthropic.claude-3-haiku-20240307-v1:0",
                "arn:aws:s3:::bucket",
            ),
            (
                &*KMS_KEY,
                "arn:aws:kms:us-east-1:123456789012:key/1234abcd-12ab-34cd-56ef-1234567890ab",
                "alias/mine",
            ),
            (&*GUARDRAIL_ID, "abc123", "ABC 123"),
            (&*GUARDRAIL_VERSION, "DRAFT", "0"),
            (
                &*ALIAS_ARN,
                "arn:aws:bedrock:us-east-1:123456789012:agent-alias/AGENT12345/ALIAS12345",
                "arn:aws:bedrock:us-east-1:123456789012:agent/AGENT12345",
            ),
            (&*KNOWLEDGE_BASE_ID, "KB12345678", "kb-weather"),
            (
                &*RERANKING_MODEL,
                "arn:aws:bedrock:us-west-2::foundation-model/amazon.rerank-v1:0",
                "amazon.rerank-v1:0",
            ),
        ] {
            assert!(re.is_match(good), "{good}");
            assert!(!re.is_match(bad), "{bad}");
        }
    }
}
