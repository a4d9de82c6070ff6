//! The agent page: definition, tools with their releases and lifecycle, collaborators,
//! rollout, publication and access rules.

use std::collections::BTreeSet;

use axum::extract::Path;
use axum::response::Response;
use maud::{Markup, html};
use registry_api::Problem;
use registry_core::{AgentDefinition, RolloutPolicy};

use crate::Console;
use crate::detail::{actions, props, release_rows, release_table, releases, rules, source};
use crate::page;
use crate::parts::{link, pre_json, tool_name, wire};
use crate::session::SignedIn;

/// `GET /console/agents/{id}`.
pub async fn show(SignedIn(console, session): SignedIn, Path(id): Path<String>) -> Response {
    let agent = match console.api.registry.catalog.get::<AgentDefinition>(&id).await {
        Ok(agent) => agent,
        Err(e) => return page::problem(&session, &Problem::from(e)),
    };
    let fields = vec![
        ("Agent id", "agentId", Some(agent.agent_id.clone())),
        ("Description", "description", agent.description.clone()),
        ("Foundation model", "foundationModel", agent.foundation_model.clone()),
        (
            "Idle session TTL (s)",
            "idleSessionTTLInSeconds",
            agent.bedrock.idle_session_ttl_in_seconds.map(|s| s.to_string()),
        ),
    ];
    let body = html! {
        (actions(&session, &agent))
        (props(&agent, fields, agent.tags.as_ref()))
        h2 { "Base prompt" }
        pre.prompt { (agent.base_prompt) }
        h2 { "Tools" }
        (release_table("agent-tools", tools(&console, &agent).await))
        (collaborators(&console, &agent).await)
        h2 { "Rollout" }
        (rollout(agent.rollout_policy.as_ref()))
        h2 { "Publication" }
        @match &agent.server.publication {
            Some(publication) => (pre_json(publication)),
            None => p.muted { "Not published to Bedrock Agents." },
        }
        (rules(agent.access_rules.as_deref(), "Access rules"))
        (source(&agent))
    };
    page::ok(&format!("Agent {}", agent.agent_id), &session, body)
}

/// Each tool the agent names, once per name, with every live release of it.
async fn tools(console: &Console, agent: &AgentDefinition) -> Markup {
    let mut names = BTreeSet::new();
    let mut rows = Vec::new();
    for tool_id in &agent.tool_ids {
        let name = tool_name(tool_id);
        if names.insert(name) {
            rows.push((name, tool_id, releases(console, name).await));
        }
    }
    html! {
        @for (name, tool_id, found) in &rows {
            tr.group { th colspan="4" scope="rowgroup" {
                (name) " " span.muted { "named as " code { (tool_id) } }
            } }
            @if found.is_empty() { tr { td.muted colspan="4" { "No live release." } } }
            (release_rows(found, None))
        }
    }
}

/// The rollout policy's settings, or that every caller the rules allow gets the agent.
fn rollout(policy: Option<&RolloutPolicy>) -> Markup {
    let none = html! {
        p.muted #rollout { "No rollout policy: every caller the rules allow gets this agent." }
    };
    let Some(policy) = policy else {
        return none;
    };
    let list = |items: &Option<Vec<String>>| items.as_ref().map(|i| i.join(", "));
    let overrides = policy.tool_overrides.as_ref().map(|o| {
        o.iter().map(|(from, to)| format!("{from} \u{2192} {to}")).collect::<Vec<_>>().join(", ")
    });
    let settings = [
        ("betaAccounts", list(&policy.beta_accounts)),
        ("regionRestrictions", list(&policy.region_restrictions)),
        ("toolOverrides", overrides),
        ("percentage", policy.percentage.map(|p| p.to_string())),
        ("stickiness", policy.stickiness.as_ref().map(wire)),
    ];
    if settings.iter().all(|(_, value)| value.is_none()) {
        return none;
    }
    html! {
        dl.props #rollout {
            @for (name, value) in settings {
                @if let Some(value) = value { dt { (name) } dd { (value) } }
            }
        }
    }
}

/// The collaborators, each with its own collaborators (the graph two levels deep).
async fn collaborators(console: &Console, agent: &AgentDefinition) -> Markup {
    let list = agent.collaborators.as_deref().unwrap_or_default();
    let mut found = Vec::with_capacity(list.len());
    for c in list {
        found
            .push((c, console.api.registry.catalog.get::<AgentDefinition>(&c.agent_id).await.ok()));
    }
    html! {
        h2 { "Collaborators" }
        @if found.is_empty() {
            p.muted { "None." }
        } @else {
            ul.graph #collaborators { @for (c, sub) in &found { li {
                (link("agents", &c.agent_id)) " " span.muted { (c.instruction) }
                @match sub {
                    Some(sub) => {
                        @let subs = sub.collaborators.as_deref().unwrap_or_default();
                        @if !subs.is_empty() {
                            ul { @for s in subs { li { (link("agents", &s.agent_id)) } } }
                        }
                    }
                    None => { " " span.badge.badge-disabled { "not found" } }
                }
            } } }
        }
    }
}
