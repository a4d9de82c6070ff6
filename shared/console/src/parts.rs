//! Fragments every page uses: links, badges, tags, filter forms, form fields, tables,
//! JSON blocks, violation lists, times and wire names.

use chrono::{DateTime, SecondsFormat, Utc};
use maud::{Markup, html};
use registry_core::{Tags, Violation};
use serde::Serialize;

use crate::html::url_component;
use crate::session::Session;

/// A link to the console page of a definition (`path` is `agents` or `tools`).
pub fn link(path: &str, id: &str) -> Markup {
    html! { a href={ "/console/" (path) "/" (url_component(id)) } { (id) } }
}

/// The console path of a definition kind: `agents` or `tools`.
pub fn kind_path(kind: registry_core::Kind) -> &'static str {
    match kind {
        registry_core::Kind::Agent => "agents",
        registry_core::Kind::Tool => "tools",
    }
}

/// A status, effect or outcome badge.
pub fn badge(status: &str) -> Markup {
    html! { span class={ "badge badge-" (status) } { (status) } }
}

/// Tags as `key=value` chips.
pub fn tags(tags: Option<&Tags>) -> Markup {
    html! {
        @for (k, v) in tags.into_iter().flatten() {
            span.tag { (k) "=" (v) } " "
        }
    }
}

/// `<option>`s of `values` ("" is "any"), `selected` chosen.
fn options(selected: &str, values: &[&str]) -> Markup {
    html! {
        @for v in values {
            option value=(v) selected[*v == selected] {
                @if v.is_empty() { "any" } @else { (v) }
            }
        }
    }
}

/// A labelled `<select>` of `values` in a filter form.
pub fn select(id: &str, name: &str, label: &str, selected: &str, values: &[&str]) -> Markup {
    html! {
        div {
            label for=(id) { (label) }
            select id=(id) name=(name) { (options(selected, values)) }
        }
    }
}

/// A `GET` form of filters: `fields`, then `submit` (the button and any link).
pub fn filters(action: &str, fields: Markup, submit: Markup) -> Markup {
    html! { form.filters method="get" action=(action) role="search" { (fields) div { (submit) } } }
}

/// What a form field is edited with.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Control {
    /// A one-line text input, with the keyboard it asks for (`decimal`, `numeric`).
    Text(Option<&'static str>),
    /// A `<textarea>`.
    TextArea,
    /// A checkbox, checked when the value is not empty.
    Checkbox,
}

/// A form field: `label`, then the `control` identified by `id` and named `name`
/// holding `value`, then the `error` (its element id and text), which marks the
/// control invalid.
pub fn field(
    (id, name): (&str, &str),
    label: Markup,
    control: Control,
    value: &str,
    error: Option<(&str, Markup)>,
) -> Markup {
    let (invalid, error_id) = match &error {
        Some((error_id, _)) => (Some("true"), Some(*error_id)),
        None => (None, None),
    };
    html! {
        div.field {
            label for=(id) { (label) }
            @match control {
                Control::TextArea => textarea id=(id) name=(name)
                    aria-invalid=[invalid] aria-describedby=[error_id] { (value) },
                Control::Checkbox => input type="checkbox" id=(id) name=(name)
                    checked[!value.is_empty()] aria-invalid=[invalid] aria-describedby=[error_id];,
                Control::Text(mode) => input type="text" id=(id) name=(name) inputmode=[mode]
                    aria-invalid=[invalid] aria-describedby=[error_id] value=(value);,
            }
            @if let Some((error_id, text)) = error { p.field-error id=(error_id) { (text) } }
        }
    }
}

/// A labelled text input named (and identified by) `name`, holding `value`.
pub fn text_field(name: &str, label: &str, value: &str) -> Markup {
    field((name, name), html! { (label) }, Control::Text(None), value, None)
}

/// The hidden CSRF field every form of a session carries.
pub fn csrf_field(session: &Session) -> Markup {
    html! { input type="hidden" name="csrf" value=(session.csrf); }
}

/// Violations as a list: pointer and message.
pub fn violations(errors: &[Violation]) -> Markup {
    html! {
        @if !errors.is_empty() {
            ul.violations {
                @for e in errors {
                    li { code { @if e.path.is_empty() { "/" } @else { (e.path) } } " " (e.message) }
                }
            }
        }
    }
}

/// An error box: `detail`, then the violations.
pub fn error_box(id: Option<&str>, detail: &str, errors: &[Violation]) -> Markup {
    html! { div.error role="alert" id=[id] { p { (detail) } (violations(errors)) } }
}

/// Any value pretty-printed as JSON in a `<pre>`.
pub fn pre_json(value: &impl Serialize) -> Markup {
    html! { pre.json { (serde_json::to_string_pretty(value).unwrap_or_default()) } }
}

/// A time as the API writes it (RFC 3339, UTC, `Z`).
pub fn time(at: &DateTime<Utc>) -> String {
    at.to_rfc3339_opts(SecondsFormat::AutoSi, true)
}

/// The wire name of a unit enum (its serde name: `allow`, `log-only`, `INCLUDED`), or
/// "" for anything that does not serialize as a string.
pub fn wire(value: &impl Serialize) -> String {
    match serde_json::to_value(value) {
        Ok(serde_json::Value::String(name)) => name,
        _ => String::new(),
    }
}

/// `yes` or `no`.
pub fn yes_no(flag: bool) -> &'static str {
    if flag { "yes" } else { "no" }
}

/// The name of a tool release id (`weather@1.0.0` is `weather`).
pub fn tool_name(id: &str) -> &str {
    id.split_once('@').map_or(id, |(name, _)| name)
}

/// Any JSON value as readable text: strings bare, the rest as JSON.
pub fn json_text(value: &serde_json::Value) -> String {
    match value {
        serde_json::Value::String(s) => s.clone(),
        serde_json::Value::Null => String::new(),
        other => other.to_string(),
    }
}

/// A table that scrolls sideways in a narrow window: a header row of `headings`, then
/// `rows`.
pub fn table<S: AsRef<str>>(id: &str, headings: &[S], rows: Markup) -> Markup {
    html! {
        div.scroll { table id=(id) {
            thead { tr { @for h in headings { th scope="col" { (h.as_ref()) } } } }
            tbody { (rows) }
        } }
    }
}
