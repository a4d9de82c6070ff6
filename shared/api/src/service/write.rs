//! Writes: create, apply (PUT), patch (JSON Merge Patch), delete.
//!
//! Server fields are never taken from the input: `version` comes from the store,
//! `createdBy`/`lastModifiedBy` from the principal, `createdAt` is kept from the first
//! version and `updatedAt` is now. Write-only secrets: an `auth` block sent without
//! `clientSecret` on replace or patch keeps the stored secret only while `url`,
//! `auth.tokenUrl` and `auth.clientId` are unchanged (see `ToolDefinition::inherit_secret`).

use chrono::{SubsecRound, Utc};
use registry_core::{Kind, ServerFields, Violation, pointer};
use registry_store::{Expected, StoreError};
use serde_json::Value;

use crate::auth::{Principal, Role};
use crate::service::{Registry, Resource, ServiceError, from_json, lifecycle, merge, references};

/// How many times an unconditional apply re-reads and retries after losing a race.
const APPLY_ATTEMPTS: usize = 8;

/// What a write did.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Outcome {
    /// A new definition was stored at version 1 (or the next after a delete).
    Created,
    /// A new version was stored.
    Updated,
    /// The content equals the stored head; no version was written.
    Unchanged,
}

/// The definition as stored (secrets removed) and what the write did.
#[derive(Debug, Clone, PartialEq)]
pub struct Written<R> {
    /// The stored definition, redacted.
    pub definition: R,
    /// Created, updated or unchanged.
    pub outcome: Outcome,
}

impl Registry {
    /// Creates a definition; its id is generated (UUIDv7) when empty. Fails with
    /// `AlreadyExists` when a live definition has the id.
    pub async fn create<R: Resource>(
        &self,
        principal: &Principal,
        mut definition: R,
    ) -> Result<R, ServiceError> {
        require(principal, Role::Editor, "create definitions")?;
        if definition.id().is_empty() {
            definition.set_id(uuid::Uuid::now_v7().to_string());
        }
        definition.set_id(R::canonical_id(definition.id()));
        Ok(self.write(principal, None, definition, Vec::new()).await?.definition)
    }

    /// Creates or replaces `id` with `definition` (PUT). The path id wins: a different
    /// non-empty id in the body is a violation. With `expected`, the stored version
    /// must equal it (`VersionMismatch` otherwise, also when absent); without, this is
    /// the unconditional declarative apply, retried on concurrent changes. Content equal
    /// to the stored head (server fields aside) writes nothing and returns the head.
    pub async fn apply<R: Resource>(
        &self,
        principal: &Principal,
        id: &str,
        mut definition: R,
        expected: Option<u64>,
    ) -> Result<Written<R>, ServiceError> {
        require(principal, Role::Editor, "change definitions")?;
        let id = &R::canonical_id(id);
        let mut violations = Vec::new();
        if !definition.id().is_empty() && R::canonical_id(definition.id()) != *id {
            violations.push(id_mismatch::<R>(id));
        }
        definition.set_id(id.to_owned());
        for _ in 0..APPLY_ATTEMPTS {
            let head = self.head::<R>(id).await?;
            if let Some(expected) = expected {
                let current = head.as_ref().map(Resource::version);
                if current != Some(expected) {
                    return Err(ServiceError::VersionMismatch { expected, current });
                }
            }
            match self.write(principal, head, definition.clone(), violations.clone()).await {
                Err(ServiceError::VersionMismatch { .. } | ServiceError::AlreadyExists { .. })
                    if expected.is_none() =>
                {
                    continue;
                }
                other => return other,
            }
        }
        Err(ServiceError::Contention)
    }

    /// Applies a JSON Merge Patch (RFC 7396) to the stored JSON form of `id` at version
    /// `expected`, then re-parses and validates the result like a replace.
    pub async fn patch<R: Resource>(
        &self,
        principal: &Principal,
        id: &str,
        patch: &Value,
        expected: u64,
    ) -> Result<Written<R>, ServiceError> {
        require(principal, Role::Editor, "change definitions")?;
        let id = &R::canonical_id(id);
        if !patch.is_object() {
            return Err(ServiceError::invalid("", "a merge patch must be a JSON object"));
        }
        let head = self
            .head::<R>(id)
            .await?
            .ok_or_else(|| ServiceError::NotFound { kind: R::KIND, id: id.to_owned() })?;
        if head.version() != expected {
            return Err(ServiceError::VersionMismatch { expected, current: Some(head.version()) });
        }
        let mut document =
            serde_json::to_value(&head).map_err(|e| ServiceError::Internal(e.to_string()))?;
        merge(&mut document, patch);
        let mut definition: R = from_json(document).map_err(ServiceError::Invalid)?;
        let mut violations = Vec::new();
        if definition.id() != id {
            violations.push(id_mismatch::<R>(id));
        }
        definition.set_id(id.to_owned());
        self.write(principal, Some(head), definition, violations).await
    }

