//! A tool's definition read from the registry, its rules compiled, and what they
//! decide for a call: lifecycle, access rules, call rules, in the order
//! `POST /tools/{id}/authorize` checks them.

use std::collections::BTreeMap;
use std::sync::Arc;

use registry_access::{Decision, PreparedContext, RuleSet, ToolCall};
use registry_core::{LifecycleStatus, ToolDefinition};
use registry_types::{ArgumentSchema, SchemaError};

use bedrock_action_group::{Arguments, InvalidArguments, Parameter};

/// A tool's definition and its compiled rules, as read at `read_at_ms`.
#[derive(Debug)]
pub(crate) struct Loaded {
    /// The access rules: whether the tool is granted to the principal at all.
    pub access: RuleSet,
    /// The call rules, compiled against the tool's schema.
    pub set: RuleSet,
    /// Each function's parameters, ready to check calls against, by function name
    /// (`Err` when the tool's schema is invalid).
    pub schemas: BTreeMap<String, Result<ArgumentSchema, SchemaError>>,
    /// The definition they came from (lifecycle, rule descriptions).
    pub tool: ToolDefinition,
    /// When the read that gave them started.
    pub read_at_ms: i64,
}

impl Loaded {
    /// Compiles `tool`'s access and call rules; `Err` says why they do not compile.
    pub fn compile(tool: ToolDefinition, read_at_ms: i64) -> Result<Self, String> {
        let problem = |which: &str, errors: Vec<registry_access::RuleError>| {
            let first = errors.first().map(|e| format!("{}: {}", e.path, e.message));
            format!(
                "the {which} rules do not compile ({} problems; {})",
                errors.len(),
                first.unwrap_or_default()
            )
        };
        let access = RuleSet::compile(tool.access_rules.as_deref().unwrap_or_default())
            .map_err(|e| problem("access", e))?;
        let set = RuleSet::compile_call(
            tool.call_rules.as_deref().unwrap_or_default(),
            Arc::new(tool.call_schema()),
        )
        .map_err(|e| problem("call", e))?;
        let schemas = tool
            .function_schema
            .iter()
            .flatten()
            .map(|f| (f.name.clone(), ArgumentSchema::new(f, tool.types.as_ref())))
            .collect();
        Ok(Self { access, set, schemas, tool, read_at_ms })
    }

    /// A call's arguments: decoded and checked against the tool's schema for `function`
    /// when it has one, else converted as Bedrock types them.
    pub fn arguments(
        &self,
        function: &str,
        parameters: &[Parameter],
    ) -> Result<Arguments, InvalidArguments> {
        match self.schemas.get(function) {
            Some(Ok(schema)) => Arguments::from_parameters_checked(parameters, schema),
            Some(Err(invalid)) => Err(InvalidArguments::one(invalid.clone().into())),
            None => Arguments::from_parameters(parameters),
        }
    }

    /// Whether the registry has switched the tool off (`disabled` or `retired`).
    pub fn switched_off(&self) -> bool {
        let status = self.tool.lifecycle.as_ref().map(|l| l.status).unwrap_or_default();
        matches!(status, LifecycleStatus::Disabled | LifecycleStatus::Retired)
    }
}

/// What a live tool's definition decided for a call, in the order
/// `POST /tools/{id}/authorize` checks (after the arguments).
#[derive(Debug)]
pub(crate) enum Stage {
    /// The tool is `disabled` or `retired`.
    SwitchedOff,
    /// The access rules refused the principal.
    Access(Decision),
    /// The access rules granted the tool; the call rules decided this.
    Call(Decision),
}

impl Loaded {
    /// Decides `call` for the prepared principal: lifecycle, access rules, call rules.
    pub fn decide(&self, prepared: &PreparedContext<'_>, call: &ToolCall<'_>) -> Stage {
        self.before_call(prepared)
            .unwrap_or_else(|| Stage::Call(self.set.evaluate_call(prepared, call)))
    }

    /// What refuses the principal before any call rule (lifecycle, access rules);
    /// `None` when the call rules decide.
    pub fn before_call(&self, prepared: &PreparedContext<'_>) -> Option<Stage> {
        if self.switched_off() {
            return Some(Stage::SwitchedOff);
        }
        let access = self.access.evaluate(prepared);
        (!access.is_allowed()).then_some(Stage::Access(access))
    }

    /// Why `stage` refuses, as the model may read it; `None` when it allows.
    pub fn denial(&self, stage: &Stage) -> Option<String> {
        let tool = &self.tool;
        match stage {
            Stage::SwitchedOff => Some("the tool is switched off in the registry".to_owned()),
            Stage::Access(decision) => Some(format!(
                "the tool is not granted to this principal: {}",
                why_denied(decision, tool.access_rules.as_deref().unwrap_or_default())
            )),
            Stage::Call(decision) if !decision.is_allowed() => {
                Some(why_denied(decision, tool.call_rules.as_deref().unwrap_or_default()))
            }
            Stage::Call(_) => None,
        }
    }
}

/// Why `decision` (a denial of `rules`) denied, as the model reads it: the deciding
/// rule's description and id, or what kept the rules from allowing.
fn why_denied(decision: &Decision, rules: &[registry_access::AccessRule]) -> String {
    match (decision.reason, decision.rule_id.as_deref()) {
        (registry_access::ReasonCode::RuleMatch, Some(id)) => {
            let rule = rules.iter().find(|r| r.id.as_deref() == Some(id));
            match rule.and_then(|r| r.description.as_deref()) {
                Some(description) => format!("{description} (rule `{id}`)"),
                None => format!("denied by rule `{id}`"),
            }
        }
        (registry_access::ReasonCode::Error, Some(id)) => {
            format!("rule `{id}` could not be checked")
        }
        (registry_access::ReasonCode::Error, None) => "a rule could not be checked".to_owned(),
        _ => "no rule allows it".to_owned(),
    }
}
