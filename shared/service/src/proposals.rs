//! Proposals (SPEC section 17): a governed change by an editor waits here until another
//! principal with the `approver` (or `admin`) role approves it; it then applies
//! atomically, only if the served definition is still the version it was made against.

use chrono::{SubsecRound, Utc};
use registry_core::{Definition, Kind, ToolDefinition, Violation};
use registry_store::{
    Action, Approval, Change, Closing, EventDraft, Expected, PatchOp, Proposal, ProposalQuery,
    ProposalState, ProposalUpdate, StoreError, content_json, diff,
};
use serde::Serialize;

use crate::auth::{Principal, same_principal};
use crate::release_check::compare_tools;
use crate::review::can_approve;
use crate::sealed::secret_in;
use crate::write::{Outcome, Written, server_fields_for};
use crate::{Catalog, Comparison, DefinitionRef, Resource, ServiceError, references};

/// The longest note or rejection reason, in characters.
pub const MAX_NOTE_CHARS: usize = 2000;

/// A proposal as clients see it: secrets removed, with what it changes.
#[derive(Debug, Clone, PartialEq, Serialize, utoipa::ToSchema)]
#[serde(rename_all = "camelCase")]
pub struct ProposalView {
    /// Proposal id.
    pub id: String,
    /// `agent` or `tool`.
    #[schema(value_type = String)]
    pub kind: Kind,
    /// Id of the definition it changes.
    pub definition_id: String,
    /// The served version it was made against (absent: it creates the definition).
    #[serde(skip_serializing_if = "Option::is_none")]
    pub base_version: Option<u64>,
    /// The proposed definition (write-only secrets removed).
    #[schema(value_type = Object)]
    pub definition: serde_json::Value,
    /// Who proposed it.
    pub author: String,
    /// When, RFC 3339 UTC.
    pub created_at: chrono::DateTime<Utc>,
    /// The author's note.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub note: Option<String>,
    /// `open`, `approved`, `applied`, `rejected`, `cancelled` or `stale`.
    pub state: ProposalState,
    /// Approvals so far.
    pub approvals: Vec<Approval>,
    /// Approvals it needs (registry setting).
    pub required_approvals: u32,
    /// How it was closed.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub closed: Option<Closing>,
    /// The version it became.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub applied_version: Option<u64>,
    /// RFC 6902 operations from the base version to the proposed definition (server
    /// fields left out; `GET /proposals/{id}` only).
    #[serde(skip_serializing_if = "Option::is_none")]
    pub diff: Option<Vec<PatchOp>>,
    /// Tools: the interface changes from the base (`GET /proposals/{id}` only).
    #[serde(skip_serializing_if = "Option::is_none")]
    pub interface_changes: Option<Comparison>,
    /// Tools: what the release check refuses in it now (breaking changes to a release;
    /// `GET /proposals/{id}` only).
    #[serde(skip_serializing_if = "Option::is_none")]
    pub release_check: Option<Vec<Violation>>,
}

/// One page of proposals.
#[derive(Debug, Clone, PartialEq)]
pub struct ProposalPage {
    /// The proposals, oldest first.
    pub items: Vec<ProposalView>,
    /// The last id of the page when more may follow.
    pub next_cursor: Option<String>,
}

fn now() -> chrono::DateTime<Utc> {
    Utc::now().trunc_subsecs(3)
}

/// The event of `action` on `proposal` by `actor`.
fn draft(proposal: &Proposal, actor: &str, action: Action, changed: Vec<String>) -> EventDraft {
    EventDraft {
        actor: actor.to_owned(),
        action,
        kind: proposal.kind,
        id: proposal.definition_id.clone(),
        proposal: Some(proposal.id.clone()),
        version_before: proposal.base_version,
        version_after: None,
        changed,
    }
}

/// The proposed definition without its secrets, as JSON.
fn redacted(definition: &Definition) -> serde_json::Value {
    let value = match definition {
        Definition::Agent(a) => serde_json::to_value(a.clone().redact()),
        Definition::Tool(t) => serde_json::to_value(t.clone().redact()),
    };
    value.unwrap_or(serde_json::Value::Null)
}

