//! The function's configuration, read once at start from the environment
//! (docs/deploy.md lists every variable).

use registry_config::{ConfigError, Vars, names};

use crate::DEFAULT_SOURCE;

/// Everything the event forwarder is configured with.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Config {
    /// The bus to put events on ([`names::EVENT_BUS`], required).
    pub bus: String,
    /// The entries' `source` ([`names::EVENT_SOURCE`], default [`DEFAULT_SOURCE`]).
    pub source: String,
    /// An EventBridge endpoint instead of AWS's ([`names::EVENTBRIDGE_ENDPOINT_URL`]).
    pub endpoint_url: Option<String>,
}

impl Config {
    /// Reads every variable through `vars`; `Err` names each missing or invalid one.
    pub fn read(mut vars: Vars<'_>) -> Result<Self, ConfigError> {
        let bus = vars.required(names::EVENT_BUS, "the bus to put events on");
        let source =
            vars.optional(names::EVENT_SOURCE).unwrap_or_else(|| DEFAULT_SOURCE.to_owned());
        let endpoint_url = vars.optional(names::EVENTBRIDGE_ENDPOINT_URL);
        vars.finish()?;
        Ok(Self { bus, source, endpoint_url })
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn the_bus_is_required_and_named() {
        let err = Config::read(Vars::new(|_| None)).unwrap_err();
        assert_eq!(err.to_string(), "REGISTRY_EVENT_BUS is not set: the bus to put events on");
        let config =
            Config::read(Vars::new(|name| (name == names::EVENT_BUS).then(|| "b".to_owned())))
                .unwrap();
        assert_eq!(
            config,
            Config { bus: "b".into(), source: DEFAULT_SOURCE.into(), endpoint_url: None }
        );
    }
}
