//! Operations that act on AWS: verify a tool's Lambda, test-invoke it.

use registry_aws::{InvokeReport, Severity, TestInvoke, Verification, VerifyOptions};
use registry_core::{ToolDefinition, Violation};

use crate::service::publish::from_aws;
use crate::service::{Publishing, ServiceError};

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
        self.aws_clients()?.test_invoke(&tool, call).await.map_err(from_aws)
    }

    /// Refuses `tool` when its Lambda fails verification (`?verify=true` on a write):
    /// each error finding is a violation at `/lambdaArn`, with its remedy.
    pub async fn verify_before_write(&self, tool: &ToolDefinition) -> Result<(), ServiceError> {
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
