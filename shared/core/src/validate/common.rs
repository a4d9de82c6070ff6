//! Checks shared by agents and tools.

use std::sync::LazyLock;

use chrono::{DateTime, NaiveDate};
use regex::Regex;

use crate::model::{Lifecycle, Tags, Unknown};
use crate::pointer;
use crate::violation::Violations;
use registry_access::AccessRule;

/// Maximum tags per definition (decision 7).
pub const MAX_TAGS: usize = 16;
/// Maximum tag key length in characters.
pub const MAX_TAG_KEY: usize = 128;
/// Maximum tag value length in characters.
pub const MAX_TAG_VALUE: usize = 256;

static ID: LazyLock<Regex> = LazyLock::new(|| literal(r"^[A-Za-z0-9][A-Za-z0-9._:@-]{0,127}$"));
/// AWS `LambdaResourceArn` (Bedrock Agent Runtime), ASCII digits only.
static LAMBDA_ARN: LazyLock<Regex> = LazyLock::new(|| {
    literal(
        r"^arn:(aws[a-zA-Z-]*)?:lambda:[a-z]{2}(-gov)?-[a-z]+-[0-9]{1}:[0-9]{12}:function:[a-zA-Z0-9_.-]+(:(\$LATEST|[a-zA-Z0-9_-]+))?$",
    )
});
/// AWS `TagKey` / `TagValue` characters.
static TAG: LazyLock<Regex> = LazyLock::new(|| literal(r"^[a-zA-Z0-9\s._:/=+@-]*$"));

/// Compiles a pattern written in this file; a typo is caught by the unit tests below.
#[allow(clippy::expect_used)]
pub(super) fn literal(pattern: &str) -> Regex {
    Regex::new(pattern).expect("literal pattern compiles")
}

/// True when `id` is a valid agent/tool id.
pub fn is_id(id: &str) -> bool {
    ID.is_match(id)
}

/// True when `value` may be a tag's value (at most [`MAX_TAG_VALUE`] characters of
/// AWS `TagValue`'s).
pub fn is_tag_value(value: &str) -> bool {
    value.chars().count() <= MAX_TAG_VALUE && TAG.is_match(value)
}

/// Records a violation unless `id` is a valid id.
pub fn check_id(v: &mut Violations, path: &str, id: &str) {
    if id.is_empty() {
        v.push(path, "must not be empty");
    } else if !is_id(id) {
        let id = registry_types::excerpt(id);
        v.push(
            path,
            format!(
                "`{id}` is not a valid id: use 1 to 128 characters from A-Z a-z 0-9 . _ : @ -, starting with a letter or digit"
            ),
        );
    }
}

/// Records a violation unless `arn` is a Lambda function ARN.
pub fn check_lambda_arn(v: &mut Violations, path: &str, arn: &str) {
    if arn.len() > 2_048 || !LAMBDA_ARN.is_match(arn) {
        v.push(
            path,
            "must be a Lambda function ARN matching AWS `LambdaResourceArn`, like arn:aws:lambda:us-east-1:123456789012:function:my-fn",
        );
    }
}

/// Records a violation when `text` is empty or longer than `max` characters.
pub fn check_text(v: &mut Violations, path: &str, text: &str, max: usize) {
    let len = text.chars().count();
    if text.trim().is_empty() {
        v.push(path, "must not be empty");
    } else if len > max {
        v.push(path, format!("must be at most {max} characters (got {len})"));
    }
}

/// Records one violation per unknown field, suggesting the closest known name.
pub fn check_unknown(v: &mut Violations, base: &str, unknown: &Unknown, known: &[&str]) {
    for key in unknown.keys() {
        let suggestion = known
            .iter()
            .map(|k| (strsim::jaro_winkler(k, key), *k))
            .filter(|(score, _)| *score > 0.8)
            .max_by(|a, b| a.0.total_cmp(&b.0))
            .map(|(_, k)| format!("; did you mean `{k}`?"))
            .unwrap_or_default();
        let name = registry_types::excerpt(key);
        v.push(pointer(base, key), format!("unknown field `{name}`{suggestion}"));
    }
}

