//! Authentication: who is calling, and with which role.

mod principal;
mod tokens;

pub use principal::{AuthError, Authenticator, Principal, Role};
pub use tokens::{TokenAuth, TokenFile, TokenFileError};
