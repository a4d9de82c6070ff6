//! Publishing to Bedrock Agents: read what Bedrock holds for an agent ([`Aws::read_agent`]),
//! make the calls of a [`plan`](crate::plan::plan), prepare the draft, and create or move
//! the publication alias ([`Aws::apply_plan`]); remove it all ([`Aws::unpublish`]).

use std::collections::BTreeMap;
use std::time::Duration;

use aws_sdk_bedrockagent::Client;
use aws_sdk_bedrockagent::error::{DisplayErrorContext, ProvideErrorMetadata, SdkError};
use aws_sdk_bedrockagent::types::{
    ActionGroupExecutor, AgentAliasStatus, AgentDescriptor, AgentStatus, CustomControlMethod,
    Function, FunctionSchema, GuardrailConfiguration, ParameterDetail, RelayConversationHistory,
    RequireConfirmation, Type,
};
use registry_core::{BedrockSettings, OrchestrationSettings};
use serde::Serialize;
use serde::de::DeserializeOwned;
use serde_json::{Value, json};

use crate::plan::{
    ActionGroupSpec, AgentSettings, Call, CollaboratorSpec, Desired, Existing, KnowledgeBaseSpec,
    json,
};
use crate::{Aws, AwsError};

/// Sets the publishable `settings` on a CreateAgent or UpdateAgent builder.
macro_rules! with_settings {
    ($builder:expr, $settings:expr) => {{
        let settings: &AgentSettings = $settings;
        let bedrock = &settings.bedrock;
        $builder
            .set_instruction(settings.instruction.clone())
            .set_foundation_model(settings.foundation_model.clone())
            .set_description(settings.description.clone())
            .set_customer_encryption_key_arn(bedrock.customer_encryption_key_arn.clone())
            .set_idle_session_ttl_in_seconds(
                bedrock.idle_session_ttl_in_seconds.and_then(|n| i32::try_from(n).ok()),
            )
            .set_orchestration_type(settings.orchestration.orchestration_type.map(|o| to_sdk(&o)))
            .set_agent_collaboration(settings.agent_collaboration.map(|c| to_sdk(&c)))
            .set_guardrail_configuration(bedrock.guardrail_configuration.as_ref().map(|g| {
                GuardrailConfiguration::builder()
                    .guardrail_identifier(&g.guardrail_identifier)
                    .guardrail_version(&g.guardrail_version)
                    .build()
            }))
    }};
}

/// Sends one Bedrock Agents request; a failure names the operation.
macro_rules! send {
    ($request:expr, $call:literal) => {
        $request.send().await.map_err(|e| failed($call, e))
    };
}

/// A create or update of an action group: `spec` on the draft of agent `agent_id`.
macro_rules! with_action_group {
    ($builder:expr, $agent_id:expr, $spec:expr) => {{
        let spec: &ActionGroupSpec = $spec;
        $builder
            .agent_id($agent_id)
            .agent_version(DRAFT)
            .action_group_name(&spec.name)
            .description(&spec.description)
            .set_action_group_executor(executor(&spec.executor))
            .function_schema(function_schema(&spec.function_schema)?)
    }};
}

/// Every item of a paginated List call, or the call's failure.
macro_rules! all_items {
    ($request:expr, $call:literal) => {
        $request
            .into_paginator()
            .items()
            .send()
            .collect::<Result<Vec<_>, _>>()
            .await
            .map_err(|e| failed($call, e))?
    };
}

/// The name of the alias a publication creates and moves to each new version.
pub const ALIAS_NAME: &str = "registry";

/// The working draft every change is made to.
const DRAFT: &str = "DRAFT";

/// Settings the publisher can write to Bedrock; others are refused before any call.
const PUBLISHABLE: [&str; 8] = [
    "instruction",
    "foundationModel",
    "description",
    "idleSessionTTLInSeconds",
    "guardrailConfiguration",
    "customerEncryptionKeyArn",
    "orchestrationType",
    "agentCollaboration",
];

/// How long to wait for Bedrock to prepare a draft or an alias: `attempts` reads,
/// `interval` apart.
#[derive(Debug, Clone, Copy)]
pub struct Poll {
    /// Reads before giving up.
    pub attempts: u32,
    /// Time between reads.
    pub interval: Duration,
}

impl Default for Poll {
    fn default() -> Self {
        // Bedrock prepares an agent in seconds; three minutes is a generous bound.
        Self { attempts: 90, interval: Duration::from_secs(2) }
    }
}

