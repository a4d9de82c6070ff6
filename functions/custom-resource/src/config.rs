//! The function's configuration, read once at start from the environment
//! (docs/deploy.md lists every variable).

use registry_config::{ConfigError, Secrets, Table, Vars};

/// Everything the custom resource function is configured with.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Config {
    /// The registry's table.
    pub table: Table,
    /// Where tools' client secrets are kept.
    pub secrets: Secrets,
}

impl Config {
    /// Reads every variable through `vars`; `Err` names each missing or invalid one.
    pub fn read(mut vars: Vars<'_>) -> Result<Self, ConfigError> {
        let table = Table::read(&mut vars);
        let secrets = Secrets::read(&vars);
        vars.finish()?;
        Ok(Self { table, secrets })
    }
}

#[cfg(test)]
mod tests {
    use registry_config::names;

    use super::*;

    #[test]
    fn the_table_is_required_and_named() {
        let err = Config::read(Vars::new(|_| None)).unwrap_err();
        assert_eq!(err.to_string(), "REGISTRY_TABLE is not set: the registry's DynamoDB table");
        let config = Config::read(Vars::new(|name| {
            (name == names::TABLE || name == names::SECRETS_PREFIX).then(|| "x/".to_owned())
        }))
        .unwrap();
        assert_eq!((config.table.name.as_str(), config.secrets.prefix.as_str()), ("x/", "x/"));
    }
}
