//! Writes: create, apply (PUT), patch (JSON Merge Patch), delete.
//!
//! Server fields are never taken from the input: `version` comes from the store,
//! `createdBy`/`lastModifiedBy` from the principal, `createdAt` is kept from the first
//! version and `updatedAt` is now. Write-only secrets: an `auth` block sent without
//! `clientSecret` on replace or patch keeps the stored secret only while `url`,
//! `auth.tokenUrl` and `auth.clientId` are unchanged (see `ToolDefinition::inherit_secret`).
//!
//! A write checks what does not depend on the stored head once (the domain validation,
//! which compiles access rules and schemas), then each attempt reads the head, checks
//! what does (secrets, releases, lifecycle) and stores conditionally on the head's
//! version; [`Precondition::retry`] is the one retry loop. An attempt copies the input
//! once, for the store to take; the head is borrowed from the store's shared copy.

use chrono::{SubsecRound, Utc};
use registry_core::{ServerFields, Violation, pointer};
use registry_store::{Action, Change, Expected, StoreError, changed_pointers_json};
use serde_json::Value;

use crate::auth::{Principal, Role};
use crate::proposals::{ProposalView, selector_tagged};
use crate::{
    Catalog, DefinitionRef, Precondition, Resource, ServiceError, from_json, lifecycle, references,
};

/// What a write did.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Outcome {
    /// A new definition was stored at version 1 (or the next after a delete).
    Created,
    /// A new version was stored.
    Updated,
    /// The content equals the stored head; no version was written.
    Unchanged,
    /// Review is required: nothing was written but a proposal (see [`Written::proposal`]).
    Proposed,
}

/// The definition as stored (secrets removed) and what the write did.
#[derive(Debug, Clone, PartialEq)]
pub struct Written<R> {
    /// The stored definition, redacted.
    pub definition: R,
    /// Created, updated, unchanged or proposed.
    pub outcome: Outcome,
    /// The proposal the write became ([`Outcome::Proposed`]).
    pub proposal: Option<Box<ProposalView>>,
}

/// An input checked on its own: server fields cleared, domain validation run. What is
/// left to check depends on the stored head.
struct Checked<R> {
    /// The input as the client sent it, with the path's id.
    definition: R,
    /// What is wrong with it whatever the head (id mismatch, domain validation).
    violations: Vec<Violation>,
}

/// The writes. Each takes `note`: what a write that becomes a proposal (review
/// required) carries; other writes ignore it.
impl Catalog {
    /// Creates a definition; its id is generated (UUIDv7) when empty. Fails with
    /// `AlreadyExists` when a live definition has the id.
    pub async fn create<R: Resource>(
        &self,
        principal: &Principal,
        mut definition: R,
        note: Option<&str>,
    ) -> Result<R, ServiceError> {
        require(principal, Role::Editor, "create definitions")?;
        if definition.id().is_empty() {
            definition.set_id(uuid::Uuid::now_v7().to_string());
        }
        definition.set_id(R::canonical_id(definition.id()));
        let checked = checked(definition, Vec::new()).await?;
        Ok(self.write(principal, None, &checked, Action::Create, note).await?.definition)
    }

    /// [`Catalog::create`], telling whether it created or (review required) proposed.
    pub async fn create_written<R: Resource>(
        &self,
        principal: &Principal,
        mut definition: R,
        note: Option<&str>,
    ) -> Result<Written<R>, ServiceError> {
        require(principal, Role::Editor, "create definitions")?;
        if definition.id().is_empty() {
            definition.set_id(uuid::Uuid::now_v7().to_string());
        }
        definition.set_id(R::canonical_id(definition.id()));
        let checked = checked(definition, Vec::new()).await?;
        self.write(principal, None, &checked, Action::Create, note).await
    }

