//! Reviewed changes and the audit event stream over real HTTP (SPEC section 17): the
//! acceptance points of issue 28 on the router, a real store and real tokens.

mod common;

use std::collections::BTreeSet;
use std::sync::Arc;

use common::{Server, agent_json, start_with_registry, tool_json};
use registry_api::{ReviewPolicy, ServerLimits};
use registry_store::{Expected, Store};
use reqwest::{Method, StatusCode};
use serde_json::{Value, json};

const PREMIUM_ONLY: &str = "customData.tier != 'premium'";

async fn reviewed() -> Server {
    reviewed_by(1).await
}

/// A server where every definition needs `approvals` approvals.
async fn reviewed_by(approvals: u32) -> Server {
    start_with_registry(ServerLimits::default(), |r| {
        r.with_review(ReviewPolicy { required: true, approvals })
    })
    .await
}

/// A tool whose rule lets only premium callers use it.
fn premium_tool(id: &str) -> Value {
    let mut tool = tool_json(id);
    tool["name"] = json!("premium_weather");
    tool["accessRules"] =
        json!([{"effect": "deny", "condition": PREMIUM_ONLY}, {"effect": "allow"}]);
    tool
}

async fn patch(s: &Server, path: &str, token: &str, version: u64, body: &Value) -> common::Reply {
    let request = s.req(Method::PATCH, path, token).header("if-match", format!("\"{version}\""));
    s.send(request.header("proposal-note", "let free users in").json(body)).await
}

async fn post(s: &Server, path: &str, token: &str) -> common::Reply {
    s.send(s.req(Method::POST, path, token)).await
}

fn group_names(reply: &common::Reply) -> Vec<String> {
    reply.body["inlineAgent"]["actionGroups"]
        .as_array()
        .unwrap_or_else(|| panic!("no action groups: {}", reply.text))
        .iter()
        .map(|g| g["actionGroupName"].as_str().unwrap_or_default().to_owned())
        .collect()
}

async fn free_user_groups(s: &Server) -> Vec<String> {
    let context = json!({"customData": {"tier": "free"}});
    let reply = s
        .send(s.req(Method::POST, "/agents/weather-agent/resolve", &s.reader).json(&context))
        .await;
    assert_eq!(reply.status, StatusCode::OK, "{}", reply.text);
    group_names(&reply)
}

/// Every event of definition `id`: (action, actor).
async fn events_of(s: &Server, id: &str) -> Vec<(String, String)> {
    let reply = s.get(&format!("/events?id={id}&limit=1000")).await;
    assert_eq!(reply.status, StatusCode::OK, "{}", reply.text);
    reply.body["items"]
        .as_array()
        .unwrap_or_else(|| panic!("{}", reply.text))
        .iter()
        .map(|e| {
            (
                e["action"].as_str().unwrap_or("").to_owned(),
                e["actor"].as_str().unwrap_or("").to_owned(),
            )
        })
        .collect()
}

fn pairs(list: &[(&str, &str)]) -> Vec<(String, String)> {
    list.iter().map(|(a, b)| ((*a).to_owned(), (*b).to_owned())).collect()
}

