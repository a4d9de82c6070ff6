//! What resolution needs precompiled per definition version: agents' rule sets, and
//! tools' rule sets with their action groups (built once, shared by every resolution).

use std::sync::Arc;

use registry_access::{RuleError, RuleSet};

use crate::model::{AgentDefinition, ToolDefinition};
use crate::resolve::bedrock::ActionGroup;
use crate::resolve::encoded::Encoded;

/// A tool version ready for resolution.
#[derive(Debug)]
pub struct CompiledTool {
    /// The tool's access rules, compiled.
    pub rules: RuleSet,
    /// The tool's call rules, compiled against its schema.
    pub call_rules: RuleSet,
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

/// Compiles a tool's access rules and builds its action group.
pub fn compile_tool(tool: &ToolDefinition) -> Result<CompiledTool, CompileError> {
    let rules = RuleSet::compile(tool.access_rules.as_deref().unwrap_or_default())
        .map_err(CompileError::Rules)?;
    let call_rules = compile_call_rules(tool)?;
    let action_group = ActionGroup::of(tool).ok_or(CompileError::NoTarget)?;
    let action_group =
        Encoded::new(action_group).map_err(|e| CompileError::Encoding(e.to_string()))?;
    Ok(CompiledTool { rules, call_rules, action_group: Arc::new(action_group) })
}

/// Compiles a tool's call rules against its schema.
pub fn compile_call_rules(tool: &ToolDefinition) -> Result<RuleSet, CompileError> {
    RuleSet::compile_call(
        tool.call_rules.as_deref().unwrap_or_default(),
        Arc::new(tool.call_schema()),
    )
    .map_err(CompileError::Rules)
}

/// Gives compiled forms of definitions, typically from a cache keyed by (kind, id,
/// version): nothing is parsed on the request path once warm.
pub trait RuleCache {
    /// The agent's compiled access rules.
    fn agent(&self, agent: &AgentDefinition) -> Result<Arc<RuleSet>, CompileError>;
    /// The tool's compiled rules and action group.
    fn tool(&self, tool: &ToolDefinition) -> Result<Arc<CompiledTool>, CompileError>;
}
