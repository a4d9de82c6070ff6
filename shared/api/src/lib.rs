//! Registry service layer and HTTP admin API: [`service::Registry`] (every operation,
//! no HTTP), [`http::router`] (axum), [`auth`] (principals, roles, bearer tokens) and
//! the OpenAPI document ([`openapi`]).

pub mod auth;
pub mod http;
pub mod openapi;
pub mod service;
pub mod telemetry;

pub use auth::{AuthError, Authenticator, Principal, Role, TokenAuth, TokenFile};
pub use http::{AppState, Problem, ServerLimits, router, serve, serve_with};
pub use service::{Outcome, Registry, ServiceError, Written};
