//! The in-process authorizer of returned calls: the guard's compiled rules of one tool,
//! deciding as `POST /tools/{id}/authorize` does (lifecycle, access rules, call rules),
//! for runtimes that keep the tool definitions they resolved.

use bedrock_action_group::return_control::{Authorization, Authorizer, ControlCall, Operation};
use registry_access::{PreparedContext, RequestContext, ToolCall};
use serde_json::Value;

use crate::{Loaded, Stage};

/// Authorizes in process on a tool's compiled call rules (an
/// [`Authorizer`] for `bedrock_action_group::return_control::authorize`).
#[derive(Debug)]
pub struct RuleSetAuthorizer {
    loaded: Loaded,
}

impl RuleSetAuthorizer {
    /// Compiles `tool`'s call rules; `Err` says why they do not compile.
    pub fn new(tool: registry_core::ToolDefinition) -> Result<Self, String> {
        Loaded::compile(tool, 0).map(|loaded| Self { loaded })
    }
}

impl Authorizer for RuleSetAuthorizer {
    async fn authorize(
        &self,
        tool_id: &str,
        context: &Value,
        call: &ControlCall,
    ) -> Result<Authorization, String> {
        let context: RequestContext = serde_json::from_value(context.clone())
            .map_err(|e| format!("the request context is not valid: {e}"))?;
        let mut prepared = PreparedContext::new(&context).map_err(|e| {
            format!("the request context is over the limits ({} problems)", e.len())
        })?;
        prepared.set_tool_id(Some(tool_id));
        let arguments =
            self.loaded.arguments(call.name(), &call.parameters).map_err(|e| e.reprompt_text())?;
        let http_method = match &call.operation {
            Operation::Api { http_method, .. } => Some(http_method.as_str()),
            Operation::Function(_) => None,
        };
        let call = ToolCall { function: call.name(), http_method, arguments: arguments.as_map() };
        let stage = self.loaded.decide(&prepared, &call);
        let rule_id = match &stage {
            Stage::SwitchedOff => None,
            Stage::Access(d) | Stage::Call(d) => d.rule_id.as_deref().map(str::to_owned),
        };
        let reason = self.loaded.denial(&stage);
        Ok(Authorization { allowed: reason.is_none(), rule_id, reason })
    }
}
