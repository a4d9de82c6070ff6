//! Agent validation.

use std::collections::HashSet;

use super::bedrock;
use super::common::{
    check_count, check_id, check_lambda_arn, check_lifecycle, check_rules, check_tags,
    check_test_type, check_text, check_unknown,
};
use super::rollout::check_rollout;
use crate::pointer;
use crate::violation::Violations;
use crate::{AgentDefinition, Collaborator, KnowledgeBase, Violation};

/// Maximum number of distinct tools an agent references (`toolIds` and `toolOverrides`
/// targets): keeps every create within one DynamoDB transaction (decision 7).
pub const MAX_TOOLS: usize = 32;

const FIELDS: &[&str] = &[
    "agentId",
    "description",
    "basePrompt",
    "foundationModel",
    "verificationFoundationModel",
    "toolIds",
    "accessRules",
    "limits",
    "rolloutPolicy",
    "runtimeAdapter",
    "endpoint",
    "dontCacheThis",
    "collaborators",
    "agentCollaboration",
    "knowledgeBases",
    "guardrailConfiguration",
    "idleSessionTTLInSeconds",
    "promptOverrideConfiguration",
    "customerEncryptionKeyArn",
    "orchestrationType",
    "customOrchestration",
    "bedrockModelConfigurations",
    "lifecycle",
    "tags",
    "testType",
    "version",
    "createdBy",
    "lastModifiedBy",
    "createdAt",
    "updatedAt",
];

/// Checks an agent definition; `Err` lists every violation with its JSON Pointer.
pub fn agent(def: &AgentDefinition) -> Result<(), Vec<Violation>> {
    let mut v = Violations::new();
    check_unknown(&mut v, "", &def.unknown, FIELDS);
    check_id(&mut v, "/agentId", &def.agent_id);
    bedrock::check_agent(&mut v, def);
    if let Some(model) = &def.verification_foundation_model {
        bedrock::check_model(&mut v, "/verificationFoundationModel", model);
    }
    check_tool_ids(&mut v, &def.tool_ids);
    if let Some(limits) = &def.limits {
        super::limits::check_limits(&mut v, limits);
    }
    let references = def.reference_count();
    if references > MAX_TOOLS && def.tool_ids.len() <= MAX_TOOLS {
        v.push(
            "/rolloutPolicy/toolOverrides",
            format!("an agent may reference at most {MAX_TOOLS} distinct tools, counting override targets (got {references})"),
        );
    }
    if let Some(rules) = &def.access_rules {
        check_rules(&mut v, "/accessRules", rules);
    }
    if let Some(rollout) = &def.rollout_policy {
        check_rollout(&mut v, "/rolloutPolicy", rollout);
    }
    if let Some(arn) = &def.runtime_adapter {
        check_lambda_arn(&mut v, "/runtimeAdapter", arn);
    }
    if let Some(endpoint) = &def.endpoint {
        super::tool::check_url(&mut v, "/endpoint", endpoint);
    }
    if let Some(collaborators) = &def.collaborators {
        check_collaborators(&mut v, &def.agent_id, collaborators);
    }
    if let Some(bases) = &def.knowledge_bases {
        check_count(
            &mut v,
            "/knowledgeBases",
            bases.len(),
            MAX_KNOWLEDGE_BASES,
            "Bedrock's quota of knowledge bases associated with an agent",
        );
        for (i, kb) in bases.iter().enumerate() {
            check_knowledge_base(&mut v, &pointer("/knowledgeBases", i), kb);
        }
    }
    if let Some(lifecycle) = &def.lifecycle {
        check_lifecycle(&mut v, "/lifecycle", lifecycle);
    }
    if let Some(tags) = &def.tags {
        check_tags(&mut v, "/tags", tags);
    }
    check_test_type(&mut v, "/testType", def.test_type.as_deref());
    v.into_result()
}

fn check_tool_ids(v: &mut Violations, ids: &[String]) {
    if ids.len() > MAX_TOOLS {
        v.push("/toolIds", format!("at most {MAX_TOOLS} tools are allowed (got {})", ids.len()));
    }
    let mut seen = HashSet::new();
    for (i, id) in ids.iter().enumerate() {
        let path = pointer("/toolIds", i);
        super::common::check_tool_ref(v, &path, id);
        if !seen.insert(id) {
            v.push(path, format!("duplicate tool id `{id}`"));
        }
    }
}

/// Most knowledge bases of one agent: Bedrock's quota of knowledge bases associated
/// with an agent.
pub const MAX_KNOWLEDGE_BASES: usize = 2;

/// Most collaborators of one agent: Bedrock's quota of collaborators per supervisor.
pub const MAX_COLLABORATORS: usize = 10;

fn check_collaborators(v: &mut Violations, agent_id: &str, collaborators: &[Collaborator]) {
    if collaborators.len() > MAX_COLLABORATORS {
        v.push(
            "/collaborators",
            format!(
                "{} collaborators, at most {MAX_COLLABORATORS} (Bedrock's quota of collaborators per supervisor agent)",
                collaborators.len()
            ),
        );
    }
    let mut seen = HashSet::new();
    for (i, c) in collaborators.iter().enumerate() {
        let base = pointer("/collaborators", i);
        check_unknown(
            v,
            &base,
            &c.unknown,
            &["agentId", "instruction", "historyRelay", "agentAliasArn"],
        );
        let id_path = pointer(&base, "agentId");
        check_id(v, &id_path, &c.agent_id);
        if c.agent_id == agent_id {
            v.push(&id_path, "an agent cannot collaborate with itself");
        } else if !seen.insert(&c.agent_id) {
            v.push(&id_path, format!("duplicate collaborator `{}`", c.agent_id));
        }
        check_text(v, &pointer(&base, "instruction"), &c.instruction, 4_000);
    }
}

fn check_knowledge_base(v: &mut Violations, base: &str, kb: &KnowledgeBase) {
    check_unknown(
        v,
        base,
        &kb.unknown,
        &[
            "id",
            "description",
            "supportedAgentFrameworks",
            "filter",
            "numberOfResults",
            "overrideSearchType",
            "rerankingConfiguration",
        ],
    );
    bedrock::check_knowledge_base(v, base, kb);
    let frameworks = pointer(base, "supportedAgentFrameworks");
    if kb.supported_agent_frameworks.is_empty() {
        v.push(&frameworks, "must list at least one framework");
    }
    let mut seen = HashSet::new();
    for (i, framework) in kb.supported_agent_frameworks.iter().enumerate() {
        if !seen.insert(framework) {
            v.push(pointer(&frameworks, i), "duplicate framework");
        }
    }
}