    /// Creates or replaces `id` with `definition` (PUT). The path id wins: a different
    /// non-empty id in the body is a violation. With a version (`Some(v)`), the stored
    /// version must equal it (`VersionMismatch` otherwise, also when absent); with
    /// [`Precondition::Current`] the definition must exist; without one (`None`), this is
    /// the unconditional declarative apply. The last two are retried on concurrent
    /// changes. Content equal to the stored head (server fields aside) writes nothing
    /// and returns the head.
    pub async fn apply<R: Resource>(
        &self,
        principal: &Principal,
        id: &str,
        mut definition: R,
        precondition: impl Into<Precondition>,
        note: Option<&str>,
    ) -> Result<Written<R>, ServiceError> {
        require(principal, Role::Editor, "change definitions")?;
        let precondition = precondition.into();
        let id = &R::canonical_id(id);
        let mut violations = Vec::new();
        if !definition.id().is_empty() && R::canonical_id(definition.id()) != *id {
            violations.push(id_mismatch::<R>(id));
        }
        definition.set_id(id.to_owned());
        let checked = &checked(definition, violations).await?;
        precondition
            .retry(move || async move {
                let stored = self.stored::<R>(id).await?;
                let head = stored.as_deref().and_then(R::from_ref);
                precondition.check(R::KIND, id, head.map(Resource::version))?;
                let action = if head.is_some() { Action::Replace } else { Action::Create };
                self.write(principal, head, checked, action, note).await
            })
            .await
    }

    /// Applies a JSON Merge Patch (RFC 7396) to the stored JSON form of `id` at the
    /// version `precondition` names (or the current one, retried on concurrent
    /// changes), then re-parses and validates the result like a replace.
    pub async fn patch<R: Resource>(
        &self,
        principal: &Principal,
        id: &str,
        patch: &Value,
        precondition: impl Into<Precondition>,
        note: Option<&str>,
    ) -> Result<Written<R>, ServiceError> {
        require(principal, Role::Editor, "change definitions")?;
        let precondition = precondition.into();
        let id = &R::canonical_id(id);
        precondition
            .retry(move || async move {
                let stored = self.stored::<R>(id).await?;
                let head = stored.as_deref().and_then(R::from_ref);
                // `*` needs the definition before anything else (the route answers 412).
                if precondition == Precondition::Current && head.is_none() {
                    return Err(ServiceError::NotFound { kind: R::KIND, id: id.to_owned() });
                }
                if !patch.is_object() {
                    return Err(ServiceError::invalid("", "a merge patch must be a JSON object"));
                }
                let head = head
                    .ok_or_else(|| ServiceError::NotFound { kind: R::KIND, id: id.to_owned() })?;
                precondition.check(R::KIND, id, Some(head.version()))?;
                let mut document = serde_json::to_value(head)
                    .map_err(|e| ServiceError::Internal(e.to_string()))?;
                // JSON Merge Patch (RFC 7396)
                json_patch::merge(&mut document, patch);
                let mut definition: R = from_json(document).map_err(ServiceError::Invalid)?;
                let mut violations = Vec::new();
                if definition.id() != id {
                    violations.push(id_mismatch::<R>(id));
                }
                definition.set_id(id.to_owned());
                let checked = checked(definition, violations).await?;
                self.write(principal, Some(head), &checked, Action::Patch, note).await
            })
            .await
    }

