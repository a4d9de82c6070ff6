//! The services the registry is made of, and [`Registry`], which builds them over one
//! store so that they share their caches, vault, keys and decision log.

use std::sync::Arc;

use registry_store::Store;

use crate::discovery::Snapshots;
use crate::principal_keys::PrincipalKeys;
#[cfg(feature = "token-broker")]
use crate::token;
use crate::{DecisionLog, Discovery, DiscoverySettings, ReviewPolicy, encoded, vault};

/// Definitions and their review: reads, writes, proposals, events, schemas, release
/// comparisons, and tools' client secrets.
#[derive(Clone)]
pub struct Catalog {
    pub(super) store: Arc<dyn Store>,
    /// Response JSON of definitions by (kind, id, version), for reads.
    pub(super) encoded: Arc<encoded::Encoded>,
    /// Which writes need review, and how many approvals.
    pub(super) review: ReviewPolicy,
    /// Where tools' client secrets are kept.
    pub(super) vault: Arc<dyn vault::SecretVault>,
}

/// Resolution: an agent, its tools and the caller's access, and the signed principal
/// context.
#[derive(Clone)]
pub struct Resolver {
    pub(super) store: Arc<dyn Store>,
    /// Compiled access rules and action groups by (kind, id, version).
    pub(super) rules: Arc<registry_core::resolve::BoundedCache>,
    /// The keys that sign principal tokens (`None`: none issued).
    pub(super) principal_keys: Option<Arc<PrincipalKeys>>,
    /// Where decision records go.
    pub(super) decisions: DecisionLog,
}

/// Call policy: one call of a tool decided (`authorize`), and access rules tried on a
/// context (`evaluate_access`).
#[derive(Clone)]
pub struct CallPolicy {
    pub(super) catalog: Catalog,
    pub(super) store: Arc<dyn Store>,
    /// Compiled rules, shared with the [`Resolver`].
    pub(super) rules: Arc<registry_core::resolve::BoundedCache>,
    /// The session and rate counters this process wrote last (see `budget::Known`).
    pub(super) known: Arc<registry_policy::Known>,
    /// Where decision records go.
    pub(super) decisions: DecisionLog,
    /// Dry runs compiling at once: one fewer than the compile pool's threads, so a
    /// crowd of dry runs never holds up a write's compile.
    pub(super) dry_runs: Arc<tokio::sync::Semaphore>,
}

/// The token broker: tools' access tokens for the principals a resolution allows
/// (feature `token-broker`).
#[cfg(feature = "token-broker")]
#[derive(Clone)]
pub struct Tokens {
    pub(super) resolver: Resolver,
    pub(super) store: Arc<dyn Store>,
    /// Where tools' client secrets are kept.
    pub(super) vault: Arc<dyn vault::SecretVault>,
    /// The HTTP client and the cache of tokens.
    pub(super) tokens: Arc<token::TokenBroker>,
    /// Where decision records go.
    pub(super) decisions: DecisionLog,
}

/// Publishing and the other routes that act on AWS: verify, test-invoke, publish to
/// Bedrock, import from it (feature `publishing`).
#[cfg(feature = "publishing")]
#[derive(Clone)]
pub struct Publishing {
    pub(super) catalog: Catalog,
    pub(super) resolver: Resolver,
    pub(super) store: Arc<dyn Store>,
    /// AWS clients (`None`: these routes answer 503).
    pub(super) aws: Option<registry_aws::Aws>,
}

/// What the services are built from (one of each, shared).
#[derive(Clone)]
struct Parts {
    store: Arc<dyn Store>,
    rules: Arc<registry_core::resolve::BoundedCache>,
    encoded: Arc<encoded::Encoded>,
    dry_runs: Arc<tokio::sync::Semaphore>,
    review: ReviewPolicy,
    #[cfg(feature = "publishing")]
    aws: Option<registry_aws::Aws>,
    principal_keys: Option<Arc<PrincipalKeys>>,
    decisions: DecisionLog,
    known: Arc<registry_policy::Known>,
    vault: Arc<dyn vault::SecretVault>,
    #[cfg(feature = "token-broker")]
    tokens: Arc<token::TokenBroker>,
    discovery: Arc<DiscoverySettings>,
    snapshots: Arc<Snapshots>,
}

/// The registry: its services over one store, sharing caches, vault, keys and
/// decision log. Configure it with the `with_*` methods, then hand the services out
/// (the router holds them in its state). Cheap to clone.
#[derive(Clone)]
pub struct Registry {
    parts: Parts,
    /// Definitions and review.
    pub catalog: Catalog,
    /// Resolution.
    pub resolver: Resolver,
    /// Call policy.
    pub calls: CallPolicy,
    /// The token broker.
    #[cfg(feature = "token-broker")]
    pub tokens: Tokens,
    /// Discovery (MCP Registry API, agent cards, search).
    pub discovery: Discovery,
    /// Publishing (AWS).
    #[cfg(feature = "publishing")]
    pub publishing: Publishing,
}

impl Registry {
    /// A registry over `store`.
    pub fn new(store: Arc<dyn Store>) -> Self {
        let permits = registry_access::compile_pool_size().saturating_sub(1).max(1);
        Self::assemble(Parts {
            store,
            rules: Arc::default(),
            encoded: Arc::default(),
            dry_runs: Arc::new(tokio::sync::Semaphore::new(permits)),
            review: ReviewPolicy::default(),
            #[cfg(feature = "publishing")]
            aws: None,
            principal_keys: None,
            decisions: DecisionLog::off(),
            known: Arc::default(),
            vault: Arc::new(vault::MemoryVault::default()),
            #[cfg(feature = "token-broker")]
            tokens: Arc::default(),
            discovery: Arc::default(),
            snapshots: Arc::default(),
        })
    }

