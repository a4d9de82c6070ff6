//! Compiled `matches()` patterns: each distinct pattern compiled once per process, with
//! bounded compiled size, in a cache bounded in entries and in compiled bytes.
//!
//! Patterns are string literals, checked when a rule is written ([`check`]), so at run
//! time a miss only means the cache was full or the process is new. A pattern is
//! compiled at growing size steps ([`PATTERN_SIZE_STEPS`]) and charged the first one it
//! fits in: a plain pattern costs 256 KiB, one with Unicode classes under a repetition
//! up to 4 MiB, and one beyond is refused. The `regex` crate matches in time linear in
//! the input; [`weight`] scales the charge by the pattern's size, since the work per
//! input byte grows with it.

use crate::limits::{
    MAX_CACHED_PATTERN_BYTES, MAX_CACHED_PATTERNS, MAX_PATTERN_COMPILED_BYTES,
    PATTERN_DFA_CACHE_BYTES, PATTERN_SIZE_STEPS,
};
use regex::{Regex, RegexBuilder};
use std::collections::HashMap;
use std::sync::{Arc, LazyLock, RwLock};

/// The compiled patterns and the bytes they are charged.
#[derive(Default)]
struct Cache {
    patterns: HashMap<String, Arc<Regex>>,
    bytes: usize,
}

/// What checking a pattern found: why it is refused (if it is), and the compile work it
/// took, in compiled bytes tried.
#[derive(Debug, Clone, PartialEq, Eq)]
pub(crate) struct Checked {
    /// Why the pattern is refused, for people; `None` when it compiles.
    pub problem: Option<String>,
    /// Compiled bytes tried: the size step it fits in, or every step when it fits none.
    pub work: usize,
}

static CACHE: LazyLock<RwLock<Cache>> = LazyLock::new(RwLock::default);

/// `pattern` compiled at the first size step it fits in, with that step; or the error
/// and the bytes tried.
fn compile(pattern: &str) -> Result<(Regex, usize), (regex::Error, usize)> {
    let mut tried = 0;
    for limit in PATTERN_SIZE_STEPS {
        tried += limit;
        match RegexBuilder::new(pattern)
            .size_limit(limit)
            .dfa_size_limit(PATTERN_DFA_CACHE_BYTES)
            .build()
        {
            Ok(regex) => return Ok((regex, limit)),
            Err(regex::Error::CompiledTooBig(_)) => {}
            Err(other) => return Err((other, tried)),
        }
    }
    Err((regex::Error::CompiledTooBig(MAX_PATTERN_COMPILED_BYTES), tried))
}

/// Checks a pattern on write: why it is refused, and what compiling it cost.
pub(crate) fn check(pattern: &str) -> Checked {
    match compile(pattern) {
        Ok((_, bytes)) => Checked { problem: None, work: bytes },
        Err((e, work)) => {
            let problem = match e {
                regex::Error::CompiledTooBig(limit) => format!(
                    "the pattern compiles to more than {} MiB; simplify it (fewer or smaller \
                     repetitions of classes such as \\w or \\p{{L}})",
                    limit >> 20
                ),
                other => other.to_string().lines().last().unwrap_or_default().trim().to_owned(),
            };
            Checked { problem: Some(problem), work }
        }
    }
}

/// The compiled `pattern`, from the cache or compiled now (and kept while there is room).
pub(crate) fn get(pattern: &str) -> Result<Arc<Regex>, regex::Error> {
    if let Some(found) = CACHE.read().ok().and_then(|c| c.patterns.get(pattern).cloned()) {
        return Ok(found);
    }
    let (regex, bytes) = compile(pattern).map_err(|(e, _)| e)?;
    let regex = Arc::new(regex);
    if let Ok(mut cache) = CACHE.write()
        && cache.patterns.len() < MAX_CACHED_PATTERNS
        && cache.bytes + bytes <= MAX_CACHED_PATTERN_BYTES
        && cache.patterns.insert(pattern.to_owned(), Arc::clone(&regex)).is_none()
    {
        cache.bytes += bytes;
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
        assert!(check("(").problem.is_some());
        assert!(check(&r"\w{100}".repeat(10)).problem.unwrap().contains("compiles to more than"));
        assert_eq!(check("^[a-z]+@example\\.com$"), Checked { problem: None, work: 256 << 10 });
    }

    #[test]
    fn everyday_patterns_compile_and_pathological_ones_do_not() {
        for everyday in [
            r"^\w+@\w+\.\w{2,10}$",
            r"^[\w.+-]+@[\w-]+(\.[\w-]+)*\.\w{2,24}$",
            r"^\p{L}+$",
            r"^\p{Lu}\p{Ll}{2,30}$",
            r"^\w{1,64}$",
            r"(?i)^[a-z]{2,40}$",
            r"^\d{3}-\d{4}$",
        ] {
            let checked = check(everyday);
            assert_eq!(checked.problem, None, "{everyday}");
            assert!(checked.work <= MAX_PATTERN_COMPILED_BYTES, "{everyday}");
            assert!(get(everyday).is_ok(), "{everyday}");
        }
        assert!(get(r"^\w+@\w+\.\w{2,10}$").unwrap().is_match("ana@example.org"));
        assert!(get(r"^\p{L}+$").unwrap().is_match("Łódź"));
        for pathological in [
            r"\w{256}",
            r"(\w{100}){100}",
            r"(((a{100}){100}){100})",
            r"[\p{L}]{500}",
            r"(\w+){1000}",
        ] {
            let checked = check(pathological);
            assert!(checked.problem.unwrap().contains("more than 4 MiB"), "{pathological}");
            assert_eq!(checked.work, PATTERN_SIZE_STEPS.iter().sum::<usize>(), "{pathological}");
            assert!(get(pathological).is_err());
        }
    }
}
