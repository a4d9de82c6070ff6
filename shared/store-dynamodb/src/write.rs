//! Writes: every put and delete is one conditional `TransactWriteItems`.
//!
//! Item order in a transaction: head, then (put only) the version snapshot, then tag
//! items, then per referenced tool its reference item and its head check/update. The
//! cancellation reasons come back in the same order and are mapped by [`Role`].

use std::collections::BTreeSet;

use aws_sdk_dynamodb::operation::transact_write_items::TransactWriteItemsError;
use aws_sdk_dynamodb::types::{
    AttributeValue, ConditionCheck, Delete, Put, ReturnValuesOnConditionCheckFailure,
    TransactWriteItem, Update,
};
use registry_core::{Definition, Kind, LifecycleStatus};
use registry_store::{Action, Change, EventDraft, Expected, StoreError, changed_pointers};

use crate::DynamoStore;
use crate::backoff::Audited;
use crate::errors;
use crate::expr::Expr;
use crate::item::{self, Head, IndexFields, Item, get_s, n, s};
use crate::keys::*;

/// DynamoDB's limit on items in one transaction.
pub const MAX_TRANSACTION_ITEMS: usize = 100;

/// Cancellation reason codes that mean "run the whole operation again".
const RETRY_REASONS: &[&str] = &[
    "TransactionConflict",
    "ThrottlingError",
    "ProvisionedThroughputExceeded",
    "RequestLimitExceeded",
];

/// What an item of a transaction is, to interpret its cancellation reason.
#[derive(Debug, Clone)]
pub(crate) enum Role {
    Head,
    Snapshot,
    Other,
    /// Condition on a referenced tool's head (exists, live, not retired).
    Tool(String),
    /// The event sequence counter or the event item: another write took the number.
    Counter,
    /// A proposal item, conditional on its revision.
    Proposal,
}

/// A transaction being assembled.
#[derive(Debug, Default)]
pub(crate) struct Plan {
    items: Vec<TransactWriteItem>,
    roles: Vec<Role>,
}

/// One failed item of a cancelled transaction.
#[derive(Debug)]
pub(crate) struct Failure {
    pub(crate) role: Role,
    code: String,
    message: String,
    /// The item as it was (`ALL_OLD`), when the condition failed on an existing item.
    old: Option<Item>,
}

/// How a transaction ended.
pub(crate) enum Outcome {
    Committed,
    /// Conflict with a concurrent transaction or throttled: run the operation again.
    Retry(String),
    /// Conditions failed.
    Cancelled(Vec<Failure>),
}

pub(crate) fn build_err(e: impl std::fmt::Display) -> StoreError {
    StoreError::Backend(format!("building request: {e}"))
}

impl Plan {
    pub(crate) fn push(&mut self, item: TransactWriteItem, role: Role) {
        self.items.push(item);
        self.roles.push(role);
    }

    pub(crate) fn put(
        &mut self,
        table: &str,
        item: Item,
        condition: Option<(String, Expr)>,
        role: Role,
    ) -> Result<(), StoreError> {
        let mut put = Put::builder().table_name(table).set_item(Some(item));
        if let Some((condition, expr)) = condition {
            put = put
                .condition_expression(condition)
                .set_expression_attribute_names(expr.names())
                .set_expression_attribute_values(expr.values());
        }
        let put = put.build().map_err(build_err)?;
        self.push(TransactWriteItem::builder().put(put).build(), role);
        Ok(())
    }

    /// Puts `item`, which must not exist yet.
    pub(crate) fn put_new(
        &mut self,
        table: &str,
        item: Item,
        role: Role,
    ) -> Result<(), StoreError> {
        let mut expr = Expr::default();
        let condition = format!("attribute_not_exists({})", expr.name(PK));
        self.put(table, item, Some((condition, expr)), role)
    }

