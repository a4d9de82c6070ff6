//! Tool definitions.

use serde::{Deserialize, Serialize};

use super::{Lifecycle, ServerFields, Tags, Unknown};
use crate::{Secret, Violation};
use registry_access::{AccessRule, ArgType, CallSchema};
use registry_types::{FunctionDefinition, TypeDefinition};
use std::collections::BTreeMap;

/// How a tool is executed.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash, Serialize, Deserialize, utoipa::ToSchema)]
#[serde(rename_all = "lowercase")]
pub enum ExecutionType {
    /// An AWS Lambda function (`lambdaArn`).
    Lambda,
    /// A Model Context Protocol server (`url`, optional OAuth `auth`).
    Mcp,
    /// Code run by the runtime (`code`).
    Inline,
}

impl ExecutionType {
    /// The wire name.
    pub fn as_str(self) -> &'static str {
        match self {
            Self::Lambda => "lambda",
            Self::Mcp => "mcp",
            Self::Inline => "inline",
        }
    }

    /// Parses a wire name.
    pub fn parse(s: &str) -> Option<Self> {
        match s {
            "lambda" => Some(Self::Lambda),
            "mcp" => Some(Self::Mcp),
            "inline" => Some(Self::Inline),
            _ => None,
        }
    }
}

/// Agent frameworks a tool or knowledge base supports.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash, Serialize, Deserialize, utoipa::ToSchema)]
#[serde(rename_all = "lowercase")]
pub enum AgentFramework {
    /// AWS Bedrock agents.
    Bedrock,
}

/// OAuth client credentials for an MCP server.
#[serde_with::skip_serializing_none]
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize, utoipa::ToSchema)]
#[serde(rename_all = "camelCase")]
pub struct McpAuth {
    /// OAuth client id.
    pub client_id: String,
    /// OAuth client secret: write-only (never serialized; see `Definition::storage_json`).
    /// Omitted on update keeps the stored one while `url`, `tokenUrl` and `clientId` stay.
    #[serde(default, skip_serializing_if = "Secret::never")]
    pub client_secret: Option<Secret>,
    /// OAuth token endpoint.
    pub token_url: String,
    /// A Secrets Manager secret ARN holding the client secret, instead of
    /// `clientSecret`: the registry checks its form and never copies its value.
    pub client_secret_ref: Option<String>,
    /// Server-managed: the version of the client secret the registry keeps for this
    /// tool in its vault (the only trace of the secret in the definition; a new value
    /// is a new version). Ignored on input.
    #[schema(read_only)]
    pub secret_version: Option<String>,
    /// Server-managed: the Secrets Manager ARN of the secret the registry keeps for this
    /// tool, on AWS (absent in `serve`, whose vault is a file). Ignored on input.
    #[schema(read_only)]
    pub secret_arn: Option<String>,
    /// Fields not in the model, kept only so validation can name them.
    #[serde(flatten, skip_serializing)]
    #[schema(ignore)]
    pub unknown: Unknown,
}

/// A tool an agent can call: a Lambda, an MCP server or inline code, with its functions.
#[serde_with::skip_serializing_none]
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize, utoipa::ToSchema)]
#[serde(rename_all = "camelCase")]
pub struct ToolDefinition {
    /// Tool id; generated (UUIDv7) when omitted on create.
    #[serde(default)]
    pub tool_id: String,
    /// How the tool runs; decides which of `lambdaArn`, `url`/`auth`, `code` apply.
    pub execution_type: ExecutionType,
    /// Action-group name (`([0-9a-zA-Z][_-]?){1,100}`).
    #[serde(default)]
    pub name: String,
    /// Name shown to people.
    #[serde(default)]
    pub display_name: String,
    /// What the tool does (1..500 characters).
    #[serde(default)]
    pub description: String,
    /// Timeout in seconds (1..900, default 30).
    pub execution_timeout: Option<u32>,
    /// Frameworks the tool supports (non-empty).
    #[serde(default)]
    pub supported_agent_frameworks: Vec<AgentFramework>,
    /// Functions the tool exposes (required for bedrock; at most 11).
    pub function_schema: Option<Vec<FunctionDefinition>>,
    /// Named types used by the function parameters.
    pub types: Option<BTreeMap<String, TypeDefinition>>,
    /// Lambda function ARN (`lambda` tools).
    pub lambda_arn: Option<String>,
    /// MCP server URL (`mcp` tools); https except loopback.
    pub url: Option<String>,
    /// OAuth credentials (`mcp` tools).
    pub auth: Option<McpAuth>,
    /// Source code (`inline` tools), at most 64 KiB.
    pub code: Option<String>,
    /// Free-form tags; keys kept byte for byte.
    pub tags: Option<Tags>,
    /// Lifecycle state.
    pub lifecycle: Option<Lifecycle>,
    /// Who may use the tool.
    pub access_rules: Option<Vec<AccessRule>>,
    /// Which calls of the granted tool are allowed, over `call.*` (SPEC section 16);
    /// none: every call is.
    pub call_rules: Option<Vec<AccessRule>>,
    /// How often one principal (or account) may call the tool.
    pub rate_limit: Option<super::RateLimit>,
    /// Marks a test double.
    pub test_type: Option<String>,
    /// Server-managed fields.
    #[serde(flatten)]
    pub server: ServerFields,
    /// Fields not in the model, kept only so validation can name them.
    #[serde(flatten, skip_serializing)]
    #[schema(ignore)]
    pub unknown: Unknown,
}