    /// Deletes the live definition `id` at the version `precondition` names (or the
    /// current one, retried on concurrent changes; admin only). A tool used by agents
    /// is refused with `InUse` unless it is retired; a published agent with `Published`.
    pub async fn delete<R: Resource>(
        &self,
        principal: &Principal,
        id: &str,
        precondition: impl Into<Precondition>,
    ) -> Result<(), ServiceError> {
        require(principal, Role::Admin, "delete definitions")?;
        let precondition = precondition.into();
        let id = &R::canonical_id(id);
        precondition
            .retry(move || async move {
                let stored = match precondition {
                    // Read for an agent's publication or a tool's secret: a failed read
                    // skips those (the store reads again to delete).
                    Precondition::Version(_) => self.stored::<R>(id).await.ok().flatten(),
                    Precondition::Current | Precondition::Unconditional => {
                        self.stored::<R>(id).await?
                    }
                };
                let head = stored.as_deref().and_then(R::from_ref);
                if let Some(p) = head.and_then(|h| h.server().publication.as_ref()) {
                    // Never orphan a Bedrock agent silently.
                    return Err(ServiceError::Published(format!(
                        "agent `{id}` is published to Bedrock as agent {} (alias {}); unpublish it \
                         first: DELETE /agents/{id}/publication",
                        p.bedrock_agent_id, p.alias_arn
                    )));
                }
                let expected = match precondition {
                    Precondition::Version(expected) => expected,
                    Precondition::Current | Precondition::Unconditional => {
                        head.map(Resource::version).ok_or_else(|| ServiceError::NotFound {
                            kind: R::KIND,
                            id: id.to_owned(),
                        })?
                    }
                };
                self.store()
                    .remove(R::KIND, id, expected, &principal.name)
                    .await
                    .map_err(|e| ServiceError::from_store(R::KIND, id, e))?;
                self.trim_secrets::<R>(id, Self::secret_of(head).as_ref(), None).await;
                Ok(())
            })
            .await
    }

    /// Checks `checked` against `head` (the stored version, if any) and stores it
    /// conditionally on the head's version with its event (`action`, or `lifecycle`
    /// when only the lifecycle changes), or, where review is required and a governed
    /// field changes, stores a proposal carrying `note` instead.
    async fn write<R: Resource>(
        &self,
        principal: &Principal,
        head: Option<&R>,
        checked: &Checked<R>,
        action: Action,
        note: Option<&str>,
    ) -> Result<Written<R>, ServiceError> {
        // The one copy of an attempt: the store takes it, the input stays for the next.
        let mut definition = checked.definition.clone();
        let secrets = definition.inherit_secrets(head);
        definition.assign_rule_ids(head);
        // Validation saw the input before the stored secrets were taken into it.
        let mut violations: Vec<Violation> = checked
            .violations
            .iter()
            .filter(|v| !secrets.inherited.contains(&v.path.as_str()))
            .cloned()
            .collect();
        for missing in secrets.missing {
            if !violations.iter().any(|v| v.path == missing.path) {
                violations.push(missing);
            }
        }
        if !violations.is_empty() {
            if let DefinitionRef::Agent(agent) = definition.view() {
                violations.extend(references::check(self.store().as_ref(), agent).await?);
                violations
                    .extend(references::check_limit_functions(self.store().as_ref(), agent).await?);
            }
            return Err(ServiceError::Invalid(violations));
        }
        let sealed = self.seal_secret(&mut definition, head).await?;
        if let Some(head) = head
            && same_content(head, &mut definition)
        {
            return Ok(Written {
                definition: definition.redact(),
                outcome: Outcome::Unchanged,
                proposal: None,
            });
        }
        let refused = match definition.view() {
            // Ranges have no store-level reference: each must match a live release now.
            DefinitionRef::Agent(agent) => {
                let mut found = references::check_ranges(self.store().as_ref(), agent).await?;
                found
                    .extend(references::check_limit_functions(self.store().as_ref(), agent).await?);
                found
            }
            DefinitionRef::Tool(tool) => {
                let head = head.and_then(|h| match h.view() {
                    DefinitionRef::Tool(t) => Some(t),
                    DefinitionRef::Agent(_) => None,
                });
                self.release_violations(tool, head).await?
            }
        };
        if !refused.is_empty() {
            return Err(ServiceError::Invalid(refused));
        }
        lifecycle::check_transition(principal, head, &definition)?;
        let json =
            |d: &R| serde_json::to_value(d).map_err(|e| ServiceError::Internal(e.to_string()));
        let changed = changed_pointers_json(head.map(json).transpose()?, Some(json(&definition)?));
        let tagged =
            head.is_some_and(|h| selector_tagged(h.view())) || selector_tagged(definition.view());
        if self.review.needs_review(principal, R::KIND, tagged, &changed) {
            let id = definition.id().to_owned();
            let proposed = self.propose(principal, head, definition, changed, note).await;
            if let (Err(_), Some(sealed)) = (&proposed, &sealed) {
                // No proposal names the new version.
                self.discard_secret(&id, sealed).await;
            }
            return proposed;
        }
        let action = match action {
            Action::Replace | Action::Patch
                if !changed.is_empty() && changed.iter().all(|p| p.starts_with("/lifecycle")) =>
            {
                Action::Lifecycle
            }
            other => other,
        };
        // Tool references are checked by the store, atomically with the write; its
        // `BadReferences` is mapped to the same per-path violations below.
        *definition.server_mut() = server_fields(principal, head);
        let (expected, outcome) = match head {
            Some(head) => (Expected::Version(head.version()), Outcome::Updated),
            None => (Expected::Absent, Outcome::Created),
        };
        let id = definition.id().to_owned();
        let change = Change::new(principal.name.clone(), action);
        let put = self.store().write(definition.into_definition(), expected, change).await;
        if let (Err(_), Some(sealed)) = (&put, &sealed) {
            // The new version is named by nothing stored (open proposals keep theirs).
            self.discard_secret(&id, sealed).await;
        }
        match put {
            Ok(stored) => {
                let stored = R::from_definition(stored).ok_or_else(|| {
                    ServiceError::Internal("store returned the wrong kind".into())
                })?;
                let replaced = Self::secret_of(head);
                self.trim_secrets(&id, replaced.as_ref(), Some(&stored)).await;
                Ok(Written { definition: stored.redact(), outcome, proposal: None })
            }
            Err(StoreError::BadReferences { missing, retired }) => {
                match checked.definition.view() {
                    DefinitionRef::Agent(agent) => Err(ServiceError::Invalid(
                        references::violations(agent, &missing, &retired),
                    )),
                    DefinitionRef::Tool(_) => {
                        Err(ServiceError::Internal("bad references on a tool".into()))
                    }
                }
            }
            Err(e) => Err(ServiceError::from_store(R::KIND, checked.definition.id(), e)),
        }
    }
}

