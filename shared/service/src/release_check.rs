//! Breaking-change rules for tool releases (SPEC section 13), and the comparison of two
//! releases (`GET /tools/{name}/compare`).
//!
//! A release `name@X.Y.Z` is compared with the highest live release of the same major
//! below it: a breaking change needs a new major, an additive or documentation change at
//! least a new minor, and a patch release changes nothing in the interface. A revision
//! of a release (a write to an id that exists) must not break it either.

use registry_core::{Release, ToolDefinition, Violation};
use registry_store::{ListFilter, ListQuery};
use registry_types::{ChangeKind, Interface, SchemaChange, compare, severity};
use serde::Serialize;

use crate::{Catalog, ServiceError};

/// What separates two releases (`GET /tools/{name}/compare?from=&to=`).
#[derive(Debug, Clone, PartialEq, Serialize, utoipa::ToSchema)]
#[serde(rename_all = "camelCase")]
pub struct Comparison {
    /// The older release id.
    pub from: String,
    /// The newer release id.
    pub to: String,
    /// The most severe change (`breaking`, `additive`, `documentation`), absent when none.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub severity: Option<ChangeKind>,
    /// The smallest version bump from `from` these changes allow: `major`, `minor` or `patch`.
    pub required_bump: &'static str,
    /// Every change, by JSON Pointer.
    pub changes: Vec<SchemaChange>,
}

fn interface(tool: &ToolDefinition) -> Interface<'_> {
    Interface {
        functions: tool.function_schema.as_deref().unwrap_or_default(),
        types: tool.types.as_ref(),
    }
}

fn required_bump(severity: Option<ChangeKind>) -> &'static str {
    match severity {
        Some(ChangeKind::Breaking) => "major",
        Some(ChangeKind::Additive | ChangeKind::Documentation) => "minor",
        None => "patch",
    }
}

impl Catalog {
    /// The changes from release `name@from` to `name@to` (both live).
    pub async fn compare_releases(
        &self,
        name: &str,
        from: &str,
        to: &str,
    ) -> Result<Comparison, ServiceError> {
        let parse = |field: &str, version: &str| {
            Release::parse(&format!("{name}@{version}")).ok_or_else(|| {
                ServiceError::invalid(
                    format!("/{field}"),
                    "must be a semantic version (`1.2.0`; `1` and `1.2` are completed)",
                )
            })
        };
        let (from, to) = (parse("from", from)?, parse("to", to)?);
        let old: ToolDefinition = self.get(&from.canonical_id()).await?;
        let new: ToolDefinition = self.get(&to.canonical_id()).await?;
        let changes = compare(interface(&old), interface(&new));
        let severity = severity(&changes);
        Ok(Comparison {
            from: old.tool_id,
            to: new.tool_id,
            severity,
            required_bump: required_bump(severity),
            changes,
        })
    }

    /// Violations of the release rules by `tool` (about to be written over `head`, the
    /// stored head of the same id, if any). Ids that are not releases are not checked.
    pub(crate) async fn release_violations(
        &self,
        tool: &ToolDefinition,
        head: Option<&ToolDefinition>,
    ) -> Result<Vec<Violation>, ServiceError> {
        let Some(release) = Release::parse(&tool.tool_id) else {
            return Ok(Vec::new());
        };
        let mut out = Vec::new();
        if let Some(head) = head {
            for change in compare(interface(head), interface(tool)) {
                if change.kind == ChangeKind::Breaking {
                    out.push(Violation {
                        path: change.path,
                        message: format!(
                            "breaking change to the published release {}: {}; publish it as {}@{}.0.0",
                            release,
                            change.message,
                            release.name,
                            release.version.major + 1
                        ),
                    });
                }
            }
        }
        let Some(previous) = self.previous_release(&release).await? else {
            return Ok(out);
        };
        let changes = compare(interface(&previous), interface(tool));
        let minor_bump =
            release.version.minor != previous_version(&previous).map_or(0, |v| v.minor);
        for change in changes {
            let refused = match change.kind {
                ChangeKind::Breaking => Some(format!(
                    "breaking change since {}: {}; it needs a new major ({}@{}.0.0)",
                    previous.tool_id,
                    change.message,
                    release.name,
                    release.version.major + 1
                )),
                ChangeKind::Additive | ChangeKind::Documentation if !minor_bump => Some(format!(
                    "a patch release changes nothing in the interface, but since {}: {}; publish a new minor ({}@{}.{}.0)",
                    previous.tool_id,
                    change.message,
                    release.name,
                    release.version.major,
                    release.version.minor + 1
                )),
                _ => None,
            };
            if let Some(message) = refused {
                out.push(Violation { path: change.path, message });
            }
        }
        Ok(out)
    }

    /// The highest live release (not a pre-release: those promise nothing) with the same
    /// name and major below `release`.
    async fn previous_release(
        &self,
        release: &Release,
    ) -> Result<Option<ToolDefinition>, ServiceError> {
        let query = ListQuery {
            limit: 100,
            cursor: None,
            filter: ListFilter { name: Some(release.name.clone()), ..ListFilter::default() },
        };
        let page = self.list::<ToolDefinition>(&query).await?;
        Ok(page
            .items
            .into_iter()
            .filter_map(|tool| previous_version(&tool).map(|v| (v, tool)))
            .filter(|(v, _)| v.pre.is_empty())
            .filter(|(v, _)| v.major == release.version.major && *v < release.version)
            .max_by(|(a, _), (b, _)| a.cmp(b))
            .map(|(_, tool)| tool))
    }
}

/// The interface changes from `from` to `to` (a proposal's base and proposed tool).
pub(crate) fn compare_tools(from: &ToolDefinition, to: &ToolDefinition) -> Comparison {
    let changes = compare(interface(from), interface(to));
    let severity = severity(&changes);
    Comparison {
        from: from.tool_id.clone(),
        to: to.tool_id.clone(),
        severity,
        required_bump: required_bump(severity),
        changes,
    }
}

fn previous_version(tool: &ToolDefinition) -> Option<semver::Version> {
    Release::parse(&tool.tool_id).map(|r| r.version)
}
