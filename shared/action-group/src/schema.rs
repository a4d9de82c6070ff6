//! Arguments checked against a registry tool definition (feature `schema`).

use std::collections::BTreeMap;

use registry_types::{
    FunctionDefinition, TypeDefinition, bedrock_parameter_encodings, validate_arguments,
};

use crate::{ArgumentError, Arguments, FunctionEvent, InvalidArguments};

impl Arguments {
    /// Converts the event's parameters strictly, decodes the rich parameters that the
    /// registry exports to Bedrock as JSON strings, and validates every argument against
    /// `function` and the tool's named `types`. `Err` lists every problem by JSON Pointer,
    /// ready for a REPROMPT.
    pub fn from_event_with_schema(
        event: &FunctionEvent,
        function: &FunctionDefinition,
        types: Option<&BTreeMap<String, TypeDefinition>>,
    ) -> Result<Self, InvalidArguments> {
        let mut args = Self::from_parameters(&event.parameters)?;
        let encodings = bedrock_parameter_encodings(function, types);
        args.decode_json(encodings.iter().filter(|(_, e)| e.is_json()).map(|(n, _)| n.as_str()))?;
        let errors =
            validate_arguments(function, types, &serde_json::Value::Object(args.0.clone()));
        if errors.is_empty() {
            Ok(args)
        } else {
            Err(errors
                .into_iter()
                .map(|e| ArgumentError::at(e.path, e.message))
                .collect::<Vec<_>>()
                .into())
        }
    }
}

impl crate::ControlCall {
    /// The call's arguments decoded and validated against the registry tool's
    /// `function` and `types`, as [`Arguments::from_event_with_schema`] does for events.
    pub fn arguments_with_schema(
        &self,
        function: &FunctionDefinition,
        types: Option<&BTreeMap<String, TypeDefinition>>,
    ) -> Result<Arguments, InvalidArguments> {
        let event =
            FunctionEvent { parameters: self.parameters.clone(), ..FunctionEvent::default() };
        Arguments::from_event_with_schema(&event, function, types)
    }
}