/// An agent's draft as Bedrock returns it.
pub(crate) struct RawAgent {
    pub agent: aws_sdk_bedrockagent::types::Agent,
    pub action_groups: Vec<aws_sdk_bedrockagent::types::AgentActionGroup>,
    pub knowledge_bases: Vec<aws_sdk_bedrockagent::types::AgentKnowledgeBaseSummary>,
    pub collaborators: Vec<aws_sdk_bedrockagent::types::AgentCollaboratorSummary>,
    pub aliases: Vec<aws_sdk_bedrockagent::types::AgentAliasSummary>,
}

impl Poll {
    /// Calls `read` until it gives a value, at most `attempts` times `interval` apart;
    /// `waiting` says what did not happen when it never does.
    async fn until<T, Fut>(self, waiting: &str, read: impl Fn() -> Fut) -> Result<T, AwsError>
    where
        Fut: Future<Output = Result<Option<T>, AwsError>>,
    {
        for attempt in 0..self.attempts.max(1) {
            if let Some(value) = read().await? {
                return Ok(value);
            }
            if attempt + 1 < self.attempts {
                tokio::time::sleep(self.interval).await;
            }
        }
        Err(AwsError::Aws(format!(
            "{waiting} after {} reads; publish again to complete it",
            self.attempts
        )))
    }
}

/// Where a publication lives in Bedrock.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, utoipa::ToSchema)]
#[serde(rename_all = "camelCase")]
pub struct Published {
    /// The Bedrock agent id.
    pub agent_id: String,
    /// The Bedrock agent ARN.
    pub agent_arn: String,
    /// The publication alias id.
    pub alias_id: String,
    /// The publication alias ARN.
    pub alias_arn: String,
    /// The agent version the alias routes to.
    pub agent_version: String,
}

/// Settings of `desired` the publisher cannot write yet, as violations at their
/// resolution paths (empty when all can be published).
pub fn unpublishable(desired: &Desired) -> Vec<registry_core::Violation> {
    desired
        .settings
        .members()
        .into_keys()
        .filter(|key| !PUBLISHABLE.contains(&key.as_str()))
        .map(|key| registry_core::Violation {
            path: format!("/inlineAgent/{key}"),
            message: "cannot be published to a persistent agent yet; use the resolution \
                      with InvokeInlineAgent"
                .into(),
        })
        .collect()
}

impl Aws {
    /// The Bedrock Agents client.
    async fn bedrock(&self) -> &Client {
        self.bedrock
            .get_or_init(|| async {
                let url = self.endpoints.bedrock.clone();
                let sdk = registry_sdk_config::sdk_config(url.clone()).await;
                let mut config = aws_sdk_bedrockagent::config::Builder::from(&sdk);
                if let Some(url) = url {
                    config =
                        config.endpoint_url(url).credentials_provider(crate::local_credentials());
                }
                Client::from_conf(config.build())
            })
            .await
    }

    /// What Bedrock holds for agent `agent_id` (empty when it does not exist).
    pub async fn read_agent(&self, agent_id: &str) -> Result<Existing, AwsError> {
        let Some(raw) = self.read_raw(agent_id).await? else { return Ok(Existing::default()) };
        let mut existing = Existing {
            prepared: raw.agent.agent_status == AgentStatus::Prepared,
            agent: Some((raw.agent.agent_id.clone(), settings_of(&raw.agent))),
            ..Existing::default()
        };
        for group in raw.action_groups {
            let spec = ActionGroupSpec {
                name: group.action_group_name.clone(),
                description: group.description.clone().unwrap_or_default(),
                executor: executor_json(group.action_group_executor.as_ref()),
                function_schema: schema_json(group.function_schema.as_ref()),
            };
            existing.action_groups.insert(spec.name.clone(), (group.action_group_id, spec));
        }
        for kb in raw.knowledge_bases {
            let spec = KnowledgeBaseSpec {
                id: kb.knowledge_base_id.clone(),
                description: kb.description.unwrap_or_default(),
            };
            existing.knowledge_bases.insert(kb.knowledge_base_id, spec);
        }
        for c in raw.collaborators {
            let spec = CollaboratorSpec {
                name: c.collaborator_name.clone(),
                alias_arn: c.agent_descriptor.and_then(|d| d.alias_arn).unwrap_or_default(),
                instruction: c.collaboration_instruction,
                relay: c.relay_conversation_history.as_str().to_owned(),
            };
            existing.collaborators.insert(c.collaborator_name, (c.collaborator_id, spec));
        }
        existing.alias =
            raw.aliases.into_iter().find(|a| a.agent_alias_name == ALIAS_NAME).map(|a| {
                let version = a
                    .routing_configuration
                    .unwrap_or_default()
                    .into_iter()
                    .find_map(|r| r.agent_version)
                    .unwrap_or_default();
                (a.agent_alias_id, version)
            });
        Ok(existing)
    }

