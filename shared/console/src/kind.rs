//! What the console needs to know about each kind of definition: its path, its name
//! and the fields its edit form offers.

use registry_api::service::Resource;
use registry_core::{AgentDefinition, ToolDefinition};

/// A field of an edit form: JSON name, label, whether it is a multi-line text, and how
/// to read it from the definition.
pub struct Field<R: 'static> {
    /// JSON member name (and form field name).
    pub name: &'static str,
    /// Label shown.
    pub label: &'static str,
    /// A `<textarea>` rather than an `<input>`.
    pub multiline: bool,
    /// The field's current text in a definition.
    pub read: fn(&R) -> &str,
}

impl<R> Field<R> {
    /// A one-line field.
    const fn line(name: &'static str, label: &'static str, read: fn(&R) -> &str) -> Self {
        Self { name, label, multiline: false, read }
    }

    /// A multi-line field.
    const fn text(name: &'static str, label: &'static str, read: fn(&R) -> &str) -> Self {
        Self { name, label, multiline: true, read }
    }
}

/// An agent or a tool, as the console shows it.
pub trait Kind: Resource + 'static {
    /// Path segment: `agents` or `tools`.
    const PATH: &'static str;
    /// Singular noun: `agent` or `tool`.
    const NOUN: &'static str;
    /// Fields the edit form changes (a JSON Merge Patch of these members).
    const FIELDS: &'static [Field<Self>];
}

impl Kind for AgentDefinition {
    const PATH: &'static str = "agents";
    const NOUN: &'static str = "agent";
    const FIELDS: &'static [Field<Self>] = &[
        Field::text("description", "Description", |a| a.description.as_deref().unwrap_or_default()),
        Field::text("basePrompt", "Base prompt", |a| &a.base_prompt),
    ];
}

impl Kind for ToolDefinition {
    const PATH: &'static str = "tools";
    const NOUN: &'static str = "tool";
    const FIELDS: &'static [Field<Self>] = &[
        Field::line("displayName", "Display name", |t| &t.display_name),
        Field::text("description", "Description", |t| &t.description),
    ];
}
