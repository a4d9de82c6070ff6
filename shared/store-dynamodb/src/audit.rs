//! The event stream and proposals on the single table.
//!
//! Events live in partition `EVENTS`: a counter item (`#SEQ`, attribute `seq`) and one
//! item per event (`E#<seq, 20 digits>`). Every write reads the counter, then in its
//! `TransactWriteItems` moves the counter from that value to the next (conditionally)
//! and puts the event item: two writes that read the same counter cannot both commit,
//! so sequence numbers follow commit order without gaps. Proposals live in partition
//! `PROPOSALS` (`P#<id>`), each written conditionally on its `revision`.

use chrono::{SubsecRound, Utc};
use registry_store::{
    Event, EventDraft, EventPage, EventQuery, Page, Proposal, ProposalQuery, StoreError,
    event_page_size,
};

use crate::DynamoStore;
use crate::backoff::Audited;
use crate::errors;
use crate::expr::Expr;
use crate::item::{self, Item, get_n, get_s, n, s};
use crate::keys::*;
use crate::write::{Failure, Outcome, Plan, Role, check_code, unexpected};

fn corrupt(what: &str, e: impl std::fmt::Display) -> StoreError {
    StoreError::Backend(format!("stored {what} is unreadable: {e}"))
}

/// The item of one event: its document plus the attributes filters and the stream
/// forwarder read.
fn event_item(event: &Event) -> Result<Item, StoreError> {
    let doc = serde_json::to_string(event).map_err(|e| corrupt("event", e))?;
    Ok(Item::from([
        (PK.to_owned(), s(EVENTS_PK)),
        (SK.to_owned(), s(event_sk(event.seq))),
        (SEQ.to_owned(), n(event.seq)),
        (KIND.to_owned(), s(event.kind.as_str())),
        (ID.to_owned(), s(&event.id)),
        (ACTOR.to_owned(), s(&event.actor)),
        (ACTION.to_owned(), s(event.action.as_str())),
        (DOC.to_owned(), s(doc)),
    ]))
}

/// The item of one proposal.
fn proposal_item(proposal: &Proposal) -> Result<Item, StoreError> {
    let doc = serde_json::to_string(proposal).map_err(|e| corrupt("proposal", e))?;
    Ok(Item::from([
        (PK.to_owned(), s(PROPOSALS_PK)),
        (SK.to_owned(), s(proposal_sk(&proposal.id))),
        (KIND.to_owned(), s(proposal.kind.as_str())),
        (DEFINITION_ID.to_owned(), s(&proposal.definition_id)),
        (STATE.to_owned(), s(proposal.state.as_str())),
        (REVISION.to_owned(), n(proposal.revision)),
        (DOC.to_owned(), s(doc)),
    ]))
}

fn parse_doc<T: serde::de::DeserializeOwned>(item: &Item, what: &str) -> Result<T, StoreError> {
    let doc = get_s(item, DOC).ok_or_else(|| corrupt(what, "no document"))?;
    serde_json::from_str(doc).map_err(|e| corrupt(what, e))
}

impl Plan {
    /// Takes sequence number `seq + 1` (the counter must still be at `seq`) and puts
    /// `draft` as that event.
    pub(crate) fn append_event(
        &mut self,
        table: &str,
        seq: u64,
        draft: EventDraft,
    ) -> Result<(), StoreError> {
        let event = draft.into_event(seq + 1, Utc::now().trunc_subsecs(3));
        let mut expr = Expr::default();
        let update = format!("SET {} = {}", expr.name(SEQ), expr.value(n(event.seq)));
        let condition = if seq == 0 {
            format!("attribute_not_exists({})", expr.name(PK))
        } else {
            format!("{} = {}", expr.name(SEQ), expr.value(n(seq)))
        };
        self.update(
            table,
            item::key(EVENTS_PK.to_owned(), SEQ_SK),
            update,
            Some(condition),
            expr,
            Role::Counter,
        )?;
        self.put_new(table, event_item(&event)?, Role::Counter)
    }

    /// Puts `proposal` with the next revision, if the stored one is at `expected`
    /// (`None`: no proposal with its id).
    pub(crate) fn put_proposal(
        &mut self,
        table: &str,
        proposal: &Proposal,
        expected: Option<u64>,
    ) -> Result<(), StoreError> {
        let mut proposal = proposal.clone();
        proposal.revision = expected.unwrap_or(0) + 1;
        let mut expr = Expr::default();
        let condition = match expected {
            None => format!("attribute_not_exists({})", expr.name(PK)),
            Some(revision) => format!("{} = {}", expr.name(REVISION), expr.value(n(revision))),
        };
        self.put(table, proposal_item(&proposal)?, Some((condition, expr)), Role::Proposal)
    }
}

