//! The first two stages of every decision about a tool, for resolution and for each
//! call alike: its lifecycle (`disabled` and `retired` tools are used by nobody), then
//! its access rules for the principal, evaluated with `request.toolId` set. Resolution
//! keeps a tool when this grants it; `registry_policy::decide` starts with it.

use registry_access::{Decision, PreparedContext, RuleOutcome};

use crate::model::{LifecycleStatus, ToolDefinition};
use crate::resolve::compiled::ToolRules;

/// What a tool's lifecycle and access rules say of a principal.
#[derive(Debug, Clone, PartialEq)]
pub enum ToolAccess {
    /// The tool is `disabled` or `retired` (the status says which).
    SwitchedOff(LifecycleStatus),
    /// The access rules decided: granted when the decision allows.
    Decided(Decision),
}

impl ToolAccess {
    /// Whether the tool is granted.
    pub fn is_granted(&self) -> bool {
        matches!(self, Self::Decided(decision) if decision.is_allowed())
    }
}

/// Decides `tool`'s lifecycle and access rules for `prepared` (its `request.toolId` set
/// to the tool); with `explain`, every access rule's result too (none when switched off).
pub fn tool_access(
    tool: &ToolDefinition,
    rules: &ToolRules,
    prepared: &mut PreparedContext<'_>,
    explain: bool,
) -> (ToolAccess, Vec<RuleOutcome>) {
    let status = tool.lifecycle.as_ref().map(|l| l.status).unwrap_or_default();
    if matches!(status, LifecycleStatus::Disabled | LifecycleStatus::Retired) {
        return (ToolAccess::SwitchedOff(status), Vec::new());
    }
    prepared.set_tool_id(Some(&tool.tool_id));
    let (decision, outcomes) = if explain {
        rules.access.explain(prepared)
    } else {
        (rules.access.evaluate(prepared), Vec::new())
    };
    (ToolAccess::Decided(decision), outcomes)
}