    /// Updates the head item of `kind` `id` where `condition` holds.
    fn update_head(
        &mut self,
        table: &str,
        kind: Kind,
        id: &str,
        update: String,
        condition: String,
        expr: Expr,
    ) -> Result<(), StoreError> {
        let key = item::key(pk(kind, id), HEAD_SK);
        self.update(table, key, update, Some(condition), expr, Role::Head)
    }

    fn delete(&mut self, table: &str, key: Item) -> Result<(), StoreError> {
        let delete =
            Delete::builder().table_name(table).set_key(Some(key)).build().map_err(build_err)?;
        self.push(TransactWriteItem::builder().delete(delete).build(), Role::Other);
        Ok(())
    }

    pub(crate) fn update(
        &mut self,
        table: &str,
        key: Item,
        update: String,
        condition: Option<String>,
        expr: Expr,
        role: Role,
    ) -> Result<(), StoreError> {
        let has_condition = condition.is_some();
        let mut builder = Update::builder()
            .table_name(table)
            .set_key(Some(key))
            .update_expression(update)
            .set_condition_expression(condition)
            .set_expression_attribute_names(expr.names())
            .set_expression_attribute_values(expr.values());
        if has_condition {
            builder = builder.return_values_on_condition_check_failure(
                ReturnValuesOnConditionCheckFailure::AllOld,
            );
        }
        self.push(
            TransactWriteItem::builder().update(builder.build().map_err(build_err)?).build(),
            role,
        );
        Ok(())
    }

    /// Requires a referenced tool head to exist, be live and not retired.
    fn bindable_condition(expr: &mut Expr) -> String {
        let retired = expr.value(s(LifecycleStatus::Retired.as_str()));
        format!(
            "attribute_exists({}) AND attribute_not_exists({}) AND {} <> {retired}",
            expr.name(PK),
            expr.name(DELETED),
            expr.name(STATUS)
        )
    }

    /// Adds a reference from `agent_id` to `tool_id`: reference item + counted,
    /// conditional update of the tool head.
    fn add_reference(
        &mut self,
        table: &str,
        tool_id: &str,
        agent_id: &str,
    ) -> Result<(), StoreError> {
        self.put(table, item::ref_item(tool_id, agent_id), None, Role::Other)?;
        let mut expr = Expr::default();
        let update = format!("ADD {} {}", expr.name(REF_COUNT), expr.value(n(1)));
        let condition = Self::bindable_condition(&mut expr);
        let key = item::key(pk(Kind::Tool, tool_id), HEAD_SK);
        self.update(table, key, update, Some(condition), expr, Role::Tool(tool_id.to_owned()))
    }

    /// Removes a reference: deletes the reference item, decrements the tool head's count.
    fn remove_reference(
        &mut self,
        table: &str,
        tool_id: &str,
        agent_id: &str,
    ) -> Result<(), StoreError> {
        self.delete(table, item::key(pk(Kind::Tool, tool_id), ref_sk(agent_id)))?;
        let mut expr = Expr::default();
        let update = format!("ADD {} {}", expr.name(REF_COUNT), expr.value(n(-1)));
        let key = item::key(pk(Kind::Tool, tool_id), HEAD_SK);
        self.update(table, key, update, None, expr, Role::Other)
    }

    /// Keeps a reference: the tool must still be bindable.
    fn check_reference(&mut self, table: &str, tool_id: &str) -> Result<(), StoreError> {
        let mut expr = Expr::default();
        let condition = Self::bindable_condition(&mut expr);
        let check = ConditionCheck::builder()
            .table_name(table)
            .set_key(Some(item::key(pk(Kind::Tool, tool_id), HEAD_SK)))
            .condition_expression(condition)
            .set_expression_attribute_names(expr.names())
            .set_expression_attribute_values(expr.values())
            .return_values_on_condition_check_failure(ReturnValuesOnConditionCheckFailure::AllOld)
            .build()
            .map_err(build_err)?;
        self.push(
            TransactWriteItem::builder().condition_check(check).build(),
            Role::Tool(tool_id.to_owned()),
        );
        Ok(())
    }

