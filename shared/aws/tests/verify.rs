#![allow(clippy::unwrap_used, clippy::expect_used)]
//! Verify against the local AWS-API server the test command starts (moto): it implements
//! Lambda's GetFunction, GetPolicy, AddPermission and ListTags with no container runtime.

use registry_aws::{Aws, Endpoints, FindingCode, Severity, VerifyOptions};
use registry_core::ToolDefinition;
use serde_json::json;

const ACCOUNT: &str = "123456789012";

fn endpoint() -> String {
    registry_sdk_config::local::endpoint().unwrap().to_owned()
}

/// An IAM role Lambda may assume (moto checks it on CreateFunction), created once.
async fn role() -> String {
    let form = [
        ("Action", "CreateRole"),
        ("Version", "2010-05-08"),
        ("RoleName", "registry-tool-role"),
        (
            "AssumeRolePolicyDocument",
            r#"{"Version":"2012-10-17","Statement":[{"Effect":"Allow","Principal":{"Service":"lambda.amazonaws.com"},"Action":"sts:AssumeRole"}]}"#,
        ),
    ];
    // moto routes by the credential scope of the Authorization header; the signature is not checked.
    let _ = reqwest::Client::new()
        .post(format!("{}/", endpoint()))
        .header("Authorization", "AWS4-HMAC-SHA256 Credential=test/20260101/us-east-1/iam/aws4_request, SignedHeaders=host, Signature=0")
        .form(&form)
        .send()
        .await
        .unwrap();
    format!("arn:aws:iam::{ACCOUNT}:role/registry-tool-role")
}

async fn lambda() -> aws_sdk_lambda::Client {
    let sdk = registry_sdk_config::sdk_config(Some(endpoint())).await;
    let credentials = aws_sdk_lambda::config::Credentials::new("test", "test", None, None, "tests");
    aws_sdk_lambda::Client::from_conf(
        aws_sdk_lambda::config::Builder::from(&sdk).credentials_provider(credentials).build(),
    )
}

/// A function named `name` (unique per test) in the local server.
async fn function(name: &str) -> String {
    let out = lambda()
        .await
        .create_function()
        .function_name(name)
        .runtime(aws_sdk_lambda::types::Runtime::Providedal2023)
        .role(role().await)
        .handler("bootstrap")
        .code(
            aws_sdk_lambda::types::FunctionCode::builder()
                .zip_file(aws_sdk_lambda::primitives::Blob::new(b"bootstrap".to_vec()))
                .build(),
        )
        .send()
        .await
        .unwrap();
    out.function_arn().unwrap().to_owned()
}

fn tool(arn: &str) -> ToolDefinition {
    serde_json::from_value(json!({
        "toolId": "t@1", "executionType": "lambda", "name": "t", "displayName": "T",
        "description": "A tool.", "supportedAgentFrameworks": ["bedrock"], "lambdaArn": arn,
        "functionSchema": [{"name": "f", "description": "F.", "parameters": {}}]
    }))
    .unwrap()
}

fn aws() -> Aws {
    Aws::new(Endpoints { lambda: Some(endpoint()), ..Endpoints::default() })
}

fn unique(prefix: &str) -> String {
    let nanos =
        std::time::SystemTime::now().duration_since(std::time::UNIX_EPOCH).unwrap().subsec_nanos();
    format!("{prefix}-{}-{nanos}", std::process::id())
}

#[tokio::test]
async fn a_missing_permission_is_reported_with_the_command_that_fixes_it() {
    let name = unique("verify-perm");
    let arn = function(&name).await;
    let v = aws().verify_tool(&tool(&arn), &VerifyOptions::default()).await.unwrap();
    assert!(!v.ok, "{v:?}");
    assert_eq!(v.findings.len(), 1, "{v:?}");
    let f = &v.findings[0];
    assert_eq!((f.code, f.severity), (FindingCode::PermissionMissing, Severity::Error));
    let remedy = f.remedy.as_deref().unwrap();
    assert!(
        remedy.starts_with(&format!("aws lambda add-permission --function-name {arn} ")),
        "{remedy}"
    );
    assert!(remedy.contains("--principal bedrock.amazonaws.com"), "{remedy}");

    // An unscoped grant works but is a warning; a scoped one is clean.
    let client = lambda().await;
    client
        .add_permission()
        .function_name(&name)
        .statement_id("open")
        .action("lambda:InvokeFunction")
        .principal("bedrock.amazonaws.com")
        .send()
        .await
        .unwrap();
    let v = aws().verify_tool(&tool(&arn), &VerifyOptions::default()).await.unwrap();
    assert!(v.ok, "{v:?}");
    assert_eq!(
        v.findings.iter().map(|f| f.code).collect::<Vec<_>>(),
        [FindingCode::PermissionUnscoped]
    );
    client
        .add_permission()
        .function_name(&name)
        .statement_id("scoped")
        .action("lambda:InvokeFunction")
        .principal("bedrock.amazonaws.com")
        .source_account(ACCOUNT)
        .send()
        .await
        .unwrap();
    let v = aws().verify_tool(&tool(&arn), &VerifyOptions::default()).await.unwrap();
    assert!(v.ok && v.findings.is_empty(), "{v:?}");

    // A required tag the function lacks.
    let options = VerifyOptions { required_tags: vec!["team".into()] };
    let v = aws().verify_tool(&tool(&arn), &options).await.unwrap();
    assert_eq!(v.findings.iter().map(|f| f.code).collect::<Vec<_>>(), [FindingCode::TagMissing]);
}

#[tokio::test]
async fn a_missing_function_and_a_non_lambda_tool_are_told_apart() {
    let arn = format!("arn:aws:lambda:us-east-1:{ACCOUNT}:function:{}", unique("absent"));
    let v = aws().verify_tool(&tool(&arn), &VerifyOptions::default()).await.unwrap();
    assert_eq!(
        v.findings.iter().map(|f| f.code).collect::<Vec<_>>(),
        [FindingCode::FunctionNotFound]
    );
    assert!(!v.ok);

    let mut mcp = tool(&arn);
    mcp.execution_type = registry_core::ExecutionType::Mcp;
    let err = aws().verify_tool(&mcp, &VerifyOptions::default()).await.unwrap_err();
    assert!(err.to_string().contains("RETURN_CONTROL"), "{err}");
}
