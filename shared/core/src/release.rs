//! Tool releases: a tool id is `<name>@<MAJOR.MINOR.PATCH[-pre]>` (SPEC section 13).
//!
//! On input `@1` and `@1.2` mean `1.0.0` and `1.2.0`; [`Release::canonical_id`] is the
//! stored form. A release's semantic version is separate from the record's revision
//! (`version`, the ETag): a revision edits the same release.

use std::cmp::Ordering;
use std::fmt;

use crate::LifecycleStatus;

/// A parsed tool release id.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Release {
    /// The tool name: everything before the first `@`.
    pub name: String,
    /// The semantic version.
    pub version: semver::Version,
}

impl Release {
    /// Parses `<name>@<version>`, where the version may omit minor and patch (`@1`,
    /// `@1.2`); `None` when the id has no `@`, an empty name, or no valid version.
    pub fn parse(id: &str) -> Option<Self> {
        let (name, version) = id.split_once('@')?;
        if name.is_empty() {
            return None;
        }
        Some(Self { name: name.to_owned(), version: lenient_version(version)? })
    }

    /// `<name>@<MAJOR.MINOR.PATCH[-pre]>`.
    pub fn canonical_id(&self) -> String {
        self.to_string()
    }
}

impl fmt::Display for Release {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        write!(f, "{}@{}", self.name, self.version)
    }
}

/// Parses a version, completing `1` to `1.0.0` and `1.2` to `1.2.0` (build metadata is
/// refused: it would make two ids of one release).
fn lenient_version(text: &str) -> Option<semver::Version> {
    let (core, pre) = match text.split_once('-') {
        Some((core, pre)) => (core, Some(pre)),
        None => (text, None),
    };
    let parts = core.split('.').count();
    let completed = match parts {
        1 => format!("{core}.0.0"),
        2 => format!("{core}.0"),
        _ => core.to_owned(),
    };
    let full = match pre {
        Some(pre) => format!("{completed}-{pre}"),
        None => completed,
    };
    semver::Version::parse(&full).ok().filter(|v| v.build.is_empty())
}

/// Orders tool ids by release: by name, then by semantic version (pre-releases before
/// their release); ids that are not releases come last, by bytes.
pub fn release_order(a: &str, b: &str) -> Ordering {
    match (Release::parse(a), Release::parse(b)) {
        (Some(x), Some(y)) => x.name.cmp(&y.name).then_with(|| x.version.cmp(&y.version)),
        (Some(_), None) => Ordering::Less,
        (None, Some(_)) => Ordering::Greater,
        (None, None) => a.cmp(b),
    }
}

/// How an agent names a tool in `toolIds` or `toolOverrides`: one release, or a range.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum ToolRef {
    /// Exactly this id: a full version (`weather@1.2.0`), or an id that is no release.
    Exact(String),
    /// The highest suitable release of `name` in `req` (`weather@^1.2`, `weather@1`,
    /// `weather@>=1.2, <2`): Cargo's requirement syntax.
    Range {
        /// The tool name.
        name: String,
        /// The requirement.
        req: semver::VersionReq,
    },
}

/// Why a text is not a tool reference ([`ToolRef::parse`]).
#[derive(Debug, thiserror::Error)]
pub enum ToolRefError {
    /// `name@1.2.0+build`: build metadata names no release.
    #[error("build metadata (`+...`) is not part of a release id")]
    BuildMetadata,
    /// `@^1`: a range without a tool name.
    #[error("a tool name is needed before `@`")]
    NoName,
    /// What follows `@` is neither a version nor a Cargo requirement.
    #[error(
        "`{text}` is neither a version (`1.2.0`) nor a range (`^1.2`, `~1.4`, `1`, `>=1.2, <2`): {reason}"
    )]
    NotVersionOrRange {
        /// The text after `@`.
        text: String,
        /// semver's reason.
        reason: semver::Error,
    },
}

impl ToolRef {
    /// Whether this reference can name the tool `tool_id`: the same id, or a release of
    /// the range's name whose version is in range.
    pub fn admits(&self, tool_id: &str) -> bool {
        match self {
            Self::Exact(id) => id == tool_id,
            Self::Range { name, req } => {
                Release::parse(tool_id).is_some_and(|r| &r.name == name && req.matches(&r.version))
            }
        }
    }