    /// Condition on the head: exactly the state read before planning.
    fn head_condition(expr: &mut Expr, head: Option<&Head>) -> String {
        match head {
            None => format!("attribute_not_exists({})", expr.name(PK)),
            Some(h) => {
                let deleted = if h.deleted { "attribute_exists" } else { "attribute_not_exists" };
                format!(
                    "{} = {} AND {deleted}({})",
                    expr.name(VERSION),
                    expr.value(n(h.version)),
                    expr.name(DELETED)
                )
            }
        }
    }
}

impl DynamoStore {
    /// The head item of a definition (consistent read), live or tombstone.
    pub(crate) async fn read_head(&self, kind: Kind, id: &str) -> Result<Option<Head>, StoreError> {
        let out = self
            .client
            .get_item()
            .table_name(&self.table)
            .set_key(Some(item::key(pk(kind, id), HEAD_SK)))
            .consistent_read(true)
            .send()
            .await
            .map_err(|e| errors::sdk("GetItem", e))?;
        out.item.as_ref().map(Head::from_item).transpose()
    }

    /// See [`registry_store::Store::put`].
    pub(crate) async fn put_definition(
        &self,
        mut definition: Definition,
        expected: Expected,
        change: Change,
    ) -> Result<Definition, StoreError> {
        let kind = definition.kind();
        let id = definition.id().to_owned();
        let mut retry = Audited::new("write");
        while retry.next().await {
            let (head, seq) = tokio::try_join!(self.read_head(kind, &id), self.read_seq())?;
            let live = head.as_ref().and_then(Head::live_version);
            match (expected, live) {
                (Expected::Absent, Some(current)) => {
                    return Err(StoreError::AlreadyExists { current });
                }
                (Expected::Version(expected), None) => {
                    return Err(StoreError::VersionMismatch { expected, current: None });
                }
                (Expected::Version(expected), Some(current)) if current != expected => {
                    return Err(StoreError::VersionMismatch { expected, current: Some(current) });
                }
                _ => {}
            }
            let version = head.as_ref().map_or(0, |h| h.version) + 1;
            definition.server_mut().version = Some(version);
            let mut plan = self.plan_put(&definition, head.as_ref())?;
            let before = match &head {
                Some(h) => h.definition(&self.decoded, kind, &id)?,
                None => None,
            };
            let proposal = match &change.proposal {
                Some(update) => {
                    plan.put_proposal(
                        &self.table,
                        &update.proposal,
                        Some(update.expected_revision),
                    )?;
                    Some(update.proposal.id.clone())
                }
                None => None,
            };
            let draft = EventDraft {
                actor: change.actor.clone(),
                action: change.action,
                kind,
                id: id.clone(),
                proposal,
                version_before: live,
                version_after: Some(version),
                changed: changed_pointers(before.as_ref(), Some(&definition)),
            };
            plan.append_event(&self.table, seq, draft)?;
            match self.transact(plan).await? {
                Outcome::Committed => return Ok(definition),
                Outcome::Retry(why) => retry.conflict(why),
                Outcome::Cancelled(failures) => {
                    if !failures.iter().any(|f| matches!(f.role, Role::Head))
                        && failures.iter().any(|f| matches!(f.role, Role::Proposal))
                    {
                        let update = change.proposal.as_ref();
                        let (pid, rev) = update
                            .map(|u| (u.proposal.id.as_str(), Some(u.expected_revision)))
                            .unwrap_or_default();
                        return Err(self.proposal_error(pid, rev).await);
                    }
                    let (counter, rest): (Vec<Failure>, Vec<Failure>) =
                        failures.into_iter().partition(|f| matches!(f.role, Role::Counter));
                    if rest.is_empty() && !counter.is_empty() {
                        retry.lost_sequence();
                        continue;
                    }
                    match put_failure(&rest, expected)? {
                        Some(err) => return Err(err),
                        None => retry.conflict("the definition changed concurrently"),
                    }
                }
            }
        }
        Err(retry.gave_up())
    }