    /// Everything Bedrock holds for agent `agent_id`'s draft, as the SDK returns it
    /// (`None` when the agent does not exist).
    pub(crate) async fn read_raw(&self, agent_id: &str) -> Result<Option<RawAgent>, AwsError> {
        let client = self.bedrock().await;
        let agent = match client.get_agent().agent_id(agent_id).send().await {
            Ok(out) => out.agent,
            Err(e) if e.as_service_error().is_some_and(|s| s.is_resource_not_found_exception()) => {
                return Ok(None);
            }
            Err(e) => return Err(failed("GetAgent", e)),
        };
        let Some(agent) = agent else { return Ok(None) };
        let summaries = all_items!(
            client.list_agent_action_groups().agent_id(agent_id).agent_version(DRAFT),
            "ListAgentActionGroups"
        );
        let mut action_groups = Vec::new();
        for summary in summaries {
            let out = client
                .get_agent_action_group()
                .agent_id(agent_id)
                .agent_version(DRAFT)
                .action_group_id(&summary.action_group_id)
                .send()
                .await
                .map_err(|e| failed("GetAgentActionGroup", e))?;
            action_groups.extend(out.agent_action_group);
        }
        let knowledge_bases = all_items!(
            client.list_agent_knowledge_bases().agent_id(agent_id).agent_version(DRAFT),
            "ListAgentKnowledgeBases"
        );
        let collaborators = all_items!(
            client.list_agent_collaborators().agent_id(agent_id).agent_version(DRAFT),
            "ListAgentCollaborators"
        );
        let aliases =
            all_items!(client.list_agent_aliases().agent_id(agent_id), "ListAgentAliases");
        Ok(Some(RawAgent { agent, action_groups, knowledge_bases, collaborators, aliases }))
    }

