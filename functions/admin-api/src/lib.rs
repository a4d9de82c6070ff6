#![doc = include_str!("../README.md")]

mod app;
pub mod config;
pub mod gateway_auth;
pub mod identity;
pub mod role_map;

pub use app::app;
pub use config::Config;
pub use gateway_auth::{Caller, GatewayAuth};
pub use identity::Identity;
pub use role_map::{RoleMap, RoleMapError};
