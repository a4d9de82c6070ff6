//! The keys that sign principal tokens (decisions 83, 84): a [`KeyRing`] kept in a
//! [`KeyStore`] (`serve`: a 0600 file in its data directory, created with a new key on
//! first start; the Lambdas: a Secrets Manager secret), loaded once and re-read when a
//! minute old so that every instance follows a rotation made by another, and at once
//! when a token names a key the loaded ring lacks.
//!
//! Every change is a conditional write (decision 100): it replaces the ring it read, or
//! nothing when another instance wrote first, and is then made again on the ring that
//! won. Instances starting together all end on one ring; rotations made together keep
//! every new key (the later one signs, the others stay published as retired).

mod file;
#[cfg(feature = "secrets-manager")]
mod secrets_manager;

use std::sync::{Arc, RwLock};
use std::time::{Duration, Instant};

pub use file::{FileKeyStore, KEY_FILE};
pub use registry_token::{
    DEFAULT_AUDIENCE, DEFAULT_TTL_SECONDS, IssuedTokens, KeyRing, SigningAlgorithm, TokenError,
    Verifier,
};
#[cfg(feature = "secrets-manager")]
pub use secrets_manager::SecretsManagerKeyStore;

/// How old the loaded ring may get before it is read again from its store.
pub const RELOAD_AFTER: Duration = Duration::from_secs(60);
/// Least time between two re-reads for a token whose key the loaded ring lacks (a key
/// another instance just made; or a forged `kid`, which must not make every request a
/// read of the store).
pub const RELOAD_FOR_UNKNOWN_KEY: Duration = Duration::from_secs(1);
/// Most conditional writes one change tries before it gives up (each lost to another
/// instance's write).
const WRITE_ATTEMPTS: usize = 8;

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

/// What a [`KeyStore`] holds: the ring's text (`None` before one is written) and the
/// version it was read at, which a conditional write names.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Stored {
    /// The ring's text form, `None` while the store holds none.
    pub text: Option<String>,
    /// The store's version of what was read (opaque; `None`: nothing at all there).
    pub version: Option<String>,
}

/// Whether a conditional write took place.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Written {
    /// The ring written is the store's current one.
    Done,
    /// Another write came first: the version read is no longer current; nothing written.
    Conflict,
}

/// Where the key ring's text form ([`KeyRing::to_text`]) is kept.
#[async_trait::async_trait]
pub trait KeyStore: Send + Sync {
    /// The ring's text and the version read.
    async fn load(&self) -> Result<Stored, KeysError>;
    /// Writes `text` if the store is still at `read` (the version [`KeyStore::load`]
    /// answered), else nothing ([`Written::Conflict`]).
    async fn replace(&self, text: &str, read: Option<&str>) -> Result<Written, KeysError>;
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
    /// The algorithm of keys made from now on (the first key, rotations); keys made
    /// before keep theirs (decision 113).
    pub algorithm: SigningAlgorithm,
}

impl TokenSettings {
    /// Settings for `issuer` with the default audience and lifetime.
    pub fn new(issuer: impl Into<String>) -> Self {
        Self {
            issuer: issuer.into(),
            audience: DEFAULT_AUDIENCE.to_owned(),
            ttl_seconds: DEFAULT_TTL_SECONDS,
            algorithm: SigningAlgorithm::default(),
        }
    }
}

struct Loaded {
    ring: Arc<KeyRing>,
    verifier: Arc<Verifier>,
    at: Instant,
    /// When the ring was last re-read for a token naming a key it lacked.
    unknown_key_at: Option<Instant>,
}

