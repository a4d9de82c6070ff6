//! Create, Update and Delete of one definition on the registry, as the stack.
//!
//! - The actor is `cloudformation:<stack id>` with the admin role (it deletes).
//! - Create on an id that exists succeeds only when this stack created it (a redelivered
//!   or retried Create): it is then applied like an update, which writes nothing when
//!   the content is the same. An id registered by anyone else is refused, so a stack
//!   never takes over (nor, on rollback, deletes) someone else's definition.
//! - Update applies the new properties on the version it has just read (optimistic
//!   concurrency: a concurrent writer makes it fail, to be retried); a new id is a
//!   replacement (the new definition is created, CloudFormation then deletes the old).
//! - Delete really deletes; a definition already gone, or one this stack did not create,
//!   is a success without a write. A tool still used by agents is refused with a reason
//!   naming them (remove it from those agents, or make the agents depend on the tool in
//!   the template so CloudFormation deletes them first).

use registry_core::{AgentDefinition, Kind, ToolDefinition, Violation};
use registry_service::Registry;
use registry_service::auth::{Principal, Role};
use registry_service::{Resource, ServiceError};
use serde_json::{Map, Value};

use crate::event::{CfnRequest, RequestType};
use crate::failure::Failure;
use crate::properties;

/// Resource type of a tool.
pub const TOOL_TYPE: &str = "Custom::AgentRegistryTool";
/// Resource type of an agent.
pub const AGENT_TYPE: &str = "Custom::AgentRegistryAgent";
/// Prefix of the PhysicalResourceId of a Create that registered nothing (`/` never
/// occurs in a registry id, so it names no definition).
pub const UNREGISTERED_PREFIX: &str = "unregistered/";
/// Times a Delete re-reads after losing a race with another writer.
const DELETE_ATTEMPTS: usize = 3;

/// A request carried out: the physical id and the `Data` for `Fn::GetAtt`.
#[derive(Debug, Clone, PartialEq)]
pub struct Done {
    /// The definition id.
    pub physical_id: String,
    /// `Id`, `Version`, `ETag` and for agents `ActionGroups`.
    pub data: Map<String, Value>,
}

/// The principal recorded as `createdBy`/`lastModifiedBy`: the stack.
pub fn actor(stack_id: &str) -> Principal {
    Principal::new(format!("cloudformation:{stack_id}"), Role::Admin)
}

/// The physical id to report when `request` fails: the one CloudFormation knows, or
/// for a failed Create a placeholder that names no definition.
pub fn physical_id_on_failure(request: &CfnRequest) -> String {
    match request.physical_resource_id.as_deref() {
        Some(id) if !id.is_empty() => id.to_owned(),
        _ => format!("{UNREGISTERED_PREFIX}{}/{}", request.logical_resource_id, request.request_id),
    }
}

/// Carries out `request`; the error's text is the reason.
pub async fn handle(registry: &Registry, request: &CfnRequest) -> Result<Done, Failure> {
    let Some(kind) = request.kind() else {
        return Err(Failure::UnknownRequestType(request.request_type.clone()));
    };
    match (request.resource_type.as_str(), kind) {
        (TOOL_TYPE, _) => on::<ToolDefinition>(registry, request, kind).await,
        (AGENT_TYPE, _) => on::<AgentDefinition>(registry, request, kind).await,
        // Nothing of an unknown type was ever created: deleting it must not wedge the stack.
        (_, RequestType::Delete) => {
            Ok(Done { physical_id: physical_id_on_failure(request), data: Map::new() })
        }
        (other, _) => Err(Failure::UnknownResourceType(other.to_owned())),
    }
}

async fn on<R: Resource>(
    registry: &Registry,
    request: &CfnRequest,
    kind: RequestType,
) -> Result<Done, Failure> {
    let principal = actor(&request.stack_id);
    match kind {
        RequestType::Create => {
            let definition = parse::<R>(request)?;
            create(registry, &principal, definition).await
        }
        RequestType::Update => {
            let definition = parse::<R>(request)?;
            update(registry, &principal, request, definition).await
        }
        RequestType::Delete => delete::<R>(registry, &principal, request).await,
    }
}

fn parse<R: Resource>(request: &CfnRequest) -> Result<R, Failure> {
    properties::definition::<R>(request.resource_properties.as_ref())
        .map_err(|v: Vec<Violation>| Failure::Invalid(v))
}