#[tokio::test]
async fn an_editors_rule_change_waits_for_another_approver_then_serves() {
    let s = reviewed().await;
    // The admin sets things up (admin writes are not reviewed, but evented).
    s.admin_json(Method::POST, "/tools", &tool_json("weather-basic")).await;
    let created = s.admin_json(Method::POST, "/tools", &premium_tool("weather-premium")).await;
    assert_eq!(created.status, StatusCode::CREATED, "{}", created.text);
    let agent = agent_json("weather-agent", &["weather-basic", "weather-premium"]);
    assert_eq!(s.admin_json(Method::POST, "/agents", &agent).await.status, StatusCode::CREATED);
    assert_eq!(free_user_groups(&s).await, ["weather"]);

    // The editor widens the rule: 202 and a proposal; nothing serves yet.
    let widen = json!({"accessRules": [{"effect": "allow"}]});
    let proposed = patch(&s, "/tools/weather-premium", &s.editor, 1, &widen).await;
    assert_eq!(proposed.status, StatusCode::ACCEPTED, "{}", proposed.text);
    let id = proposed.body["id"].as_str().unwrap_or_default().to_owned();
    let location = proposed.headers.get("location").and_then(|v| v.to_str().ok());
    assert_eq!(location, Some(format!("/proposals/{id}").as_str()));
    assert_eq!(proposed.body["state"], "open");
    assert_eq!(proposed.body["baseVersion"], 1);
    assert_eq!(proposed.body["author"], "eve-editor");
    assert_eq!(proposed.body["note"], "let free users in");
    assert_eq!(
        proposed.body["definition"]["accessRules"],
        json!([{"id": "rule-2", "effect": "allow"}])
    );
    let served = s.get("/tools/weather-premium").await;
    assert_eq!(served.etag(), "\"1\"");
    assert_eq!(served.body["accessRules"][0]["condition"], PREMIUM_ONLY);
    assert_eq!(free_user_groups(&s).await, ["weather"], "resolve still serves the old rule");

    // The proposal shows its RFC 6902 diff and, for a tool, the interface report.
    let shown = s.get(&format!("/proposals/{id}")).await;
    assert_eq!(shown.status, StatusCode::OK, "{}", shown.text);
    assert_eq!(
        shown.body["diff"],
        json!([{"op": "replace", "path": "/accessRules", "value": [{"id": "rule-2", "effect": "allow"}]}])
    );
    assert_eq!(shown.body["interfaceChanges"]["changes"], json!([]));
    assert_eq!(shown.body["releaseCheck"], json!([]));
    let listed = s.get("/proposals?state=open&kind=tool&id=weather-premium").await;
    assert_eq!(listed.body["items"].as_array().map(Vec::len), Some(1), "{}", listed.text);

    // Neither the editor's own tokens nor a reader may approve.
    post(&s, &format!("/proposals/{id}/approve"), &s.editor).await.assert_problem(403, "FORBIDDEN");
    let own = post(&s, &format!("/proposals/{id}/approve"), &s.editor_as_approver).await;
    own.assert_problem(403, "FORBIDDEN");
    assert!(own.text.contains("author"), "{}", own.text);
    post(&s, &format!("/proposals/{id}/approve"), &s.reader).await.assert_problem(403, "FORBIDDEN");
    assert_eq!(s.get("/tools/weather-premium").await.etag(), "\"1\"");

    // Another approver approves: the new rule serves at version 2.
    let approved = post(&s, &format!("/proposals/{id}/approve"), &s.approver).await;
    assert_eq!(approved.status, StatusCode::OK, "{}", approved.text);
    assert_eq!(approved.body["state"], "applied");
    assert_eq!(approved.body["appliedVersion"], 2);
    assert_eq!(approved.body["approvals"][0]["by"], "ann-approver");
    let served = s.get("/tools/weather-premium").await;
    assert_eq!(served.etag(), "\"2\"");
    assert_eq!(served.body["accessRules"], json!([{"id": "rule-2", "effect": "allow"}]));
    assert_eq!(served.body["lastModifiedBy"], "eve-editor");
    assert_eq!(free_user_groups(&s).await, ["weather", "premium_weather"]);

    assert_eq!(
        events_of(&s, "weather-premium").await,
        pairs(&[
            ("create", "admin"),
            ("proposal.opened", "eve-editor"),
            ("proposal.approved", "ann-approver"),
            ("proposal.applied", "ann-approver"),
        ])
    );
    let applied = s.get("/events?action=proposal.applied").await;
    let event = &applied.body["items"][0];
    assert_eq!(
        (event["versionBefore"].clone(), event["versionAfter"].clone()),
        (json!(1), json!(2))
    );
    assert_eq!(event["changed"], json!(["/accessRules"]));
    assert_eq!(event["proposal"], json!(id));

    // A closed proposal cannot be approved, rejected or cancelled again.
    post(&s, &format!("/proposals/{id}/approve"), &s.approver)
        .await
        .assert_problem(409, "CONFLICT");
    let reject = s.req(Method::POST, &format!("/proposals/{id}/reject"), &s.admin);
    s.send(reject.json(&json!({"reason": "no"}))).await.assert_problem(409, "CONFLICT");
    post(&s, &format!("/proposals/{id}/cancel"), &s.editor).await.assert_problem(409, "CONFLICT");
}