    /// Deletes the live definition `id` at version `expected` (admin only). A tool used
    /// by agents is refused with `InUse` unless it is retired.
    pub async fn delete<R: Resource>(
        &self,
        principal: &Principal,
        id: &str,
        expected: u64,
    ) -> Result<(), ServiceError> {
        require(principal, Role::Admin, "delete definitions")?;
        let id = &R::canonical_id(id);
        if R::KIND == Kind::Agent
            && let Ok(Some(head)) = self.store().get(R::KIND, id).await
            && let Some(p) = &head.server().publication
        {
            // Never orphan a Bedrock agent silently.
            return Err(ServiceError::Published(format!(
                "agent `{id}` is published to Bedrock as agent {} (alias {}); unpublish it \
                 first: DELETE /agents/{id}/publication",
                p.bedrock_agent_id, p.alias_arn
            )));
        }
        self.store()
            .delete(R::KIND, id, expected)
            .await
            .map_err(|e| ServiceError::from_store(R::KIND, id, e))
    }

    /// Validates `definition` against `head` (the stored version, if any) and stores
    /// it conditionally on the head's version.
    async fn write<R: Resource>(
        &self,
        principal: &Principal,
        head: Option<R>,
        mut definition: R,
        mut violations: Vec<Violation>,
    ) -> Result<Written<R>, ServiceError> {
        *definition.server_mut() = ServerFields::default();
        let missing_secrets = definition.inherit_secrets(head.as_ref());
        // Validation compiles rules: off the async workers, so a slow compile never
        // holds up other requests.
        let to_check = definition.clone();
        let checked = tokio::task::spawn_blocking(move || to_check.validate())
            .await
            .map_err(|e| ServiceError::Internal(format!("validation failed: {e}")))?;
        if let Err(found) = checked {
            violations.extend(found);
        }
        for missing in missing_secrets {
            if !violations.iter().any(|v| v.path == missing.path) {
                violations.push(missing);
            }
        }
        if !violations.is_empty() {
            let as_definition = definition.clone().into_definition();
            violations.extend(references::check(self.store().as_ref(), &as_definition).await?);
            return Err(ServiceError::Invalid(violations));
        }
        if let Some(head) = &head
            && same_content(head, &definition)
        {
            return Ok(Written { definition: head.redacted(), outcome: Outcome::Unchanged });
        }
        if let registry_core::Definition::Agent(agent) = definition.clone().into_definition() {
            // Ranges have no store-level reference: each must match a live release now.
            let unmatched = references::check_ranges(self.store().as_ref(), &agent).await?;
            if !unmatched.is_empty() {
                return Err(ServiceError::Invalid(unmatched));
            }
        }
        if let registry_core::Definition::Tool(tool) = definition.clone().into_definition() {
            let head = head.clone().and_then(|h| match h.into_definition() {
                registry_core::Definition::Tool(t) => Some(t),
                registry_core::Definition::Agent(_) => None,
            });
            let refused = self.release_violations(&tool, head.as_ref()).await?;
            if !refused.is_empty() {
                return Err(ServiceError::Invalid(refused));
            }
        }
        lifecycle::check_transition(principal, head.as_ref(), &definition)?;
        // Tool references are checked by the store, atomically with the write; its
        // `BadReferences` is mapped to the same per-path violations below.

        let now = Utc::now().trunc_subsecs(3);
        let (expected, outcome, server) = match &head {
            Some(head) => (
                Expected::Version(head.version()),
                Outcome::Updated,
                ServerFields {
                    version: None,
                    created_by: head.server().created_by.clone(),
                    created_at: head.server().created_at,
                    last_modified_by: Some(principal.name.clone()),
                    updated_at: Some(now),
                    // Only publishing sets it; an edit keeps it (drift shows the change).
                    publication: head.server().publication.clone(),
                },
            ),
            None => (
                Expected::Absent,
                Outcome::Created,
                ServerFields {
                    version: None,
                    created_by: Some(principal.name.clone()),
                    created_at: Some(now),
                    last_modified_by: Some(principal.name.clone()),
                    updated_at: Some(now),
                    publication: None,
                },
            ),
        };
        *definition.server_mut() = server;
        let id = definition.id().to_owned();
        let as_definition = definition.into_definition();
        match self.store().put(as_definition.clone(), expected).await {
            Ok(stored) => R::from_definition(stored)
                .map(|d| Written { definition: d.redacted(), outcome })
                .ok_or_else(|| ServiceError::Internal("store returned the wrong kind".into())),
            Err(StoreError::BadReferences { missing, retired }) => {
                let registry_core::Definition::Agent(agent) = &as_definition else {
                    return Err(ServiceError::Internal("bad references on a tool".into()));
                };
                Err(ServiceError::Invalid(references::violations(agent, &missing, &retired)))
            }
            Err(e) => Err(ServiceError::from_store(R::KIND, &id, e)),
        }
    }
}

/// Fails unless the principal has at least `role`.
pub(super) fn require(principal: &Principal, role: Role, what: &str) -> Result<(), ServiceError> {
    if principal.has(role) {
        Ok(())
    } else {
        Err(ServiceError::Forbidden(format!(
            "the `{}` role is needed to {what}; `{}` has `{}`",
            role.as_str(),
            principal.name,
            principal.role.as_str()
        )))
    }
}

/// The body named a different id than the path.
fn id_mismatch<R: Resource>(id: &str) -> Violation {
    Violation {
        path: pointer("", R::ID_FIELD),
        message: format!("must be omitted or equal the id in the path (`{id}`)"),
    }
}

/// Equal apart from server fields.
fn same_content<R: Resource>(a: &R, b: &R) -> bool {
    let (mut a, mut b) = (a.clone(), b.clone());
    *a.server_mut() = ServerFields::default();
    *b.server_mut() = ServerFields::default();
    a == b
}
