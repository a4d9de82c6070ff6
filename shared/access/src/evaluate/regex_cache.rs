//! Compiled `matches()` patterns: each distinct pattern compiled once per process, with
//! bounded compiled size, in a bounded cache.
//!
//! Patterns are string literals, checked when a rule is written ([`check`]), so at run
//! time a miss only means the cache was full or the process is new. The `regex` crate
//! matches in time linear in the input; [`weight`] scales the charge by the pattern's
//! size, since the work per input byte grows with it.

use crate::limits::{MAX_CACHED_PATTERNS, MAX_PATTERN_COMPILED_BYTES};
use regex::{Regex, RegexBuilder};
use std::collections::HashMap;
use std::sync::{Arc, LazyLock, RwLock};

static CACHE: LazyLock<RwLock<HashMap<String, Arc<Regex>>>> =
    LazyLock::new(|| RwLock::new(HashMap::new()));

fn compile(pattern: &str) -> Result<Regex, regex::Error> {
    RegexBuilder::new(pattern)
        .size_limit(MAX_PATTERN_COMPILED_BYTES)
        .dfa_size_limit(MAX_PATTERN_COMPILED_BYTES)
        .build()
}

/// Why a pattern is refused on write, for people; `None` when it compiles.
pub(crate) fn check(pattern: &str) -> Option<String> {
    compile(pattern).err().map(|e| match e {
        regex::Error::CompiledTooBig(limit) => format!(
            "the pattern compiles to more than {limit} bytes; simplify it (fewer repetitions)"
        ),
        other => other.to_string().lines().last().unwrap_or_default().trim().to_owned(),
    })
}

/// The compiled `pattern`, from the cache or compiled now (and kept while there is room).
pub(crate) fn get(pattern: &str) -> Result<Arc<Regex>, regex::Error> {
    if let Some(found) = CACHE.read().ok().and_then(|c| c.get(pattern).cloned()) {
        return Ok(found);
    }
    let regex = Arc::new(compile(pattern)?);
    if let Ok(mut cache) = CACHE.write()
        && cache.len() < MAX_CACHED_PATTERNS
    {
        cache.insert(pattern.to_owned(), Arc::clone(&regex));
    }
    Ok(regex)
}

/// The step multiplier of matching with `pattern`: one per 16 bytes of pattern text.
pub(crate) fn weight(pattern: &str) -> u64 {
    pattern.len() as u64 / 16 + 1
}

#[cfg(test)]
#[allow(clippy::unwrap_used)]
mod tests {
    use super::*;

    #[test]
    fn compiled_once_and_bounded() {
        let a = get("^ab+c$").unwrap();
        let b = get("^ab+c$").unwrap();
        assert!(Arc::ptr_eq(&a, &b));
        assert!(check("(").is_some());
        assert!(check(&"a{1000}".repeat(100)).unwrap().contains("compiles to more than"));
        assert_eq!(check("^[a-z]+@example\\.com$"), None);
    }
}
