//! `ETag` and `If-Match`: the version of a definition as a strong entity tag `"<n>"`.
//!
//! Only RFC 9110 syntax is accepted: `*` or a comma-separated list of quoted entity
//! tags, each optionally weak (`W/"3"`). A bare `3` is a 400 naming the header. Weak
//! tags are valid syntax but `If-Match` compares strongly, so they never match (412).

use axum::extract::FromRequestParts;
use http::{HeaderValue, header, request::Parts};

use crate::http::problem::Problem;

/// Violation path naming the `If-Match` header in a problem's `errors`.
pub const IF_MATCH_PATH: &str = "/headers/If-Match";

/// The `ETag` value for a version: `"<version>"`.
pub fn etag(version: u64) -> HeaderValue {
    // Digits and quotes are always a valid header value.
    HeaderValue::from_str(&format!("\"{version}\"")).unwrap_or(HeaderValue::from_static("\"0\""))
}

/// The `If-Match` precondition of a request.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum IfMatch {
    /// No `If-Match` header.
    Absent,
    /// `If-Match: *`: any current version.
    Any,
    /// `If-Match: "<n>"`.
    Version(u64),
    /// Entity tags this server never issues (weak, or not a version): never match.
    Never,
}

impl<S: Send + Sync> FromRequestParts<S> for IfMatch {
    type Rejection = Problem;

    async fn from_request_parts(parts: &mut Parts, _state: &S) -> Result<Self, Self::Rejection> {
        let mut values = parts.headers.get_all(header::IF_MATCH).iter();
        let Some(value) = values.next() else { return Ok(Self::Absent) };
        if values.next().is_some() {
            return Err(Problem::bad_request(IF_MATCH_PATH, "send one If-Match header"));
        }
        let text = value.to_str().map_err(|_| {
            Problem::bad_request(IF_MATCH_PATH, "If-Match must be ASCII, e.g. `If-Match: \"3\"`")
        })?;
        parse(text).ok_or_else(|| {
            Problem::bad_request(
                IF_MATCH_PATH,
                "If-Match must be `*` or quoted entity tags such as `\"3\"`",
            )
        })
    }
}

/// Parses an `If-Match` value; `None` when it is not `*` or entity-tag list syntax.
fn parse(text: &str) -> Option<IfMatch> {
    let text = text.trim();
    if text == "*" {
        return Some(IfMatch::Any);
    }
    // A list of entity tags: the first strong one that is a version decides.
    let mut result = None;
    for tag in text.split(',').map(str::trim) {
        let (weak, quoted) = match tag.strip_prefix("W/") {
            Some(rest) => (true, rest),
            None => (false, tag),
        };
        let inner = quoted.strip_prefix('"')?.strip_suffix('"')?;
        // etagc: %x21 / %x23-7E / obs-text; no quotes, spaces or controls inside.
        if !inner.bytes().all(|b| b == 0x21 || (0x23..=0x7e).contains(&b)) {
            return None;
        }
        match version_of(inner) {
            Some(n) if !weak && result.is_none() => result = Some(IfMatch::Version(n)),
            _ => {}
        }
    }
    Some(result.unwrap_or(IfMatch::Never))
}

/// The version a tag's content names: decimal digits without sign or leading zeros.
fn version_of(inner: &str) -> Option<u64> {
    let digits = !inner.is_empty() && inner.bytes().all(|b| b.is_ascii_digit());
    if !digits || (inner.len() > 1 && inner.starts_with('0')) {
        return None;
    }
    inner.parse().ok()
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn parses_entity_tags() {
        assert_eq!(parse("\"3\""), Some(IfMatch::Version(3)));
        assert_eq!(parse(" \"3\" "), Some(IfMatch::Version(3)));
        assert_eq!(parse("*"), Some(IfMatch::Any));
        assert_eq!(parse("W/\"3\""), Some(IfMatch::Never));
        assert_eq!(parse("\"abc\""), Some(IfMatch::Never));
        assert_eq!(parse("\"+3\""), Some(IfMatch::Never));
        assert_eq!(parse("\"03\""), Some(IfMatch::Never));
        assert_eq!(parse("\"99999999999999999999999\""), Some(IfMatch::Never));
        assert_eq!(parse("\"abc\", \"4\""), Some(IfMatch::Version(4)));
        assert_eq!(parse("W/\"4\", \"5\""), Some(IfMatch::Version(5)));
        assert_eq!(etag(12), "\"12\"");
    }

    #[test]
    fn rejects_what_is_not_entity_tag_syntax() {
        for bad in [
            "7",
            "abc",
            "",
            "\"3",
            "3\"",
            "\"a b\"",
            "\"3\" \"4\"",
            "*, \"3\"",
            "\"3\",",
            "w/\"3\"",
        ] {
            assert_eq!(parse(bad), None, "{bad:?} accepted");
        }
    }
}
