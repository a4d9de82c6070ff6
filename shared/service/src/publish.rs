//! Publishing agents to Bedrock Agents: a publication is the resolution of an agent for
//! one stated audience (a request context), kept as a persistent Bedrock agent behind an
//! alias. Plan, then apply; the record lives on the agent (`publication`).

use std::collections::BTreeMap;

use chrono::{SubsecRound, Utc};
use registry_aws::plan::{Call, Desired, Existing, plan};
use registry_aws::{AwsError, Poll, unpublishable};
use registry_core::resolve::{AgentOutcome, CollaboratorConfiguration, Resolution, ResolveError};
use registry_core::{AgentDefinition, Definition, Kind, Publication, RequestContext, Violation};
use registry_store::{Action, Change, Expected};
use serde::{Deserialize, Serialize};

use crate::auth::{Principal, Role};
use crate::write::require;
use crate::{Publishing, ResolveFailure, ServiceError};

/// What to publish for whom.
#[derive(Debug, Clone, Default, Deserialize, utoipa::ToSchema)]
#[serde(rename_all = "camelCase", deny_unknown_fields)]
pub struct PublishRequest {
    /// The audience: the request context the agent is resolved for. Defaults to the
    /// context of the agent's current publication; required on a first publish.
    #[serde(default)]
    pub context: Option<RequestContext>,
    /// The service role Bedrock assumes for the agent; required when the publish
    /// creates the Bedrock agent, else the agent keeps its role.
    #[serde(default)]
    pub role_arn: Option<String>,
    /// Return the plan without making any mutating call.
    #[serde(default)]
    pub dry_run: bool,
}

/// The outcome of a publish: the calls planned (made, unless a dry run) and the record.
#[derive(Debug, Clone, Serialize, utoipa::ToSchema)]
#[serde(rename_all = "camelCase")]
pub struct PublishReport {
    /// Whether this was a dry run (no mutating call made).
    pub dry_run: bool,
    /// The Bedrock Agents calls, in order; empty when Bedrock already matches.
    #[schema(value_type = Vec<Object>)]
    pub plan: Vec<Call>,
    /// The publication after the publish (before it, on a dry run).
    pub publication: Option<Publication>,
    /// The resolution's warnings (deprecations, collaborators left out...).
    #[schema(value_type = Vec<Object>)]
    pub warnings: Vec<registry_core::resolve::Warning>,
    /// Collaborators that were not published yet, published first (planned first, on
    /// a dry run) for the same audience, in dependency order.
    #[schema(value_type = Vec<Object>)]
    pub collaborators: Vec<PublishReport>,
}

/// Whether Bedrock still holds what the registry would publish now.
#[derive(Debug, Clone, Serialize, utoipa::ToSchema)]
#[serde(rename_all = "camelCase")]
pub struct Drift {
    /// The publication on record.
    pub publication: Publication,
    /// True when publishing again would make no call.
    pub in_sync: bool,
    /// The registry version a publish would use now.
    pub current_version: u64,
    /// The calls a publish would make now.
    #[schema(value_type = Vec<Object>)]
    pub plan: Vec<Call>,
}

impl Publishing {
    /// Publishes agent `id` for the request's audience (admin), its unpublished
    /// collaborators first.
    pub async fn publish(
        &self,
        principal: &Principal,
        id: &str,
        request: PublishRequest,
    ) -> Result<PublishReport, ServiceError> {
        require(principal, Role::Admin, "publish agents")?;
        self.publish_at(principal, id, request, 0).await
    }

