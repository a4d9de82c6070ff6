//! One event of either interception point in, its output document out (decision 89).
//!
//! - REQUEST, `tools/call`: the call decided by the gateway core ([`registry_gateway::Gateway::call`]);
//!   allowed: the request goes on unchanged but for the caller's `Authorization` header,
//!   which the target never gets; denied: the gateway answers with a tool
//!   error naming why (`isError`, status 200), and the target is never called. A
//!   `tools/call` without a tool name, with arguments that are not an object, with a
//!   member given twice or with arguments the tool's schema refuses gets the JSON-RPC
//!   error -32602.
//! - REQUEST, another method: passes ([`registry_gateway::Gateway::passed`]), except `tools/list`, which
//!   passes without a line: its answer is decided at the RESPONSE point.
//! - RESPONSE, `tools/list`: the tools the caller is not granted ([`registry_gateway::Gateway::list`]) are
//!   taken out of the result; everything else stays as the target sent it.
//! - RESPONSE, anything else: passes unchanged, without a line (decided at REQUEST).
//! - An event that is not an interceptor input "1.0": the JSON-RPC error -32600, a
//!   decision line `MALFORMED_EVENT`. Nothing here fails the invocation.

use registry_gateway::{Call, Caller, DenialKind, Listed as ListedTool, Verdict, split_target};
use registry_guard::RuleSource;
use serde_json::value::RawValue;

use crate::Interceptor;
use crate::members::{Headers, Members, Repeated};
use crate::rpc::{self, CallParams, Listed, Message, ToolList};
use crate::unreadable::Unreadable;
use crate::wire::{
    GatewayRequest, InterceptorInput, InterceptorOutput, McpOutput, Response, VERSION, answered,
    is_object,
};

/// The header carrying the caller's bearer token (never passed on to the target).
pub const AUTHORIZATION: &str = crate::wire::NOT_FORWARDED;
/// The MCP session header: the session budgets count in when the token names none.
pub const SESSION_HEADER: &str = "Mcp-Session-Id";

/// Decision-line reason of an event that is not an interceptor input document.
pub const MALFORMED_EVENT: &str = "MALFORMED_EVENT";
/// Decision-line reason of a `tools/call` (or a `tools/list` answer) this function
/// cannot read.
pub const INVALID_REQUEST: &str = "INVALID_REQUEST";

impl<S: RuleSource> Interceptor<S> {
    /// The output document for the event `event` (its JSON text as Lambda delivered it).
    pub async fn handle(&self, event: &RawValue) -> Box<RawValue> {
        let input = match read(event) {
            Ok(input) => input,
            Err(why) => {
                self.refuse(MALFORMED_EVENT, format!("not an interceptor input: {why}"));
                let message = format!("The registry's interceptor cannot read this event: {why}");
                return made(rpc::error(None, rpc::INVALID_REQUEST, &message));
            }
        };
        match input.mcp.gateway_response {
            None => self.request(&input).await,
            Some(response) => self.response(&input, response).await,
        }
    }

