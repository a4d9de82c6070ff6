//! Events and proposals: one event per committed change, in the same transaction,
//! numbered without gaps; proposals written conditionally on their revision.

use std::sync::Arc;

use chrono::Utc;
use registry_core::Kind;

use super::sample::{tool, with_description};
use crate::{
    Action, Change, Event, EventDraft, EventQuery, Expected, Proposal, ProposalQuery,
    ProposalState, ProposalUpdate, Store, StoreError,
};

/// An event's sequence number, actor, action and versions before and after.
type Summary<'a> = (u64, &'a str, Action, Option<u64>, Option<u64>);

/// Every event after `after`, paging 1000 at a time.
async fn all_events(store: &dyn Store, after: u64) -> Vec<Event> {
    let mut events = Vec::new();
    let mut query = EventQuery { after, limit: 1000, ..EventQuery::default() };
    loop {
        let page = store.events(&query).await.expect("events");
        let done = page.events.is_empty();
        events.extend(page.events);
        assert!(page.last >= query.after, "a page never moves the cursor back");
        if done {
            return events;
        }
        query.after = page.last;
    }
}

/// A proposal for tool `id` by `author`.
fn proposal(id: &str, tool_id: &str, author: &str) -> Proposal {
    Proposal {
        id: id.to_owned(),
        kind: Kind::Tool,
        definition_id: tool_id.to_owned(),
        base_version: Some(1),
        definition: tool(tool_id).storage_json().expect("json"),
        author: author.to_owned(),
        created_at: Utc::now(),
        note: Some("widen access".into()),
        state: ProposalState::Open,
        approvals: Vec::new(),
        closed: None,
        applied_version: None,
        revision: 0,
    }
}

fn draft(action: Action, actor: &str, proposal: &str) -> EventDraft {
    EventDraft {
        actor: actor.to_owned(),
        action,
        kind: Kind::Tool,
        id: "t1".into(),
        proposal: Some(proposal.to_owned()),
        version_before: Some(1),
        version_after: None,
        changed: Vec::new(),
    }
}

/// Create, replace and delete each append one event with actor, action, versions and
/// the changed pointers; refused writes append none.
pub async fn every_write_appends_one_event(store: Arc<dyn Store>) {
    store
        .write(tool("t1"), Expected::Absent, Change::new("alice", Action::Create))
        .await
        .expect("create");
    let changed = with_description(tool("t1"), "new words");
    store
        .write(changed, Expected::Version(1), Change::new("bob", Action::Patch))
        .await
        .expect("patch");
    // Refused writes: already exists, stale version, unknown delete.
    assert!(
        store
            .write(tool("t1"), Expected::Absent, Change::new("eve", Action::Create))
            .await
            .is_err()
    );
    assert!(
        store
            .write(tool("t1"), Expected::Version(1), Change::new("eve", Action::Replace))
            .await
            .is_err()
    );
    assert!(store.remove(Kind::Tool, "nope", 1, "eve").await.is_err());
    assert!(store.remove(Kind::Tool, "t1", 1, "eve").await.is_err());
    store.remove(Kind::Tool, "t1", 2, "carol").await.expect("delete");

    let events = all_events(store.as_ref(), 0).await;
    let summary: Vec<Summary<'_>> = events
        .iter()
        .map(|e| (e.seq, e.actor.as_str(), e.action, e.version_before, e.version_after))
        .collect();
    assert_eq!(
        summary,
        vec![
            (1, "alice", Action::Create, None, Some(1)),
            (2, "bob", Action::Patch, Some(1), Some(2)),
            (3, "carol", Action::Delete, Some(2), None),
        ]
    );
    assert!(events.iter().all(|e| e.kind == Kind::Tool && e.id == "t1"));
    assert!(events[0].changed.contains(&"/lambdaArn".to_owned()), "{:?}", events[0].changed);
    assert_eq!(events[1].changed, vec!["/description".to_owned()]);
    assert!(events[2].changed.is_empty());
    assert!(events.windows(2).all(|w| w[0].time <= w[1].time));
}

