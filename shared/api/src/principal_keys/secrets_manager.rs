//! The Lambdas' key store: one Secrets Manager secret the template creates, read and
//! written by the admin API's role alone (`GetSecretValue`, `PutSecretValue`).

use aws_sdk_secretsmanager::Client;
use aws_sdk_secretsmanager::error::ProvideErrorMetadata;

use super::{KeyStore, KeysError};

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
    /// The secret's current value; `None` while it holds none, or the placeholder the
    /// template creates it with (not a ring: `{}`), so the first start writes a key.
    async fn load(&self) -> Result<Option<String>, KeysError> {
        match self.client.get_secret_value().secret_id(&self.secret_id).send().await {
            Ok(out) => Ok(out.secret_string.filter(|s| s.contains("\"keys\""))),
            Err(e) if e.code() == Some("ResourceNotFoundException") => Ok(None),
            Err(e) => Err(failed("GetSecretValue", &e)),
        }
    }

    async fn save(&self, text: &str) -> Result<(), KeysError> {
        self.client
            .put_secret_value()
            .secret_id(&self.secret_id)
            .secret_string(text)
            .send()
            .await
            .map(|_| ())
            .map_err(|e| failed("PutSecretValue", &e))
    }
}
