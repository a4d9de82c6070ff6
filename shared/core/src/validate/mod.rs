//! Validation of definitions on every write path; every violation is collected.

mod agent;
mod bedrock;
mod common;
mod limits;
mod rollout;
mod tool;

pub use agent::{MAX_TOOLS, agent};
pub use common::{is_id, is_tag_value};
pub use tool::tool;
