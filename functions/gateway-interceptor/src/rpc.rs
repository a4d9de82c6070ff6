//! The MCP messages the interceptor reads and writes (JSON-RPC 2.0): a request's method,
//! id and `tools/call` parameters; the tool error a denied call is answered with; a
//! JSON-RPC error; the tools of a `tools/list` result.

use std::borrow::Cow;

use serde::{Deserialize, Serialize};
use serde_json::value::RawValue;
use serde_json::{Map, Value};

use crate::members::{self, Members, Repeated};
use crate::unreadable::Unreadable;
use registry_core::strict_json::parse_strict;

/// JSON-RPC's "Invalid Request": not a request this function can read.
pub const INVALID_REQUEST: i32 = -32600;
/// JSON-RPC's "Invalid params": a `tools/call` without a tool name or with arguments that
/// are not an object.
pub const INVALID_PARAMS: i32 = -32602;
/// JSON-RPC's "Internal error": a response this function cannot read to filter.
pub const INTERNAL_ERROR: i32 = -32603;

/// A JSON-RPC message of the client: a request, a notification (no `id`), or a response
/// to the server (no `method`).
#[derive(Debug, Deserialize)]
pub struct Message<'a> {
    /// Echoed in the answer (`null` when absent, or not a string or a number).
    #[serde(borrow, default)]
    pub id: Option<&'a RawValue>,
    /// The method, e.g. `tools/call`.
    #[serde(borrow, default)]
    pub method: Option<Cow<'a, str>>,
    /// The method's parameters.
    #[serde(borrow, default)]
    pub params: Option<&'a RawValue>,
}

impl<'a> Message<'a> {
    /// The message `raw` is, when it is a JSON object of this shape (each member once).
    pub fn read(raw: &'a RawValue) -> Result<Self, Unreadable> {
        if !crate::wire::is_object(raw) {
            return Err(Unreadable::MessageNotObject);
        }
        serde_json::from_str(raw.get()).map_err(Unreadable::Message)
    }
}

/// `tools/call`'s parameters: the gateway's tool name and the arguments.
#[derive(Debug)]
pub struct CallParams<'a> {
    /// `<target>___<tool>` on an AgentCore gateway.
    pub name: Cow<'a, str>,
    /// The arguments (absent: none).
    pub arguments: Map<String, Value>,
}

#[derive(Deserialize)]
struct Params<'a> {
    #[serde(borrow, default)]
    name: Option<&'a RawValue>,
    #[serde(borrow, default)]
    arguments: Option<&'a RawValue>,
}

impl<'a> CallParams<'a> {
    /// The parameters of a `tools/call`, or why they are invalid (one line): no `params`
    /// object, no string `name`, `arguments` neither absent nor an object, `name` or
    /// `arguments` given twice, or a member given twice anywhere in the arguments.
    pub fn read(params: Option<&'a RawValue>) -> Result<Self, Unreadable> {
        let Some(params) = params.filter(|p| crate::wire::is_object(p)) else {
            return Err(Unreadable::NoParams);
        };
        let read: Params<'a> = serde_json::from_str(params.get()).map_err(Unreadable::Params)?;
        let name = read
            .name
            .and_then(members::text)
            .filter(|n| !n.is_empty())
            .ok_or(Unreadable::NoToolName)?;
        let arguments = match read.arguments.map(|raw| parse_strict(raw.get().as_bytes())) {
            None | Some(Ok(Value::Null)) => Map::new(),
            Some(Ok(Value::Object(map))) => map,
            Some(Ok(_)) => return Err(Unreadable::ArgumentsNotObject),
            Some(Err(e)) => return Err(Unreadable::Arguments(e)),
        };
        Ok(Self { name, arguments })
    }
}

/// `{"jsonrpc": "2.0", "id": id, "result": {"isError": true, "content": [{"type": "text",
/// "text": text}]}}`: a tool's error result, which the client shows the model (and the
/// session goes on).
pub fn tool_error(id: Option<&RawValue>, text: &str) -> Box<RawValue> {
    let text = &cut(text);
    #[derive(Serialize)]
    #[serde(rename_all = "camelCase")]
    struct ToolError<'t> {
        is_error: bool,
        content: [Content<'t>; 1],
    }
    #[derive(Serialize)]
    struct Content<'t> {
        #[serde(rename = "type")]
        kind: &'static str,
        text: &'t str,
    }
    let result = ToolError { is_error: true, content: [Content { kind: "text", text }] };
    answer(&Answer { jsonrpc: "2.0", id: echoed(id), result: Some(&result), error: None })
}

/// `{"jsonrpc": "2.0", "id": id, "error": {"code": code, "message": message}}`.
pub fn error(id: Option<&RawValue>, code: i32, message: &str) -> Box<RawValue> {
    let error = RpcError { code, message: &cut(message) };
    answer::<()>(&Answer { jsonrpc: "2.0", id: echoed(id), result: None, error: Some(error) })
}