    /// [`Publishing::publish`] of a collaborator `depth` levels below the agent asked for.
    fn publish_at<'a>(
        &'a self,
        principal: &'a Principal,
        id: &'a str,
        request: PublishRequest,
        depth: usize,
    ) -> std::pin::Pin<Box<dyn Future<Output = Result<PublishReport, ServiceError>> + Send + 'a>>
    {
        Box::pin(async move {
            let head = self.agent_head(id).await?;
            let current = head.server.publication.clone();
            let context = match (&request.context, &current) {
                (Some(context), _) => context.clone(),
                (None, Some(p)) => serde_json::from_value(p.context.clone()).map_err(|e| {
                    ServiceError::Internal(format!("stored publication context: {e}"))
                })?,
                (None, None) => {
                    return Err(ServiceError::invalid(
                        "/context",
                        "a first publish needs the audience: the request context to resolve for",
                    ));
                }
            };
            let resolution = self.resolve_for(&head, &context).await?;
            let mut collaborators = Vec::new();
            for collaborator in self.unpublished_collaborators(&resolution).await? {
                if depth >= MAX_PUBLISH_DEPTH {
                    return Err(ServiceError::invalid(
                        format!("/collaborators/{collaborator}"),
                        format!("collaborators nest deeper than {MAX_PUBLISH_DEPTH} levels"),
                    ));
                }
                let request = PublishRequest { context: Some(context.clone()), ..request.clone() };
                collaborators
                    .push(self.publish_at(principal, &collaborator, request, depth + 1).await?);
            }
            let desired = self.desired(&head, &resolution, request.dry_run).await?;
            let aws = self.aws_clients()?;
            let existing = match &current {
                Some(p) => aws.read_agent(&p.bedrock_agent_id).await.map_err(from_aws)?,
                None => Existing::default(),
            };
            let calls = plan(&desired, &existing);
            let warnings = resolution.warnings.clone();
            if request.dry_run {
                return Ok(PublishReport {
                    dry_run: true,
                    plan: calls,
                    publication: current,
                    warnings,
                    collaborators,
                });
            }
            let published = aws
                .apply_plan(
                    &desired,
                    &existing,
                    &calls,
                    request.role_arn.as_deref(),
                    Poll::default(),
                )
                .await
                .map_err(from_aws)?;
            let context = serde_json::to_value(&context)
                .map_err(|e| ServiceError::Internal(format!("context: {e}")))?;
            // Nothing made and the same audience: the record stands (its registry version
            // is the version whose content was published; recording made a new version
            // with the same content).
            let unchanged = current.as_ref().is_some_and(|p| {
                calls.is_empty()
                    && p.bedrock_agent_id == published.agent_id
                    && p.agent_version == published.agent_version
                    && p.context == context
            });
            let publication = if unchanged {
                current
            } else {
                let record = Publication {
                    bedrock_agent_id: published.agent_id,
                    bedrock_agent_arn: published.agent_arn,
                    alias_id: published.alias_id,
                    alias_arn: published.alias_arn,
                    agent_version: published.agent_version,
                    registry_version: resolution.version,
                    context,
                    published_at: Utc::now().trunc_subsecs(3),
                    published_by: principal.name.clone(),
                };
                self.record(principal, head, Some(record.clone())).await?;
                Some(record)
            };
            Ok(PublishReport { dry_run: false, plan: calls, publication, warnings, collaborators })
        })
    }

    /// Compares agent `id`'s publication with what a publish would make now.
    pub async fn publication(&self, id: &str) -> Result<Drift, ServiceError> {
        let head = self.agent_head(id).await?;
        let publication = published(&head)?.clone();
        let context: RequestContext = serde_json::from_value(publication.context.clone())
            .map_err(|e| ServiceError::Internal(format!("stored publication context: {e}")))?;
        let resolution = self.resolve_for(&head, &context).await?;
        let desired = self.desired(&head, &resolution, false).await?;
        let existing = self
            .aws_clients()?
            .read_agent(&publication.bedrock_agent_id)
            .await
            .map_err(from_aws)?;
        let calls = plan(&desired, &existing);
        Ok(Drift {
            in_sync: calls.is_empty(),
            current_version: resolution.version,
            plan: calls,
            publication,
        })
    }

    /// Deletes agent `id`'s Bedrock agent and clears the record (admin). Bedrock refuses
    /// while the agent is in use, e.g. as a published collaborator.
    pub async fn unpublish(&self, principal: &Principal, id: &str) -> Result<(), ServiceError> {
        require(principal, Role::Admin, "unpublish agents")?;
        let head = self.agent_head(id).await?;
        let bedrock_id = published(&head)?.bedrock_agent_id.clone();
        self.aws_clients()?.unpublish(&bedrock_id).await.map_err(from_aws)?;
        self.record(principal, head, None).await
    }

    /// The live agent `id`.
    async fn agent_head(&self, id: &str) -> Result<AgentDefinition, ServiceError> {
        match self.store().get(Kind::Agent, id).await {
            Ok(Some(Definition::Agent(agent))) => Ok(agent),
            Ok(_) => Err(ServiceError::NotFound { kind: Kind::Agent, id: id.to_owned() }),
            Err(e) => Err(ServiceError::from_store(Kind::Agent, id, e)),
        }
    }

    /// The resolution of `head` for `context`; a refusal is the audience's problem.
    async fn resolve_for(
        &self,
        head: &AgentDefinition,
        context: &RequestContext,
    ) -> Result<Resolution, ServiceError> {
        self.resolver.resolve(&head.agent_id, context, None).await.map_err(|e| match e {
            ResolveFailure::Service(e) => e,
            ResolveFailure::Refused(refused) => {
                ServiceError::invalid("/context", refused_message(&refused))
            }
        })
    }

    /// The registry agents among `resolution`'s collaborators that are called through
    /// their own publication and have none yet.
    async fn unpublished_collaborators(
        &self,
        resolution: &Resolution,
    ) -> Result<Vec<String>, ServiceError> {
        let mut pending = Vec::new();
        for (trace, config) in collaborators(resolution) {
            if config.agent_alias_arn.is_none()
                && self.agent_head(&trace.agent_id).await?.server.publication.is_none()
            {
                pending.push(trace.agent_id.clone());
            }
        }
        Ok(pending)
    }

    /// What a publication of `head` resolved as `resolution` should leave in Bedrock:
    /// collaborators by the aliases of their own publications. An unpublished one is
    /// refused, or on a dry run (`planned`) named by a placeholder, its publication
    /// being planned first.
    async fn desired(
        &self,
        head: &AgentDefinition,
        resolution: &Resolution,
        planned: bool,
    ) -> Result<Desired, ServiceError> {
        let mut aliases = BTreeMap::new();
        let mut violations = Vec::new();
        for (trace, config) in collaborators(resolution) {
            if config.agent_alias_arn.is_some() {
                continue;
            }
            let collaborator = self.agent_head(&trace.agent_id).await?;
            match &collaborator.server.publication {
                Some(p) => {
                    aliases.insert(config.collaborator_name.clone(), p.alias_arn.clone());
                }
                None if planned => {
                    let placeholder = format!("(alias of `{}`, published first)", trace.agent_id);
                    aliases.insert(config.collaborator_name.clone(), placeholder);
                }
                None => violations.push(Violation {
                    path: format!("/collaborators/{}", trace.agent_id),
                    message: format!(
                        "collaborator `{}` is not published: publish it first (a persistent \
                         agent calls its collaborators through their aliases)",
                        trace.agent_id
                    ),
                }),
            }
        }
        let desired = Desired::from_resolution(resolution, head.description.as_deref(), &aliases);
        violations.extend(unpublishable(&desired));
        if violations.is_empty() { Ok(desired) } else { Err(ServiceError::Invalid(violations)) }
    }

    /// Stores `head` with `publication` as its record: a new version, same content.
    async fn record(
        &self,
        principal: &Principal,
        mut head: AgentDefinition,
        publication: Option<Publication>,
    ) -> Result<(), ServiceError> {
        let expected = Expected::Version(head.server.version.unwrap_or(0));
        head.server.version = None;
        head.server.publication = publication;
        head.server.last_modified_by = Some(principal.name.clone());
        head.server.updated_at = Some(Utc::now().trunc_subsecs(3));
        let id = head.agent_id.clone();
        let action =
            if head.server.publication.is_some() { Action::Publish } else { Action::Unpublish };
        let change = Change::new(principal.name.clone(), action);
        self.store()
            .write(Definition::Agent(head), expected, change)
            .await
            .map(|_| ())
            .map_err(|e| ServiceError::from_store(Kind::Agent, &id, e))
    }
}