/// A reason or note: trimmed, at most [`MAX_NOTE_CHARS`].
fn text(path: &str, value: Option<&str>, required: bool) -> Result<Option<String>, ServiceError> {
    let value = value.map(str::trim).filter(|v| !v.is_empty());
    match value {
        None if required => Err(ServiceError::invalid(path, "is required")),
        Some(v) if v.chars().count() > MAX_NOTE_CHARS => {
            Err(ServiceError::invalid(path, format!("must be at most {MAX_NOTE_CHARS} characters")))
        }
        v => Ok(v.map(str::to_owned)),
    }
}

impl Catalog {
    /// Stores `definition` (checked, its secrets taken) as a proposal over `head`
    /// instead of writing it.
    pub(crate) async fn propose<R: Resource>(
        &self,
        principal: &Principal,
        head: Option<&R>,
        mut definition: R,
        changed: Vec<String>,
        note: Option<&str>,
    ) -> Result<Written<R>, ServiceError> {
        let note = text("/note", note, false)?;
        *definition.server_mut() = Default::default();
        let stored = definition
            .clone()
            .into_definition()
            .storage_json()
            .map_err(|e| ServiceError::Internal(e.to_string()))?;
        let proposal = Proposal {
            id: uuid::Uuid::now_v7().to_string(),
            kind: R::KIND,
            definition_id: definition.id().to_owned(),
            base_version: head.map(Resource::version),
            definition: stored,
            author: principal.name.clone(),
            created_at: now(),
            note,
            state: ProposalState::Open,
            approvals: Vec::new(),
            closed: None,
            applied_version: None,
            revision: 0,
        };
        let event = draft(&proposal, &principal.name, Action::ProposalOpened, changed);
        let saved = self
            .store()
            .save_proposal(proposal, None, event)
            .await
            .map_err(|e| ServiceError::from_store(R::KIND, definition.id(), e))?;
        Ok(Written {
            definition: definition.redact(),
            outcome: Outcome::Proposed,
            proposal: Some(Box::new(self.proposal_view(saved, false).await?)),
        })
    }

    /// The stored proposal `id`.
    async fn load_proposal(&self, id: &str) -> Result<Proposal, ServiceError> {
        self.store()
            .proposal(id)
            .await
            .map_err(|e| ServiceError::from_store(Kind::Tool, id, e))?
            .ok_or_else(|| ServiceError::ProposalNotFound(id.to_owned()))
    }

    /// The client view of `proposal`; `detailed` adds the diff and, for tools, the
    /// interface changes and release check.
    async fn proposal_view(
        &self,
        proposal: Proposal,
        detailed: bool,
    ) -> Result<ProposalView, ServiceError> {
        let proposed = proposal.proposed().map_err(|e| ServiceError::Internal(e.to_string()))?;
        let (mut changes, mut interface, mut release) = (None, None, None);
        if detailed {
            let base = match proposal.base_version {
                Some(v) => {
                    self.store().version(proposal.kind, &proposal.definition_id, v).await.map_err(
                        |e| ServiceError::from_store(proposal.kind, &proposal.definition_id, e),
                    )?
                }
                None => None,
            };
            let empty = serde_json::Value::Object(Default::default());
            let before = base.as_ref().map_or(empty, content_json);
            changes = Some(diff(&before, &content_json(&proposed)));
            if let Definition::Tool(tool) = &proposed {
                let base_tool = match &base {
                    Some(Definition::Tool(t)) => Some(t),
                    _ => None,
                };
                let from = match base_tool {
                    Some(t) => t.clone(),
                    None => ToolDefinition { function_schema: None, types: None, ..tool.clone() },
                };
                interface = Some(compare_tools(&from, tool));
                release = Some(self.release_violations(tool, base_tool).await?);
            }
        }
        Ok(ProposalView {
            definition: redacted(&proposed),
            id: proposal.id,
            kind: proposal.kind,
            definition_id: proposal.definition_id,
            base_version: proposal.base_version,
            author: proposal.author,
            created_at: proposal.created_at,
            note: proposal.note,
            state: proposal.state,
            approvals: proposal.approvals,
            required_approvals: self.review.approvals.max(1),
            closed: proposal.closed,
            applied_version: proposal.applied_version,
            diff: changes,
            interface_changes: interface,
            release_check: release,
        })
    }