    async fn request(&self, input: &InterceptorInput<'_>) -> Box<RawValue> {
        let Some(request) = &input.mcp.gateway_request else {
            let why = "a REQUEST event without gatewayRequest";
            self.refuse(MALFORMED_EVENT, why.into());
            return made(rpc::error(None, rpc::INVALID_REQUEST, why));
        };
        let message = match request_message(request) {
            Ok(message) => message,
            Err(why) => {
                let why = why.to_string();
                self.refuse(INVALID_REQUEST, why.clone());
                return made(rpc::error(None, rpc::INVALID_REQUEST, &why));
            }
        };
        let pass =
            || InterceptorOutput::new(McpOutput::TransformedGatewayRequest(request)).to_raw();
        match message.method.as_deref() {
            Some("tools/call") => {}
            // its answer is decided at the RESPONSE point
            Some("tools/list") => return pass(),
            other => {
                self.gateway.passed(other.unwrap_or(NO_METHOD));
                return pass();
            }
        }
        let params = match CallParams::read(message.params) {
            Ok(params) => params,
            Err(why) => {
                let why = why.to_string();
                self.refuse(INVALID_REQUEST, why.clone());
                return made(rpc::error(message.id, rpc::INVALID_PARAMS, &why));
            }
        };
        let headers = request.headers.as_ref();
        let header = |name| headers.map_or(Ok(None), |h: &Headers<'_>| h.get(name));
        let (authorization, session) = match (header(AUTHORIZATION), header(SESSION_HEADER)) {
            (Ok(a), Ok(s)) => (a, s),
            (Err(Repeated(name)), _) | (_, Err(Repeated(name))) => {
                let why = format!("the header `{name}` is sent twice, with different values");
                self.refuse(INVALID_REQUEST, why.clone());
                return made(rpc::tool_error(message.id, &refused_text(&params.name, &why)));
            }
        };
        let (target, tool) = split_target(&params.name).unwrap_or(("", &params.name));
        let call = Call {
            caller: caller(authorization),
            target,
            tool,
            arguments: &params.arguments,
            session_id: session,
        };
        match self.gateway.call(call).await {
            Verdict::Allow => pass(),
            // arguments the tool's schema refuses: the call is malformed (docs/gateways.md)
            Verdict::Deny(denial) if denial.kind == DenialKind::Invalid => {
                made(rpc::error(message.id, rpc::INVALID_PARAMS, &denial.reason))
            }
            Verdict::Deny(denial) => made(rpc::tool_error(message.id, &denial.reason)),
        }
    }

    async fn response(&self, input: &InterceptorInput<'_>, raw: &RawValue) -> Box<RawValue> {
        let pass = || {
            InterceptorOutput::new(McpOutput::TransformedGatewayResponse(Response::Kept(raw)))
                .to_raw()
        };
        // the request this answers, when it can be read
        let request = input.mcp.gateway_request.as_ref();
        let message = request.and_then(|r| request_message(r).ok());
        let method = message.as_ref().and_then(|m| m.method.as_deref());
        let id = message.as_ref().and_then(|m| m.id);
        // passed back only as a response the gateway can answer with
        let Some(response) = Members::of(raw).filter(has_status) else {
            let why = "gatewayResponse is not an object with an HTTP statusCode";
            self.refuse(MALFORMED_EVENT, why.into());
            return made(rpc::error(id, rpc::INVALID_REQUEST, why));
        };
        if method.is_some_and(|m| m != "tools/list") {
            return pass();
        }
        let body = match response.get("body") {
            Ok(Some(body)) => body,
            Ok(None) if method.is_none() => return pass(),
            Ok(None) => return self.unlisted(id, Unreadable::NoListBody),
            Err(Repeated(name)) => {
                return self.unlisted(id, Unreadable::ResponseRepeats(name));
            }
        };
        let list = match ToolList::read(body) {
            Ok(Listed::Tools(list)) => list,
            Ok(Listed::Nothing) => return pass(),
            // not known to answer a tools/list, and not one: not ours to judge
            Err(_) if method.is_none() => return pass(),
            Err(why) => return self.unlisted(id, why),
        };
        let headers = request.and_then(|r| r.headers.as_ref());
        let authorization = match headers.map(|h| h.get(AUTHORIZATION)) {
            Some(Err(Repeated(name))) => {
                let why = format!("the header `{name}` is sent twice, with different values");
                self.refuse(INVALID_REQUEST, why);
                // no principal: no tool is granted
                return filtered(&response, &list, &[]);
            }
            Some(Ok(value)) => value,
            None => None,
        };
        let named: Vec<(usize, ListedTool<'_>)> = list
            .tools
            .iter()
            .enumerate()
            .filter_map(|(i, (name, _))| {
                let name = name.as_deref()?;
                let (target, tool) = split_target(name).unwrap_or(("", name));
                Some((i, ListedTool { target, tool }))
            })
            .collect();
        let asked: Vec<ListedTool<'_>> =
            named.iter().map(|(_, l)| ListedTool { target: l.target, tool: l.tool }).collect();
        let granted = self.gateway.list(caller(authorization), &asked).await;
        let mut keep = vec![false; list.tools.len()];
        for ((i, _), granted) in named.iter().zip(granted) {
            keep[*i] = granted;
        }
        filtered(&response, &list, &keep)
    }

    /// A `tools/list` answer that cannot be read to filter: answered with a JSON-RPC
    /// error instead (nothing is listed that was not decided).
    fn unlisted(&self, id: Option<&RawValue>, why: Unreadable) -> Box<RawValue> {
        let message = format!("The registry's interceptor cannot read the tool list: {why}");
        self.refuse(INVALID_REQUEST, why.to_string());
        made(rpc::error(id, rpc::INTERNAL_ERROR, &message))
    }
}

/// What a message without a method (a client's response to the server) is logged as.
const NO_METHOD: &str = "(response)";

/// The caller a bearer header names; none: anonymous (every call denied).
fn caller(authorization: Option<&str>) -> Caller<'_> {
    match authorization.map(str::trim) {
        Some(value) if !value.is_empty() => Caller::Bearer(value),
        _ => Caller::Anonymous,
    }
}

/// A tool error's text for a call refused before the decision.
fn refused_text(name: &str, why: &str) -> String {
    format!("The call to `{name}` is not permitted: {why}.")
}

/// The input document `event` is: an object, version "1.0", an `mcp` object.
fn read(event: &RawValue) -> Result<InterceptorInput<'_>, Unreadable> {
    if !is_object(event) {
        return Err(Unreadable::EventNotObject);
    }
    let input: InterceptorInput<'_> =
        serde_json::from_str(event.get()).map_err(Unreadable::Event)?;
    if input.interceptor_input_version != VERSION {
        return Err(Unreadable::Version(input.interceptor_input_version.to_string()));
    }
    Ok(input)
}

/// Whether `response` has one `statusCode`, an HTTP status.
fn has_status(response: &Members<'_>) -> bool {
    matches!(response.get("statusCode"), Ok(Some(status))
        if serde_json::from_str::<u16>(status.get()).is_ok_and(|s| (100..=599).contains(&s)))
}

/// The JSON-RPC message in `gatewayRequest`'s body.
fn request_message<'a>(request: &GatewayRequest<'a>) -> Result<Message<'a>, Unreadable> {
    let body = request.body.ok_or(Unreadable::NoBody)?;
    Message::read(body)
}

/// The target's response with only the tools `keep` says to keep.
fn filtered(response: &Members<'_>, list: &ToolList<'_>, keep: &[bool]) -> Box<RawValue> {
    let changed = response.with("body", &list.keeping(keep));
    InterceptorOutput::new(McpOutput::TransformedGatewayResponse(Response::Changed(changed)))
        .to_raw()
}

/// An output answering the client with `body` (status 200).
fn made(body: Box<RawValue>) -> Box<RawValue> {
    InterceptorOutput::new(McpOutput::TransformedGatewayResponse(Response::Made(answered(body))))
        .to_raw()
}