/// Pages are oldest first, `last` continues exactly after them, filters apply, and a
/// page that is not full moves the cursor to the newest event.
pub async fn events_page_in_order_with_filters(store: Arc<dyn Store>) {
    for n in 1..=5 {
        let actor = if n % 2 == 0 { "even" } else { "odd" };
        store
            .write(tool(&format!("t{n}")), Expected::Absent, Change::new(actor, Action::Create))
            .await
            .expect("create");
    }
    let page = store.events(&EventQuery { limit: 2, ..EventQuery::default() }).await.expect("page");
    assert_eq!(page.events.iter().map(|e| e.seq).collect::<Vec<_>>(), [1, 2]);
    assert_eq!(page.last, 2);
    let page = store
        .events(&EventQuery { after: 2, limit: 2, ..EventQuery::default() })
        .await
        .expect("page");
    assert_eq!(page.events.iter().map(|e| e.id.as_str()).collect::<Vec<_>>(), ["t3", "t4"]);
    let page = store
        .events(&EventQuery { actor: Some("even".into()), limit: 10, ..EventQuery::default() })
        .await
        .expect("page");
    assert_eq!(page.events.iter().map(|e| e.seq).collect::<Vec<_>>(), [2, 4]);
    assert_eq!(page.last, 5, "everything up to the newest was considered");
    let page = store
        .events(&EventQuery {
            id: Some("t3".into()),
            kind: Some(Kind::Tool),
            action: Some(Action::Create),
            limit: 10,
            ..EventQuery::default()
        })
        .await
        .expect("page");
    assert_eq!(page.events.len(), 1);
    let page = store
        .events(&EventQuery { kind: Some(Kind::Agent), limit: 10, ..EventQuery::default() })
        .await
        .expect("page");
    assert!(page.events.is_empty());
    let page = store
        .events(&EventQuery { after: 5, limit: 10, ..EventQuery::default() })
        .await
        .expect("page");
    assert_eq!((page.events.len(), page.last), (0, 5));
    let page = store
        .events(&EventQuery { after: 99, limit: 10, ..EventQuery::default() })
        .await
        .expect("page");
    assert_eq!((page.events.len(), page.last), (0, 99), "a cursor never moves back");
    // Past every sequence number a backend can store: an empty page, not an error.
    for after in [crate::MAX_EVENT_SEQ, crate::MAX_EVENT_SEQ + 1, u64::MAX] {
        let page = store
            .events(&EventQuery { after, limit: 10, ..EventQuery::default() })
            .await
            .expect("a page past the last storable sequence number");
        assert_eq!((page.events.len(), page.last), (0, after));
    }
}

/// Concurrent writes to different definitions number their events 1..=n, each once.
pub async fn concurrent_writes_number_events_without_gaps(store: Arc<dyn Store>) {
    let n = 16;
    let barrier = Arc::new(tokio::sync::Barrier::new(n));
    let mut tasks = Vec::new();
    for i in 0..n {
        let store = Arc::clone(&store);
        let barrier = Arc::clone(&barrier);
        tasks.push(tokio::spawn(async move {
            barrier.wait().await;
            store.put(tool(&format!("c{i}")), Expected::Absent).await
        }));
    }
    for task in tasks {
        task.await.expect("task").expect("write");
    }
    let events = all_events(store.as_ref(), 0).await;
    let seqs: Vec<u64> = events.iter().map(|e| e.seq).collect();
    assert_eq!(seqs, (1..=n as u64).collect::<Vec<_>>());
    let mut ids: Vec<&str> = events.iter().map(|e| e.id.as_str()).collect();
    ids.sort_unstable();
    ids.dedup();
    assert_eq!(ids.len(), n, "one event per write");
}