    /// One proposal with its diff from the base (any role).
    pub async fn proposal(&self, id: &str) -> Result<ProposalView, ServiceError> {
        let proposal = self.load_proposal(id).await?;
        self.proposal_view(proposal, true).await
    }

    /// One page of proposals, oldest first (any role).
    pub async fn proposals(&self, query: &ProposalQuery) -> Result<ProposalPage, ServiceError> {
        let page = self
            .store()
            .proposals(query)
            .await
            .map_err(|e| ServiceError::from_store(Kind::Tool, "", e))?;
        let mut items = Vec::with_capacity(page.items.len());
        for proposal in page.items {
            items.push(self.proposal_view(proposal, false).await?);
        }
        Ok(ProposalPage { items, next_cursor: page.next_cursor })
    }

    /// Saves `next` over `current` (its stored revision) with an event.
    async fn save_over(
        &self,
        current: &Proposal,
        next: Proposal,
        event: EventDraft,
    ) -> Result<Proposal, ServiceError> {
        match self.store().save_proposal(next, Some(current.revision), event).await {
            Ok(saved) => Ok(saved),
            Err(StoreError::VersionMismatch { .. } | StoreError::NotFound) => {
                Err(ServiceError::ProposalConflict(format!(
                    "proposal `{}` changed concurrently; read it again",
                    current.id
                )))
            }
            Err(e) => Err(ServiceError::from_store(current.kind, &current.definition_id, e)),
        }
    }

    /// Fails unless `proposal` is open (or approved and not yet applied).
    fn still_pending(proposal: &Proposal, what: &str) -> Result<(), ServiceError> {
        match proposal.state {
            ProposalState::Open | ProposalState::Approved => Ok(()),
            state => Err(ServiceError::ProposalConflict(format!(
                "proposal `{}` is {}; only an open proposal can be {what}",
                proposal.id,
                state.as_str()
            ))),
        }
    }

    /// Approves proposal `id` (approver or admin, never its author). With enough
    /// approvals it applies, atomically and only if the definition is still at its base
    /// version; otherwise it becomes `stale` (a conflict). A caller who finds it approved
    /// by another (a race lost) finishes applying it in that approver's name and is
    /// answered a conflict: the answer's approver is always the one recorded.
    pub async fn approve(
        &self,
        principal: &Principal,
        id: &str,
    ) -> Result<ProposalView, ServiceError> {
        if !can_approve(principal) {
            return Err(ServiceError::Forbidden(format!(
                "the `approver` or `admin` role is needed to approve proposals; `{}` has `{}`",
                principal.name,
                principal.role.as_str()
            )));
        }
        let proposal = self.load_proposal(id).await?;
        if same_principal(&proposal.author, &principal.name) {
            return Err(ServiceError::Forbidden(format!(
                "`{}` proposed `{id}`: its author cannot approve it; another approver must",
                principal.name
            )));
        }
        Self::still_pending(&proposal, "approved")?;
        let mut current = proposal;
        if current.state == ProposalState::Open {
            if current.approvals.iter().any(|a| same_principal(&a.by, &principal.name)) {
                return Err(ServiceError::ProposalConflict(format!(
                    "`{}` approved proposal `{id}` already; it needs another approver",
                    principal.name
                )));
            }
            let mut next = current.clone();
            next.approvals.push(Approval { by: principal.name.clone(), at: now() });
            if next.approvals.len() >= self.review.approvals.max(1) as usize {
                next.state = ProposalState::Approved;
            }
            let event = draft(&current, &principal.name, Action::ProposalApproved, Vec::new());
            current = self.save_over(&current, next, event).await?;
        }
        if current.state == ProposalState::Approved {
            // Whoever finishes it (this caller, or another racing or retrying after a
            // failure), it is applied in the name of the approval that completed it; only
            // that approver is answered as having approved it.
            let completed_by = current.approvals.last().map(|a| a.by.clone()).unwrap_or_default();
            let mine = same_principal(&completed_by, &principal.name);
            let applied = self.apply_proposal(current).await;
            current = match (applied, mine) {
                (Ok(applied), true) => applied,
                // another caller finished applying this approval first
                (Err(ServiceError::ProposalConflict(why)), true) => {
                    let now = self.load_proposal(id).await?;
                    let completed = now.approvals.last().map(|a| a.by.as_str());
                    if now.state != ProposalState::Applied
                        || !completed.is_some_and(|by| same_principal(by, &principal.name))
                    {
                        return Err(ServiceError::ProposalConflict(why));
                    }
                    now
                }
                (Err(e), _) => return Err(e),
                (Ok(_), false) => {
                    return Err(ServiceError::ProposalConflict(format!(
                        "`{completed_by}` approved proposal `{id}` already; it is applied in \
                         their name, not approved by `{}`",
                        principal.name
                    )));
                }
            };
        }
        self.proposal_view(current, false).await
    }