    fn plan_put(&self, definition: &Definition, head: Option<&Head>) -> Result<Plan, StoreError> {
        let kind = definition.kind();
        let id = definition.id();
        let version = definition.version();
        let doc = item::encode_doc(definition)?;
        let fields = IndexFields::of(definition);
        let old = match head {
            Some(h) => h.definition(&self.decoded, kind, id)?,
            None => None,
        };
        let mut plan = Plan::default();

        // Head: an update, so a tool's refCount (owned by agents' writes) is kept.
        let mut expr = Expr::default();
        let mut set = vec![
            format!("{} = {}", expr.name(DOC), expr.value(s(&doc))),
            format!("{} = {}", expr.name(VERSION), expr.value(n(version))),
            format!("{} = {}", expr.name(KIND), expr.value(s(kind.as_str()))),
            format!("{} = {}", expr.name(ID), expr.value(s(id))),
            format!("{} = {}", expr.name(STATUS), expr.value(s(fields.status))),
            format!("{} = {}", expr.name(G_KIND), expr.value(s(kind.as_str()))),
            format!("{} = {}", expr.name(G_STATUS), expr.value(s(g_value(kind, fields.status)))),
        ];
        let mut remove = vec![expr.name(DELETED)];
        match fields.execution_type {
            Some(e) => {
                set.push(format!("{} = {}", expr.name(EXEC), expr.value(s(e))));
                set.push(format!("{} = {}", expr.name(G_EXEC), expr.value(s(g_value(kind, e)))));
            }
            None => remove.extend([expr.name(EXEC), expr.name(G_EXEC)]),
        }
        match &fields.created_by {
            Some(c) => {
                set.push(format!("{} = {}", expr.name(CREATED_BY), expr.value(s(c))));
                set.push(format!(
                    "{} = {}",
                    expr.name(G_CREATED_BY),
                    expr.value(s(g_created_by(kind, c)))
                ));
            }
            None => remove.extend([expr.name(CREATED_BY), expr.name(G_CREATED_BY)]),
        }
        let new_refs = definition.references();
        if kind == Kind::Agent {
            let list = new_refs.iter().map(s).collect();
            set.push(format!("{} = {}", expr.name(REFS), expr.value(AttributeValue::L(list))));
        }
        let update = format!("SET {} REMOVE {}", set.join(", "), remove.join(", "));
        let condition = Plan::head_condition(&mut expr, head);
        plan.update_head(&self.table, kind, id, update, condition, expr)?;

        // Immutable snapshot.
        plan.put_new(&self.table, item::snapshot_item(kind, id, version, &doc), Role::Snapshot)?;

        // Tag items: only the ones whose content changes.
        let old_tags = old.as_ref().map(item::tag_entries).unwrap_or_default();
        let new_tags = item::tag_entries(definition);
        for (key, entry) in &new_tags {
            if old_tags.get(key) != Some(entry) {
                plan.put(&self.table, item::tag_item(kind, id, key, entry), None, Role::Other)?;
            }
        }
        for key in old_tags.keys().filter(|k| !new_tags.contains_key(*k)) {
            plan.delete(&self.table, item::key(pk(kind, id), tag_sk(key)))?;
        }

        // References: counted on the tool heads, conditional on the tools being bindable.
        if kind == Kind::Agent {
            let old_refs: BTreeSet<&String> = match head {
                Some(h) if !h.deleted => h.refs.iter().collect(),
                _ => BTreeSet::new(),
            };
            let new_refs: BTreeSet<&String> = new_refs.iter().collect();
            for tool in &new_refs {
                if old_refs.contains(tool) {
                    plan.check_reference(&self.table, tool)?;
                } else {
                    plan.add_reference(&self.table, tool, id)?;
                }
            }
            for tool in old_refs.difference(&new_refs) {
                plan.remove_reference(&self.table, tool, id)?;
            }
        }
        Ok(plan)
    }

