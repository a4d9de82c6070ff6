//! Lists: filters, pagination, cursors, and batch gets.

use std::sync::Arc;

use registry_core::{Definition, ExecutionType, Kind, LifecycleStatus};
use serde_json::json;

use super::sample::{agent_from, agent_json, ids, tool, tool_from, tool_json};
use crate::{Expected, ListFilter, ListQuery, Store, StoreError, TagFilter};

fn tagged_tool(
    id: &str,
    exec: &str,
    tags: serde_json::Value,
    status: Option<&str>,
    by: Option<&str>,
) -> Definition {
    let mut value = tool_json(id);
    value["executionType"] = json!(exec);
    let obj = value.as_object_mut().expect("object");
    obj.remove("lambdaArn");
    match exec {
        "lambda" => value["lambdaArn"] = json!("arn:aws:lambda:us-east-1:123456789012:function:f"),
        "mcp" => value["url"] = json!("https://mcp.example.com"),
        _ => value["code"] = json!("export const handler = () => 1;"),
    }
    if !tags.is_null() {
        value["tags"] = tags;
    }
    if let Some(status) = status {
        value["lifecycle"] = json!({ "status": status });
    }
    if let Some(by) = by {
        value["createdBy"] = json!(by);
    }
    tool_from(value)
}

async fn list_all(store: &Arc<dyn Store>, kind: Kind, filter: ListFilter) -> Vec<String> {
    let query = ListQuery { limit: 100, cursor: None, filter };
    let page = store.list(kind, &query).await.expect("list");
    assert_eq!(page.next_cursor, None);
    ids(&page.items)
}

fn tag(key: &str, value: Option<&str>) -> ListFilter {
    ListFilter {
        tag: Some(TagFilter { key: key.into(), value: value.map(Into::into) }),
        ..ListFilter::default()
    }
}

/// Every filter works alone and combined (AND); tag filters follow updates.
pub async fn list_filters(store: Arc<dyn Store>) {
    let writes = [
        tagged_tool("t-a", "lambda", json!({"env": "prod", "beta-only": ""}), None, Some("alice")),
        tagged_tool("t-b", "mcp", json!({"env": "dev"}), Some("deprecated"), Some("bob")),
        tagged_tool("t-c", "inline", serde_json::Value::Null, Some("retired"), Some("alice")),
        tagged_tool("t-d", "lambda", json!({"env": "prod"}), Some("disabled"), None),
        tagged_tool(
            "t-e",
            "lambda",
            json!({"Env": "prod", "env ": "prod"}),
            Some("active"),
            Some("carol"),
        ),
    ];
    for definition in writes {
        store.put(definition, Expected::Absent).await.expect("create tool");
    }
    let mut agent = agent_json("ag-1", &[]);
    agent["tags"] = json!({"env": "prod"});
    agent["createdBy"] = json!("alice");
    store.put(agent_from(agent), Expected::Absent).await.expect("create agent");

    let all = list_all(&store, Kind::Tool, ListFilter::default()).await;
    assert_eq!(all, ["t-a", "t-b", "t-c", "t-d", "t-e"]);
    assert_eq!(list_all(&store, Kind::Tool, tag("env", None)).await, ["t-a", "t-b", "t-d"]);
    assert_eq!(list_all(&store, Kind::Tool, tag("env", Some("prod"))).await, ["t-a", "t-d"]);
    assert_eq!(list_all(&store, Kind::Tool, tag("env", Some("Prod"))).await, Vec::<String>::new());
    assert_eq!(list_all(&store, Kind::Tool, tag("beta-only", None)).await, ["t-a"]);
    assert_eq!(list_all(&store, Kind::Tool, tag("beta-only", Some(""))).await, ["t-a"]);
    assert_eq!(list_all(&store, Kind::Agent, tag("env", None)).await, ["ag-1"]);

    let status = |s| ListFilter { status: Some(s), ..ListFilter::default() };
    assert_eq!(list_all(&store, Kind::Tool, status(LifecycleStatus::Active)).await, ["t-a", "t-e"]);
    assert_eq!(list_all(&store, Kind::Tool, status(LifecycleStatus::Deprecated)).await, ["t-b"]);
    assert_eq!(list_all(&store, Kind::Tool, status(LifecycleStatus::Retired)).await, ["t-c"]);
    assert_eq!(list_all(&store, Kind::Tool, status(LifecycleStatus::Disabled)).await, ["t-d"]);
    assert_eq!(list_all(&store, Kind::Agent, status(LifecycleStatus::Active)).await, ["ag-1"]);

    let exec = |t| ListFilter { execution_type: Some(t), ..ListFilter::default() };
    assert_eq!(
        list_all(&store, Kind::Tool, exec(ExecutionType::Lambda)).await,
        ["t-a", "t-d", "t-e"]
    );
    assert_eq!(list_all(&store, Kind::Tool, exec(ExecutionType::Mcp)).await, ["t-b"]);
    assert_eq!(list_all(&store, Kind::Tool, exec(ExecutionType::Inline)).await, ["t-c"]);
    assert!(list_all(&store, Kind::Agent, exec(ExecutionType::Lambda)).await.is_empty());

    let by = |p: &str| ListFilter { created_by: Some(p.into()), ..ListFilter::default() };
    assert_eq!(list_all(&store, Kind::Tool, by("alice")).await, ["t-a", "t-c"]);
    assert_eq!(list_all(&store, Kind::Agent, by("alice")).await, ["ag-1"]);
    assert!(list_all(&store, Kind::Tool, by("Alice")).await.is_empty());

    let combined = ListFilter {
        tag: Some(TagFilter { key: "env".into(), value: Some("prod".into()) }),
        status: Some(LifecycleStatus::Active),
        execution_type: Some(ExecutionType::Lambda),
        created_by: Some("alice".into()),
        name: None,
    };
    assert_eq!(list_all(&store, Kind::Tool, combined.clone()).await, ["t-a"]);
    let none = ListFilter { created_by: Some("bob".into()), ..combined };
    assert!(list_all(&store, Kind::Tool, none).await.is_empty());

    let retagged =
        tagged_tool("t-a", "lambda", json!({"env": "dev"}), Some("deprecated"), Some("alice"));
    store.put(retagged, Expected::Version(1)).await.expect("update t-a");
    assert!(list_all(&store, Kind::Tool, tag("beta-only", None)).await.is_empty());
    assert_eq!(list_all(&store, Kind::Tool, tag("env", Some("prod"))).await, ["t-d"]);
    assert_eq!(list_all(&store, Kind::Tool, tag("env", Some("dev"))).await, ["t-a", "t-b"]);
    assert_eq!(list_all(&store, Kind::Tool, status(LifecycleStatus::Active)).await, ["t-e"]);
}