    /// Writes an approved proposal's definition, with the proposal's new state, in one
    /// transaction, in the name of the approval that completed it (its last); a moved
    /// definition makes it stale. Once applied, the vault keeps only the secret the
    /// applied definition names.
    async fn apply_proposal(&self, proposal: Proposal) -> Result<Proposal, ServiceError> {
        let (kind, id) = (proposal.kind, proposal.definition_id.clone());
        let store_err = |e| ServiceError::from_store(kind, &id, e);
        let applier = proposal.approvals.last().map(|a| a.by.clone()).ok_or_else(|| {
            ServiceError::Internal(format!("proposal `{}` is approved by no one", proposal.id))
        })?;
        let head = self.store().get_shared(kind, &id).await.map_err(store_err)?;
        let live = head.as_ref().map(|h| h.version());
        if live != proposal.base_version {
            return self.make_stale(&applier, proposal, live).await;
        }
        let replaced = head.as_deref().and_then(secret_in);
        let mut definition =
            proposal.proposed().map_err(|e| ServiceError::Internal(e.to_string()))?;
        if let Definition::Agent(agent) = &definition {
            let refused = references::check_ranges(self.store().as_ref(), agent).await?;
            if !refused.is_empty() {
                return Err(ServiceError::Invalid(refused));
            }
        }
        *definition.server_mut() =
            server_fields_for(&proposal.author, head.as_deref().map(Definition::server));
        let expected = proposal.base_version.map_or(Expected::Absent, Expected::Version);
        let mut applied = proposal.clone();
        applied.state = ProposalState::Applied;
        applied.applied_version = proposal.base_version.map(|v| v + 1);
        applied.closed = Some(Closing { by: applier.clone(), at: now(), reason: None });
        let change = Change {
            actor: applier.clone(),
            action: Action::ProposalApplied,
            proposal: Some(ProposalUpdate {
                proposal: applied.clone(),
                expected_revision: proposal.revision,
            }),
        };
        match self.store().write(definition, expected, change).await {
            Ok(stored) => {
                applied.revision = proposal.revision + 1;
                applied.applied_version = Some(stored.version());
                self.trim_vault(kind, &id, replaced.as_ref(), secret_in(&stored)).await;
                Ok(applied)
            }
            Err(StoreError::VersionMismatch { .. } | StoreError::AlreadyExists { .. }) => {
                let now = self.load_proposal(&proposal.id).await?;
                if now.revision != proposal.revision {
                    return Err(ServiceError::ProposalConflict(format!(
                        "proposal `{}` changed concurrently; read it again",
                        proposal.id
                    )));
                }
                let live = self.store().get(kind, &id).await.map_err(store_err)?;
                self.make_stale(&applier, proposal, live.map(|d| d.version())).await
            }
            Err(StoreError::BadReferences { missing, retired }) => match proposal.proposed() {
                Ok(Definition::Agent(agent)) => {
                    Err(ServiceError::Invalid(references::violations(&agent, &missing, &retired)))
                }
                _ => Err(ServiceError::Internal("bad references on a tool".into())),
            },
            Err(e) => Err(store_err(e)),
        }
    }

