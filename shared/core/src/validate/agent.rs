//! Agent validation.

use std::collections::HashSet;

use super::common::{
    check_id, check_lambda_arn, check_lifecycle, check_rules, check_tags, check_test_type,
    check_text, check_unknown,
};
use super::rollout::check_rollout;
use crate::violation::{Violations, pointer};
use crate::{AgentDefinition, Collaborator, KnowledgeBase, Violation};

/// Maximum length of an agent instruction, in characters.
pub const MAX_PROMPT: usize = 100_000;
/// Maximum number of distinct tools an agent references (`toolIds` and `toolOverrides`
/// targets): keeps every create within one DynamoDB transaction (decision 7).
pub const MAX_TOOLS: usize = 32;

const FIELDS: &[&str] = &[
    "agentId",
    "basePrompt",
    "foundationModel",
    "verificationFoundationModel",
    "toolIds",
    "accessRules",
    "rolloutPolicy",
    "runtimeAdapter",
    "dontCacheThis",
    "collaborators",
    "agentCollaboration",
    "knowledgeBases",
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
    check_text(&mut v, "/basePrompt", &def.base_prompt, MAX_PROMPT);
    for (field, model) in [
        ("/foundationModel", &def.foundation_model),
        ("/verificationFoundationModel", &def.verification_foundation_model),
    ] {
        if let Some(model) = model {
            check_text(&mut v, field, model, 2_048);
        }
    }
    check_tool_ids(&mut v, &def.tool_ids);
    let references = def.references().len();
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
    if let Some(collaborators) = &def.collaborators {
        check_collaborators(&mut v, &def.agent_id, collaborators);
    }
    if let Some(bases) = &def.knowledge_bases {
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
        check_id(v, &path, id);
        if !seen.insert(id) {
            v.push(path, format!("duplicate tool id `{id}`"));
        }
    }
}

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
        check_unknown(v, &base, &c.unknown, &["agentId", "instruction", "historyRelay"]);
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
        &["id", "description", "supportedAgentFrameworks", "filter", "numberOfResults"],
    );
    check_text(v, &pointer(base, "id"), &kb.id, 128);
    check_text(v, &pointer(base, "description"), &kb.description, 500);
    if kb.supported_agent_frameworks.is_empty() {
        v.push(pointer(base, "supportedAgentFrameworks"), "must list at least one framework");
    }
    if let Some(n) = kb.number_of_results
        && !(1..=100).contains(&n)
    {
        v.push(pointer(base, "numberOfResults"), "must be between 1 and 100");
    }
}
