#![doc = include_str!("../README.md")]

pub mod auth;
pub mod http;
pub mod openapi;

/// The services this router serves (the `registry-service` crate), at their old path.
pub use registry_service as service;
pub use registry_service::{principal_keys, telemetry};

pub use auth::{AuthError, Authenticator, Principal, Role, TokenAuth, TokenFile};
pub use http::{AppState, Problem, ServerLimits, router, serve, serve_with};
pub use service::{
    CallPolicy, Catalog, Discovery, DiscoverySettings, Outcome, Registry, Resolver, ServiceError,
    Tokens, Written, vault,
};
pub use service::{ProposalView, ReviewPolicy};