    /// Reads a reference: after `@`, a full `MAJOR.MINOR.PATCH[-pre]` is exact (canonical
    /// id), anything else a Cargo requirement (a bare `1` or `1.2` is `^1`, `^1.2`).
    /// An id without `@` is exact. Errors say what is wrong with the requirement.
    pub fn parse(text: &str) -> Result<Self, ToolRefError> {
        let Some((name, rest)) = text.split_once('@') else {
            return Ok(Self::Exact(text.to_owned()));
        };
        if is_plain_version(rest) {
            return Ok(Self::Exact(text.to_owned()));
        }
        if let Ok(version) = semver::Version::parse(rest) {
            if !version.build.is_empty() {
                return Err(ToolRefError::BuildMetadata);
            }
            // semver parses only the canonical text, which is what it prints back.
            return Ok(Self::Exact(text.to_owned()));
        }
        match semver::VersionReq::parse(rest) {
            Ok(req) if !name.is_empty() => Ok(Self::Range { name: name.to_owned(), req }),
            Ok(_) => Err(ToolRefError::NoName),
            Err(e) => Err(ToolRefError::NotVersionOrRange { text: rest.to_owned(), reason: e }),
        }
    }
}

/// Whether a reference may name a range: it has `@` and is not `name@MAJOR.MINOR.PATCH`,
/// decided without parsing (and allocating) as [`ToolRef::parse`] does.
pub(crate) fn may_be_range(text: &str) -> bool {
    text.split_once('@').is_some_and(|(_, version)| !is_plain_version(version))
}

/// Whether `text` is `MAJOR.MINOR.PATCH` with no pre-release: what most references are,
/// recognized without `semver` (which takes exactly these, and more).
fn is_plain_version(text: &str) -> bool {
    let mut parts = 0;
    for part in text.split('.') {
        parts += 1;
        // no leading zero, and at most 19 digits: always within `u64`, as semver requires
        let digits = part.bytes().all(|b| b.is_ascii_digit());
        if !digits
            || part.is_empty()
            || part.len() > 19
            || (part.len() > 1 && part.starts_with('0'))
        {
            return false;
        }
    }
    parts == 3
}

/// Why a release of the right name was not the one chosen.
#[derive(
    Debug, Clone, Copy, PartialEq, Eq, serde::Serialize, serde::Deserialize, utoipa::ToSchema,
)]
#[serde(rename_all = "SCREAMING_SNAKE_CASE")]
pub enum SkipReason {
    /// Its version is outside the range.
    OutOfRange,
    /// A pre-release, and the range names none.
    PreRelease,
    /// Disabled (kill switch).
    Disabled,
    /// Retired.
    Retired,
    /// Deprecated, and an active release in range exists.
    Deprecated,
}

impl SkipReason {
    /// For people: why it was skipped.
    pub fn as_str(self) -> &'static str {
        match self {
            Self::OutOfRange => "outside the range",
            Self::PreRelease => "a pre-release the range does not name",
            Self::Disabled => "disabled",
            Self::Retired => "retired",
            Self::Deprecated => "deprecated, and an active release matches",
        }
    }
}

/// The release a range resolves to, and why each newer release was passed over.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct ReleaseChoice {
    /// The chosen release id; `None` when nothing suitable matches.
    pub chosen: Option<String>,
    /// Every release newer than the chosen one (all of them when none was chosen), newest
    /// first, with the reason it was skipped.
    pub skipped: Vec<(String, SkipReason)>,
}