/// How deep collaborators are published before their supervisor.
const MAX_PUBLISH_DEPTH: usize = registry_core::resolve::MAX_COLLABORATOR_DEPTH + 1;

/// The resolved collaborators of `resolution` with their configurations, in order.
fn collaborators(
    resolution: &Resolution,
) -> impl Iterator<Item = (&registry_core::resolve::AgentTrace, &CollaboratorConfiguration)> {
    let resolved =
        resolution.trace.collaborators.iter().filter(|t| t.outcome == AgentOutcome::Resolved);
    resolved.zip(&resolution.inline_agent.agent.collaborator_configurations)
}

/// The record of a published agent, or why there is none.
fn published(head: &AgentDefinition) -> Result<&Publication, ServiceError> {
    head.server.publication.as_ref().ok_or_else(|| {
        ServiceError::invalid(
            "",
            format!(
                "agent `{}` is not published; POST /agents/{}/publish first",
                head.agent_id, head.agent_id
            ),
        )
    })
}

/// Why the audience cannot have the agent.
fn refused_message(refused: &ResolveError) -> String {
    format!("the agent cannot be published for this audience: {refused}")
}

/// An AWS failure as a service error.
pub(super) fn from_aws(e: AwsError) -> ServiceError {
    match e {
        AwsError::Invalid(violations) => ServiceError::Invalid(violations),
        AwsError::NotALambdaTool(message) => ServiceError::invalid("/executionType", message),
        AwsError::Conflict(message) => ServiceError::Published(message),
        AwsError::Aws(_) | AwsError::BadResponse(_) => ServiceError::Upstream(e.to_string()),
    }
}
