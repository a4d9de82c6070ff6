//! The role map (`REGISTRY_ROLE_MAP`): which API Gateway callers (IAM principal ARNs, JWT
//! groups) get which registry role.
//!
//! Format: `{"admin": [...], "editor": [...], "approver": [...], "reader": [...]}` (every key optional,
//! no other keys). An entry is either
//! - an ARN (`arn:<partition>:<service>:<region>:<account>:<resource>`), matched exactly;
//!   an IAM role ARN (`arn:aws:iam::<account>:role/<name>`) also matches that role's
//!   sessions (`arn:aws:sts::<account>:assumed-role/<name>/<session>`), as IAM policies do;
//! - an ARN prefix ending in one `*` (for example
//!   `arn:aws:sts::123456789012:assumed-role/Admin/*`), which must name the account
//!   (at least the five `:` of an ARN before the `*`), so it never spans accounts;
//! - `group:<name>`, matched against the caller's JWT groups.
//!
//! The highest matching role wins.

use registry_api::Role;
use serde_json::Value;

/// Prefix of group entries.
const GROUP_PREFIX: &str = "group:";

/// One problem in a role map, located by a JSON Pointer into it.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Violation {
    /// JSON Pointer to the offending value (`""` is the whole document).
    pub path: String,
    /// What is wrong.
    pub message: String,
}

impl std::fmt::Display for Violation {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        let path = if self.path.is_empty() { "(root)" } else { &self.path };
        write!(f, "{path}: {}", self.message)
    }
}

/// Why the role map cannot be used; the function refuses to start.
#[derive(Debug, Clone, PartialEq, Eq, thiserror::Error)]
pub enum RoleMapError {
    /// The value is not JSON.
    #[error("not valid JSON: {0}")]
    Syntax(String),
    /// The JSON does not describe a usable role map; every violation is listed.
    #[error("{}", join(.0))]
    Invalid(Vec<Violation>),
}

/// What the role map holds, for the error of a missing one.
pub const ROLE_MAP_MEANING: &str = "it must hold JSON like \
    {\"admin\": [\"arn:aws:iam::123456789012:role/Admin\"], \"editor\": [\"group:editors\"]}";

fn join(violations: &[Violation]) -> String {
    violations.iter().map(ToString::to_string).collect::<Vec<_>>().join("; ")
}

/// How one entry matches a caller.
#[derive(Debug, Clone, PartialEq, Eq)]
enum Matcher {
    /// Exactly this ARN; for an IAM role ARN also the role's sessions, through `role`
    /// (the role ARN without its path, as derived from session ARNs).
    Arn {
        /// The entry.
        exact: String,
        /// `arn:P:iam::A:role/<name>` when the entry is a role ARN.
        role: Option<String>,
    },
    /// Any ARN starting with this prefix.
    ArnPrefix(String),
    /// Membership of this JWT group.
    Group(String),
}

/// The parsed role map.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct RoleMap {
    entries: Vec<(Role, Matcher)>,
}

impl RoleMap {
    /// Parses a role map from JSON text, reporting every violation at once.
    pub fn parse(text: &str) -> Result<Self, RoleMapError> {
        let value: Value =
            serde_json::from_str(text).map_err(|e| RoleMapError::Syntax(e.to_string()))?;
        let Value::Object(roles) = value else {
            return Err(RoleMapError::Invalid(vec![violation(
                "",
                "must be an object with keys `admin`, `editor`, `approver`, `runtime`, `reader`",
            )]));
        };
        let mut entries = Vec::new();
        let mut violations = Vec::new();
        for (key, list) in &roles {
            let path = registry_types::pointer("", key);
            let role = match key.as_str() {
                "admin" => Role::Admin,
                "editor" => Role::Editor,
                "approver" => Role::Approver,
                "reader" => Role::Reader,
                "runtime" => Role::Runtime,
                _ => {
                    violations.push(violation(
                        &path,
                        "unknown role; expected `admin`, `editor`, `approver`, `runtime` or `reader`",
                    ));
                    continue;
                }
            };
            let Value::Array(items) = list else {
                violations.push(violation(&path, "must be an array of strings"));
                continue;
            };
            for (i, item) in items.iter().enumerate() {
                let item_path = format!("{path}/{i}");
                match item.as_str().ok_or("must be a string").and_then(matcher) {
                    Ok(m) => entries.push((role, m)),
                    Err(message) => violations.push(violation(&item_path, message)),
                }
            }
        }
        if violations.is_empty() && entries.is_empty() {
            violations.push(violation("", "grants no role to anyone; add at least one entry"));
        }
        if violations.is_empty() {
            Ok(Self { entries })
        } else {
            Err(RoleMapError::Invalid(violations))
        }
    }