#[tokio::test]
async fn the_second_proposal_on_one_base_goes_stale_and_applies_nothing() {
    let s = reviewed().await;
    s.admin_json(Method::POST, "/tools", &premium_tool("t")).await;
    let mut ids = Vec::new();
    for name in ["one", "two"] {
        let arn = format!("arn:aws:lambda:us-east-1:123456789012:function:{name}");
        let reply = patch(&s, "/tools/t", &s.editor, 1, &json!({"lambdaArn": arn})).await;
        assert_eq!(reply.status, StatusCode::ACCEPTED, "{name}: {}", reply.text);
        ids.push(reply.body["id"].as_str().unwrap_or("").to_owned());
    }
    let (first, second) = (&ids[0], &ids[1]);
    assert_eq!(
        post(&s, &format!("/proposals/{first}/approve"), &s.approver).await.status,
        StatusCode::OK
    );

    let stale = post(&s, &format!("/proposals/{second}/approve"), &s.admin).await;
    stale.assert_problem(409, "CONFLICT");
    assert!(stale.text.contains("stale"), "{}", stale.text);
    let served = s.get("/tools/t").await;
    assert_eq!(served.etag(), "\"2\"", "nothing more was applied");
    assert!(served.body["lambdaArn"].as_str().unwrap_or("").ends_with(":one"));
    let shown = s.get(&format!("/proposals/{second}")).await;
    assert_eq!(shown.body["state"], "stale");
    assert!(shown.body["closed"]["reason"].as_str().unwrap_or("").contains("version 2"));
    let actions: Vec<String> = events_of(&s, "t").await.into_iter().map(|(a, _)| a).collect();
    assert_eq!(actions.last().map(String::as_str), Some("proposal.stale"));
    assert_eq!(actions.iter().filter(|a| *a == "proposal.applied").count(), 1);
}

#[tokio::test]
async fn disabling_is_immediate_and_evented_with_review_required() {
    let s = reviewed().await;
    s.admin_json(Method::POST, "/tools", &premium_tool("t")).await;
    let disabled =
        patch(&s, "/tools/t", &s.editor, 1, &json!({"lifecycle": {"status": "disabled"}})).await;
    assert_eq!(disabled.status, StatusCode::OK, "{}", disabled.text);
    assert_eq!(disabled.etag(), "\"2\"");
    assert_eq!(s.get("/tools/t").await.body["lifecycle"]["status"], "disabled");
    assert_eq!(
        events_of(&s, "t").await,
        pairs(&[("create", "admin"), ("lifecycle", "eve-editor")])
    );
    // An ungoverned field (the description) is not reviewed either.
    let described =
        patch(&s, "/tools/t", &s.editor, 2, &json!({"description": "Weather, briefly."})).await;
    assert_eq!(described.status, StatusCode::OK, "{}", described.text);
    // A create by an editor is reviewed: everything in it is new.
    let created = s.send(s.req(Method::POST, "/tools", &s.editor).json(&tool_json("fresh"))).await;
    assert_eq!(created.status, StatusCode::ACCEPTED, "{}", created.text);
    assert!(created.body.get("baseVersion").is_none());
    s.get("/tools/fresh").await.assert_problem(404, "NOT_FOUND");
    let id = created.body["id"].as_str().unwrap_or_default();
    let applied = post(&s, &format!("/proposals/{id}/approve"), &s.approver).await;
    assert_eq!(applied.body["state"], "applied", "{}", applied.text);
    assert_eq!(s.get("/tools/fresh").await.body["createdBy"], "eve-editor");
}

