//! AgentCore Gateway's interceptor documents, as its developer guide ("Types of
//! interceptors", MCP targets) shows them: the events the gateway invokes an interceptor
//! Lambda with at its REQUEST and RESPONSE points, and a check of the output documents
//! it must answer ([`output_problem`]).

use serde_json::{Map, Value, json};

/// The headers a client's MCP request carries; `Authorization` and `Mcp-Session-Id`
/// when given (the gateway passes headers with `passRequestHeaders` only).
pub fn headers(bearer: Option<&str>, session: Option<&str>) -> Value {
    let mut headers = json!({
        "Accept": "application/json, text/event-stream",
        "Content-Type": "application/json",
        "User-Agent": "registry-e2e/1.0"
    });
    if let Some(token) = bearer {
        headers["Authorization"] = json!(format!("Bearer {token}"));
    }
    if let Some(session) = session {
        headers["Mcp-Session-Id"] = json!(session);
    }
    headers
}

/// A JSON-RPC request of the client.
pub fn rpc(id: Value, method: &str, params: Option<Value>) -> Value {
    let mut message = json!({"jsonrpc": "2.0", "id": id, "method": method});
    if let Some(params) = params {
        message["params"] = params;
    }
    message
}

/// `tools/call` of the gateway's tool `name` (`<target>___<tool>`) with `arguments`.
pub fn tools_call(id: Value, name: &str, arguments: Value) -> Value {
    rpc(id, "tools/call", Some(json!({"name": name, "arguments": arguments})))
}

/// `gatewayRequest` for `body`, with `headers` when the gateway passes them.
pub fn gateway_request(body: &Value, headers: Option<&Value>) -> Value {
    let mut request = json!({"path": "/mcp", "httpMethod": "POST", "body": body});
    if let Some(headers) = headers {
        request["headers"] = headers.clone();
    }
    request
}

/// The REQUEST point's event for the client's `body`.
pub fn request_event(body: &Value, headers: Option<&Value>) -> Value {
    json!({
        "interceptorInputVersion": "1.0",
        "mcp": {
            "rawGatewayRequest": {"body": body.to_string()},
            "gatewayRequest": gateway_request(body, headers)
        }
    })
}

/// The RESPONSE point's event: the client's `body`, and the target's answer `answer`.
pub fn response_event(body: &Value, headers: Option<&Value>, answer: &Value) -> Value {
    let mut event = request_event(body, headers);
    event["mcp"]["gatewayResponse"] = json!({
        "statusCode": 200,
        "headers": {"Content-Type": "application/json"},
        "body": answer
    });
    event
}

/// A `tools/list` answer listing `names` (each with a description and an input schema),
/// with `nextCursor`.
pub fn tools_list_answer(id: Value, names: &[&str], cursor: Option<&str>) -> Value {
    let tools: Vec<Value> = names
        .iter()
        .map(|name| {
            json!({
                "name": name,
                "description": format!("The tool {name}."),
                "inputSchema": {"type": "object", "properties": {}}
            })
        })
        .collect();
    let mut result = json!({"tools": tools});
    if let Some(cursor) = cursor {
        result["nextCursor"] = json!(cursor);
    }
    json!({"jsonrpc": "2.0", "id": id, "result": result})
}

/// What is wrong with `output` as an interceptor output document, if anything:
/// `interceptorOutputVersion` "1.0" and an `mcp` object holding a
/// `transformedGatewayRequest` (an object with a JSON-RPC message `body`, optional `path`,
/// `httpMethod` strings and `headers` of strings), a `transformedGatewayResponse`
/// (`statusCode` an HTTP status, optional `headers` of strings, a JSON-RPC `body`), or
/// both (the gateway then answers with the response), and nothing else.
pub fn output_problem(output: &Value) -> Option<String> {
    let Some(top) = output.as_object() else {
        return Some("the document is not a JSON object".into());
    };
    let problem = (|| {
        only(top, &["interceptorOutputVersion", "mcp"], "the document")?;
        if top.get("interceptorOutputVersion") != Some(&json!("1.0")) {
            return Err("interceptorOutputVersion is not \"1.0\"".to_owned());
        }
        let mcp = top.get("mcp").and_then(Value::as_object).ok_or("mcp is not an object")?;
        only(mcp, &["transformedGatewayRequest", "transformedGatewayResponse"], "mcp")?;
        // both may be given: the gateway then answers with the response
        let request = mcp.get("transformedGatewayRequest");
        let response = mcp.get("transformedGatewayResponse");
        if request.is_none() && response.is_none() {
            return Err("mcp holds neither a transformed request nor a response".into());
        }
        request.map_or(Ok(()), transformed_request)?;
        response.map_or(Ok(()), transformed_response)
    })();
    problem.err()
}