/// The registry's signing keys and what it issues tokens as.
pub struct PrincipalKeys {
    store: Arc<dyn KeyStore>,
    settings: TokenSettings,
    loaded: RwLock<Loaded>,
    /// Held through a change (read, change, write, use), so two changes made at once in
    /// this process do not both start from the same ring and lose the first one's key.
    changing: tokio::sync::Mutex<()>,
    /// The tokens issued at resolution, answered again for the same session (decision 112).
    issued: IssuedTokens,
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
        let mut made: Option<KeyRing> = None;
        let mut ring = None;
        for _ in 0..WRITE_ATTEMPTS {
            let stored = store.load().await?;
            if let Some(text) = &stored.text {
                ring = Some(KeyRing::parse(text)?);
                break;
            }
            let new = match made.take() {
                Some(new) => new,
                None => KeyRing::generate_for(settings.algorithm, now())?,
            };
            // instances starting together each try to write a ring: one write wins and
            // every instance uses that ring
            match store.replace(&new.to_text(), stored.version.as_deref()).await? {
                Written::Done => {
                    ring = Some(new);
                    break;
                }
                Written::Conflict => made = Some(new),
            }
        }
        let ring = ring.ok_or_else(|| lost_races("create"))?;
        let loaded = Self::loaded(ring, &settings)?;
        Ok(Self {
            store,
            settings,
            loaded: RwLock::new(loaded),
            changing: tokio::sync::Mutex::new(()),
            issued: IssuedTokens::default(),
        })
    }

    fn loaded(ring: KeyRing, settings: &TokenSettings) -> Result<Loaded, KeysError> {
        let verifier = Arc::new(ring.verifier(&settings.issuer, &settings.audience)?);
        Ok(Loaded { ring: Arc::new(ring), verifier, at: Instant::now(), unknown_key_at: None })
    }

    /// What tokens are issued as.
    pub fn settings(&self) -> &TokenSettings {
        &self.settings
    }

    /// The tokens issued at resolution, kept for reuse.
    pub fn issued(&self) -> &IssuedTokens {
        &self.issued
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
        let mut loaded = Self::loaded(ring, &self.settings)?;
        let ring = Arc::clone(&loaded.ring);
        match self.loaded.write() {
            Ok(mut l) => {
                loaded.unknown_key_at = l.unknown_key_at;
                *l = loaded;
            }
            Err(poisoned) => *poisoned.into_inner() = loaded,
        }
        Ok(ring)
    }

    /// Re-reads the ring as [`PrincipalKeys::refresh`] does, and also when `token`
    /// names a key the loaded ring lacks (another instance's new key) unless such a
    /// re-read was made in the last [`RELOAD_FOR_UNKNOWN_KEY`]. A failed read keeps the
    /// loaded ring.
    pub async fn refresh_for(&self, token: &str) {
        self.refresh().await;
        let Ok(kid) = Verifier::key_id(token) else { return };
        if self.verifier().knows(&kid) {
            return;
        }
        {
            let Ok(mut l) = self.loaded.write() else { return };
            if l.unknown_key_at.is_some_and(|t| t.elapsed() < RELOAD_FOR_UNKNOWN_KEY) {
                return;
            }
            l.unknown_key_at = Some(Instant::now());
        }
        // a change under way replaces the ring itself
        let _one = self.changing.lock().await;
        if let Err(e) = self.reload().await {
            tracing::warn!(error = %e, "the signing keys could not be re-read");
        }
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
        // a change under way replaces the ring itself; a read made beside it could put
        // the ring from before it back
        let Ok(_one) = self.changing.try_lock() else { return };
        match self.reload().await {
            Ok(_) => {}
            Err(e) => tracing::warn!(error = %e, "the signing keys could not be re-read"),
        }
    }

    async fn reload(&self) -> Result<Arc<KeyRing>, KeysError> {
        let (ring, _) = self.read().await?;
        self.replace(ring)
    }

    /// The stored ring and the version it was read at.
    async fn read(&self) -> Result<(KeyRing, Option<String>), KeysError> {
        let stored = self.store.load().await?;
        let text = stored
            .text
            .ok_or_else(|| KeysError::Store("the key ring is gone from its store".into()))?;
        Ok((KeyRing::parse(&text)?, stored.version))
    }

    /// `change` made to the stored ring and written conditionally: made again on the
    /// ring that won whenever another instance wrote first; then loaded.
    async fn change(
        &self,
        change: impl Fn(&KeyRing) -> Result<KeyRing, TokenError>,
        what: &str,
    ) -> Result<Arc<KeyRing>, KeysError> {
        let _one = self.changing.lock().await;
        for _ in 0..WRITE_ATTEMPTS {
            let (current, version) = self.read().await?;
            let changed = change(&current)?;
            match self.store.replace(&changed.to_text(), version.as_deref()).await? {
                Written::Done => return self.replace(changed),
                Written::Conflict => continue,
            }
        }
        Err(lost_races(what))
    }

    /// A new signing key of the configured algorithm: the old one stays published (retired now) until its last
    /// token expires; keys retired longer ago than a token lives (and another instance
    /// may have signed with them before it re-read the ring) are dropped. Made with
    /// another instance's rotation, both new keys stay: the later write's signs.
    pub async fn rotate(&self) -> Result<Arc<KeyRing>, KeysError> {
        let key = registry_token::SigningKey::generate_for(self.settings.algorithm)?;
        let lag = i64::try_from(RELOAD_AFTER.as_secs()).unwrap_or(i64::MAX);
        let keep = self.settings.ttl_seconds.saturating_add(lag);
        self.change(|ring| ring.rotate_to(key.clone(), now(), keep), "rotate").await
    }

    /// Removes the retired key `kid`: its tokens are refused from then on. The signing
    /// key cannot be removed.
    pub async fn remove(&self, kid: &str) -> Result<Arc<KeyRing>, KeysError> {
        self.change(|ring| ring.remove(kid), "remove a key of").await
    }
}

fn lost_races(what: &str) -> KeysError {
    KeysError::Store(format!(
        "could not {what} the key ring: {WRITE_ATTEMPTS} writes in a row lost to other instances'"
    ))
}
