//! Verifying a tool's Lambda: it exists and is active, Bedrock may invoke it (scoped to
//! a source account or ARN), and it carries the tags a platform requires. Each problem
//! is a finding with its remedy.

use aws_sdk_lambda::error::DisplayErrorContext;
use registry_core::{ExecutionType, ToolDefinition};
use serde::Serialize;

use crate::Aws;
use crate::arn::LambdaArn;
use crate::error::AwsError;
use crate::policy::{BedrockGrant, bedrock_grant};

/// What to check beyond existence and permission.
#[derive(Debug, Clone, Default)]
pub struct VerifyOptions {
    /// Tag keys the function must carry.
    pub required_tags: Vec<String>,
}

/// How bad a finding is.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize, utoipa::ToSchema)]
#[serde(rename_all = "lowercase")]
pub enum Severity {
    /// Bedrock cannot use the tool as it is.
    Error,
    /// Works, but should be fixed.
    Warning,
}

/// Kind of finding.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize, utoipa::ToSchema)]
#[serde(rename_all = "SCREAMING_SNAKE_CASE")]
pub enum FindingCode {
    /// `GetFunction` found no such function.
    FunctionNotFound,
    /// The function exists but its state is not `Active`.
    FunctionNotActive,
    /// No resource-policy statement lets `bedrock.amazonaws.com` invoke it.
    PermissionMissing,
    /// Bedrock may invoke it without a source account or ARN condition.
    PermissionUnscoped,
    /// A required tag is missing.
    TagMissing,
    /// An AWS call failed (credentials, access, network); the check is incomplete.
    AwsError,
}

/// One problem found, with what to do about it.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, utoipa::ToSchema)]
#[serde(rename_all = "camelCase")]
pub struct Finding {
    /// Kind of finding.
    pub code: FindingCode,
    /// How bad it is.
    pub severity: Severity,
    /// What is wrong.
    pub message: String,
    /// How to fix it (a command when there is one).
    #[serde(skip_serializing_if = "Option::is_none")]
    pub remedy: Option<String>,
}

/// The result of verifying a tool's Lambda.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, utoipa::ToSchema)]
#[serde(rename_all = "camelCase")]
pub struct Verification {
    /// The tool verified.
    pub tool_id: String,
    /// Its function.
    pub function_arn: String,
    /// True when no finding is an error.
    pub ok: bool,
    /// Every finding (none: all good).
    pub findings: Vec<Finding>,
}

fn finding(
    code: FindingCode,
    severity: Severity,
    message: String,
    remedy: Option<String>,
) -> Finding {
    Finding { code, severity, message, remedy }
}

impl Aws {
    /// Verifies the Lambda of `tool` (GetFunction, GetPolicy, ListTags).
    pub async fn verify_tool(
        &self,
        tool: &ToolDefinition,
        options: &VerifyOptions,
    ) -> Result<Verification, AwsError> {
        let arn = lambda_arn(tool)?;
        let name = self.function_ref(&arn, self.endpoints.lambda.as_ref());
        let mut findings = Vec::new();
        match self.lambda().await.get_function().function_name(&name).send().await {
            Ok(out) => {
                let state =
                    out.configuration().and_then(|c| c.state()).map(|s| s.as_str().to_owned());
                if let Some(state) = state.filter(|s| s != "Active") {
                    findings.push(finding(
                        FindingCode::FunctionNotActive,
                        Severity::Error,
                        format!("{arn} is {state}, not Active"),
                        Some(format!(
                            "aws lambda get-function --function-name {arn}  # see StateReason"
                        )),
                    ));
                }
            }
            Err(e) => {
                let not_found =
                    e.as_service_error().is_some_and(|s| s.is_resource_not_found_exception());
                findings.push(if not_found {
                    finding(
                        FindingCode::FunctionNotFound,
                        Severity::Error,
                        format!("no function {arn}"),
                        Some("deploy the function, or fix the tool's lambdaArn".into()),
                    )
                } else {
                    aws_error("GetFunction", &DisplayErrorContext(&e))
                });
                return Ok(done(tool, &arn, findings));
            }
        }
        match self.lambda().await.get_policy().function_name(&name).send().await {
            Ok(out) => {
                let policy =
                    out.policy().and_then(|p| serde_json::from_str(p).ok()).unwrap_or_default();
                findings.extend(grant_finding(bedrock_grant(&policy), &arn));
            }
            Err(e) if e.as_service_error().is_some_and(|s| s.is_resource_not_found_exception()) => {
                findings.extend(grant_finding(BedrockGrant::Missing, &arn));
            }
            Err(e) => findings.push(aws_error("GetPolicy", &DisplayErrorContext(&e))),
        }
        if !options.required_tags.is_empty() {
            let base = LambdaArn { qualifier: None, ..arn.clone() }.to_string();
            match self.lambda().await.list_tags().resource(base).send().await {
                Ok(out) => {
                    let tags = out.tags();
                    for key in &options.required_tags {
                        if !tags.is_some_and(|t| t.contains_key(key)) {
                            findings.push(finding(
                                FindingCode::TagMissing,
                                Severity::Warning,
                                format!("{arn} has no tag `{key}`"),
                                Some(format!(
                                    "aws lambda tag-resource --resource {arn} --tags {key}=<value>"
                                )),
                            ));
                        }
                    }
                }
                Err(e) => findings.push(aws_error("ListTags", &DisplayErrorContext(&e))),
            }
        }
        Ok(done(tool, &arn, findings))
    }
}

/// The function ARN of a Lambda tool.
pub(crate) fn lambda_arn(tool: &ToolDefinition) -> Result<LambdaArn, AwsError> {
    if tool.execution_type != ExecutionType::Lambda {
        return Err(AwsError::NotALambdaTool(format!(
            "`{}` is not a Lambda tool: Bedrock returns its calls to the runtime (RETURN_CONTROL)",
            tool.tool_id
        )));
    }
    tool.lambda_arn.as_deref().and_then(LambdaArn::parse).ok_or_else(|| {
        AwsError::NotALambdaTool(format!("`{}` has no valid lambdaArn", tool.tool_id))
    })
}

fn grant_finding(grant: BedrockGrant, arn: &LambdaArn) -> Option<Finding> {
    match grant {
        BedrockGrant::Scoped => None,
        BedrockGrant::Missing => Some(finding(
            FindingCode::PermissionMissing,
            Severity::Error,
            format!(
                "Bedrock (bedrock.amazonaws.com) may not invoke {arn}: its resource policy has no such statement"
            ),
            Some(arn.add_permission_command()),
        )),
        BedrockGrant::Unscoped => Some(finding(
            FindingCode::PermissionUnscoped,
            Severity::Warning,
            format!(
                "Bedrock may invoke {arn} on behalf of any account: add a source account or ARN condition"
            ),
            Some(arn.add_permission_command()),
        )),
    }
}

fn aws_error(call: &str, e: &dyn std::fmt::Display) -> Finding {
    finding(FindingCode::AwsError, Severity::Error, format!("{call} failed: {e}"), None)
}

fn done(tool: &ToolDefinition, arn: &LambdaArn, findings: Vec<Finding>) -> Verification {
    Verification {
        tool_id: tool.tool_id.clone(),
        function_arn: arn.to_string(),
        ok: !findings.iter().any(|f| f.severity == Severity::Error),
        findings,
    }
}