    /// Records that `proposal` can no longer apply (the definition is at `live`) in the
    /// name of `actor`, drops the secret it brought, and reports it as a conflict.
    async fn make_stale(
        &self,
        actor: &str,
        proposal: Proposal,
        live: Option<u64>,
    ) -> Result<Proposal, ServiceError> {
        let served = live.map_or_else(|| "not live".to_owned(), |v| format!("at version {v}"));
        let base =
            proposal.base_version.map_or_else(|| "absent".to_owned(), |v| format!("version {v}"));
        let reason = format!(
            "{} `{}` is {served}, but the proposal was made against {base}: propose the change again",
            proposal.kind.as_str(),
            proposal.definition_id
        );
        let mut stale = proposal.clone();
        stale.state = ProposalState::Stale;
        stale.closed =
            Some(Closing { by: actor.to_owned(), at: now(), reason: Some(reason.clone()) });
        let event = draft(&proposal, actor, Action::ProposalStale, Vec::new());
        let saved = self.save_over(&proposal, stale, event).await?;
        self.drop_proposal_secret(&saved).await;
        Err(ServiceError::ProposalConflict(format!(
            "proposal `{}` is stale and was not applied: {reason}",
            proposal.id
        )))
    }

    /// Rejects proposal `id` with a reason (approver or admin).
    pub async fn reject(
        &self,
        principal: &Principal,
        id: &str,
        reason: Option<&str>,
    ) -> Result<ProposalView, ServiceError> {
        if !can_approve(principal) {
            return Err(ServiceError::Forbidden(format!(
                "the `approver` or `admin` role is needed to reject proposals; `{}` has `{}`",
                principal.name,
                principal.role.as_str()
            )));
        }
        let reason = text("/reason", reason, true)?;
        let proposal = self.load_proposal(id).await?;
        Self::still_pending(&proposal, "rejected")?;
        let mut next = proposal.clone();
        next.state = ProposalState::Rejected;
        next.closed = Some(Closing { by: principal.name.clone(), at: now(), reason });
        let event = draft(&proposal, &principal.name, Action::ProposalRejected, Vec::new());
        let saved = self.save_over(&proposal, next, event).await?;
        self.drop_proposal_secret(&saved).await;
        self.proposal_view(saved, false).await
    }

    /// Cancels proposal `id` (its author only).
    pub async fn cancel(
        &self,
        principal: &Principal,
        id: &str,
    ) -> Result<ProposalView, ServiceError> {
        let proposal = self.load_proposal(id).await?;
        if !same_principal(&proposal.author, &principal.name) {
            return Err(ServiceError::Forbidden(format!(
                "only the author of proposal `{id}` (`{}`) can cancel it",
                proposal.author
            )));
        }
        Self::still_pending(&proposal, "cancelled")?;
        let mut next = proposal.clone();
        next.state = ProposalState::Cancelled;
        next.closed = Some(Closing { by: principal.name.clone(), at: now(), reason: None });
        let event = draft(&proposal, &principal.name, Action::ProposalCancelled, Vec::new());
        let saved = self.save_over(&proposal, next, event).await?;
        self.drop_proposal_secret(&saved).await;
        self.proposal_view(saved, false).await
    }
}

/// Whether `definition` (a view) carries the review selector tag.
pub(crate) fn selector_tagged(definition: DefinitionRef<'_>) -> bool {
    let tags = match definition {
        DefinitionRef::Agent(a) => a.tags.as_ref(),
        DefinitionRef::Tool(t) => t.tags.as_ref(),
    };
    crate::review::tagged(tags)
}
