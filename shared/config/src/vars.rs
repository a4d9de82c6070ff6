//! Reading a binary's configuration: every variable once, every problem reported.

use std::fmt::Display;

/// One variable that is missing or invalid.
#[derive(Debug, Clone, PartialEq, Eq, thiserror::Error)]
pub enum Problem {
    /// A required variable is unset or empty.
    #[error("{name} is not set: {meaning}")]
    Missing {
        /// The variable.
        name: &'static str,
        /// What it should hold.
        meaning: &'static str,
    },
    /// A variable's value does not parse.
    #[error("{name} is invalid: {reason}")]
    Invalid {
        /// The variable.
        name: &'static str,
        /// Why (never the value of a secret).
        reason: String,
    },
}

impl Problem {
    /// The variable the problem is about.
    pub fn name(&self) -> &'static str {
        match self {
            Self::Missing { name, .. } | Self::Invalid { name, .. } => name,
        }
    }
}

/// Why a binary refuses to start: every problem of its configuration, each naming its
/// variable.
#[derive(Debug, Clone, PartialEq, Eq, thiserror::Error)]
#[error("{}", join(.problems))]
pub struct ConfigError {
    /// The problems, in the order the variables were read.
    pub problems: Vec<Problem>,
}

impl ConfigError {
    /// The error of one missing variable.
    pub fn missing(name: &'static str, meaning: &'static str) -> Self {
        Self { problems: vec![Problem::Missing { name, meaning }] }
    }
}

fn join(problems: &[Problem]) -> String {
    problems.iter().map(ToString::to_string).collect::<Vec<_>>().join("; ")
}

/// A reader of variables that collects problems instead of stopping at the first.
pub struct Vars<'a> {
    read: Box<dyn Fn(&str) -> Option<String> + 'a>,
    problems: Vec<Problem>,
}

impl Vars<'static> {
    /// Variables of the process environment.
    pub fn from_env() -> Self {
        Self::new(|name| std::env::var(name).ok())
    }
}

impl<'a> Vars<'a> {
    /// Variables read through `read` (a map in tests).
    pub fn new(read: impl Fn(&str) -> Option<String> + 'a) -> Self {
        Self { read: Box::new(read), problems: Vec::new() }
    }

    /// The trimmed value of `name`; unset and empty are both `None`.
    pub fn optional(&self, name: &str) -> Option<String> {
        (self.read)(name).map(|v| v.trim().to_owned()).filter(|v| !v.is_empty())
    }

    /// The value of `name`, or a [`Problem::Missing`] (and an empty string) when unset.
    pub fn required(&mut self, name: &'static str, meaning: &'static str) -> String {
        self.optional(name).unwrap_or_else(|| {
            self.problems.push(Problem::Missing { name, meaning });
            String::new()
        })
    }

    /// `name` parsed by `parse` when set; a value that does not parse is a
    /// [`Problem::Invalid`] with `parse`'s reason (and `None`).
    pub fn parsed<T, E: Display>(
        &mut self,
        name: &'static str,
        parse: impl FnOnce(&str) -> Result<T, E>,
    ) -> Option<T> {
        let text = self.optional(name)?;
        parse(&text)
            .map_err(|e| self.problems.push(Problem::Invalid { name, reason: e.to_string() }))
            .ok()
    }

    /// `name` parsed by `parse`; unset is a [`Problem::Missing`], a value that does not
    /// parse a [`Problem::Invalid`] (both `None`).
    pub fn required_parsed<T, E: Display>(
        &mut self,
        name: &'static str,
        meaning: &'static str,
        parse: impl FnOnce(&str) -> Result<T, E>,
    ) -> Option<T> {
        if self.optional(name).is_none() {
            self.problems.push(Problem::Missing { name, meaning });
            return None;
        }
        self.parsed(name, parse)
    }

    /// `Ok` when every variable read so far was valid, else every problem.
    pub fn finish(self) -> Result<(), ConfigError> {
        if self.problems.is_empty() { Ok(()) } else { Err(ConfigError { problems: self.problems }) }
    }
}

/// A boolean setting that is neither `true` nor `false`.
#[derive(Debug, Clone, Copy, PartialEq, Eq, thiserror::Error)]
#[error("must be `true` or `false`")]
pub struct NotBoolean;

/// Parses `true` or `false` (the form of boolean settings).
pub fn boolean(text: &str) -> Result<bool, NotBoolean> {
    match text {
        "true" => Ok(true),
        "false" => Ok(false),
        _ => Err(NotBoolean),
    }
}

#[cfg(test)]
mod tests {
    use std::collections::HashMap;

    use super::*;

    fn vars(pairs: &[(&str, &str)]) -> HashMap<String, String> {
        pairs.iter().map(|(k, v)| ((*k).to_owned(), (*v).to_owned())).collect()
    }

    #[test]
    fn every_problem_is_reported_with_its_variable() {
        let env = vars(&[("B", " 12x "), ("C", "  ")]);
        let mut v = Vars::new(|n| env.get(n).cloned());
        assert_eq!(v.required("A", "the table"), "");
        assert_eq!(v.parsed("B", str::parse::<u32>), None);
        assert_eq!(v.required("C", "the bus"), "");
        let err = v.finish().unwrap_err();
        let names: Vec<_> = err.problems.iter().map(Problem::name).collect();
        assert_eq!(names, ["A", "B", "C"]);
        assert_eq!(
            err.to_string(),
            "A is not set: the table; B is invalid: invalid digit found in string; \
             C is not set: the bus"
        );
    }

    #[test]
    fn set_values_are_trimmed_and_parsed() {
        let env = vars(&[("A", " t "), ("B", "7"), ("C", "true")]);
        let mut v = Vars::new(|n| env.get(n).cloned());
        assert_eq!(v.required("A", "x"), "t");
        assert_eq!(v.parsed("B", str::parse::<u32>), Some(7));
        assert_eq!(v.parsed("C", boolean), Some(true));
        assert_eq!(v.parsed("D", boolean), None);
        assert_eq!(v.optional("D"), None);
        assert!(v.finish().is_ok());
        assert_eq!(boolean("yes"), Err(NotBoolean));
    }
}