impl DynamoStore {
    /// The last sequence number handed out (consistent read; 0 before the first event).
    pub(crate) async fn read_seq(&self) -> Result<u64, StoreError> {
        let out = self
            .client
            .get_item()
            .table_name(&self.table)
            .set_key(Some(item::key(EVENTS_PK.to_owned(), SEQ_SK)))
            .consistent_read(true)
            .send()
            .await
            .map_err(|e| errors::sdk("GetItem", e))?;
        let seq = out.item.as_ref().and_then(|i| get_n(i, SEQ)).unwrap_or(0);
        u64::try_from(seq).map_err(|_| corrupt("event counter", seq))
    }

    /// Why a conditional proposal write failed: it is missing, exists, or is at another
    /// revision.
    pub(crate) async fn proposal_error(&self, id: &str, expected: Option<u64>) -> StoreError {
        match (self.get_proposal(id).await, expected) {
            (Err(e), _) => e,
            (Ok(None), _) => StoreError::NotFound,
            (Ok(Some(p)), None) => StoreError::AlreadyExists { current: p.revision },
            (Ok(Some(p)), Some(expected)) => {
                StoreError::VersionMismatch { expected, current: Some(p.revision) }
            }
        }
    }

    /// See [`registry_store::Store::save_proposal`].
    pub(crate) async fn save_proposal_item(
        &self,
        mut proposal: Proposal,
        expected: Option<u64>,
        event: EventDraft,
    ) -> Result<Proposal, StoreError> {
        let mut retry = Audited::new("proposal write");
        while retry.next().await {
            let seq = self.read_seq().await?;
            let mut plan = Plan::default();
            plan.put_proposal(&self.table, &proposal, expected)?;
            plan.append_event(&self.table, seq, event.clone())?;
            match self.transact(plan).await? {
                Outcome::Committed => {
                    proposal.revision = expected.unwrap_or(0) + 1;
                    return Ok(proposal);
                }
                Outcome::Retry(why) => retry.conflict(why),
                Outcome::Cancelled(failures) => {
                    for failure in &failures {
                        check_code(failure)?;
                    }
                    if failures.iter().any(|f: &Failure| matches!(f.role, Role::Proposal)) {
                        return Err(self.proposal_error(&proposal.id, expected).await);
                    }
                    if !failures.iter().all(|f| matches!(f.role, Role::Counter)) {
                        return Err(unexpected(&failures));
                    }
                    retry.lost_sequence();
                }
            }
        }
        Err(retry.gave_up())
    }

    /// See [`registry_store::Store::proposal`].
    pub(crate) async fn get_proposal(&self, id: &str) -> Result<Option<Proposal>, StoreError> {
        let out = self
            .client
            .get_item()
            .table_name(&self.table)
            .set_key(Some(item::key(PROPOSALS_PK.to_owned(), proposal_sk(id))))
            .consistent_read(true)
            .send()
            .await
            .map_err(|e| errors::sdk("GetItem", e))?;
        out.item.as_ref().map(|i| parse_doc(i, "proposal")).transpose()
    }

    /// Queries one partition of the audit items in sort-key order from `start_after`
    /// (exclusive) up to `until` (inclusive), with an optional filter, until `wanted`
    /// items matched or the range ends.
    async fn query_range(
        &self,
        partition: &str,
        start_after: String,
        until: String,
        filter: Option<(String, Expr)>,
        wanted: usize,
    ) -> Result<Vec<Item>, StoreError> {
        let mut items = Vec::new();
        let mut start: Option<Item> = None;
        loop {
            let (filter_text, mut expr) = match &filter {
                Some((text, expr)) => (Some(text.clone()), expr.clone()),
                None => (None, Expr::default()),
            };
            let key_condition = format!(
                "{} = {} AND {} BETWEEN {} AND {}",
                expr.name(PK),
                expr.value(s(partition)),
                expr.name(SK),
                expr.value(s(&start_after)),
                expr.value(s(&until)),
            );
            let out = self
                .client
                .query()
                .table_name(&self.table)
                .key_condition_expression(key_condition)
                .set_filter_expression(filter_text)
                .set_expression_attribute_names(expr.names())
                .set_expression_attribute_values(expr.values())
                .set_exclusive_start_key(start.take())
                .consistent_read(true)
                .limit(i32::try_from(wanted - items.len()).unwrap_or(i32::MAX))
                .send()
                .await
                .map_err(|e| errors::sdk("Query", e))?;
            items.extend(
                out.items
                    .unwrap_or_default()
                    .into_iter()
                    .filter(|i| get_s(i, SK) != Some(start_after.as_str())),
            );
            if items.len() >= wanted {
                items.truncate(wanted);
                break;
            }
            match out.last_evaluated_key {
                Some(key) if !key.is_empty() => start = Some(key),
                _ => break,
            }
        }
        Ok(items)
    }

