//! The AWS vault: one Secrets Manager secret per tool, named `<prefix><tool id>`; each
//! new value is a new version (`PutSecretValue`, or `CreateSecret` the first time), and
//! the definition keeps the secret's ARN and version id.
//!
//! Keeping only the current version: Secrets Manager keeps the previous value under the
//! `AWSPREVIOUS` label; [`SecretVault::retain`] takes that label off every other version
//! (`UpdateSecretVersionStage`), which leaves them unlabelled, deprecated versions that
//! Secrets Manager deletes, and removing a tool's secret deletes the secret at once
//! (`DeleteSecret` without a recovery window).

use aws_sdk_secretsmanager::Client;
use aws_sdk_secretsmanager::error::ProvideErrorMetadata;
use registry_core::Secret;

use super::{SecretHandle, SecretVault, VaultError};

/// The staging label Secrets Manager gives the value before the current one.
const PREVIOUS: &str = "AWSPREVIOUS";

/// Tools' secrets in AWS Secrets Manager, under a name prefix the IAM policy grants.
#[derive(Debug, Clone)]
pub struct SecretsManagerVault {
    client: Client,
    prefix: String,
}

impl SecretsManagerVault {
    /// A vault over `client`, naming secrets `<prefix><tool id>`.
    pub fn new(client: Client, prefix: impl Into<String>) -> Self {
        Self { client, prefix: prefix.into() }
    }

    /// A vault with the SDK configuration of the environment (`endpoint_url` for a local
    /// AWS-API server in tests).
    pub async fn from_env(endpoint_url: Option<String>, prefix: impl Into<String>) -> Self {
        let config = registry_sdk_config::sdk_config(endpoint_url).await;
        Self::new(Client::new(&config), prefix)
    }

    /// The secret name of `tool_id`: tool ids may hold `:`, which secret names may not,
    /// so it becomes `+` (which tool ids never hold).
    pub fn secret_name(&self, tool_id: &str) -> String {
        format!("{}{}", self.prefix, tool_id.replace(':', "+"))
    }
}

/// An SDK failure as a vault error: the error code and message AWS gave, never a value.
fn unavailable<E: ProvideErrorMetadata>(what: &str, e: &E) -> VaultError {
    VaultError::Unavailable(format!(
        "Secrets Manager {what}: {}",
        e.code().unwrap_or("request failed")
    ))
}

#[async_trait::async_trait]
impl SecretVault for SecretsManagerVault {
    async fn put(&self, tool_id: &str, value: &Secret) -> Result<SecretHandle, VaultError> {
        let name = self.secret_name(tool_id);
        let put = self
            .client
            .put_secret_value()
            .secret_id(&name)
            .secret_string(value.expose())
            .send()
            .await;
        let (arn, version) = match put {
            Ok(out) => (out.arn, out.version_id),
            Err(e) if e.code() == Some("ResourceNotFoundException") => {
                let out = self
                    .client
                    .create_secret()
                    .name(&name)
                    .secret_string(value.expose())
                    .send()
                    .await
                    .map_err(|e| unavailable("CreateSecret", &e))?;
                (out.arn, out.version_id)
            }
            Err(e) => return Err(unavailable("PutSecretValue", &e)),
        };
        let version = version
            .ok_or_else(|| VaultError::Unavailable("Secrets Manager returned no version".into()))?;
        Ok(SecretHandle { version, arn })
    }

    async fn get(
        &self,
        tool_id: &str,
        handle: &SecretHandle,
    ) -> Result<Option<Secret>, VaultError> {
        let id = handle.arn.clone().unwrap_or_else(|| self.secret_name(tool_id));
        match self.client.get_secret_value().secret_id(id).version_id(&handle.version).send().await
        {
            Ok(out) => Ok(out.secret_string.map(Secret::new)),
            Err(e) if e.code() == Some("ResourceNotFoundException") => Ok(None),
            Err(e) => Err(unavailable("GetSecretValue", &e)),
        }
    }

    async fn retain(&self, tool_id: &str, keep: Option<&SecretHandle>) -> Result<(), VaultError> {
        let name = self.secret_name(tool_id);
        let Some(keep) = keep else {
            return match self
                .client
                .delete_secret()
                .secret_id(&name)
                .force_delete_without_recovery(true)
                .send()
                .await
            {
                Ok(_) => Ok(()),
                Err(e) if e.code() == Some("ResourceNotFoundException") => Ok(()),
                Err(e) => Err(unavailable("DeleteSecret", &e)),
            };
        };
        let versions = match self.client.list_secret_version_ids().secret_id(&name).send().await {
            Ok(out) => out.versions.unwrap_or_default(),
            Err(e) if e.code() == Some("ResourceNotFoundException") => return Ok(()),
            Err(e) => return Err(unavailable("ListSecretVersionIds", &e)),
        };
        for version in versions {
            let Some(id) = version.version_id else { continue };
            let labelled = version.version_stages.unwrap_or_default().iter().any(|s| s == PREVIOUS);
            if id != keep.version && labelled {
                self.client
                    .update_secret_version_stage()
                    .secret_id(&name)
                    .version_stage(PREVIOUS)
                    .remove_from_version_id(&id)
                    .send()
                    .await
                    .map_err(|e| unavailable("UpdateSecretVersionStage", &e))?;
            }
        }
        Ok(())
    }

    async fn get_reference(&self, arn: &str) -> Result<Secret, VaultError> {
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
}
