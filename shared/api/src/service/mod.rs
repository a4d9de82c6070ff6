//! The service layer: every registry operation, with authorization, validation,
//! server fields, lifecycle and referential integrity, over any [`Store`]. No HTTP here;
//! the router, the CLI and the Lambda all call [`Registry`].

#[cfg(feature = "aws")]
mod aws;
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
mod strict_json;
mod write;

use std::sync::Arc;

use registry_store::Store;

pub use error::ServiceError;
pub use evaluate::{EvaluateRequest, Evaluation};
#[cfg(feature = "aws")]
pub use import::{ImportReport, ImportRequest};
pub use merge_patch::merge;
pub use parse::{from_json, to_pointer};
pub use precondition::{Precondition, WRITE_ATTEMPTS};
pub use proposals::{MAX_NOTE_CHARS, ProposalPage, ProposalView};
#[cfg(feature = "aws")]
pub use publish::{Drift, PublishReport, PublishRequest};
pub use release_check::Comparison;
pub use resolve::{Fetched, ResolveFailure};
pub use resource::{DefinitionRef, Resource, Secrets};
pub use review::{
    REQUIRE_REVIEW_ENV, REVIEW_APPROVALS_ENV, REVIEW_REQUIRED, REVIEW_TAG, ReviewPolicy,
    can_approve, is_governed,
};
pub use schema::{CallCheck, CallRequest, ToolSchema};
pub use strict_json::{JsonError, parse_strict};
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
        }
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