async fn create<R: Resource>(
    registry: &Registry,
    principal: &Principal,
    definition: R,
) -> Result<Done, Failure> {
    let id = definition.id().to_owned();
    match existing::<R>(registry, &id).await? {
        Some(head) if owned_by(&head, principal) => {
            write(registry, principal, definition, Some(head.version())).await
        }
        Some(head) => Err(Failure::Taken {
            kind: R::KIND.as_str(),
            id,
            owner: head.server().created_by.clone().unwrap_or_else(|| "unknown".to_owned()),
        }),
        None => {
            let created = registry
                .catalog
                .create(principal, definition, None)
                .await
                .map_err(Failure::Service)?;
            done(registry, &created).await
        }
    }
}

/// Update: the same as Create on the new properties' id. The same id is applied on the
/// version just read; a new id is a replacement (created here, and CloudFormation then
/// sends a Delete for the old physical id).
async fn update<R: Resource>(
    registry: &Registry,
    principal: &Principal,
    request: &CfnRequest,
    definition: R,
) -> Result<Done, Failure> {
    if request.physical_resource_id.as_deref() != Some(definition.id()) {
        tracing::info!(new = definition.id(), "id changed: replacement");
    }
    create(registry, principal, definition).await
}

async fn write<R: Resource>(
    registry: &Registry,
    principal: &Principal,
    definition: R,
    expected: Option<u64>,
) -> Result<Done, Failure> {
    let id = definition.id().to_owned();
    match registry.catalog.apply(principal, &id, definition, expected, None).await {
        Ok(written) => done(registry, &written.definition).await,
        Err(ServiceError::VersionMismatch { expected, current }) => Err(Failure::Changed {
            kind: R::KIND.as_str(),
            id,
            expected,
            now: current.map_or_else(|| "deleted".to_owned(), |c| c.to_string()),
        }),
        Err(e) => Err(Failure::Service(e)),
    }
}

async fn delete<R: Resource>(
    registry: &Registry,
    principal: &Principal,
    request: &CfnRequest,
) -> Result<Done, Failure> {
    let id = physical_id_on_failure(request);
    let gone = Done { physical_id: id.clone(), data: Map::new() };
    if id.starts_with(UNREGISTERED_PREFIX) {
        return Ok(gone);
    }
    for _ in 0..DELETE_ATTEMPTS {
        let Some(head) = existing::<R>(registry, &id).await? else { return Ok(gone) };
        if !owned_by(&head, principal) {
            tracing::warn!(%id, kind = R::KIND.as_str(), "not created by this stack: left in place");
            return Ok(gone);
        }
        match registry.catalog.delete::<R>(principal, &id, head.version()).await {
            Ok(()) | Err(ServiceError::NotFound { .. }) => return Ok(gone),
            Err(ServiceError::VersionMismatch { .. }) => continue,
            Err(ServiceError::InUse { tool_id, agents }) => {
                return Err(Failure::InUse { tool_id, agents });
            }
            Err(e) => return Err(Failure::Service(e)),
        }
    }
    Err(Failure::Service(ServiceError::Contention))
}

/// The live definition `id`, if any.
async fn existing<R: Resource>(registry: &Registry, id: &str) -> Result<Option<R>, Failure> {
    match registry.catalog.get::<R>(id).await {
        Ok(head) => Ok(Some(head)),
        Err(ServiceError::NotFound { .. }) => Ok(None),
        Err(e) => Err(Failure::Service(e)),
    }
}

fn owned_by<R: Resource>(head: &R, principal: &Principal) -> bool {
    head.server().created_by.as_deref() == Some(principal.name.as_str())
}

/// The response data of a stored definition.
async fn done<R: Resource>(registry: &Registry, stored: &R) -> Result<Done, Failure> {
    let version = stored.version();
    let mut data = Map::new();
    data.insert("Id".into(), stored.id().into());
    data.insert("Version".into(), version.to_string().into());
    data.insert("ETag".into(), format!("\"{version}\"").into());
    if R::KIND == Kind::Agent {
        let document = serde_json::to_value(stored)?;
        let agent: AgentDefinition = serde_json::from_value(document)?;
        data.insert("ActionGroups".into(), action_groups(registry, &agent).await?.join(",").into());
    }
    Ok(Done { physical_id: stored.id().to_owned(), data })
}

/// The action-group names of `agent`'s tools, in `toolIds` order.
async fn action_groups(
    registry: &Registry,
    agent: &AgentDefinition,
) -> Result<Vec<String>, Failure> {
    let mut names = Vec::with_capacity(agent.tool_ids.len());
    for id in &agent.tool_ids {
        if let Some(tool) = existing::<ToolDefinition>(registry, id).await? {
            names.push(tool.name);
        }
    }
    Ok(names)
}
