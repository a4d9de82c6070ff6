#![doc = include_str!("../README.md")]

pub mod auth;
mod authorize;
#[cfg(feature = "publishing")]
mod aws;
mod decisions;
mod discovery;
mod encoded;
mod error;
mod evaluate;
mod events;
#[cfg(feature = "publishing")]
mod import;
mod lifecycle;
mod parse;
mod precondition;
mod principal;
pub mod principal_keys;
mod proposals;
#[cfg(feature = "publishing")]
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
pub mod telemetry;
#[cfg(feature = "token-broker")]
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
pub use encoded::PageBody;
pub use error::ServiceError;
pub use evaluate::{EvaluateRequest, Evaluation};
#[cfg(feature = "publishing")]
pub use import::{ImportReport, ImportRequest};
pub use parse::{TypeError, deserialize, from_json, to_pointer};
pub use precondition::{Precondition, WRITE_ATTEMPTS};
pub use principal::PrincipalGrant;
pub use proposals::{MAX_NOTE_CHARS, ProposalPage, ProposalView};
#[cfg(feature = "publishing")]
pub use publish::{Drift, PublishReport, PublishRequest};
#[cfg(feature = "publishing")]
pub use registry::Publishing;
#[cfg(feature = "token-broker")]
pub use registry::Tokens;
pub use registry::{CallPolicy, Catalog, Registry, Resolver};
pub use registry_core::strict_json::{JsonError, parse_strict};
pub use release_check::Comparison;
pub use resolve::{Fetched, ResolveContext, ResolveFailure};
pub use resource::{DefinitionRef, Resource, Secrets};
pub use review::{REVIEW_REQUIRED, REVIEW_TAG, ReviewPolicy, can_approve, is_governed};
pub use schema::{CallCheck, CallRequest, ToolSchema};
#[cfg(feature = "token-broker")]
pub use token::{
    IssuedToken, MAX_BROKER_REQUESTS, MAX_WAITERS_PER_TOOL, TOKEN_MARGIN, TokenRequest,
    can_obtain_tokens, require_token_role,
};
pub use write::{Outcome, Written};

pub use auth::{Principal, Role};