    /// Makes `calls` (planned from `desired` against `existing`) and returns where the
    /// publication lives. `role_arn` is the agent's service role: needed to create an
    /// agent, else the existing agent's is kept. Waits for `PREPARED` within `poll`.
    pub async fn apply_plan(
        &self,
        desired: &Desired,
        existing: &Existing,
        calls: &[Call],
        role_arn: Option<&str>,
        poll: Poll,
    ) -> Result<Published, AwsError> {
        let refused = unpublishable(desired);
        if !refused.is_empty() {
            return Err(AwsError::Invalid(refused));
        }
        let client = self.bedrock().await;
        let mut agent_id = existing.agent.as_ref().map(|(id, _)| id.clone());
        let mut alias_id = existing.alias.as_ref().map(|(id, _)| id.clone());
        for call in calls {
            match call {
                Call::CreateAgent { agent_name, settings } => {
                    let Some(role) = role_arn else {
                        return Err(AwsError::Invalid(vec![registry_core::Violation {
                            path: "/roleArn".into(),
                            message: "a first publish creates the Bedrock agent, which needs \
                                      its service role ARN"
                                .into(),
                        }]));
                    };
                    let out = with_settings!(
                        client.create_agent().agent_name(agent_name).agent_resource_role_arn(role),
                        settings
                    )
                    .send()
                    .await
                    .map_err(|e| failed("CreateAgent", e))?;
                    let id = out.agent.map(|a| a.agent_id).ok_or_else(|| missing("CreateAgent"))?;
                    // Every later call needs the agent out of CREATING.
                    self.wait_agent(&id, poll, |s| s != &AgentStatus::Creating).await?;
                    agent_id = Some(id);
                }
                Call::UpdateAgent { settings, .. } => {
                    let id = need(&agent_id)?;
                    let current = self.agent(id).await?;
                    let role = role_arn.unwrap_or(&current.agent_resource_role_arn);
                    with_settings!(
                        client
                            .update_agent()
                            .agent_id(id)
                            .agent_name(&desired.agent_name)
                            .agent_resource_role_arn(role),
                        settings
                    )
                    .send()
                    .await
                    .map_err(|e| failed("UpdateAgent", e))?;
                }
                Call::CreateAgentActionGroup(spec) => {
                    let request = client.create_agent_action_group();
                    send!(
                        with_action_group!(request, need(&agent_id)?, spec),
                        "CreateAgentActionGroup"
                    )?;
                }
                Call::UpdateAgentActionGroup { id, spec } => {
                    let request = client.update_agent_action_group().action_group_id(id);
                    send!(
                        with_action_group!(request, need(&agent_id)?, spec),
                        "UpdateAgentActionGroup"
                    )?;
                }
                Call::DeleteAgentActionGroup { id, .. } => {
                    let request = client
                        .delete_agent_action_group()
                        .agent_id(need(&agent_id)?)
                        .agent_version(DRAFT)
                        .action_group_id(id)
                        .skip_resource_in_use_check(true);
                    send!(request, "DeleteAgentActionGroup")?;
                }
                Call::AssociateAgentKnowledgeBase(spec) => {
                    let id = need(&agent_id)?;
                    if existing.knowledge_bases.contains_key(&spec.id) {
                        let request = client.update_agent_knowledge_base().agent_id(id);
                        let request = request.agent_version(DRAFT).knowledge_base_id(&spec.id);
                        send!(request.description(&spec.description), "UpdateAgentKnowledgeBase")?;
                    } else {
                        let request = client.associate_agent_knowledge_base().agent_id(id);
                        let request = request.agent_version(DRAFT).knowledge_base_id(&spec.id);
                        send!(
                            request.description(&spec.description),
                            "AssociateAgentKnowledgeBase"
                        )?;
                    }
                }
                Call::DisassociateAgentKnowledgeBase { id } => {
                    let request = client.disassociate_agent_knowledge_base().knowledge_base_id(id);
                    let request = request.agent_id(need(&agent_id)?).agent_version(DRAFT);
                    send!(request, "DisassociateAgentKnowledgeBase")?;
                }
                Call::AssociateAgentCollaborator(spec) => {
                    let request = client
                        .associate_agent_collaborator()
                        .agent_id(need(&agent_id)?)
                        .agent_version(DRAFT)
                        .collaborator_name(&spec.name)
                        .collaboration_instruction(&spec.instruction)
                        .relay_conversation_history(RelayConversationHistory::from(
                            spec.relay.as_str(),
                        ))
                        .agent_descriptor(
                            AgentDescriptor::builder().alias_arn(&spec.alias_arn).build(),
                        );
                    send!(request, "AssociateAgentCollaborator")?;
                }
                Call::DisassociateAgentCollaborator { id, .. } => {
                    let draft = client.disassociate_agent_collaborator().agent_version(DRAFT);
                    send!(
                        draft.agent_id(need(&agent_id)?).collaborator_id(id),
                        "DisassociateAgentCollaborator"
                    )?;
                }
                Call::PrepareAgent => {
                    let id = need(&agent_id)?;
                    send!(client.prepare_agent().agent_id(id), "PrepareAgent")?;
                    self.wait_agent(id, poll, |s| s == &AgentStatus::Prepared).await?;
                }
                Call::PublishAlias => {
                    let id = need(&agent_id)?;
                    // Without a routing configuration Bedrock snapshots the prepared
                    // draft as a new version and routes the alias to it.
                    match &alias_id {
                        Some(alias) => {
                            let request = client.update_agent_alias().agent_id(id);
                            let request =
                                request.agent_alias_id(alias).agent_alias_name(ALIAS_NAME);
                            send!(request, "UpdateAgentAlias")?;
                        }
                        None => {
                            let out = client
                                .create_agent_alias()
                                .agent_id(id)
                                .agent_alias_name(ALIAS_NAME)
                                .description("Published by the agent registry")
                                .send()
                                .await
                                .map_err(|e| failed("CreateAgentAlias", e))?;
                            alias_id = Some(
                                out.agent_alias
                                    .map(|a| a.agent_alias_id)
                                    .ok_or_else(|| missing("CreateAgentAlias"))?,
                            );
                        }
                    }
                }
            }
        }
        let (id, alias) = (need(&agent_id)?, need(&alias_id)?);
        self.published(id, alias, poll).await
    }

    /// Deletes Bedrock agent `agent_id` with its aliases; Bedrock refuses (a conflict)
    /// while the agent is in use, e.g. as another agent's collaborator. A missing agent
    /// is already unpublished.
    pub async fn unpublish(&self, agent_id: &str) -> Result<(), AwsError> {
        match self.bedrock().await.delete_agent().agent_id(agent_id).send().await {
            Ok(_) => Ok(()),
            Err(e) if e.as_service_error().is_some_and(|s| s.is_resource_not_found_exception()) => {
                Ok(())
            }
            Err(e) if e.as_service_error().is_some_and(|s| s.is_conflict_exception()) => {
                Err(AwsError::Conflict(format!(
                    "Bedrock refused to delete agent {agent_id}: {}",
                    e.message().unwrap_or("it is in use")
                )))
            }
            Err(e) => Err(failed("DeleteAgent", e)),
        }
    }

