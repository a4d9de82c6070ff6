//! Agent validation.

use crate::{AgentDefinition, Violation};

/// Checks an agent definition; `Err` lists every violation with its JSON Pointer.
pub fn agent(_def: &AgentDefinition) -> Result<(), Vec<Violation>> {
    Ok(())
}
