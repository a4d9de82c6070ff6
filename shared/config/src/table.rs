//! The settings several binaries share: the registry's table, the secrets' place.

use crate::{Vars, names};

/// Where the registry's table is.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Table {
    /// The table name ([`names::TABLE`], required).
    pub name: String,
    /// A DynamoDB-API endpoint instead of AWS's ([`names::DYNAMODB_ENDPOINT_URL`]).
    pub endpoint_url: Option<String>,
    /// The secret signing list cursors ([`names::CURSOR_KEY`]; else one derived from
    /// the table name).
    pub cursor_key: Option<String>,
}

impl Table {
    /// Reads [`names::TABLE`], [`names::DYNAMODB_ENDPOINT_URL`] and [`names::CURSOR_KEY`].
    pub fn read(vars: &mut Vars<'_>) -> Self {
        Self {
            name: vars.required(names::TABLE, "the registry's DynamoDB table"),
            endpoint_url: vars.optional(names::DYNAMODB_ENDPOINT_URL),
            cursor_key: vars.optional(names::CURSOR_KEY),
        }
    }
}

/// Where tools' client secrets are kept on AWS.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Secrets {
    /// The Secrets Manager name prefix ([`names::SECRETS_PREFIX`], default
    /// [`DEFAULT_SECRETS_PREFIX`]).
    pub prefix: String,
    /// A Secrets Manager endpoint instead of AWS's ([`names::SECRETSMANAGER_ENDPOINT_URL`]).
    pub endpoint_url: Option<String>,
}

/// The name prefix the template's policy grants.
pub const DEFAULT_SECRETS_PREFIX: &str = "agent-registry/";

impl Secrets {
    /// Reads [`names::SECRETS_PREFIX`] and [`names::SECRETSMANAGER_ENDPOINT_URL`].
    pub fn read(vars: &Vars<'_>) -> Self {
        Self {
            prefix: vars
                .optional(names::SECRETS_PREFIX)
                .unwrap_or_else(|| DEFAULT_SECRETS_PREFIX.to_owned()),
            endpoint_url: vars.optional(names::SECRETSMANAGER_ENDPOINT_URL),
        }
    }
}
