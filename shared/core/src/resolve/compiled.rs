//! What resolution needs precompiled per definition version: agents' rule sets, and
//! tools' rule sets with their action groups (built once, shared by every resolution).
//! [`ToolRules::compile`] is the one place a tool's rules are compiled: resolution,
//! `POST /tools/{id}/authorize` and the guard all decide on what it gives.

use std::sync::Arc;

use registry_access::{RuleError, RuleSet};

use crate::model::{AgentDefinition, ToolDefinition};
use crate::resolve::bedrock::ActionGroup;
use crate::resolve::encoded::Encoded;

/// A tool's rules, compiled: what every enforcement point decides a call on.
#[derive(Debug)]
pub struct ToolRules {
    /// The access rules: whether the tool is granted to the principal at all.
    pub access: RuleSet,
    /// The call rules, compiled against the tool's schema.
    pub call: RuleSet,
}

impl ToolRules {
    /// Compiles `tool`'s access rules and its call rules (against its schema).
    pub fn compile(tool: &ToolDefinition) -> Result<Self, CompileError> {
        let access = RuleSet::compile(tool.access_rules.as_deref().unwrap_or_default())
            .map_err(CompileError::Rules)?;
        let call = RuleSet::compile_call(
            tool.call_rules.as_deref().unwrap_or_default(),
            Arc::new(tool.call_schema()),
        )
        .map_err(CompileError::CallRules)?;
        Ok(Self { access, call })
    }
}

/// A tool version ready for resolution.
#[derive(Debug)]
pub struct CompiledTool {
    /// The tool's access and call rules.
    pub rules: ToolRules,
    /// The tool's action group.
    pub action_group: Arc<Encoded<ActionGroup>>,
}

/// Why a stored definition cannot be used (it passed validation on write, so this
/// means stale or corrupt data); resolution then fails closed.
#[derive(Debug, Clone, PartialEq, Eq, thiserror::Error)]
pub enum CompileError {
    /// The access rules do not compile.
    #[error("access rules do not compile: {}", first(.0))]
    Rules(Vec<RuleError>),
    /// The call rules do not compile.
    #[error("call rules do not compile: {}", first(.0))]
    CallRules(Vec<RuleError>),
    /// A tool lacks the field its `executionType` needs (`lambdaArn`, `url`, `code`).
    #[error("the tool lacks the field its executionType needs")]
    NoTarget,
    /// The action group cannot be encoded as JSON.
    #[error("the action group cannot be encoded: {0}")]
    Encoding(String),
}

fn first(errors: &[RuleError]) -> String {
    errors.first().map(ToString::to_string).unwrap_or_default()
}

/// Compiles an agent's access rules.
pub fn compile_agent(agent: &AgentDefinition) -> Result<RuleSet, CompileError> {
    RuleSet::compile(agent.access_rules.as_deref().unwrap_or_default()).map_err(CompileError::Rules)
}

/// Compiles a tool's rules ([`ToolRules::compile`]) and builds its action group.
pub fn compile_tool(tool: &ToolDefinition) -> Result<CompiledTool, CompileError> {
    let rules = ToolRules::compile(tool)?;
    let action_group = ActionGroup::of(tool).ok_or(CompileError::NoTarget)?;
    let action_group =
        Encoded::new(action_group).map_err(|e| CompileError::Encoding(e.to_string()))?;
    Ok(CompiledTool { rules, action_group: Arc::new(action_group) })
}

/// Gives compiled forms of definitions, typically from a cache keyed by (kind, id,
/// version): nothing is parsed on the request path once warm.
pub trait RuleCache {
    /// The agent's compiled access rules.
    fn agent(&self, agent: &AgentDefinition) -> Result<Arc<RuleSet>, CompileError>;
    /// The tool's compiled rules and action group.
    fn tool(&self, tool: &ToolDefinition) -> Result<Arc<CompiledTool>, CompileError>;
}
