//! The HTTP admin API: axum router, extractors, problem responses.

pub mod agents;
pub mod auth;
pub mod compare;
pub mod etag;
pub mod evaluate;
pub mod json;
pub mod params;
pub mod problem;
pub mod resolve;
pub mod resource;
mod routes;
pub mod schema;
mod serve;
mod state;
pub mod system;
pub mod tools;
pub mod trace;

pub use problem::{Code, Problem};
pub use routes::{ROUTES, router};
pub use serve::serve;
pub use state::AppState;
