//! The one-line `Reason` of a FAILED response, within CloudFormation's response size.

use registry_core::Violation;
use registry_service::ServiceError;

/// CloudFormation refuses responses larger than 4096 bytes; the rest of the body
/// (ids, ARNs, JSON syntax) gets what `Reason` leaves.
pub const MAX_REASON_BYTES: usize = 2048;

/// `invalid definition: /a: msg; /b: msg` (every violation, by JSON Pointer).
pub fn violations(violations: &[Violation]) -> String {
    let listed: Vec<String> = violations
        .iter()
        .map(|v| {
            let path = if v.path.is_empty() { "(root)" } else { v.path.as_str() };
            format!("{path}: {}", v.message)
        })
        .collect();
    format!("invalid definition: {}", listed.join("; "))
}

/// The reason for a service error.
pub fn service(error: &ServiceError) -> String {
    match error {
        ServiceError::Invalid(found) => violations(found),
        ServiceError::Unavailable(why) => format!("the registry table is unavailable: {why}"),
        ServiceError::Internal(why) => format!("internal error: {why}"),
        other => other.to_string(),
    }
}

/// `reason` on one line and at most [`MAX_REASON_BYTES`] bytes, cut at a character
/// boundary and marked when cut.
pub fn one_line(reason: &str) -> String {
    let flat: String = reason.chars().map(|c| if c.is_control() { ' ' } else { c }).collect();
    if flat.len() <= MAX_REASON_BYTES {
        return flat;
    }
    const MARK: &str = " ... (truncated; see the function's log)";
    let mut end = MAX_REASON_BYTES - MARK.len();
    while !flat.is_char_boundary(end) {
        end -= 1;
    }
    format!("{}{MARK}", &flat[..end])
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn every_violation_is_listed_with_its_pointer() {
        let r = violations(&[
            Violation { path: "/description".into(), message: "too long".into() },
            Violation { path: String::new(), message: "bad".into() },
        ]);
        assert_eq!(r, "invalid definition: /description: too long; (root): bad");
    }

    #[test]
    fn long_reasons_are_cut_on_one_line() {
        let r = one_line(&format!("a\nb{}", "é".repeat(3000)));
        assert!(r.len() <= MAX_REASON_BYTES, "{}", r.len());
        assert!(r.starts_with("a b") && r.ends_with("(truncated; see the function's log)"));
    }
}
