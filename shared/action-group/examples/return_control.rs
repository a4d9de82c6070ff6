//! A chat runtime's return-of-control step: Bedrock returned MCP or inline tool calls
//! (`returnControl` in the InvokeInlineAgent event stream); run each and build the
//! `inlineSessionState` of the next InvokeInlineAgent call of the session.
//!
//! `cargo run -p bedrock-action-group --example return_control`

use bedrock_action_group::{ControlCall, ToolError, parse_return_control, session_state};
use serde::Deserialize;
use serde_json::{Value, json};

#[derive(Deserialize)]
struct ForecastArgs {
    city: String,
    days: u8,
}

/// The runtime's own tool (an MCP client call in a real runtime).
fn run(call: &ControlCall) -> Result<Value, ToolError> {
    match (call.action_group.as_str(), call.function()) {
        ("forecast", Some("get_forecast")) => {
            let args: ForecastArgs = call.arguments()?.extract()?;
            if args.days > 10 {
                return Err(ToolError::invalid("days", "at most 10 days ahead"));
            }
            Ok(json!({"city": args.city, "days": args.days, "outlook": "sunny"}))
        }
        (group, f) => Err(ToolError::failure(format!("no tool {group}/{f:?} in this runtime"))),
    }
}

fn main() -> Result<(), Box<dyn std::error::Error>> {
    // What the event stream's `returnControl` event carries.
    let payload = json!({"invocationId": "79e0feaa-c6f7-49bf-814d-b7c498505172",
        "invocationInputs": [{"functionInvocationInput": {"actionGroup": "forecast",
            "function": "get_forecast", "actionInvocationType": "RESULT",
            "parameters": [{"name": "city", "type": "string", "value": "Paris"},
                           {"name": "days", "type": "integer", "value": "3"}]}}]});
    let control = parse_return_control(&payload)?;
    let results: Vec<_> = control.calls.iter().map(|call| call.result(run(call))).collect();
    let state = session_state(&control.invocation_id, &results)
        .map_err(|n| format!("{n} results; AWS takes 1 to 5 per call"))?;
    // Next call: the resolution's `inlineAgent` + sessionId + this state (no inputText needed).
    println!("{}", serde_json::to_string_pretty(&json!({"inlineSessionState": state}))?);
    Ok(())
}
