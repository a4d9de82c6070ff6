//! What the console needs to know about each kind of definition: its path, its name
//! and the fields its edit form offers.

use registry_api::service::Resource;
use registry_core::{AgentDefinition, ToolDefinition};

/// A field of an edit form: JSON name, label, and whether it is a multi-line text.
#[derive(Debug, Clone, Copy)]
pub struct Field {
    /// JSON member name (and form field name).
    pub name: &'static str,
    /// Label shown.
    pub label: &'static str,
    /// A `<textarea>` rather than an `<input>`.
    pub multiline: bool,
}

/// An agent or a tool, as the console shows it.
pub trait Kind: Resource {
    /// Path segment: `agents` or `tools`.
    const PATH: &'static str;
    /// Singular noun: `agent` or `tool`.
    const NOUN: &'static str;
    /// Fields the edit form changes (a JSON Merge Patch of these members).
    const FIELDS: &'static [Field];
}

impl Kind for AgentDefinition {
    const PATH: &'static str = "agents";
    const NOUN: &'static str = "agent";
    const FIELDS: &'static [Field] = &[
        Field { name: "description", label: "Description", multiline: true },
        Field { name: "basePrompt", label: "Base prompt", multiline: true },
    ];
}

impl Kind for ToolDefinition {
    const PATH: &'static str = "tools";
    const NOUN: &'static str = "tool";
    const FIELDS: &'static [Field] = &[
        Field { name: "displayName", label: "Display name", multiline: false },
        Field { name: "description", label: "Description", multiline: true },
    ];
}