    /// The highest role granted to a caller with principal `arn` (if any) and JWT
    /// `groups`; `None` when no entry matches.
    pub fn role_for(&self, arn: Option<&str>, groups: &[String]) -> Option<Role> {
        let session_role = arn.and_then(role_of_session);
        self.entries
            .iter()
            .filter(|(_, m)| match m {
                Matcher::Arn { exact, role } => {
                    arn == Some(exact.as_str())
                        || (session_role.is_some() && session_role.as_deref() == role.as_deref())
                }
                Matcher::ArnPrefix(prefix) => arn.is_some_and(|a| a.starts_with(prefix.as_str())),
                Matcher::Group(group) => groups.iter().any(|g| g == group),
            })
            .map(|(role, _)| *role)
            .max()
    }

    /// Number of entries (all roles).
    pub fn len(&self) -> usize {
        self.entries.len()
    }

    /// True when there are no entries (never the case for a parsed map).
    pub fn is_empty(&self) -> bool {
        self.entries.is_empty()
    }
}

fn violation(path: &str, message: &str) -> Violation {
    Violation { path: path.to_owned(), message: message.to_owned() }
}

/// Validates one entry.
fn matcher(entry: &str) -> Result<Matcher, &'static str> {
    if entry.is_empty() || entry.chars().any(|c| c.is_whitespace() || c.is_control()) {
        return Err("must be a non-empty string without spaces");
    }
    if let Some(group) = entry.strip_prefix(GROUP_PREFIX) {
        return if group.is_empty() {
            Err("`group:` needs a group name")
        } else {
            Ok(Matcher::Group(group.to_owned()))
        };
    }
    if !entry.starts_with("arn:") {
        return Err("must be an ARN (`arn:...`) or `group:<name>`");
    }
    match entry.strip_suffix('*') {
        Some(prefix) if prefix.contains('*') => Err("only one `*`, at the end, is allowed"),
        Some(prefix) if prefix.matches(':').count() < 5 => {
            Err("a wildcard ARN must spell out partition, service, region and account before `*`")
        }
        Some(prefix) => Ok(Matcher::ArnPrefix(prefix.to_owned())),
        None if entry.contains('*') => Err("only one `*`, at the end, is allowed"),
        None if entry.split(':').count() < 6 => {
            Err("not an ARN: expected `arn:partition:service:region:account:resource`")
        }
        None => Ok(Matcher::Arn { exact: entry.to_owned(), role: role_without_path(entry) }),
    }
}

/// For an IAM role ARN `arn:P:iam::A:role/<path>/R`, the ARN without the path,
/// `arn:P:iam::A:role/R` (role names are unique within an account, whatever the path).
fn role_without_path(arn: &str) -> Option<String> {
    let (head, resource) = arn.rsplit_once(':')?;
    let (service_part, _) = head.split_once("::")?;
    if !service_part.ends_with(":iam") {
        return None;
    }
    let rest = resource.strip_prefix("role/")?;
    let name = rest.rsplit('/').next().filter(|n| !n.is_empty())?;
    Some(format!("{head}:role/{name}"))
}

/// For an assumed-role session ARN `arn:P:sts::A:assumed-role/R/S`, the role ARN
/// `arn:P:iam::A:role/R` (session ARNs carry no role path).
fn role_of_session(arn: &str) -> Option<String> {
    let mut parts = arn.splitn(6, ':');
    let (Some("arn"), Some(partition), Some("sts"), Some(""), Some(account), Some(resource)) =
        (parts.next(), parts.next(), parts.next(), parts.next(), parts.next(), parts.next())
    else {
        return None;
    };
    let rest = resource.strip_prefix("assumed-role/")?;
    let (role, session) = rest.split_once('/')?;
    if role.is_empty() || session.is_empty() {
        return None;
    }
    Some(format!("arn:{partition}:iam::{account}:role/{role}"))
}

#[cfg(test)]
mod tests {
    use super::*;