/// Most characters of a message an answer or a decision line carries: what the caller
/// sent (a name, a version, a parser's excerpt of a value) is repeated, at most this much.
pub const MAX_TEXT_CHARS: usize = 1_024;

/// `text`, cut after [`MAX_TEXT_CHARS`] characters (with `...` where it was cut).
pub fn cut(text: &str) -> Cow<'_, str> {
    match text.char_indices().nth(MAX_TEXT_CHARS) {
        Some((end, _)) => Cow::Owned(format!("{}...", &text[..end])),
        None => Cow::Borrowed(text),
    }
}

/// The id an answer repeats: the request's when JSON-RPC allows it (a string, a number
/// or null) and a strict parser reads it, else null (an object, a list or a boolean is no
/// id a client can match; a lone surrogate or a number beyond `f64`, no JSON the gateway
/// reads).
fn echoed(id: Option<&RawValue>) -> &RawValue {
    id.filter(|id| {
        let read = serde_json::from_str::<Value>(id.get());
        matches!(read, Ok(Value::String(_) | Value::Number(_) | Value::Null))
    })
    .unwrap_or(RawValue::NULL)
}

#[derive(Serialize)]
struct Answer<'a, R> {
    jsonrpc: &'static str,
    id: &'a RawValue,
    #[serde(skip_serializing_if = "Option::is_none")]
    result: Option<&'a R>,
    #[serde(skip_serializing_if = "Option::is_none")]
    error: Option<RpcError<'a>>,
}

#[derive(Serialize)]
struct RpcError<'a> {
    code: i32,
    message: &'a str,
}

fn answer<R: Serialize>(answer: &Answer<'_, R>) -> Box<RawValue> {
    serde_json::value::to_raw_value(answer).unwrap_or_else(|_| crate::wire::fallback())
}

/// A `tools/list` answer read for filtering: the body's members, its `result`'s members
/// and the listed tools (each raw, with its name when it has one).
#[derive(Debug)]
pub struct ToolList<'a> {
    body: Members<'a>,
    result: Members<'a>,
    /// The tools in their order: `(name, tool)`.
    pub tools: Vec<(Option<Cow<'a, str>>, &'a RawValue)>,
}

/// What a `tools/list` response body is.
#[derive(Debug)]
pub enum Listed<'a> {
    /// A result with tools.
    Tools(ToolList<'a>),
    /// A JSON-RPC error, or no result: nothing is listed.
    Nothing,
}

impl<'a> ToolList<'a> {
    /// Reads `body`: `Ok(Listed::Nothing)` for an error answer; `Err` (why) when it is
    /// neither an error nor a result with a `tools` list each member of which is named
    /// once.
    pub fn read(body: &'a RawValue) -> Result<Listed<'a>, Unreadable> {
        let repeated = |Repeated(name)| Unreadable::ListRepeats(name);
        let body_members = Members::of(body).ok_or(Unreadable::ListNotObject)?;
        let Some(result) = body_members.get("result").map_err(repeated)? else {
            return match body_members.get("error").map_err(repeated)? {
                Some(_) => Ok(Listed::Nothing),
                None => Err(Unreadable::NoResult),
            };
        };
        let result_members = Members::of(result).ok_or(Unreadable::ResultNotObject)?;
        let tools = result_members.get("tools").map_err(repeated)?.ok_or(Unreadable::NoTools)?;
        let tools: Vec<&'a RawValue> =
            serde_json::from_str(tools.get()).map_err(|_| Unreadable::ToolsNotList)?;
        let mut named = Vec::with_capacity(tools.len());
        for tool in tools {
            let name = match Members::of(tool) {
                Some(members) => members.get("name").map_err(repeated)?.and_then(members::text),
                None => None,
            };
            named.push((name, tool));
        }
        Ok(Listed::Tools(Self { body: body_members, result: result_members, tools: named }))
    }

    /// The body with only the tools `keep` says to keep (in their order), every other
    /// member as it was.
    pub fn keeping(&self, keep: &[bool]) -> Box<RawValue> {
        let kept: Vec<&RawValue> = self
            .tools
            .iter()
            .zip(keep.iter().copied().chain(std::iter::repeat(false)))
            .filter_map(|((_, tool), keep)| keep.then_some(*tool))
            .collect();
        let Ok(tools) = serde_json::value::to_raw_value(&kept) else {
            return crate::wire::fallback();
        };
        let result = self.result.with("tools", &tools);
        self.body.with("result", &result)
    }
}

#[cfg(test)]
mod tests {
    #![allow(clippy::unwrap_used)]

    use super::*;
    use crate::members::tests::raw;

