//! Authentication: who is calling, and with which role. The principal and its role are
//! the service crate's ([`registry_service::auth`]); how an HTTP request proves them is
//! here.

mod authenticator;
mod tokens;

pub use authenticator::{AuthError, Authenticator};
pub use registry_service::auth::{Principal, Role, canonical_name, name_key, same_principal};
pub use tokens::{TokenAuth, TokenFile, TokenFileError};