    const MAP: &str = r#"{
        "admin": ["arn:aws:iam::123456789012:role/Admin", "group:registry-admins"],
        "editor": ["arn:aws:sts::123456789012:assumed-role/Deployer/*", "group:editors"],
        "reader": ["arn:aws:iam::123456789012:user/alice", "group:editors", "group:readers"]
    }"#;

    fn groups(names: &[&str]) -> Vec<String> {
        names.iter().map(|s| (*s).to_owned()).collect()
    }

    #[test]
    fn exact_arn_wildcard_session_and_groups_match() {
        let map = RoleMap::parse(MAP).unwrap();
        assert_eq!(map.len(), 7);
        let alice = Some("arn:aws:iam::123456789012:user/alice");
        assert_eq!(map.role_for(alice, &[]), Some(Role::Reader));
        let deployer = Some("arn:aws:sts::123456789012:assumed-role/Deployer/ci-42");
        assert_eq!(map.role_for(deployer, &[]), Some(Role::Editor));
        // A session of the Admin role matches the role ARN entry.
        let admin = Some("arn:aws:sts::123456789012:assumed-role/Admin/jane");
        assert_eq!(map.role_for(admin, &[]), Some(Role::Admin));
        assert_eq!(map.role_for(None, &groups(&["readers"])), Some(Role::Reader));
        // Highest role wins: `editors` is listed as reader and editor.
        assert_eq!(map.role_for(None, &groups(&["editors", "readers"])), Some(Role::Editor));
        assert_eq!(map.role_for(alice, &groups(&["registry-admins"])), Some(Role::Admin));
    }

    #[test]
    fn near_misses_get_no_role() {
        let map = RoleMap::parse(MAP).unwrap();
        for arn in [
            "arn:aws:iam::123456789012:user/alice2",
            "arn:aws:iam::210987654321:role/Admin",
            "arn:aws:sts::210987654321:assumed-role/Admin/jane",
            "arn:aws:sts::123456789012:assumed-role/AdminX/jane",
            "arn:aws:sts::123456789012:assumed-role/Deployer",
            "arn:aws:iam::123456789012:role/Deployer",
        ] {
            assert_eq!(map.role_for(Some(arn), &[]), None, "{arn}");
        }
        assert_eq!(map.role_for(None, &groups(&["Editors", "group:editors"])), None);
        assert_eq!(map.role_for(None, &[]), None);
    }

    #[test]
    fn role_entries_with_a_path_match_their_sessions() {
        let map =
            RoleMap::parse(r#"{"editor": ["arn:aws:iam::123456789012:role/team/ci/Deployer"]}"#)
                .unwrap();
        let session = Some("arn:aws:sts::123456789012:assumed-role/Deployer/run-1");
        assert_eq!(map.role_for(session, &[]), Some(Role::Editor));
        let other = Some("arn:aws:sts::123456789012:assumed-role/ci/run-1");
        assert_eq!(map.role_for(other, &[]), None);
        assert_eq!(role_without_path("arn:aws:iam::1:user/team/bob"), None);
        assert_eq!(role_without_path("arn:aws:sts::1:role/x"), None);
    }

    #[test]
    fn every_violation_is_reported_with_its_path() {
        let err = RoleMap::parse(
            r#"{"admin": ["*", "arn:aws:*", "group:", 7, "alice"],
                "owner": [], "editor": "group:x", "reader": ["arn:aws:iam::1:role/a*b"]}"#,
        )
        .unwrap_err();
        let RoleMapError::Invalid(v) = &err else { panic!("{err:?}") };
        let mut paths: Vec<&str> = v.iter().map(|v| v.path.as_str()).collect();
        paths.sort_unstable();
        assert_eq!(
            paths,
            [
                "/admin/0",
                "/admin/1",
                "/admin/2",
                "/admin/3",
                "/admin/4",
                "/editor",
                "/owner",
                "/reader/0"
            ]
        );
        assert!(err.to_string().starts_with("/admin/0: "), "{err}");
    }

    #[test]
    fn syntax_shape_and_empty_maps_are_refused() {
        assert!(matches!(RoleMap::parse("{\"admin\": ["), Err(RoleMapError::Syntax(_))));
        assert!(matches!(RoleMap::parse("[]"), Err(RoleMapError::Invalid(_))));
        let empty = RoleMap::parse(r#"{"admin": []}"#).unwrap_err();
        assert!(empty.to_string().contains("grants no role"), "{empty}");
    }

    #[test]
    fn pointer_tokens_are_escaped() {
        let err = RoleMap::parse(r#"{"a/b~c": []}"#).unwrap_err();
        assert!(err.to_string().contains("/a~1b~0c: unknown role"), "{err}");
    }

    #[test]
    fn approvers_are_mapped() {
        let map = RoleMap::parse(
            r#"{"approver": ["group:reviewers", "arn:aws:iam::123456789012:role/Reviewer"],
                "reader": ["group:reviewers"]}"#,
        )
        .unwrap();
        assert_eq!(map.role_for(None, &groups(&["reviewers"])), Some(Role::Approver));
        let session = Some("arn:aws:sts::123456789012:assumed-role/Reviewer/bob");
        assert_eq!(map.role_for(session, &[]), Some(Role::Approver));
    }
}
