//! The registry HTTP API as a Lambda function behind API Gateway, on DynamoDB.
//!
//! [`app`] builds the router; [`GatewayAuth`] takes the caller identity from the API
//! Gateway request context ([`Identity`]) and grants roles by `ROLE_MAP` ([`RoleMap`]).

mod app;
pub mod gateway_auth;
pub mod identity;
pub mod role_map;

pub use app::app;
pub use gateway_auth::{Caller, GatewayAuth};
pub use identity::Identity;
pub use role_map::{ROLE_MAP_ENV, RoleMap, RoleMapError};
