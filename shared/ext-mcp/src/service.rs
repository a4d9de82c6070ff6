//! The `ExtMcp` service: `CheckRequest` decides `tools/call`, `CheckResponse` filters
//! `tools/list`, every other method passes. Whatever arrives gets an answer in the
//! protocol (`INVALID` for what cannot be read), never a gRPC error.

use std::sync::Arc;

use registry_gateway::{Call, DenialKind, Gateway, Listed, RuleSource, Verdict};
use tonic::{Request, Response, Status};

use crate::proto::authorization_error::Code;
use crate::proto::ext_mcp_server::ExtMcp;
use crate::proto::{
    AuthorizationError, McpRequest, McpRequestResult, McpResponse, McpResponseResult, Pass,
    mcp_request_result, mcp_response_result,
};
use crate::{Malformed, Principal, filter_tools, parse_tool_call, session_of};

/// The JSON-RPC method that is decided.
const TOOLS_CALL: &str = "tools/call";
/// The JSON-RPC method whose result is filtered.
const TOOLS_LIST: &str = "tools/list";
/// The longest method name read (MCP's are a few dozen bytes); longer is `INVALID`.
const MAX_METHOD_BYTES: usize = 256;

/// The gateway each message is decided by: the latest one sent (a new one when the
/// registry's keys change).
pub type Gateways<S> = tokio::sync::watch::Receiver<Arc<Gateway<S>>>;

/// agentgateway's ExtMCP service over a [`Gateway`] (the registry's decision point).
pub struct ExtMcpService<S> {
    gateways: Gateways<S>,
}

impl<S> ExtMcpService<S> {
    /// The service deciding with the gateway `gateways` holds at each message.
    pub fn new(gateways: Gateways<S>) -> Self {
        Self { gateways }
    }

    fn gateway(&self) -> Arc<Gateway<S>> {
        Arc::clone(&self.gateways.borrow())
    }
}

impl<S: RuleSource + 'static> ExtMcpService<S> {
    async fn call(&self, request: &McpRequest) -> Result<Verdict, Malformed> {
        let [backend] = request.service_names.as_slice() else {
            return Err(Malformed::Backends(request.service_names.len()));
        };
        let params = request.mcp_request.as_deref().ok_or(Malformed::NoParams)?;
        let call = parse_tool_call(params)?;
        let principal = Principal::from_context(request.metadata_context.as_ref());
        let verdict = self
            .gateway()
            .call(Call {
                caller: principal.caller(),
                target: backend,
                tool: &call.name,
                arguments: &call.arguments,
                session_id: session_of(&request.headers),
            })
            .await;
        Ok(verdict)
    }

    async fn list(&self, response: &McpResponse) -> Result<Vec<u8>, Malformed> {
        let principal = Principal::from_context(response.metadata_context.as_ref());
        let gateway = &self.gateway();
        filter_tools(&response.service_names, &response.mcp_response, |listed| async move {
            let named: Vec<Listed<'_>> =
                listed.iter().flatten().map(|(target, tool)| Listed { target, tool }).collect();
            let mut granted = gateway.list(principal.caller(), &named).await.into_iter();
            listed.iter().map(|l| l.is_some() && granted.next().unwrap_or(false)).collect()
        })
        .await
    }
}

#[tonic::async_trait]
impl<S: RuleSource + 'static> ExtMcp for ExtMcpService<S> {
    async fn check_request(
        &self,
        request: Request<McpRequest>,
    ) -> Result<Response<McpRequestResult>, Status> {
        let request = request.into_inner();
        let result = match request.method.as_str() {
            m if m.len() > MAX_METHOD_BYTES => invalid_request(&Malformed::Method(m.len())),
            TOOLS_CALL => match self.call(&request).await {
                Ok(Verdict::Allow) => mcp_request_result::Result::Pass(Pass {}),
                Ok(Verdict::Deny(denial)) => mcp_request_result::Result::Error(refusal(
                    code_of(denial.kind),
                    denial.reason,
                    denial.rule_id.as_deref(),
                )),
                Err(malformed) => invalid_request(&malformed),
            },
            method => {
                self.gateway().passed(method);
                mcp_request_result::Result::Pass(Pass {})
            }
        };
        Ok(Response::new(McpRequestResult {
            result: Some(result),
            header_mutation: None,
            metadata: None,
        }))
    }

    async fn check_response(
        &self,
        response: Request<McpResponse>,
    ) -> Result<Response<McpResponseResult>, Status> {
        let response = response.into_inner();
        let result = match response.method.as_str() {
            m if m.len() > MAX_METHOD_BYTES => {
                mcp_response_result::Result::Error(invalid(&Malformed::Method(m.len())))
            }
            TOOLS_LIST => match self.list(&response).await {
                Ok(filtered) => mcp_response_result::Result::Mutated(filtered),
                Err(malformed) => mcp_response_result::Result::Error(invalid(&malformed)),
            },
            method => {
                self.gateway().passed(method);
                mcp_response_result::Result::Pass(Pass {})
            }
        };
        Ok(Response::new(McpResponseResult { result: Some(result) }))
    }
}

/// The ExtMCP code of a denial: rules and refusals `PERMISSION_DENIED`, stage limits
/// `RESOURCE_EXHAUSTED`, bad arguments `INVALID`.
fn code_of(kind: DenialKind) -> Code {
    match kind {
        DenialKind::Denied => Code::PermissionDenied,
        DenialKind::Exhausted => Code::ResourceExhausted,
        DenialKind::Invalid => Code::Invalid,
    }
}

/// An error the gateway turns into the client's JSON-RPC error: `reason` its message and,
/// when a rule decided, `{"ruleId": ...}` its data.
fn refusal(code: Code, reason: String, rule_id: Option<&str>) -> AuthorizationError {
    let mcp_error = rule_id.map(|id| serde_json::json!({ "ruleId": id }).to_string().into_bytes());
    AuthorizationError { code: code.into(), reason, mcp_error }
}

fn invalid(malformed: &Malformed) -> AuthorizationError {
    tracing::debug!(%malformed, "ext-mcp: malformed message");
    refusal(Code::Invalid, malformed.to_string(), None)
}

fn invalid_request(malformed: &Malformed) -> mcp_request_result::Result {
    mcp_request_result::Result::Error(invalid(malformed))
}