/// Where a tool runs, as a typed view over the `executionType`-specific fields.
#[derive(Debug, Clone, Copy, PartialEq)]
pub enum ToolTarget<'a> {
    /// A Lambda function ARN.
    Lambda(&'a str),
    /// An MCP server.
    Mcp {
        /// Server URL.
        url: &'a str,
        /// OAuth credentials.
        auth: Option<&'a McpAuth>,
    },
    /// Inline code.
    Inline(&'a str),
}

impl ToolDefinition {
    /// The execution target, or `None` when the fields for `executionType` are missing.
    pub fn target(&self) -> Option<ToolTarget<'_>> {
        match self.execution_type {
            ExecutionType::Lambda => self.lambda_arn.as_deref().map(ToolTarget::Lambda),
            ExecutionType::Mcp => {
                self.url.as_deref().map(|url| ToolTarget::Mcp { url, auth: self.auth.as_ref() })
            }
            ExecutionType::Inline => self.code.as_deref().map(ToolTarget::Inline),
        }
    }

    /// Carries over `stored`'s client secret when this input omits it, but only while it
    /// would still go to the same place (`url`, `auth.tokenUrl` and `auth.clientId`
    /// unchanged). Otherwise, or for a new `auth` block, a missing secret is a violation
    /// at `/auth/clientSecret`: an editor who cannot read the secret must not be able to
    /// send it to an endpoint of their choosing.
    ///
    /// The vault markers (`secretVersion`, `secretArn`) are the server's: any in the input
    /// are dropped, and an inherited secret is inherited by its markers (the stored
    /// definition holds no value). A secret given by reference needs nothing stored.
    pub fn inherit_secret(&mut self, stored: Option<&ToolDefinition>) -> Option<Violation> {
        let auth = self.auth.as_mut()?;
        auth.secret_version = None;
        auth.secret_arn = None;
        if auth.client_secret.is_some() || auth.client_secret_ref.is_some() {
            return None;
        }
        let old = stored.and_then(|s| s.auth.as_ref().map(|a| (s.url.as_ref(), a)));
        let message = match old {
            Some((url, old)) if old.client_secret.is_some() || old.secret_version.is_some() => {
                if url == self.url.as_ref()
                    && old.token_url == auth.token_url
                    && old.client_id == auth.client_id
                {
                    auth.client_secret.clone_from(&old.client_secret);
                    auth.secret_version.clone_from(&old.secret_version);
                    auth.secret_arn.clone_from(&old.secret_arn);
                    return None;
                }
                "required when `url`, `auth.tokenUrl` or `auth.clientId` changes: the stored \
                 secret is only ever sent where it was given for"
            }
            _ => "required: a new auth block needs a clientSecret",
        };
        Some(Violation { path: "/auth/clientSecret".into(), message: message.into() })
    }

    /// What call rules may name: the functions of the schema and their parameters'
    /// types (named types by their kind).
    pub fn call_schema(&self) -> CallSchema {
        let mut schema = CallSchema::new();
        for function in self.function_schema.iter().flatten() {
            let parameters =
                function.parameters.iter().map(|(name, p)| (name.clone(), self.arg_type(&p.ty)));
            schema.function(function.name.clone(), parameters);
        }
        schema
    }

    /// The type a parameter written as `ty` has in call rules.
    fn arg_type(&self, ty: &str) -> ArgType {
        match ty {
            "string" => ArgType::String,
            "number" => ArgType::Number,
            "integer" => ArgType::Integer,
            "boolean" => ArgType::Boolean,
            "array" => ArgType::Array,
            "object" => ArgType::Object,
            t if t.ends_with("[]") => ArgType::Array,
            named => match self.types.as_ref().and_then(|t| t.get(named)) {
                Some(def) if def.ty.as_deref() == Some("array") => ArgType::Array,
                Some(_) => ArgType::Object,
                None => ArgType::Any,
            },
        }
    }

    /// A copy safe to return to clients: the OAuth client secret removed.
    pub fn redacted(&self) -> Self {
        let mut out = self.clone();
        if let Some(auth) = out.auth.as_mut() {
            auth.client_secret = None;
        }
        out
    }
}
