//! Builds DynamoDB expressions with placeholders for every attribute name and value.

use std::collections::HashMap;

use aws_sdk_dynamodb::types::AttributeValue;

/// Placeholders of one request's expressions; only placeholders actually used get
/// registered, because DynamoDB rejects unused ones.
#[derive(Debug, Clone, Default)]
pub struct Expr {
    names: HashMap<String, String>,
    values: HashMap<String, AttributeValue>,
}

impl Expr {
    /// A `#name` placeholder for an attribute (our attribute names are alphanumeric).
    pub fn name(&mut self, attribute: &str) -> String {
        let placeholder = format!("#{attribute}");
        self.names.insert(placeholder.clone(), attribute.to_owned());
        placeholder
    }

    /// A fresh `:vN` placeholder for a value.
    pub fn value(&mut self, value: AttributeValue) -> String {
        let placeholder = format!(":v{}", self.values.len());
        self.values.insert(placeholder.clone(), value);
        placeholder
    }

    /// `#a = :v`.
    pub fn eq(&mut self, attribute: &str, value: AttributeValue) -> String {
        format!("{} = {}", self.name(attribute), self.value(value))
    }

    /// The name placeholders, `None` when there are none.
    pub fn names(&self) -> Option<HashMap<String, String>> {
        (!self.names.is_empty()).then(|| self.names.clone())
    }

    /// The value placeholders, `None` when there are none.
    pub fn values(&self) -> Option<HashMap<String, AttributeValue>> {
        (!self.values.is_empty()).then(|| self.values.clone())
    }
}