    #[test]
    fn call_parameters_need_a_name_and_object_arguments() {
        let params = raw(r#"{"name": "refunds___issue_refund", "arguments": {"amount": 5}}"#);
        let read = CallParams::read(Some(&params)).unwrap();
        assert_eq!(read.name, "refunds___issue_refund");
        assert_eq!(Value::Object(read.arguments), serde_json::json!({"amount": 5}));
        for none in [r#"{"name": "t___f"}"#, r#"{"name": "t___f", "arguments": null}"#] {
            assert!(CallParams::read(Some(&raw(none))).unwrap().arguments.is_empty(), "{none}");
        }
        for (params, says) in [
            (None, "needs a params object"),
            (Some("[1]"), "needs a params object"),
            (Some(r#"{"arguments": {}}"#), "tool's name"),
            (Some(r#"{"name": 7}"#), "tool's name"),
            (Some(r#"{"name": ""}"#), "tool's name"),
            (Some(r#"{"name": "t___f", "arguments": [1]}"#), "must be an object"),
            (Some(r#"{"name": "t___f", "arguments": "{}"}"#), "must be an object"),
            (Some(r#"{"name": "t___f", "name": "u___g"}"#), "duplicate field `name`"),
            (Some(r#"{"name": "t___f", "arguments": {"a": 1, "a": 2}}"#), "at `/a`"),
            (Some(r#"{"name": "t___f", "arguments": {"x": [{"b": 1, "b": 2}]}}"#), "at `/x/0/b`"),
        ] {
            let params = params.map(raw);
            let why = CallParams::read(params.as_deref()).unwrap_err().to_string();
            assert!(why.contains(says), "{params:?}: {why}");
        }
    }

    #[test]
    fn answers_echo_the_id() {
        let id = raw(r#""req-7""#);
        let denied: Value = serde_json::from_str(tool_error(Some(&id), "No.").get()).unwrap();
        assert_eq!(
            denied,
            serde_json::json!({"jsonrpc": "2.0", "id": "req-7", "result": {
                "isError": true, "content": [{"type": "text", "text": "No."}]}})
        );
        for (sent, echoed) in [
            ("7", serde_json::json!(7)),
            ("-0.0", serde_json::json!(-0.0)),
            ("null", Value::Null),
            (r#"{"a":1}"#, Value::Null),
            ("[1]", Value::Null),
            ("true", Value::Null),
            (r#""\ud800""#, Value::Null),
            ("1e400", Value::Null),
        ] {
            let answer: Value =
                serde_json::from_str(tool_error(Some(&raw(sent)), "No.").get()).unwrap();
            assert_eq!(answer["id"], echoed, "{sent}");
            let answer: Value =
                serde_json::from_str(error(Some(&raw(sent)), INVALID_PARAMS, "bad").get()).unwrap();
            assert_eq!(answer["id"], echoed, "{sent}");
        }
        let error: Value = serde_json::from_str(error(None, INVALID_PARAMS, "bad").get()).unwrap();
        assert_eq!(
            error,
            serde_json::json!({"jsonrpc": "2.0", "id": null, "error": {"code": -32602, "message": "bad"}})
        );
    }

    #[test]
    fn a_tool_list_keeps_what_it_is_told_and_everything_else() {
        let body = raw(
            r#"{"jsonrpc":"2.0","id":3,"result":{"tools":[{"name":"a___x","n":1},{"name":"b___y"},{"nameless":true}],"nextCursor":"c2"}}"#,
        );
        let Listed::Tools(list) = ToolList::read(&body).unwrap() else { panic!("tools") };
        let names: Vec<_> = list.tools.iter().map(|(n, _)| n.as_deref()).collect();
        assert_eq!(names, [Some("a___x"), Some("b___y"), None]);
        assert_eq!(
            list.keeping(&[false, true, true]).get(),
            r#"{"jsonrpc":"2.0","id":3,"result":{"tools":[{"name":"b___y"},{"nameless":true}],"nextCursor":"c2"}}"#
        );
        assert_eq!(
            list.keeping(&[true]).get(),
            r#"{"jsonrpc":"2.0","id":3,"result":{"tools":[{"name":"a___x","n":1}],"nextCursor":"c2"}}"#,
            "a tool not decided is not kept"
        );
        let error = raw(r#"{"jsonrpc":"2.0","id":3,"error":{"code":-1,"message":"m"}}"#);
        assert!(matches!(ToolList::read(&error), Ok(Listed::Nothing)));
        for unreadable in [
            r#""text""#,
            r#"{"jsonrpc":"2.0","id":3}"#,
            r#"{"result":{"tools":{}}}"#,
            r#"{"result":{"cursor":"x"}}"#,
            r#"{"result":{"tools":[]},"result":{"tools":[{"name":"a___x"}]}}"#,
            r#"{"result":{"tools":[],"tools":[{"name":"a___x"}]}}"#,
            r#"{"result":{"tools":[{"name":"a___x","name":"b___y"}]}}"#,
        ] {
            assert!(ToolList::read(&raw(unreadable)).is_err(), "{unreadable}");
        }
    }
}
