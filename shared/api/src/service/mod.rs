//! The service layer: every registry operation, with authorization, validation,
//! server fields, lifecycle and referential integrity, over any [`Store`]. No HTTP here;
//! the router, the CLI and the Lambda all call [`Registry`].

mod authorize;
#[cfg(feature = "aws")]
mod aws;
mod decisions;
mod encoded;
mod error;
mod evaluate;
mod events;
#[cfg(feature = "aws")]
mod import;
mod lifecycle;
mod merge_patch;
mod parse;
mod precondition;
mod proposals;
#[cfg(feature = "aws")]
mod publish;
mod read;
mod references;
mod release_check;
mod resolve;
mod resource;
mod review;
mod schema;
mod sealed;
mod strict_json;
mod token;
pub mod vault;
mod write;

use std::sync::Arc;

use registry_store::Store;

pub use authorize::{Authorization, AuthorizeRequest, CallInput, Stage};
pub use decisions::{DecisionFormat, DecisionLog, Delivery, Lines};
pub use error::ServiceError;
pub use evaluate::{EvaluateRequest, Evaluation};
#[cfg(feature = "aws")]
pub use import::{ImportReport, ImportRequest};
pub use merge_patch::merge;
pub use parse::{TypeError, deserialize, from_json, to_pointer};
pub use precondition::{Precondition, WRITE_ATTEMPTS};
pub use proposals::{MAX_NOTE_CHARS, ProposalPage, ProposalView};
#[cfg(feature = "aws")]
pub use publish::{Drift, PublishReport, PublishRequest};
pub use release_check::Comparison;
pub use resolve::{Fetched, ResolveFailure};
pub use resource::{DefinitionRef, Resource, Secrets};
pub use review::{REVIEW_REQUIRED, REVIEW_TAG, ReviewPolicy, can_approve, is_governed};
pub use schema::{CallCheck, CallRequest, ToolSchema};
pub use strict_json::{JsonError, parse_strict};
pub(crate) use token::require_token_role;
pub use token::{
    IssuedToken, MAX_BROKER_REQUESTS, MAX_WAITERS_PER_TOOL, TOKEN_MARGIN, TokenRequest,
    can_obtain_tokens,
};
pub use write::{Outcome, Written};

/// The registry: agents and tools over one store. Cheap to clone.
#[derive(Clone)]
pub struct Registry {
    store: Arc<dyn Store>,
    /// Compiled access rules and action groups by (kind, id, version), for resolution.
    rules: Arc<registry_core::resolve::BoundedCache>,
    /// Response JSON of definitions by (kind, id, version), for reads.
    encoded: Arc<encoded::Encoded>,
    /// Dry runs compiling at once: one fewer than the compile pool's threads, so a
    /// crowd of dry runs never holds up a write's compile.
    dry_runs: Arc<tokio::sync::Semaphore>,
    /// Which writes need review, and how many approvals.
    review: ReviewPolicy,
    /// The note a write that becomes a proposal carries (set per request).
    note: Option<Arc<str>>,
    /// AWS clients for the routes that act on AWS (`None`: those routes answer 503).
    #[cfg(feature = "aws")]
    aws: Option<registry_aws::Aws>,
    /// The keys that sign principal contexts at resolution (`None`: not signed).
    principal_keys: Option<Arc<registry_access::signed::KeyRing>>,
    /// How long a signed principal context is valid, in seconds.
    principal_ttl: i64,
    /// Where decision records go.
    decisions: DecisionLog,
    /// The session and rate counters this process wrote last (see `budget::Known`).
    known: Arc<registry_store::budget::Known>,
    /// Where tools' client secrets are kept (in memory unless given one).
    vault: Arc<dyn vault::SecretVault>,
    /// Tools' access tokens: the HTTP client and the cache.
    tokens: Arc<token::TokenBroker>,
}

impl Registry {
    /// A registry over `store`.
    pub fn new(store: Arc<dyn Store>) -> Self {
        let permits = registry_access::compile_pool_size().saturating_sub(1).max(1);
        Self {
            store,
            rules: Arc::default(),
            encoded: Arc::default(),
            dry_runs: Arc::new(tokio::sync::Semaphore::new(permits)),
            review: ReviewPolicy::default(),
            note: None,
            #[cfg(feature = "aws")]
            aws: None,
            principal_keys: None,
            principal_ttl: registry_access::signed::DEFAULT_TTL_SECONDS,
            decisions: DecisionLog::off(),
            known: Arc::default(),
            vault: Arc::new(vault::MemoryVault::default()),
            tokens: Arc::default(),
        }
    }

    /// This registry signing the principal context of every resolution with the first
    /// key of `keys`, valid for `ttl_seconds` (SPEC section 16).
    pub fn with_principal_keys(
        mut self,
        keys: registry_access::signed::KeyRing,
        ttl_seconds: i64,
    ) -> Self {
        self.principal_keys = Some(Arc::new(keys));
        self.principal_ttl = ttl_seconds;
        self
    }

    /// Verifies a signed principal context (the `registryPrincipal` session attribute of
    /// a resolution) with this registry's keys, now.
    pub fn verify_principal(
        &self,
        token: &str,
    ) -> Result<registry_access::signed::Principal, registry_access::signed::SignedContextError>
    {
        let keys = self.principal_keys.as_deref().ok_or(
            registry_access::signed::SignedContextError::InvalidKey(
                "this registry signs no contexts",
            ),
        )?;
        keys.verify(token, chrono::Utc::now().timestamp())
    }

    /// This registry writing every access and call decision to `log`.
    pub fn with_decision_log(mut self, log: DecisionLog) -> Self {
        self.decisions = log;
        self
    }

    /// This registry keeping tools' client secrets in `vault` (by default in memory:
    /// binaries give the data directory's [`vault::FileVault`] or Secrets Manager).
    pub fn with_vault(mut self, vault: Arc<dyn vault::SecretVault>) -> Self {
        self.vault = vault;
        self
    }

    /// The vault of tools' client secrets.
    pub fn vault(&self) -> &Arc<dyn vault::SecretVault> {
        &self.vault
    }

    /// This registry acting on AWS through `aws` (verify and test-invoke tool Lambdas).
    #[cfg(feature = "aws")]
    pub fn with_aws(mut self, aws: registry_aws::Aws) -> Self {
        self.aws = Some(aws);
        self
    }

    /// This registry with the review policy `review`.
    #[must_use]
    pub fn with_review(mut self, review: ReviewPolicy) -> Self {
        self.review = review;
        self
    }

    /// The review policy.
    pub fn review(&self) -> ReviewPolicy {
        self.review
    }

    /// A handle on this registry whose writes that become proposals carry `note`.
    #[must_use]
    pub fn with_note(&self, note: Option<String>) -> Self {
        let mut registry = self.clone();
        registry.note = note.map(Arc::from);
        registry
    }

    /// The underlying store (for features such as resolution that read it directly).
    pub fn store(&self) -> &Arc<dyn Store> {
        &self.store
    }
}

impl std::fmt::Debug for Registry {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("Registry").finish_non_exhaustive()
    }
}
