//! Sample definitions the checks write (built from JSON, as clients send them).

use registry_core::{Definition, LifecycleStatus};
use serde_json::{Value, json};

/// A lambda tool with the given id.
pub fn tool_json(id: &str) -> Value {
    json!({
        "toolId": id,
        "executionType": "lambda",
        "name": "weather",
        "displayName": "Weather",
        "description": "Looks up the weather.",
        "supportedAgentFrameworks": ["bedrock"],
        "lambdaArn": "arn:aws:lambda:us-east-1:123456789012:function:weather",
        "functionSchema": [{
            "name": "get_weather",
            "description": "Weather for a city.",
            "parameters": { "city": { "description": "City", "type": "string", "required": true } }
        }]
    })
}

/// A valid MCP tool with an OAuth client secret.
pub fn mcp_tool_json(id: &str, secret: &str) -> Value {
    json!({
        "toolId": id,
        "executionType": "mcp",
        "name": "forecast",
        "displayName": "Forecast",
        "description": "Forecast over MCP.",
        "supportedAgentFrameworks": ["bedrock"],
        "url": "https://mcp.example.com/forecast",
        "auth": { "clientId": "registry", "clientSecret": secret, "tokenUrl": "https://auth.example.com/token" },
        "functionSchema": [{
            "name": "get_forecast",
            "description": "Forecast for a city.",
            "parameters": { "city": { "description": "City", "type": "string", "required": true } }
        }]
    })
}

/// An agent with the given id and tools.
pub fn agent_json(id: &str, tool_ids: &[&str]) -> Value {
    json!({
        "agentId": id,
        "basePrompt": "You help people with the weather: answer briefly and name the city.",
        "foundationModel": "anthropic.claude-3-haiku-20240307-v1:0",
        "toolIds": tool_ids,
    })
}

/// Parses a tool from JSON.
pub fn tool_from(value: Value) -> Definition {
    Definition::Tool(serde_json::from_value(value).expect("sample tool parses"))
}

/// Parses an agent from JSON.
pub fn agent_from(value: Value) -> Definition {
    Definition::Agent(serde_json::from_value(value).expect("sample agent parses"))
}

/// A lambda tool with the given id.
pub fn tool(id: &str) -> Definition {
    tool_from(tool_json(id))
}

/// An agent with the given id and tools.
pub fn agent(id: &str, tool_ids: &[&str]) -> Definition {
    agent_from(agent_json(id, tool_ids))
}

/// `definition` with its lifecycle status set.
pub fn with_status(mut definition: Definition, status: LifecycleStatus) -> Definition {
    let lifecycle = match &mut definition {
        Definition::Agent(a) => &mut a.lifecycle,
        Definition::Tool(t) => &mut t.lifecycle,
    };
    lifecycle.get_or_insert_with(Default::default).status = status;
    definition
}

/// `definition` (a tool) with a new description, to make a visible change.
pub fn with_description(mut definition: Definition, description: &str) -> Definition {
    if let Definition::Tool(t) = &mut definition {
        t.description = description.to_owned();
    }
    definition
}

/// The description of a tool (empty for agents).
pub fn description(definition: &Definition) -> &str {
    match definition {
        Definition::Tool(t) => &t.description,
        Definition::Agent(_) => "",
    }
}

/// Ids of a list of definitions.
pub fn ids(definitions: &[Definition]) -> Vec<String> {
    definitions.iter().map(|d| d.id().to_owned()).collect()
}