fn transformed_request(request: &Value) -> Result<(), String> {
    let request = request.as_object().ok_or("transformedGatewayRequest is not an object")?;
    only(request, &["path", "httpMethod", "headers", "body"], "transformedGatewayRequest")?;
    for text in ["path", "httpMethod"] {
        if request.get(text).is_some_and(|v| !v.is_string()) {
            return Err(format!("transformedGatewayRequest.{text} is not a string"));
        }
    }
    string_headers(request.get("headers"))?;
    let body = request.get("body").ok_or("transformedGatewayRequest has no body")?;
    let message = body.as_object().ok_or("the request body is not a JSON-RPC object")?;
    if message.get("jsonrpc") != Some(&json!("2.0")) {
        return Err("the request body is not JSON-RPC 2.0".into());
    }
    Ok(())
}

fn transformed_response(response: &Value) -> Result<(), String> {
    let response = response.as_object().ok_or("transformedGatewayResponse is not an object")?;
    only(response, &["statusCode", "headers", "body"], "transformedGatewayResponse")?;
    let status = response.get("statusCode").and_then(Value::as_u64);
    if !status.is_some_and(|s| (100..=599).contains(&s)) {
        return Err("transformedGatewayResponse.statusCode is not an HTTP status".into());
    }
    string_headers(response.get("headers"))?;
    let body = response.get("body").ok_or("transformedGatewayResponse has no body")?;
    let message = body.as_object().ok_or("the response body is not a JSON-RPC object")?;
    if message.get("jsonrpc") != Some(&json!("2.0")) {
        return Err("the response body is not JSON-RPC 2.0".into());
    }
    if !message.get("id").is_some_and(|id| id.is_string() || id.is_number() || id.is_null()) {
        return Err("the response's id is not a string, number or null".into());
    }
    match (message.get("result"), message.get("error")) {
        (Some(result), None) if result.is_object() => Ok(()),
        (None, Some(error)) => {
            let code = error.get("code").and_then(Value::as_i64);
            let text = error.get("message").and_then(Value::as_str);
            match (code, text) {
                (Some(_), Some(_)) => Ok(()),
                _ => Err("the JSON-RPC error lacks an integer code or a message".into()),
            }
        }
        _ => Err("the response holds neither or both of result and error".into()),
    }
}

fn only(object: &Map<String, Value>, allowed: &[&str], what: &str) -> Result<(), String> {
    match object.keys().find(|k| !allowed.contains(&k.as_str())) {
        Some(extra) => Err(format!("{what} has the unknown member `{extra}`")),
        None => Ok(()),
    }
}

fn string_headers(headers: Option<&Value>) -> Result<(), String> {
    match headers {
        None => Ok(()),
        Some(Value::Object(h)) if h.values().all(Value::is_string) => Ok(()),
        Some(_) => Err("headers are not an object of strings".into()),
    }
}

/// The tool error text of a denied call's output (`result.isError` with one text),
/// when it is one.
pub fn tool_error(output: &Value) -> Option<&str> {
    let result = output.pointer("/mcp/transformedGatewayResponse/body/result")?;
    if result["isError"] != true {
        return None;
    }
    result.pointer("/content/0/text")?.as_str()
}

/// The JSON-RPC error code of an output answering with an error.
pub fn error_code(output: &Value) -> Option<i64> {
    output.pointer("/mcp/transformedGatewayResponse/body/error/code")?.as_i64()
}
