//! The review policy (SPEC section 17): which writes need a second person.
//!
//! Review applies to a definition when the registry requires it for all
//! ([`ReviewPolicy::required`]) or the definition carries the tag `review: required`
//! (stored or proposed). Then a write by anyone below admin that changes a *governed*
//! field becomes a proposal instead of a new version. Lifecycle changes are never
//! governed: disabling must never wait.

use registry_core::{Kind, Tags};

use crate::auth::{Principal, Role};

/// The tag key of the per-definition selector.
pub const REVIEW_TAG: &str = "review";
/// The tag value that requires review for one definition.
pub const REVIEW_REQUIRED: &str = "required";

/// Governed members of a tool: access and call rules, the executor (Lambda ARN, MCP
/// endpoint and its auth, inline code, execution type) and the function schema.
const TOOL_GOVERNED: &[&str] = &[
    "/accessRules",
    "/callRules",
    "/executionType",
    "/lambdaArn",
    "/url",
    "/auth",
    "/code",
    "/functionSchema",
    "/types",
];

/// Governed members of an agent: access rules, rollout policy, tools, collaborators,
/// model and instruction, its runtime adapter (its executor) and its A2A endpoint (where
/// its card sends callers).
const AGENT_GOVERNED: &[&str] = &[
    "/accessRules",
    "/rolloutPolicy",
    "/toolIds",
    "/collaborators",
    "/agentCollaboration",
    "/foundationModel",
    "/basePrompt",
    "/runtimeAdapter",
    "/endpoint",
];

/// The selector tag itself: removing it is a governed change.
const SELECTOR: &str = "/tags/review";

/// Whether review is required, and how many approvals a proposal needs.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct ReviewPolicy {
    /// Review required for every definition (`serve --require-review`,
    /// `REGISTRY_REQUIRE_REVIEW=true`); otherwise only for those tagged `review: required`.
    pub required: bool,
    /// Approvals, by distinct approvers other than the author, a proposal needs (at least 1).
    pub approvals: u32,
}

impl Default for ReviewPolicy {
    fn default() -> Self {
        Self { required: false, approvals: 1 }
    }
}

/// Whether `pointer` (a changed member of a definition of `kind`) is governed.
pub fn is_governed(kind: Kind, pointer: &str) -> bool {
    let governed = match kind {
        Kind::Tool => TOOL_GOVERNED,
        Kind::Agent => AGENT_GOVERNED,
    };
    // The member itself, a child of it, or a parent of it (`/tags` removed whole).
    let under = |prefix: &str| {
        let nested = |outer: &str, inner: &str| {
            inner.strip_prefix(outer).is_some_and(|rest| rest.is_empty() || rest.starts_with('/'))
        };
        nested(prefix, pointer) || nested(pointer, prefix)
    };
    governed.iter().any(|p| under(p)) || under(SELECTOR)
}

/// Whether tags select review.
pub fn tagged(tags: Option<&Tags>) -> bool {
    tags.and_then(|t| t.get(REVIEW_TAG)).is_some_and(|v| v == REVIEW_REQUIRED)
}

/// Whether `principal` may approve or reject proposals: the `approver` and `admin` roles.
pub fn can_approve(principal: &Principal) -> bool {
    matches!(principal.role, Role::Approver | Role::Admin)
}

impl ReviewPolicy {
    /// Whether a write by `principal` changing `changed` of a definition of `kind` must
    /// become a proposal; `tagged` says whether the stored or proposed definition
    /// carries the selector tag.
    pub fn needs_review(
        &self,
        principal: &Principal,
        kind: Kind,
        tagged: bool,
        changed: &[String],
    ) -> bool {
        (self.required || tagged)
            && principal.role != Role::Admin
            && changed.iter().any(|p| is_governed(kind, p))
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn governed_members_and_their_children_only() {
        assert!(is_governed(Kind::Tool, "/accessRules"));
        assert!(is_governed(Kind::Tool, "/auth/tokenUrl"));
        assert!(is_governed(Kind::Tool, "/callRules"));
        assert!(!is_governed(Kind::Tool, "/accessRulesX"));
        assert!(!is_governed(Kind::Tool, "/description"));
        assert!(!is_governed(Kind::Tool, "/lifecycle/status"));
        assert!(is_governed(Kind::Agent, "/basePrompt"));
        assert!(!is_governed(Kind::Agent, "/lambdaArn"));
        assert!(is_governed(Kind::Agent, "/tags/review"));
        assert!(!is_governed(Kind::Agent, "/tags/team"));
        assert!(is_governed(Kind::Agent, "/tags"), "all tags removed");
        assert!(is_governed(Kind::Agent, ""), "the whole document replaced");
    }

    #[test]
    fn admins_and_ungoverned_changes_skip_review() {
        let policy = ReviewPolicy { required: true, approvals: 1 };
        let editor = Principal::new("ed", Role::Editor);
        let admin = Principal::new("root", Role::Admin);
        let rules = ["/accessRules".to_owned()];
        assert!(policy.needs_review(&editor, Kind::Tool, false, &rules));
        assert!(!policy.needs_review(&admin, Kind::Tool, false, &rules));
        assert!(!policy.needs_review(&editor, Kind::Tool, false, &["/lifecycle".to_owned()]));
        let off = ReviewPolicy::default();
        assert!(!off.needs_review(&editor, Kind::Tool, false, &rules));
        assert!(off.needs_review(&editor, Kind::Tool, true, &rules));
    }
}
