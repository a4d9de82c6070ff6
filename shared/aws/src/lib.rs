#![doc = include_str!("../README.md")]

mod arn;
mod error;
mod event;
mod import;
mod invoke;
pub mod plan;
mod policy;
mod publish;
mod verify;

pub use arn::LambdaArn;
pub use error::AwsError;
pub use event::{TEST_AGENT_ID, function_event};
pub use import::{IMPORTED_RELEASE, Imported, Unrepresented, registry_id};
pub use invoke::{InvokeReport, TestInvoke};
pub use policy::{BEDROCK_PRINCIPAL, BedrockGrant, bedrock_grant};
pub use publish::{ALIAS_NAME, Poll, Published, unpublishable};
pub use verify::{Finding, FindingCode, Severity, Verification, VerifyOptions};

/// Endpoint overrides of the AWS clients (`None`: AWS's own endpoints).
#[derive(Debug, Clone, Default)]
pub struct Endpoints {
    /// Lambda API endpoint (GetFunction, GetPolicy, ListTags, and Invoke unless
    /// `lambda_invoke` is set), e.g. a local AWS-API server.
    pub lambda: Option<String>,
    /// Lambda Invoke endpoint when it differs, e.g. `http://127.0.0.1:9000` for
    /// `cargo lambda watch`, which serves Invoke only.
    pub lambda_invoke: Option<String>,
    /// Bedrock Agents API endpoint (publish, drift, unpublish).
    pub bedrock: Option<String>,
}

/// The AWS clients the registry uses, built on first use (loading the SDK
/// configuration can wait on the instance metadata service; a server must not). Cheap
/// to clone.
#[derive(Debug, Clone)]
pub struct Aws {
    endpoints: Endpoints,
    lambda: std::sync::Arc<tokio::sync::OnceCell<aws_sdk_lambda::Client>>,
    invoke: std::sync::Arc<tokio::sync::OnceCell<aws_sdk_lambda::Client>>,
    bedrock: std::sync::Arc<tokio::sync::OnceCell<aws_sdk_bedrockagent::Client>>,
}

impl Aws {
    /// Clients for `endpoints`, with the usual credential chain.
    pub fn new(endpoints: Endpoints) -> Self {
        Self {
            endpoints,
            lambda: Default::default(),
            invoke: Default::default(),
            bedrock: Default::default(),
        }
    }

    /// Clients around a ready Bedrock Agents client (tests give one whose responses
    /// are stubbed).
    pub fn with_bedrock(endpoints: Endpoints, client: aws_sdk_bedrockagent::Client) -> Self {
        let aws = Self::new(endpoints);
        let _ = aws.bedrock.set(client);
        aws
    }

    /// The Lambda client of the control calls.
    async fn lambda(&self) -> &aws_sdk_lambda::Client {
        self.lambda.get_or_init(|| lambda_client(self.endpoints.lambda.clone())).await
    }

    /// The Lambda client of `Invoke`.
    async fn invoker(&self) -> &aws_sdk_lambda::Client {
        match &self.endpoints.lambda_invoke {
            Some(url) => self.invoke.get_or_init(|| lambda_client(Some(url.clone()))).await,
            None => self.lambda().await,
        }
    }

    /// How Lambda calls name the function: its ARN on AWS, its name (and qualifier)
    /// on a local endpoint, which serves functions by name.
    fn function_ref(&self, arn: &LambdaArn, endpoint: Option<&String>) -> String {
        if endpoint.is_some() { arn.name_and_qualifier() } else { arn.to_string() }
    }
}

/// A Lambda client for `url` (AWS's endpoint when `None`).
async fn lambda_client(url: Option<String>) -> aws_sdk_lambda::Client {
    let sdk = registry_sdk_config::sdk_config(url.clone()).await;
    let mut config = aws_sdk_lambda::config::Builder::from(&sdk);
    if let Some(url) = url {
        config = config.endpoint_url(url).credentials_provider(local_credentials());
    }
    aws_sdk_lambda::Client::from_conf(config.build())
}

/// Credentials for a local endpoint (which does not check signatures): the
/// environment's when set, else a fixed local pair, so a machine without AWS
/// credentials can test-invoke under `cargo lambda watch`.
pub(crate) fn local_credentials() -> aws_config::meta::credentials::CredentialsProviderChain {
    use aws_config::environment::EnvironmentVariableCredentialsProvider;
    aws_config::meta::credentials::CredentialsProviderChain::first_try(
        "environment",
        EnvironmentVariableCredentialsProvider::new(),
    )
    .or_else(
        "local",
        aws_sdk_lambda::config::Credentials::new("local", "local", None, None, "local-endpoint"),
    )
}
