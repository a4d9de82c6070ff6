//! The Lambdas' key store: one Secrets Manager secret the template creates, read and
//! written by the admin API's role alone (`GetSecretValue`, `PutSecretValue`,
//! `UpdateSecretVersionStage`).
//!
//! A conditional write (decision 100): the new ring is put as a version labelled
//! [`PENDING_STAGE`] (not current), then `AWSCURRENT` is moved to it from the version
//! read (`RemoveFromVersionId`). Secrets Manager refuses the move when `AWSCURRENT` is
//! no longer on that version: another instance wrote first, and the version put stays
//! unlabelled, unread.

use aws_sdk_secretsmanager::Client;
use aws_sdk_secretsmanager::error::ProvideErrorMetadata;

use super::{KeyStore, KeysError, Stored, Written};

/// The staging label of a ring put but not yet current.
pub const PENDING_STAGE: &str = "REGISTRY_PENDING";
/// The label of the version every reader reads.
const CURRENT_STAGE: &str = "AWSCURRENT";

/// The key ring in a Secrets Manager secret (its current version).
#[derive(Debug, Clone)]
pub struct SecretsManagerKeyStore {
    client: Client,
    secret_id: String,
}

impl SecretsManagerKeyStore {
    /// The secret `secret_id` (name or ARN) through `client`.
    pub fn new(client: Client, secret_id: impl Into<String>) -> Self {
        Self { client, secret_id: secret_id.into() }
    }

    /// The secret with the SDK configuration of the environment (`endpoint_url` for a
    /// local AWS-API server in tests).
    pub async fn from_env(endpoint_url: Option<String>, secret_id: impl Into<String>) -> Self {
        let config = registry_sdk_config::sdk_config(endpoint_url).await;
        Self::new(Client::new(&config), secret_id)
    }
}

fn failed<E: ProvideErrorMetadata>(what: &str, e: &E) -> KeysError {
    KeysError::Store(format!("Secrets Manager {what}: {}", e.code().unwrap_or("request failed")))
}

#[async_trait::async_trait]
impl KeyStore for SecretsManagerKeyStore {
    /// The secret's current version (`AWSCURRENT`, named: not whatever version a
    /// default read picks); its text is `None` while it holds none, or the placeholder
    /// the template creates it with (not a ring: `{}`), so the first start writes a key.
    async fn load(&self) -> Result<Stored, KeysError> {
        let read = self
            .client
            .get_secret_value()
            .secret_id(&self.secret_id)
            .version_stage(CURRENT_STAGE)
            .send()
            .await;
        match read {
            Ok(out) => Ok(Stored {
                version: out.version_id,
                text: out.secret_string.filter(|s| s.contains("\"keys\"")),
            }),
            Err(e) if e.code() == Some("ResourceNotFoundException") => {
                Ok(Stored { text: None, version: None })
            }
            Err(e) => Err(failed("GetSecretValue", &e)),
        }
    }

    async fn replace(&self, text: &str, read: Option<&str>) -> Result<Written, KeysError> {
        let Some(read) = read else {
            return Err(KeysError::Store(format!(
                "Secrets Manager: the secret `{}` has no current version to replace",
                self.secret_id
            )));
        };
        let version = uuid::Uuid::new_v4().to_string();
        self.client
            .put_secret_value()
            .secret_id(&self.secret_id)
            .client_request_token(&version)
            .secret_string(text)
            .version_stages(PENDING_STAGE)
            .send()
            .await
            .map_err(|e| failed("PutSecretValue", &e))?;
        let moved = self
            .client
            .update_secret_version_stage()
            .secret_id(&self.secret_id)
            .version_stage(CURRENT_STAGE)
            .move_to_version_id(&version)
            .remove_from_version_id(read)
            .send()
            .await;
        match moved {
            Ok(_) => Ok(Written::Done),
            // AWSCURRENT is on another version than the one read: another write won
            Err(e) if e.code() == Some("InvalidParameterException") => Ok(Written::Conflict),
            Err(e) => Err(failed("UpdateSecretVersionStage", &e)),
        }
    }
}
