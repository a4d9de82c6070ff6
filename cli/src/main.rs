//! The `agent-registry` binary.

fn main() {}