/// Clears the server fields of `definition` and runs its domain validation, which
/// compiles rules: off the async workers, so a slow compile never holds up other
/// requests. `violations` are those already found.
async fn checked<R: Resource>(
    mut definition: R,
    mut violations: Vec<Violation>,
) -> Result<Checked<R>, ServiceError> {
    *definition.server_mut() = ServerFields::default();
    let (definition, found) = tokio::task::spawn_blocking(move || {
        let found = definition.validate();
        (definition, found)
    })
    .await
    .map_err(|e| ServiceError::Internal(format!("validation failed: {e}")))?;
    if let Err(found) = found {
        violations.extend(found);
    }
    Ok(Checked { definition, violations })
}

/// The server fields of a new version by `principal` over `head`.
fn server_fields<R: Resource>(principal: &Principal, head: Option<&R>) -> ServerFields {
    server_fields_for(&principal.name, head.map(Resource::server))
}

/// The server fields of a new version by `author` over a head with `head` server fields.
pub(crate) fn server_fields_for(author: &str, head: Option<&ServerFields>) -> ServerFields {
    let now = Utc::now().trunc_subsecs(3);
    match head {
        Some(head) => ServerFields {
            version: None,
            created_by: head.created_by.clone(),
            created_at: head.created_at,
            last_modified_by: Some(author.to_owned()),
            updated_at: Some(now),
            // Only publishing sets it; an edit keeps it (drift shows the change).
            publication: head.publication.clone(),
        },
        None => ServerFields {
            version: None,
            created_by: Some(author.to_owned()),
            created_at: Some(now),
            last_modified_by: Some(author.to_owned()),
            updated_at: Some(now),
            publication: None,
        },
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

/// Whether `definition` (server fields cleared) equals `head` apart from server fields;
/// if so it takes the head's server fields, and is the head.
fn same_content<R: Resource>(head: &R, definition: &mut R) -> bool {
    let cleared = std::mem::replace(definition.server_mut(), head.server().clone());
    let same = head == &*definition;
    if !same {
        *definition.server_mut() = cleared;
    }
    same
}
