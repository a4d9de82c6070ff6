//! The service layer: every registry operation, with authorization, validation,
//! server fields, lifecycle and referential integrity, over any `Store`. No HTTP here;
//! the router, the CLI and the Lambdas call the services [`Registry`] builds:
//! [`Catalog`], [`Resolver`], [`CallPolicy`], [`Tokens`], [`Discovery`] and [`Publishing`].

mod authorize;
#[cfg(feature = "aws")]
mod aws;
mod decisions;
mod discovery;
mod encoded;
mod error;
mod evaluate;
mod events;
#[cfg(feature = "aws")]
mod import;
mod lifecycle;
mod parse;
mod precondition;
mod principal;
mod proposals;
#[cfg(feature = "aws")]
mod publish;
mod read;
mod references;
mod registry;
mod release_check;
mod resolve;
mod resource;
mod review;
mod schema;
mod sealed;
mod token;
pub mod vault;
mod write;

pub use authorize::{Authorization, AuthorizeRequest, CallInput, Stage, VerifiedPrincipal};
pub use decisions::{DecisionFormat, DecisionLog, Delivery, Lines};
pub use discovery::{
    AnonymousPrincipal, DEFAULT_NAMESPACE, Discovery, DiscoverySettings, SearchQuery, SearchResult,
    SearchResults, ServerList, ServerListMetadata, ServersQuery, SettingsError, VersionRef,
    VersionsQuery, Viewer,
};
pub use error::ServiceError;
pub use evaluate::{EvaluateRequest, Evaluation};
#[cfg(feature = "aws")]
pub use import::{ImportReport, ImportRequest};
pub use parse::{TypeError, deserialize, from_json, to_pointer};
pub use precondition::{Precondition, WRITE_ATTEMPTS};
pub use principal::PrincipalGrant;
pub use proposals::{MAX_NOTE_CHARS, ProposalPage, ProposalView};
#[cfg(feature = "aws")]
pub use publish::{Drift, PublishReport, PublishRequest};
#[cfg(feature = "aws")]
pub use registry::Publishing;
pub use registry::{CallPolicy, Catalog, Registry, Resolver, Tokens};
pub use registry_core::strict_json::{JsonError, parse_strict};
pub use release_check::Comparison;
pub use resolve::{Fetched, ResolveFailure};
pub use resource::{DefinitionRef, Resource, Secrets};
pub use review::{REVIEW_REQUIRED, REVIEW_TAG, ReviewPolicy, can_approve, is_governed};
pub use schema::{CallCheck, CallRequest, ToolSchema};
pub(crate) use token::require_token_role;
pub use token::{
    IssuedToken, MAX_BROKER_REQUESTS, MAX_WAITERS_PER_TOOL, TOKEN_MARGIN, TokenRequest,
    can_obtain_tokens,
};
pub use write::{Outcome, Written};
