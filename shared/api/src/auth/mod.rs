//! Authentication: who is calling, and with which role.

mod name;
mod principal;
mod tokens;

pub use name::{canonical_name, name_key, same_principal};
pub use principal::{AuthError, Authenticator, Principal, Role};
pub use tokens::{TokenAuth, TokenFile, TokenFileError};