#[tokio::test]
async fn the_review_tag_selects_definitions_when_review_is_not_required() {
    let s = common::start().await;
    let mut tagged = premium_tool("tagged");
    tagged["tags"] = json!({"review": "required"});
    s.admin_json(Method::POST, "/tools", &tagged).await;
    s.admin_json(Method::POST, "/tools", &premium_tool("free")).await;
    let rules = json!({"accessRules": [{"effect": "allow"}]});
    assert_eq!(patch(&s, "/tools/free", &s.editor, 1, &rules).await.status, StatusCode::OK);
    assert_eq!(patch(&s, "/tools/tagged", &s.editor, 1, &rules).await.status, StatusCode::ACCEPTED);
    // Dropping the tag is itself governed.
    let untag = patch(&s, "/tools/tagged", &s.editor, 1, &json!({"tags": null})).await;
    assert_eq!(untag.status, StatusCode::ACCEPTED, "{}", untag.text);
    // Its author may cancel it; no one else.
    let id = untag.body["id"].as_str().unwrap_or_default();
    post(&s, &format!("/proposals/{id}/cancel"), &s.approver)
        .await
        .assert_problem(403, "FORBIDDEN");
    let cancelled = post(&s, &format!("/proposals/{id}/cancel"), &s.editor).await;
    assert_eq!(cancelled.body["state"], "cancelled", "{}", cancelled.text);
}

#[tokio::test]
async fn bad_input_is_a_problem_and_changes_nothing() {
    let s = reviewed().await;
    s.admin_json(Method::POST, "/tools", &premium_tool("t")).await;
    let proposed = patch(&s, "/tools/t", &s.editor, 1, &json!({"code": null, "url": null, "lambdaArn": "arn:aws:lambda:us-east-1:123456789012:function:x"})).await;
    let id = proposed.body["id"].as_str().unwrap_or_default().to_owned();
    let before = s.get("/events?limit=1000").await.body["items"].as_array().map(Vec::len);

    post(&s, "/proposals/0190a1b2-0000-7000-8000-000000000000/approve", &s.approver)
        .await
        .assert_problem(404, "NOT_FOUND");
    s.get("/proposals/nope").await.assert_problem(404, "NOT_FOUND");
    s.get("/events?after=not-a-cursor").await.assert_invalid_at("/after");
    s.get("/events?limit=0&action=explode").await.assert_invalid_at("/action");
    s.get("/events?limit=0").await.assert_invalid_at("/limit");
    s.get("/proposals?state=pending").await.assert_invalid_at("/state");
    s.get("/proposals?cursor=zzz").await.assert_invalid_at("/cursor");
    let reject = s.req(Method::POST, &format!("/proposals/{id}/reject"), &s.approver);
    s.send(reject.json(&json!({"reason": "  "}))).await.assert_invalid_at("/reason");
    let reject = s.req(Method::POST, &format!("/proposals/{id}/reject"), &s.approver);
    let unknown = s.send(reject.json(&json!({"reason": "x", "extra": 1}))).await;
    assert_eq!(unknown.status.as_u16(), 400, "{}", unknown.text);
    let long = "n".repeat(2001);
    let note = s
        .req(Method::PATCH, "/tools/t", &s.editor)
        .header("if-match", "\"1\"")
        .header("proposal-note", long);
    s.send(note.json(&json!({"description": "x"}))).await.assert_problem(400, "BAD_REQUEST");

    let after = s.get("/events?limit=1000").await.body["items"].as_array().map(Vec::len);
    assert_eq!(before, after, "bad input appended no event");
    assert_eq!(s.get(&format!("/proposals/{id}")).await.body["state"], "open");

    let reject = s.req(Method::POST, &format!("/proposals/{id}/reject"), &s.approver);
    let rejected = s.send(reject.json(&json!({"reason": "use the staging ARN"}))).await;
    assert_eq!(rejected.body["state"], "rejected", "{}", rejected.text);
    assert_eq!(rejected.body["closed"]["reason"], "use the staging ARN");
    post(&s, &format!("/proposals/{id}/approve"), &s.approver)
        .await
        .assert_problem(409, "CONFLICT");
    assert_eq!(s.get("/tools/t").await.etag(), "\"1\"");
}

