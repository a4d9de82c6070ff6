//! Resolve as a user: a form for the caller's context, the tools granted and left out
//! with the rule that decided each, and the full trace on demand.

use axum::extract::{Path, Query};
use axum::response::Response;
use maud::{Markup, html};
use registry_api::Problem;
use registry_api::service::ResolveFailure;
use registry_core::resolve::{AgentTrace, Resolution, ResolveError, ToolOutcome, ToolTrace};
use registry_core::{AccessRule, AgentDefinition, Decision, ReasonCode, ToolDefinition};

use crate::Console;
use crate::context::ContextForm;
use crate::html::url_component;
use crate::page::{self, problem_box};
use crate::parts::{badge, link, pre_json, table, wire};
use crate::session::SignedIn;

/// `GET /console/agents/{id}/resolve`.
pub async fn show(
    SignedIn(console, session): SignedIn,
    Path(id): Path<String>,
    Query(form): Query<ContextForm>,
) -> Response {
    let context = form.context();
    let custom_error = context.as_ref().err().map(|e| format!("Custom data {e}"));
    let mut result = html! {};
    if form.run.is_some()
        && let Ok(ctx) = &context
    {
        let bytes = serde_json::to_vec(ctx).unwrap_or_default();
        let answer = match console
            .api
            .registry
            .resolver
            .resolve(&id, registry_api::service::ResolveContext::Json(&bytes), None)
            .await
        {
            Ok(resolution) => granted(&console, &resolution).await,
            Err(ResolveFailure::Refused(refused)) => refusal(&refused),
            Err(ResolveFailure::Service(e)) => {
                let problem = Problem::from(e);
                if problem.status == 404 {
                    return page::problem(&session, &problem);
                }
                problem_box(Some("resolve-error"), &problem)
            }
        };
        result = html! { h2 { "Context sent" } (pre_json(ctx)) (answer) };
    }
    let body = html! {
        p { (link("agents", &id)) }
        form #resolve-form method="get"
            action={ "/console/agents/" (url_component(&id)) "/resolve" } {
            input type="hidden" name="run" value="1";
            (form.fields(html! {}, custom_error.as_deref()))
            button type="submit" #resolve { "Resolve" }
        }
        (result)
    };
    page::ok(&format!("Resolve {id} as a user"), &session, body)
}

/// Granted and left-out tools, each with its deciding rule, the warnings and the trace.
async fn granted(console: &Console, resolution: &Resolution) -> Markup {
    let trace = &resolution.trace;
    let agent_rules = console.api.registry.catalog.get::<AgentDefinition>(&trace.agent_id).await;
    let agent_rules = agent_rules.ok().and_then(|a| a.access_rules);
    let (granted, left): (Vec<&ToolTrace>, Vec<&ToolTrace>) =
        trace.tools.iter().partition(|t| t.outcome == ToolOutcome::Included);
    let mut tables = Vec::new();
    for (heading, table_id, rows) in
        [("Granted tools", "granted", granted), ("Left out", "left-out", left)]
    {
        let mut decided = Vec::with_capacity(rows.len());
        for t in rows {
            let tool = console.api.registry.catalog.get::<ToolDefinition>(&t.tool_id).await;
            let rules = tool.ok().and_then(|tool| tool.access_rules);
            decided.push((t, decision_text(t.access.as_ref(), rules.as_deref())));
        }
        tables.push((heading, table_id, decided));
    }
    let left_out = trace.left_out();
    html! {
        h2 { "Agent" }
        p #agent-decision {
            (badge(trace.outcome.as_str())) " version " (trace.version.unwrap_or_default()) ": "
            (decision_text(trace.access.as_ref(), agent_rules.as_deref()))
        }
        @for (heading, table_id, rows) in &tables {
            h2 { (heading) " (" (rows.len()) ")" }
            @if rows.is_empty() {
                p.muted id=(table_id) { "None." }
            } @else {
                (table(
                    table_id,
                    &["Tool", "Outcome", "Deciding rule"],
                    html! { @for (t, why) in rows { tr {
                        td { (link("tools", &t.tool_id)) }
                        td { (badge(&wire(&t.outcome))) }
                        td.rule { (why) }
                    } } }))
            }
        }
        @if !left_out.is_empty() {
            h2 { "Left-out reason codes" }
            ul #left-out-reasons { @for item in &left_out { li {
                (item.kind) " " code { (item.id) } ": " code { (item.reason) }
                @if let Some(rule) = &item.rule_id { " by rule " code { (rule) } }
            } } }
        }
        @if !resolution.warnings.is_empty() {
            h2 { "Warnings" }
            ul #warnings { @for w in &resolution.warnings { li { (w.message) } } }
        }
        (trace_details(Some(trace)))
    }
}

/// Why access was granted or refused, naming the deciding rule.
fn decision_text(access: Option<&Decision>, rules: Option<&[AccessRule]>) -> String {
    let Some(a) = access else {
        return "no access rules evaluated".to_owned();
    };
    let effect = wire(&a.effect);
    match a.reason {
        ReasonCode::NoRules => format!("{effect}: no access rules"),
        ReasonCode::NoMatch => format!("{effect}: no rule matched{}", would_be_text(a)),
        reason => {
            let mut text = match a.rule_index {
                Some(i) => format!("{effect} by rule #{i}"),
                None => format!("{effect} ({})", reason.as_str()),
            };
            let rule = a.rule_index.and_then(|i| rules?.get(i));
            if let Some(description) = rule.and_then(|r| r.description.as_deref()) {
                text.push_str(&format!(" \u{201c}{description}\u{201d}"));
            }
            if let Some(condition) = rule.and_then(|r| r.condition.as_deref()) {
                text.push_str(&format!(": {condition}"));
            }
            if let Some(id) = &a.rule_id {
                text.push_str(&format!(" (rule id {id})"));
            }
            text.push_str(&would_be_text(a));
            text
        }
    }
}

/// What the log-only rules would have made of a decision, when that differs ("").
fn would_be_text(a: &Decision) -> String {
    let Some(w) = &a.would_be else {
        return String::new();
    };
    let mut text = format!("; log-only rules would make it {}", wire(&w.effect));
    if let Some(by) = &w.rule_id {
        text.push_str(&format!(" by {by}"));
    }
    text
}

fn refusal(refused: &ResolveError) -> Markup {
    html! {
        div.error role="alert" #refused { p { "The agent is refused to this user: " (refused) } }
        (trace_details(refused.trace()))
    }
}

fn trace_details(trace: Option<&AgentTrace>) -> Markup {
    html! { details #trace { summary { "Full decision trace" } (pre_json(&trace)) } }
}