/// Checks tag count and key/value lengths; keys are otherwise free (kept byte for byte).
pub fn check_tags(v: &mut Violations, path: &str, tags: &Tags) {
    if tags.len() > MAX_TAGS {
        v.push(path, format!("at most {MAX_TAGS} tags are allowed (got {})", tags.len()));
    }
    for (key, value) in tags {
        let at = pointer(path, key);
        if key.is_empty() || key.chars().count() > MAX_TAG_KEY {
            v.push(&at, format!("tag keys must be 1 to {MAX_TAG_KEY} characters"));
        }
        if value.chars().count() > MAX_TAG_VALUE {
            v.push(&at, format!("tag values must be at most {MAX_TAG_VALUE} characters"));
        }
        if !TAG.is_match(key) || !TAG.is_match(value) {
            v.push(
                &at,
                "tag keys and values may hold letters, digits, spaces and . _ : / = + @ - only (AWS `TagKey`, `TagValue`)",
            );
        }
    }
}

/// Records a violation unless `reference` is a valid tool reference: an id, a release
/// (`weather@1.2.0`) or a range (`weather@^1.2`, Cargo's requirement syntax).
pub fn check_tool_ref(v: &mut Violations, path: &str, reference: &str) {
    match crate::release::ToolRef::parse(reference) {
        Err(e) => v.push(path, format!("`{reference}`: {e}")),
        Ok(crate::release::ToolRef::Exact(id)) => check_id(v, path, &id),
        Ok(crate::release::ToolRef::Range { name, .. }) => check_id(v, path, &name),
    }
}

/// Checks a lifecycle block.
pub fn check_lifecycle(v: &mut Violations, path: &str, lifecycle: &Lifecycle) {
    check_unknown(v, path, &lifecycle.unknown, &["status", "deprecationDate", "migrationPath"]);
    if let Some(date) = &lifecycle.deprecation_date {
        let valid = DateTime::parse_from_rfc3339(date).is_ok()
            || NaiveDate::parse_from_str(date, "%Y-%m-%d").is_ok();
        if !valid {
            v.push(
                pointer(path, "deprecationDate"),
                "must be an ISO 8601 date (2026-12-31) or RFC 3339 time",
            );
        }
    }
    if let Some(migration) = &lifecycle.migration_path {
        check_text(v, &pointer(path, "migrationPath"), migration, 1_000);
    }
}

/// Checks access rules: limits, unknown fields and CEL compilation.
pub fn check_rules(v: &mut Violations, path: &str, rules: &[AccessRule]) {
    for error in registry_access::validate_rules(rules) {
        v.push(format!("{path}{}", error.path), error.message);
    }
}

/// Refuses a list of `len` items over `max`, naming the limit and where it comes from.
pub fn check_count(v: &mut Violations, path: &str, len: usize, max: usize, source: &str) {
    if len > max {
        v.push(path, format!("at most {max} items ({source}); got {len}"));
    }
}

/// Checks that `test_type`, when present, is `mock`.
pub fn check_test_type(v: &mut Violations, path: &str, test_type: Option<&str>) {
    if let Some(t) = test_type
        && t != "mock"
    {
        v.push(path, format!("must be \"mock\" (got \"{t}\")"));
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn ids() {
        for ok in ["a", "weather-basic@1", "A.b_c:d@e-f", &"x".repeat(128)] {
            assert!(is_id(ok), "{ok}");
        }
        for bad in ["", "-a", "a b", "a/b", &"x".repeat(129), "é"] {
            assert!(!is_id(bad), "{bad}");
        }
    }

    #[test]
    fn lambda_arns() {
        let mut v = Violations::new();
        check_lambda_arn(&mut v, "/a", "arn:aws:lambda:us-east-1:123456789012:function:fn");
        check_lambda_arn(&mut v, "/b", "arn:aws:lambda:us-east-1:123456789012:function:fn:$LATEST");
        check_lambda_arn(
            &mut v,
            "/c",
            "arn:aws-us-gov:lambda:us-gov-west-1:123456789012:function:f:2",
        );
        assert!(v.is_empty(), "{v:?}");
        check_lambda_arn(&mut v, "/d", "arn:aws:lambda:us-east-1:1234:function:fn");
        check_lambda_arn(&mut v, "/e", "arn:aws:s3:::bucket");
        assert_eq!(v.as_slice().len(), 2);
    }

    #[test]
    fn unknown_fields_get_suggestions() {
        let mut v = Violations::new();
        let mut unknown = Unknown::new();
        unknown.insert("acessRules".into(), serde_json::Value::Null);
        check_unknown(&mut v, "", &unknown, &["accessRules", "agentId"]);
        let got = v.into_vec();
        assert_eq!(got[0].path, "/acessRules");
        assert!(got[0].message.contains("did you mean `accessRules`"), "{}", got[0].message);
    }
}
