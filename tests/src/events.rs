//! The events AWS sends, shaped as AWS documents them: CloudFormation custom-resource
//! requests, and API Gateway HTTP API (payload format 2.0) requests with an IAM caller.

use serde_json::{Value, json};

/// The stack of the tests.
pub const STACK_ID: &str = "arn:aws:cloudformation:us-east-1:123456789012:stack/weather-tools/5b918d10-cd98-11ea-90d5-0a9cd3354c10";
/// The custom resource function's ARN (`ServiceToken`).
pub const SERVICE_TOKEN: &str =
    "arn:aws:lambda:us-east-1:123456789012:function:agent-registry-CustomResourceFunction-Ab12Cd34";

/// A custom-resource request, field by field.
#[derive(Debug, Clone, Copy)]
pub struct Request<'a> {
    /// `Create`, `Update` or `Delete`.
    pub request_type: &'a str,
    /// `RequestId`.
    pub request_id: &'a str,
    /// `ResponseURL`.
    pub response_url: &'a str,
    /// `ResourceType`.
    pub resource_type: &'a str,
    /// `LogicalResourceId`.
    pub logical_id: &'a str,
    /// The template's properties (CloudFormation adds `ServiceToken`).
    pub properties: &'a Value,
    /// `PhysicalResourceId` (Update, Delete).
    pub physical_id: Option<&'a str>,
    /// `OldResourceProperties` (Update).
    pub old_properties: Option<&'a Value>,
}

/// The event CloudFormation sends for `request` (stack [`STACK_ID`]).
pub fn cfn(request: &Request<'_>) -> Value {
    let with_token = |p: &Value| {
        let mut p = p.clone();
        if let Some(map) = p.as_object_mut() {
            map.insert("ServiceToken".into(), SERVICE_TOKEN.into());
        }
        p
    };
    let mut event = json!({
        "RequestType": request.request_type,
        "ServiceToken": SERVICE_TOKEN,
        "ResponseURL": request.response_url,
        "StackId": STACK_ID,
        "RequestId": request.request_id,
        "LogicalResourceId": request.logical_id,
        "ResourceType": request.resource_type,
        "ResourceProperties": with_token(request.properties),
    });
    if let Some(id) = request.physical_id {
        event["PhysicalResourceId"] = json!(id);
    }
    if let Some(old) = request.old_properties {
        event["OldResourceProperties"] = with_token(old);
    }
    event
}

/// An API Gateway HTTP API request (payload 2.0) signed by the IAM identity `user_arn`.
pub fn http(method: &str, path: &str, body: Option<&Value>, user_arn: &str) -> Value {
    let body_text = body.map(Value::to_string);
    let mut headers = json!({
        "accept": "application/json",
        "host": "a1b2c3d4e5.execute-api.us-east-1.amazonaws.com",
        "user-agent": "registry-e2e",
        "x-forwarded-proto": "https",
        "authorization": "AWS4-HMAC-SHA256 Credential=ASIAXAMPLEKEY7EXAMPLE/20261122/us-east-1/execute-api/aws4_request, SignedHeaders=host;x-amz-date, Signature=e2e",
        "x-amz-date": "20261122T120000Z"
    });
    if let Some(text) = &body_text {
        headers["content-type"] = json!("application/json");
        headers["content-length"] = json!(text.len().to_string());
    }
    let mut event = json!({
        "version": "2.0",
        "routeKey": "$default",
        "rawPath": path,
        "rawQueryString": "",
        "headers": headers,
        "requestContext": {
            "accountId": "123456789012",
            "apiId": "a1b2c3d4e5",
            "domainName": "a1b2c3d4e5.execute-api.us-east-1.amazonaws.com",
            "domainPrefix": "a1b2c3d4e5",
            "http": {
                "method": method,
                "path": path,
                "protocol": "HTTP/1.1",
                "sourceIp": "198.51.100.23",
                "userAgent": "registry-e2e"
            },
            "requestId": "e2e-request",
            "routeKey": "$default",
            "stage": "$default",
            "time": "22/Nov/2026:12:00:00 +0000",
            "timeEpoch": 1795867200000u64,
            "authorizer": {
                "iam": {
                    "accessKey": "ASIAXAMPLEKEY7EXAMPLE",
                    "accountId": "123456789012",
                    "callerId": "AROAEXAMPLE:e2e",
                    "cognitoIdentity": null,
                    "principalOrgId": "o-exampleorgid",
                    "userArn": user_arn,
                    "userId": "AROAEXAMPLE:e2e"
                }
            }
        },
        "isBase64Encoded": false
    });
    if let Some(text) = body_text {
        event["body"] = json!(text);
    }
    event
}

/// The status and JSON body of an API Gateway (payload 2.0) response.
pub fn http_reply(response: &Value) -> (u64, Value) {
    let status = response["statusCode"].as_u64().unwrap_or_default();
    let body =
        response["body"].as_str().and_then(|b| serde_json::from_str(b).ok()).unwrap_or(Value::Null);
    (status, body)
}