async fn walk(
    store: &Arc<dyn Store>,
    kind: Kind,
    limit: u32,
    filter: ListFilter,
) -> (Vec<String>, usize) {
    let mut query = ListQuery { limit, cursor: None, filter };
    let mut seen = Vec::new();
    let mut pages = 0;
    loop {
        let page = store.list(kind, &query).await.expect("list page");
        pages += 1;
        assert!(page.items.len() <= limit as usize, "page larger than the limit");
        assert!(!page.items.is_empty() || pages == 1, "an empty page after a cursor");
        seen.extend(ids(&page.items));
        match page.next_cursor {
            Some(cursor) => query.cursor = Some(cursor),
            None => break,
        }
        assert!(pages <= 100, "paging does not end");
    }
    (seen, pages)
}

/// Walking pages visits every definition once, in id order, whatever the page size.
pub async fn list_pages_without_gaps(store: Arc<dyn Store>) {
    let mut expected = Vec::new();
    let mut even = Vec::new();
    // Written out of order; mixed case and non-ASCII ids sort by their bytes.
    for n in [7, 19, 0, 3, 11, 15, 1, 18, 5, 9, 13, 2, 17, 4, 8, 6, 14, 10, 12, 16] {
        let id = format!("p-{n:02}");
        let mut value = tool_json(&id);
        if n % 2 == 0 {
            value["tags"] = json!({ "even": "yes" });
            even.push(id.clone());
        }
        store.put(tool_from(value), Expected::Absent).await.expect("create");
        expected.push(id);
    }
    for odd in ["P-upper", "p-ü", "p-~", "p-Z"] {
        store.put(tool(odd), Expected::Absent).await.expect("create");
        expected.push(odd.to_owned());
    }
    expected.sort();

    for limit in [1, 5, 6, 7, 24, 100] {
        let (seen, pages) = walk(&store, Kind::Tool, limit, ListFilter::default()).await;
        assert_eq!(seen, expected, "limit {limit}");
        assert_eq!(pages, expected.len().div_ceil(limit as usize), "limit {limit}: page count");
    }
    even.sort();
    let (seen, pages) = walk(&store, Kind::Tool, 3, tag("even", Some("yes"))).await;
    assert_eq!(seen, even);
    assert_eq!(pages, 4);
    let (seen, _) = walk(&store, Kind::Agent, 5, ListFilter::default()).await;
    assert!(seen.is_empty());
}

