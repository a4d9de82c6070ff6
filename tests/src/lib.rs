//! End-to-end harness: the function binaries under a local Lambda Runtime API
//! ([`RuntimeApi`], [`Lambda`]), on a table of the local DynamoDB-API server
//! ([`Table`]), with a stand-in for CloudFormation's pre-signed response URL
//! ([`ResponseUrl`]), and the events AWS sends ([`events`]).

pub mod binaries;
pub mod events;
pub mod lambda;
pub mod response_url;
pub mod runtime_api;

pub use lambda::{Lambda, Table};
pub use response_url::{Put, ResponseUrl};
pub use runtime_api::{Answer, RuntimeApi};
