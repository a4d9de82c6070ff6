//! An action-group call's parameters, decoded and checked against the tool's schema
//! before the point decides the call.

use bedrock_action_group::{ArgumentError, Arguments, InvalidArguments, Parameter};
use registry_policy::Loaded;

/// The call's arguments, decoded and checked against `loaded`'s schema for `function`;
/// a function the tool lacks is refused, as `authorize` refuses it.
pub(crate) fn arguments(
    loaded: &Loaded,
    function: &str,
    parameters: &[Parameter],
) -> Result<Arguments, InvalidArguments> {
    match loaded.schema(function) {
        Some(Ok(schema)) => Arguments::from_parameters_checked(parameters, schema),
        Some(Err(invalid)) => Err(InvalidArguments::one(invalid.clone().into())),
        None => Err(InvalidArguments::one(ArgumentError::at(
            "",
            format!("`{function}` is not a function of this tool"),
        ))),
    }
}
