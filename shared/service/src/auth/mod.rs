//! Who is calling, and with which role: the principal every service takes.

mod name;
mod principal;

pub use name::{canonical_name, name_key, same_principal};
pub use principal::{Principal, Role};
