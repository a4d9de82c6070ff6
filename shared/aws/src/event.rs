//! The action-group event Bedrock would send for a call: AWS's documented function
//! form, each argument encoded as the registry exports its parameter (rich parameters
//! as JSON text).

use std::collections::BTreeMap;

use bedrock_action_group::{Agent, FunctionEvent, Parameter};
use registry_core::{ToolDefinition, Violation};
use registry_types::BedrockType;
use serde_json::{Map, Value};

/// The `agent` block of test events: no real Bedrock agent is involved.
pub const TEST_AGENT_ID: &str = "REGISTRYTEST";

/// The event for calling `function` of `tool` with `arguments`; `Err` names each
/// problem by JSON Pointer into the request (`/function`, `/arguments/<name>`).
pub fn function_event(
    tool: &ToolDefinition,
    function: &str,
    arguments: &Map<String, Value>,
    session_attributes: BTreeMap<String, String>,
    session_id: String,
) -> Result<FunctionEvent, Vec<Violation>> {
    let exported = registry_types::bedrock_functions(
        tool.function_schema.as_deref().unwrap_or_default(),
        tool.types.as_ref(),
    );
    let Some(declared) = exported.iter().find(|f| f.name == function) else {
        let names: Vec<&str> = exported.iter().map(|f| f.name.as_str()).collect();
        return Err(vec![Violation {
            path: "/function".into(),
            message: format!(
                "`{function}` is not a function of `{}` (it has: {})",
                tool.tool_id,
                names.join(", ")
            ),
        }]);
    };
    let mut errors = Vec::new();
    let mut parameters = Vec::with_capacity(arguments.len());
    for (name, value) in arguments {
        let Some(p) = declared.parameters.get(name) else {
            errors.push(Violation {
                path: registry_core::pointer("/arguments", name),
                message: format!(
                    "`{function}` has no parameter `{name}`; Bedrock only sends declared parameters"
                ),
            });
            continue;
        };
        let text = match value {
            Value::String(s) => s.clone(),
            other => other.to_string(),
        };
        parameters.push(Parameter::new(name.clone(), kind(p.ty), text));
    }
    if !errors.is_empty() {
        return Err(errors);
    }
    Ok(FunctionEvent {
        message_version: "1.0".into(),
        agent: Agent {
            name: "agent-registry-test-invoke".into(),
            id: TEST_AGENT_ID.into(),
            alias: "TSTALIASID".into(),
            version: "DRAFT".into(),
        },
        input_text: String::new(),
        session_id,
        action_group: tool.name.clone(),
        function: function.to_owned(),
        parameters,
        session_attributes,
        prompt_session_attributes: BTreeMap::new(),
    })
}

fn kind(ty: BedrockType) -> &'static str {
    match ty {
        BedrockType::String => "string",
        BedrockType::Number => "number",
        BedrockType::Integer => "integer",
        BedrockType::Boolean => "boolean",
        BedrockType::Array => "array",
    }
}