    /// See [`registry_store::Store::events`]. The counter is read first and bounds the
    /// page: every event up to it has committed.
    pub(crate) async fn event_page(&self, query: &EventQuery) -> Result<EventPage, StoreError> {
        let newest = self.read_seq().await?;
        let limit = event_page_size(query.limit) as usize;
        if newest <= query.after {
            return Ok(EventPage { events: Vec::new(), last: query.after });
        }
        let mut expr = Expr::default();
        let mut filters = Vec::new();
        if let Some(kind) = query.kind {
            filters.push(expr.eq(KIND, s(kind.as_str())));
        }
        if let Some(id) = &query.id {
            filters.push(expr.eq(ID, s(id)));
        }
        if let Some(actor) = &query.actor {
            filters.push(expr.eq(ACTOR, s(actor)));
        }
        if let Some(action) = query.action {
            filters.push(expr.eq(ACTION, s(action.as_str())));
        }
        let filter = (!filters.is_empty()).then(|| (filters.join(" AND "), expr));
        let items = self
            .query_range(EVENTS_PK, event_sk(query.after), event_sk(newest), filter, limit)
            .await?;
        let events =
            items.iter().map(|i| parse_doc::<Event>(i, "event")).collect::<Result<Vec<_>, _>>()?;
        let last = match events.last() {
            Some(event) if events.len() >= limit => event.seq,
            _ => newest,
        };
        Ok(EventPage { events, last })
    }

    /// See [`registry_store::Store::proposals`].
    pub(crate) async fn list_proposals(
        &self,
        query: &ProposalQuery,
    ) -> Result<Page<Proposal>, StoreError> {
        let limit = query.limit.clamp(1, 100) as usize;
        let mut expr = Expr::default();
        let mut filters = Vec::new();
        if let Some(state) = query.state {
            filters.push(expr.eq(STATE, s(state.as_str())));
        }
        if let Some(kind) = query.kind {
            filters.push(expr.eq(KIND, s(kind.as_str())));
        }
        if let Some(id) = &query.id {
            filters.push(expr.eq(DEFINITION_ID, s(id)));
        }
        let filter = (!filters.is_empty()).then(|| (filters.join(" AND "), expr));
        let start = proposal_sk(query.after.as_deref().unwrap_or_default());
        // `P#` + U+10FFFF sorts after every proposal id.
        let until = format!("{PROPOSAL_PREFIX}\u{10FFFF}");
        let items = self.query_range(PROPOSALS_PK, start, until, filter, limit + 1).await?;
        let mut items = items
            .iter()
            .map(|i| parse_doc::<Proposal>(i, "proposal"))
            .collect::<Result<Vec<_>, _>>()?;
        let next_cursor = if items.len() > limit {
            items.truncate(limit);
            items.last().map(|p| p.id.clone())
        } else {
            None
        };
        Ok(Page { items, next_cursor })
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use registry_store::Action;

    #[test]
    fn event_items_carry_their_filters() {
        let event = EventDraft {
            actor: "ed".into(),
            action: Action::Patch,
            kind: registry_core::Kind::Tool,
            id: "t".into(),
            proposal: None,
            version_before: Some(1),
            version_after: Some(2),
            changed: vec!["/accessRules".into()],
        }
        .into_event(7, Utc::now());
        let item = event_item(&event).unwrap_or_default();
        assert_eq!(get_s(&item, SK), Some("E#00000000000000000007"));
        assert_eq!(get_s(&item, ACTION), Some("patch"));
        assert_eq!(parse_doc::<Event>(&item, "event").ok(), Some(event));
    }
}
