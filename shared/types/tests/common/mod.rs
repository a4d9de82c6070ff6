//! Helpers shared by the integration tests.
#![allow(dead_code)]

use registry_types::{FunctionDefinition, TypeDefinition};
use serde_json::Value;
use std::collections::BTreeMap;

/// A tool's `functionSchema` and `types`, parsed from JSON like a request body.
pub struct Tool {
    pub functions: Option<Vec<FunctionDefinition>>,
    pub types: Option<BTreeMap<String, TypeDefinition>>,
}

impl Tool {
    pub fn parse(value: Value) -> Tool {
        let functions =
            value.get("functionSchema").map(|f| serde_json::from_value(f.clone()).unwrap());
        let types = value.get("types").map(|t| serde_json::from_value(t.clone()).unwrap());
        Tool { functions, types }
    }

    pub fn functions(&self) -> Option<&[FunctionDefinition]> {
        self.functions.as_deref()
    }

    pub fn types(&self) -> Option<&BTreeMap<String, TypeDefinition>> {
        self.types.as_ref()
    }

    /// The function called `name`.
    pub fn function(&self, name: &str) -> &FunctionDefinition {
        self.functions.as_ref().unwrap().iter().find(|f| f.name == name).unwrap()
    }
}
