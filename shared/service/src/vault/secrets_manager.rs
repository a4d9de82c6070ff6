//! The AWS vault: every value of a tool's secret is a Secrets Manager secret of its
//! own, named `<prefix><tool id>/<uuid>` (`CreateSecret`); the definition keeps its ARN
//! and version id. Replacing or removing the value deletes the old secret at once
//! (`DeleteSecret` without a recovery window), so no earlier value stays readable (a
//! rotation of one secret would keep the old value as `AWSPREVIOUS`). Reading is
//! `GetSecretValue` by ARN and version id. These three calls are all the vault makes.

use aws_sdk_secretsmanager::Client;
use aws_sdk_secretsmanager::error::ProvideErrorMetadata;
use registry_core::Secret;

use super::{SecretHandle, SecretVault, VaultError};

/// Tools' secrets in AWS Secrets Manager, under a name prefix the IAM policy grants.
#[derive(Debug, Clone)]
pub struct SecretsManagerVault {
    client: Client,
    prefix: String,
}

impl SecretsManagerVault {
    /// A vault over `client`, naming secrets `<prefix><tool id>/<uuid>`.
    pub fn new(client: Client, prefix: impl Into<String>) -> Self {
        Self { client, prefix: prefix.into() }
    }

    /// A vault with the SDK configuration of the environment (`endpoint_url` for a local
    /// AWS-API server in tests).
    pub async fn from_env(endpoint_url: Option<String>, prefix: impl Into<String>) -> Self {
        let config = registry_sdk_config::sdk_config(endpoint_url).await;
        Self::new(Client::new(&config), prefix)
    }

    /// The name of a new secret of `tool_id`: tool ids may hold `:`, which secret names
    /// may not, so it becomes `+` (which tool ids never hold).
    pub fn new_secret_name(&self, tool_id: &str) -> String {
        format!("{}{}/{}", self.prefix, tool_id.replace(':', "+"), uuid::Uuid::now_v7())
    }
}

/// An SDK failure as a vault error: the error code AWS gave, never a value.
fn unavailable<E: ProvideErrorMetadata>(what: &str, e: &E) -> VaultError {
    VaultError::Unavailable(format!(
        "Secrets Manager {what}: {}",
        e.code().unwrap_or("request failed")
    ))
}

#[async_trait::async_trait]
impl SecretVault for SecretsManagerVault {
    async fn put(&self, tool_id: &str, value: &Secret) -> Result<SecretHandle, VaultError> {
        let out = self
            .client
            .create_secret()
            .name(self.new_secret_name(tool_id))
            .secret_string(value.expose())
            .send()
            .await
            .map_err(|e| unavailable("CreateSecret", &e))?;
        match (out.arn, out.version_id) {
            (Some(arn), Some(version)) => Ok(SecretHandle { version, arn: Some(arn) }),
            _ => Err(VaultError::Unavailable("Secrets Manager returned no ARN or version".into())),
        }
    }

    async fn get(
        &self,
        _tool_id: &str,
        handle: &SecretHandle,
    ) -> Result<Option<Secret>, VaultError> {
        let Some(arn) = &handle.arn else { return Ok(None) };
        match self.client.get_secret_value().secret_id(arn).version_id(&handle.version).send().await
        {
            Ok(out) => Ok(out.secret_string.map(Secret::new)),
            Err(e) if e.code() == Some("ResourceNotFoundException") => Ok(None),
            Err(e) => Err(unavailable("GetSecretValue", &e)),
        }
    }

    /// Nothing to scan: every replaced or removed value is deleted by its handle
    /// ([`SecretVault::remove`]).
    async fn retain(&self, _tool_id: &str, _keep: Option<&SecretHandle>) -> Result<(), VaultError> {
        Ok(())
    }

    async fn remove(&self, _tool_id: &str, handle: &SecretHandle) -> Result<(), VaultError> {
        let Some(arn) = &handle.arn else { return Ok(()) };
        match self
            .client
            .delete_secret()
            .secret_id(arn)
            .force_delete_without_recovery(true)
            .send()
            .await
        {
            Ok(_) => Ok(()),
            Err(e) if e.code() == Some("ResourceNotFoundException") => Ok(()),
            Err(e) => Err(unavailable("DeleteSecret", &e)),
        }
    }

    async fn get_reference(&self, arn: &str) -> Result<Secret, VaultError> {
        if self.owns(arn) {
            return Err(VaultError::Unavailable(format!(
                "{arn} is a secret the registry keeps for a tool, not a reference"
            )));
        }
        let out = self
            .client
            .get_secret_value()
            .secret_id(arn)
            .send()
            .await
            .map_err(|e| unavailable("GetSecretValue", &e))?;
        out.secret_string
            .map(Secret::new)
            .ok_or_else(|| VaultError::Unavailable(format!("{arn} holds no string secret")))
    }

    fn owns(&self, arn: &str) -> bool {
        // arn:aws:secretsmanager:<region>:<account>:secret:<name>[-<6 random>]
        arn.splitn(7, ':').nth(6).is_some_and(|name| name.starts_with(&self.prefix))
    }
}