/// Picks for `req` among `releases` (ids with their lifecycle status): the highest
/// `active` release in range; the highest `deprecated` one only when no active one
/// matches; never `disabled` or `retired`; pre-releases only when `req` names one.
pub fn choose_release<'a>(
    req: &semver::VersionReq,
    releases: impl IntoIterator<Item = (&'a str, LifecycleStatus)>,
) -> ReleaseChoice {
    let mut candidates: Vec<(Release, &str, LifecycleStatus)> = releases
        .into_iter()
        .filter_map(|(id, status)| Release::parse(id).map(|r| (r, id, status)))
        .collect();
    candidates.sort_by(|a, b| b.0.version.cmp(&a.0.version));
    let in_range = |r: &Release| req.matches(&r.version);
    let any_active =
        candidates.iter().any(|(r, _, s)| in_range(r) && *s == LifecycleStatus::Active);
    let mut skipped = Vec::new();
    for (release, id, status) in &candidates {
        let reason = if !in_range(release) {
            let loose =
                semver::Version { pre: semver::Prerelease::EMPTY, ..release.version.clone() };
            if !release.version.pre.is_empty() && req.matches(&loose) {
                SkipReason::PreRelease
            } else {
                SkipReason::OutOfRange
            }
        } else {
            match status {
                LifecycleStatus::Active => {
                    return ReleaseChoice { chosen: Some((*id).to_owned()), skipped };
                }
                LifecycleStatus::Deprecated if !any_active => {
                    return ReleaseChoice { chosen: Some((*id).to_owned()), skipped };
                }
                LifecycleStatus::Deprecated => SkipReason::Deprecated,
                LifecycleStatus::Disabled => SkipReason::Disabled,
                LifecycleStatus::Retired => SkipReason::Retired,
            }
        };
        skipped.push(((*id).to_owned(), reason));
    }
    ReleaseChoice { chosen: None, skipped }
}

#[cfg(test)]
#[allow(clippy::unwrap_used)]
mod tests {
    use super::*;

    #[test]
    fn short_versions_are_completed() {
        assert_eq!(Release::parse("weather@1").unwrap().canonical_id(), "weather@1.0.0");
        assert_eq!(Release::parse("weather@1.2").unwrap().canonical_id(), "weather@1.2.0");
        assert_eq!(
            Release::parse("weather@1.2.3-beta.1").unwrap().canonical_id(),
            "weather@1.2.3-beta.1"
        );
        assert_eq!(Release::parse("weather@2-rc.1").unwrap().canonical_id(), "weather@2.0.0-rc.1");
        assert_eq!(Release::parse("a.b@1.0.0").unwrap().name, "a.b");
    }

    #[test]
    fn a_reference_admits_the_releases_it_names() {
        let range = ToolRef::parse("weather@^1.2").unwrap();
        assert!(range.admits("weather@1.4.0"));
        assert!(!range.admits("weather@2.0.0") && !range.admits("forecast@1.4.0"));
        assert!(!range.admits("weather"));
        let exact = ToolRef::parse("weather@1.2.0").unwrap();
        assert!(exact.admits("weather@1.2.0") && !exact.admits("weather@1.2.1"));
    }

    #[test]
    fn non_releases_are_none() {
        for id in [
            "weather",
            "@1.0.0",
            "weather@",
            "weather@x",
            "weather@1.0.0+build",
            "weather@01.0.0",
            "w@1.2.3.4",
        ] {
            assert!(Release::parse(id).is_none(), "{id}");
        }
    }

    fn req(text: &str) -> semver::VersionReq {
        match ToolRef::parse(&format!("weather@{text}")).unwrap() {
            ToolRef::Range { req, .. } => req,
            exact => panic!("{text} is not a range: {exact:?}"),
        }
    }

    /// The shortcut takes only what `semver` takes as a plain release, and most of it.
    #[test]
    fn plain_versions_are_what_semver_parses_without_pre_release() {
        let parts = ["0", "1", "01", "10", "", "x", "9999999999999999999", "18446744073709551615"];
        for a in parts {
            for b in parts {
                for c in parts {
                    let text = format!("{a}.{b}.{c}");
                    let semver = semver::Version::parse(&text).is_ok();
                    if is_plain_version(&text) {
                        assert!(semver, "{text}");
                    } else {
                        assert!(!semver || c.len() > 19 || a.len() > 19 || b.len() > 19, "{text}");
                    }
                }
            }
        }
        for text in ["1.2", "1.2.3.4", "1.2.3-rc.1", "1.2.3+b", " 1.2.3", "1.2.3 ", "+1.2.3"] {
            assert!(!is_plain_version(text), "{text}");
        }
    }

