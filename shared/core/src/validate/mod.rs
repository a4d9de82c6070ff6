//! Validation of definitions on every write path; every violation is collected.