/// Proposals: created once, updated on their revision, each with its event; listed
/// and filtered; applied together with the definition write, or not at all.
pub async fn proposals_are_conditional_and_evented(store: Arc<dyn Store>) {
    store.put(tool("t1"), Expected::Absent).await.expect("create");
    let opened = store
        .save_proposal(proposal("p1", "t1", "ed"), None, draft(Action::ProposalOpened, "ed", "p1"))
        .await
        .expect("open");
    assert_eq!(opened.revision, 1);
    assert!(matches!(
        store
            .save_proposal(
                proposal("p1", "t1", "ed"),
                None,
                draft(Action::ProposalOpened, "ed", "p1")
            )
            .await,
        Err(StoreError::AlreadyExists { current: 1 })
    ));
    store
        .save_proposal(proposal("p2", "t1", "ed"), None, draft(Action::ProposalOpened, "ed", "p2"))
        .await
        .expect("open p2");
    let mut approved = opened.clone();
    approved.state = ProposalState::Approved;
    let approved = store
        .save_proposal(approved, Some(1), draft(Action::ProposalApproved, "ann", "p1"))
        .await
        .expect("approve");
    assert_eq!(approved.revision, 2);
    assert!(matches!(
        store
            .save_proposal(opened.clone(), Some(1), draft(Action::ProposalRejected, "x", "p1"))
            .await,
        Err(StoreError::VersionMismatch { expected: 1, current: Some(2) })
    ));
    assert!(matches!(
        store
            .save_proposal(
                proposal("p9", "t1", "ed"),
                Some(1),
                draft(Action::ProposalCancelled, "ed", "p9")
            )
            .await,
        Err(StoreError::NotFound)
    ));
    assert_eq!(store.proposal("p1").await.expect("get"), Some(approved.clone()));
    assert_eq!(store.proposal("p9").await.expect("get"), None);

    let open = store
        .proposals(&ProposalQuery { state: Some(ProposalState::Open), ..ProposalQuery::default() })
        .await
        .expect("list");
    assert_eq!(open.items.iter().map(|p| p.id.as_str()).collect::<Vec<_>>(), ["p2"]);
    let first = store
        .proposals(&ProposalQuery { limit: 1, ..ProposalQuery::default() })
        .await
        .expect("list");
    assert_eq!(first.items[0].id, "p1");
    let next = store
        .proposals(&ProposalQuery {
            limit: 1,
            after: first.next_cursor.clone(),
            ..ProposalQuery::default()
        })
        .await
        .expect("list");
    assert_eq!((next.items[0].id.as_str(), next.next_cursor.as_deref()), ("p2", None));
    let other = store
        .proposals(&ProposalQuery { id: Some("t2".into()), ..ProposalQuery::default() })
        .await
        .expect("list");
    assert!(other.items.is_empty());

    // Applying with a stale proposal revision writes nothing.
    let before = all_events(store.as_ref(), 0).await.len();
    let mut applied = approved.clone();
    applied.state = ProposalState::Applied;
    let stale = Change {
        actor: "ann".into(),
        action: Action::ProposalApplied,
        proposal: Some(ProposalUpdate { proposal: applied.clone(), expected_revision: 1 }),
    };
    let result =
        store.write(with_description(tool("t1"), "reviewed"), Expected::Version(1), stale).await;
    assert!(matches!(result, Err(StoreError::VersionMismatch { .. })), "{result:?}");
    assert_eq!(store.get(Kind::Tool, "t1").await.expect("get").expect("live").version(), 1);
    assert_eq!(all_events(store.as_ref(), 0).await.len(), before);

    let change = Change {
        actor: "ann".into(),
        action: Action::ProposalApplied,
        proposal: Some(ProposalUpdate { proposal: applied, expected_revision: 2 }),
    };
    let stored = store
        .write(with_description(tool("t1"), "reviewed"), Expected::Version(1), change)
        .await
        .expect("apply");
    assert_eq!(stored.version(), 2);
    let p1 = store.proposal("p1").await.expect("get").expect("exists");
    assert_eq!((p1.state, p1.revision), (ProposalState::Applied, 3));
    let events = all_events(store.as_ref(), 0).await;
    let last = events.last().expect("events");
    assert_eq!(
        (last.action, last.proposal.as_deref(), last.version_after),
        (Action::ProposalApplied, Some("p1"), Some(2))
    );
    let actions: Vec<Action> = events.iter().map(|e| e.action).collect();
    assert_eq!(
        actions,
        [
            Action::Create,
            Action::ProposalOpened,
            Action::ProposalOpened,
            Action::ProposalApproved,
            Action::ProposalApplied
        ]
    );
}
