//! The HTTP admin API: axum router, extractors, problem responses.

pub mod auth;
pub mod authorize;
#[cfg(feature = "aws")]
pub mod aws;
pub mod compare;
pub mod discovery;
pub mod etag;
pub mod evaluate;
pub mod events;
pub mod guard;
pub mod json;
pub mod keys;
pub mod limits;
pub mod params;
pub mod principal;
pub mod problem;
pub mod proposals;
pub mod protected_resource;
pub mod resolve;
pub mod resource;
pub mod resource_routes;
pub mod responses;
pub mod routed;
pub mod routes;
pub mod schema;
mod serve;
pub mod stall;
mod state;
pub mod system;
pub mod token;
pub mod trace;
pub mod wire;
pub mod write_lock;

pub use limits::ServerLimits;
pub use problem::{Code, Problem};
pub use routes::router;
pub use serve::{serve, serve_with};
pub use state::AppState;
