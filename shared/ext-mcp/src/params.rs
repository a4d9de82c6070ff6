//! The params of a `tools/call` request: `{"name": ..., "arguments": {...}}`.

use serde_json::{Map, Value};

use crate::Malformed;

/// The largest params read (the registry API's body limit); larger ones are `INVALID`.
pub const MAX_PARAMS_BYTES: usize = 1024 * 1024;

/// A tool call as the gateway forwards it, in its backend's own (unmuxed) names.
#[derive(Debug, Clone, PartialEq)]
pub struct ToolCall {
    /// The MCP tool's name within its backend: the registry function.
    pub name: String,
    /// The call's arguments (empty when the params have none).
    pub arguments: Map<String, Value>,
}

/// Reads the JSON-RPC `params` bytes of a `tools/call`. Bytes that are not UTF-8 JSON,
/// nest deeper than the parser's limit, name an object's member twice, or exceed
/// [`MAX_PARAMS_BYTES`] are refused.
pub fn parse_tool_call(params: &[u8]) -> Result<ToolCall, Malformed> {
    if params.len() > MAX_PARAMS_BYTES {
        return Err(Malformed::TooLarge(params.len()));
    }
    // a member named twice is refused: the tool's parser may take the other one
    let value = registry_core::strict_json::parse_strict(params)
        .map_err(|e| Malformed::Json { what: "the params are", detail: e.to_string() })?;
    let Value::Object(mut object) = value else {
        return Err(Malformed::Json { what: "the params are", detail: "not an object".into() });
    };
    let name = match object.remove("name") {
        Some(Value::String(name)) if !name.is_empty() => name,
        _ => return Err(Malformed::Name),
    };
    let arguments = match object.remove("arguments") {
        None | Some(Value::Null) => Map::new(),
        Some(Value::Object(arguments)) => arguments,
        Some(_) => return Err(Malformed::Arguments),
    };
    Ok(ToolCall { name, arguments })
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn reads_name_and_arguments() {
        let call = parse_tool_call(br#"{"name":"issue_refund","arguments":{"amount":40.0}}"#);
        let call = call.ok();
        assert_eq!(call.as_ref().map(|c| c.name.as_str()), Some("issue_refund"));
        assert_eq!(call.map(|c| c.arguments.len()), Some(1));
    }

    #[test]
    fn no_arguments_is_an_empty_map() {
        let call = parse_tool_call(br#"{"name":"ping"}"#).ok();
        assert_eq!(call.map(|c| c.arguments.is_empty()), Some(true));
    }

    #[test]
    fn refuses_what_is_not_a_call() {
        let deep = format!("{}{}", "[".repeat(10_000), "]".repeat(10_000));
        let huge =
            format!(r#"{{"name":"x","arguments":{{"a":"{}"}}}}"#, "x".repeat(MAX_PARAMS_BYTES));
        for bad in [
            &b"\xff\xfe"[..],
            b"",
            b"[]",
            b"{}",
            br#"{"name":""}"#,
            br#"{"name":7}"#,
            br#"{"name":"x","arguments":[1]}"#,
            br#"{"name":"x","name":"y"}"#,
            br#"{"name":"x","arguments":{"a":{"b":2e9,"b":1}}}"#,
            deep.as_bytes(),
            huge.as_bytes(),
        ] {
            assert!(
                parse_tool_call(bad).is_err(),
                "{:?}",
                String::from_utf8_lossy(&bad[..bad.len().min(40)])
            );
        }
    }
}