/// 10,000 events paged through `GET /events` while writers keep writing: every
/// sequence number exactly once, in order (60 on DynamoDB).
#[tokio::test(flavor = "multi_thread", worker_threads = 4)]
async fn events_page_without_gap_or_duplicate_while_writers_write() {
    let s = common::start().await;
    let store: Arc<dyn Store> = Arc::clone(s.registry.catalog.store());
    // 10,000 on SQLite in pages of 1,000; on the local DynamoDB-API server (one request
    // at a time, each transaction slower as the table grows) 60 in pages of 7.
    let dynamodb = std::env::var(common::BACKEND_ENV).as_deref() == Ok("dynamodb");
    let (total, page_size): (u64, u64) = if dynamodb { (60, 7) } else { (10_000, 1_000) };
    // Half written before paging starts (quickly, straight into the store), half while
    // the reader pages.
    let tool = |n: u64| {
        let mut t = tool_json(&format!("t{n}"));
        t["lastModifiedBy"] = json!("writer");
        registry_core::Definition::Tool(serde_json::from_value(t).unwrap_or_else(|e| panic!("{e}")))
    };
    for n in 0..total / 2 {
        store.put(tool(n), Expected::Absent).await.unwrap_or_else(|e| panic!("{e}"));
    }
    let mut writers = Vec::new();
    for w in 0..4u64 {
        let store = Arc::clone(&store);
        writers.push(tokio::spawn(async move {
            for n in (total / 2 + w..total).step_by(4) {
                store.put(tool(n), Expected::Absent).await.unwrap_or_else(|e| panic!("{e}"));
            }
        }));
    }
    let mut seen = Vec::new();
    let mut cursor: Option<String> = None;
    let mut pages = 0;
    while (seen.len() as u64) < total {
        let path = match &cursor {
            Some(c) => format!("/events?limit={page_size}&after={c}"),
            None => format!("/events?limit={page_size}"),
        };
        let page = s.get(&path).await;
        assert_eq!(page.status, StatusCode::OK, "{}", page.text);
        let items = page.body["items"].as_array().cloned().unwrap_or_default();
        seen.extend(items.iter().map(|e| e["seq"].as_u64().unwrap_or(0)));
        cursor = page.body["cursor"].as_str().map(str::to_owned);
        pages += 1;
        assert!(pages < 100_000, "paging never caught up");
        if items.is_empty() {
            // Caught up with the writers: poll again shortly, as a follower would.
            tokio::time::sleep(std::time::Duration::from_millis(20)).await;
        }
    }
    for writer in writers {
        writer.await.unwrap_or_else(|e| panic!("{e}"));
    }
    let expected: Vec<u64> = (1..=total).collect();
    assert_eq!(seen, expected, "every event once, in order");
    let ids: BTreeSet<u64> = seen.into_iter().collect();
    assert_eq!(ids.len() as u64, total);
    let last = s.get(&format!("/events?after={}", cursor.unwrap_or_default())).await;
    assert_eq!(last.body["items"], json!([]), "nothing after the last event");
}

/// A proposal keeps a tool's write-only secret to apply it, and shows it nowhere.
#[tokio::test]
async fn proposals_never_show_secrets() {
    let s = reviewed().await;
    let created =
        s.admin_json(Method::POST, "/tools", &common::mcp_tool_json("mcp", "s3cr3t-value")).await;
    assert_eq!(created.status, StatusCode::CREATED, "{}", created.text);
    let moved = json!({"url": "https://mcp2.example.com/forecast", "auth": {"clientId": "registry", "clientSecret": "n3w-s3cr3t", "tokenUrl": "https://auth.example.com/token"}});
    let proposed = patch(&s, "/tools/mcp", &s.editor, 1, &moved).await;
    assert_eq!(proposed.status, StatusCode::ACCEPTED, "{}", proposed.text);
    let id = proposed.body["id"].as_str().unwrap_or_default().to_owned();
    let shown = s.get(&format!("/proposals/{id}")).await;
    let listed = s.get("/proposals").await;
    let events = s.get("/events").await;
    for text in [&proposed.text, &shown.text, &listed.text, &events.text] {
        assert!(!text.contains("s3cr3t"), "a secret leaked: {text}");
    }
    let approved = post(&s, &format!("/proposals/{id}/approve"), &s.approver).await;
    assert_eq!(approved.body["state"], "applied", "{}", approved.text);
    assert!(!approved.text.contains("s3cr3t"));
    let served = s.get("/tools/mcp").await;
    assert_eq!(served.body["url"], "https://mcp2.example.com/forecast");
    assert!(!served.text.contains("s3cr3t"));
}

