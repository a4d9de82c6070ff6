//! The type language for tool parameters (SPEC section 8): the wire form of function
//! schemas and named types, their validation, and compilation to provider schemas.

mod function;

pub use function::{Confirmation, FunctionDefinition, ParameterDefinition, TypeDefinition};