/// A cursor the store did not issue is [`StoreError::InvalidCursor`], never a panic.
pub async fn garbled_cursor_is_invalid(store: Arc<dyn Store>) {
    for id in ["t0", "t1", "t2"] {
        store.put(tool(id), Expected::Absent).await.expect("create");
    }
    store.put(tool("t0"), Expected::Version(1)).await.expect("update");
    store.put(tool("t0"), Expected::Version(2)).await.expect("update");
    let garbage = ["not a cursor!", "%%%", "eyJ4IjoxfQ", "////", "AAAA", "\u{0}\u{fffd}"];
    for cursor in garbage {
        let query = ListQuery { limit: 1, cursor: Some(cursor.into()), ..ListQuery::default() };
        let err = store.list(Kind::Tool, &query).await.expect_err("garbled list cursor");
        assert!(matches!(err, StoreError::InvalidCursor), "{cursor:?}: got {err:?}");
        let err = store.versions(Kind::Tool, "t0", &query).await.expect_err("garbled history");
        assert!(matches!(err, StoreError::InvalidCursor), "{cursor:?}: got {err:?}");
    }
    let page = store.list(Kind::Tool, &ListQuery { limit: 1, ..ListQuery::default() }).await;
    let cursor = page.expect("list").next_cursor.expect("more pages");
    let mut tampered = cursor.clone();
    tampered.truncate(cursor.len() / 2);
    tampered.push('!');
    let query = ListQuery { limit: 1, cursor: Some(tampered), ..ListQuery::default() };
    assert!(matches!(store.list(Kind::Tool, &query).await, Err(StoreError::InvalidCursor)));
}

/// Batch gets keep the order asked, with `None` for missing ids, duplicates allowed.
pub async fn get_many_keeps_order(store: Arc<dyn Store>) {
    for id in ["a", "b", "c"] {
        store.put(tool(id), Expected::Absent).await.expect("create");
    }
    let asked: Vec<String> = ["c", "missing", "a", "c", "b"].map(String::from).to_vec();
    let got = store.get_many(Kind::Tool, &asked).await.expect("get_many");
    let got: Vec<Option<String>> =
        got.iter().map(|d| d.as_ref().map(|d| d.id().to_owned())).collect();
    assert_eq!(got, [Some("c".into()), None, Some("a".into()), Some("c".into()), Some("b".into())]);
    assert!(store.get_many(Kind::Tool, &[]).await.expect("empty").is_empty());
    let agents = store.get_many(Kind::Agent, &asked).await.expect("other kind");
    assert!(agents.iter().all(Option::is_none));

    let many: Vec<String> = (0..120).map(|n| format!("m{n:03}")).collect();
    for id in many.iter().step_by(3) {
        store.put(tool(id), Expected::Absent).await.expect("create");
    }
    let got = store.get_many(Kind::Tool, &many).await.expect("large batch");
    assert_eq!(got.len(), many.len());
    for (n, (id, def)) in many.iter().zip(&got).enumerate() {
        assert_eq!(def.as_ref().map(|d| d.id()), (n % 3 == 0).then_some(id.as_str()), "{id}");
    }
}

/// `name` lists the releases of one tool (`<name>@...`) and nothing else: not a tool
/// whose name merely starts the same, nor an agent; combined with other filters and
/// paged like any list.
pub async fn releases_by_name(store: Arc<dyn Store>) {
    for id in [
        "weather@1.0.0",
        "weather@1.10.0",
        "weather@2.0.0-beta.1",
        "weather-x@1.0.0",
        "weatherA@1.0.0",
        "weathe@1.0.0",
        "weather",
    ] {
        store.put(tool(id), Expected::Absent).await.expect("put");
    }
    store.put(agent_from(agent_json("weather@9.0.0", &[])), Expected::Absent).await.expect("agent");
    let retired =
        tagged_tool("weather@0.9.0", "inline", json!({"env": "old"}), Some("retired"), None);
    store.put(retired, Expected::Absent).await.expect("put retired");
    let name = |n: &str| ListFilter { name: Some(n.into()), ..ListFilter::default() };
    assert_eq!(
        list_all(&store, Kind::Tool, name("weather")).await,
        ["weather@0.9.0", "weather@1.0.0", "weather@1.10.0", "weather@2.0.0-beta.1"]
    );
    assert_eq!(list_all(&store, Kind::Tool, name("weather-x")).await, ["weather-x@1.0.0"]);
    assert!(list_all(&store, Kind::Tool, name("weath")).await.is_empty());
    assert!(list_all(&store, Kind::Agent, name("weather")).await.is_empty());
    let active = ListFilter { status: Some(LifecycleStatus::Active), ..name("weather") };
    assert_eq!(
        list_all(&store, Kind::Tool, active).await,
        ["weather@1.0.0", "weather@1.10.0", "weather@2.0.0-beta.1"]
    );
    let tagged =
        ListFilter { tag: Some(TagFilter { key: "env".into(), value: None }), ..name("weather") };
    assert_eq!(list_all(&store, Kind::Tool, tagged).await, ["weather@0.9.0"]);
    // paged, two at a time, without gaps
    let mut seen = Vec::new();
    let mut cursor = None;
    loop {
        let query = ListQuery { limit: 2, cursor, filter: name("weather") };
        let page = store.list(Kind::Tool, &query).await.expect("page");
        seen.extend(ids(&page.items));
        match page.next_cursor {
            Some(next) => cursor = Some(next),
            None => break,
        }
    }
    assert_eq!(seen.len(), 4, "{seen:?}");
}
