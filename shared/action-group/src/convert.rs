//! Strict conversion of one Bedrock `{name, type, value}` parameter into a JSON value:
//! [`registry_types::decode_bedrock_value`], the registry's one decoder (its table of
//! accepted forms is there), with the parameter's name on the error.

use serde_json::Value;

use crate::invalid::ArgumentError;

/// Converts one parameter value according to its declared Bedrock type.
pub fn convert(name: &str, kind: &str, value: &str) -> Result<Value, ArgumentError> {
    registry_types::decode_bedrock_value(kind, value)
        .map_err(|error| ArgumentError::parameter(name, error.to_string()))
}