    fn assemble(parts: Parts) -> Self {
        let p = &parts;
        let catalog = Catalog {
            store: Arc::clone(&p.store),
            encoded: Arc::clone(&p.encoded),
            review: p.review,
            vault: Arc::clone(&p.vault),
        };
        let resolver = Resolver {
            store: Arc::clone(&p.store),
            rules: Arc::clone(&p.rules),
            principal_keys: p.principal_keys.clone(),
            decisions: p.decisions.clone(),
        };
        let calls = CallPolicy {
            catalog: catalog.clone(),
            store: Arc::clone(&p.store),
            rules: Arc::clone(&p.rules),
            known: Arc::clone(&p.known),
            decisions: p.decisions.clone(),
            dry_runs: Arc::clone(&p.dry_runs),
        };
        #[cfg(feature = "token-broker")]
        let tokens = Tokens {
            resolver: resolver.clone(),
            store: Arc::clone(&p.store),
            vault: Arc::clone(&p.vault),
            tokens: Arc::clone(&p.tokens),
            decisions: p.decisions.clone(),
        };
        let discovery = Discovery {
            resolver: resolver.clone(),
            snapshots: Arc::clone(&p.snapshots),
            settings: Arc::clone(&p.discovery),
        };
        #[cfg(feature = "publishing")]
        let publishing = Publishing {
            catalog: catalog.clone(),
            resolver: resolver.clone(),
            store: Arc::clone(&p.store),
            aws: p.aws.clone(),
        };
        Self {
            parts,
            catalog,
            resolver,
            calls,
            #[cfg(feature = "token-broker")]
            tokens,
            discovery,
            #[cfg(feature = "publishing")]
            publishing,
        }
    }

    /// This registry with one part changed, its services rebuilt.
    fn with(mut self, change: impl FnOnce(&mut Parts)) -> Self {
        change(&mut self.parts);
        Self::assemble(self.parts)
    }

    /// This registry issuing principal tokens with `keys` (their signing key, issuer,
    /// audience and lifetime) at resolution, publishing their public keys, and verifying
    /// the tokens the broker is given (SPEC section 16, decision 83).
    #[must_use]
    pub fn with_principal_keys(self, keys: Arc<PrincipalKeys>) -> Self {
        self.with(|p| p.principal_keys = Some(keys))
    }

    /// This registry writing every access and call decision to `log`.
    #[must_use]
    pub fn with_decision_log(self, log: DecisionLog) -> Self {
        self.with(|p| p.decisions = log)
    }

    /// This registry keeping tools' client secrets in `vault` (by default in memory:
    /// binaries give the data directory's [`vault::FileVault`] or Secrets Manager).
    #[must_use]
    pub fn with_vault(self, vault: Arc<dyn vault::SecretVault>) -> Self {
        self.with(|p| p.vault = vault)
    }

    /// This registry acting on AWS through `aws` (verify and test-invoke tool Lambdas).
    #[cfg(feature = "publishing")]
    #[must_use]
    pub fn with_aws(self, aws: registry_aws::Aws) -> Self {
        self.with(|p| p.aws = Some(aws))
    }

    /// This registry discovering with `settings` (namespace, anonymous principal).
    #[must_use]
    pub fn with_discovery(self, settings: DiscoverySettings) -> Self {
        self.with(|p| p.discovery = Arc::new(settings))
    }

    /// This registry with the review policy `review`.
    #[must_use]
    pub fn with_review(self, review: ReviewPolicy) -> Self {
        self.with(|p| p.review = review)
    }
}

impl Catalog {
    /// The underlying store.
    pub fn store(&self) -> &Arc<dyn Store> {
        &self.store
    }

    /// The vault of tools' client secrets.
    pub fn vault(&self) -> &Arc<dyn vault::SecretVault> {
        &self.vault
    }

    /// The review policy.
    pub fn review(&self) -> ReviewPolicy {
        self.review
    }
}

impl Resolver {
    /// The keys this registry issues principal tokens with, if any.
    pub fn principal_keys(&self) -> Option<&Arc<PrincipalKeys>> {
        self.principal_keys.as_ref()
    }
}

#[cfg(feature = "token-broker")]
impl Tokens {
    /// The vault of tools' client secrets.
    pub(super) fn vault(&self) -> &Arc<dyn vault::SecretVault> {
        &self.vault
    }
}

macro_rules! store_of {
    ($($service:ident),*) => {$(
        impl $service {
            /// The underlying store.
            pub(super) fn store(&self) -> &Arc<dyn Store> {
                &self.store
            }
        }
    )*};
}
store_of!(Resolver, CallPolicy);
#[cfg(feature = "token-broker")]
store_of!(Tokens);
#[cfg(feature = "publishing")]
store_of!(Publishing);

macro_rules! opaque_debug {
    ($($service:ident),*) => {$(
        impl std::fmt::Debug for $service {
            fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
                f.debug_struct(stringify!($service)).finish_non_exhaustive()
            }
        }
    )*};
}
opaque_debug!(Registry, Catalog, Resolver, CallPolicy);
#[cfg(feature = "token-broker")]
opaque_debug!(Tokens);
#[cfg(feature = "publishing")]
opaque_debug!(Publishing);