    /// Where the publication lives once the alias is prepared.
    async fn published(
        &self,
        agent_id: &str,
        alias_id: &str,
        poll: Poll,
    ) -> Result<Published, AwsError> {
        let client = self.bedrock().await;
        let waiting = format!("alias {alias_id} of agent {agent_id} was not PREPARED");
        let alias = poll
            .until(&waiting, || async move {
                let alias = client
                    .get_agent_alias()
                    .agent_id(agent_id)
                    .agent_alias_id(alias_id)
                    .send()
                    .await
                    .map_err(|e| failed("GetAgentAlias", e))?
                    .agent_alias
                    .ok_or_else(|| missing("GetAgentAlias"))?;
                match alias.agent_alias_status {
                    AgentAliasStatus::Prepared => Ok(Some(alias)),
                    AgentAliasStatus::Failed => Err(AwsError::Aws(format!(
                        "alias {alias_id} of agent {agent_id} failed: {}",
                        alias.failure_reasons.unwrap_or_default().join("; ")
                    ))),
                    _ => Ok(None),
                }
            })
            .await?;
        let agent = self.agent(agent_id).await?;
        let agent_version = alias
            .routing_configuration
            .into_iter()
            .find_map(|r| r.agent_version)
            .unwrap_or_default();
        Ok(Published {
            agent_id: agent.agent_id,
            agent_arn: agent.agent_arn,
            alias_id: alias.agent_alias_id,
            alias_arn: alias.agent_alias_arn,
            agent_version,
        })
    }

    /// Reads agent `agent_id` until its status satisfies `done` (bounded by `poll`).
    async fn wait_agent(
        &self,
        agent_id: &str,
        poll: Poll,
        done: impl Fn(&AgentStatus) -> bool,
    ) -> Result<(), AwsError> {
        let waiting = format!("agent {agent_id} did not reach the expected status");
        let done = &done;
        poll.until(&waiting, || async move {
            let agent = self.agent(agent_id).await?;
            if done(&agent.agent_status) {
                return Ok(Some(()));
            }
            if agent.agent_status == AgentStatus::Failed {
                return Err(AwsError::Aws(format!(
                    "agent {agent_id} failed: {}",
                    agent.failure_reasons.unwrap_or_default().join("; ")
                )));
            }
            Ok(None)
        })
        .await
    }

    /// Bedrock agent `agent_id` (GetAgent).
    async fn agent(&self, agent_id: &str) -> Result<aws_sdk_bedrockagent::types::Agent, AwsError> {
        self.bedrock()
            .await
            .get_agent()
            .agent_id(agent_id)
            .send()
            .await
            .map_err(|e| failed("GetAgent", e))?
            .agent
            .ok_or_else(|| missing("GetAgent"))
    }
}

/// An agent's publishable settings as the plan compares them.
pub(crate) fn settings_of(agent: &aws_sdk_bedrockagent::types::Agent) -> AgentSettings {
    AgentSettings {
        instruction: agent.instruction.clone(),
        foundation_model: agent.foundation_model.clone(),
        description: agent.description.clone(),
        agent_collaboration: agent.agent_collaboration.as_ref().and_then(|c| from_sdk(c.as_str())),
        bedrock: BedrockSettings {
            guardrail_configuration: agent.guardrail_configuration.as_ref().map(|g| {
                registry_core::GuardrailConfiguration {
                    guardrail_identifier: g.guardrail_identifier.clone().unwrap_or_default(),
                    guardrail_version: g.guardrail_version.clone().unwrap_or_default(),
                }
            }),
            idle_session_ttl_in_seconds: u32::try_from(agent.idle_session_ttl_in_seconds).ok(),
            customer_encryption_key_arn: agent.customer_encryption_key_arn.clone(),
            // Not publishable (refused before any call), so never compared.
            prompt_override_configuration: None,
        },
        orchestration: OrchestrationSettings {
            orchestration_type: agent
                .orchestration_type
                .as_ref()
                .and_then(|o| from_sdk(o.as_str())),
            ..OrchestrationSettings::default()
        },
    }
}