/// With two approvals required, one approval records but applies nothing; the same
/// approver twice is refused; a second approver applies it.
#[tokio::test]
async fn two_approvals_need_two_approvers() {
    let s = reviewed_by(2).await;
    s.admin_json(Method::POST, "/tools", &premium_tool("t")).await;
    let proposed = patch(&s, "/tools/t", &s.editor, 1, &json!({"accessRules": null})).await;
    assert_eq!(proposed.body["requiredApprovals"], 2, "{}", proposed.text);
    let id = proposed.body["id"].as_str().unwrap_or_default().to_owned();
    let first = post(&s, &format!("/proposals/{id}/approve"), &s.approver).await;
    assert_eq!(
        (first.body["state"].clone(), first.body["approvals"].as_array().map(Vec::len)),
        (json!("open"), Some(1))
    );
    assert_eq!(s.get("/tools/t").await.etag(), "\"1\"", "one approval applies nothing");
    post(&s, &format!("/proposals/{id}/approve"), &s.approver)
        .await
        .assert_problem(409, "CONFLICT");
    let second = post(&s, &format!("/proposals/{id}/approve"), &s.admin).await;
    assert_eq!(second.body["state"], "applied", "{}", second.text);
    let served = s.get("/tools/t").await;
    assert_eq!(served.etag(), "\"2\"");
    assert!(served.body.get("accessRules").is_none(), "{}", served.text);
}

/// The `proposal.applied` event of proposal `id` on tool `tool`: its actor.
async fn applied_by(s: &Server, tool: &str, id: &str) -> Vec<String> {
    let reply = s.get(&format!("/events?id={tool}&limit=1000")).await;
    assert_eq!(reply.status, StatusCode::OK, "{}", reply.text);
    let items = reply.body["items"].as_array().unwrap_or_else(|| panic!("{}", reply.text));
    items
        .iter()
        .filter(|e| e["proposal"] == id && e["action"] == "proposal.applied")
        .map(|e| e["actor"].as_str().unwrap_or_default().to_owned())
        .collect()
}

/// An approval saved but not yet applied (its apply failed, or another approver's call
/// came between): whoever finishes applying it, the proposal is applied in the name of
/// the approver whose approval completed it, never of the caller who did not approve.
#[tokio::test]
async fn an_approved_proposal_applies_in_the_name_of_its_approver() {
    use registry_store::{Action, Approval, EventDraft, ProposalState};
    let s = reviewed().await;
    s.admin_json(Method::POST, "/tools", &premium_tool("t")).await;
    let proposed = patch(&s, "/tools/t", &s.editor, 1, &json!({"accessRules": null})).await;
    let id = proposed.body["id"].as_str().unwrap_or_default().to_owned();
    let store = s.registry.catalog.store();
    let open = store.proposal(&id).await.unwrap().unwrap();
    let mut approved = open.clone();
    approved.approvals.push(Approval { by: "ann-approver".into(), at: chrono::Utc::now() });
    approved.state = ProposalState::Approved;
    let event = EventDraft {
        actor: "ann-approver".into(),
        action: Action::ProposalApproved,
        kind: registry_core::Kind::Tool,
        id: "t".into(),
        proposal: Some(id.clone()),
        version_before: Some(1),
        version_after: None,
        changed: Vec::new(),
    };
    store.save_proposal(approved, Some(open.revision), event).await.unwrap();

    // The admin never approved it; its call only finishes what ann approved, and is
    // answered a conflict naming her: it is not the admin's approval.
    let finished = post(&s, &format!("/proposals/{id}/approve"), &s.admin).await;
    assert_eq!(finished.status, StatusCode::CONFLICT, "{}", finished.text);
    assert!(finished.text.contains("ann-approver"), "{}", finished.text);
    let shown = s.get(&format!("/proposals/{id}")).await;
    assert_eq!(shown.body["state"], "applied", "{}", shown.text);
    assert_eq!(shown.body["closed"]["by"], "ann-approver", "{}", shown.text);
    assert_eq!(applied_by(&s, "t", &id).await, ["ann-approver"]);
    // ann's own call (a retry) is answered as hers
    let again = post(&s, &format!("/proposals/{id}/approve"), &s.approver).await;
    assert_eq!(again.status, StatusCode::CONFLICT, "{}", again.text);
    assert_eq!(s.get("/tools/t").await.etag(), "\"2\"");
}

