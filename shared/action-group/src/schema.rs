//! Arguments checked against a registry tool definition (feature `schema`).

use std::collections::BTreeMap;

use registry_types::{ArgumentSchema, FunctionDefinition, SchemaError, TypeDefinition};

use crate::{ArgumentError, Arguments, FunctionEvent, InvalidArguments, Parameter};

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
        Self::with_schema(&event.parameters, function, types)
    }

    /// [`Arguments::from_parameters_checked`] against `function`'s schema, prepared here.
    fn with_schema(
        parameters: &[Parameter],
        function: &FunctionDefinition,
        types: Option<&BTreeMap<String, TypeDefinition>>,
    ) -> Result<Self, InvalidArguments> {
        let schema = ArgumentSchema::new(function, types)
            .map_err(|e| InvalidArguments::one(ArgumentError::from(e)))?;
        Self::from_parameters_checked(parameters, &schema)
    }

    /// [`Arguments::from_event_with_schema`] on Bedrock's `parameters`, against a
    /// function's schema prepared once (for code that checks many calls of it).
    pub fn from_parameters_checked(
        parameters: &[Parameter],
        schema: &ArgumentSchema,
    ) -> Result<Self, InvalidArguments> {
        let mut args = Self::from_parameters(parameters)?;
        args.decode_json(schema.encodings().filter(|(_, e)| e.is_json()).map(|(name, _)| name))?;
        let value = serde_json::Value::Object(std::mem::take(&mut args.0));
        let errors = schema.check(&value);
        if let serde_json::Value::Object(map) = value {
            args.0 = map;
        }
        if errors.is_empty() {
            Ok(args)
        } else {
            Err(errors.into_iter().map(ArgumentError::from).collect::<Vec<_>>().into())
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
        Arguments::with_schema(&self.parameters, function, types)
    }
}

impl From<SchemaError> for ArgumentError {
    /// A violation found by the registry's argument checker, at its pointer.
    fn from(e: SchemaError) -> Self {
        Self::at(e.path, e.message)
    }
}
