#![doc = include_str!("../README.md")]

pub mod auth;
pub mod http;
pub mod openapi;
pub mod principal_keys;
pub mod service;
pub mod telemetry;

pub use auth::{AuthError, Authenticator, Principal, Role, TokenAuth, TokenFile};
pub use http::{AppState, Problem, ServerLimits, router, serve, serve_with};
pub use service::{
    CallPolicy, Catalog, Discovery, DiscoverySettings, Outcome, Registry, Resolver, ServiceError,
    Tokens, Written, vault,
};
pub use service::{ProposalView, ReviewPolicy};
