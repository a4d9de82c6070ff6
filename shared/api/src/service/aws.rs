//! Operations that act on AWS: verify a tool's Lambda, test-invoke it.

use registry_aws::{InvokeReport, TestInvoke, Verification, VerifyOptions};
use registry_core::ToolDefinition;

use crate::service::publish::from_aws;
use crate::service::{Registry, ServiceError};

impl Registry {
    /// Verifies the Lambda of tool `id`: exists and active, Bedrock may invoke it,
    /// required tags present.
    pub async fn verify_tool(
        &self,
        id: &str,
        options: &VerifyOptions,
    ) -> Result<Verification, ServiceError> {
        let tool: ToolDefinition = self.get(id).await?;
        self.aws_clients()?.verify_tool(&tool, options).await.map_err(from_aws)
    }

    /// Invokes the Lambda of tool `id` with the event Bedrock would send for `call`.
    pub async fn test_invoke(
        &self,
        id: &str,
        call: &TestInvoke,
    ) -> Result<InvokeReport, ServiceError> {
        let tool: ToolDefinition = self.get(id).await?;
        self.aws_clients()?.test_invoke(&tool, call).await.map_err(from_aws)
    }

    /// The AWS clients, or why there are none.
    pub(super) fn aws_clients(&self) -> Result<&registry_aws::Aws, ServiceError> {
        self.aws.as_ref().ok_or_else(|| {
            ServiceError::Upstream("this server has no AWS clients configured".into())
        })
    }
}
