//! What the console needs to know about each kind of definition: its path, its name,
//! its tags and the fields its edit form offers.

use registry_api::service::Resource;
use registry_core::{AgentDefinition, Tags, ToolDefinition};

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

/// An agent or a tool, as the console shows it.
pub trait Kind: Resource + 'static {
    /// Path segment: `agents` or `tools`.
    const PATH: &'static str;
    /// Singular noun: `agent` or `tool`.
    const NOUN: &'static str;
    /// Fields the edit form changes (a JSON Merge Patch of these members).
    const FIELDS: &'static [Field<Self>];
    /// The definition's tags.
    fn tags(&self) -> Option<&Tags>;
}

impl Kind for AgentDefinition {
    const PATH: &'static str = "agents";
    const NOUN: &'static str = "agent";
    const FIELDS: &'static [Field<Self>] = &[
        Field {
            name: "description",
            label: "Description",
            multiline: true,
            read: |a| a.description.as_deref().unwrap_or_default(),
        },
        Field {
            name: "basePrompt",
            label: "Base prompt",
            multiline: true,
            read: |a| &a.base_prompt,
        },
    ];
    fn tags(&self) -> Option<&Tags> {
        self.tags.as_ref()
    }
}

impl Kind for ToolDefinition {
    const PATH: &'static str = "tools";
    const NOUN: &'static str = "tool";
    const FIELDS: &'static [Field<Self>] = &[
        Field {
            name: "displayName",
            label: "Display name",
            multiline: false,
            read: |t| &t.display_name,
        },
        Field {
            name: "description",
            label: "Description",
            multiline: true,
            read: |t| &t.description,
        },
    ];
    fn tags(&self) -> Option<&Tags> {
        self.tags.as_ref()
    }
}
