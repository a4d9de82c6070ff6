//! Tool releases: a tool id is `<name>@<MAJOR.MINOR.PATCH[-pre]>` (SPEC section 13).
//!
//! On input `@1` and `@1.2` mean `1.0.0` and `1.2.0`; [`Release::canonical_id`] is the
//! stored form. A release's semantic version is separate from the record's revision
//! (`version`, the ETag): a revision edits the same release.

use std::cmp::Ordering;
use std::fmt;

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
