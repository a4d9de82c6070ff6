//! Pieces of the agent and tool pages: properties, access rules, releases, the edit
//! and lifecycle controls (only for editors; the service still checks every write).

use maud::{Markup, html};
use registry_api::Role;
use registry_api::http::params::ListParams;
use registry_api::service::Resource;
use registry_core::{AccessRule, LifecycleStatus, Tags, ToolDefinition};
use serde::Serialize;

use crate::Console;
use crate::html::url_component;
use crate::kind::Kind;
use crate::parts::{badge, csrf_field, link, pre_json, table, tags, time, wire};
use crate::session::Session;

/// One property of a definition: label, JSON member name (the `data-field` of its
/// value) and its text, when set.
pub type Prop = (&'static str, &'static str, Option<String>);

/// A definition list: the properties set, then status, version, who and when, tags.
pub fn props<R: Kind>(definition: &R, fields: Vec<Prop>, tag_list: Option<&Tags>) -> Markup {
    let server = definition.server();
    let who = [
        ("Created", server.created_at.as_ref().map(time)),
        ("Created by", server.created_by.clone()),
        ("Updated", server.updated_at.as_ref().map(time)),
        ("Updated by", server.last_modified_by.clone()),
    ];
    let tag_list = tag_list.filter(|t| !t.is_empty());
    html! {
        dl.props {
            @for (label, key, value) in fields {
                @if let Some(value) = value { dt { (label) } dd data-field=(key) { (value) } }
            }
            dt { "Status" } dd { (badge(definition.status().as_str())) }
            @if let Some(version) = server.version { dt { "Version" } dd #version { (version) } }
            @for (label, value) in who {
                @if let Some(value) = value { dt { (label) } dd { (value) } }
            }
            @if tag_list.is_some() { dt { "Tags" } dd { (tags(tag_list)) } }
        }
    }
}

/// Access rules under `heading`, in the order written.
pub fn rules(rules: Option<&[AccessRule]>, heading: &str) -> Markup {
    html! {
        h2 { (heading) }
        @match rules.filter(|r| !r.is_empty()) {
            Some(rules) => (rule_table(rules, "rules")),
            None => p.muted { "No access rules: everyone who can reach it may use it." },
        }
    }
}

/// The call rules of a tool (checked on each call's arguments).
pub fn call_rules(rules: Option<&[AccessRule]>) -> Markup {
    html! {
        h2 { "Call rules" }
        @match rules.filter(|r| !r.is_empty()) {
            Some(rules) => (rule_table(rules, "call-rules")),
            None => p.muted { "No call rules: every call a principal may make is allowed." },
        }
    }
}

/// A rule member shown as a column.
#[derive(Clone, Copy, PartialEq)]
enum Column {
    Id,
    Effect,
    Mode,
    Order,
    Condition,
    Description,
}

impl Column {
    const ALL: [Column; 6] = [
        Column::Id,
        Column::Effect,
        Column::Mode,
        Column::Order,
        Column::Condition,
        Column::Description,
    ];

    /// The member's JSON name (the column heading).
    fn name(self) -> &'static str {
        match self {
            Column::Id => "id",
            Column::Effect => "effect",
            Column::Mode => "mode",
            Column::Order => "order",
            Column::Condition => "condition",
            Column::Description => "description",
        }
    }

    /// The member's text in `rule`, when the rule sets it.
    fn text(self, rule: &AccessRule) -> Option<String> {
        match self {
            Column::Id => rule.id.clone(),
            Column::Effect => Some(wire(&rule.effect)),
            Column::Mode => (!rule.mode.is_enforce()).then(|| wire(&rule.mode)),
            Column::Order => rule.order.map(|o| o.to_string()),
            Column::Condition => rule.condition.clone(),
            Column::Description => rule.description.clone(),
        }
    }
}

/// Rules as a table with the id `table_id`: a column for each member some rule sets.
fn rule_table(rules: &[AccessRule], table_id: &str) -> Markup {
    let columns: Vec<Column> =
        Column::ALL.into_iter().filter(|c| rules.iter().any(|r| c.text(r).is_some())).collect();
    let headings: Vec<&str> = ["#"].into_iter().chain(columns.iter().map(|c| c.name())).collect();
    table(
        table_id,
        &headings,
        html! {
                @for (i, rule) in rules.iter().enumerate() { tr {
                    td { (i) }
                    @for c in &columns {
                        @let text = c.text(rule).unwrap_or_default();
                        @match c {
                            Column::Condition => td { code { (text) } },
                            Column::Effect => td { (badge(&text)) },
                            _ => td { (text) },
                        }
                    }
                } }
        },
    )
}

/// Every live release of the tool `name`, in semantic order (empty when none).
pub async fn releases(console: &Console, name: &str) -> Vec<ToolDefinition> {
    let params = ListParams(vec![("name".to_owned(), name.to_owned())]);
    let Ok(query) = params.to_query(registry_core::Kind::Tool, true) else {
        return Vec::new();
    };
    console
        .api
        .registry
        .catalog
        .list::<ToolDefinition>(&query)
        .await
        .map(|p| p.items)
        .unwrap_or_default()
}

/// Releases as table rows: release (link, `current` marked), status, version,
/// description.
pub fn release_rows(releases: &[ToolDefinition], current: Option<&str>) -> Markup {
    html! {
        @for r in releases { tr {
            td {
                (link("tools", &r.tool_id))
                @if current == Some(r.tool_id.as_str()) { " " span.muted { "(this page)" } }
            }
            td { (badge(r.status().as_str())) }
            td { (r.version()) }
            td { (r.description) }
        } }
    }
}

/// A releases table with the id `table_id` around `rows`.
pub fn release_table(table_id: &str, rows: Markup) -> Markup {
    html! {
        (table(table_id, &["Release", "Status", "Version", "Description"], html! { (rows) }))
    }
}

/// The links and buttons above a definition: history, and for editors edit and
/// disable or enable.
pub fn actions<R: Kind>(session: &Session, definition: &R) -> Markup {
    let base = format!("/console/{}/{}", R::PATH, url_component(definition.id()));
    let toggle = match definition.status() {
        LifecycleStatus::Disabled => Some(("active", "Enable")),
        LifecycleStatus::Retired => None,
        LifecycleStatus::Active | LifecycleStatus::Deprecated => Some(("disabled", "Disable")),
    };
    html! {
        div.actions {
            a #history-link href={ (base) "/history" } { "History" }
            @if R::PATH == "agents" {
                a #resolve-link href={ (base) "/resolve" } { "Resolve as a user" }
            }
            @if session.principal.has(Role::Editor) {
                a #edit-link href={ (base) "/edit" } { "Edit" }
                @if let Some((status, label)) = toggle {
                    form method="post" action={ (base) "/lifecycle" } {
                        (csrf_field(session))
                        input type="hidden" name="version" value=(definition.version());
                        input type="hidden" name="status" value=(status);
                        button.secondary type="submit" #lifecycle-button { (label) }
                    }
                }
            }
        }
    }
}

/// The whole definition as JSON, folded.
pub fn source(definition: &impl Serialize) -> Markup {
    html! { details { summary { "Definition as JSON" } (pre_json(definition)) } }
}