    /// See [`registry_store::Store::delete`].
    pub(crate) async fn delete_definition(
        &self,
        kind: Kind,
        id: &str,
        expected: u64,
        actor: &str,
    ) -> Result<(), StoreError> {
        let mut retry = Audited::new("delete");
        while retry.next().await {
            let (head, seq) = tokio::try_join!(self.read_head(kind, id), self.read_seq())?;
            let Some(head) = head.filter(|h| !h.deleted) else {
                return Err(StoreError::NotFound);
            };
            if head.version != expected {
                return Err(StoreError::VersionMismatch { expected, current: Some(head.version) });
            }
            if kind == Kind::Tool
                && head.ref_count > 0
                && head.status.as_deref() != Some(LifecycleStatus::Retired.as_str())
            {
                return Err(StoreError::InUse { agents: self.referrers_of(id).await? });
            }
            let mut plan = self.plan_delete(kind, id, &head)?;
            let draft = EventDraft {
                actor: actor.to_owned(),
                action: Action::Delete,
                kind,
                id: id.to_owned(),
                proposal: None,
                version_before: Some(head.version),
                version_after: None,
                changed: Vec::new(),
            };
            plan.append_event(&self.table, seq, draft)?;
            match self.transact(plan).await? {
                Outcome::Committed => return Ok(()),
                Outcome::Retry(why) => retry.conflict(why),
                Outcome::Cancelled(failures) => {
                    let (counter, failures): (Vec<Failure>, Vec<Failure>) =
                        failures.into_iter().partition(|f| matches!(f.role, Role::Counter));
                    if failures.is_empty() && !counter.is_empty() {
                        retry.lost_sequence();
                        continue;
                    }
                    match self.delete_failure(&failures, id, expected).await? {
                        Some(err) => return Err(err),
                        None => retry.conflict("the definition changed concurrently"),
                    }
                }
            }
        }
        Err(retry.gave_up())
    }

    fn plan_delete(&self, kind: Kind, id: &str, head: &Head) -> Result<Plan, StoreError> {
        let mut plan = Plan::default();
        let mut expr = Expr::default();
        let update = format!(
            "SET {} = {} REMOVE {}",
            expr.name(DELETED),
            expr.value(AttributeValue::Bool(true)),
            [DOC, STATUS, EXEC, CREATED_BY, REFS, G_KIND, G_STATUS, G_EXEC, G_CREATED_BY]
                .map(|a| expr.name(a))
                .join(", ")
        );
        let mut condition = Plan::head_condition(&mut expr, Some(head));
        if kind == Kind::Tool {
            condition = format!(
                "{condition} AND (attribute_not_exists({rc}) OR {rc} <= {zero} OR {st} = {retired})",
                rc = expr.name(REF_COUNT),
                zero = expr.value(n(0)),
                st = expr.name(STATUS),
                retired = expr.value(s(LifecycleStatus::Retired.as_str())),
            );
        }
        plan.update_head(&self.table, kind, id, update, condition, expr)?;
        if let Some(old) = head.definition(&self.decoded, kind, id)? {
            for key in item::tag_entries(&old).keys() {
                plan.delete(&self.table, item::key(pk(kind, id), tag_sk(key)))?;
            }
        }
        for tool in &head.refs {
            plan.remove_reference(&self.table, tool, id)?;
        }
        Ok(plan)
    }

