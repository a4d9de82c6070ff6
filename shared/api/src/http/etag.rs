//! `ETag` and `If-Match`: the version of a definition as a strong entity tag `"<n>"`.

use axum::extract::FromRequestParts;
use http::{HeaderValue, header, request::Parts};

use crate::http::problem::Problem;

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
    /// `If-Match: "<n>"` (a bare `<n>` is accepted too).
    Version(u64),
    /// An entity tag this server never issues (weak or not a version): never matches.
    Never,
}

impl<S: Send + Sync> FromRequestParts<S> for IfMatch {
    type Rejection = Problem;

    async fn from_request_parts(parts: &mut Parts, _state: &S) -> Result<Self, Self::Rejection> {
        let Some(value) = parts.headers.get(header::IF_MATCH) else { return Ok(Self::Absent) };
        let text = value.to_str().map_err(|_| {
            Problem::bad_request("", "If-Match must be ASCII, e.g. `If-Match: \"3\"`")
        })?;
        parse(text).ok_or_else(|| {
            Problem::bad_request("", "If-Match must be an entity tag such as `\"3\"` or `*`")
        })
    }
}

/// Parses an `If-Match` value; `None` when it is not entity-tag syntax.
fn parse(text: &str) -> Option<IfMatch> {
    let text = text.trim();
    if text == "*" {
        return Some(IfMatch::Any);
    }
    if let Ok(n) = text.parse::<u64>() {
        return Some(IfMatch::Version(n));
    }
    // A list of entity tags: the first one that is one of ours decides.
    let mut result = None;
    for tag in text.split(',').map(str::trim) {
        let (weak, quoted) = match tag.strip_prefix("W/") {
            Some(rest) => (true, rest),
            None => (false, tag),
        };
        let inner = quoted.strip_prefix('"')?.strip_suffix('"')?;
        if inner.contains('"') {
            return None;
        }
        match inner.parse::<u64>() {
            Ok(n) if !weak && result.is_none() => result = Some(IfMatch::Version(n)),
            _ => {}
        }
    }
    Some(result.unwrap_or(IfMatch::Never))
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn parses_entity_tags() {
        assert_eq!(parse("\"3\""), Some(IfMatch::Version(3)));
        assert_eq!(parse("7"), Some(IfMatch::Version(7)));
        assert_eq!(parse("*"), Some(IfMatch::Any));
        assert_eq!(parse("W/\"3\""), Some(IfMatch::Never));
        assert_eq!(parse("\"abc\""), Some(IfMatch::Never));
        assert_eq!(parse("\"abc\", \"4\""), Some(IfMatch::Version(4)));
        assert_eq!(parse("abc"), None);
        assert_eq!(etag(12), "\"12\"");
    }
}
