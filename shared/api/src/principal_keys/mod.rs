//! The keys that sign principal tokens (decisions 83, 84): a [`KeyRing`] kept in a
//! [`KeyStore`] (`serve`: a 0600 file in its data directory, created with a new key on
//! first start; the Lambdas: a Secrets Manager secret), loaded once and re-read when a
//! minute old so that every instance follows a rotation made by another.

mod file;
#[cfg(feature = "aws")]
mod secrets_manager;

use std::sync::{Arc, RwLock};
use std::time::{Duration, Instant};

pub use file::{FileKeyStore, KEY_FILE};
pub use registry_token::{DEFAULT_AUDIENCE, DEFAULT_TTL_SECONDS, KeyRing, TokenError, Verifier};
#[cfg(feature = "aws")]
pub use secrets_manager::SecretsManagerKeyStore;

/// How old the loaded ring may get before it is read again from its store.
pub const RELOAD_AFTER: Duration = Duration::from_secs(60);

/// Why the keys cannot be read, written or changed.
#[derive(Debug, Clone, PartialEq, Eq, thiserror::Error)]
pub enum KeysError {
    /// The store failed (file system, Secrets Manager).
    #[error("the key store failed: {0}")]
    Store(String),
    /// The ring is unusable, or a change to it is refused.
    #[error(transparent)]
    Token(#[from] TokenError),
}

/// Where the key ring's text form ([`KeyRing::to_text`]) is kept.
#[async_trait::async_trait]
pub trait KeyStore: Send + Sync {
    /// The ring's text, `None` when none has been written.
    async fn load(&self) -> Result<Option<String>, KeysError>;
    /// Writes the ring's text, replacing what is there.
    async fn save(&self, text: &str) -> Result<(), KeysError>;
}

/// What tokens are issued as.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct TokenSettings {
    /// `iss`: the registry's URL (its `/.well-known/openid-configuration` names it).
    pub issuer: String,
    /// `aud`.
    pub audience: String,
    /// Seconds a token is valid.
    pub ttl_seconds: i64,
}

impl TokenSettings {
    /// Settings for `issuer` with the default audience and lifetime.
    pub fn new(issuer: impl Into<String>) -> Self {
        Self {
            issuer: issuer.into(),
            audience: DEFAULT_AUDIENCE.to_owned(),
            ttl_seconds: DEFAULT_TTL_SECONDS,
        }
    }
}

struct Loaded {
    ring: Arc<KeyRing>,
    verifier: Arc<Verifier>,
    at: Instant,
}

/// The registry's signing keys and what it issues tokens as.
pub struct PrincipalKeys {
    store: Arc<dyn KeyStore>,
    settings: TokenSettings,
    loaded: RwLock<Loaded>,
}

impl std::fmt::Debug for PrincipalKeys {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("PrincipalKeys").field("settings", &self.settings).finish_non_exhaustive()
    }
}

fn now() -> i64 {
    chrono::Utc::now().timestamp()
}

impl PrincipalKeys {
    /// The ring in `store`, created with a new key (and written) when there is none.
    pub async fn open(
        store: Arc<dyn KeyStore>,
        settings: TokenSettings,
    ) -> Result<Self, KeysError> {
        let ring = match store.load().await? {
            Some(text) => KeyRing::parse(&text)?,
            None => {
                store.save(&KeyRing::generate(now())?.to_text()).await?;
                // instances starting together each write a ring: all use the one that
                // stayed (the last written)
                let text = store
                    .load()
                    .await?
                    .ok_or_else(|| KeysError::Store("the key ring written is not there".into()))?;
                KeyRing::parse(&text)?
            }
        };
        let loaded = Self::loaded(ring, &settings)?;
        Ok(Self { store, settings, loaded: RwLock::new(loaded) })
    }

    fn loaded(ring: KeyRing, settings: &TokenSettings) -> Result<Loaded, KeysError> {
        let verifier = Arc::new(ring.verifier(&settings.issuer, &settings.audience)?);
        Ok(Loaded { ring: Arc::new(ring), verifier, at: Instant::now() })
    }

    /// What tokens are issued as.
    pub fn settings(&self) -> &TokenSettings {
        &self.settings
    }

    /// The ring as loaded.
    pub fn ring(&self) -> Arc<KeyRing> {
        match self.loaded.read() {
            Ok(l) => Arc::clone(&l.ring),
            Err(poisoned) => Arc::clone(&poisoned.into_inner().ring),
        }
    }

    /// The verifier of the loaded ring's tokens.
    pub fn verifier(&self) -> Arc<Verifier> {
        match self.loaded.read() {
            Ok(l) => Arc::clone(&l.verifier),
            Err(poisoned) => Arc::clone(&poisoned.into_inner().verifier),
        }
    }

    fn replace(&self, ring: KeyRing) -> Result<Arc<KeyRing>, KeysError> {
        let loaded = Self::loaded(ring, &self.settings)?;
        let ring = Arc::clone(&loaded.ring);
        match self.loaded.write() {
            Ok(mut l) => *l = loaded,
            Err(poisoned) => *poisoned.into_inner() = loaded,
        }
        Ok(ring)
    }

    fn age(&self) -> Duration {
        match self.loaded.read() {
            Ok(l) => l.at.elapsed(),
            Err(poisoned) => poisoned.into_inner().at.elapsed(),
        }
    }

    /// Re-reads the ring from its store when it was loaded [`RELOAD_AFTER`] ago or more
    /// (another instance may have rotated it); a failed read keeps the loaded ring.
    pub async fn refresh(&self) {
        if self.age() < RELOAD_AFTER {
            return;
        }
        match self.reload().await {
            Ok(_) => {}
            Err(e) => tracing::warn!(error = %e, "the signing keys could not be re-read"),
        }
    }

    async fn reload(&self) -> Result<Arc<KeyRing>, KeysError> {
        let text = self
            .store
            .load()
            .await?
            .ok_or_else(|| KeysError::Store("the key ring is gone from its store".into()))?;
        self.replace(KeyRing::parse(&text)?)
    }

    /// A new signing key: the old one stays published (retired now) until its last
    /// token expires; keys retired longer ago than a token lives are dropped.
    pub async fn rotate(&self) -> Result<Arc<KeyRing>, KeysError> {
        let current = self.reload().await?;
        let rotated = current.rotate(now(), self.settings.ttl_seconds)?;
        self.store.save(&rotated.to_text()).await?;
        self.replace(rotated)
    }

    /// Removes the retired key `kid`: its tokens are refused from then on. The signing
    /// key cannot be removed.
    pub async fn remove(&self, kid: &str) -> Result<Arc<KeyRing>, KeysError> {
        let current = self.reload().await?;
        let removed = current.remove(kid)?;
        self.store.save(&removed.to_text()).await?;
        self.replace(removed)
    }
}