    /// Sends a planned transaction and classifies how it ended.
    pub(crate) async fn transact(&self, plan: Plan) -> Result<Outcome, StoreError> {
        if plan.items.len() > MAX_TRANSACTION_ITEMS {
            return Err(StoreError::TooLarge(format!(
                "this change needs {} DynamoDB transaction items (head, snapshot, changed tags, added, removed and kept tool references); at most {MAX_TRANSACTION_ITEMS} fit in one atomic write: change fewer tools or tags at once",
                plan.items.len()
            )));
        }
        let sent =
            self.client.transact_write_items().set_transact_items(Some(plan.items)).send().await;
        let err = match sent {
            Ok(_) => return Ok(Outcome::Committed),
            Err(err) => err,
        };
        let Some(TransactWriteItemsError::TransactionCanceledException(cancelled)) =
            err.as_service_error()
        else {
            return Err(errors::sdk("TransactWriteItems", err));
        };
        let mut failures = Vec::new();
        for (reason, role) in cancelled.cancellation_reasons().iter().zip(plan.roles) {
            let code = reason.code().unwrap_or("None");
            if code == "None" {
                continue;
            }
            if RETRY_REASONS.contains(&code) || errors::is_transient(code) {
                return Ok(Outcome::Retry(code.to_owned()));
            }
            failures.push(Failure {
                role,
                code: code.to_owned(),
                message: reason.message().unwrap_or_default().to_owned(),
                old: reason.item().cloned(),
            });
        }
        if failures.is_empty() {
            return Err(StoreError::Backend(format!(
                "transaction cancelled without reasons: {}",
                cancelled.message().unwrap_or_default()
            )));
        }
        Ok(Outcome::Cancelled(failures))
    }

    /// Maps failed conditions of a delete; `None` means "re-read and try again".
    async fn delete_failure(
        &self,
        failures: &[Failure],
        id: &str,
        expected: u64,
    ) -> Result<Option<StoreError>, StoreError> {
        for failure in failures {
            check_code(failure)?;
            if let Role::Head = failure.role {
                let Some(old) = &failure.old else { return Ok(Some(StoreError::NotFound)) };
                let head = Head::from_item(old)?;
                if head.deleted {
                    return Ok(Some(StoreError::NotFound));
                }
                if head.version != expected {
                    return Ok(Some(StoreError::VersionMismatch {
                        expected,
                        current: Some(head.version),
                    }));
                }
                // Right version, live: only the tool's reference condition can have failed.
                if head.ref_count > 0 {
                    return Ok(Some(StoreError::InUse { agents: self.referrers_of(id).await? }));
                }
                return Ok(None);
            }
        }
        Err(unexpected(failures))
    }
}

/// Only failed conditions are expected; anything else is a backend error.
pub(crate) fn check_code(failure: &Failure) -> Result<(), StoreError> {
    if failure.code == "ConditionalCheckFailed" {
        Ok(())
    } else {
        Err(StoreError::Backend(format!(
            "transaction item failed: {}: {}",
            failure.code, failure.message
        )))
    }
}

pub(crate) fn unexpected(failures: &[Failure]) -> StoreError {
    StoreError::Backend(format!("unexpected transaction failure: {failures:?}"))
}

/// Maps failed conditions of a put; `Ok(None)` means "re-read and try again".
fn put_failure(failures: &[Failure], expected: Expected) -> Result<Option<StoreError>, StoreError> {
    for failure in failures {
        check_code(failure)?;
    }
    // The head's condition decides first: a stale version makes reference errors moot.
    if let Some(failure) = failures.iter().find(|f| matches!(f.role, Role::Head)) {
        let live =
            failure.old.as_ref().map(Head::from_item).transpose()?.and_then(|h| h.live_version());
        return Ok(match (expected, live) {
            (Expected::Absent, Some(current)) => Some(StoreError::AlreadyExists { current }),
            (Expected::Absent, None) => None,
            (Expected::Version(expected), current) => {
                Some(StoreError::VersionMismatch { expected, current })
            }
        });
    }
    if failures.iter().any(|f| matches!(f.role, Role::Snapshot)) {
        return Err(StoreError::Backend(
            "version snapshot exists already: head and history disagree".into(),
        ));
    }
    let (mut missing, mut retired) = (Vec::new(), Vec::new());
    for failure in failures {
        let Role::Tool(tool) = &failure.role else { return Err(unexpected(failures)) };
        let old = failure.old.as_ref();
        let live = old.is_some_and(|o| !o.contains_key(DELETED));
        if live && old.and_then(|o| get_s(o, STATUS)) == Some(LifecycleStatus::Retired.as_str()) {
            retired.push(tool.clone());
        } else {
            missing.push(tool.clone());
        }
    }
    missing.sort();
    retired.sort();
    Ok(Some(StoreError::BadReferences { missing, retired }))
}
