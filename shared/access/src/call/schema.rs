//! What call rules may name: the tool's functions and each one's parameters with
//! their types, as the tool's schema declares them.

use std::collections::BTreeMap;

/// The type of one parameter, as call rules see its value.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash)]
pub enum ArgType {
    /// A string.
    String,
    /// An integer (CEL `int`).
    Integer,
    /// A number (CEL `double`, also when written without a fraction).
    Number,
    /// A boolean.
    Boolean,
    /// A list.
    Array,
    /// A map.
    Object,
    /// Any JSON value (`unknown`, `file`): not type-checked.
    Any,
}

impl ArgType {
    /// How the type is named in messages.
    pub fn name(self) -> &'static str {
        match self {
            Self::String => "a string",
            Self::Integer => "an integer",
            Self::Number => "a number",
            Self::Boolean => "a boolean",
            Self::Array => "an array",
            Self::Object => "an object",
            Self::Any => "any value",
        }
    }

    fn is_numeric(self) -> bool {
        matches!(self, Self::Integer | Self::Number)
    }

    /// Whether two parameters of these types may hold comparable values.
    pub(crate) fn compatible(self, other: ArgType) -> bool {
        self == other
            || self == Self::Any
            || other == Self::Any
            || (self.is_numeric() && other.is_numeric())
    }
}

/// The functions of a tool and their parameters: what `call.function` and
/// `call.arguments` may name, and how argument values are typed.
#[derive(Debug, Clone, Default, PartialEq, Eq)]
pub struct CallSchema {
    functions: BTreeMap<String, BTreeMap<String, ArgType>>,
}

impl CallSchema {
    /// An empty schema (no functions: every reference to an argument is unknown).
    pub fn new() -> Self {
        Self::default()
    }

    /// Adds function `name` with its parameters.
    pub fn function(
        &mut self,
        name: impl Into<String>,
        parameters: impl IntoIterator<Item = (String, ArgType)>,
    ) -> &mut Self {
        self.functions.insert(name.into(), parameters.into_iter().collect());
        self
    }

    /// Function names, sorted, owned.
    pub(crate) fn function_list(&self) -> Vec<String> {
        self.functions.keys().cloned().collect()
    }

    /// Whether the schema has a function `name`.
    pub fn has_function(&self, name: &str) -> bool {
        self.functions.contains_key(name)
    }

    /// Function names, sorted.
    pub fn function_names(&self) -> impl Iterator<Item = &str> {
        self.functions.keys().map(String::as_str)
    }

    /// Every parameter name of any function, sorted, without repeats.
    pub fn parameter_names(&self) -> Vec<&str> {
        let mut names: Vec<&str> =
            self.functions.values().flat_map(|p| p.keys().map(String::as_str)).collect();
        names.sort_unstable();
        names.dedup();
        names
    }

    /// The types parameter `name` has across the functions that declare it.
    pub fn parameter_types(&self, name: &str) -> Vec<ArgType> {
        let mut types: Vec<ArgType> =
            self.functions.values().filter_map(|p| p.get(name).copied()).collect();
        types.dedup();
        types
    }

    /// The type of parameter `name` of `function`.
    pub fn parameter(&self, function: &str, name: &str) -> Option<ArgType> {
        self.functions.get(function)?.get(name).copied()
    }
}
