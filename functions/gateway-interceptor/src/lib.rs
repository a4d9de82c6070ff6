//! scratch
pub mod members;
pub mod rpc;
pub mod wire;