    #[test]
    fn references_are_exact_or_ranges() {
        assert_eq!(
            ToolRef::parse("weather@1.2.0").unwrap(),
            ToolRef::Exact("weather@1.2.0".into())
        );
        assert_eq!(ToolRef::parse("legacy").unwrap(), ToolRef::Exact("legacy".into()));
        // An exact id is kept as written: semver parses only text it prints back alike.
        for version in ["0.0.1", "1.2.3-alpha.1", "10.20.30-rc.10", "1.0.0-a-b.c.0"] {
            let printed = semver::Version::parse(version).unwrap().to_string();
            assert_eq!(printed, version);
            let id = format!("t@{version}");
            assert_eq!(ToolRef::parse(&id).unwrap(), ToolRef::Exact(id.clone()));
        }
        for version in ["01.0.0", "1.0.0-01", " 1.0.0", "1.0"] {
            assert!(semver::Version::parse(version).is_err(), "{version}");
        }
        for range in ["1", "1.2", "^1.2", "~1.4", ">=1.2, <2", "=1.2.0", "*", "^2.0.0-beta"] {
            req(range);
        }
        assert!(ToolRef::parse("weather@^x").is_err());
        assert!(ToolRef::parse("weather@1.0.0+b").is_err());
        assert!(ToolRef::parse("@^1").is_err());
    }

    #[test]
    fn the_highest_active_release_in_range_wins() {
        use LifecycleStatus::*;
        let releases = [
            ("weather@1.0.0", Active),
            ("weather@1.1.0", Active),
            ("weather@1.2.0", Disabled),
            ("weather@1.3.0-beta.1", Active),
            ("weather@2.0.0", Active),
        ];
        let choice = choose_release(&req("^1"), releases);
        assert_eq!(choice.chosen.as_deref(), Some("weather@1.1.0"));
        assert_eq!(
            choice.skipped,
            [
                ("weather@2.0.0".to_owned(), SkipReason::OutOfRange),
                ("weather@1.3.0-beta.1".to_owned(), SkipReason::PreRelease),
                ("weather@1.2.0".to_owned(), SkipReason::Disabled),
            ]
        );
        // disabling 1.1.0 picks 1.0.0
        let fewer = [("weather@1.0.0", Active), ("weather@1.1.0", Disabled)];
        assert_eq!(choose_release(&req("^1"), fewer).chosen.as_deref(), Some("weather@1.0.0"));
        // deprecated only when nothing active matches; never retired
        let old = [("weather@1.0.0", Deprecated), ("weather@1.1.0", Retired)];
        assert_eq!(choose_release(&req("1"), old).chosen.as_deref(), Some("weather@1.0.0"));
        let both = [("weather@1.0.0", Active), ("weather@1.1.0", Deprecated)];
        let choice = choose_release(&req("1"), both);
        assert_eq!(choice.chosen.as_deref(), Some("weather@1.0.0"));
        assert_eq!(choice.skipped, [("weather@1.1.0".to_owned(), SkipReason::Deprecated)]);
        // a pre-release only when named
        let betas = [("weather@2.0.0-beta.2", Active), ("weather@1.0.0", Active)];
        assert_eq!(
            choose_release(&req("^2.0.0-beta"), betas).chosen.as_deref(),
            Some("weather@2.0.0-beta.2")
        );
        assert_eq!(choose_release(&req("^2"), betas).chosen, None);
    }

    #[test]
    fn semantic_order() {
        let mut ids = vec![
            "weather@1.10.0",
            "weather@2.0.0-beta.1",
            "weather@1.2.0",
            "weather@2.0.0",
            "legacy",
            "weather@0.9.0",
        ];
        ids.sort_by(|a, b| release_order(a, b));
        assert_eq!(
            ids,
            [
                "weather@0.9.0",
                "weather@1.2.0",
                "weather@1.10.0",
                "weather@2.0.0-beta.1",
                "weather@2.0.0",
                "legacy"
            ]
        );
    }
}
