//! Rule-list validation on write.

use crate::error::RuleError;
use crate::rule::AccessRule;
use crate::rule_set::RuleSet;

/// Checks a rule list on write: syntax, declared variables, SQL-isms, limits.
pub fn validate_rules(rules: &[AccessRule]) -> Vec<RuleError> {
    RuleSet::compile(rules).err().unwrap_or_default()
}
