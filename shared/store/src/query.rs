//! Inputs and outputs of store operations.

use registry_core::{ExecutionType, LifecycleStatus};

/// What a write expects to find, which makes every write a compare-and-swap.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Expected {
    /// No live definition with that id (a create). A deleted one may exist; its
    /// version numbers are never reused.
    Absent,
    /// The live definition is at exactly this version.
    Version(u64),
}

/// Matches definitions by tag.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct TagFilter {
    /// Tag key (byte for byte).
    pub key: String,
    /// Tag value; `None` matches any value.
    pub value: Option<String>,
}

/// List filters; all given filters must match.
#[derive(Debug, Clone, Default, PartialEq, Eq)]
pub struct ListFilter {
    /// Tag key, optionally with value.
    pub tag: Option<TagFilter>,
    /// Lifecycle status (absent lifecycle counts as `active`).
    pub status: Option<LifecycleStatus>,
    /// Execution type (tools only; agents never match).
    pub execution_type: Option<ExecutionType>,
    /// Principal that created the definition.
    pub created_by: Option<String>,
    /// Releases of one tool: ids `<name>@<version>` (an indexed prefix match on the id,
    /// never a scan). Agents never match.
    pub name: Option<String>,
}

/// One page request of a list.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct ListQuery {
    /// Page size, 1..=100 (backends clamp values outside the range).
    pub limit: u32,
    /// Opaque cursor from a previous page's `next_cursor`.
    pub cursor: Option<String>,
    /// Filters.
    pub filter: ListFilter,
}

impl Default for ListQuery {
    fn default() -> Self {
        Self { limit: 25, cursor: None, filter: ListFilter::default() }
    }
}

/// One page of results, ordered by id (lists) or by version (history).
#[derive(Debug, Clone, PartialEq)]
pub struct Page<T> {
    /// The items on this page.
    pub items: Vec<T>,
    /// Cursor for the next page; `None` on the last page.
    pub next_cursor: Option<String>,
}