/// A registry enum as the SDK's: both use AWS's names.
fn to_sdk<T: Serialize, S: for<'a> From<&'a str>>(value: &T) -> S {
    S::from(json(value).as_str().unwrap_or_default())
}

/// An SDK enum value as the registry's (`None`: a value the registry does not know).
fn from_sdk<T: DeserializeOwned>(name: &str) -> Option<T> {
    serde_json::from_value(Value::from(name)).ok()
}

/// The plan's form of an executor: `{"lambda": arn}` or `{"customControl": "RETURN_CONTROL"}`.
fn executor_json(executor: Option<&ActionGroupExecutor>) -> Value {
    match executor {
        Some(ActionGroupExecutor::Lambda(arn)) => json!({"lambda": arn}),
        Some(ActionGroupExecutor::CustomControl(c)) => json!({"customControl": c.as_str()}),
        _ => Value::Null,
    }
}

/// The SDK's executor for the plan's form.
fn executor(value: &Value) -> Option<ActionGroupExecutor> {
    if let Some(arn) = value.get("lambda").and_then(Value::as_str) {
        return Some(ActionGroupExecutor::Lambda(arn.to_owned()));
    }
    value
        .get("customControl")
        .and_then(Value::as_str)
        .map(|c| ActionGroupExecutor::CustomControl(CustomControlMethod::from(c)))
}

/// The registry's `functionSchema` JSON for the SDK's.
pub(crate) fn schema_json(schema: Option<&FunctionSchema>) -> Value {
    let Some(FunctionSchema::Functions(functions)) = schema else { return Value::Null };
    let functions: Vec<Value> = functions
        .iter()
        .map(|f| {
            let parameters: BTreeMap<&String, Value> = f
                .parameters
                .iter()
                .flatten()
                .map(|(name, p)| {
                    let mut detail = serde_json::Map::new();
                    detail.insert("type".into(), Value::from(p.r#type.as_str()));
                    if let Some(description) = &p.description {
                        detail.insert("description".into(), Value::from(description.clone()));
                    }
                    detail.insert("required".into(), Value::from(p.required.unwrap_or(false)));
                    (name, Value::Object(detail))
                })
                .collect();
            let mut function = json!({
                "name": f.name,
                "description": f.description.clone().unwrap_or_default(),
                "parameters": parameters,
            });
            if let Some(confirmation) = &f.require_confirmation {
                function["requireConfirmation"] = Value::from(confirmation.as_str());
            }
            function
        })
        .collect();
    json!({ "functions": functions })
}

/// The SDK's `functionSchema` for the registry's JSON.
fn function_schema(value: &Value) -> Result<FunctionSchema, AwsError> {
    let bad = |e: &dyn std::fmt::Display| AwsError::Aws(format!("function schema: {e}"));
    let mut functions = Vec::new();
    for f in value.get("functions").and_then(Value::as_array).into_iter().flatten() {
        let text = |key: &str| f.get(key).and_then(Value::as_str).map(str::to_owned);
        let mut builder = Function::builder()
            .set_name(text("name"))
            .set_description(text("description"))
            .set_require_confirmation(
                text("requireConfirmation").map(|c| RequireConfirmation::from(c.as_str())),
            );
        for (name, p) in f.get("parameters").and_then(Value::as_object).into_iter().flatten() {
            let detail = ParameterDetail::builder()
                .set_type(p.get("type").and_then(Value::as_str).map(Type::from))
                .set_description(p.get("description").and_then(Value::as_str).map(str::to_owned))
                .set_required(p.get("required").and_then(Value::as_bool))
                .build()
                .map_err(|e| bad(&e))?;
            builder = builder.parameters(name, detail);
        }
        functions.push(builder.build().map_err(|e| bad(&e))?);
    }
    Ok(FunctionSchema::Functions(functions))
}

/// A failed call as an [`AwsError`].
fn failed<E, R>(call: &str, e: SdkError<E, R>) -> AwsError
where
    E: std::error::Error + 'static,
    R: std::fmt::Debug,
{
    AwsError::Aws(format!("{call} failed: {}", DisplayErrorContext(&e)))
}

/// A response without the member every caller needs.
fn missing(call: &str) -> AwsError {
    AwsError::Aws(format!("{call} answered without the agent it acted on"))
}

/// The id a call needs, which an earlier call must have produced.
fn need(id: &Option<String>) -> Result<&str, AwsError> {
    id.as_deref().ok_or_else(|| AwsError::Aws("no Bedrock agent to act on".into()))
}
