//! Operations that act on AWS: verify a tool's Lambda, test-invoke it.

use registry_aws::{InvokeReport, Severity, TestInvoke, Verification, VerifyOptions};
use registry_core::{ToolDefinition, Violation};

use registry_core::RequestContext;
use registry_token::SESSION_ATTRIBUTE;

use crate::authorize::{check_ids, prepared};
use crate::publish::from_aws;
use crate::{PrincipalGrant, Publishing, ServiceError};

/// The agent id and user id of the principal a test-invoke is made for when the
/// caller names none.
pub const TEST_PRINCIPAL: &str = "registry-test-invoke";

/// The test principal's request context: user `registry-test-invoke`, nothing else.
fn test_principal_context() -> RequestContext {
    let mut context = RequestContext::default();
    context.user.user_id = Some(TEST_PRINCIPAL.to_owned());
    context
}

impl Publishing {
    /// Verifies the Lambda of tool `id`: exists and active, Bedrock may invoke it,
    /// required tags present.
    pub async fn verify_tool(
        &self,
        id: &str,
        options: &VerifyOptions,
    ) -> Result<Verification, ServiceError> {
        let tool: ToolDefinition = self.catalog.get(id).await?;
        self.aws_clients()?.verify_tool(&tool, options).await.map_err(from_aws)
    }

    /// Invokes the Lambda of tool `id` with the event Bedrock would send for `call`.
    pub async fn test_invoke(
        &self,
        id: &str,
        call: &TestInvoke,
    ) -> Result<InvokeReport, ServiceError> {
        let tool: ToolDefinition = self.catalog.get(id).await?;
        let call = self.as_principal(call)?;
        self.aws_clients()?.test_invoke(&tool, &call).await.map_err(from_aws)
    }

    /// `call` with the principal token of its `context`, `agentId` and `sessionId`
    /// (each defaulting to the test principal's) in its session attributes, freshly
    /// issued, so a guarded tool decides the call as it would in a session of that
    /// agent; as it is when it carries a `registryPrincipal` of its own (then naming
    /// a principal besides is a 400), or when this registry issues no tokens.
    fn as_principal(&self, call: &TestInvoke) -> Result<TestInvoke, ServiceError> {
        let named = call.context.is_some() || call.agent_id.is_some() || call.session_id.is_some();
        if call.session_attributes.contains_key(SESSION_ATTRIBUTE) {
            if named {
                return Err(ServiceError::invalid(
                    format!("/sessionAttributes/{SESSION_ATTRIBUTE}"),
                    "send a principal token or context, agentId and sessionId, not both",
                ));
            }
            return Ok(call.clone());
        }
        check_ids(call.agent_id.as_deref(), call.session_id.as_deref())?;
        if call.session_id.is_some() && call.agent_id.is_none() {
            return Err(ServiceError::invalid(
                "/agentId",
                "required with sessionId: budgets belong to an agent's session",
            ));
        }
        let test_context;
        let context = match &call.context {
            Some(context) => context,
            None => {
                test_context = test_principal_context();
                &test_context
            }
        };
        prepared(context)?;
        let json = serde_json::to_vec(context)
            .map_err(|e| ServiceError::Internal(format!("the context does not encode: {e}")))?;
        let agent_id = call.agent_id.as_deref().unwrap_or(TEST_PRINCIPAL);
        let mut call = call.clone();
        if self.resolver.principal_keys().is_none() {
            return Ok(call);
        }
        // the event's session and the token's are one (the guard refuses another):
        // without `sessionId`, a session of this invocation alone
        let session = call
            .session_id
            .get_or_insert_with(|| format!("registry-test-{}", uuid::Uuid::now_v7().simple()))
            .clone();
        let grant = PrincipalGrant {
            agent_id,
            user_id: context.user.user_id.as_deref(),
            session_id: &session,
            context_json: &json,
        };
        let token = self.resolver.issue_principal(&grant).map_err(|e| match e {
            // the caller's context; anything else is the registry's own keys
            registry_token::TokenError::InvalidClaims(_)
            | registry_token::TokenError::TooLargeToIssue(_) => {
                ServiceError::invalid("/context", e.to_string())
            }
            e => ServiceError::Internal(format!("no principal token could be issued: {e}")),
        })?;
        call.session_attributes.insert(SESSION_ATTRIBUTE.to_owned(), token);
        Ok(call)
    }

    /// Refuses `tool` when its Lambda fails verification (`?verify=true` on a write):
    /// each error finding is a violation at `/lambdaArn`, with its remedy.
    /// A server without AWS clients refuses the request as one built without AWS does
    /// (400): it asks for what this server cannot do, and no upstream failed.
    pub async fn verify_before_write(&self, tool: &ToolDefinition) -> Result<(), ServiceError> {
        if self.aws.is_none() {
            return Err(ServiceError::invalid(
                "",
                "this server has no AWS clients configured: `verify=true` is not available",
            ));
        }
        let verification = self.verify_definition(tool).await?;
        if verification.ok {
            return Ok(());
        }
        let violations = verification
            .findings
            .into_iter()
            .filter(|f| f.severity == Severity::Error)
            .map(|f| {
                let code = serde_json::to_value(f.code)
                    .ok()
                    .and_then(|c| c.as_str().map(str::to_owned))
                    .unwrap_or_default();
                let message = match f.remedy {
                    Some(remedy) => format!("{code}: {} Fix: {remedy}", f.message),
                    None => format!("{code}: {}", f.message),
                };
                Violation { path: "/lambdaArn".into(), message }
            })
            .collect();
        Err(ServiceError::Invalid(violations))
    }

    /// Verifies `tool` as given (stored or not).
    async fn verify_definition(&self, tool: &ToolDefinition) -> Result<Verification, ServiceError> {
        self.aws_clients()?.verify_tool(tool, &VerifyOptions::default()).await.map_err(from_aws)
    }

    /// The AWS clients, or why there are none.
    pub(super) fn aws_clients(&self) -> Result<&registry_aws::Aws, ServiceError> {
        self.aws.as_ref().ok_or_else(|| {
            ServiceError::Upstream("this server has no AWS clients configured".into())
        })
    }
}
