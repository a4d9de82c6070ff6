//! The CloudFormation custom-resource request and response, as AWS documents them
//! (`AWS::CloudFormation::CustomResource` request and response objects).

use serde::{Deserialize, Serialize};
use serde_json::{Map, Value};

/// What CloudFormation asks for.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum RequestType {
    /// The resource is being created (also a replacement's new resource).
    Create,
    /// The properties changed.
    Update,
    /// The resource is being deleted (also on rollback and after a replacement).
    Delete,
}

/// A custom-resource request. Every field has a default so that a request missing some
/// of them can still be answered (FAILED) when its `ResponseURL` is there.
#[derive(Debug, Clone, Default, Deserialize)]
#[serde(rename_all = "PascalCase")]
pub struct CfnRequest {
    /// `Create`, `Update` or `Delete`.
    #[serde(default)]
    pub request_type: String,
    /// The pre-signed S3 URL the response is PUT to.
    #[serde(default, rename = "ResponseURL")]
    pub response_url: String,
    /// The stack's ARN.
    #[serde(default)]
    pub stack_id: String,
    /// Unique id of this request (the same on redelivery).
    #[serde(default)]
    pub request_id: String,
    /// `Custom::AgentRegistryTool` or `Custom::AgentRegistryAgent`.
    #[serde(default)]
    pub resource_type: String,
    /// The resource's logical id in the template.
    #[serde(default)]
    pub logical_resource_id: String,
    /// The physical id this function returned earlier (Update, Delete).
    #[serde(default)]
    pub physical_resource_id: Option<String>,
    /// The template's properties (plus `ServiceToken`).
    #[serde(default)]
    pub resource_properties: Option<Value>,
    /// The previous properties (Update).
    #[serde(default)]
    pub old_resource_properties: Option<Value>,
}

impl CfnRequest {
    /// The request type, `None` when it is not one of the three.
    pub fn kind(&self) -> Option<RequestType> {
        match self.request_type.as_str() {
            "Create" => Some(RequestType::Create),
            "Update" => Some(RequestType::Update),
            "Delete" => Some(RequestType::Delete),
            _ => None,
        }
    }
}

/// `SUCCESS` or `FAILED`.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "UPPERCASE")]
pub enum Status {
    /// The request was carried out.
    Success,
    /// It was not; `Reason` says why.
    Failed,
}

/// The response PUT to the `ResponseURL`.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
#[serde(rename_all = "PascalCase")]
pub struct CfnResponse {
    /// `SUCCESS` or `FAILED`.
    pub status: Status,
    /// Why it failed (shown by CloudFormation and `sam deploy`), one line.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub reason: Option<String>,
    /// The definition id (or a placeholder when a Create failed).
    pub physical_resource_id: String,
    /// From the request.
    pub stack_id: String,
    /// From the request.
    pub request_id: String,
    /// From the request.
    pub logical_resource_id: String,
    /// Values for `Fn::GetAtt` (success only).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub data: Option<Map<String, Value>>,
}