/// Two approvers race on proposals needing one approval, over and over: every applied
/// proposal names as its applier (closing and `proposal.applied` event) the one
/// approver whose approval it holds.
#[tokio::test(flavor = "multi_thread", worker_threads = 4)]
async fn racing_approvers_apply_in_the_name_of_the_approval_that_completed_it() {
    let s = reviewed().await;
    s.admin_json(Method::POST, "/tools", &premium_tool("t")).await;
    let rules = [json!(null), premium_tool("t")["accessRules"].clone()];
    for round in 0..30u64 {
        let body = json!({"accessRules": rules[(round % 2) as usize]});
        let proposed = patch(&s, "/tools/t", &s.editor, round + 1, &body).await;
        assert_eq!(proposed.status, StatusCode::ACCEPTED, "{}", proposed.text);
        let id = proposed.body["id"].as_str().unwrap_or_default().to_owned();
        let path = format!("/proposals/{id}/approve");
        let (a, b) = tokio::join!(post(&s, &path, &s.approver), post(&s, &path, &s.admin));
        for reply in [&a, &b] {
            assert!(
                reply.status == StatusCode::OK || reply.status == StatusCode::CONFLICT,
                "{}",
                reply.text
            );
        }
        // exactly one of them is answered 200, and that one is the approver recorded
        let ok: Vec<&common::Reply> =
            [&a, &b].into_iter().filter(|r| r.status == StatusCode::OK).collect();
        assert_eq!(ok.len(), 1, "round {round}: {} / {}", a.text, b.text);
        let shown = s.get(&format!("/proposals/{id}")).await;
        assert_eq!(shown.body["state"], "applied", "round {round}: {}", shown.text);
        let approvers: Vec<&str> = shown.body["approvals"]
            .as_array()
            .unwrap_or_else(|| panic!("{}", shown.text))
            .iter()
            .filter_map(|a| a["by"].as_str())
            .collect();
        assert_eq!(approvers.len(), 1, "round {round}: {}", shown.text);
        assert_eq!(shown.body["closed"]["by"], approvers[0], "round {round}: {}", shown.text);
        assert_eq!(applied_by(&s, "t", &id).await, approvers, "round {round}");
        let answered_ann = a.status == StatusCode::OK;
        assert_eq!(approvers[0] == "ann-approver", answered_ann, "round {round}: {}", shown.text);
        assert_eq!(ok[0].body["approvals"], shown.body["approvals"], "round {round}");
    }
}

/// Names that differ only by case, spacing, compatibility forms or invisible characters
/// are one principal: such a name cannot approve its own proposal, nor approve twice.
#[tokio::test]
async fn look_alike_names_are_one_principal_to_review() {
    use registry_api::{Principal, Role, ServiceError};
    let s = reviewed_by(2).await;
    s.admin_json(Method::POST, "/tools", &premium_tool("t")).await;
    let proposed = patch(&s, "/tools/t", &s.editor, 1, &json!({"accessRules": null})).await;
    let id = proposed.body["id"].as_str().unwrap_or_default().to_owned();
    for author in ["Eve-Editor", "eve-editor ", "eve-editor\u{200b}", "\u{ff25}VE-editor"] {
        let refused =
            s.registry.catalog.approve(&Principal::new(author, Role::Approver), &id).await;
        assert!(matches!(refused, Err(ServiceError::Forbidden(_))), "{author:?}: {refused:?}");
    }
    post(&s, &format!("/proposals/{id}/approve"), &s.approver).await;
    let twice = s
        .registry
        .catalog
        .approve(&Principal::new(" ANN-approver\u{2060}", Role::Admin), &id)
        .await;
    assert!(matches!(twice, Err(ServiceError::ProposalConflict(_))), "{twice:?}");
    let shown = s.get(&format!("/proposals/{id}")).await;
    assert_eq!(shown.body["state"], "open", "{}", shown.text);
    assert_eq!(shown.body["approvals"].as_array().map(Vec::len), Some(1), "{}", shown.text);
    // The author under another spelling may cancel it: the same principal.
    let cancelled =
        s.registry.catalog.cancel(&Principal::new("EVE-EDITOR", Role::Editor), &id).await;
    assert_eq!(cancelled.map(|p| p.state.as_str()).ok(), Some("cancelled"));
}
